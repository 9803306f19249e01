/* node_onnx_attention.c - ONNX Attention nodes (opsets 23 and 24): attributes, shapes, the masks and the present
 * caches onto the shared attention of mha_core.h (docs/attention.md, "ONNX Attention", the contract).
 *
 * Inputs: Q, K, V, either 3-D (B, S, qH H), (B, L, kvH H), (B, L, kvH Hv) with q_num_heads and kv_num_heads, or
 * 4-D (B, qH, S, H), (B, kvH, L, H), (B, kvH, L, Hv); attn_mask bool (True: attend) or f32 (added), broadcast
 * to (B, qH, S, T); past_key, past_value (B, kvH, P, H / Hv); nonpad_kv_seqlen int64 (B) (opset 24, not with
 * past). Outputs: Y (B, S, qH Hv) or (B, qH, S, Hv), present_key, present_value (B, kvH, T, H / Hv), T = P + L.
 * float16 (Q, K, V, past_key, past_value, a float attn_mask all f16): every input widened exactly to f32, the f32
 * attention, then Y and the presents rounded once to f16 (the presents' values are the inputs', exactly).
 * Refused at creation (the node stays with stock ORT): opset 25 on (sliding windows), other element types,
 * qk_matmul_output (node.c: three outputs), softmax_precision other than float, scale <= 0 or not finite,
 * softcap < 0, is_causal other than 0/1.
 */
#include <stdlib.h>
#include <string.h>

#include "mha_core.h"
#include "reduce/reduce.h"

enum { OM_OA_Q, OM_OA_K, OM_OA_V, OM_OA_MASK, OM_OA_PK, OM_OA_PV, OM_OA_NONPAD, OM_OA_INPUTS };

static const char* const om_oa_inputs[OM_OA_INPUTS] = {"Q", "K", "V", "attn_mask", "past_key", "past_value",
                                                      "nonpad_kv_seqlen"};

typedef struct om_oa_node {
  size_t qh, kvh; /* the attributes q_num_heads, kv_num_heads (0: absent) */
  int causal;
  float scale;    /* 0: 1/sqrt(H) */
  float softcap;  /* 0: none */
  int present[OM_OA_INPUTS];
  int mask_bool;
} om_oa_node;

#define OM_OA_FAIL(...) OM_MHA_FAIL_AS("Attention", __VA_ARGS__)

