/* node_matmul.c - MatMul, Gemm and com.microsoft FusedMatMul nodes: attributes, ONNX shapes and broadcasting,
 * onto om_gemm (gemm/gemm.h).
 *
 * MatMul: NumPy matmul semantics. A 1-D A is [1, K] with that dimension removed from the result, a 1-D B is
 * [K, 1] likewise; the batch dimensions (all but the last two) broadcast. Gemm: 2-D A and B (transA, transB),
 * alpha, beta, and C broadcast unidirectionally to [M, N] (optional from opset 11). A constant B (an
 * initializer: om_node_set_constant_input) of rank 1 or 2 is packed once at creation. FusedMatMul: MatMul of
 * A and B with the last two dimensions of each transposed where transA, transB say (by strides, no copy), then
 * alpha * acc as Gemm's step (docs/transformer-ops.md); transBatchA, transBatchB and a transposed 1-D operand are
 * refused.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemm/gemm.h"
#include "matmul_shape.h"
#include "node_family.h"
#include "core/om_ops.h"

typedef struct om_matmul {
  int gemm;              /* 1: Gemm, 0: MatMul or FusedMatMul */
  int fused;             /* com.microsoft FusedMatMul: MatMul of op(A), op(B) (transA, transB), times alpha */
  int trans_a, trans_b;  /* Gemm, FusedMatMul */
  double alpha, beta;
  om_gemm_packed* packed_b;
  int64_t packed_k, packed_n; /* the constant B's K and N */
} om_matmul;

/* A 0/1 attribute (transA, transB) into *v (0 when absent); -1 with a message for another value. */
static int om_mm_flag(const om_node* node, const char* name, int has, int64_t value, int* v, char* err,
                      size_t errlen) {
  if (has && value != 0 && value != 1) {
    snprintf(err, errlen, "node '%s' (op %s): attribute %s must be 0 or 1, got %lld", node->name,
             om_op_row(node->op)->key, name, (long long)value);
    return -1;
  }
  *v = has ? (int)value : 0;
  return 0;
}

static int om_mm_create(om_node* node, const om_attrs* a, char* err, size_t errlen) {
  om_matmul* m = node->impl;
  m->gemm = node->op == OM_OP_GEMM;
  m->fused = node->op == OM_OP_FUSED_MATMUL;
  m->alpha = 1.0;
  m->beta = 1.0;
  if (!m->gemm && !m->fused) return 0;
  if (om_mm_flag(node, "transA", a->has_trans_a, a->trans_a, &m->trans_a, err, errlen) != 0 ||
      om_mm_flag(node, "transB", a->has_trans_b, a->trans_b, &m->trans_b, err, errlen) != 0)
    return -1;
  if (a->has_alpha) m->alpha = a->alpha;
  if (m->fused) {
    if ((a->has_trans_batch_a && a->trans_batch_a != 0) || (a->has_trans_batch_b && a->trans_batch_b != 0)) {
      snprintf(err, errlen, "node '%s' (op %s): attributes transBatchA and transBatchB other than 0 are not served",
               node->name, om_op_row(node->op)->key);
      return -1;
    }
    return 0;
  }
  if (node->opset > 0 && node->opset < 11 && node->n_inputs < 3) {
    snprintf(err, errlen, "node '%s' (op Gemm): input C is required before opset 11 (opset %d)", node->name,
             node->opset);
    return -1;
  }
  if (a->has_beta) m->beta = a->beta;
  return 0;
}

/* FusedMatMul's operands as MatMul sees them: the shapes with the last two dimensions of a transposed operand
 * swapped. */
typedef struct om_mm_view {
  int64_t s[2][OM_MAX_RANK];
  const int64_t* p[2];
} om_mm_view;

static int om_mm_view_of(const om_node* node, const int64_t* const* shapes, const size_t* ranks, om_mm_view* v,
                         char* err, size_t errlen) {
  const om_matmul* m = node->impl;
  for (int k = 0; k < 2; k++) {
    int t = k == 0 ? m->trans_a : m->trans_b;
    v->p[k] = shapes[k];
    if (!m->fused || !t) continue;
    if (ranks[k] < 2) {
      snprintf(err, errlen, "node '%s' (op %s): trans%c on a 1-D input %d is not served", node->name,
               om_op_row(node->op)->key, k == 0 ? 'A' : 'B', k);
      return -1;
    }
    memcpy(v->s[k], shapes[k], ranks[k] * sizeof(int64_t));
    v->s[k][ranks[k] - 2] = shapes[k][ranks[k] - 1];
    v->s[k][ranks[k] - 1] = shapes[k][ranks[k] - 2];
    v->p[k] = v->s[k];
  }
  return 0;
}

