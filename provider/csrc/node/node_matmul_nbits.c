/* node_matmul_nbits.c - com.microsoft MatMulNBits nodes (ONNX Runtime's blockwise 4- and 8-bit weights): the
 * bits of our Gemm of A and the weights dequantized to f32 (quant/nbits.h), with the bias as Gemm's C
 * (docs/quantized.md, "MatMulNBits").
 *
 * Inputs: A (f32, [..., K]), B (uint8 [N, k_blocks, blob_size]), scales (f32 [N * k_blocks] or [N, k_blocks]),
 * zero_points (optional: packed uint8 or f32), g_idx (not served: refused at creation), bias (optional, f32 [N]).
 * When B, scales and zero_points are constants, they are repacked once, still quantized, into the GEMM's panel
 * order (quant/nbits_panels.h), and each run dequantizes them inside the product: the few-row product for
 * M <= OM_NBITS_GEMV_ROWS, om_gemm's caller-made panels beyond; otherwise each run dequantizes W into scratch.
 * accuracy_level 4 with an integer (or absent) zero point is the int8 contract instead (quant/nbits_int8.h): A
 * quantized per row and block, exact int32 block sums, one float step per block.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemm/gemm.h"
#include "node_family.h"
#include "parallel.h"
#include "quant/nbits.h"
#include "quant/nbits_int8.h"
#include "quant/nbits_panels.h"

enum { OM_MNB_A, OM_MNB_B, OM_MNB_SCALES, OM_MNB_ZP, OM_MNB_GIDX, OM_MNB_BIAS, OM_MNB_INPUTS };

static const char* const om_mnb_names[OM_MNB_INPUTS] = {"A", "B", "scales", "zero_points", "g_idx", "bias"};

typedef struct om_matmul_nbits {
  int64_t K, N;
  om_nbits_layout layout;
  int present[OM_MNB_INPUTS];
  void* constant[OM_MNB_ZP + 1]; /* copies of the constant B, scales, zero_points until W is packed */
  om_nbits_panels* panels;        /* W kept quantized in the GEMM's panel order, dequantized inside the product
                                     (constant B, scales and zero points), or NULL: dequantized per run */
  int int8;                       /* accuracy_level 4, integer zero points: the int8 contract */
  om_nbits_int8* w8;              /* its weights when constant, else NULL: packed per run */
  om_nbits_int8_fn int8_fn;       /* its product on the node's path, picked once (CPU features are queried) */
} om_matmul_nbits;

/* An attribute MatMulNBits requires, in [lo, hi]. */
static int om_mnb_attr(const om_node* node, const char* name, int has, int64_t v, int64_t lo, int64_t hi,
                       char* err, size_t errlen) {
  if (!has) OM_FAIL_MSG("node '%s' (op MatMulNBits): attribute %s is required", node->name, name);
  if (v < lo || v > hi)
    OM_FAIL_MSG("node '%s' (op MatMulNBits): attribute %s = %lld is not served (%lld to %lld)", node->name, name,
                (long long)v, (long long)lo, (long long)hi);
  return 0;
}

