/* qdq_512.c - the QuantizeLinear / DequantizeLinear kernels of the 512 path (AVX-512; body: qdq_body.inc). */
#include "isa/target.h"
#if OM_ISA_X86
OM_TARGET_X86_AVX512
#define OM_QD_LANES 16
#define OM_QD_SYM 512
#include "qdq_body.inc"
#endif
