/* node_qgemm.c - com.microsoft QGemm (docs/quantized-matmul.md, "QGemm"): what quantize_static writes for Gemm in
 * the QOperator format. Y = alpha * (A' - a_zero_point) x (B' - b_zero_point) + C, A' and B' A and B transposed
 * where transA / transB say: the exact int32 product of quant/qgemm.h with C (int32, broadcast to [M, N]) added
 * modulo 2^32, then one multiplier per column m_j = fl32(fl32(alpha * a_scale) * b_scale_j) (divided once by
 * y_scale when given) applied by quant/qoutput.h: to float without y_zero_point, requantised to y_zero_point's
 * type with it. Knows nothing of ORT.
 *
 * Inputs: A (0) uint8 / int8 [M, K] ([K, M] with transA); a_scale (1) float, one element; a_zero_point (2) A's
 * type, one element; B (3) uint8 / int8 [K, N] ([N, K] with transB); b_scale (4) float, one element or 1-D of N;
 * b_zero_point (5) B's type, likewise; C (6, optional) int32 of a shape that broadcasts to [M, N] (rank at most
 * 2); y_scale (7, optional) float, one element; y_zero_point (8, optional, needs y_scale) uint8 / int8; input 9:
 * the rewriter's empty tensor of Y's type. A constant B is transposed if need be and packed once at creation.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/om_ops.h"
#include "node_family.h"
#include "parallel.h"
#include "qmatmul.h"
#include "quant/qoutput.h"

enum { QG_A, QG_A_SCALE, QG_A_ZP, QG_B, QG_B_SCALE, QG_B_ZP, QG_C, QG_Y_SCALE, QG_Y_ZP, QG_WITNESS, QG_N };

static const char* const om_qg_names[QG_N] = {"A", "a_scale", "a_zero_point", "B", "b_scale", "b_zero_point", "C",
                                              "y_scale", "y_zero_point", "input 9 (the output type's witness)"};
/* 'Q' uint8 or int8, 'F' float, 'I' int32, 'A' / 'B' A's / B's type, 'Y' Y's type */
static const char om_qg_kinds[QG_N + 1] = "QFAQFBIFQY";

typedef struct om_qg {
  om_qmatmul q; /* first: om_qmatmul_node_destroy; a constant B packed as [K, N] */
  int has[QG_N];
  int trans_a, trans_b, y_signed;
  float alpha;
} om_qg;

#define OM_QG_ROWS_ELEMS ((size_t)1 << 14) /* output elements per parallel chunk of rows (at least one row) */

#define OM_QG_FAIL(err, errlen, ...)                                                  \
  do {                                                                                \
    int n_ = snprintf(err, errlen, "node '%s' (op QGemm): ", node->name);             \
    if (n_ >= 0 && (size_t)n_ < (errlen)) snprintf((err) + n_, (errlen) - (size_t)n_, __VA_ARGS__); \
    return -1;                                                                        \
  } while (0)

static int om_qg_flag(const om_node* node, const char* name, int has, int64_t v, int* out, char* err, size_t errlen) {
  *out = has ? (int)(v != 0) : 0;
  if (has && v != 0 && v != 1) OM_QG_FAIL(err, errlen, "attribute %s = %lld must be 0 or 1", name, (long long)v);
  return 0;
}