static int om_oa_create(om_node* node, const om_attrs* a, char* err, size_t errlen) {
  om_oa_node* m = node->impl;
  /* opset 25 adds left_window_size and right_window_size (sliding windows), unknown to ORT 1.31.1's ONNX */
  if (node->opset > 24)
    OM_OA_FAIL("opset %d is not served (23 and 24; opset 25 adds sliding windows)", node->opset);
  int64_t causal = a->has_is_causal ? a->is_causal : 0;
  if (causal != 0 && causal != 1) OM_OA_FAIL("attribute is_causal = %lld must be 0 or 1", (long long)causal);
  m->causal = (int)causal;
  if (a->has_q_num_heads && (a->q_num_heads < 1 || a->q_num_heads > 65536))
    OM_OA_FAIL("attribute q_num_heads = %lld is not served (1 to 65536)", (long long)a->q_num_heads);
  if (a->has_kv_num_heads && (a->kv_num_heads < 1 || a->kv_num_heads > 65536))
    OM_OA_FAIL("attribute kv_num_heads = %lld is not served (1 to 65536)", (long long)a->kv_num_heads);
  m->qh = a->has_q_num_heads ? (size_t)a->q_num_heads : 0;
  m->kvh = a->has_kv_num_heads ? (size_t)a->kv_num_heads : 0;
  m->scale = a->has_scale ? a->scale : 0.0f;
  if (a->has_scale && !(m->scale > 0.0f && m->scale <= 3.4e38f))
    OM_OA_FAIL("attribute scale = %g is not served (a positive finite value; absent: 1/sqrt(head size))",
               (double)m->scale);
  m->softcap = a->has_softcap ? a->softcap : 0.0f;
  if (!(m->softcap >= 0.0f && m->softcap <= 3.4e38f))
    OM_OA_FAIL("attribute softcap = %g is not served (0: none, or a positive finite cap)", (double)m->softcap);
  /* softmax_precision: a TensorProto element type; float (1) is f32 inputs' own, absent or 0 the same */
  if (a->has_softmax_precision && a->softmax_precision != 0 && a->softmax_precision != OM_T_FLOAT)
    OM_OA_FAIL("attribute softmax_precision = %lld is not served (only 1, float)", (long long)a->softmax_precision);
  if (a->has_qk_matmul_output_mode && (a->qk_matmul_output_mode < 0 || a->qk_matmul_output_mode > 3))
    OM_OA_FAIL("attribute qk_matmul_output_mode = %lld must be 0 to 3", (long long)a->qk_matmul_output_mode);
  int ft = node->type; /* float or float16: Q's, and every float input's */
  const char* fname = om_type_name(ft);
  for (size_t k = 0; k < node->n_inputs; k++) {
    int t = node->input_types[k];
    m->present[k] = t != 0;
    if (t == 0) continue;
    int ok = k == OM_OA_MASK ? t == ft || t == OM_T_BOOL : k == OM_OA_NONPAD ? t == OM_T_INT64 : t == ft;
    if (!ok)
      OM_OA_FAIL("input %zu (%s) of element type %s is not served (%s%s, as Q)", k, om_oa_inputs[k],
                 om_type_name(t), k == OM_OA_MASK ? "bool or " : k == OM_OA_NONPAD ? "int64, not " : "", fname);
  }
  m->mask_bool = m->present[OM_OA_MASK] && node->input_types[OM_OA_MASK] == OM_T_BOOL;
  if (m->present[OM_OA_PK] != m->present[OM_OA_PV])
    OM_OA_FAIL("inputs past_key and past_value must be both present or both absent");
  if (m->present[OM_OA_NONPAD] && node->opset != 0 && node->opset < 24)
    OM_OA_FAIL("input nonpad_kv_seqlen needs opset 24 (the node's opset is %d)", node->opset);
  if (m->present[OM_OA_NONPAD] && m->present[OM_OA_PK])
    OM_OA_FAIL("nonpad_kv_seqlen with past_key and past_value is not served (an external cache has no past)");
  for (size_t o = 0; o < 3; o++) node->out_types[o] = ft;
  return 0;
}

static int om_oa_check_ranks(const om_node* node, size_t n_inputs, const size_t* ranks, char* err, size_t errlen) {
  for (size_t k = 0; k < n_inputs && k < OM_OA_INPUTS; k++) {
    size_t r = ranks[k];
    if (r == OM_RANK_UNKNOWN) continue;
    if (k <= OM_OA_V && r != 3 && r != 4)
      OM_OA_FAIL("input %s has rank %zu; it must have rank 3 or 4", om_oa_inputs[k], r);
    if ((k == OM_OA_PK || k == OM_OA_PV) && r != 4)
      OM_OA_FAIL("input %s has rank %zu; it must have rank 4", om_oa_inputs[k], r);
    if (k == OM_OA_MASK && (r < 1 || r > 4))
      OM_OA_FAIL("input attn_mask has rank %zu; it must have rank 1 to 4", r);
    if (k == OM_OA_NONPAD && r != 1) OM_OA_FAIL("input nonpad_kv_seqlen has rank %zu; it must have rank 1", r);
  }
  return 0;
}

static int om_oa_given(const om_node_io* io, size_t k) { return k < io->n_inputs && io->shapes[k] != NULL; }

/* Whether dims d (rank r) equal want; else a message naming input k and the expected shape. */
static int om_oa_dims(const om_node* node, const om_node_io* io, size_t k, const int64_t* want, size_t r) {
  char* err = io->err;
  size_t errlen = io->errlen;
  int ok = io->ranks[k] == r;
  for (size_t i = 0; ok && i < r; i++) ok = io->shapes[k][i] == want[i];
  if (ok) return 0;
  char got[96], exp[96];
  om_shape_text(io->shapes[k], io->ranks[k], got, sizeof got);
  om_shape_text(want, r, exp, sizeof exp);
  OM_OA_FAIL("input %s has shape %s, expected %s", om_oa_inputs[k], got, exp);
}

