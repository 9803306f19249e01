/* im2col.c - the column matrix of a convolution (im2col.h). Copies only: no arithmetic on the values. */
#include "im2col.h"

#include <string.h>

/* The widest panel om_im2col_panel cuts into output rows on its stack (every path's panel is narrower). */
#define OM_IM2COL_PANEL_COLS 128

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
  om_im2col_rows(g, esize, x, 0, om_conv_rows(g), o0, no, col, ldc);
}

void om_im2col_rows(const om_conv_geom* g, size_t esize, const void* x, size_t t0, size_t nt, size_t o0, size_t no,
                    void* col, size_t ldc) {
  const int64_t in_plane = g->in[0] * g->in[1] * g->in[2], W = g->out[2];
  const int64_t s2 = g->stride[2];
  unsigned char* row = col;
  /* The first position o0 = (o0_start, o1_start, w_start), divided out once per call, then stepped output row
   * by output row (divisions per column row cost more than its copy at small planes: T rows of a few positions) */
  const int64_t w_start = (int64_t)o0 % W, rest = (int64_t)o0 / W;
  const int64_t o1_start = rest % g->out[1], o0_start = rest / g->out[1];
  /* row t0 = (c, k0, k1, k2), divided out once, then stepped */
  int64_t k2 = (int64_t)(t0 % (size_t)g->kernel[2]), k1 = (int64_t)(t0 / (size_t)g->kernel[2] % (size_t)g->kernel[1]);
  int64_t k0 = (int64_t)(t0 / (size_t)(g->kernel[2] * g->kernel[1]) % (size_t)g->kernel[0]);
  size_t c = t0 / (size_t)(g->kernel[2] * g->kernel[1] * g->kernel[0]);
  for (size_t t = 0; t < nt; t++, row += ldc * esize) {
    const unsigned char* xc = (const unsigned char*)x + (size_t)((int64_t)c * in_plane) * esize;
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
    /* the next row: kernel positions row-major, then the channel */
    if (++k2 == g->kernel[2]) {
      k2 = 0;
      if (++k1 == g->kernel[1]) {
        k1 = 0;
        if (++k0 == g->kernel[0]) {
          k0 = 0;
          c++;
        }
      }
    }
  }
}

/* One output row's piece of a panel: columns [j, j + n), output positions (o0i, o1, w .. w + n). */
typedef struct om_im2col_seg {
  size_t j, n;
  int64_t i0, i1, w; /* o0i * stride[0] - pad[0], o1 * stride[1] - pad[1], the first output column */
} om_im2col_seg;

void om_im2col_panel(const void* ctx, size_t k0, size_t kc, size_t j0, size_t nvalid, size_t w, float* dst) {
  const om_im2col_src* s = ctx;
  const om_conv_geom* g = s->geom;
  if (nvalid > OM_IM2COL_PANEL_COLS) { /* wider than any path's panel: the general copy */
    om_im2col_rows(g, sizeof(float), s->x, k0, kc, s->o0 + j0, nvalid, dst, w);
  } else {
    /* the panel's output rows, once per call */
    om_im2col_seg seg[OM_IM2COL_PANEL_COLS];
    size_t ns = 0;
    const int64_t W = g->out[2], o = (int64_t)(s->o0 + j0);
    int64_t ow = o % W, rest = o / W, o1 = rest % g->out[1], o0i = rest / g->out[1];
    for (size_t j = 0; j < nvalid; ns++) {
      size_t n = (size_t)(W - ow) < nvalid - j ? (size_t)(W - ow) : nvalid - j;
      seg[ns] = (om_im2col_seg){j, n, o0i * g->stride[0] - g->pad[0], o1 * g->stride[1] - g->pad[1], ow};
      j += n;
      ow = 0;
      if (++o1 == g->out[1]) {
        o1 = 0;
        o0i++;
      }
    }
    const int64_t in_plane = g->in[0] * g->in[1] * g->in[2], s2 = g->stride[2];
    int64_t k2 = (int64_t)(k0 % (size_t)g->kernel[2]), k1 = (int64_t)(k0 / (size_t)g->kernel[2] % (size_t)g->kernel[1]);
    int64_t kk0 = (int64_t)(k0 / (size_t)(g->kernel[2] * g->kernel[1]) % (size_t)g->kernel[0]);
    size_t c = k0 / (size_t)(g->kernel[2] * g->kernel[1] * g->kernel[0]);
    float* row = dst;
    for (size_t t = 0; t < kc; t++, row += w) {
      const float* xc = s->x + c * (size_t)in_plane;
      const int64_t off2 = k2 * g->dilation[2] - g->pad[2], d0 = kk0 * g->dilation[0], d1 = k1 * g->dilation[1];
      int64_t wa = om_first_at(0, off2, s2), wb = om_first_at(g->in[2], off2, s2);
      for (size_t q = 0; q < ns; q++) {
        const om_im2col_seg* sg = &seg[q];
        float* d = row + sg->j;
        const int64_t i0 = sg->i0 + d0, i1 = sg->i1 + d1;
        if (i0 < 0 || i0 >= g->in[0] || i1 < 0 || i1 >= g->in[1]) {
          for (size_t l = 0; l < sg->n; l++) d[l] = 0;
          continue;
        }
        const int64_t we = sg->w + (int64_t)sg->n;
        int64_t lo = sg->w > wa ? sg->w : wa, hi = we < wb ? we : wb;
        if (hi < lo) hi = lo;
        const float* xs = xc + (i0 * g->in[1] + i1) * g->in[2] + off2;
        int64_t l = sg->w;
        for (; l < lo; l++) d[l - sg->w] = 0;
        if (s2 == 1)
          for (; l < hi; l++) d[l - sg->w] = xs[l];
        else
          for (; l < hi; l++) d[l - sg->w] = xs[l * s2];
        for (; l < we; l++) d[l - sg->w] = 0;
      }
      if (++k2 == g->kernel[2]) {
        k2 = 0;
        if (++k1 == g->kernel[1]) {
          k1 = 0;
          if (++kk0 == g->kernel[0]) {
            kk0 = 0;
            c++;
          }
        }
      }
    }
  }
  if (nvalid < w)
    for (size_t k = 0; k < kc; k++)
      for (size_t l = nvalid; l < w; l++) dst[k * w + l] = 0;
}
