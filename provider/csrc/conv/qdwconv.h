/* qdwconv.h - the depthwise quantized convolution's kernels (ConvInteger and QLinearConv with one input channel a
 * group; docs/quantized-conv.md): a channel widened to int16 values x - x_zp, and rows of outputs as exact int32
 * sums of int16 x int16 products over the kernel positions, modulo 2^32. Integer sums being exact, every path's
 * body (qdwconv_body.inc, per path in qdwconv_<path>.c) gives the same integers; only the speed differs. Knows
 * nothing of nodes or ORT: node/node_qconv.c lays the padded plane out and calls these. */
#ifndef OM_CONV_QDWCONV_H
#define OM_CONV_QDWCONV_H

#include <stddef.h>
#include <stdint.h>

typedef struct om_qdw_kern {
  /* dst[i] = x[i * step] - xz for i < n, x int8 when is_signed else uint8 (|dst[i]| <= 255: exact in int16). */
  void (*widen)(const uint8_t* x, size_t step, size_t n, int32_t xz, int is_signed, int16_t* dst);
  /* d_even[i] = x[2i] - xz for i < (n + 1) / 2, d_odd[i] = x[2i + 1] - xz for i < n / 2: a row split by the
   * parity of its columns (a stride of 2). */
  void (*split2)(const uint8_t* x, size_t n, int32_t xz, int is_signed, int16_t* d_even, int16_t* d_odd);
  /* y[o] = init + sum over k < taps of w[k] * base[off[k] + o] for o < n, every product exact in int32 (|p| <=
   * 65,025) and every sum modulo 2^32 (y may wrap). Reads only base[off[k] + o], o < n. */
  void (*row)(const int16_t* base, const ptrdiff_t* off, const int16_t* w, size_t taps, int32_t init, int32_t* y,
              size_t n);
} om_qdw_kern;

/* The kernels of kernel path `path` (isa/isa.h); the scalar ones when out of range. */
const om_qdw_kern* om_qdw_kern_of(int path);

#endif