/* The heads of a 3-D input's last dimension D: D / heads, or a message. */
static int om_oa_head_size(const om_node* node, const om_node_io* io, size_t k, size_t heads, size_t* w) {
  char* err = io->err;
  size_t errlen = io->errlen;
  int64_t D = io->shapes[k][2];
  if (heads == 0) OM_OA_FAIL("3-D inputs need the attributes q_num_heads and kv_num_heads");
  if (D <= 0 || D % (int64_t)heads != 0)
    OM_OA_FAIL("input %s's last dimension %lld is not a positive multiple of %zu heads", om_oa_inputs[k],
               (long long)D, heads);
  *w = (size_t)D / heads;
  return 0;
}

/* The call's shapes, views and masks from io into c (data pointers only where io->data). */
static int om_oa_geometry(const om_node* node, const om_node_io* io, om_mha_call* c) {
  const om_oa_node* m = node->impl;
  char* err = io->err;
  size_t errlen = io->errlen;
  memset(c, 0, sizeof *c);
  c->node = node;
  size_t r = io->ranks[OM_OA_Q];
  if (r != 3 && r != 4) OM_OA_FAIL("input Q must have rank 3 or 4, it has rank %zu", r);
  if (io->ranks[OM_OA_K] != r || io->ranks[OM_OA_V] != r)
    OM_OA_FAIL("inputs Q, K and V must have the same rank (%zu, %zu, %zu)", r, io->ranks[OM_OA_K],
               io->ranks[OM_OA_V]);
  const int64_t *qd = io->shapes[OM_OA_Q], *kd = io->shapes[OM_OA_K], *vd = io->shapes[OM_OA_V];
  size_t L;
  c->B = (size_t)qd[0];
  if (r == 3) {
    c->N = m->qh;
    c->KH = m->kvh;
    c->S = (size_t)qd[1];
    L = (size_t)kd[1];
    if (om_oa_head_size(node, io, OM_OA_Q, c->N, &c->H) != 0 ||
        om_oa_head_size(node, io, OM_OA_V, c->KH, &c->Hv) != 0)
      return -1;
    int64_t kw[3] = {qd[0], (int64_t)L, (int64_t)(c->KH * c->H)}, vw[3] = {qd[0], (int64_t)L, vd[2]};
    if (om_oa_dims(node, io, OM_OA_K, kw, 3) != 0 || om_oa_dims(node, io, OM_OA_V, vw, 3) != 0) return -1;
  } else {
    c->N = (size_t)qd[1];
    c->KH = (size_t)kd[1];
    c->S = (size_t)qd[2];
    c->H = (size_t)qd[3];
    c->Hv = (size_t)vd[3];
    L = (size_t)kd[2];
    if (c->N == 0 || c->KH == 0 || c->H == 0 || c->Hv == 0)
      OM_OA_FAIL("inputs Q, K and V must have at least one head of at least one element");
    int64_t kw[4] = {qd[0], (int64_t)c->KH, (int64_t)L, (int64_t)c->H};
    int64_t vw[4] = {qd[0], (int64_t)c->KH, (int64_t)L, vd[3]};
    if (om_oa_dims(node, io, OM_OA_K, kw, 4) != 0 || om_oa_dims(node, io, OM_OA_V, vw, 4) != 0) return -1;
  }
  if (c->N % c->KH != 0) OM_OA_FAIL("%zu query heads are not a multiple of %zu kv heads", c->N, c->KH);
  if (om_oa_given(io, OM_OA_PK)) {
    int64_t pw[4] = {qd[0], (int64_t)c->KH, io->ranks[OM_OA_PK] == 4 ? io->shapes[OM_OA_PK][2] : 0, (int64_t)c->H};
    if (om_oa_dims(node, io, OM_OA_PK, pw, 4) != 0) return -1;
    pw[3] = (int64_t)c->Hv;
    if (om_oa_dims(node, io, OM_OA_PV, pw, 4) != 0) return -1;
    c->past = (size_t)pw[2];
  }
  c->T = c->past + L;
  if (om_oa_given(io, OM_OA_NONPAD)) {
    int64_t nw[1] = {qd[0]};
    if (om_oa_dims(node, io, OM_OA_NONPAD, nw, 1) != 0) return -1;
    c->nonpad = io->data ? io->data[OM_OA_NONPAD] : NULL;
    for (size_t b = 0; c->nonpad && b < c->B; b++)
      if (c->nonpad[b] < 0 || c->nonpad[b] > (int64_t)c->T)
        OM_OA_FAIL("nonpad_kv_seqlen[%zu] = %lld is outside 0 .. %zu (the keys)", b, (long long)c->nonpad[b], c->T);
  }
  if (om_oa_given(io, OM_OA_MASK)) { /* right-aligned broadcast to (B, qH, S, T) */
    size_t mr = io->ranks[OM_OA_MASK];
    const int64_t* md = io->shapes[OM_OA_MASK];
    int64_t full[4] = {(int64_t)c->B, (int64_t)c->N, (int64_t)c->S, (int64_t)c->T};
    size_t stride[4] = {0, 0, 0, 0}, step = 1;
    int ok = mr >= 1 && mr <= 4;
    for (size_t i = 0; ok && i < mr; i++) {
      size_t axis = 3 - i; /* from the last axis */
      int64_t dim = md[mr - 1 - i];
      ok = dim == full[axis] || dim == 1;
      stride[axis] = dim == 1 ? 0 : step;
      step *= (size_t)dim;
    }
    if (!ok) {
      char text[96];
      om_shape_text(md, mr, text, sizeof text);
      OM_OA_FAIL("input attn_mask of shape %s does not broadcast to (batch, q heads, q sequence, total keys) = "
                 "(%zu, %zu, %zu, %zu)", text, c->B, c->N, c->S, c->T);
    }
    c->bias_sb = stride[0];
    c->bias_sn = stride[1];
    c->bias_ss = stride[2];
    c->bias_sj = stride[3];
    const void* data = io->data ? io->data[OM_OA_MASK] : NULL;
    if (m->mask_bool)
      c->keep = data;
    else
      c->attn_bias = data;
  }
  const float* const* data = io->data ? (const float* const*)io->data : NULL;
  size_t N = c->N, KH = c->KH, H = c->H, Hv = c->Hv, S = c->S;
  const float *q = data ? data[OM_OA_Q] : NULL, *k = data ? data[OM_OA_K] : NULL, *v = data ? data[OM_OA_V] : NULL;
  if (r == 3) {
    c->q = (om_mha_view){q, S * N * H, N * H, H, NULL};
    c->k = (om_mha_view){k, L * KH * H, KH * H, H, NULL};
    c->v = (om_mha_view){v, L * KH * Hv, KH * Hv, Hv, NULL};
  } else {
    c->q = (om_mha_view){q, N * S * H, H, S * H, NULL};
    c->k = (om_mha_view){k, KH * L * H, H, L * H, NULL};
    c->v = (om_mha_view){v, KH * L * Hv, Hv, L * Hv, NULL};
    c->out_bnsh = 1;
  }
  if (c->past && data) {
    c->past_k = data[OM_OA_PK];
    c->past_v = data[OM_OA_PV];
  }
  c->causal = m->causal;
  c->scale = om_mha_scale(m->scale, H);
  c->softcap = m->softcap;
  c->onnx_rows = 1;
  return 0;
}