static int om_qg_create(om_node* node, const om_attrs* a, char* err, size_t errlen) {
  om_qg* g = node->impl;
  const int* t = node->input_types;
  const int y_type = node->n_inputs > QG_Y_ZP && t[QG_Y_ZP] ? t[QG_Y_ZP] : OM_T_FLOAT;
  for (size_t k = 0; k < node->n_inputs && k < QG_N; k++) {
    g->has[k] = t[k] != 0;
    if (!t[k]) continue;
    const char kind = om_qg_kinds[k];
    const int want = kind == 'A' ? t[QG_A] : kind == 'B' ? t[QG_B] : kind == 'Y' ? y_type
                   : kind == 'F' ? OM_T_FLOAT : kind == 'I' ? OM_T_INT32 : 0;
    if (want ? t[k] == want : (t[k] == OM_T_UINT8 || t[k] == OM_T_INT8)) continue;
    OM_QG_FAIL(err, errlen, "%s has element type %s; it must be %s", om_qg_names[k], om_type_name(t[k]),
               want ? om_type_name(want) : "uint8 or int8");
  }
  if (!g->has[QG_B]) OM_QG_FAIL(err, errlen, "input B is missing");
  if (g->has[QG_Y_ZP] && !g->has[QG_Y_SCALE])
    OM_QG_FAIL(err, errlen, "y_zero_point is given without y_scale (not served)");
  if (om_qg_flag(node, "transA", a->has_trans_a, a->trans_a, &g->trans_a, err, errlen) != 0 ||
      om_qg_flag(node, "transB", a->has_trans_b, a->trans_b, &g->trans_b, err, errlen) != 0)
    return -1;
  g->alpha = a->has_alpha ? a->alpha : 1.0f;
  g->q.a_signed = t[QG_A] == OM_T_INT8;
  g->q.b_signed = t[QG_B] == OM_T_INT8;
  g->y_signed = y_type == OM_T_INT8;
  node->out_types[0] = y_type;
  return 0;
}

/* dst[c][r] = src[r][c] for a rows x cols matrix of bytes. */
static void om_qg_transpose(const uint8_t* src, size_t rows, size_t cols, uint8_t* dst) {
  for (size_t r = 0; r < rows; r++)
    for (size_t c = 0; c < cols; c++) dst[c * rows + r] = src[r * cols + c];
}

static int om_qg_set_constant(om_node* node, size_t k, const void* data, const int64_t* shape, size_t rank,
                              char* err, size_t errlen) {
  om_qg* g = node->impl;
  if (k == QG_A_SCALE || k == QG_A_ZP || k == QG_Y_SCALE || k == QG_Y_ZP)
    return om_qparam_one(node, om_qg_names[k], shape, rank, err, errlen);
  if (k != QG_B || rank != 2) return 0;
  if (!g->trans_b) return om_qmatmul_pack_constant(node, &g->q, data, shape, rank, err, errlen);
  const int64_t kn[2] = {shape[1], shape[0]};
  uint8_t* bt = malloc((size_t)(kn[0] * kn[1]) + 1);
  if (!bt) OM_QG_FAIL(err, errlen, "out of memory transposing the constant B");
  om_qg_transpose(data, (size_t)shape[0], (size_t)shape[1], bt);
  int rc = om_qmatmul_pack_constant(node, &g->q, bt, kn, 2, err, errlen);
  free(bt);
  return rc;
}

static int om_qg_check_ranks(const om_node* node, size_t n_inputs, const size_t* ranks, char* err, size_t errlen) {
  const om_qg* g = node->impl;
  for (size_t k = QG_A; k <= QG_B; k += QG_B)
    if (ranks[k] != OM_RANK_UNKNOWN && ranks[k] != 2)
      OM_QG_FAIL(err, errlen, "%s has rank %zu; it must be 2-D", om_qg_names[k], ranks[k]);
  if (n_inputs > QG_C && g->has[QG_C] && ranks[QG_C] != OM_RANK_UNKNOWN && ranks[QG_C] > 2)
    OM_QG_FAIL(err, errlen, "C has rank %zu; it must broadcast to [M, N] (rank at most 2)", ranks[QG_C]);
  return 0;
}

/* One call's dimensions and the parameters' strides (0: one for all, 1: one per row / column). */
typedef struct om_qg_geom {
  size_t M, N, K;
  size_t b_scale, b_zp; /* per column of B */
  size_t c_row, c_col;  /* C[i][j] at C[i * c_row + j * c_col] */
} om_qg_geom;

