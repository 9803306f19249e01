/* dwconv.c - the direct depthwise convolution (dwconv.h): the zero-padded copy of a channel, the tap offsets,
 * the row kernel over the rows of each output plane, then the bias and the output type. Copies and one add: the chain itself is the
 * path's row kernel.
 *
 * The padded copy holds Xp[j0, j1, j2] (j_i = i_i + p_i, +0.0 outside X) for j_i < P_i = (out_i - 1)*s_i +
 * (K_i - 1)*d_i + 1, every tap an output reads. Its last axis is stored split into s2 phases (j2 = q*s2 + ph at
 * ph*L + q, L = ceil(P2 / s2)), so that output positions o = 0, 1, ... of a row read consecutive elements for
 * every kernel position, strided or not: the row kernel loads whole vectors. */
#include "dwconv.h"

#include <stdlib.h>
#include <string.h>

#include "core/om_types.h"
#include "math/om_half.h"

typedef struct om_dw_layout {
  int64_t P0, P1, P2, L, rs; /* padded extents, phase length, elements per padded row (s2 * L) */
  size_t plane, taps;        /* elements of the padded copy, kernel positions */
} om_dw_layout;

static size_t om_dw_up64(size_t b) { return (b + 63) / 64 * 64; }

static om_dw_layout om_dw_layout_of(const om_conv_geom* g) {
  om_dw_layout l;
  l.P0 = (g->out[0] - 1) * g->stride[0] + (g->kernel[0] - 1) * g->dilation[0] + 1;
  l.P1 = (g->out[1] - 1) * g->stride[1] + (g->kernel[1] - 1) * g->dilation[1] + 1;
  l.P2 = (g->out[2] - 1) * g->stride[2] + (g->kernel[2] - 1) * g->dilation[2] + 1;
  l.L = (l.P2 + g->stride[2] - 1) / g->stride[2];
  l.rs = g->stride[2] * l.L;
  l.plane = (size_t)(l.P0 * l.P1 * l.rs);
  l.taps = (size_t)(g->kernel[0] * g->kernel[1] * g->kernel[2]);
  return l;
}

int om_dwconv_serves(const om_conv_geom* g) {
  return g->channels == 1 && (size_t)(g->kernel[0] * g->kernel[1] * g->kernel[2]) <= OM_DWCONV_MAX_TAPS;
}

int om_dwconv_by_channels(const om_conv_geom* g, size_t mg) {
  return mg == 1 && g->out[2] <= OM_DWCONV_CHAN_MAX_W && g->out[0] * g->out[1] * g->out[2] <= OM_DWCONV_CHAN_MAX_O;
}

/* Bytes of the row path's scratch: the padded copy, the offsets, and for f16 the widened filters and chains. */
static size_t om_dw_row_scratch(const om_conv_geom* g, const om_dw_layout* l, int type, size_t mg) {
  size_t asize = type == OM_T_DOUBLE ? 8 : 4;
  size_t b = om_dw_up64((l->plane + OM_DWCONV_SLACK) * asize) + om_dw_up64(l->taps * sizeof(ptrdiff_t));
  if (type == OM_T_FLOAT16)
    b += om_dw_up64(mg * l->taps * 4) + om_dw_up64((size_t)(g->out[0] * g->out[1] * g->out[2]) * 4);
  return b;
}

size_t om_dwconv_scratch(const om_conv_geom* g, int type, size_t mg) {
  om_dw_layout l = om_dw_layout_of(g);
  size_t b = om_dw_row_scratch(g, &l, type, mg);
  if (om_dwconv_by_channels(g, mg)) { /* the interleaved copy, filters and chains, the positions */
    size_t asize = type == OM_T_DOUBLE ? 8 : 4, L = OM_DWCONV_MAX_LANES;
    size_t O = (size_t)(g->out[0] * g->out[1] * g->out[2]);
    b += om_dw_up64(l.plane * L * asize) + om_dw_up64(l.taps * L * asize) + om_dw_up64(O * L * asize) +
         om_dw_up64(O * sizeof(ptrdiff_t));
  }
  return b;
}

