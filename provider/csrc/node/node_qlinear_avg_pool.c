/* node_qlinear_avg_pool.c - com.microsoft QLinearAveragePool (docs/quantized-elementwise.md): X [N, C, D1, ...]
 * (channels_last: [N, D1, ..., C]) of an 8-bit type with 1 to 3 spatial axes, per-tensor scales, optional zero
 * points (0 when absent); Y of the same type and layout, [N, C, O1, ...]. kernel_shape, strides, pads, auto_pad
 * and ceil_mode are AveragePool's (node_window_pool.c's window geometry, window_geom.h); dilations are not an
 * attribute of this op and refused. Each output is its window's exact int32 sum over the real taps of
 * x - x_zero_point (padding counts as x_zero_point, a dequantized 0), scaled by m = fl(x_scale / fl(y_scale * n))
 * with n the window's count (count_include_pad: its taps in the padded range, else the real ones) and
 * requantised by quant/qoutput.h's om_qout_requantize. A window holds at most 2^23 taps, so that every sum is
 * exact in int32 and n exact in binary32. The work is split over the output rows (N x C x O1 x O2, channels_last
 * N x O1 x O2, padded to three axes) in fixed chunks. Knows nothing of ORT.
 */
#include <stdio.h>
#include <stdlib.h>

#include "core/om_ops.h"
#include "node_family.h"
#include "parallel.h"
#include "qlinear_params.h"
#include "quant/qoutput.h"
#include "window_geom.h"

enum { OM_QAP_X, OM_QAP_X_SCALE, OM_QAP_X_ZP, OM_QAP_Y_SCALE, OM_QAP_Y_ZP };

static const char* const om_qap_names[5] = {"X", "x_scale", "x_zero_point", "y_scale", "y_zero_point"};

#define OM_QAP_MAX_TAPS_LOG2 23 /* taps in a window: at most 2^23 */
#define OM_QAP_CHUNK_TAPS ((size_t)1 << 16) /* window taps per parallel chunk (whole output rows, at least one) */

typedef struct om_qap_node {
  om_conv conv; /* first: Conv's create fills it through node->impl */
  unsigned has;
  int channels_last, ceil_mode, count_include_pad;
} om_qap_node;

static const char* om_qap_op(const om_node* node) { return om_op_row(node->op)->name; }

static int om_qap_flag(const om_node* node, const char* name, int has, int64_t v, int* dst, char* err,
                       size_t errlen) {
  *dst = has ? (int)v : 0;
  if (!has || v == 0 || v == 1) return 0;
  OM_FAIL_MSG("node '%s' (op %s): attribute %s must be 0 or 1, got %lld", node->name, om_qap_op(node), name,
              (long long)v);
}

static int om_qap_create(om_node* node, const om_attrs* a, char* err, size_t errlen) {
  om_qap_node* p = node->impl;
  if (om_qlin_check_inputs(node, "TFtFt", om_qap_names, node->type, &p->has, err, errlen) != 0) return -1;
  if (a->has_dilations)
    OM_FAIL_MSG("node '%s' (op %s): attribute dilations is not one of this op's (com.microsoft QLinearAveragePool "
                "has none)", node->name, om_qap_op(node));
  if (om_conv_create(node, a, err, errlen) != 0 ||
      om_qap_flag(node, "ceil_mode", a->has_ceil_mode, a->ceil_mode, &p->ceil_mode, err, errlen) != 0 ||
      om_qap_flag(node, "count_include_pad", a->has_count_include_pad, a->count_include_pad,
                  &p->count_include_pad, err, errlen) != 0 ||
      om_qap_flag(node, "channels_last", a->has_channels_last, a->channels_last, &p->channels_last, err,
                  errlen) != 0)
    return -1;
  return om_window_check(node, &p->conv, OM_QAP_MAX_TAPS_LOG2, err, errlen);
}

static int om_qap_rank_ok(const om_node* node, size_t rank, char* err, size_t errlen) {
  const om_conv* c = node->impl;
  if (rank == c->axes + 2) return 0;
  OM_FAIL_MSG("node '%s' (op %s): input 0 (X) has rank %zu; kernel_shape has %zu entries, so X must be [N, C] and "
              "%zu spatial axes (rank %zu)", node->name, om_qap_op(node), rank, c->axes, c->axes, c->axes + 2);
}