static int om_qg_geometry(const om_node* node, const om_node_io* io, om_qg_geom* d) {
  const om_qg* g = node->impl;
  char* err = io->err;
  size_t errlen = io->errlen, one;
  if (om_qg_check_ranks(node, io->n_inputs, io->ranks, err, errlen) != 0) return -1;
  const int64_t *sa = io->shapes[QG_A], *sb = io->shapes[QG_B];
  d->M = (size_t)sa[g->trans_a ? 1 : 0];
  d->K = (size_t)sa[g->trans_a ? 0 : 1];
  d->N = (size_t)sb[g->trans_b ? 0 : 1];
  if ((size_t)sb[g->trans_b ? 1 : 0] != d->K) {
    char ta[160], tb[160];
    om_shape_str(sa, 2, ta, sizeof ta);
    om_shape_str(sb, 2, tb, sizeof tb);
    OM_QG_FAIL(err, errlen, "A %s%s and B %s%s do not agree on K (%zu vs %lld)", ta, g->trans_a ? " (transA)" : "",
               tb, g->trans_b ? " (transB)" : "", d->K, (long long)sb[g->trans_b ? 1 : 0]);
  }
  static const int singles[4] = {QG_A_SCALE, QG_A_ZP, QG_Y_SCALE, QG_Y_ZP};
  for (int q = 0; q < 4; q++)
    if ((size_t)singles[q] < io->n_inputs && g->has[singles[q]] &&
        om_qparam_stride(node, io, (size_t)singles[q], om_qg_names[singles[q]], NULL, 0, &one) != 0)
      return -1;
  d->b_zp = 0;
  if (om_qparam_stride(node, io, QG_B_SCALE, "b_scale", "column of B", (int64_t)d->N, &d->b_scale) != 0 ||
      (g->has[QG_B_ZP] &&
       om_qparam_stride(node, io, QG_B_ZP, "b_zero_point", "column of B", (int64_t)d->N, &d->b_zp) != 0))
    return -1;
  d->c_row = d->c_col = 0;
  if (io->n_inputs > QG_C && g->has[QG_C]) {
    const int64_t* sc = io->shapes[QG_C];
    const size_t r = io->ranks[QG_C];
    const int64_t cm = r == 2 ? sc[0] : 1, cn = r >= 1 ? sc[r - 1] : 1;
    if ((cm != 1 && (size_t)cm != d->M) || (cn != 1 && (size_t)cn != d->N)) {
      char tc[160];
      om_shape_str(sc, r, tc, sizeof tc);
      OM_QG_FAIL(err, errlen, "C of shape %s does not broadcast to [%zu, %zu]", tc, d->M, d->N);
    }
    d->c_col = cn == 1 ? 0 : 1;
    d->c_row = cm == 1 ? 0 : (size_t)cn;
  }
  return 0;
}

static int om_qg_shapes(const om_node* node, const om_node_io* io) {
  om_qg_geom d;
  if (om_qg_geometry(node, io, &d) != 0) return -1;
  io->out_shapes[0] = (int64_t)d.M;
  io->out_shapes[1] = (int64_t)d.N;
  io->out_ranks[0] = 2;
  return 0;
}

/* The steps after the product over rows [begin, end): C added modulo 2^32, then the float step. */
typedef struct om_qg_step {
  int32_t* acc;
  const int32_t* c;
  size_t n, c_row, c_col;
  const float* m;
  size_t ms;
  int requant, y_signed;
  int32_t y_zp;
  void* y;
} om_qg_step;

static int om_qg_step_rows(const void* args, size_t begin, size_t end) {
  const om_qg_step* t = args;
  for (size_t r = begin; r < end; r++) {
    int32_t* acc = t->acc + r * t->n;
    if (t->c) {
      const int32_t* c = t->c + r * t->c_row;
      for (size_t j = 0; j < t->n; j++) acc[j] = (int32_t)((uint32_t)acc[j] + (uint32_t)c[j * t->c_col]);
    }
    if (t->requant)
      om_qout_requantize(acc, t->n, t->m, t->ms, t->y_zp, t->y_signed, (uint8_t*)t->y + r * t->n);
    else
      om_qout_to_float(acc, t->n, t->m, t->ms, NULL, 0, (float*)t->y + r * t->n);
  }
  return 0;
}

