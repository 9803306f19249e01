/* batchnorm_512.c - BatchNormalization's per-element step (batchnorm_body.inc) for the 512 path. */
#include "isa/target.h"
#if OM_ISA_X86
OM_TARGET_X86_AVX512
#include "batchnorm_paths.h"
#define OM_BN_NAME(n) om_bn_##n##_512
#include "batchnorm_body.inc"
#endif