/* Row i1 of plane i0 of the channel x into the padded copy's row dst (already +0.0), widened for f16. */
static void om_dw_copy_row(const om_conv_geom* g, const om_dw_layout* l, int type, const void* x, int64_t i0,
                           int64_t i1, void* dst) {
  const int64_t s2 = g->stride[2], p2 = g->pad[2];
  int64_t ja = p2, jb = g->in[2] + p2 < l->P2 ? g->in[2] + p2 : l->P2; /* padded columns X covers */
  size_t src0 = (size_t)((i0 * g->in[1] + i1) * g->in[2]);
  if (jb <= ja) return;
  if (s2 == 1 && type != OM_T_FLOAT16) {
    size_t es = type == OM_T_DOUBLE ? 8 : 4;
    memcpy((unsigned char*)dst + (size_t)ja * es, (const unsigned char*)x + src0 * es, (size_t)(jb - ja) * es);
    return;
  }
  for (int64_t ph = 0; ph < s2; ph++) { /* padded column j = q*s2 + ph at ph*L + q */
    int64_t q = ja > ph ? (ja - ph + s2 - 1) / s2 : 0;
    for (int64_t j = q * s2 + ph; j < jb; j += s2, q++) {
      size_t s = src0 + (size_t)(j - p2), at = (size_t)(ph * l->L + q);
      if (type == OM_T_DOUBLE)
        ((double*)dst)[at] = ((const double*)x)[s];
      else if (type == OM_T_FLOAT)
        ((float*)dst)[at] = ((const float*)x)[s];
      else
        ((float*)dst)[at] = om_f16_to_f32(((const uint16_t*)x)[s]);
    }
  }
}

/* The padded copy of channel x (its slack too), +0.0 outside X. */
static void om_dw_fill(const om_conv_geom* g, const om_dw_layout* l, int type, const void* x, unsigned char* plane) {
  const size_t asize = type == OM_T_DOUBLE ? 8 : 4;
  memset(plane, 0, (l->plane + OM_DWCONV_SLACK) * asize);
  for (int64_t r0 = 0; r0 < l->P0; r0++) {
    int64_t i0 = r0 - g->pad[0];
    if (i0 < 0 || i0 >= g->in[0]) continue;
    for (int64_t r1 = 0; r1 < l->P1; r1++) {
      int64_t i1 = r1 - g->pad[1];
      if (i1 < 0 || i1 >= g->in[1]) continue;
      om_dw_copy_row(g, l, type, x, i0, i1, plane + (size_t)((r0 * l->P1 + r1) * l->rs) * asize);
    }
  }
}

/* n results of the chain at y[i*ys] (f32 or f64) plus the bias, then the canonical NaN, stored in `type` at out. */
static void om_dw_finish(int type, int exact, const void* y, size_t ys, const void* b, size_t m, void* out, size_t n) {
  if (type == OM_T_DOUBLE) {
    const double* r = y;
    double* o = out;
    double bm = b ? ((const double*)b)[m] : 0.0;
    for (size_t i = 0; i < n; i++) {
      double v = b ? r[i * ys] + bm : r[i * ys];
      o[i] = exact && v != v ? __builtin_nan("") : v;
    }
    return;
  }
  const float* r = y;
  float bm = !b ? 0.0f : type == OM_T_FLOAT16 ? om_f16_to_f32(((const uint16_t*)b)[m]) : ((const float*)b)[m];
  for (size_t i = 0; i < n; i++) {
    float v = b ? r[i * ys] + bm : r[i * ys];
    if (exact && v != v) v = __builtin_nanf("");
    if (type == OM_T_FLOAT16)
      ((uint16_t*)out)[i] = om_f32_to_f16(v);
    else
      ((float*)out)[i] = v;
  }
}

/* The tap offsets live after the padded copy. */
static ptrdiff_t* om_dw_offsets(const om_dw_layout* l, int type, void* scratch) {
  return (ptrdiff_t*)(void*)((unsigned char*)scratch +
                                om_dw_up64((l->plane + OM_DWCONV_SLACK) * (type == OM_T_DOUBLE ? 8 : 4)));
}

void om_dwconv_taps(const om_conv_geom* g, int type, void* scratch) {
  const om_dw_layout l = om_dw_layout_of(g);
  ptrdiff_t* off = om_dw_offsets(&l, type, scratch);
  size_t t = 0;
  for (int64_t k0 = 0; k0 < g->kernel[0]; k0++)
    for (int64_t k1 = 0; k1 < g->kernel[1]; k1++)
      for (int64_t k2 = 0; k2 < g->kernel[2]; k2++) {
        int64_t c = k2 * g->dilation[2];
        off[t++] = (ptrdiff_t)((k0 * g->dilation[0] * l.P1 + k1 * g->dilation[1]) * l.rs +
                               (c % g->stride[2]) * l.L + c / g->stride[2]);
      }
}

