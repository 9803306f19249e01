/* mha_core.c - the attention of com.microsoft MultiHeadAttention and Attention and of ONNX's Attention (mha_core.h,
 * docs/attention.md): phase 1 fills the caches of each (batch row, kv head), phase 2 runs blocks of query rows of
 * one (batch row, kv head) -- the rows of its group's query heads, head by head -- against the keys each row
 * attends. No result depends on the split into units or blocks: each query row is its own sequence of
 * operations. */
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
    c->bias_ss = c->T;
    c->bias_sj = 1;
  }
  return 0;
}

float om_mha_scale(float scale, size_t H) { return scale != 0.0f ? scale : 1.0f / __builtin_sqrtf((float)H); }

void om_attn_softcap(const om_node* node, float c, float* t, size_t n) {
  for (size_t i = 0; i < n; i++) t[i] = t[i] / c;
  om_un_fn wide = node->wide->un[OM_K_TANH][OM_T_FLOAT], one = node->one->un[OM_K_TANH][OM_T_FLOAT];
  size_t done = wide(t, t, n, OM_FL_EXACT);
  if (done < n) one(t + done, t + done, n - done, OM_FL_EXACT);
  for (size_t i = 0; i < n; i++) t[i] = c * t[i];
}

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

static size_t om_mha_kv_heads(const om_mha_call* c) { return c->KH ? c->KH : c->N; }

/* Phase 1: units u = b * KH + g: rows 0 .. past-1 of the caches are past's, rows past .. T-1 the new ones. */
static int om_mha_fill(const void* args, size_t u0, size_t u1) {
  const om_mha_call* c = args;
  size_t KH = om_mha_kv_heads(c);
  for (size_t u = u0; u < u1; u++) {
    size_t b = u / KH, n = u % KH;
    for (size_t which = 0; which < 2; which++) {
      size_t W = which ? c->Hv : c->H;
      float* dst = (which ? c->cache_v : c->cache_k) + u * c->T * W;
      const float* past = which ? c->past_v : c->past_k;
      if (c->past && past) memcpy(dst, past + u * c->past * W, c->past * W * sizeof(float));
      for (size_t t = c->past; t < c->T; t++)
        om_mha_row(which ? &c->v : &c->k, b, t - c->past, n, W, dst + t * W);
    }
  }
  return 0;
}

/* What the masks add to the scores of query row s of batch row b, c[j] for keys j < T: f where the key mask
 * masks key j, else 0; then, as stock ORT's CPU kernel builds its mask, the causal mask (unidirectional, on
 * query rows s < S - 1 only) puts -FLT_MAX in place of that where j > past + s, whatever mask_filter_value. */
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
  if (c->unidirectional && s + 1 < c->S)
    for (size_t j = c->past + s + 1; j < T; j++) add[j] = -__FLT_MAX__;
}

/* The keys query row s of batch row b attends: 0 .. n-1 (n = 0: none). All T, but for nonpad (j < nonpad[b])
 * and causal (j <= s + offset, offset = nonpad[b] - S with nonpad, else past). */
static size_t om_mha_keys(const om_mha_call* c, size_t b, size_t s) {
  int64_t n = (int64_t)c->T, off = (int64_t)c->past;
  if (c->nonpad) {
    if (c->nonpad[b] < n) n = c->nonpad[b];
    off = c->nonpad[b] - (int64_t)c->S;
  }
  if (c->causal && (int64_t)s + off + 1 < n) n = (int64_t)s + off + 1;
  return n > 0 ? (size_t)n : 0;
}

/* Scores t[0 .. n-1] of query row s of head n of batch row b after the scale (steps 2-4 of docs/attention.md):
 * scale, softcap, the key masks, then the bool mask's -inf or the attention bias. Whether the row is empty
 * under ONNX's rules (no key, or every score -inf). */