static int om_oa_shapes(const om_node* node, const om_node_io* io) {
  om_mha_call c;
  if (om_oa_geometry(node, io, &c) != 0) return -1;
  om_mha_output_shapes(&c, io); /* KH > 0 here (om_oa_geometry), the shapes MultiHeadAttention's */
  return 0;
}

/* The elements of present cache k (0: keys, 1: values) and of Y. */
static size_t om_oa_cache_count(const om_mha_call* c, size_t k) { return c->B * c->KH * c->T * (k ? c->Hv : c->H); }
static size_t om_oa_out_count(const om_mha_call* c) { return c->B * c->N * c->S * c->Hv; }

/* The attention of c into out, the caches into given[k] (NULL: scratch); 0, or -1 out of memory. */
static int om_oa_exec(om_mha_call* c, float* out, float* const given[2], const om_node_io* io) {
  float* scratch[2] = {NULL, NULL};
  float* caches[2];
  int rc = 0;
  for (size_t k = 0; k < 2; k++) {
    caches[k] = given[k];
    if (!caches[k]) caches[k] = scratch[k] = malloc((om_oa_cache_count(c, k) + 1) * sizeof(float));
    if (!caches[k]) rc = -1;
  }
  c->cache_k = caches[0];
  c->cache_v = caches[1];
  c->out = out;
  if (rc == 0) rc = om_mha_compute(c, io->parallel_for, io->host_ctx);
  free(scratch[0]);
  free(scratch[1]);
  return rc;
}