static int om_mnb_create(om_node* node, const om_attrs* a, char* err, size_t errlen) {
  om_matmul_nbits* m = node->impl;
  const int* types = node->input_types;
  const int64_t dim_max = (int64_t)1 << 31;
  if (om_mnb_attr(node, "K", a->has_nbits_k, a->nbits_k, 1, dim_max, err, errlen) != 0 ||
      om_mnb_attr(node, "N", a->has_nbits_n, a->nbits_n, 1, dim_max, err, errlen) != 0 ||
      om_mnb_attr(node, "bits", a->has_nbits_bits, a->nbits_bits, 4, 8, err, errlen) != 0 ||
      om_mnb_attr(node, "block_size", a->has_block_size, a->block_size, 16, 256, err, errlen) != 0)
    return -1;
  if (a->nbits_bits != 4 && a->nbits_bits != 8)
    OM_FAIL_MSG("node '%s' (op MatMulNBits): attribute bits = %lld is not served (4 or 8)", node->name,
                (long long)a->nbits_bits);
  if (a->block_size & (a->block_size - 1))
    OM_FAIL_MSG("node '%s' (op MatMulNBits): attribute block_size = %lld must be a power of two", node->name,
                (long long)a->block_size);
  if ((uint64_t)a->nbits_k * (uint64_t)a->nbits_n > ((uint64_t)1 << 40))
    OM_FAIL_MSG("node '%s' (op MatMulNBits): K x N = %lld x %lld weights is more than served (2^40)", node->name,
                (long long)a->nbits_k, (long long)a->nbits_n);
  for (size_t k = 0; k < OM_MNB_INPUTS; k++) m->present[k] = k < node->n_inputs && types[k] != 0;
  int want[OM_MNB_INPUTS] = {OM_T_FLOAT, OM_T_UINT8, OM_T_FLOAT, 0, 0, OM_T_FLOAT};
  for (size_t k = 1; k < OM_MNB_INPUTS; k++)
    if (m->present[k] && want[k] && types[k] != want[k])
      OM_FAIL_MSG("node '%s' (op MatMulNBits): %s of element type %s is not served (%s)", node->name,
                  om_mnb_names[k], om_type_name(types[k]), om_type_name(want[k]));
  int zp_kind = OM_NBITS_ZP_NONE;
  if (m->present[OM_MNB_ZP]) {
    if (types[OM_MNB_ZP] != OM_T_UINT8 && types[OM_MNB_ZP] != OM_T_FLOAT)
      OM_FAIL_MSG("node '%s' (op MatMulNBits): zero_points of element type %s is not served (uint8, or float as "
                  "scales)", node->name, om_type_name(types[OM_MNB_ZP]));
    zp_kind = types[OM_MNB_ZP] == OM_T_UINT8 ? OM_NBITS_ZP_UINT8 : OM_NBITS_ZP_FLOAT;
  }
  if (m->present[OM_MNB_GIDX])
    OM_FAIL_MSG("node '%s' (op MatMulNBits): input g_idx (act-order) is not served", node->name);
  m->K = a->nbits_k;
  m->N = a->nbits_n;
  /* accuracy_level 4 (ORT's int8 compute) with an integer or absent zero point: the int8 contract; any other
   * level, or f32 zero points, the f32 contract (docs/quantized.md) */
  m->int8 = a->has_nbits_accuracy_level && a->nbits_accuracy_level == 4 && zp_kind != OM_NBITS_ZP_FLOAT;
  m->int8_fn = m->int8 ? om_nbits_int8_of(node->path, 1) : NULL;
  m->layout = om_nbits_layout_of((size_t)m->K, (size_t)a->nbits_bits, (size_t)a->block_size, zp_kind);
  node->out_types[0] = OM_T_FLOAT;
  return 0;
}

static void om_mnb_destroy(om_node* node) {
  om_matmul_nbits* m = node->impl;
  if (m) {
    for (size_t k = 0; k <= OM_MNB_ZP; k++) free(m->constant[k]);
    om_nbits_panels_free(m->panels);
    om_nbits_int8_free(m->w8);
  }
  free(m);
}

/* Whether shape (rank) is [n0] or [n0 / n1, n1] (n1 > 0): a 1-D or 2-D per-column tensor. */
static int om_mnb_is_per_column(const int64_t* s, size_t rank, int64_t n, int64_t per) {
  return (rank == 1 && s[0] == n * per) || (rank == 2 && s[0] == n && s[1] == per);
}

