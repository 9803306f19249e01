/* window_pool_256.c - the windowed pools' kernels (window_pool_body.inc) for the 256 path. */
#include "isa/target.h"
#if OM_ISA_X86
OM_TARGET_X86_AVX2
#include "window_pool_paths.h"
#define OM_WP_NAME(n) om_wpool_##n##_256
#include "window_pool_body.inc"
#endif