static void om_mm_destroy(om_node* node) {
  om_matmul* m = node->impl;
  if (m) om_gemm_packed_free(m->packed_b);
  free(m);
}

static int om_mm_dims_of(const om_node* node, const int64_t* const* shapes, const size_t* ranks, om_mm_dims* d,
                         char* err, size_t errlen) {
  const om_matmul* m = node->impl;
  if (!m->gemm) {
    om_mm_view v;
    if (om_mm_view_of(node, shapes, ranks, &v, err, errlen) != 0) return -1;
    return om_matmul_dims(node->name, om_op_row(node->op)->key, v.p, ranks, d, err, errlen);
  }
  char sa[160], sb[160];
  om_shape_text(shapes[0], ranks[0], sa, sizeof sa);
  om_shape_text(shapes[1], ranks[1], sb, sizeof sb);
  memset(d, 0, sizeof *d);
  if (ranks[0] != 2 || ranks[1] != 2) {
    snprintf(err, errlen, "node '%s' (op Gemm): A and B must be 2-D, got A %s and B %s", node->name, sa, sb);
    return -1;
  }
  d->M = shapes[0][m->trans_a ? 1 : 0];
  d->K = shapes[0][m->trans_a ? 0 : 1];
  int64_t kb = shapes[1][m->trans_b ? 1 : 0];
  d->N = shapes[1][m->trans_b ? 0 : 1];
  if (kb != d->K) {
    snprintf(err, errlen, "node '%s' (op Gemm): inner dimensions do not match: A %s%s has K = %lld, B %s%s has K = %lld",
             node->name, sa, m->trans_a ? " (transA)" : "", (long long)d->K, sb, m->trans_b ? " (transB)" : "",
             (long long)kb);
    return -1;
  }
  return 0;
}

static int om_mm_shapes(const om_node* node, const om_node_io* io) {
  const om_matmul* m = node->impl;
  om_mm_dims d;
  if (om_mm_dims_of(node, io->shapes, io->ranks, &d, io->err, io->errlen) != 0) return -1;
  if (m->gemm) {
    if (io->n_inputs > 2 && io->shapes[2] && io->ranks[2] > 0) { /* C must broadcast unidirectionally to [M, N] */
      int ok = io->ranks[2] <= 2;
      int64_t want[2] = {d.M, d.N};
      for (size_t k = 0; ok && k < io->ranks[2]; k++) {
        int64_t c = io->shapes[2][k], w = want[2 - io->ranks[2] + k];
        ok = c == 1 || c == w;
      }
      if (!ok) {
        char sc[160];
        om_shape_text(io->shapes[2], io->ranks[2], sc, sizeof sc);
        snprintf(io->err, io->errlen,
                 "node '%s' (op Gemm): C %s does not broadcast to [M, N] = [%lld, %lld]", node->name, sc,
                 (long long)d.M, (long long)d.N);
        return -1;
      }
    }
    io->out_shapes[0] = d.M;
    io->out_shapes[1] = d.N;
    io->out_ranks[0] = 2;
    return 0;
  }
  om_matmul_out_shape(&d, io->out_shapes, &io->out_ranks[0]);
  return 0;
}

static int om_mm_set_constant(om_node* node, size_t k, const void* data, const int64_t* shape, size_t rank,
                              char* err, size_t errlen) {
  om_matmul* m = node->impl;
  if (k != 1 || rank < 1 || rank > 2 || (m->gemm && rank != 2)) return 0; /* batched B: read at run time */
  int64_t K, N;
  ptrdiff_t rs, cs;
  if (rank == 1) {
    K = shape[0];
    N = 1;
    rs = 1;
    cs = 0;
  } else if (m->trans_b) { /* stored [N, K] */
    N = shape[0];
    K = shape[1];
    rs = 1;
    cs = (ptrdiff_t)K;
  } else {
    K = shape[0];
    N = shape[1];
    rs = (ptrdiff_t)N;
    cs = 1;
  }
  if (K == 0 || N == 0) return 0;
  m->packed_b = om_gemm_pack_b(node->path, node->type, (size_t)K, (size_t)N, data, rs, cs);
  if (!m->packed_b) {
    snprintf(err, errlen, "node '%s' (op %s): out of memory packing the constant B", node->name,
             om_op_row(node->op)->name);
    return -1;
  }
  m->packed_k = K;
  m->packed_n = N;
  return 0;
}