/* Input k's shape against the attributes: 0, or -1 with a message naming node, op and input. */
static int om_mnb_check_input(const om_node* node, size_t k, const int64_t* s, size_t rank, char* err,
                              size_t errlen) {
  const om_matmul_nbits* m = node->impl;
  const om_nbits_layout* l = &m->layout;
  const int64_t kb = (int64_t)l->k_blocks, blob = (int64_t)l->blob_size, N = m->N;
  int ok = 1;
  char want[96] = ""; /* formatted only for a message: this runs on every call */
  switch (k) {
    case OM_MNB_A:
      ok = rank >= 1 && s[rank - 1] == m->K;
      if (!ok) snprintf(want, sizeof want, "[..., K] with K = %lld", (long long)m->K);
      break;
    case OM_MNB_B:
      ok = rank == 3 && s[0] == N && s[1] == kb && s[2] == blob;
      if (!ok) snprintf(want, sizeof want, "[N, k_blocks, blob_size] = [%lld, %lld, %lld]", (long long)N, (long long)kb,
               (long long)blob);
      break;
    case OM_MNB_SCALES:
      ok = om_mnb_is_per_column(s, rank, N, kb);
      if (!ok) snprintf(want, sizeof want, "[%lld] or [%lld, %lld]", (long long)(N * kb), (long long)N, (long long)kb);
      break;
    case OM_MNB_ZP: {
      int64_t per = l->zp_kind == OM_NBITS_ZP_UINT8 ? (int64_t)l->zp_bytes : kb;
      ok = om_mnb_is_per_column(s, rank, N, per);
      if (!ok) snprintf(want, sizeof want, "[%lld] or [%lld, %lld]", (long long)(N * per), (long long)N, (long long)per);
      break;
    }
    case OM_MNB_BIAS:
      ok = rank == 1 && s[0] == N;
      if (!ok) snprintf(want, sizeof want, "[N] = [%lld]", (long long)N);
      break;
    default: break;
  }
  if (ok) return 0;
  char got[160];
  om_shape_text(s, rank, got, sizeof got);
  OM_FAIL_MSG("node '%s' (op MatMulNBits): %s has shape %s, expected %s", node->name, om_mnb_names[k], got, want);
}

static int om_mnb_check_all(const om_node* node, const om_node_io* io) {
  const om_matmul_nbits* m = node->impl;
  for (size_t k = 0; k < io->n_inputs && k < OM_MNB_INPUTS; k++)
    if (m->present[k] && io->shapes[k] &&
        om_mnb_check_input(node, k, io->shapes[k], io->ranks[k], io->err, io->errlen) != 0)
      return -1;
  return 0;
}

static int om_mnb_shapes(const om_node* node, const om_node_io* io) {
  const om_matmul_nbits* m = node->impl;
  if (!io->shapes[0]) {
    snprintf(io->err, io->errlen, "node '%s' (op MatMulNBits): input A is missing", node->name);
    return -1;
  }
  if (om_mnb_check_all(node, io) != 0) return -1;
  size_t r = io->ranks[0];
  memcpy(io->out_shapes, io->shapes[0], r * sizeof(int64_t));
  io->out_shapes[r - 1] = m->N;
  io->out_ranks[0] = r;
  return 0;
}

/* ---- dequantization into W stored [N][K] (element (k, n) at n*K + k), in column chunks --------------------- */

typedef struct om_mnb_deq {
  const om_nbits_layout* l;
  const uint8_t* B;
  const float* scales;
  const void* zp;
  float* W;
  size_t N, cols; /* columns per chunk */
} om_mnb_deq;

static void om_mnb_deq_chunk(void* ctx, size_t i) {
  const om_mnb_deq* d = ctx;
  size_t end, begin = om_chunk_begin(i, d->cols, d->N, &end);
  for (size_t n = begin; n < end; n++) om_nbits_dequantize_column(d->l, n, d->B, d->scales, d->zp, d->W + n * d->l->K);
}

/* W from B, scales and zero_points (NULL when absent) into a new buffer of N*K floats, NULL when out of memory. */
static float* om_mnb_dequantize(const om_matmul_nbits* m, const void* B, const void* scales, const void* zp,
                                om_parallel_for_fn pf, void* host_ctx) {
  size_t N = (size_t)m->N, K = (size_t)m->K;
  float* W = malloc(N * K * sizeof *W);
  if (!W) return NULL;
  om_mnb_deq d = {&m->layout, B, scales, zp, W, N, K >= 32768 ? 1 : 32768 / K};
  om_parallel_ieee(pf, host_ctx, (N + d.cols - 1) / d.cols, om_mnb_deq_chunk, &d);
  return W;
}

