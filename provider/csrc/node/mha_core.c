/* mha_core.c - the attention of com.microsoft MultiHeadAttention and Attention (mha_core.h, docs/attention.md):
 * phase 1 fills the caches of each (batch row, head), phase 2 runs blocks of query rows of one (batch row, head)
 * against all of its keys. No result depends on the split into units or blocks: each query row is its own
 * sequence of operations. */
#include "mha_core.h"

#include <stdlib.h>
#include <string.h>

#include "attention/attn.h"
#include "parallel.h"
#include "reduce/reduce.h"

/* Query rows per phase-2 unit: they share each key and value row's loads. */
#define OM_MHA_ROWS 8

int om_mha_input_types(const om_node* node, const char* op, const char* const* names, size_t served, size_t mask_k,
                       int* present, char* err, size_t errlen) {
  for (size_t k = 0; k < node->n_inputs; k++) {
    int t = node->input_types[k];
    if (t == 0) continue;
    if (k >= served) OM_MHA_FAIL_AS(op, "input %zu (%s) is not served", k, names[k]);
    int want = k == mask_k ? OM_T_INT32 : OM_T_FLOAT;
    if (t != want)
      OM_MHA_FAIL_AS(op, "input %zu (%s) of element type %s is not served (%s)", k, names[k], om_type_name(t),
                     om_type_name(want));
  }
  for (size_t k = 0; k < served; k++) present[k] = k < node->n_inputs && node->input_types[k] != 0;
  return 0;
}

int om_mha_attrs_read(const om_node* node, const om_attrs* a, const char* op, om_mha_attrs* out, char* err,
                      size_t errlen) {
  if (!a->has_num_heads || a->num_heads < 1 || a->num_heads > 65536)
    OM_MHA_FAIL_AS(op, "attribute num_heads is required, 1 to 65536");
  int64_t uni = a->has_unidirectional ? a->unidirectional : 0;
  if (uni != 0 && uni != 1) OM_MHA_FAIL_AS(op, "attribute unidirectional = %lld must be 0 or 1", (long long)uni);
  out->N = (size_t)a->num_heads;
  out->unidirectional = (int)uni;
  out->scale = a->has_scale ? a->scale : 0.0f;
  out->filter = a->has_mask_filter_value ? a->mask_filter_value : -10000.0f;
  if (!(out->scale == out->scale) || out->scale > 3.4e38f || out->scale < -3.4e38f)
    OM_MHA_FAIL_AS(op, "attribute scale = %g is not served (a finite value; 0: 1/sqrt(head size))",
                (double)out->scale);
  return 0;
}

int om_mha_masks(om_mha_call* c, const om_mha_attrs* a, const om_node_io* io, size_t mask_k, size_t bias_k,
                 int all_forms, const char* op) {
  const om_node* node = c->node;
  char* err = io->err;
  size_t errlen = io->errlen;
  c->unidirectional = a->unidirectional;
  c->filter = a->filter;
  c->scale = om_mha_scale(a->scale, c->H);
  c->mask_kind = OM_MHA_MASK_NONE;
  c->attn_bias = NULL;
  if (mask_k < io->n_inputs && io->shapes[mask_k]) {
    const int64_t* d = io->shapes[mask_k];
    size_t r = io->ranks[mask_k];
    if (r == 1 && d[0] == (int64_t)c->B)
      c->mask_kind = OM_MHA_MASK_END;
    else if (r == 2 && d[0] == (int64_t)c->B && d[1] == (int64_t)c->T)
      c->mask_kind = OM_MHA_MASK_KEYS;
    else if (all_forms && r == 1 && d[0] == 2 * (int64_t)c->B)
      c->mask_kind = OM_MHA_MASK_END_START;
    else if (all_forms && r == 3 && d[0] == (int64_t)c->B && d[1] == (int64_t)c->S && d[2] == (int64_t)c->T)
      c->mask_kind = OM_MHA_MASK_ROWS;
    else {
      char text[96];
      om_shape_text(d, r, text, sizeof text);
      OM_MHA_FAIL_AS(op, "input %zu (mask) of shape %s is not served (only (batch) = (%zu): key lengths, "
                  "(batch, total keys) = (%zu, %zu): 0 masks a key%s)", mask_k, text, c->B, c->B, c->T,
                  all_forms ? ", (2 batch): end and start, (batch, sequence, total keys)" : "");
    }
    c->mask = io->data ? io->data[mask_k] : NULL;
  }
  if (bias_k < io->n_inputs && io->shapes[bias_k]) {
    const int64_t* d = io->shapes[bias_k];
    if (io->ranks[bias_k] != 4 || (d[0] != 1 && d[0] != (int64_t)c->B) || (d[1] != 1 && d[1] != (int64_t)c->N) ||
        d[2] != (int64_t)c->S || d[3] != (int64_t)c->T) {
      char text[96];
      om_shape_text(d, io->ranks[bias_k], text, sizeof text);
      OM_MHA_FAIL_AS(op, "input %zu (attention_bias) has shape %s, expected (%zu or 1, %zu or 1, %zu, %zu)",
                  bias_k, text, c->B, c->N, c->S, c->T);
    }
    c->attn_bias = io->data ? io->data[bias_k] : NULL;
    c->bias_sn = d[1] == 1 ? 0 : c->S * c->T;
    c->bias_sb = d[0] == 1 ? 0 : (size_t)d[1] * c->S * c->T;
  }
  return 0;
}