void om_dwconv_channel(const om_dwconv_kern* k, const om_conv_geom* g, int type, int exact, const void* x,
                       const void* w, const void* b, size_t mg, void* y, void* scratch) {
  const om_dw_layout l = om_dw_layout_of(g);
  const size_t asize = type == OM_T_DOUBLE ? 8 : 4, esize = type == OM_T_DOUBLE ? 8 : type == OM_T_FLOAT ? 4 : 2;
  const size_t T = l.taps, W = (size_t)g->out[2], O = (size_t)(g->out[0] * g->out[1] * g->out[2]);
  unsigned char* plane = scratch;
  const ptrdiff_t* off = om_dw_offsets(&l, type, scratch);
  float* wf = (float*)(void*)((unsigned char*)scratch + om_dw_up64((l.plane + OM_DWCONV_SLACK) * asize) +
                              om_dw_up64(T * sizeof(ptrdiff_t)));
  float* accbuf = wf + om_dw_up64(mg * T * 4) / 4;
  const om_dwconv_row_fn row = type == OM_T_DOUBLE ? k->row_f64 : k->row_f32;

  om_dw_fill(g, &l, type, x, plane);
  if (type == OM_T_FLOAT16)
    for (size_t i = 0; i < mg * T; i++) wf[i] = om_f16_to_f32(((const uint16_t*)w)[i]);

  for (size_t m = 0; m < mg; m++) {
    const void* wm = type == OM_T_FLOAT16 ? (const void*)(wf + m * T) : (const unsigned char*)w + m * T * esize;
    unsigned char* ym = (unsigned char*)y + m * O * esize;
    void* acc = type == OM_T_FLOAT16 ? (void*)accbuf : (void*)ym;
    for (int64_t o0 = 0; o0 < g->out[0]; o0++) /* the rows of one output plane in one call */
      row(plane + (size_t)(o0 * g->stride[0] * l.P1 * l.rs) * asize, off, wm, T,
          (unsigned char*)acc + (size_t)(o0 * g->out[1]) * W * asize, W, (size_t)g->out[1],
          (ptrdiff_t)(g->stride[1] * l.rs));
    if (b || exact || type == OM_T_FLOAT16) om_dw_finish(type, exact, acc, 1, b, m, ym, O);
  }
}

/* Channels x + c*xs (c < nc; in[0]*in[1]*in[2] elements of `type` each) into lanes 0 .. nc-1 of the interleaved
 * padded copy xi (L lanes, the padding already +0.0): padded element e of lane c at xi[e*L + c], e as in the row
 * path's copy (the last axis split into its stride phases). */
#define OM_DW_FILL_LANES(T_, IN_, CONV_)                                                                       \
  for (int64_t ph = 0; ph < s2; ph++) { /* padded column j = q*s2 + ph at ph*L + q, as om_dw_copy_row */ \
    int64_t q = p2 > ph ? (p2 - ph + s2 - 1) / s2 : 0;                                                  \
    size_t at = (size_t)(row + ph * l->L + q) * L;                                                      \
    for (int64_t j = q * s2 + ph; j < jb; j += s2, at += L)                                              \
      for (size_t c = 0; c < nc; c++) ((T_*)xi)[at + c] = CONV_(((const IN_*)x)[c * xs + src + (size_t)j]); \
  }
#define OM_DW_SAME(v) (v)
static void om_dw_fill_lanes(const om_conv_geom* g, const om_dw_layout* l, int type, const void* x, size_t xs,
                             size_t nc, size_t L, void* xi) {
  const int64_t s2 = g->stride[2], p2 = g->pad[2];
  for (int64_t i0 = 0; i0 < g->in[0] && i0 + g->pad[0] < l->P0; i0++)
    for (int64_t i1 = 0; i1 < g->in[1] && i1 + g->pad[1] < l->P1; i1++) {
      const size_t src = (size_t)((i0 * g->in[1] + i1) * g->in[2]) - (size_t)p2; /* X's element of column j */
      const int64_t row = ((i0 + g->pad[0]) * l->P1 + i1 + g->pad[1]) * l->rs;
      const int64_t jb = g->in[2] + p2 < l->P2 ? g->in[2] + p2 : l->P2;
      if (type == OM_T_DOUBLE) {
        OM_DW_FILL_LANES(double, double, OM_DW_SAME)
      } else if (type == OM_T_FLOAT) {
        OM_DW_FILL_LANES(float, float, OM_DW_SAME)
      } else {
        OM_DW_FILL_LANES(float, uint16_t, om_f16_to_f32)
      }
    }
}
#undef OM_DW_FILL_LANES
#undef OM_DW_SAME

