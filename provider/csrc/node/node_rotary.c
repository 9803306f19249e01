/* node_rotary.c - RotaryEmbedding, ONNX's (opset 23: X, cos_cache, sin_cache, optional position_ids) and
 * com.microsoft's (input, position_ids, cos_cache, sin_cache): each head of X rotated at its token's position by
 * GroupQueryAttention's rotary kernel (attention/attn.h, om_attn_rotary), whose arithmetic docs/attention.md
 * ("Rotary") and docs/transformer-ops.md state. f32 only.
 *
 * X is (B, S, N * H) or (B, N, S, H); either way each head of each token is a contiguous run of H elements, so the
 * work is the B * S * N runs in memory order, in fixed blocks of runs on the host's threads (no result depends on
 * the split). The position of token (b, s): position_ids[b][s] (a (B, S) tensor), or position_ids[0] + s
 * (com.microsoft's one-element form); the cache row is that position's. ONNX without position_ids: caches of shape
 * (B, S, R / 2), row (b, s). A position outside the cache is an error naming the node, never a read past it.
 */
#include <stdio.h>
#include <string.h>

#include "attention/attn.h"
#include "core/om_ops.h"
#include "node_family.h"
#include "parallel.h"

/* Elements a parallel block of head runs covers, at least (one run at least). */
#define OM_ROPE_BLOCK ((size_t)1 << 14)

typedef struct om_rope_node {
  int ms;             /* com.microsoft's input order and position forms */
  int interleaved;
  int64_t num_heads;  /* 0: not given */
  int64_t rot_dim;    /* 0: the whole head */
  int in_x, in_pos, in_cos, in_sin; /* input indices; in_pos -1 when absent */
} om_rope_node;

#define OM_ROPE_FAIL(...)                                                                                  \
  do {                                                                                                     \
    int n_ = snprintf(err, errlen, "node '%s' (op %s): ", node->name, om_op_row(node->op)->key);           \
    if (n_ >= 0 && (size_t)n_ < errlen) snprintf(err + n_, errlen - (size_t)n_, __VA_ARGS__);               \
    return -1;                                                                                             \
  } while (0)

static int om_rope_create(om_node* node, const om_attrs* a, char* err, size_t errlen) {
  om_rope_node* r = node->impl;
  r->ms = node->op == OM_OP_MS_ROTARY_EMBEDDING;
  r->in_x = 0;
  r->in_pos = r->ms ? 1 : (node->n_inputs > 3 && node->input_types[3] != 0 ? 3 : -1);
  r->in_cos = r->ms ? 2 : 1;
  r->in_sin = r->ms ? 3 : 2;
  int64_t inter = a->has_interleaved ? a->interleaved : 0;
  if (inter != 0 && inter != 1) OM_ROPE_FAIL("attribute interleaved = %lld must be 0 or 1", (long long)inter);
  r->interleaved = (int)inter;
  r->num_heads = a->has_num_heads ? a->num_heads : 0;
  r->rot_dim = a->has_rotary_embedding_dim ? a->rotary_embedding_dim : 0;
  if (r->num_heads < 0) OM_ROPE_FAIL("attribute num_heads = %lld must not be negative", (long long)r->num_heads);
  if (r->rot_dim < 0 || r->rot_dim % 2)
    OM_ROPE_FAIL("attribute rotary_embedding_dim = %lld must be even and not negative", (long long)r->rot_dim);
  if (r->rot_dim > 0 && r->num_heads == 0)
    OM_ROPE_FAIL("attribute num_heads must be given with rotary_embedding_dim (%lld)", (long long)r->rot_dim);
  if (r->ms && a->has_is_packed_batching && a->is_packed_batching != 0)
    OM_ROPE_FAIL("attribute is_packed_batching = %lld is not served (only 0)", (long long)a->is_packed_batching);
  for (size_t k = 0; k < node->n_inputs; k++) {
    int t = node->input_types[k], want = (int)k == r->in_pos ? OM_T_INT64 : OM_T_FLOAT;
    if ((int)k == 3 && r->in_pos < 0) continue;
    if (t != want)
      OM_ROPE_FAIL("input %zu has element type %s; it must be %s", k, om_type_name(t), om_type_name(want));
  }
  node->out_types[0] = OM_T_FLOAT;
  return 0;
}

