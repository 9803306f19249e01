/* node_mha.c - com.microsoft MultiHeadAttention nodes: inputs, shapes and the present caches onto the shared
 * attention of mha_core.h (docs/attention.md, "MultiHeadAttention").
 *
 * Inputs: query (B, S, D); key and value either (B, L, D) and (B, L, Dv) with an optional bias (D + D + Dv) and
 * past_key, past_value (B, N, P, H) and (B, N, P, Hv), or (B, N, L, H) and (B, N, L, Hv) (no bias on them, no
 * past); key_padding_mask int32 (B) or (B, P + L); attention_bias (B or 1, N or 1, S, P + L). Refused at
 * creation: packed QKV or KV (key or value absent), past_sequence_length, cache_indirection, the output qk.
 * Outputs: output (B, S, N Hv), present_key, present_value (B, N, P + L, H / Hv).
 */
#include <stdlib.h>
#include <string.h>

#include "mha_core.h"

enum { OM_MHA_Q, OM_MHA_K, OM_MHA_V, OM_MHA_BIAS, OM_MHA_MASK, OM_MHA_ABIAS, OM_MHA_PK, OM_MHA_PV, OM_MHA_SERVED };

static const char* const om_mha_inputs[10] = {"query", "key", "value", "bias", "key_padding_mask",
                                              "attention_bias", "past_key", "past_value", "past_sequence_length",
                                              "cache_indirection"};

typedef struct om_mha_node {
  om_mha_attrs attrs;
  int present[OM_MHA_SERVED];
} om_mha_node;

#define OM_MHA_FAIL(...) OM_MHA_FAIL_AS("MultiHeadAttention", __VA_ARGS__)

static int om_mha_create(om_node* node, const om_attrs* a, char* err, size_t errlen) {
  om_mha_node* m = node->impl;
  if (om_mha_attrs_read(node, a, "MultiHeadAttention", &m->attrs, err, errlen) != 0) return -1;
  if (om_mha_input_types(node, "MultiHeadAttention", om_mha_inputs, OM_MHA_SERVED, OM_MHA_MASK, m->present, err,
                         errlen) != 0)
    return -1;
  if (!m->present[OM_MHA_K] || !m->present[OM_MHA_V])
    OM_MHA_FAIL("packed QKV or KV (key or value absent) is not served: give query, key and value apart");
  if (m->present[OM_MHA_PK] != m->present[OM_MHA_PV])
    OM_MHA_FAIL("inputs past_key and past_value must be both present or both absent");
  for (size_t o = 0; o < 3; o++) node->out_types[o] = OM_T_FLOAT;
  node->n_outputs = 3;
  return 0;
}

static int om_mha_check_ranks(const om_node* node, size_t n_inputs, const size_t* ranks, char* err, size_t errlen) {
  static const size_t want[OM_MHA_SERVED] = {3, 0, 0, 1, 0, 4, 4, 4}; /* 0: checked at run */
  for (size_t k = 0; k < n_inputs && k < OM_MHA_SERVED; k++)
    if (ranks[k] != OM_RANK_UNKNOWN && want[k] && ranks[k] != want[k])
      OM_MHA_FAIL("input %s has rank %zu; it must have rank %zu", om_mha_inputs[k], ranks[k], want[k]);
  for (size_t k = OM_MHA_K; k <= OM_MHA_V && k < n_inputs; k++)
    if (ranks[k] != OM_RANK_UNKNOWN && ranks[k] != 3 && ranks[k] != 4)
      OM_MHA_FAIL("input %s has rank %zu; it must have rank 3 (B, L, D) or 4 (B, N, L, H): packed forms are not "
                  "served", om_mha_inputs[k], ranks[k]);
  return 0;
}

static int om_mha_present(const om_node_io* io, size_t k) { return k < io->n_inputs && io->shapes[k] != NULL; }

