/* window_pool.h - MaxPool and AveragePool over windows of [planes, D, H, W] (1- and 2-D pools as 3-D ones with
 * leading axes of size 1), in the order of docs/pooling-norm.md. Needs only core/. Knows nothing of nodes or
 * ORT. */
#ifndef OM_POOL_WINDOW_POOL_H
#define OM_POOL_WINDOW_POOL_H

#include <stddef.h>
#include <stdint.h>

/* The geometry of one plane, over three spatial axes (axis 2 the last, fastest): output o on axis a has the
 * taps p_j = o stride[a] - pad_begin[a] + j dilation[a], j < kernel[a]; a tap is real when 0 <= p_j < in[a],
 * in the padded range when -pad_begin[a] <= p_j < in[a] + pad_end[a]. */
typedef struct om_wpool_geom {
  size_t in[3], out[3], kernel[3], stride[3], dilation[3], pad_begin[3], pad_end[3];
} om_wpool_geom;

/* The real taps of output o on axis a: j in [*lo, *hi) (lo == hi: none). */
static inline void om_wpool_taps(const om_wpool_geom* g, int a, size_t o, size_t* lo, size_t* hi) {
  int64_t start = (int64_t)(o * g->stride[a]) - (int64_t)g->pad_begin[a], dil = (int64_t)g->dilation[a];
  int64_t room = (int64_t)g->in[a] - start, l, h;
  if (dil == 1) { /* no division: this runs per border column */
    l = start < 0 ? -start : 0;
    h = room <= 0 ? 0 : room;
  } else {
    l = start < 0 ? (-start + dil - 1) / dil : 0;
    h = room <= 0 ? 0 : (room + dil - 1) / dil;
  }
  if (h > (int64_t)g->kernel[a]) h = (int64_t)g->kernel[a];
  if (l > h) l = h;
  *lo = (size_t)l;
  *hi = (size_t)h;
}

/* The taps of output o on axis a in the padded range (they are j = 0, 1, ...: the first tap is never before
 * -pad_begin). */
static inline size_t om_wpool_padded(const om_wpool_geom* g, int a, size_t o) {
  int64_t start = (int64_t)(o * g->stride[a]) - (int64_t)g->pad_begin[a], dil = (int64_t)g->dilation[a];
  int64_t room = (int64_t)(g->in[a] + g->pad_end[a]) - start;
  int64_t n = room <= 0 ? 0 : dil == 1 ? room : (room + dil - 1) / dil;
  return n > (int64_t)g->kernel[a] ? g->kernel[a] : (size_t)n;
}

/* Whether element type t (OM_T_*) has a MaxPool kernel (f16, f32, f64, int8, uint8), an AveragePool one
 * (f16, f32, f64). */
int om_wpool_max_supported(int t);
int om_wpool_avg_supported(int t);

/* On kernel path `path` (isa/isa.h; every path gives the same bits): output rows [r_begin, r_end) of x
 * ([planes, in[0], in[1], in[2]]) into y ([planes, out[0], out[1], out[2]]), row r being plane r / (out[0] out[1]), (od, oh) = its rest: MaxPool's Y, and when idx is not NULL its
 * Indices (flat over X, plane p's offset p in[0] in[1] in[2]; col_major: storage_order 1). */
void om_wpool_max_rows(int path, int t, const om_wpool_geom* g, const void* x, void* y, int64_t* idx,
                       int col_major, size_t r_begin, size_t r_end);
/* The same rows of AveragePool's Y: the real taps summed in window order from +0 in the accumulation type,
 * one division by the count (count_include_pad: the taps in the padded range, else the real ones). */
void om_wpool_avg_rows(int path, int t, const om_wpool_geom* g, int count_include_pad, const void* x,
                       void* y, size_t r_begin, size_t r_end);

/* The same rows of LpPool's Y. t = OM_T_FLOAT, p 1 or 2: s = +0, then for each real tap in window order
 * s = s + |x| (p = 1) or s = s + x * x (p = 2, the product rounded); y = s (p = 1) or sqrt(s) (p = 2, correctly
 * rounded). t = OM_T_DOUBLE (p ignored): s = +0, s = s + |x| in binary64, y = s. Padding taps add nothing; a NaN
 * y is the canonical quiet NaN. The other types and p (node/node_window_pool.c) sum a pre-pass's |x|^p here. */
void om_wpool_lp_rows(int path, int t, int p, const om_wpool_geom* g, const void* x, void* y, size_t r_begin,
                      size_t r_end);

#endif