static int om_mnb_set_constant(om_node* node, size_t k, const void* data, const int64_t* shape, size_t rank,
                               char* err, size_t errlen) {
  om_matmul_nbits* m = node->impl;
  if (k == OM_MNB_BIAS || k == OM_MNB_A) return om_mnb_check_input(node, k, shape, rank, err, errlen);
  if (k > OM_MNB_ZP || m->panels || m->w8) return 0;
  if (om_mnb_check_input(node, k, shape, rank, err, errlen) != 0) return -1;
  int one_byte = k == OM_MNB_B || (k == OM_MNB_ZP && m->layout.zp_kind == OM_NBITS_ZP_UINT8);
  size_t bytes = om_shape_count(shape, rank) * (one_byte ? 1 : sizeof(float));
  free(m->constant[k]);
  m->constant[k] = malloc(bytes ? bytes : 1);
  if (!m->constant[k]) OM_FAIL_MSG("node '%s' (op MatMulNBits): out of memory copying %s", node->name, om_mnb_names[k]);
  memcpy(m->constant[k], data, bytes);
  if (!m->constant[OM_MNB_B] || !m->constant[OM_MNB_SCALES] || (m->present[OM_MNB_ZP] && !m->constant[OM_MNB_ZP]))
    return 0;
  /* every input of W is constant: into the GEMM's panel order (at level 4 the int8 panels) once, still
   * quantized, and drop the copies */
  const void *B = m->constant[OM_MNB_B], *scales = m->constant[OM_MNB_SCALES], *zp = m->constant[OM_MNB_ZP];
  size_t nr = om_gemm_panel_cols(node->path, OM_T_FLOAT);
  if (m->int8) m->w8 = om_nbits_int8_make(&m->layout, (size_t)m->N, B, scales, zp);
  else m->panels = nr ? om_nbits_panels_make(&m->layout, (size_t)m->N, nr, B, scales, zp) : NULL;
  if (!m->panels && !m->w8)
    OM_FAIL_MSG("node '%s' (op MatMulNBits): out of memory packing the quantized weights", node->name);
  for (size_t q = 0; q <= OM_MNB_ZP; q++) {
    free(m->constant[q]);
    m->constant[q] = NULL;
  }
  return 0;
}

/* ---- few rows (decode): om_nbits_panels' product, panels in fixed groups per task -------------------------- */

typedef struct om_mnb_gemv {
  const om_nbits_panels* p;
  om_nbits_gemv_fn fn;
  const float *A, *bias;
  float* C;
  size_t M, group;
  int exact;
} om_mnb_gemv;

static void om_mnb_gemv_task(void* ctx, size_t t) {
  const om_mnb_gemv* g = ctx;
  for (size_t pn = t * g->group; pn < (t + 1) * g->group && pn < g->p->panels; pn++)
    g->fn(g->p, pn, g->A, g->p->l.K, g->M, g->bias, g->exact, g->C, g->p->N);
}

/* ---- accuracy_level 4: A quantized per row (row chunks), then panels of columns in fixed groups per task ------ */

typedef struct om_mnb_int8 {
  const om_nbits_int8* w;
  om_nbits_int8_fn fn;
  om_nbits_qa* q;
  const float *A, *bias;
  float* C;
  size_t group, rows;
  int exact;
} om_mnb_int8;

static void om_mnb_quantize_task(void* ctx, size_t t) {
  const om_mnb_int8* g = ctx;
  size_t end, begin = om_chunk_begin(t, g->rows, g->q->M, &end);
  om_nbits_quantize_rows(&g->w->l, g->A, begin, end, g->q);
}

static void om_mnb_int8_task(void* ctx, size_t t) {
  const om_mnb_int8* g = ctx;
  for (size_t pn = t * g->group; pn < (t + 1) * g->group && pn < g->w->panels; pn++)
    g->fn(g->w, pn, g->q, g->bias, g->exact, g->C, g->w->N);
}