static int om_mha_row_scores(const om_mha_call* c, size_t b, size_t n, size_t s, float* t, size_t nk,
                             float* add) {
  for (size_t j = 0; j < nk; j++) t[j] = t[j] * c->scale;
  if (c->softcap > 0.0f) om_attn_softcap(c->node, c->softcap, t, nk);
  if (c->mask_kind != OM_MHA_MASK_NONE || c->unidirectional) {
    om_mha_shifts(c, b, s, add);
    /* t + c where c != 0; elsewhere t + (-0.0), which is t bit for bit (t is never a signalling NaN): both loops
     * vectorise, where a sum under a condition does not */
    for (size_t j = 0; j < nk; j++) add[j] = add[j] != 0.0f ? add[j] : -0.0f;
    for (size_t j = 0; j < nk; j++) t[j] = t[j] + add[j];
  }
  size_t at = b * c->bias_sb + n * c->bias_sn + s * c->bias_ss;
  const float* bias = c->attn_bias ? c->attn_bias + at : NULL;
  const unsigned char* keep = c->keep ? c->keep + at : NULL;
  int live = 0;
  for (size_t j = 0; j < nk; j++) {
    float x = t[j];
    if (keep && !keep[j * c->bias_sj])
      x = -__builtin_inff();
    else if (bias)
      x = x + bias[j * c->bias_sj];
    t[j] = x;
    live |= x != -__builtin_inff();
  }
  return c->onnx_rows && !live;
}

/* The query rows of one (batch row, kv head): x = t * S + s for query head n = g * group + t, row s. */
static size_t om_mha_blocks(const om_mha_call* c) {
  return (c->N / om_mha_kv_heads(c) * c->S + OM_MHA_ROWS - 1) / OM_MHA_ROWS;
}

/* Phase 2: units u = (b * KH + g) * blocks + block: rows x = block * OM_MHA_ROWS .. of kv head g of batch row b
 * (decode's query heads of one group share each key's and value's loads, as a prompt's rows of one head do). */
static int om_mha_attend(const void* args, size_t u0, size_t u1) {
  const om_mha_call* c = args;
  const om_node* node = c->node;
  size_t H = c->H, Hv = c->Hv, T = c->T, S = c->S, blocks = om_mha_blocks(c);
  size_t KH = om_mha_kv_heads(c), group = c->N / KH;
  float* buf = malloc((OM_MHA_ROWS * (H + Hv) + (2 * OM_MHA_ROWS + 1) * T) * sizeof(float));
  if (!buf) return -1;
  float *q = buf, *o = q + OM_MHA_ROWS * H, *d = o + OM_MHA_ROWS * Hv, *w = d + OM_MHA_ROWS * T;
  float* add = w + OM_MHA_ROWS * T; /* the mask shifts of one query row */
  size_t nk[OM_MHA_ROWS], hs[OM_MHA_ROWS], ss[OM_MHA_ROWS];
  int empty[OM_MHA_ROWS];
  int rc = 0;
  for (size_t u = u0; u < u1 && rc == 0; u++) {
    size_t kv = u / blocks, b = kv / KH, g = kv % KH, x0 = (u % blocks) * OM_MHA_ROWS, nmax = 0;
    size_t G = group * S - x0 < OM_MHA_ROWS ? group * S - x0 : OM_MHA_ROWS;
    int uniform = 1;
    for (size_t r = 0; r < G; r++) {
      hs[r] = g * group + (x0 + r) / S;
      ss[r] = (x0 + r) % S;
      nk[r] = om_mha_keys(c, b, ss[r]);
      nmax = nk[r] > nmax ? nk[r] : nmax;
      uniform &= nk[r] == nk[0];
      om_mha_row(&c->q, b, ss[r], hs[r], H, q + r * H);
    }
    /* rows of nmax scores, one after another */
    if (nmax) om_attn_scores(node->path, q, G, c->cache_k + kv * T * H, nmax, H, d, nmax);
    size_t nmin = nmax; /* the least key count; 0 when a row is empty */
    for (size_t r = 0; r < G; r++) {
      empty[r] = nk[r] == 0 ? c->onnx_rows : om_mha_row_scores(c, b, hs[r], ss[r], d + r * nmax, nk[r], add);
      uniform &= !empty[r];
      nmin = empty[r] || nk[r] < nmin ? (empty[r] ? 0 : nk[r]) : nmin;
    }
    const float* vs = c->cache_v + kv * T * Hv;
    if (uniform && nmax) {
      rc = om_softmax(node->path, OM_T_FLOAT, node->mode, 0, G, nmax, 1, 0, G, d, w);
      if (rc == 0) om_attn_values(node->path, w, nmax, G, vs, nmax, Hv, o);
    } else if (nmin) { /* rows of different key counts (causal): keys below the least together, then each on */
      for (size_t r = 0; r < G && rc == 0; r++)
        rc = om_softmax(node->path, OM_T_FLOAT, node->mode, 0, 1, nk[r], 1, 0, 1, d + r * nmax, w + r * nmax);
      if (rc != 0) break;
      om_attn_values(node->path, w, nmax, G, vs, nmin, Hv, o);
      for (size_t r = 0; r < G; r++)
        om_attn_values_more(node->path, w + r * nmax, nmax, 1, vs, nmin, nk[r], Hv, o + r * Hv);
    } else
      for (size_t r = 0; r < G && rc == 0; r++) {
        if (empty[r] || nk[r] == 0) {
          for (size_t i = 0; i < Hv; i++) o[r * Hv + i] = 0.0f;
          continue;
        }
        rc = om_softmax(node->path, OM_T_FLOAT, node->mode, 0, 1, nk[r], 1, 0, 1, d + r * nmax, w + r * nmax);
        if (rc == 0) om_attn_values(node->path, w + r * nmax, nmax, 1, vs, nk[r], Hv, o + r * Hv);
      }
    if (rc != 0) break;
    if (c->onnx_rows) om_attn_canon(o, G * Hv);
    for (size_t r = 0; r < G; r++) {
      size_t n = hs[r], s = ss[r];
      float* dst = c->out + (c->out_bnsh ? ((b * c->N + n) * S + s) * Hv : ((b * S + s) * c->N + n) * Hv);
      memcpy(dst, o + r * Hv, Hv * sizeof(float));
    }
  }
  free(buf);
  return rc;
}

