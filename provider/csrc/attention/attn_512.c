/* attn_512.c - the attention kernels (attn_body.inc) for the 512 path. */
#include "isa/target.h"
#if OM_ISA_X86
OM_TARGET_X86_AVX512
#include "attn_paths.h"
#define OM_ATTN_NAME(n) om_attn_##n##_512
#define OM_ATTN_W 16
#include "attn_body.inc"
#endif
