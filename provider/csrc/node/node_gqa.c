/* node_gqa.c - com.microsoft GroupQueryAttention nodes (ONNX Runtime GenAI's decoder attention): attributes,
 * shapes, the per-sequence lengths, the present caches, and the attention of each query row onto the kernels of
 * attention/attn.h and reduce/'s Softmax (docs/attention.md, the contract this file follows).
 *
 * Inputs: query, key, value (both absent: query packs Q, K and V), past_key, past_value (BNSH), seqlens_k and
 * total_sequence_length (int32), cos_cache, sin_cache (with do_rotary = 1); inputs 9 and on are refused at
 * creation. Outputs: output (BSNH flattened), present_key, present_value (B, kv heads, max(total, past), H).
 * A run is two parallel phases: the present rows of each (batch row, kv head), then each (batch row, query row,
 * kv head)'s query heads against the keys they attend, in key order; no result depends on the split.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attention/attn.h"
#include "broadcast.h"
#include "mha_core.h"
#include "node_family.h"
#include "parallel.h"
#include "reduce/reduce.h"

enum { OM_GQA_Q, OM_GQA_K, OM_GQA_V, OM_GQA_PK, OM_GQA_PV, OM_GQA_SEQLENS, OM_GQA_TOTAL, OM_GQA_COS, OM_GQA_SIN,
       OM_GQA_SERVED };

static const char* const om_gqa_inputs[16] = {
    "query", "key", "value", "past_key", "past_value", "seqlens_k", "total_sequence_length", "cos_cache",
    "sin_cache", "position_ids", "attention_bias", "head_sink", "k_scale", "v_scale", "q_norm_weight",
    "k_norm_weight"};

typedef struct om_gqa_node {
  size_t N, KH;       /* query heads, key/value heads */
  float scale;        /* the attribute; 0: 1/sqrt(H) */
  float softcap;      /* 0: none */
  int rotary, interleaved;
  int64_t window;     /* local_window_size; -1: none */
  int present[OM_GQA_SERVED];
} om_gqa_node;

/* The shapes of one call. */
typedef struct om_gqa_geom {
  size_t B, S, H, L, P, R, G, M; /* M: rotary cache rows */
  int32_t total;
  int packed;
} om_gqa_geom;

#define OM_GQA_FAIL(...)                                                                 \
  do {                                                                                  \
    int n_ = snprintf(err, errlen, "node '%s' (op GroupQueryAttention): ", node->name); \
    if (n_ >= 0 && (size_t)n_ < errlen) snprintf(err + n_, errlen - (size_t)n_, __VA_ARGS__); \
    return -1;                                                                          \
  } while (0)

/* An integer attribute that must be `want` when given. */
static int om_gqa_fixed(const om_node* node, const char* name, int has, int64_t v, int64_t want, char* err,
                        size_t errlen) {
  if (has && v != want) OM_GQA_FAIL("attribute %s = %lld is not served (only %lld)", name, (long long)v, (long long)want);
  return 0;
}