static int om_qap_check_ranks(const om_node* node, size_t n_inputs, const size_t* ranks, char* err, size_t errlen) {
  if (n_inputs == 0 || ranks[0] == OM_RANK_UNKNOWN) return 0;
  return om_qap_rank_ok(node, ranks[0], err, errlen);
}

/* The geometry of one call and Y's shape. */
static int om_qap_geom_of(const om_node* node, const om_node_io* io, om_wpool_geom* g, int64_t* y) {
  const om_qap_node* p = node->impl;
  const int64_t* x = io->shapes[0];
  const size_t rank = io->ranks[0];
  if (om_qap_rank_ok(node, rank, io->err, io->errlen) != 0) return -1;
  y[0] = x[0];
  y[p->channels_last ? rank - 1 : 1] = x[p->channels_last ? rank - 1 : 1];
  const size_t s0 = p->channels_last ? 1 : 2;
  return om_window_geom_of(node, &p->conv, p->ceil_mode, x, rank, s0, g, y + s0, io->err, io->errlen);
}

static int om_qap_shapes(const om_node* node, const om_node_io* io) {
  om_wpool_geom g;
  if (om_qap_geom_of(node, io, &g, io->out_shapes) != 0) return -1;
  io->out_ranks[0] = io->ranks[0];
  return 0;
}

typedef struct om_qap_job {
  om_wpool_geom g;
  const void* x;
  void* y;
  size_t planes;   /* N x C (channels_last: N) */
  size_t cw;       /* channels side by side: C channels_last, else 1 */
  int is_signed, cip;
  int32_t zx, zy;
  float sx, sy;
} om_qap_job;

/* a[ch] += the n taps of x at stride cw, for ch < cw (one channel: one running sum). */
#define OM_QAP_ADD(NAME, T)                                                                                   \
  static void NAME(int32_t* restrict a, const T* restrict x, size_t n, size_t cw) {                           \
    if (cw == 1) {                                                                                            \
      int32_t s = 0;                                                                                          \
      for (size_t i = 0; i < n; i++) s += x[i];                                                               \
      a[0] += s;                                                                                              \
      return;                                                                                                 \
    }                                                                                                         \
    for (size_t i = 0; i < n; i++)                                                                            \
      for (size_t ch = 0; ch < cw; ch++) a[ch] += x[i * cw + ch];                                             \
  }
OM_QAP_ADD(om_qap_add_s8, int8_t)
OM_QAP_ADD(om_qap_add_u8, uint8_t)

