/* col2im.c - the scatter-add of a transposed convolution (col2im.h): plain adds, in kernel-position order. */
#include "col2im.h"

#include <stdint.h>
#include <string.h>

#include "core/om_types.h"

/* The input positions j in [0, n) whose output j*s + off lands in [0, out): [*lo, *hi). */
static void om_col2im_span(int64_t n, int64_t s, int64_t off, int64_t out, int64_t* lo, int64_t* hi) {
  int64_t a = off >= 0 ? 0 : (-off + s - 1) / s; /* first j with j*s + off >= 0 */
  int64_t b = out - off <= 0 ? 0 : (out - off + s - 1) / s; /* first j with j*s + off >= out */
  *lo = a < n ? a : n;
  *hi = b < n ? b : n;
  if (*hi < *lo) *hi = *lo;
}

#define OM_COL2IM_PLANE(NAME, T_, NAN_)                                                                     \
  static void NAME(const om_conv_geom* g, const T_* col, size_t ldc, const T_* bias, int exact, T_* y) {    \
    const int64_t O1 = g->out[1], O2 = g->out[2], n_out = g->out[0] * O1 * O2;                             \
    const int64_t I1 = g->in[1], I2 = g->in[2], s2 = g->stride[2];                                         \
    for (int64_t o = 0; o < n_out; o++) y[o] = 0.0;                                                        \
    const T_* row = col;                                                                                   \
    /* a last axis of kernel 2, stride 2, no dilation, no pads: each output column takes one k2, so both     \
     * k2 of a (k0, k1) go in one interleaving pass (every output element's additions keep their order) */ \
    const int pair = g->kernel[2] == 2 && s2 == 2 && g->dilation[2] == 1 && g->pad[2] == 0 && O2 == 2 * I2;  \
    for (int64_t k0 = 0; k0 < g->kernel[0]; k0++)                                                          \
      for (int64_t k1 = 0; k1 < g->kernel[1]; k1++) {                                                      \
        if (pair) {                                                                                        \
          int64_t a0, b0, a1, b1;                                                                          \
          const int64_t off0 = k0 * g->dilation[0] - g->pad[0], off1 = k1 * g->dilation[1] - g->pad[1];   \
          om_col2im_span(g->in[0], g->stride[0], off0, g->out[0], &a0, &b0);                               \
          om_col2im_span(I1, g->stride[1], off1, O1, &a1, &b1);                                            \
          for (int64_t j0 = a0; j0 < b0; j0++)                                                             \
            for (int64_t j1 = a1; j1 < b1; j1++) {                                                         \
              T_* restrict yr = y + ((j0 * g->stride[0] + off0) * O1 + j1 * g->stride[1] + off1) * O2;     \
              const T_* restrict c0 = row + (j0 * I1 + j1) * I2;                                           \
              const T_* restrict c1 = c0 + ldc;                                                            \
              for (int64_t j = 0; j < I2; j++) {                                                           \
                yr[2 * j] = yr[2 * j] + c0[j];                                                             \
                yr[2 * j + 1] = yr[2 * j + 1] + c1[j];                                                     \
              }                                                                                            \
            }                                                                                              \
          row += 2 * ldc;                                                                                  \
          continue;                                                                                        \
        }                                                                                                  \
        for (int64_t k2 = 0; k2 < g->kernel[2]; k2++, row += ldc) {                                        \
          int64_t a0, b0, a1, b1, a2, b2;                                                                  \
          const int64_t off0 = k0 * g->dilation[0] - g->pad[0], off1 = k1 * g->dilation[1] - g->pad[1];   \
          const int64_t off2 = k2 * g->dilation[2] - g->pad[2];                                            \
          om_col2im_span(g->in[0], g->stride[0], off0, g->out[0], &a0, &b0);                               \
          om_col2im_span(I1, g->stride[1], off1, O1, &a1, &b1);                                            \
          om_col2im_span(I2, s2, off2, O2, &a2, &b2);                                                      \
          for (int64_t j0 = a0; j0 < b0; j0++)                                                             \
            for (int64_t j1 = a1; j1 < b1; j1++) {                                                         \
              T_* yr = y + ((j0 * g->stride[0] + off0) * O1 + j1 * g->stride[1] + off1) * O2 + a2 * s2 + off2; \
              const T_* cr = row + (j0 * I1 + j1) * I2 + a2;                                               \
              const int64_t m = b2 - a2;                                                                   \
              if (s2 == 1)                                                                                 \
                for (int64_t j = 0; j < m; j++) yr[j] = yr[j] + cr[j];                                     \
              else                                                                                         \
                for (int64_t j = 0; j < m; j++) yr[j * s2] = yr[j * s2] + cr[j];                           \
            }                                                                                              \
        }                                                                                                  \
      }                                                                                                    \
    if (bias && exact) { /* one pass: the bias, then a NaN made canonical */                               \
      const T_ b = *bias;                                                                                  \
      for (int64_t o = 0; o < n_out; o++) {                                                                \
        T_ v = y[o] + b;                                                                                   \
        y[o] = v != v ? NAN_ : v;                                                                          \
      }                                                                                                    \
    } else if (bias) {                                                                                     \
      const T_ b = *bias;                                                                                  \
      for (int64_t o = 0; o < n_out; o++) y[o] = y[o] + b;                                                 \
    } else if (exact)                                                                                      \
      for (int64_t o = 0; o < n_out; o++) y[o] = y[o] != y[o] ? NAN_ : y[o];                               \
  }
OM_COL2IM_PLANE(om_col2im_plane_f32, float, __builtin_nanf(""))
OM_COL2IM_PLANE(om_col2im_plane_f64, double, __builtin_nan(""))

void om_col2im_plane(const om_conv_geom* g, int type, const void* col, size_t ldc, const void* bias, int exact,
                     void* y) {
  if (type == OM_T_DOUBLE)
    om_col2im_plane_f64(g, col, ldc, bias, exact, y);
  else
    om_col2im_plane_f32(g, col, ldc, bias, exact, y);
}
