/* convdirect.h - the direct f32 convolution (any stride, pad, dilation, kernel, 1-D to 3-D; at least two input
 * channels per group) in Conv's order (docs/conv.md "Reference: the order of operations"): no column matrix.
 * The group's input is copied once, zero-padded, each axis's padded extent P_i = (out_i - 1)*s_i +
 * (K_i - 1)*d_i + 1 stored split into s_i phases of Q_i = ceil(P_i / s_i) elements (padded index j at phase
 * j mod s_i, index j div s_i). Output position o, flattened as p = (o0*Q1 + o1)*Q2 + o2, then reads tap
 * t = (c, k) at p + off[t], off[t] = the place of padded index k*d in channel c's copy, so consecutive p read
 * consecutive elements for every tap, strided or not: the path's kernel keeps an MR x NR tile of chains (MR
 * output channels in the lanes of NV vectors, NR positions) in registers, each lane of each accumulator one
 * output element, acc = fma(Xp[p + off[t]], W[m, t], acc) in increasing t from +0 per block of 256 taps; the
 * block sums go through the GEMM's binary-counter tree here. Positions p whose o2 >= out2 or o1 >= out1 (the
 * extents' extra columns) are computed and dropped. Knows nothing of nodes. */
#ifndef OM_CONV_CONVDIRECT_H
#define OM_CONV_CONVDIRECT_H

#include <stddef.h>

#include "im2col.h"

/* Terms per chain: the GEMM's K block (gemm/gemm.h OM_GEMM_KB), the order's block length. */
#define OM_CONVD_KB 256

/* tile[j*mr + r] = the chain over t < nt of fma(x[off[t] + j], w[t*mr + r], acc) from +0, r < mr, j < nr (the
 * kernel's tile). Reads x up to nr - 1 elements past the last tap of position 0. */
typedef void (*om_convd_block_fn)(const float* x, const ptrdiff_t* off, size_t nt, const float* w, float* tile);
typedef struct om_convd_kern {
  size_t mr, nr; /* tile: output channels x positions */
  om_convd_block_fn block;
  size_t nr_short;          /* the short tile's positions (nr / 2): a plane's last nr_short or fewer positions */
  om_convd_block_fn short_; /* the same chains over mr x nr_short */
} om_convd_kern;
/* A path's tile kernels: wide, and narrow for groups of fewer output channels than a wide tile. */
typedef struct om_convd_kerns {
  om_convd_kern wide, narrow;
} om_convd_kerns;

/* The kernel objects of path file P (convdirect_P.c), from its two tiles' sizes and functions. */
#define OM_CONVD_KERN(P)                                                                                   \
  void om_convd_block_##P(const float*, const ptrdiff_t*, size_t, const float*, float*);                    \
  void om_convd_narrow_##P(const float*, const ptrdiff_t*, size_t, const float*, float*);                   \
  void om_convd_block_short_##P(const float*, const ptrdiff_t*, size_t, const float*, float*);              \
  void om_convd_narrow_short_##P(const float*, const ptrdiff_t*, size_t, const float*, float*);             \
  extern const om_convd_kerns om_convd_kern_##P;                                                           \
  const om_convd_kerns om_convd_kern_##P = {                                                               \
      {OM_CONVD_NV * GVL, OM_CONVD_NP, om_convd_block_##P, OM_CONVD_NP / 2, om_convd_block_short_##P},      \
      {OM_CONVD_NV1 * GVL, OM_CONVD_NP1, om_convd_narrow_##P, OM_CONVD_NP1 / 2, om_convd_narrow_short_##P}};

/* 1 when the direct kernel serves the geometry: at least two channels per group (one channel: conv/dwconv.h).
 * By the shapes alone. */
int om_convd_serves(const om_conv_geom* g);
/* Elements of one group's padded copy (its channels' planes and the kernel's slack). */
size_t om_convd_copy_elems(const om_conv_geom* g, const om_convd_kern* k);
/* The padded copy of one group's channels x (channel c at x + c*in[0]*in[1]*in[2]) into xp
 * (om_convd_copy_elems floats; padding and slack +0.0). */
void om_convd_copy(const om_conv_geom* g, const om_convd_kern* k, const float* x, float* xp);
/* Output positions of the flattened plane a group's output covers: ((out0-1)*Q1 + out1-1)*Q2 + out2. */
size_t om_convd_positions(const om_conv_geom* g);
/* Floats of the packed filters of m output channels: ceil(m / mr) blocks of T x mr. */
size_t om_convd_weights_elems(const om_conv_geom* g, const om_convd_kern* k, size_t m);
/* Filters w (m rows of T = channels * prod(kernel) floats) packed into wp: block b holds w[b*mr + r, t] at
 * [b*T*mr + t*mr + r], rows past m +0.0. */
void om_convd_pack_weights(const om_conv_geom* g, const om_convd_kern* k, const float* w, size_t m, float* wp);
/* The taps' offsets off[t] (T of them) into the padded copy. */
void om_convd_offsets(const om_conv_geom* g, ptrdiff_t* off);
/* Floats of om_convd_run's scratch for the tree's pending levels (0 when T <= 256: one chain). */
size_t om_convd_levels_elems(const om_conv_geom* g, const om_convd_kern* k);
/* Output channels [m0, m0 + nm) (m0 a multiple of mr; wp the packed filters of channel 0 on) over flattened
 * positions [p0, p1) of one group: y (the group's output, channel m's plane at y + m*O) gets each element's
 * order (chains, tree), then + b[m] (b NULL: none; one rounded add), NaN -> canonical when exact. levels:
 * om_convd_levels_elems floats of scratch (NULL when that is 0). */
void om_convd_run(const om_conv_geom* g, const om_convd_kern* k, const float* xp, const ptrdiff_t* off,
                  const float* wp, const float* b, size_t m0, size_t nm, size_t p0, size_t p1, int exact, float* y,
                  float* levels);

#endif