/* Output rows [begin, end): row r is plane r / (out[0] out[1]) at (od, oh), its out[2] x cw outputs contiguous. */
static int om_qap_rows(const void* args, size_t begin, size_t end) {
  const om_qap_job* j = args;
  const om_wpool_geom* g = &j->g;
  const size_t n_row = g->out[2] * j->cw, plane_in = g->in[0] * g->in[1] * g->in[2] * j->cw;
  int32_t* acc = malloc(n_row * sizeof *acc);
  float* m = malloc(n_row * sizeof *m);
  if (!acc || !m) {
    free(acc);
    free(m);
    return -1;
  }
  for (size_t r = begin; r < end; r++) {
    const size_t per_plane = g->out[0] * g->out[1], rest = r % per_plane, od = rest / g->out[1],
                 oh = rest % g->out[1];
    const size_t plane = r / per_plane;
    size_t dlo, dhi, hlo, hhi;
    om_wpool_taps(g, 0, od, &dlo, &dhi);
    om_wpool_taps(g, 1, oh, &hlo, &hhi);
    const size_t dh_real = (dhi - dlo) * (hhi - hlo);
    const size_t dh_pad = om_wpool_padded(g, 0, od) * om_wpool_padded(g, 1, oh);
    const size_t x0 = plane * plane_in;
    for (size_t ow = 0; ow < g->out[2]; ow++) {
      size_t wlo, whi;
      om_wpool_taps(g, 2, ow, &wlo, &whi);
      const size_t real = dh_real * (whi - wlo);
      const size_t count = j->cip ? dh_pad * om_wpool_padded(g, 2, ow) : real;
      int32_t* a = acc + ow * j->cw;
      for (size_t ch = 0; ch < j->cw; ch++) a[ch] = -(int32_t)real * j->zx;
      for (size_t jd = dlo; jd < dhi && whi > wlo; jd++)
        for (size_t jh = hlo; jh < hhi; jh++) {
          const size_t pd = od * g->stride[0] + jd - g->pad_begin[0];
          const size_t ph = oh * g->stride[1] + jh - g->pad_begin[1];
          const size_t row_in = x0 + (pd * g->in[1] + ph) * g->in[2] * j->cw;
          const size_t at = row_in + (ow * g->stride[2] + wlo - g->pad_begin[2]) * j->cw;
          if (j->is_signed)
            om_qap_add_s8(a, (const int8_t*)j->x + at, whi - wlo, j->cw);
          else
            om_qap_add_u8(a, (const uint8_t*)j->x + at, whi - wlo, j->cw);
        }
      const float ys = j->sy * (float)count; /* one binary32 rounding each; count 0 (no window): m inf or NaN */
      const float mk = j->sx / ys;
      for (size_t ch = 0; ch < j->cw; ch++) m[ow * j->cw + ch] = mk;
    }
    om_qout_requantize(acc, n_row, m, 1, j->zy, j->is_signed, (uint8_t*)j->y + r * n_row);
  }
  free(acc);
  free(m);
  return 0;
}

static int om_qap_run(const om_node* node, const om_node_io* io) {
  const om_qap_node* p = node->impl;
  om_qap_job j;
  int64_t y[OM_CONV_MAX_AXES + 2];
  if (om_qlin_scale(node, io, OM_QAP_X_SCALE, om_qap_names[OM_QAP_X_SCALE], &j.sx) ||
      om_qlin_scale(node, io, OM_QAP_Y_SCALE, om_qap_names[OM_QAP_Y_SCALE], &j.sy) ||
      om_qlin_zero_point(node, io, OM_QAP_X_ZP, om_qap_names[OM_QAP_X_ZP], node->type,
                         (p->has >> OM_QAP_X_ZP) & 1, &j.zx) ||
      om_qlin_zero_point(node, io, OM_QAP_Y_ZP, om_qap_names[OM_QAP_Y_ZP], node->type,
                         (p->has >> OM_QAP_Y_ZP) & 1, &j.zy) ||
      om_qap_geom_of(node, io, &j.g, y) != 0)
    return -1;
  const int64_t* x = io->shapes[0];
  const size_t rank = io->ranks[0];
  const size_t c = (size_t)x[p->channels_last ? rank - 1 : 1];
  j.cw = p->channels_last ? c : 1;
  j.planes = (size_t)x[0] * (p->channels_last ? 1 : c);
  j.is_signed = node->type == OM_T_INT8;
  j.cip = p->count_include_pad;
  j.x = io->data[OM_QAP_X];
  j.y = io->outs[0];
  const size_t rows = j.planes * j.g.out[0] * j.g.out[1];
  const size_t row_taps = j.g.out[2] * j.cw * j.g.kernel[0] * j.g.kernel[1] * j.g.kernel[2];
  if (rows == 0 || row_taps == 0 || !j.y) return 0;
  const size_t chunk = OM_QAP_CHUNK_TAPS / row_taps ? OM_QAP_CHUNK_TAPS / row_taps : 1;
  if (om_parallel_ranges(io->parallel_for, io->host_ctx, rows, chunk, om_qap_rows, &j) == 0) return 0;
  snprintf(io->err, io->errlen, "node '%s' (op %s): out of memory", node->name, om_qap_op(node));
  return -1;
}

const om_family om_family_qlinear_avg_pool = {sizeof(om_qap_node), om_qap_create, om_qap_shapes, om_qap_run,
                                              om_qlin_set_constant_one, NULL, NULL, om_qap_check_ranks};