static int om_rope_check_ranks(const om_node* node, size_t n_inputs, const size_t* ranks, char* err, size_t errlen) {
  const om_rope_node* r = node->impl;
  (void)n_inputs;
  size_t rx = ranks[r->in_x], rc = ranks[r->in_cos], rs = ranks[r->in_sin];
  size_t want_cache = r->in_pos < 0 ? 3 : 2;
  if (rx != OM_RANK_UNKNOWN && rx != 3 && rx != 4) OM_ROPE_FAIL("input %d has rank %zu; it must be 3 or 4", r->in_x, rx);
  if (rx == 3 && !r->ms && r->num_heads == 0)
    OM_ROPE_FAIL("a rank-3 input needs attribute num_heads (its last dimension is num_heads * head size)");
  if (rc != OM_RANK_UNKNOWN && rc != want_cache)
    OM_ROPE_FAIL("input %d (cos_cache) has rank %zu; it must be %zu", r->in_cos, rc, want_cache);
  if (rs != OM_RANK_UNKNOWN && rs != want_cache)
    OM_ROPE_FAIL("input %d (sin_cache) has rank %zu; it must be %zu", r->in_sin, rs, want_cache);
  if (r->in_pos >= 0 && ranks[r->in_pos] != OM_RANK_UNKNOWN && ranks[r->in_pos] != 2 && !(r->ms && ranks[r->in_pos] <= 1))
    OM_ROPE_FAIL("input %d (position_ids) has rank %zu; it must be 2%s", r->in_pos, ranks[r->in_pos],
                 r->ms ? " (batch, sequence), or one element" : " (batch, sequence)");
  return 0;
}

/* The shapes of one call. */
typedef struct om_rope_geom {
  size_t B, S, N, H, R, M; /* M: cache rows (ONNX without position_ids: B * S) */
  int bnsh;
  int pos_one;             /* com.microsoft: one position, the first token's */
} om_rope_geom;

static int om_rope_geom_of(const om_node* node, const om_node_io* io, om_rope_geom* g) {
  const om_rope_node* r = node->impl;
  char* err = io->err;
  size_t errlen = io->errlen;
  size_t ranks[4] = {0, 0, 0, 0};
  for (size_t k = 0; k < io->n_inputs && k < 4; k++) ranks[k] = io->ranks[k]; /* a scalar's shape may be NULL */
  if (om_rope_check_ranks(node, io->n_inputs, ranks, err, errlen) != 0) return -1;
  const int64_t* x = io->shapes[r->in_x];
  const int64_t* c = io->shapes[r->in_cos];
  const int64_t* s = io->shapes[r->in_sin];
  size_t rc = io->ranks[r->in_cos];
  memset(g, 0, sizeof *g);
  g->bnsh = io->ranks[r->in_x] == 4;
  g->B = (size_t)x[0];
  g->S = (size_t)(g->bnsh ? x[2] : x[1]);
  for (size_t d = 0; d < rc; d++)
    if (c[d] != s[d]) OM_ROPE_FAIL("cos_cache and sin_cache must have the same shape");
  size_t half = (size_t)c[rc - 1];
  if (g->bnsh) {
    g->N = (size_t)x[1];
    g->H = (size_t)x[3];
  } else {
    size_t hidden = (size_t)x[2];
    size_t H = r->num_heads ? hidden / (size_t)r->num_heads : 2 * half;
    if (H == 0 || hidden % H || (r->num_heads && hidden != H * (size_t)r->num_heads))
      OM_ROPE_FAIL("input %d's last dimension %zu is not a whole number of heads (%s %lld)", r->in_x, hidden,
                   r->num_heads ? "num_heads" : "head size 2 * cache width",
                   (long long)(r->num_heads ? r->num_heads : (int64_t)(2 * half)));
    g->H = H;
    g->N = hidden / H;
  }
  g->R = r->rot_dim ? (size_t)r->rot_dim : g->H;
  if (g->R > g->H) OM_ROPE_FAIL("rotary_embedding_dim %zu is larger than the head size %zu", g->R, g->H);
  if (g->R % 2) OM_ROPE_FAIL("the head size %zu is odd; rotary needs an even rotary dimension", g->R);
  if (half != g->R / 2)
    OM_ROPE_FAIL("cos_cache's last dimension is %zu; it must be rotary dimension / 2 = %zu", half, g->R / 2);
  if (r->in_pos < 0) {
    if ((size_t)c[0] != g->B || (size_t)c[1] != g->S)
      OM_ROPE_FAIL("without position_ids, cos_cache must have shape (batch %zu, sequence %zu, %zu), not (%lld, %lld, "
                   "%zu)", g->B, g->S, half, (long long)c[0], (long long)c[1], half);
    g->M = g->B * g->S;
    return 0;
  }
  g->M = (size_t)c[0];
  const int64_t* p = io->shapes[r->in_pos];
  size_t rp = io->ranks[r->in_pos];
  if (rp <= 1 && om_shape_count(p, rp) != 1)
    OM_ROPE_FAIL("position_ids of rank %zu must hold one element", rp);
  g->pos_one = rp <= 1;
  if (rp == 2 && ((size_t)p[0] != g->B || (size_t)p[1] != g->S))
    OM_ROPE_FAIL("position_ids has shape (%lld, %lld); it must be (batch %zu, sequence %zu)", (long long)p[0],
                 (long long)p[1], g->B, g->S);
  return 0;
}