float om_mha_scale(float scale, size_t H) { return scale != 0.0f ? scale : 1.0f / __builtin_sqrtf((float)H); }

/* Row t of head n of batch row b of a view, W wide, into dst (with the view's bias). */
static void om_mha_row(const om_mha_view* v, size_t b, size_t t, size_t n, size_t W, float* dst) {
  const float* src = v->base + b * v->sb + t * v->st + n * v->sn;
  if (!v->bias) {
    memcpy(dst, src, W * sizeof(float));
    return;
  }
  const float* bias = v->bias + n * W;
  for (size_t i = 0; i < W; i++) dst[i] = src[i] + bias[i];
}

/* Phase 1: units u = b * N + n: rows 0 .. past-1 of the caches are past's, rows past .. T-1 the new ones. */
static int om_mha_fill(const void* args, size_t u0, size_t u1) {
  const om_mha_call* c = args;
  for (size_t u = u0; u < u1; u++) {
    size_t b = u / c->N, n = u % c->N;
    for (size_t which = 0; which < 2; which++) {
      size_t W = which ? c->Hv : c->H;
      float* dst = (which ? c->cache_v : c->cache_k) + u * c->T * W;
      const float* past = which ? c->past_v : c->past_k;
      if (c->past) memcpy(dst, past + u * c->past * W, c->past * W * sizeof(float));
      for (size_t t = c->past; t < c->T; t++)
        om_mha_row(which ? &c->v : &c->k, b, t - c->past, n, W, dst + t * W);
    }
  }
  return 0;
}

/* What the masks add to the scores of query row s of batch row b, c[j] for keys j < T: f where the key mask
 * masks key j, plus f (RN(c + f)) where the causal mask does; 0 where neither does. */
static void om_mha_shifts(const om_mha_call* c, size_t b, size_t s, float* add) {
  size_t T = c->T;
  float f = c->filter;
  switch (c->mask_kind) {
    case OM_MHA_MASK_END:
    case OM_MHA_MASK_END_START: {
      int64_t end = c->mask[b], start = c->mask_kind == OM_MHA_MASK_END_START ? c->mask[c->B + b] : 0;
      for (size_t j = 0; j < T; j++) add[j] = (int64_t)j >= end || (int64_t)j < start ? f : 0.0f;
      break;
    }
    case OM_MHA_MASK_KEYS: {
      const int32_t* m = c->mask + b * T;
      for (size_t j = 0; j < T; j++) add[j] = m[j] <= 0 ? f : 0.0f;
      break;
    }
    case OM_MHA_MASK_ROWS: {
      const int32_t* m = c->mask + (b * c->S + s) * T;
      for (size_t j = 0; j < T; j++) add[j] = m[j] <= 0 ? f : 0.0f;
      break;
    }
    default:
      for (size_t j = 0; j < T; j++) add[j] = 0.0f;
      break;
  }
  if (c->unidirectional)
    for (size_t j = c->past + s + 1; j < T; j++) add[j] = add[j] + f;
}

