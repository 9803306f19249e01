/* qgemm_256.c - the integer matrix-product kernel of the 256 path (AVX2; body: qgemm_body.inc). */
#include "isa/target.h"
#if OM_ISA_X86
OM_TARGET_X86_AVX2
#include "qgemm_internal.h"
#define OM_QVB 32
#define OM_QMR 4
#define OM_QNV 2
#define OM_QNAME "256"
#define OM_QSYM 256
#define OM_QVNNI 0
#include "qgemm_body.inc"
#endif
