/* attn.c - the attention kernels of attn.h: the baseline instantiation of attn_body.inc (the 128 and scalar
 * paths, and every path where no wider one is built), the choice of a path's instantiation, and rotary. */
#include "attn.h"

#include "attn_paths.h"
#include "isa/isa.h"

#define OM_ATTN_NAME(n) om_attn_##n##_base
#define OM_ATTN_W 4 /* SSE2 and Advanced SIMD, each in the base ISA */
#include "attn_body.inc"

typedef struct om_attn_impl {
  void (*scores)(const float* q, size_t G, const float* k, size_t n, size_t H, float* d, size_t ds);
  void (*values)(const float* w, size_t ws, size_t G, const float* v, size_t n, size_t H, float* o);
  void (*values_more)(const float* w, size_t ws, size_t G, const float* v, size_t j0, size_t n, size_t H, float* o);
} om_attn_impl;

/* The instantiation a path runs. */
static const om_attn_impl* om_attn_impl_of(int path) {
  static const om_attn_impl base = {om_attn_scores_base, om_attn_values_base, om_attn_values_more_base};
#if OM_ISA_X86
  static const om_attn_impl w512 = {om_attn_scores_512, om_attn_values_512, om_attn_values_more_512};
  static const om_attn_impl w256 = {om_attn_scores_256, om_attn_values_256, om_attn_values_more_256};
  if (path == OM_PATH_512) return &w512;
  if (path == OM_PATH_256) return &w256;
#endif
  (void)path;
  return &base;
}

void om_attn_scores(int path, const float* q, size_t G, const float* k, size_t n, size_t H, float* d, size_t ds) {
  om_attn_impl_of(path)->scores(q, G, k, n, H, d, ds);
}

void om_attn_values(int path, const float* w, size_t ws, size_t G, const float* v, size_t n, size_t H, float* o) {
  om_attn_impl_of(path)->values(w, ws, G, v, n, H, o);
}

void om_attn_values_more(int path, const float* w, size_t ws, size_t G, const float* v, size_t j0, size_t n, size_t H,
                         float* o) {
  om_attn_impl_of(path)->values_more(w, ws, G, v, j0, n, H, o);
}

void om_attn_rotary(const float* x, float* y, size_t H, size_t R, int interleaved, const float* c, const float* z) {
  size_t half = R / 2;
  for (size_t i = R; i < H; i++) y[i] = x[i];
  for (size_t i = 0; i < half; i++) {
    size_t ia = interleaved ? 2 * i : i, ie = interleaved ? 2 * i + 1 : i + half;
    float a = x[ia], e = x[ie];
    float ac = a * c[i], ez = e * z[i], ec = e * c[i], az = a * z[i];
    float ya = ac - ez, ye = ec + az;
    y[ia] = ya != ya ? __builtin_nanf("") : ya; /* a NaN result: the canonical NaN (docs/attention.md) */
    y[ie] = ye != ye ? __builtin_nanf("") : ye;
  }
}

void om_attn_canon(float* x, size_t n) {
  for (size_t i = 0; i < n; i++) x[i] = x[i] != x[i] ? __builtin_nanf("") : x[i]; /* a select: it vectorises */
}
