/* node_attention.c - com.microsoft Attention nodes (what ONNX Runtime's transformer optimiser writes for BERT):
 * the input projection QKV = input . weights + bias on the exact GEMM (gemm/gemm.h, bias as Gemm's C), then the
 * shared attention of mha_core.h over the present cache (docs/attention.md, "Attention").
 *
 * Inputs: input (B, S, Din), weights (Din, Dq + Dk + Dv), bias (Dq + Dk + Dv, optional), mask_index int32
 * (B), (2 B), (B, P + S) or (B, S, P + S), past (2, B, N, P, H), attention_bias (B or 1, N or 1, S, P + S).
 * Refused at creation: past_sequence_length, do_rotary, rotary_embedding_dim, past_present_share_buffer.
 * Output (B, S, Dv) and present (2, B, N, P + S, H). When weights is a constant it is packed once (set_constant).
 */
#include <stdlib.h>
#include <string.h>

#include "gemm/gemm.h"
#include "mha_core.h"

enum { OM_ATT_X, OM_ATT_W, OM_ATT_BIAS, OM_ATT_MASK, OM_ATT_PAST, OM_ATT_ABIAS, OM_ATT_SERVED };

static const char* const om_att_inputs[7] = {"input", "weights", "bias", "mask_index", "past", "attention_bias",
                                             "past_sequence_length"};

typedef struct om_att_node {
  om_mha_attrs attrs;
  int64_t sizes[3]; /* qkv_hidden_sizes; 0: a third of the weights' columns each */
  int present[OM_ATT_SERVED];
  om_gemm_packed* packed_w; /* the constant weights, or NULL */
  size_t packed_k, packed_n;
} om_att_node;

#define OM_ATT_FAIL(...) OM_MHA_FAIL_AS("Attention", __VA_ARGS__)

static int om_att_create(om_node* node, const om_attrs* a, char* err, size_t errlen) {
  om_att_node* m = node->impl;
  if (om_mha_attrs_read(node, a, "Attention", &m->attrs, err, errlen) != 0) return -1;
  if (a->has_do_rotary && a->do_rotary != 0)
    OM_ATT_FAIL("attribute do_rotary = %lld is not served (only 0)", (long long)a->do_rotary);
  if (a->has_rotary_embedding_dim && a->rotary_embedding_dim != 0)
    OM_ATT_FAIL("attribute rotary_embedding_dim = %lld is not served (only 0)", (long long)a->rotary_embedding_dim);
  if (a->has_past_present_share_buffer && a->past_present_share_buffer != 0)
    OM_ATT_FAIL("attribute past_present_share_buffer = %lld is not served (only 0)",
                (long long)a->past_present_share_buffer);
  if (a->has_qkv_hidden_sizes) {
    if (a->n_qkv_hidden_sizes != 3) OM_ATT_FAIL("attribute qkv_hidden_sizes must have 3 entries");
    for (size_t i = 0; i < 3; i++) {
      m->sizes[i] = a->qkv_hidden_sizes[i];
      if (m->sizes[i] < 1 || m->sizes[i] % (int64_t)m->attrs.N != 0)
        OM_ATT_FAIL("attribute qkv_hidden_sizes[%zu] = %lld must be a positive multiple of num_heads %zu", i,
                    (long long)m->sizes[i], m->attrs.N);
    }
    if (m->sizes[0] != m->sizes[1])
      OM_ATT_FAIL("attribute qkv_hidden_sizes: query's %lld and key's %lld must be equal", (long long)m->sizes[0],
                  (long long)m->sizes[1]);
  }
  if (om_mha_input_types(node, "Attention", om_att_inputs, OM_ATT_SERVED, OM_ATT_MASK, m->present, err,
                         errlen) != 0)
    return -1;
  if (m->present[OM_ATT_PAST] && m->sizes[0] && m->sizes[1] != m->sizes[2])
    OM_ATT_FAIL("past needs equal key and value hidden sizes (qkv_hidden_sizes %lld, %lld)", (long long)m->sizes[1],
                (long long)m->sizes[2]);
  node->out_types[0] = node->out_types[1] = OM_T_FLOAT;
  node->n_outputs = 2;
  return 0;
}