static int om_gqa_create(om_node* node, const om_attrs* a, char* err, size_t errlen) {
  om_gqa_node* m = node->impl;
  const int* types = node->input_types;
  if (!a->has_num_heads || a->num_heads < 1 || a->num_heads > 65536)
    OM_GQA_FAIL("attribute num_heads is required, 1 to 65536");
  if (!a->has_kv_num_heads || a->kv_num_heads < 1 || a->num_heads % a->kv_num_heads != 0)
    OM_GQA_FAIL("attribute kv_num_heads is required and must divide num_heads (%lld)", (long long)a->num_heads);
  /* smooth_softmax: 1 turns it on (ORT's kernel); the schema's default, -1, which ORT fills into the node, and 0
   * leave it off */
  if (a->has_smooth_softmax && a->smooth_softmax == 1)
    OM_GQA_FAIL("attribute smooth_softmax = 1 is not served (only off)");
  if (om_gqa_fixed(node, "qk_output", a->has_qk_output, a->qk_output, 0, err, errlen) != 0 ||
      om_gqa_fixed(node, "kv_cache_bit_width", a->has_kv_cache_bit_width, a->kv_cache_bit_width, 0, err, errlen) != 0 ||
      om_gqa_fixed(node, "sliding_window_cache", a->has_sliding_window_cache, a->sliding_window_cache, 0, err,
                   errlen) != 0 ||
      om_gqa_fixed(node, "causal", a->has_causal, a->causal, 1, err, errlen) != 0)
    return -1;
  int64_t rot = a->has_do_rotary ? a->do_rotary : 0, inter = a->has_rotary_interleaved ? a->rotary_interleaved : 0;
  if (rot != 0 && rot != 1) OM_GQA_FAIL("attribute do_rotary = %lld must be 0 or 1", (long long)rot);
  if (inter != 0 && inter != 1) OM_GQA_FAIL("attribute rotary_interleaved = %lld must be 0 or 1", (long long)inter);
  m->window = a->has_local_window_size ? a->local_window_size : -1;
  if (m->window == 0 || m->window < -1)
    OM_GQA_FAIL("attribute local_window_size = %lld is not served (-1, or 1 and more)", (long long)m->window);
  m->softcap = a->has_softcap ? a->softcap : 0.0f;
  if (!(m->softcap >= 0.0f) || m->softcap > 3.4e38f)
    OM_GQA_FAIL("attribute softcap = %g is not served (0: none, or a positive finite cap)", (double)m->softcap);
  for (size_t k = 0; k < node->n_inputs; k++) {
    int t = node->input_types[k];
    if (t == 0) continue;
    if (k >= OM_GQA_SERVED) OM_GQA_FAIL("input %zu (%s) is not served", k, om_gqa_inputs[k]);
    int want = k == OM_GQA_SEQLENS || k == OM_GQA_TOTAL ? OM_T_INT32 : OM_T_FLOAT;
    if (t != want)
      OM_GQA_FAIL("input %zu (%s) of element type %s is not served (%s)", k, om_gqa_inputs[k], om_type_name(t),
                  om_type_name(want));
  }
  for (size_t k = 0; k < OM_GQA_SERVED; k++) m->present[k] = k < node->n_inputs && types[k] != 0;
  if (!m->present[OM_GQA_SEQLENS] || !m->present[OM_GQA_TOTAL])
    OM_GQA_FAIL("inputs seqlens_k and total_sequence_length are required");
  if (m->present[OM_GQA_K] != m->present[OM_GQA_V])
    OM_GQA_FAIL("inputs key and value must be both present or both absent (packed QKV)");
  if (m->present[OM_GQA_PK] != m->present[OM_GQA_PV])
    OM_GQA_FAIL("inputs past_key and past_value must be both present or both absent");
  if (m->present[OM_GQA_COS] != m->present[OM_GQA_SIN] || m->present[OM_GQA_COS] != (rot == 1))
    OM_GQA_FAIL("inputs cos_cache and sin_cache must be present exactly when do_rotary = 1 (do_rotary = %lld)",
                (long long)rot);
  m->N = (size_t)a->num_heads;
  m->KH = (size_t)a->kv_num_heads;
  m->scale = a->has_scale ? a->scale : 0.0f;
  m->rotary = (int)rot;
  m->interleaved = (int)inter;
  for (size_t o = 0; o < 3; o++) node->out_types[o] = OM_T_FLOAT;
  return 0;
}

/* Whether input k has this rank and, where want[d] >= 0, these dimensions. */
static int om_gqa_dims(const om_node* node, const om_node_io* io, size_t k, size_t rank, const int64_t* want,
                       char* err, size_t errlen) {
  if (io->ranks[k] != rank) OM_GQA_FAIL("input %s must have rank %zu, it has rank %zu", om_gqa_inputs[k], rank, io->ranks[k]);
  for (size_t d = 0; d < rank; d++)
    if (want[d] >= 0 && io->shapes[k][d] != want[d])
      OM_GQA_FAIL("input %s has dimension %zu = %lld, expected %lld", om_gqa_inputs[k], d,
                  (long long)io->shapes[k][d], (long long)want[d]);
  return 0;
}