static int om_mnb_run_int8(const om_node* node, const om_node_io* io, size_t M, const float* bias) {
  const om_matmul_nbits* m = node->impl;
  om_nbits_int8* own = NULL;
  const om_nbits_int8* w = m->w8;
  if (!w) { /* weights given at run time: packed for this run */
    const void* zp = m->present[OM_MNB_ZP] ? io->data[OM_MNB_ZP] : NULL;
    w = own = om_nbits_int8_make(&m->layout, (size_t)m->N, io->data[OM_MNB_B], io->data[OM_MNB_SCALES], zp);
  }
  om_nbits_qa q;
  if (!w || om_nbits_qa_alloc(&q, &m->layout, M) != 0) {
    om_nbits_int8_free(own);
    snprintf(io->err, io->errlen, "node '%s' (op MatMulNBits): out of memory quantizing A", node->name);
    return -1;
  }
  const size_t K = (size_t)m->K, rows = K >= 8192 ? 1 : 8192 / K;
  /* panels per task: about 256 KiB of weights, whatever M is (the bits do not depend on it) */
  const size_t bytes = w->kpad * OM_NBI8_NC * w->l.bits / 8, group = bytes >= ((size_t)1 << 18) ? 1 : ((size_t)1 << 18) / bytes;
  om_mnb_int8 g = {w, m->int8_fn, &q, io->data[OM_MNB_A], bias, io->outs[0], group, rows,
                   node->mode == OM_MODE_EXACT};
  om_parallel_ieee(io->parallel_for, io->host_ctx, (M + rows - 1) / rows, om_mnb_quantize_task, &g);
  om_parallel_ieee(io->parallel_for, io->host_ctx, (w->panels + group - 1) / group, om_mnb_int8_task, &g);
  om_nbits_qa_free(&q);
  om_nbits_int8_free(own);
  return 0;
}

static int om_mnb_run(const om_node* node, const om_node_io* io) {
  const om_matmul_nbits* m = node->impl;
  if (om_mnb_check_all(node, io) != 0) return -1;
  size_t M = om_shape_count(io->shapes[0], io->ranks[0]) / (size_t)m->K;
  if (M == 0) return 0;
  const float* bias =
      m->present[OM_MNB_BIAS] && io->n_inputs > OM_MNB_BIAS && io->data[OM_MNB_BIAS] ? io->data[OM_MNB_BIAS] : NULL;
  if (m->int8) return om_mnb_run_int8(node, io, M, bias);
  if (m->panels && M <= OM_NBITS_GEMV_ROWS) { /* the GEMM's bits, without its panel buffers: W never leaves L1 */
    size_t K = (size_t)m->K, group = K >= ((size_t)1 << 20) / m->panels->nr ? 1 : ((size_t)1 << 20) / m->panels->nr / K;
    om_mnb_gemv gv = {m->panels, om_nbits_panels_gemv_of(node->path), io->data[OM_MNB_A], bias, io->outs[0], M, group,
                      node->mode == OM_MODE_EXACT};
    om_parallel_ieee(io->parallel_for, io->host_ctx, (m->panels->panels + group - 1) / group, om_mnb_gemv_task, &gv);
    return 0;
  }
  om_gemm_args g = om_gemm_args_rows(node->path, OM_T_FLOAT, node->mode, M, (size_t)m->N, (size_t)m->K,
                                     io->data[OM_MNB_A], io->outs[0]);
  if (bias) om_gemm_row_bias(&g, bias);
  float* W = NULL;
  if (m->panels) {
    g.b_fill = om_nbits_panels_fill_of(node->path);
    g.b_fill_ctx = m->panels;
  } else {
    const void* zp = m->present[OM_MNB_ZP] ? io->data[OM_MNB_ZP] : NULL;
    W = om_mnb_dequantize(m, io->data[OM_MNB_B], io->data[OM_MNB_SCALES], zp, io->parallel_for, io->host_ctx);
    if (!W) {
      snprintf(io->err, io->errlen, "node '%s' (op MatMulNBits): out of memory dequantizing the weights", node->name);
      return -1;
    }
    g.B = W;
    g.rsb = 1;
    g.csb = (ptrdiff_t)m->K;
  }
  int rc = om_gemm(&g, io->parallel_for, io->host_ctx);
  free(W);
  if (rc == 0) return 0;
  /* -1: allocation failed; -2: arguments om_gemm refuses (a bug here, never the user's) */
  const char* why = rc == -2 ? "internal error: om_gemm refused its arguments" : "out of memory";
  snprintf(io->err, io->errlen, "node '%s' (op MatMulNBits): %s", node->name, why);
  return -1;
}

const om_family om_family_matmul_nbits = {.state_size = sizeof(om_matmul_nbits),
                                          .create = om_mnb_create,
                                          .shapes = om_mnb_shapes,
                                          .run = om_mnb_run,
                                          .set_constant = om_mnb_set_constant,
                                          .destroy = om_mnb_destroy};
