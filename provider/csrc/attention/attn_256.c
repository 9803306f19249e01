/* attn_256.c - the attention kernels (attn_body.inc) for the 256 path. */
#include "isa/target.h"
#if OM_ISA_X86
OM_TARGET_X86_AVX2
#include "attn_paths.h"
#define OM_ATTN_NAME(n) om_attn_##n##_256
#define OM_ATTN_W 8
#include "attn_body.inc"
#endif