/* The call's shapes from io (total_sequence_length's data included): 0, or -1 with a message in io->err. */
static int om_gqa_geometry(const om_node* node, const om_node_io* io, om_gqa_geom* g) {
  const om_gqa_node* m = node->impl;
  char* err = io->err;
  size_t errlen = io->errlen;
  memset(g, 0, sizeof *g);
  int present[OM_GQA_SERVED];
  for (size_t k = 0; k < OM_GQA_SERVED; k++)
    present[k] = m->present[k] && k < io->n_inputs && io->shapes[k] != NULL;
  if (io->ranks[OM_GQA_Q] != 3) OM_GQA_FAIL("input query must have rank 3, it has rank %zu", io->ranks[OM_GQA_Q]);
  const int64_t* qd = io->shapes[OM_GQA_Q];
  g->B = (size_t)qd[0];
  g->S = (size_t)qd[1];
  g->packed = !present[OM_GQA_K];
  size_t heads = g->packed ? m->N + 2 * m->KH : m->N;
  if (qd[2] % (int64_t)heads != 0)
    OM_GQA_FAIL("query's last dimension %lld is not a multiple of %zu heads", (long long)qd[2], heads);
  g->H = (size_t)qd[2] / heads;
  if (g->H == 0 || g->H % 8 != 0) OM_GQA_FAIL("head size %zu must be a positive multiple of 8", g->H);
  g->G = m->N / m->KH;
  int64_t kv[3] = {qd[0], qd[1], (int64_t)(m->KH * g->H)};
  if (!g->packed && (om_gqa_dims(node, io, OM_GQA_K, 3, kv, err, errlen) != 0 ||
                     om_gqa_dims(node, io, OM_GQA_V, 3, kv, err, errlen) != 0))
    return -1;
  if (present[OM_GQA_PK]) {
    int64_t pw[4] = {qd[0], (int64_t)m->KH, -1, (int64_t)g->H};
    if (om_gqa_dims(node, io, OM_GQA_PK, 4, pw, err, errlen) != 0) return -1;
    pw[2] = io->shapes[OM_GQA_PK][2];
    if (om_gqa_dims(node, io, OM_GQA_PV, 4, pw, err, errlen) != 0) return -1;
    g->L = (size_t)pw[2];
  }
  int64_t one[1] = {qd[0]};
  if (om_gqa_dims(node, io, OM_GQA_SEQLENS, 1, one, err, errlen) != 0) return -1;
  if (om_shape_count(io->shapes[OM_GQA_TOTAL], io->ranks[OM_GQA_TOTAL]) != 1 || io->ranks[OM_GQA_TOTAL] > 1)
    OM_GQA_FAIL("input total_sequence_length must be a scalar or one element");
  if (!io->data || !io->data[OM_GQA_TOTAL]) OM_GQA_FAIL("the output shapes need total_sequence_length's data");
  memcpy(&g->total, io->data[OM_GQA_TOTAL], sizeof g->total);
  if (g->total < 1) OM_GQA_FAIL("total_sequence_length = %d must be at least 1", (int)g->total);
  if (g->S > (size_t)g->total)
    OM_GQA_FAIL("sequence length %zu is more than total_sequence_length %d", g->S, (int)g->total);
  g->P = (size_t)g->total > g->L ? (size_t)g->total : g->L;
  if (m->rotary) {
    int64_t cw[2] = {-1, -1};
    if (om_gqa_dims(node, io, OM_GQA_COS, 2, cw, err, errlen) != 0) return -1;
    cw[0] = io->shapes[OM_GQA_COS][0];
    cw[1] = io->shapes[OM_GQA_COS][1];
    if (om_gqa_dims(node, io, OM_GQA_SIN, 2, cw, err, errlen) != 0) return -1;
    if (cw[0] < g->total)
      OM_GQA_FAIL("cos_cache has %lld positions, fewer than total_sequence_length %d", (long long)cw[0], (int)g->total);
    if (cw[1] < 8 || cw[1] % 8 != 0 || 2 * (size_t)cw[1] > g->H || g->H % 16 != 0)
      OM_GQA_FAIL("cos_cache's dimension 1 (%lld) must be a multiple of 8 and at most head size / 2, with head size "
                  "(%zu) a multiple of 16", (long long)cw[1], g->H);
    g->R = 2 * (size_t)cw[1];
    g->M = (size_t)cw[0];
  }
  return 0;
}

static int om_gqa_shapes(const om_node* node, const om_node_io* io) {
  const om_gqa_node* m = node->impl;
  om_gqa_geom g;
  if (om_gqa_geometry(node, io, &g) != 0) return -1;
  int64_t* o = io->out_shapes;
  o[0] = (int64_t)g.B;
  o[1] = (int64_t)g.S;
  o[2] = (int64_t)(m->N * g.H);
  io->out_ranks[0] = 3;
  for (size_t k = 1; k < 3 && k < io->n_outputs; k++) {
    int64_t* d = o + k * OM_MAX_RANK;
    d[0] = (int64_t)g.B;
    d[1] = (int64_t)m->KH;
    d[2] = (int64_t)g.P;
    d[3] = (int64_t)g.H;
    io->out_ranks[k] = 4;
  }
  return 0;
}

