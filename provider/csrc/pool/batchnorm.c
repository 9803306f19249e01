/* batchnorm.c - BatchNormalization (inference): per channel s = scale / sqrt(var + eps) (three roundings), per
 * element ((x - mean) * s) + bias (three roundings), in the accumulation type; docs/pooling-norm.md.
 *
 * Each step is one IEEE operation of the accumulation type, so any vector width gives the same bits: the loops
 * are plain C that the compiler vectorises (-O3, -ffp-contract=off keeps the multiply and the add apart), built
 * per kernel path (batchnorm_body.inc; the node runs its own path's copy, f16 through the f32 one). sqrt is the correctly rounded IEEE square root (one instruction with
 * -fno-math-errno). A NaN result is rewritten to the canonical quiet NaN (docs/exact-mode.md).
 */
#include "batchnorm.h"

#include <math.h>
#include <stdint.h>

#include "batchnorm_paths.h"
#include "core/om_types.h"
#include "isa/isa.h"
#include "math/om_half.h"

int om_batchnorm_supported(int t) { return t == OM_T_FLOAT || t == OM_T_DOUBLE || t == OM_T_FLOAT16; }

/* Elements of a 16-bit plane widened (and narrowed) per block. */
#define OM_BN_BLOCK 512

#define OM_BN_NAME(n) om_bn_##n##_base
#include "batchnorm_body.inc"

/* The step of kernel path `path` (a wider copy where one is built; each gives the same bits). */
static void om_bn_f32(int path, const float* x, float* y, size_t n, float m, float s, float b) {
#if OM_ISA_X86
  if (path == OM_PATH_512) {
    om_bn_f32_512(x, y, n, m, s, b);
    return;
  }
  if (path == OM_PATH_256) {
    om_bn_f32_256(x, y, n, m, s, b);
    return;
  }
#endif
  (void)path;
  om_bn_f32_base(x, y, n, m, s, b);
}

static void om_bn_f64(int path, const double* x, double* y, size_t n, double m, double s, double b) {
#if OM_ISA_X86
  if (path == OM_PATH_512) {
    om_bn_f64_512(x, y, n, m, s, b);
    return;
  }
  if (path == OM_PATH_256) {
    om_bn_f64_256(x, y, n, m, s, b);
    return;
  }
#endif
  (void)path;
  om_bn_f64_base(x, y, n, m, s, b);
}

static void om_bn_f16(int path, const uint16_t* x, uint16_t* y, size_t n, float m, float s, float b) {
  float buf[OM_BN_BLOCK];
  for (size_t i = 0; i < n; i += OM_BN_BLOCK) {
    size_t k = n - i < OM_BN_BLOCK ? n - i : OM_BN_BLOCK;
    for (size_t j = 0; j < k; j++) buf[j] = om_f16_to_f32(x[i + j]);
    om_bn_f32(path, buf, buf, k, m, s, b);
    for (size_t j = 0; j < k; j++) y[i + j] = om_f32_to_f16(buf[j]); /* a NaN is already canonical: 0x7E00 */
  }
}

double om_batchnorm_factor(int t, double scale, double var, float eps) {
  if (t == OM_T_DOUBLE) return scale / sqrt(var + (double)eps);
  return (double)((float)scale / sqrtf((float)var + eps));
}

void om_batchnorm_plane(int path, int t, const void* x, void* y, size_t n, double mean, double s, double bias) {
  if (t == OM_T_DOUBLE) om_bn_f64(path, x, y, n, mean, s, bias);
  else if (t == OM_T_FLOAT) om_bn_f32(path, x, y, n, (float)mean, (float)s, (float)bias);
  else om_bn_f16(path, x, y, n, (float)mean, (float)s, (float)bias);
}

double om_batchnorm_value(int t, const void* a, size_t c) {
  if (t == OM_T_DOUBLE) return ((const double*)a)[c];
  if (t == OM_T_FLOAT) return ((const float*)a)[c];
  return om_f16_to_f32(((const uint16_t*)a)[c]);
}

void om_batchnorm_planes(int path, int t, const void* x, void* y, size_t plane_size, size_t channels, size_t p_begin,
                         size_t p_end, const void* scale, const void* bias, const void* mean, const void* var,
                         float eps) {
  size_t esz = t == OM_T_DOUBLE ? 8 : t == OM_T_FLOAT ? 4 : 2;
  for (size_t p = p_begin; p < p_end; p++) {
    size_t c = p % channels, off = p * plane_size * esz;
    double s = om_batchnorm_factor(t, om_batchnorm_value(t, scale, c), om_batchnorm_value(t, var, c), eps);
    om_batchnorm_plane(path, t, (const char*)x + off, (char*)y + off, plane_size, om_batchnorm_value(t, mean, c), s,
                       om_batchnorm_value(t, bias, c));
  }
}
