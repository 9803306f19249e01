/* dwconv.h - the direct depthwise convolution (one input channel per group, C/G = 1) in Conv's order
 * (docs/conv.md): per output element ONE fma chain from +0 over the kernel positions in row-major order, the
 * padding taps real +0.0 terms of a zero-padded copy of the channel. Knows nothing of nodes: a geometry, one
 * channel and its filters in, output planes out. The arithmetic is the path's row kernel (dwconv_body.inc);
 * the copy, the bias add and the rounding to f16 are here, path-independent. */
#ifndef OM_CONV_DWCONV_H
#define OM_CONV_DWCONV_H

#include <stddef.h>
#include <string.h>

#include "im2col.h"

/* At most this many terms (the kernel positions): one GEMM K block, so the chain is the whole sum. */
#define OM_DWCONV_MAX_TAPS 256

/* y[r*n + o] = chain over t < T of fma(base[r*ldx + off[t] + o], w[t], acc) from +0, r < rows, o < n; f32 or
 * f64 (the row kernel's accumulation type) throughout. Reads up to OM_DWCONV_SLACK elements past the last tap. */
typedef void (*om_dwconv_row_fn)(const void* base, const ptrdiff_t* off, const void* w, size_t T, void* y,
                                 size_t n, size_t rows, ptrdiff_t ldx);
#define OM_DWCONV_SLACK 64 /* elements: at least one vector of the widest path */
typedef struct om_dwconv_kern {
  om_dwconv_row_fn row_f32, row_f64;
} om_dwconv_kern;

/* The kernel object of path file P (dwconv_P.c), from its two row kernels. */
#define OM_DWCONV_KERN(P)                                                                             \
  void om_dwconv_row_f32_##P(const void*, const ptrdiff_t*, const void*, size_t, void*, size_t, size_t, \
                             ptrdiff_t);                                                              \
  void om_dwconv_row_f64_##P(const void*, const ptrdiff_t*, const void*, size_t, void*, size_t, size_t, \
                             ptrdiff_t);                                                              \
  extern const om_dwconv_kern om_dwconv_kern_##P;                                                     \
  const om_dwconv_kern om_dwconv_kern_##P = {om_dwconv_row_f32_##P, om_dwconv_row_f64_##P};

/* 1 when the direct path serves the geometry: one channel per group and at most OM_DWCONV_MAX_TAPS positions. */
int om_dwconv_serves(const om_conv_geom* g);
/* Bytes of scratch om_dwconv_channel needs for elements of `type` (OM_T_FLOAT, OM_T_DOUBLE, OM_T_FLOAT16) and
 * mg filters. */
size_t om_dwconv_scratch(const om_conv_geom* g, int type, size_t mg);
/* The kernel positions' offsets into the padded copy, written into scratch: once, before om_dwconv_channel
 * calls that share it (they depend on the geometry only). */
void om_dwconv_taps(const om_conv_geom* g, int type, void* scratch);
/* One channel x (in[0]*in[1]*in[2] elements of `type`) convolved with mg filters w (mg rows of T elements) into
 * mg output planes at y (out[0]*out[1]*out[2] elements each), plus b[m] (one rounded add; f16: in f32) when b
 * is not NULL; NaN -> the canonical quiet NaN when exact. scratch: om_dwconv_scratch bytes, 64-byte aligned,
 * the taps written by om_dwconv_taps. */
void om_dwconv_channel(const om_dwconv_kern* k, const om_conv_geom* g, int type, int exact, const void* x,
                       const void* w, const void* b, size_t mg, void* y, void* scratch);

#endif