int om_mha_compute(const om_mha_call* c, om_parallel_for_fn parallel_for, void* host_ctx) {
  size_t units = c->B * om_mha_kv_heads(c);
  int rc = om_parallel_ranges(parallel_for, host_ctx, units, 1, om_mha_fill, c);
  if (rc != 0 || !c->out || c->S == 0) return rc;
  if (c->T == 0) { /* no key: the Softmax of an empty row; ORT writes nothing meaningful, we write zeros */
    memset(c->out, 0, c->B * c->S * c->N * c->Hv * sizeof(float));
    return 0;
  }
  return om_parallel_ranges(parallel_for, host_ctx, units * om_mha_blocks(c), 1, om_mha_attend, c);
}

void om_mha_output_shapes(const om_mha_call* c, const om_node_io* io) {
  int64_t* o = io->out_shapes;
  size_t KH = om_mha_kv_heads(c);
  if (c->out_bnsh) {
    o[0] = (int64_t)c->B;
    o[1] = (int64_t)c->N;
    o[2] = (int64_t)c->S;
    o[3] = (int64_t)c->Hv;
    io->out_ranks[0] = 4;
  } else {
    o[0] = (int64_t)c->B;
    o[1] = (int64_t)c->S;
    o[2] = (int64_t)(c->N * c->Hv);
    io->out_ranks[0] = 3;
  }
  for (size_t k = 1; k < 3 && k < io->n_outputs; k++) {
    int64_t* d = o + k * OM_NODE_MAX_RANK;
    d[0] = (int64_t)c->B;
    d[1] = (int64_t)KH;
    d[2] = (int64_t)c->T;
    d[3] = (int64_t)(k == 1 ? c->H : c->Hv);
    io->out_ranks[k] = 4;
  }
}

int om_mha_run_outputs(om_mha_call* c, const om_node_io* io) {
  float* scratch[2] = {NULL, NULL};
  float* caches[2];
  size_t width[2] = {c->H, c->Hv};
  int rc = 0;
  for (size_t k = 0; k < 2; k++) {
    caches[k] = io->n_outputs > 1 + k ? io->outs[1 + k] : NULL;
    size_t n = c->B * om_mha_kv_heads(c) * c->T * width[k] + 1;
    if (!caches[k]) caches[k] = scratch[k] = malloc(n * sizeof(float));
    if (!caches[k]) rc = -1;
  }
  c->cache_k = caches[0];
  c->cache_v = caches[1];
  c->out = io->outs[0];
  if (rc == 0) rc = om_mha_compute(c, io->parallel_for, io->host_ctx);
  free(scratch[0]);
  free(scratch[1]);
  return rc;
}
