/* qgemm_512.c - the integer matrix-product kernels of the 512 path (qgemm_body.inc): AVX-512 with the dot of
 * four in int32 lanes; and, in qgemm_512vnni.c, with vpdpbusd where the CPU has AVX-512 VNNI. */
#include "isa/target.h"
#if OM_ISA_X86
OM_TARGET_X86_AVX512
#include "qgemm_internal.h"
#define OM_QVB 64
#define OM_QMR 4
#define OM_QNV 2
#define OM_QNAME "512"
#define OM_QSYM 512
#define OM_QVNNI 0
#include "qgemm_body.inc"
#endif
