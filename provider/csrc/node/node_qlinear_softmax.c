/* node_qlinear_softmax.c - com.microsoft QLinearSoftmax (docs/quantized-elementwise.md "QLinearSoftmax"): X and Y
 * of one 8-bit type, per-tensor scales and zero points (zero points optional); attribute opset (required: < 13,
 * X coerced to 2-D at axis; >= 13, one axis), axis (default -1 for every opset, the schema's). Per row: the row's greatest x, a
 * 256-entry table t[d] = exp(-d * X_scale) (built once when X_scale is a constant, else per run) at d = max - x,
 * the sequential binary32 row sum of t, each element's t / sum and QuantizeLinear. Rows in fixed chunks: no result
 * depends on the path, the chunking or the threads. Knows nothing of ORT.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/om_ops.h"
#include "node_family.h"
#include "parallel.h"
#include "qlinear_params.h"
#include "quant/qdq.h"

enum { OM_QS_X, OM_QS_X_SCALE, OM_QS_X_ZP, OM_QS_Y_SCALE, OM_QS_Y_ZP };

static const char* const om_qs_names[5] = {"X", "X_scale", "x_zero_point", "y_scale", "y_zero_point"};

#define OM_QS_CHUNK_ELEMS ((size_t)1 << 13) /* elements per parallel chunk (at least one row) */

typedef struct om_qsm {
  unsigned has;   /* bit k: input k given */
  int coerce_2d;  /* opset < 13 */
  int64_t axis;
  int ready;      /* table holds the constant X_scale's table */
  float table[256];
} om_qsm;

typedef struct om_qs_build_job {
  const om_node* node;
  float sx;
  float* table;
} om_qs_build_job;

/* t[d] = exp(fl(-d * sx)) for d = 0..255: one binary32 product (d exact), then the correctly rounded binary32 exp
 * of the scalar path's kernel. */
static void om_qs_build_run(void* arg, size_t i) {
  const om_qs_build_job* j = arg;
  om_un_fn f = j->node->one->un[OM_K_EXP][OM_T_FLOAT];
  (void)i;
  for (int d = 0; d < 256; d++) j->table[d] = (float)-d * j->sx;
  size_t done = 0;
  while (done < 256) done += f(j->table + done, j->table + done, 256 - done, OM_FL_EXACT);
}

static void om_qs_build(const om_node* node, float sx, float table[256]) {
  om_qs_build_job j = {node, sx, table};
  om_parallel_ieee(NULL, NULL, 1, om_qs_build_run, &j); /* here, under the IEEE default environment */
}

static int om_qs_create(om_node* node, const om_attrs* a, char* err, size_t errlen) {
  om_qsm* m = node->impl;
  if (!node->one->un[OM_K_EXP][OM_T_FLOAT]) return om_family_no_kernel(node, err, errlen);
  if (!a->has_softmax_opset)
    OM_FAIL_MSG("node '%s' (op QLinearSoftmax): the attribute opset is required", node->name);
  if (a->softmax_opset < 1)
    OM_FAIL_MSG("node '%s' (op QLinearSoftmax): attribute opset = %lld must be at least 1", node->name,
                (long long)a->softmax_opset);
  m->coerce_2d = a->softmax_opset < 13;
  m->axis = a->has_axis ? a->axis : -1; /* the schema's default, whatever the opset (as stock ORT) */
  return om_qlin_check_inputs(node, "TFtFt", om_qs_names, node->type, &m->has, err, errlen);
}

static int om_qs_set_constant(om_node* node, size_t k, const void* data, const int64_t* shape, size_t rank, char* err,
                              size_t errlen) {
  om_qsm* m = node->impl;
  if (om_qlin_set_constant_one(node, k, data, shape, rank, err, errlen) != 0) return -1;
  if (k != OM_QS_X_SCALE) return 0;
  float sx;
  memcpy(&sx, data, sizeof sx);
  om_qs_build(node, sx, m->table);
  m->ready = 1;
  return 0;
}

static int om_qs_shapes(const om_node* node, const om_node_io* io) {
  const om_qsm* m = node->impl;
  size_t outer, n, inner;
  if (om_row_view(node, m->coerce_2d, m->axis, io->shapes[0], io->ranks[0], &outer, &n, &inner, io->err,
                  io->errlen) != 0)
    return -1;
  memcpy(io->out_shapes, io->shapes[0], io->ranks[0] * sizeof(int64_t));
  io->out_ranks[0] = io->ranks[0];
  return 0;
}

