/* qgemm_scalar.c - the integer matrix-product kernel of the one-lane path (body: qgemm_body.inc, one int32
 * lane per vector). */
#include "qgemm_internal.h"
#define OM_QVB 4
#define OM_QMR 4
#define OM_QNV 4
#define OM_QNAME "scalar"
#define OM_QSYM scalar
#define OM_QVNNI 0
#include "qgemm_body.inc"
