/* qgemm_512vnni.c - the 512 path's integer matrix-product kernel with AVX-512 VNNI (vpdpbusd: four u8 x s8
 * products summed into an int32 lane, no saturation), used where the CPU has it (isa/paths.c's qgemm_ext). */
#include "isa/target.h"
#if OM_ISA_X86
OM_TARGET_X86_AVX512VNNI
#include <immintrin.h>

#include "qgemm_internal.h"
#define OM_QVB 64
#define OM_QNAME "512-vnni"
#define OM_QVNNI 1
/* N <= 16 (QLinearConv's groups of 16 output channels): one vector a panel, 16 rows a tile */
#define OM_QMR 16
#define OM_QNV 1
#define OM_QSYM 512vnni_n16
#include "qgemm_body.inc"
#undef OM_QMR
#undef OM_QNV
#undef OM_QSYM
/* the rest: two vectors (32 columns) a panel, 8 rows a tile */
#define OM_QMR 8
#define OM_QNV 2
#define OM_QSYM 512vnni
#define OM_QNARROW (&om_qgemm_kern_512vnni_n16)
#include "qgemm_body.inc"
#endif
