/* im2col.c - the column matrix of a convolution (im2col.h). Copies only: no arithmetic on the values. */
#include "im2col.h"

#include <string.h>

size_t om_conv_rows(const om_conv_geom* g) {
  return g->channels * (size_t)(g->kernel[0] * g->kernel[1] * g->kernel[2]);
}

size_t om_conv_positions(const om_conv_geom* g) { return (size_t)(g->out[0] * g->out[1] * g->out[2]); }

int om_conv_is_pointwise(const om_conv_geom* g) {
  for (int a = 0; a < 3; a++)
    if (g->kernel[a] != 1 || g->stride[a] != 1 || g->pad[a] != 0 || g->in[a] != g->out[a]) return 0;
  return 1;
}

/* The first output index w >= 0 whose tap w*s + off lands at or past `lo`, for s >= 1 (off may be negative). */
static int64_t om_first_at(int64_t lo, int64_t off, int64_t s) {
  int64_t num = lo - off;
  if (num <= 0) return 0;
  return s == 1 ? num : (num + s - 1) / s; /* stride 1 without a division: once per column row, T times a tile */
}

/* n elements of src at stride s (elements) to dst, contiguous. */
static void om_gather(size_t esize, const unsigned char* src, int64_t s, unsigned char* dst, size_t n) {
  if (s == 1) {
    memcpy(dst, src, n * esize);
    return;
  }
  switch (esize) {
    case 2:
      for (size_t i = 0; i < n; i++) ((uint16_t*)(void*)dst)[i] = ((const uint16_t*)(const void*)src)[(int64_t)i * s];
      break;
    case 4:
      for (size_t i = 0; i < n; i++) ((uint32_t*)(void*)dst)[i] = ((const uint32_t*)(const void*)src)[(int64_t)i * s];
      break;
    default:
      for (size_t i = 0; i < n; i++) ((uint64_t*)(void*)dst)[i] = ((const uint64_t*)(const void*)src)[(int64_t)i * s];
      break;
  }
}

void om_im2col(const om_conv_geom* g, size_t esize, const void* x, size_t o0, size_t no, void* col, size_t ldc) {
  const int64_t in_plane = g->in[0] * g->in[1] * g->in[2], W = g->out[2];
  const int64_t s2 = g->stride[2];
  unsigned char* row = col;
  /* The first position o0 = (o0_start, o1_start, w_start), divided out once per call, then stepped output row
   * by output row (divisions per column row cost more than its copy at small planes: T rows of a few positions) */
  const int64_t w_start = (int64_t)o0 % W, rest = (int64_t)o0 / W;
  const int64_t o1_start = rest % g->out[1], o0_start = rest / g->out[1];
  for (size_t c = 0; c < g->channels; c++) {
    const unsigned char* xc = (const unsigned char*)x + (size_t)((int64_t)c * in_plane) * esize;
    for (int64_t k0 = 0; k0 < g->kernel[0]; k0++)
      for (int64_t k1 = 0; k1 < g->kernel[1]; k1++)
        for (int64_t k2 = 0; k2 < g->kernel[2]; k2++, row += ldc * esize) {
          const int64_t off2 = k2 * g->dilation[2] - g->pad[2];
          /* the output columns w whose tap lies inside [0, in[2]) */
          int64_t wa = om_first_at(0, off2, s2), wb = om_first_at(g->in[2], off2, s2);
          if (wa > W) wa = W;
          if (wb > W) wb = W;
          size_t o = o0, end = o0 + no;
          int64_t w = w_start, o1 = o1_start, o0i = o0_start;
          for (; o < end; w = 0, o1 = o1 + 1 == g->out[1] ? 0 : o1 + 1, o0i += o1 == 0) {
            /* one output row (fixed leading indices) at a time */
            size_t seg = (size_t)(W - w) < end - o ? (size_t)(W - w) : end - o;
            unsigned char* dst = row + (o - o0) * esize;
            int64_t i0 = o0i * g->stride[0] + k0 * g->dilation[0] - g->pad[0];
            int64_t i1 = o1 * g->stride[1] + k1 * g->dilation[1] - g->pad[1];
            if (i0 < 0 || i0 >= g->in[0] || i1 < 0 || i1 >= g->in[1]) {
              memset(dst, 0, seg * esize);
            } else {
              int64_t we = w + (int64_t)seg, lo = w > wa ? w : wa, hi = we < wb ? we : wb;
              if (hi < lo) hi = lo;
              memset(dst, 0, (size_t)(lo - w) * esize);
              if (hi > lo)
                om_gather(esize, xc + (size_t)((i0 * g->in[1] + i1) * g->in[2] + lo * s2 + off2) * esize, s2,
                          dst + (size_t)(lo - w) * esize, (size_t)(hi - lo));
              memset(dst + (size_t)(hi - w) * esize, 0, (size_t)(we - hi) * esize);
            }
            o += seg;
          }
        }
  }
}
