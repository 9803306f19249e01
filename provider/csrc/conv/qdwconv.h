/* qdwconv.h - the depthwise quantized convolution's kernels (ConvInteger and QLinearConv with one input channel a
 * group; docs/quantized-conv.md): a channel widened to int32 values x - x_zp (|v| <= 255), and rows of outputs
 * as exact int32 sums of their products with w - w_zp (|w| <= 255) over the kernel positions, modulo 2^32.
 * Integer sums being exact, every path's body (qdwconv_body.inc, per path in qdwconv_<path>.c) gives the same
 * integers; only the speed differs. Knows nothing of nodes or ORT: node/node_qconv.c lays the padded plane out
 * and calls these. */
#ifndef OM_CONV_QDWCONV_H
#define OM_CONV_QDWCONV_H

#include <stddef.h>
#include <stdint.h>

/* A widened input value x - x_zp, in [-255, 255]: int32 so that the row kernels load it without converting. */
typedef int32_t om_qdw_val;

typedef struct om_qdw_kern {
  /* dst[i] = x[i * step] - xz for i < n, x int8 when is_signed else uint8 (|dst[i]| <= 255). */
  void (*widen)(const uint8_t* x, size_t step, size_t n, int32_t xz, int is_signed, om_qdw_val* dst);
  /* d_even[i] = x[2i] - xz for i < (n + 1) / 2, d_odd[i] = x[2i + 1] - xz for i < n / 2: a row split by the
   * parity of its columns (a stride of 2). */
  void (*split2)(const uint8_t* x, size_t n, int32_t xz, int is_signed, om_qdw_val* d_even,
                 om_qdw_val* d_odd);
  /* y[o] = init + sum over k < taps of w[k] * base[off[k] + o] for o < n, every product exact in int32 (|p| <=
   * 65,025) and every sum modulo 2^32 (y may wrap). Reads only base[off[k] + o], o < n. */
  void (*row)(const om_qdw_val* base, const ptrdiff_t* off, const int16_t* w, size_t taps, int32_t init, int32_t* y,
              size_t n);
} om_qdw_kern;

/* The kernels of kernel path `path` (isa/isa.h); the scalar ones when out of range. */
const om_qdw_kern* om_qdw_kern_of(int path);

#endif