/* float16: the float inputs widened exactly into f32 buffers, the f32 attention into f32 outputs, each rounded
 * once to f16. */
static int om_oa_run_half(const om_node* node, const om_node_io* io, char* err, size_t errlen) {
  const om_oa_node* m = node->impl;
  const void* data[OM_OA_INPUTS] = {NULL};
  float* wide[OM_OA_INPUTS] = {NULL};
  float *out = NULL, *caches[2] = {NULL, NULL};
  int rc = 0;
  for (size_t k = 0; k < io->n_inputs && k < OM_OA_INPUTS; k++) {
    data[k] = io->data[k];
    if (!io->shapes[k] || !io->data[k] || k == OM_OA_NONPAD || (k == OM_OA_MASK && m->mask_bool)) continue;
    if (k == OM_OA_PK || k == OM_OA_PV) continue; /* widened straight into the caches below */
    size_t n = om_shape_count(io->shapes[k], io->ranks[k]);
    data[k] = wide[k] = malloc((n + 1) * sizeof(float));
    if (wide[k])
      om_red_cvt16(node->path, OM_T_FLOAT16, 1, io->data[k], wide[k], n);
    else
      rc = -1;
  }
  om_node_io w = *io;
  w.data = data;
  om_mha_call c;
  if (rc == 0 && om_oa_geometry(node, &w, &c) != 0) rc = -2;
  if (rc == 0) {
    out = malloc((om_oa_out_count(&c) + 1) * sizeof(float));
    for (size_t k = 0; k < 2; k++)
      if (!(caches[k] = malloc((om_oa_cache_count(&c, k) + 1) * sizeof(float)))) rc = -1;
    if (!out) rc = -1;
  }
  if (rc == 0 && c.past) { /* past's rows, widened, at the head of each (batch row, kv head)'s cache rows */
    size_t units = c.B * c.KH, width[2] = {c.H, c.Hv};
    for (size_t k = 0; k < 2; k++)
      for (size_t u = 0; u < units; u++)
        om_red_cvt16(node->path, OM_T_FLOAT16, 1, (const uint16_t*)io->data[OM_OA_PK + k] + u * c.past * width[k],
                     caches[k] + u * c.T * width[k], c.past * width[k]);
    c.past_k = c.past_v = NULL; /* mha_core: the past rows are in place */
  }
  if (rc == 0) rc = om_oa_exec(&c, out, caches, io);
  for (size_t k = 0; rc == 0 && k < 3; k++) { /* the outputs wanted */
    const float* src = k ? caches[k - 1] : out;
    void* dst = k < io->n_outputs ? io->outs[k] : NULL;
    size_t n = k ? om_oa_cache_count(&c, k - 1) : om_oa_out_count(&c);
    if (src && dst) om_red_cvt16(node->path, OM_T_FLOAT16, 0, src, dst, n);
  }
  for (size_t k = 0; k < OM_OA_INPUTS; k++) free(wide[k]);
  free(out);
  free(caches[0]);
  free(caches[1]);
  if (rc == -2) return -1; /* the geometry's message */
  if (rc != 0) OM_OA_FAIL("out of memory");
  return 0;
}

static int om_oa_run(const om_node* node, const om_node_io* io) {
  char* err = io->err;
  size_t errlen = io->errlen;
  if (node->type == OM_T_FLOAT16) return om_oa_run_half(node, io, err, errlen);
  om_mha_call c;
  if (om_oa_geometry(node, io, &c) != 0) return -1;
  float* given[2];
  for (size_t k = 0; k < 2; k++) given[k] = io->n_outputs > 1 + k ? io->outs[1 + k] : NULL;
  if (om_oa_exec(&c, io->outs[0], given, io) != 0) OM_OA_FAIL("out of memory");
  return 0;
}

const om_family om_family_onnx_attention = {.state_size = sizeof(om_oa_node),
                                            .create = om_oa_create,
                                            .shapes = om_oa_shapes,
                                            .run = om_oa_run,
                                            .check_ranks = om_oa_check_ranks};