static int om_rope_shapes(const om_node* node, const om_node_io* io) {
  const om_rope_node* r = node->impl;
  om_rope_geom g;
  if (om_rope_geom_of(node, io, &g) != 0) return -1;
  memcpy(io->out_shapes, io->shapes[r->in_x], io->ranks[r->in_x] * sizeof(int64_t));
  io->out_ranks[0] = io->ranks[r->in_x];
  return 0;
}

typedef struct om_rope_task {
  om_rope_geom g;
  int interleaved;
  const float* x;
  const float* cos;
  const float* sin;
  const int64_t* pos; /* NULL: row b * S + s */
  float* y;
} om_rope_task;

/* The cache row of token (b, s) (checked before the run). */
static size_t om_rope_row(const om_rope_task* t, size_t b, size_t s) {
  if (!t->pos) return b * t->g.S + s;
  return t->g.pos_one ? (size_t)(t->pos[0] + (int64_t)s) : (size_t)t->pos[b * t->g.S + s];
}

static int om_rope_range(const void* vt, size_t begin, size_t end) {
  const om_rope_task* t = vt;
  const om_rope_geom* g = &t->g;
  size_t half = g->R / 2;
  for (size_t u = begin; u < end; u++) { /* u: the head run in memory order */
    size_t b, s;
    if (g->bnsh) {
      b = u / (g->N * g->S);
      s = u % g->S;
    } else {
      b = u / (g->S * g->N);
      s = (u / g->N) % g->S;
    }
    size_t row = om_rope_row(t, b, s);
    om_attn_rotary(t->x + u * g->H, t->y + u * g->H, g->H, g->R, t->interleaved, t->cos + row * half,
                   t->sin + row * half);
  }
  return 0;
}

static int om_rope_run(const om_node* node, const om_node_io* io) {
  const om_rope_node* r = node->impl;
  char* err = io->err;
  size_t errlen = io->errlen;
  om_rope_task t;
  if (om_rope_geom_of(node, io, &t.g) != 0) return -1;
  size_t units = t.g.B * t.g.S * t.g.N;
  if (!units || !t.g.H || !io->outs[0]) return 0;
  t.interleaved = r->interleaved;
  t.x = io->data[r->in_x];
  t.cos = io->data[r->in_cos];
  t.sin = io->data[r->in_sin];
  t.pos = r->in_pos >= 0 ? io->data[r->in_pos] : NULL;
  t.y = io->outs[0];
  if (t.g.R && (!t.cos || !t.sin || (r->in_pos >= 0 && !t.pos))) OM_ROPE_FAIL("an input has no data");
  for (size_t b = 0; t.pos && b < t.g.B; b++)
    for (size_t s = 0; s < t.g.S; s++) {
      int64_t p0 = t.g.pos_one ? t.pos[0] : t.pos[b * t.g.S + s];
      int64_t p = t.g.pos_one ? (p0 > INT64_MAX - (int64_t)s ? -1 : p0 + (int64_t)s) : p0;
      if (p < 0 || (uint64_t)p >= t.g.M)
        OM_ROPE_FAIL("position_ids gives token %zu of batch row %zu the position %lld%s, outside cos_cache's %zu rows",
                     s, b, (long long)p0, t.g.pos_one ? " + token" : "", t.g.M);
    }
  size_t block = t.g.H >= OM_ROPE_BLOCK ? 1 : OM_ROPE_BLOCK / t.g.H;
  return om_parallel_ranges(io->parallel_for, io->host_ctx, units, block, om_rope_range, &t);
}

const om_family om_family_rotary = {sizeof(om_rope_node), om_rope_create, om_rope_shapes, om_rope_run, NULL, NULL,
                                    NULL, om_rope_check_ranks};