static int om_gqa_shape_input(const om_node* node, size_t k) {
  (void)node;
  return k == OM_GQA_TOTAL;
}

typedef struct om_gqa_job {
  const om_node* node;
  om_gqa_geom g;
  const float* q;  /* query (packed or not) */
  const float* kv[2]; /* key, value (NULL: packed) */
  const float* past[2];
  float* present[2];
  float* out;      /* output (B, S, N H) */
  int alias[2];    /* present is past's buffer */
  const float *cos, *sin;
  const size_t* past_len; /* per batch row: tokens already in the cache */
  float scale;
} om_gqa_job;

/* The new key (which 0) or value (1) head kvh of query row s of batch row b. */
static const float* om_gqa_new_kv(const om_gqa_job* j, size_t which, size_t b, size_t s, size_t kvh) {
  const om_gqa_node* m = j->node->impl;
  size_t row = b * j->g.S + s, H = j->g.H;
  if (j->g.packed) return j->q + (row * (m->N + 2 * m->KH) + m->N + which * m->KH + kvh) * H;
  return j->kv[which] + (row * m->KH + kvh) * H;
}

/* Phase 1: the present rows of units u = b * KH + kv head. */
static int om_gqa_fill(const void* args, size_t u0, size_t u1) {
  const om_gqa_job* j = args;
  const om_gqa_node* m = j->node->impl;
  size_t H = j->g.H, S = j->g.S, P = j->g.P, L = j->g.L;
  for (size_t u = u0; u < u1; u++) {
    size_t b = u / m->KH, kvh = u % m->KH, past = j->past_len[b];
    for (size_t which = 0; which < 2; which++) {
      float* dst = j->present[which] + u * P * H;
      if (!j->alias[which]) {
        if (past) memcpy(dst, j->past[which] + u * L * H, past * H * sizeof(float));
        memset(dst + (past + S) * H, 0, (P - past - S) * H * sizeof(float));
      }
      for (size_t s = 0; s < S; s++) {
        const float* src = om_gqa_new_kv(j, which, b, s, kvh);
        float* row = dst + (past + s) * H;
        size_t pos = past + s, half = j->g.R / 2;
        if (which == 0 && m->rotary)
          om_attn_rotary(src, row, H, j->g.R, m->interleaved, j->cos + pos * half, j->sin + pos * half);
        else
          memcpy(row, src, H * sizeof(float));
      }
    }
  }
  return 0;
}

/* Phase 2: units u = (b * S + s) * KH + kv head: that head group's outputs of query row s. */
static int om_gqa_attend(const void* args, size_t u0, size_t u1) {
  const om_gqa_job* j = args;
  const om_node* node = j->node;
  const om_gqa_node* m = node->impl;
  size_t H = j->g.H, S = j->g.S, P = j->g.P, G = j->g.G;
  float* buf = malloc((G * H + 2 * G * P) * sizeof(float));
  if (!buf) return -1;
  float *qr = buf, *d = qr + G * H, *w = d + G * P;
  int rc = 0;
  for (size_t u = u0; u < u1 && rc == 0; u++) {
    size_t kvh = u % m->KH, row = u / m->KH, b = row / S, s = row % S;
    size_t pos = j->past_len[b] + s;
    /* local_window_size W: the W most recent keys, pos - W + 1 .. pos (as ORT and HF; docs/attention.md) */
    size_t lo = m->window > 0 && pos >= (size_t)m->window ? pos - (size_t)m->window + 1 : 0, n = pos - lo + 1;
    for (size_t t = 0; t < G; t++) {
      size_t h = kvh * G + t;
      const float* src = j->q + (j->g.packed ? row * (m->N + 2 * m->KH) + h : row * m->N + h) * H;
      size_t half = j->g.R / 2;
      if (m->rotary)
        om_attn_rotary(src, qr + t * H, H, j->g.R, m->interleaved, j->cos + pos * half, j->sin + pos * half);
      else
        memcpy(qr + t * H, src, H * sizeof(float));
    }
    size_t cache = (b * m->KH + kvh) * P * H;
    om_attn_scores(node->path, qr, G, j->present[0] + cache + lo * H, n, H, d, n);
    for (size_t i = 0; i < G * n; i++) d[i] = d[i] * j->scale;
    if (m->softcap > 0.0f) om_attn_softcap(node, m->softcap, d, G * n);
    /* the G rows of n scores in one call: its kernel takes short rows 16 at a time, each row its own sequence */
    rc = om_softmax(node->path, OM_T_FLOAT, node->mode, 0, G, n, 1, 0, G, d, w);
    float* o = j->out + (row * m->N + kvh * G) * H;
    om_attn_values(node->path, w, n, G, j->present[1] + cache + lo * H, n, H, o);
    om_attn_canon(o, G * H);
  }
  free(buf);
  return rc;
}

