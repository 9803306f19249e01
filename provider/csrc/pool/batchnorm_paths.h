/* batchnorm_paths.h - the per-path copies of batchnorm_body.inc that batchnorm.c chooses from (x86-64:
 * batchnorm_256.c, batchnorm_512.c; the baseline one is batchnorm.c's own). */
#ifndef OM_POOL_BATCHNORM_PATHS_H
#define OM_POOL_BATCHNORM_PATHS_H

#include <stddef.h>

#include "isa/target.h"

#define OM_BN_DECLARE(SUF)                                                                         \
  void om_bn_f32_##SUF(const float* x, float* y, size_t n, float m, float s, float b);          \
  void om_bn_f64_##SUF(const double* x, double* y, size_t n, double m, double s, double b);

OM_BN_DECLARE(base)
#if OM_ISA_X86
OM_BN_DECLARE(256)
OM_BN_DECLARE(512)
#endif

#endif