static int om_qg_run(const om_node* node, const om_node_io* io) {
  const om_qg* g = node->impl;
  om_qg_geom d;
  if (om_qg_geometry(node, io, &d) != 0) return -1;
  const size_t total = d.M * d.N;
  if (total == 0) return 0;
  const int requant = g->has[QG_Y_ZP];
  const int has_y_scale = io->n_inputs > QG_Y_SCALE && g->has[QG_Y_SCALE];
  const om_qgemm_packed* pb =
      g->q.packed_b && (size_t)g->q.packed_k == d.K && (size_t)g->q.packed_n == d.N ? g->q.packed_b : NULL;
  uint8_t* at = g->trans_a && d.K ? malloc(d.M * d.K) : NULL;
  uint8_t* bt = g->trans_b && !pb && d.K ? malloc(d.K * d.N) : NULL;
  int32_t* scratch = requant ? malloc(total * sizeof(int32_t)) : NULL;
  float* mult = malloc((d.b_scale ? d.N : 1) * sizeof(float));
  int rc = 0;
  if (!mult || (requant && !scratch) || (g->trans_a && d.K && !at) || (g->trans_b && !pb && d.K && !bt)) {
    snprintf(io->err, io->errlen, "node '%s' (op QGemm): out of memory", node->name);
    rc = -1;
  }
  int32_t* acc = requant ? scratch : (int32_t*)io->outs[0]; /* to float: the int32 sums in Y's own memory */
  if (rc == 0) {
    if (at) om_qg_transpose(io->data[QG_A], d.K, d.M, at);
    if (bt) om_qg_transpose(io->data[QG_B], d.N, d.K, bt);
    om_qgemm_args q = {node->path, 1, g->q.a_signed, g->q.b_signed, d.M, d.N, d.K,
                       at ? at : io->data[QG_A], d.K, bt ? bt : io->data[QG_B], d.N, pb,
                       g->has[QG_A_ZP] ? io->data[QG_A_ZP] : NULL, 0,
                       g->has[QG_B_ZP] ? io->data[QG_B_ZP] : NULL, d.b_zp, acc, d.N, NULL, 0, 0, NULL};
    int qr = om_qgemm(&q, io->parallel_for, io->host_ctx);
    if (qr != 0) {
      snprintf(io->err, io->errlen, qr == -2 ? "node '%s' (op QGemm): internal error: om_qgemm refused its arguments"
                                             : "node '%s' (op QGemm): out of memory", node->name);
      rc = -1;
    }
  }
  if (rc == 0) {
    float a_scale;
    memcpy(&a_scale, io->data[QG_A_SCALE], sizeof a_scale);
    const float alpha_a = g->alpha * a_scale; /* one binary32 rounding, alpha first */
    om_qout_multipliers(alpha_a, io->data[QG_B_SCALE], d.b_scale, has_y_scale ? io->data[QG_Y_SCALE] : NULL,
                        d.b_scale ? d.N : 1, mult);
    om_qg_step t = {acc, io->n_inputs > QG_C && g->has[QG_C] ? io->data[QG_C] : NULL, d.N, d.c_row, d.c_col,
                    mult, d.b_scale, requant, g->y_signed,
                    requant ? om_qint8_value(io->data[QG_Y_ZP], node->out_types[0]) : 0, io->outs[0]};
    size_t chunk = OM_QG_ROWS_ELEMS / d.N;
    rc = om_parallel_ranges(io->parallel_for, io->host_ctx, d.M, chunk ? chunk : 1, om_qg_step_rows, &t);
  }
  free(at);
  free(bt);
  free(scratch);
  free(mult);
  return rc;
}

const om_family om_family_qgemm = {sizeof(om_qg), om_qg_create, om_qg_shapes, om_qg_run, om_qg_set_constant, NULL,
                                   om_qmatmul_node_destroy, om_qg_check_ranks};
