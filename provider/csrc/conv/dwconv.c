/* dwconv.c - the direct depthwise convolution (dwconv.h): the zero-padded copy of a channel, the tap offsets,
 * the row kernel over the rows of each output plane, then the bias and the output type. Copies and one add: the chain itself is the
 * path's row kernel.
 *
 * The padded copy holds Xp[j0, j1, j2] (j_i = i_i + p_i, +0.0 outside X) for j_i < P_i = (out_i - 1)*s_i +
 * (K_i - 1)*d_i + 1, every tap an output reads. Its last axis is stored split into s2 phases (j2 = q*s2 + ph at
 * ph*L + q, L = ceil(P2 / s2)), so that output positions o = 0, 1, ... of a row read consecutive elements for
 * every kernel position, strided or not: the row kernel loads whole vectors. */
#include "dwconv.h"

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

size_t om_dwconv_scratch(const om_conv_geom* g, int type, size_t mg) {
  om_dw_layout l = om_dw_layout_of(g);
  size_t asize = type == OM_T_DOUBLE ? 8 : 4;
  size_t b = om_dw_up64((l.plane + OM_DWCONV_SLACK) * asize) + om_dw_up64(l.taps * sizeof(ptrdiff_t));
  if (type == OM_T_FLOAT16)
    b += om_dw_up64(mg * l.taps * 4) + om_dw_up64((size_t)(g->out[0] * g->out[1] * g->out[2]) * 4);
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

/* n results of the chain in y (f32 or f64) plus the bias, then the canonical NaN, stored in `type` at out. */
static void om_dw_finish(int type, int exact, const void* y, const void* b, size_t m, void* out, size_t n) {
  if (type == OM_T_DOUBLE) {
    const double* r = y;
    double* o = out;
    double bm = b ? ((const double*)b)[m] : 0.0;
    for (size_t i = 0; i < n; i++) {
      double v = b ? r[i] + bm : r[i];
      o[i] = exact && v != v ? __builtin_nan("") : v;
    }
    return;
  }
  const float* r = y;
  float bm = !b ? 0.0f : type == OM_T_FLOAT16 ? om_f16_to_f32(((const uint16_t*)b)[m]) : ((const float*)b)[m];
  for (size_t i = 0; i < n; i++) {
    float v = b ? r[i] + bm : r[i];
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

  memset(plane, 0, (l.plane + OM_DWCONV_SLACK) * asize);
  for (int64_t r0 = 0; r0 < l.P0; r0++) {
    int64_t i0 = r0 - g->pad[0];
    if (i0 < 0 || i0 >= g->in[0]) continue;
    for (int64_t r1 = 0; r1 < l.P1; r1++) {
      int64_t i1 = r1 - g->pad[1];
      if (i1 < 0 || i1 >= g->in[1]) continue;
      om_dw_copy_row(g, &l, type, x, i0, i1, plane + (size_t)((r0 * l.P1 + r1) * l.rs) * asize);
    }
  }
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
    if (b || exact || type == OM_T_FLOAT16) om_dw_finish(type, exact, acc, b, m, ym, O);
  }
}
