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
/* Channels in lanes: y[i*L + l] = chain over t < T of fma(xi[(pos[i] + off[t])*L + l], wi[t*L + l], acc) from
 * +0, i < npos, L = the kernel's lanes (its lanes function); xi, wi and y interleaved by channel (lane l). */
typedef void (*om_dwconv_chan_fn)(const void* xi, const ptrdiff_t* off, const void* wi, size_t T, void* y,
                                  const ptrdiff_t* pos, size_t npos);
typedef struct om_dwconv_kern {
  om_dwconv_row_fn row_f32, row_f64;
  om_dwconv_chan_fn chan_f32, chan_f64;
  size_t (*lanes_f32)(void);
  size_t (*lanes_f64)(void);
} om_dwconv_kern;

/* The kernel object of path file P (dwconv_P.c), from its row and channel kernels. */
#define OM_DWCONV_KERN(P)                                                                                     \
  void om_dwconv_row_f32_##P(const void*, const ptrdiff_t*, const void*, size_t, void*, size_t, size_t,         \
                             ptrdiff_t);                                                                      \
  void om_dwconv_row_f64_##P(const void*, const ptrdiff_t*, const void*, size_t, void*, size_t, size_t,         \
                             ptrdiff_t);                                                                      \
  void om_dwconv_chan_f32_##P(const void*, const ptrdiff_t*, const void*, size_t, void*, const ptrdiff_t*, size_t); \
  void om_dwconv_chan_f64_##P(const void*, const ptrdiff_t*, const void*, size_t, void*, const ptrdiff_t*, size_t); \
  size_t om_dwconv_lanes_f32_##P(void);                                                                       \
  size_t om_dwconv_lanes_f64_##P(void);                                                                       \
  extern const om_dwconv_kern om_dwconv_kern_##P;                                                             \
  const om_dwconv_kern om_dwconv_kern_##P = {om_dwconv_row_f32_##P,   om_dwconv_row_f64_##P,                   \
                                             om_dwconv_chan_f32_##P,  om_dwconv_chan_f64_##P,                  \
                                             om_dwconv_lanes_f32_##P, om_dwconv_lanes_f64_##P};

/* The most lanes of any path's channel kernel (the 512 path's f32). */
#define OM_DWCONV_MAX_LANES 16
/* The channel kernel serves output rows of at most this many positions and planes of at most this many. */
#define OM_DWCONV_CHAN_MAX_W 8
#define OM_DWCONV_CHAN_MAX_O 256

/* 1 when om_dwconv_channels rather than om_dwconv_channel serves the geometry: one filter per group (mg 1) and
 * small output planes (rows that fill few of a row kernel's lanes). By the shapes alone; the bits are the
 * same either way. */
int om_dwconv_by_channels(const om_conv_geom* g, size_t mg);
/* The channel kernel's lanes for elements of `type`: channels per interleaved block (a power of two, at most
 * OM_DWCONV_MAX_LANES). */
size_t om_dwconv_lanes(const om_dwconv_kern* k, int type);
/* The filters w of nch channels (T taps each) interleaved once, block after block of om_dwconv_lanes channels
 * (f16 widened): what om_dwconv_channels reads as wi_all. aligned_alloc'ed (free() it); NULL without memory. */
void* om_dwconv_weights(const om_dwconv_kern* k, int type, const void* w, size_t nch, size_t T);
/* nch groups of one filter each: channel c at x + c*x_stride elements, its filter at w + c*T, its bias b[c]
 * (b NULL: none), its output plane at y + c*O; the order and the finish of om_dwconv_channel, the channels
 * interleaved into the path's lanes. wi_all: om_dwconv_weights of these channels onward (the first channel
 * at a block's start), or NULL: interleaved here from w. scratch: om_dwconv_scratch(g, type, 1) bytes, the
 * taps written. */
void om_dwconv_channels(const om_dwconv_kern* k, const om_conv_geom* g, int type, int exact, const void* x,
                        size_t x_stride, const void* w, const void* wi_all, const void* b, size_t nch, void* y,
                        void* scratch);
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