/* The filters of nc channels (T taps each, from w) into one interleaved block wi: tap t of channel c at
 * wi[t*L + c], lanes nc .. L-1 +0.0; f16 widened. */
static void om_dw_interleave_w(int type, const void* w, size_t nc, size_t T, size_t L, void* wi) {
  for (size_t t = 0; t < T; t++)
    for (size_t c = 0; c < L; c++) {
      if (type == OM_T_DOUBLE)
        ((double*)wi)[t * L + c] = c < nc ? ((const double*)w)[c * T + t] : 0.0;
      else if (type == OM_T_FLOAT)
        ((float*)wi)[t * L + c] = c < nc ? ((const float*)w)[c * T + t] : 0.0f;
      else
        ((float*)wi)[t * L + c] = c < nc ? om_f16_to_f32(((const uint16_t*)w)[c * T + t]) : 0.0f;
    }
}

size_t om_dwconv_lanes(const om_dwconv_kern* k, int type) {
  return type == OM_T_DOUBLE ? k->lanes_f64() : k->lanes_f32();
}

void* om_dwconv_weights(const om_dwconv_kern* k, int type, const void* w, size_t nch, size_t T) {
  const size_t L = om_dwconv_lanes(k, type), asize = type == OM_T_DOUBLE ? 8 : 4;
  const size_t esize = type == OM_T_DOUBLE ? 8 : type == OM_T_FLOAT ? 4 : 2, blocks = (nch + L - 1) / L;
  unsigned char* wi = aligned_alloc(64, om_dw_up64(blocks * T * L * asize + 1));
  for (size_t q = 0; wi && q < blocks; q++)
    om_dw_interleave_w(type, (const unsigned char*)w + q * L * T * esize, nch - q * L < L ? nch - q * L : L, T, L,
                       wi + q * T * L * asize);
  return wi;
}

void om_dwconv_channels(const om_dwconv_kern* k, const om_conv_geom* g, int type, int exact, const void* x,
                        size_t x_stride, const void* w, const void* wi_all, const void* b, size_t nch, void* y,
                        void* scratch) {
  const om_dw_layout l = om_dw_layout_of(g);
  const size_t asize = type == OM_T_DOUBLE ? 8 : 4, esize = type == OM_T_DOUBLE ? 8 : type == OM_T_FLOAT ? 4 : 2;
  const size_t T = l.taps, O = (size_t)(g->out[0] * g->out[1] * g->out[2]);
  const size_t L = om_dwconv_lanes(k, type);
  const om_dwconv_chan_fn chan = type == OM_T_DOUBLE ? k->chan_f64 : k->chan_f32;
  const ptrdiff_t* off = om_dw_offsets(&l, type, scratch);
  unsigned char* xi = (unsigned char*)scratch + om_dw_row_scratch(g, &l, type, 1);
  unsigned char* wi = xi + om_dw_up64(l.plane * OM_DWCONV_MAX_LANES * asize);
  unsigned char* yi = wi + om_dw_up64(T * OM_DWCONV_MAX_LANES * asize);
  ptrdiff_t* pos = (ptrdiff_t*)(void*)(yi + om_dw_up64(O * OM_DWCONV_MAX_LANES * asize));
  size_t i = 0;
  for (int64_t o0 = 0; o0 < g->out[0]; o0++) /* output position (o0, o1, o2) reads from element pos[i] on */
    for (int64_t o1 = 0; o1 < g->out[1]; o1++)
      for (int64_t o2 = 0; o2 < g->out[2]; o2++)
        pos[i++] = (ptrdiff_t)((o0 * g->stride[0] * l.P1 + o1 * g->stride[1]) * l.rs + o2);
  /* The padding stays +0.0 in every block; lanes past a last partial block keep earlier channels' values,
   * computed and never stored. */
  memset(xi, 0, l.plane * L * asize);
  for (size_t c0 = 0; c0 < nch; c0 += L) {
    const size_t nc = nch - c0 < L ? nch - c0 : L;
    om_dw_fill_lanes(g, &l, type, (const unsigned char*)x + c0 * x_stride * esize, x_stride, nc, L, xi);
    const void* wb = wi_all ? (const unsigned char*)wi_all + c0 / L * T * L * asize : wi;
    if (!wi_all) om_dw_interleave_w(type, (const unsigned char*)w + c0 * T * esize, nc, T, L, wi);
    chan(xi, off, wb, T, yi, pos, O);
    for (size_t lane = 0; lane < nc; lane++)
      om_dw_finish(type, exact, yi + lane * asize, L, b, c0 + lane, (unsigned char*)y + (c0 + lane) * O * esize, O);
  }
}