static int om_att_check_ranks(const om_node* node, size_t n_inputs, const size_t* ranks, char* err, size_t errlen) {
  static const size_t want[OM_ATT_SERVED] = {3, 2, 1, 0, 5, 4}; /* 0: checked at run */
  for (size_t k = 0; k < n_inputs && k < OM_ATT_SERVED; k++)
    if (ranks[k] != OM_RANK_UNKNOWN && want[k] && ranks[k] != want[k])
      OM_ATT_FAIL("input %s has rank %zu; it must have rank %zu", om_att_inputs[k], ranks[k], want[k]);
  if (n_inputs > OM_ATT_MASK && ranks[OM_ATT_MASK] != OM_RANK_UNKNOWN && ranks[OM_ATT_MASK] > 3)
    OM_ATT_FAIL("input mask_index of rank %zu is not served (only (batch), (2 batch), (batch, total length) or "
                "(batch, sequence, total length))",
                ranks[OM_ATT_MASK]);
  return 0;
}

/* The hidden sizes Dq, Dk, Dv of weights with W columns: 0, or -1 with a message. */
static int om_att_sizes(const om_node* node, int64_t W, size_t* d, char* err, size_t errlen) {
  const om_att_node* m = node->impl;
  int64_t N = (int64_t)m->attrs.N;
  if (m->sizes[0]) {
    if (m->sizes[0] + m->sizes[1] + m->sizes[2] != W)
      OM_ATT_FAIL("weights has %lld columns, not the sum of qkv_hidden_sizes (%lld)", (long long)W,
                  (long long)(m->sizes[0] + m->sizes[1] + m->sizes[2]));
    for (size_t i = 0; i < 3; i++) d[i] = (size_t)m->sizes[i];
    return 0;
  }
  if (W % (3 * N) != 0 || W == 0)
    OM_ATT_FAIL("weights' %lld columns are not 3 x a positive multiple of num_heads %lld", (long long)W, (long long)N);
  d[0] = d[1] = d[2] = (size_t)(W / 3);
  return 0;
}

static int om_att_set_constant(om_node* node, size_t k, const void* data, const int64_t* shape, size_t rank,
                               char* err, size_t errlen) {
  om_att_node* m = node->impl;
  if (k != OM_ATT_W || m->packed_w) return 0;
  if (rank != 2) OM_ATT_FAIL("input weights must have rank 2, it has rank %zu", rank);
  size_t d[3];
  if (om_att_sizes(node, shape[1], d, err, errlen) != 0) return -1;
  m->packed_k = (size_t)shape[0];
  m->packed_n = (size_t)shape[1];
  m->packed_w = om_gemm_pack_b(node->path, OM_T_FLOAT, m->packed_k, m->packed_n, data, (ptrdiff_t)m->packed_n, 1);
  if (!m->packed_w) OM_ATT_FAIL("out of memory packing the weights");
  return 0;
}

static void om_att_destroy(om_node* node) {
  om_att_node* m = node->impl;
  if (m) om_gemm_packed_free(m->packed_w);
}

/* The call's shapes (c: the attention over the projection, whose data is set by run) and the projection's width. */
static int om_att_geometry(const om_node* node, const om_node_io* io, om_mha_call* c, size_t* d) {
  const om_att_node* m = node->impl;
  char* err = io->err;
  size_t errlen = io->errlen;
  size_t N = m->attrs.N;
  memset(c, 0, sizeof *c);
  c->node = node;
  c->N = N;
  const int64_t *xd = io->shapes[OM_ATT_X], *wd = io->shapes[OM_ATT_W];
  if (io->ranks[OM_ATT_X] != 3) OM_ATT_FAIL("input must have rank 3, it has rank %zu", io->ranks[OM_ATT_X]);
  if (io->ranks[OM_ATT_W] != 2 || wd[0] != xd[2])
    OM_ATT_FAIL("weights must be (%lld, Dq + Dk + Dv): input's hidden size rows", (long long)xd[2]);
  if (om_att_sizes(node, wd[1], d, err, errlen) != 0) return -1;
  c->B = (size_t)xd[0];
  c->S = (size_t)xd[1];
  c->H = d[0] / N;
  c->Hv = d[2] / N;
  int64_t W = wd[1];
  if (m->present[OM_ATT_BIAS] && io->shapes[OM_ATT_BIAS] &&
      (io->ranks[OM_ATT_BIAS] != 1 || io->shapes[OM_ATT_BIAS][0] != W))
    OM_ATT_FAIL("bias must have shape (%lld)", (long long)W);
  if (m->present[OM_ATT_PAST] && io->shapes[OM_ATT_PAST]) {
    const int64_t* p = io->shapes[OM_ATT_PAST];
    if (c->H != c->Hv) OM_ATT_FAIL("past needs equal key and value head sizes (%zu, %zu)", c->H, c->Hv);
    if (io->ranks[OM_ATT_PAST] != 5 || p[0] != 2 || p[1] != xd[0] || p[2] != (int64_t)N || p[4] != (int64_t)c->H)
      OM_ATT_FAIL("past must be (2, %lld, %zu, P, %zu)", (long long)xd[0], N, c->H);
    c->past = (size_t)p[3];
  }
  c->T = c->past + c->S;
  return om_mha_masks(c, &m->attrs, io, OM_ATT_MASK, OM_ATT_ABIAS, 1, "Attention");
}