static int om_mm_run(const om_node* node, const om_node_io* io) {
  const om_matmul* m = node->impl;
  const char* opn = om_op_row(node->op)->name;
  om_mm_dims d;
  if (om_mm_dims_of(node, io->shapes, io->ranks, &d, io->err, io->errlen) != 0) return -1;
  om_gemm_args g;
  memset(&g, 0, sizeof g);
  g.path = node->path;
  g.type = node->type;
  g.mode = node->mode;
  g.M = (size_t)d.M;
  g.N = (size_t)d.N;
  g.K = (size_t)d.K;
  g.A = io->data[0];
  g.B = io->data[1];
  g.alpha = m->alpha;
  g.beta = m->beta;
  g.C = io->outs[0];
  g.ldc = (ptrdiff_t)d.N;
  g.c_batch_stride = (size_t)(d.M * d.N);
  if (m->gemm) {
    g.batch = 1;
    g.rsa = m->trans_a ? 1 : (ptrdiff_t)d.K;
    g.csa = m->trans_a ? (ptrdiff_t)d.M : 1;
    g.rsb = m->trans_b ? 1 : (ptrdiff_t)d.N;
    g.csb = m->trans_b ? (ptrdiff_t)d.K : 1;
    if (io->n_inputs > 2 && io->data[2]) { /* present (a rank-0 C may come with no dims pointer) */
      size_t rc = io->ranks[2];
      int64_t c0 = rc == 2 ? io->shapes[2][0] : 1, c1 = rc >= 1 ? io->shapes[2][rc - 1] : 1;
      g.Cin = io->data[2];
      g.rsc_in = c0 == 1 ? 0 : (ptrdiff_t)c1;
      g.csc_in = c1 == 1 ? 0 : 1;
    }
  } else { /* MatMul; FusedMatMul's transposed operands by their strides */
    g.rsa = m->trans_a ? 1 : (ptrdiff_t)d.K;
    g.csa = m->trans_a ? (ptrdiff_t)d.M : 1;
    g.rsb = d.b_vec || m->trans_b ? 1 : (ptrdiff_t)d.N;
    g.csb = d.b_vec ? 0 : m->trans_b ? (ptrdiff_t)d.K : 1;
  }
  if (m->packed_b && m->packed_k == d.K && m->packed_n == d.N && (m->gemm || io->ranks[1] <= 2))
    g.packed_b = m->packed_b;
  size_t batch = 1;
  for (size_t k = 0; k < d.batch_rank; k++) batch *= (size_t)d.batch[k];
  g.batch = batch;
  if (batch == 0 || g.M == 0 || g.N == 0) return 0;
  int64_t a_bstride[OM_MAX_RANK], b_bstride[OM_MAX_RANK];
  if (!m->gemm && d.batch_rank > 0) {
    om_mm_view v;
    if (om_mm_view_of(node, io->shapes, io->ranks, &v, io->err, io->errlen) != 0) return -1;
    om_matmul_batch_strides(&d, v.p, io->ranks, a_bstride, b_bstride);
    g.batch_rank = d.batch_rank;
    g.batch_dims = d.batch;
    g.a_bstride = a_bstride;
    g.b_bstride = b_bstride;
  }
  int rc = om_gemm(&g, io->parallel_for, io->host_ctx);
  if (rc != 0) { /* -1: allocation failed; -2: arguments om_gemm refuses (a bug here, never the user's) */
    snprintf(io->err, io->errlen, rc == -2 ? "node '%s' (op %s): internal error: om_gemm refused its arguments"
                                   : "node '%s' (op %s): out of memory",
             node->name, opn);
    return -1;
  }
  return 0;
}

const om_family om_family_matmul = {.state_size = sizeof(om_matmul), .create = om_mm_create, .shapes = om_mm_shapes,
                                    .run = om_mm_run, .set_constant = om_mm_set_constant, .destroy = om_mm_destroy};
