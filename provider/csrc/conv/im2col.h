/* im2col.h - the column matrix of a convolution (Conv's order, docs/conv.md): for one image and one group,
 * row t = (c, k1, k2, k3) (channel outermost, kernel positions row-major), column o = an output position
 * (row-major over the output's spatial axes), holding the zero-padded input tap Xp[c, o*s + k*d - p].
 * Knows nothing of nodes: a geometry in, bytes out. */
#ifndef OM_CONV_IM2COL_H
#define OM_CONV_IM2COL_H

#include <stddef.h>
#include <stdint.h>

/* A convolution's geometry over three spatial axes (a 1-D or 2-D one has size-1 leading axes, kernel 1,
 * stride 1, dilation 1, pad 0). */
typedef struct om_conv_geom {
  size_t channels;                       /* input channels per group (C/G) */
  int64_t in[3], out[3], kernel[3];      /* spatial sizes of the input, the output, the kernel */
  int64_t stride[3], dilation[3], pad[3]; /* pad: the begin pads (the end pads only bound the output) */
} om_conv_geom;

/* Rows of the column matrix: channels * kernel[0] * kernel[1] * kernel[2]. */
size_t om_conv_rows(const om_conv_geom* g);
/* Output positions: out[0] * out[1] * out[2]. */
size_t om_conv_positions(const om_conv_geom* g);
/* 1 when the column matrix is the input itself (kernel 1x1x1, stride 1, no pad): row c is channel c. */
int om_conv_is_pointwise(const om_conv_geom* g);

/* Columns [o0, o0 + no) of the column matrix of x (the group's first channel of one image; channel c at
 * x + c * in[0]*in[1]*in[2] elements) into col (row t at col + t*ldc elements), for elements of esize bytes
 * (2, 4 or 8); padding taps are +0.0 (all bits zero). */
void om_im2col(const om_conv_geom* g, size_t esize, const void* x, size_t o0, size_t no, void* col, size_t ldc);
/* Rows [t0, t0 + nt) of the same columns (row t0 at col). */
void om_im2col_rows(const om_conv_geom* g, size_t esize, const void* x, size_t t0, size_t nt, size_t o0, size_t no,
                    void* col, size_t ldc);

/* The column matrix of one image and group (f32) as the GEMM's B, panel by panel (om_gemm_args.b_fill): columns
 * counted from o0. */
typedef struct om_im2col_src {
  const om_conv_geom* geom;
  const float* x; /* the group's first channel of the image */
  size_t o0;      /* the GEMM's column 0 is output position o0 */
} om_im2col_src;
/* An om_gemm_b_fill_fn over an om_im2col_src (ctx): rows [k0, k0 + kc) of columns [j0, j0 + nvalid) into
 * dst[k * w + j], columns [nvalid, w) zero. The values of om_im2col, copies only. */
void om_im2col_panel(const void* ctx, size_t k0, size_t kc, size_t j0, size_t nvalid, size_t w, float* dst);

#endif