static int om_att_shapes(const om_node* node, const om_node_io* io) {
  om_mha_call c;
  size_t d[3];
  if (om_att_geometry(node, io, &c, d) != 0) return -1;
  int64_t* o = io->out_shapes;
  o[0] = (int64_t)c.B;
  o[1] = (int64_t)c.S;
  o[2] = (int64_t)d[2];
  io->out_ranks[0] = 3;
  if (io->n_outputs > 1) {
    int64_t* p = o + OM_NODE_MAX_RANK;
    p[0] = 2;
    p[1] = (int64_t)c.B;
    p[2] = (int64_t)c.N;
    p[3] = (int64_t)c.T;
    p[4] = (int64_t)c.H;
    io->out_ranks[1] = 5;
  }
  return 0;
}

/* qkv[B S, W] = input . weights (+ bias): om_gemm's order (docs/attention.md, "Attention", step 0). */
static int om_att_project(const om_node* node, const om_node_io* io, size_t M, size_t K, size_t W, float* qkv) {
  const om_att_node* m = node->impl;
  om_gemm_args g = om_gemm_args_rows(node->path, OM_T_FLOAT, node->mode, M, W, K, io->data[OM_ATT_X], qkv);
  if (m->present[OM_ATT_BIAS] && io->data[OM_ATT_BIAS]) om_gemm_row_bias(&g, io->data[OM_ATT_BIAS]);
  if (m->packed_w && m->packed_k == K && m->packed_n == W) {
    g.packed_b = m->packed_w;
  } else {
    g.B = io->data[OM_ATT_W];
    g.rsb = (ptrdiff_t)W;
    g.csb = 1;
  }
  return om_gemm(&g, io->parallel_for, io->host_ctx);
}

static int om_att_run(const om_node* node, const om_node_io* io) {
  char* err = io->err;
  size_t errlen = io->errlen;
  om_mha_call c;
  size_t d[3];
  if (om_att_geometry(node, io, &c, d) != 0) return -1;
  size_t W = d[0] + d[1] + d[2], M = c.B * c.S, K = (size_t)io->shapes[OM_ATT_X][2];
  size_t cache = c.B * c.N * c.T * c.H, vcache = c.B * c.N * c.T * c.Hv;
  if (io->n_outputs > 1 && io->outs[1] && c.H != c.Hv)
    OM_ATT_FAIL("output present is not served when the key and value head sizes differ (%zu, %zu)", c.H, c.Hv);
  float* qkv = malloc((M * W + 1) * sizeof(float));
  float* present = io->n_outputs > 1 ? io->outs[1] : NULL;
  float* scratch = present ? NULL : malloc((cache + vcache + 1) * sizeof(float));
  int rc = qkv && (present || scratch) ? 0 : -1;
  if (rc == 0 && M > 0) rc = om_att_project(node, io, M, K, W, qkv);
  if (rc == 0) {
    const float* past = c.past ? io->data[OM_ATT_PAST] : NULL;
    c.q = (om_mha_view){qkv, c.S * W, W, c.H, NULL};
    c.k = (om_mha_view){qkv + d[0], c.S * W, W, c.H, NULL};
    c.v = (om_mha_view){qkv + d[0] + d[1], c.S * W, W, c.Hv, NULL};
    c.past_k = past;
    c.past_v = past ? past + c.B * c.N * c.past * c.H : NULL;
    c.cache_k = present ? present : scratch;
    c.cache_v = c.cache_k + cache;
    c.out = io->outs[0];
    rc = om_mha_compute(&c, io->parallel_for, io->host_ctx);
  }
  free(qkv);
  free(scratch);
  if (rc == -2) OM_ATT_FAIL("internal error: om_gemm refused its arguments");
  if (rc != 0) OM_ATT_FAIL("out of memory");
  return 0;
}

const om_family om_family_attention = {.state_size = sizeof(om_att_node),
                                       .create = om_att_create,
                                       .shapes = om_att_shapes,
                                       .run = om_att_run,
                                       .set_constant = om_att_set_constant,
                                       .destroy = om_att_destroy,
                                       .check_ranks = om_att_check_ranks};
