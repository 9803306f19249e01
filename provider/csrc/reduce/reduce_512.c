/* reduce_512.c - the reduction kernels instantiated for the 512 path (see reduce_body.inc). */
#if defined(__x86_64__) || defined(__i386__)
#pragma GCC target("avx512f,avx512bw,avx512dq,avx512vl,avx2,fma,bmi2,f16c,prfchw")
#define OM_RED_VB 64 /* bytes of the native vector (om_red_vmaxmin) */
#define OM_RED_PATH OM_PATH_512
#define OM_RED_TABLE om_red_path_512
#include "reduce_body.inc"
#endif