static int om_gqa_run(const om_node* node, const om_node_io* io) {
  const om_gqa_node* m = node->impl;
  char* err = io->err;
  size_t errlen = io->errlen;
  om_gqa_job j;
  memset(&j, 0, sizeof j);
  j.node = node;
  if (om_gqa_geometry(node, io, &j.g) != 0) return -1;
  size_t B = j.g.B, S = j.g.S, P = j.g.P, H = j.g.H;
  if (B == 0 || S == 0) return 0;
  int first = S == (size_t)j.g.total;
  if (!first && S != 1 && B != 1)
    OM_GQA_FAIL("a later prompt chunk (sequence length %zu, total %d) needs batch size 1, not %zu", S,
                (int)j.g.total, B);
  const int32_t* seqlens = io->data[OM_GQA_SEQLENS];
  size_t* past_len = malloc(B * sizeof(size_t));
  if (!past_len) OM_GQA_FAIL("out of memory");
  for (size_t b = 0; b < B; b++) {
    int64_t t = (int64_t)seqlens[b] + 1;
    const char* why = NULL;
    if (t < 1) why = "is negative";
    else if (first && (size_t)t > S) why = "is more than the prompt's sequence length";
    else if (!first && ((size_t)t < S || (size_t)t > P)) why = "does not leave room for the new tokens in the cache";
    else if (!first && j.g.L > 0 && (size_t)t - S > j.g.L) why = "claims more past tokens than past_key holds";
    else if (!first && j.g.L == 0 && (size_t)t != S) why = "claims past tokens but past_key is absent";
    else if (m->rotary && !first && (size_t)t > j.g.M) /* a first prompt's positions are below S <= M */
      why = "puts a position past cos_cache's rows";
    if (why) {
      free(past_len);
      OM_GQA_FAIL("seqlens_k[%zu] = %d %s (sequence length %zu, total_sequence_length %d, past length %zu)", b,
                  (int)seqlens[b], why, S, (int)j.g.total, j.g.L);
    }
    past_len[b] = first ? 0 : (size_t)t - S;
  }
  j.past_len = past_len;
  j.q = io->data[OM_GQA_Q];
  j.kv[0] = j.g.packed ? NULL : io->data[OM_GQA_K];
  j.kv[1] = j.g.packed ? NULL : io->data[OM_GQA_V];
  j.past[0] = j.g.L ? io->data[OM_GQA_PK] : NULL;
  j.past[1] = j.g.L ? io->data[OM_GQA_PV] : NULL;
  j.cos = m->rotary ? io->data[OM_GQA_COS] : NULL;
  j.sin = m->rotary ? io->data[OM_GQA_SIN] : NULL;
  j.scale = m->scale != 0.0f ? m->scale : 1.0f / __builtin_sqrtf((float)H);
  size_t cache = B * m->KH * P * H;
  float* scratch[2] = {NULL, NULL};
  int rc = 0;
  for (size_t k = 0; k < 2; k++) {
    float* out = io->n_outputs > 1 + k ? io->outs[1 + k] : NULL;
    if (!out) out = scratch[k] = malloc(cache * sizeof(float));
    if (!out) rc = -1;
    j.present[k] = out;
    j.alias[k] = j.past[k] != NULL && (const float*)out == j.past[k];
  }
  j.out = io->outs[0];
  if (rc == 0) rc = om_parallel_ranges(io->parallel_for, io->host_ctx, B * m->KH, 1, om_gqa_fill, &j);
  if (rc == 0 && io->outs[0])
    rc = om_parallel_ranges(io->parallel_for, io->host_ctx, B * S * m->KH, 1, om_gqa_attend, &j);
  free(scratch[0]);
  free(scratch[1]);
  free(past_len);
  if (rc != 0) OM_GQA_FAIL("out of memory");
  return 0;
}

const om_family om_family_gqa = {.state_size = sizeof(om_gqa_node),
                                 .create = om_gqa_create,
                                 .shapes = om_gqa_shapes,
                                 .run = om_gqa_run,
                                 .shape_input = om_gqa_shape_input};