typedef struct om_qs_job {
  const float* table;
  const uint8_t* x;
  uint8_t* y;
  size_t n, inner;
  int t;
  float sy;
  int32_t zy;
  const om_qdq_kern* k;
} om_qs_job;

/* The row's greatest value (as an integer of type t) and v[i] = table[max - x[i]], their sequential sum. */
static float om_qs_row(const uint8_t* xr, size_t n, int t, const float* table, float* v) {
  int32_t mx = -256;
  float sum = 0.0f;
  if (t == OM_T_UINT8) {
    for (size_t i = 0; i < n; i++) mx = xr[i] > mx ? xr[i] : mx;
    for (size_t i = 0; i < n; i++) v[i] = table[mx - xr[i]];
  } else {
    const int8_t* xs = (const int8_t*)xr;
    for (size_t i = 0; i < n; i++) mx = xs[i] > mx ? xs[i] : mx;
    for (size_t i = 0; i < n; i++) v[i] = table[mx - xs[i]];
  }
  for (size_t i = 0; i < n; i++) sum += v[i]; /* sequential, from +0, in the row's order */
  return sum;
}

/* Rows [begin, end) (row r: outer r / inner, inner position r % inner; inner 1: read and written in place). */
static int om_qs_range(const void* args, size_t begin, size_t end) {
  const om_qs_job* j = args;
  const size_t n = j->n, inner = j->inner;
  uint8_t* buf = malloc(n * (sizeof(float) + 2));
  if (!buf) return -1;
  float* v = (float*)(void*)buf;
  for (size_t r = begin; r < end; r++) {
    const size_t base = (r / inner) * n * inner + r % inner;
    const uint8_t* xr = j->x + base;
    uint8_t* yr = j->y + base;
    if (inner > 1) {
      uint8_t* xg = buf + n * sizeof(float);
      for (size_t i = 0; i < n; i++) xg[i] = j->x[base + i * inner];
      xr = xg;
      yr = xg + n;
    }
    const float sum = om_qs_row(xr, n, j->t, j->table, v);
    for (size_t i = 0; i < n; i++) v[i] /= sum;
    j->k->quantize(v, n, &j->sy, &j->zy, 0, j->t, yr);
    if (inner > 1)
      for (size_t i = 0; i < n; i++) j->y[base + i * inner] = yr[i];
  }
  free(buf);
  return 0;
}

static int om_qs_run(const om_node* node, const om_node_io* io) {
  const om_qsm* m = node->impl;
  float sx, sy;
  int32_t zx, zy;
  if (om_qlin_scale(node, io, OM_QS_X_SCALE, om_qs_names[OM_QS_X_SCALE], &sx) ||
      om_qlin_scale(node, io, OM_QS_Y_SCALE, om_qs_names[OM_QS_Y_SCALE], &sy) ||
      om_qlin_zero_point(node, io, OM_QS_X_ZP, om_qs_names[OM_QS_X_ZP], node->type, (m->has >> OM_QS_X_ZP) & 1u, &zx) ||
      om_qlin_zero_point(node, io, OM_QS_Y_ZP, om_qs_names[OM_QS_Y_ZP], node->type, (m->has >> OM_QS_Y_ZP) & 1u, &zy))
    return -1;
  (void)zx; /* cancels: t depends only on max - x */
  size_t outer, n, inner;
  if (om_row_view(node, m->coerce_2d, m->axis, io->shapes[0], io->ranks[0], &outer, &n, &inner, io->err,
                  io->errlen) != 0)
    return -1;
  if (outer * n * inner == 0 || !io->outs[0]) return 0;
  float local[256];
  const float* table = m->table;
  if (!m->ready) {
    om_qs_build(node, sx, local);
    table = local;
  }
  om_qs_job j = {table, io->data[OM_QS_X], io->outs[0], n, inner, node->type, sy, zy, om_qdq_kern_of(node->path)};
  const size_t rows = outer * inner;
  const size_t chunk = n >= OM_QS_CHUNK_ELEMS ? 1 : OM_QS_CHUNK_ELEMS / n;
  if (om_parallel_ranges(io->parallel_for, io->host_ctx, rows, chunk, om_qs_range, &j) != 0) {
    snprintf(io->err, io->errlen, "node '%s' (op QLinearSoftmax): out of memory", node->name);
    return -1;
  }
  return 0;
}

const om_family om_family_qlinear_softmax = {sizeof(om_qsm), om_qs_create, om_qs_shapes, om_qs_run,
                                             om_qs_set_constant, NULL, NULL, NULL};