/* Phase 2: units u = (b * N + n) * blocks + block: query rows block * OM_MHA_ROWS .. of head n of batch row b. */
static int om_mha_attend(const void* args, size_t u0, size_t u1) {
  const om_mha_call* c = args;
  const om_node* node = c->node;
  size_t H = c->H, Hv = c->Hv, T = c->T, blocks = (c->S + OM_MHA_ROWS - 1) / OM_MHA_ROWS;
  float* buf = malloc((OM_MHA_ROWS * (H + Hv) + (2 * OM_MHA_ROWS + 1) * T) * sizeof(float));
  if (!buf) return -1;
  float *q = buf, *o = q + OM_MHA_ROWS * H, *d = o + OM_MHA_ROWS * Hv, *w = d + OM_MHA_ROWS * T;
  float* add = w + OM_MHA_ROWS * T; /* the mask shifts of one query row */
  int rc = 0;
  for (size_t u = u0; u < u1 && rc == 0; u++) {
    size_t bn = u / blocks, b = bn / c->N, n = bn % c->N, s0 = (u % blocks) * OM_MHA_ROWS;
    size_t G = c->S - s0 < OM_MHA_ROWS ? c->S - s0 : OM_MHA_ROWS;
    for (size_t r = 0; r < G; r++) om_mha_row(&c->q, b, s0 + r, n, H, q + r * H);
    om_attn_scores(node->path, q, G, c->cache_k + bn * T * H, T, H, d, T);
    for (size_t r = 0; r < G; r++) {
      float* t = d + r * T;
      size_t s = s0 + r;
      const float* bias = c->attn_bias ? c->attn_bias + b * c->bias_sb + n * c->bias_sn + s * T : NULL;
      for (size_t j = 0; j < T; j++) t[j] = t[j] * c->scale;
      if (c->mask_kind != OM_MHA_MASK_NONE || c->unidirectional) {
        om_mha_shifts(c, b, s, add);
        /* t + c where c != 0; elsewhere t + (-0.0), which is t bit for bit (t is never a signalling NaN):
         * both loops vectorise, where a sum under a condition does not */
        for (size_t j = 0; j < T; j++) add[j] = add[j] != 0.0f ? add[j] : -0.0f;
        for (size_t j = 0; j < T; j++) t[j] = t[j] + add[j];
      }
      if (bias)
        for (size_t j = 0; j < T; j++) t[j] = t[j] + bias[j];
    }
    rc = om_softmax(node->path, OM_T_FLOAT, node->mode, 0, G, T, 1, 0, G, d, w);
    if (rc != 0) break;
    om_attn_values(node->path, w, T, G, c->cache_v + bn * T * Hv, T, Hv, o);
    for (size_t r = 0; r < G; r++)
      memcpy(c->out + ((b * c->S + s0 + r) * c->N + n) * Hv, o + r * Hv, Hv * sizeof(float));
  }
  free(buf);
  return rc;
}

int om_mha_compute(const om_mha_call* c, om_parallel_for_fn parallel_for, void* host_ctx) {
  size_t units = c->B * c->N;
  int rc = om_parallel_ranges(parallel_for, host_ctx, units, 1, om_mha_fill, c);
  if (rc != 0 || !c->out || c->S == 0) return rc;
  if (c->T == 0) { /* no key: the Softmax of an empty row; ORT writes nothing meaningful, we write zeros */
    memset(c->out, 0, c->B * c->S * c->N * c->Hv * sizeof(float));
    return 0;
  }
  size_t blocks = (c->S + OM_MHA_ROWS - 1) / OM_MHA_ROWS;
  return om_parallel_ranges(parallel_for, host_ctx, units * blocks, 1, om_mha_attend, c);
}