/* The call's shapes and views from io into c (data pointers only where io->data). */
static int om_mha_geometry(const om_node* node, const om_node_io* io, om_mha_call* c) {
  const om_mha_node* m = node->impl;
  char* err = io->err;
  size_t errlen = io->errlen;
  size_t N = m->attrs.N;
  memset(c, 0, sizeof *c);
  c->node = node;
  c->N = N;
  const int64_t *qd = io->shapes[OM_MHA_Q], *kd = io->shapes[OM_MHA_K], *vd = io->shapes[OM_MHA_V];
  size_t kr = io->ranks[OM_MHA_K];
  if (io->ranks[OM_MHA_Q] != 3) OM_MHA_FAIL("input query must have rank 3, it has rank %zu", io->ranks[OM_MHA_Q]);
  if (kr != io->ranks[OM_MHA_V] || (kr != 3 && kr != 4))
    OM_MHA_FAIL("inputs key and value must both have rank 3 or both rank 4 (ranks %zu and %zu)", kr,
                io->ranks[OM_MHA_V]);
  c->B = (size_t)qd[0];
  c->S = (size_t)qd[1];
  if (qd[2] % (int64_t)N != 0 || qd[2] == 0)
    OM_MHA_FAIL("query's hidden size %lld is not a positive multiple of num_heads %zu", (long long)qd[2], N);
  c->H = (size_t)qd[2] / N;
  size_t L;
  if (kr == 3) {
    if (kd[0] != qd[0] || vd[0] != qd[0] || kd[1] != vd[1] || kd[2] != qd[2] || vd[2] % (int64_t)N != 0 || vd[2] == 0)
      OM_MHA_FAIL("key (%lld, %lld, %lld) and value (%lld, %lld, %lld) must be (B, L, %lld) and (B, L, Dv) with B = "
                  "%lld and Dv a positive multiple of num_heads", (long long)kd[0], (long long)kd[1],
                  (long long)kd[2], (long long)vd[0], (long long)vd[1], (long long)vd[2], (long long)qd[2],
                  (long long)qd[0]);
    L = (size_t)kd[1];
    c->Hv = (size_t)vd[2] / N;
  } else {
    if (kd[0] != qd[0] || vd[0] != qd[0] || kd[1] != (int64_t)N || vd[1] != (int64_t)N || kd[2] != vd[2] ||
        kd[3] != (int64_t)c->H || vd[3] == 0)
      OM_MHA_FAIL("key and value of rank 4 must be (B, num_heads, L, %zu) and (B, num_heads, L, Hv) with B = %lld",
                  c->H, (long long)qd[0]);
    if (om_mha_present(io, OM_MHA_BIAS) || om_mha_present(io, OM_MHA_PK))
      OM_MHA_FAIL("bias and past_key/past_value with key and value of rank 4 are not served");
    L = (size_t)kd[2];
    c->Hv = (size_t)vd[3];
  }
  if (om_mha_present(io, OM_MHA_BIAS)) {
    int64_t want = (int64_t)(2 * N * c->H + N * c->Hv);
    if (io->ranks[OM_MHA_BIAS] != 1 || io->shapes[OM_MHA_BIAS][0] != want)
      OM_MHA_FAIL("input bias must have shape (%lld) (query, key and value hidden sizes)", (long long)want);
  }
  if (om_mha_present(io, OM_MHA_PK)) {
    const int64_t *pk = io->shapes[OM_MHA_PK], *pv = io->shapes[OM_MHA_PV];
    if (io->ranks[OM_MHA_PK] != 4 || io->ranks[OM_MHA_PV] != 4 || pk[0] != qd[0] || pk[1] != (int64_t)N ||
        pk[3] != (int64_t)c->H || pv[0] != qd[0] || pv[1] != (int64_t)N || pv[2] != pk[2] || pv[3] != (int64_t)c->Hv)
      OM_MHA_FAIL("past_key and past_value must be (B, num_heads, P, %zu) and (B, num_heads, P, %zu)", c->H, c->Hv);
    c->past = (size_t)pk[2];
  }
  c->T = c->past + L;
  const float* const* data = io->data ? (const float* const*)io->data : NULL;
  const float* bias = data && om_mha_present(io, OM_MHA_BIAS) ? data[OM_MHA_BIAS] : NULL;
  size_t D = N * c->H, Dv = N * c->Hv;
  c->q = (om_mha_view){data ? data[OM_MHA_Q] : NULL, c->S * D, D, c->H, bias};
  if (kr == 3) {
    c->k = (om_mha_view){data ? data[OM_MHA_K] : NULL, L * D, D, c->H, bias ? bias + D : NULL};
    c->v = (om_mha_view){data ? data[OM_MHA_V] : NULL, L * Dv, Dv, c->Hv, bias ? bias + 2 * D : NULL};
  } else {
    c->k = (om_mha_view){data ? data[OM_MHA_K] : NULL, N * L * c->H, c->H, L * c->H, NULL};
    c->v = (om_mha_view){data ? data[OM_MHA_V] : NULL, N * L * c->Hv, c->Hv, L * c->Hv, NULL};
  }
  if (c->past && data) {
    c->past_k = data[OM_MHA_PK];
    c->past_v = data[OM_MHA_PV];
  }
  return om_mha_masks(c, &m->attrs, io, OM_MHA_MASK, OM_MHA_ABIAS, 0, "MultiHeadAttention");
}

static int om_mha_shapes(const om_node* node, const om_node_io* io) {
  om_mha_call c;
  if (om_mha_geometry(node, io, &c) != 0) return -1;
  om_mha_output_shapes(&c, io);
  return 0;
}

static int om_mha_run(const om_node* node, const om_node_io* io) {
  char* err = io->err;
  size_t errlen = io->errlen;
  om_mha_call c;
  if (om_mha_geometry(node, io, &c) != 0) return -1;
  if (om_mha_run_outputs(&c, io) != 0) OM_MHA_FAIL("out of memory");
  return 0;
}

const om_family om_family_mha = {.state_size = sizeof(om_mha_node),
                                 .create = om_mha_create,
                                 .shapes = om_mha_shapes,
                                 .run = om_mha_run,
                                 .check_ranks = om_mha_check_ranks};
