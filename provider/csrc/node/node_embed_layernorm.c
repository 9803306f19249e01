/* node_embed_layernorm.c - com.microsoft EmbedLayerNormalization nodes (what ONNX Runtime's transformer optimiser
 * writes for BERT's embeddings), docs/transformer-ops.md: for each token, the word, position and segment embedding
 * rows summed (reduce/'s om_skip_add: (word + position) + segment, each add rounded), then LayerNormalization of
 * that row (reduce/'s om_layernorm, the arithmetic of node_layernorm.c) with gamma and beta.
 *
 * Inputs: input_ids (int32 [B, S]), segment_ids (int32 [B, S], optional), word_embedding (f32 [V, H]),
 * position_embedding (f32 [P, H]), segment_embedding (f32 [G, H], optional, present exactly when segment_ids is),
 * gamma, beta (f32 [H]), mask (int32 [B, S], optional), position_ids (int32 [B, S] or [1, S], optional: without
 * it token s of a sequence takes position s). Outputs: output (f32 [B, S, H]), mask_index (int32 [B]: the count
 * of mask elements equal to 1 in each batch row, stock ORT's count; all 0 without mask), embedding_sum (f32
 * [B, S, H], the sums before normalisation). An id out of its table's range fails the run with a message naming
 * node, op, input, element and value (the first one in row-major order). Tokens are split over threads in fixed
 * chunks; each token's arithmetic is the same whatever the split.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "broadcast.h"
#include "node_family.h"
#include "parallel.h"
#include "core/om_ops.h"
#include "reduce/reduce.h"

/* Elements per parallel chunk, as LayerNormalization's (node_layernorm.c). */
#define OM_ELN_CHUNK_ELEMS ((size_t)1 << 15)

enum { OM_ELN_IDS, OM_ELN_SEG_IDS, OM_ELN_WORD, OM_ELN_POS, OM_ELN_SEG, OM_ELN_GAMMA, OM_ELN_BETA, OM_ELN_MASK,
       OM_ELN_POS_IDS, OM_ELN_INPUTS };

static const char* const om_eln_inputs[OM_ELN_INPUTS] = {
    "input_ids", "segment_ids", "word_embedding", "position_embedding", "segment_embedding", "gamma", "beta", "mask",
    "position_ids"};

/* Each input's element type and rank. */
static const int om_eln_types[OM_ELN_INPUTS] = {OM_T_INT32, OM_T_INT32, OM_T_FLOAT, OM_T_FLOAT, OM_T_FLOAT,
                                                OM_T_FLOAT, OM_T_FLOAT, OM_T_INT32, OM_T_INT32};
static const size_t om_eln_ranks[OM_ELN_INPUTS] = {2, 2, 2, 2, 2, 1, 1, 2, 2};

typedef struct om_eln_node {
  float epsilon;
} om_eln_node;

#define OM_ELN_FAIL(...)                                                                         \
  do {                                                                                           \
    int n_ = snprintf(err, errlen, "node '%s' (op EmbedLayerNormalization): ", node->name);      \
    if (n_ >= 0 && (size_t)n_ < errlen) snprintf(err + n_, errlen - (size_t)n_, __VA_ARGS__);   \
    return -1;                                                                                   \
  } while (0)

static int om_eln_create(om_node* node, const om_attrs* a, char* err, size_t errlen) {
  om_eln_node* e = node->impl;
  const int* types = node->input_types;
  e->epsilon = a->has_epsilon ? a->epsilon : 1e-12f; /* ORT's kDefaultEmbedLayerNormEpsilon */
  if (!(e->epsilon >= 0.0f)) OM_ELN_FAIL("attribute epsilon = %g must be at least 0", (double)e->epsilon);
  if (a->has_mask_index_type && a->mask_index_type != 0 && a->mask_index_type != 1)
    OM_ELN_FAIL("attribute mask_index_type = %lld is not served (0 or 1)", (long long)a->mask_index_type);
  for (size_t k = 0; k < node->n_inputs && k < OM_ELN_INPUTS; k++)
    if (types[k] && types[k] != om_eln_types[k])
      OM_ELN_FAIL("input %s has type %s; it must be %s", om_eln_inputs[k], om_type_name(types[k]),
                  om_type_name(om_eln_types[k]));
  for (size_t k = OM_ELN_WORD; k <= OM_ELN_BETA; k++)
    if (k != OM_ELN_SEG && (k >= node->n_inputs || !types[k])) OM_ELN_FAIL("input %s is required", om_eln_inputs[k]);
  int seg_ids = node->n_inputs > OM_ELN_SEG_IDS && types[OM_ELN_SEG_IDS];
  int seg = node->n_inputs > OM_ELN_SEG && types[OM_ELN_SEG];
  if (seg_ids != seg) OM_ELN_FAIL("segment_ids and segment_embedding must be both present or both absent");
  node->out_types[0] = OM_T_FLOAT;
  if (node->n_outputs > 1) node->out_types[1] = OM_T_INT32;
  if (node->n_outputs > 2) node->out_types[2] = OM_T_FLOAT;
  return 0;
}

/* The shapes of one call. */
typedef struct om_eln_geom {
  size_t B, S, H, V, P, G;
  size_t pos_rows; /* position_ids' rows: 1 or B; 0 without position_ids */
} om_eln_geom;

static int om_eln_present(const om_node_io* io, size_t k) { return k < io->n_inputs && io->shapes[k]; }

/* Every present input's shape against input_ids' [B, S] and word_embedding's hidden size H; 0, or -1 with a
 * message. */
static int om_eln_geometry(const om_node* node, const om_node_io* io, om_eln_geom* g) {
  char* err = io->err;
  size_t errlen = io->errlen;
  char sx[200];
  for (size_t k = 0; k < io->n_inputs && k < OM_ELN_INPUTS; k++) {
    if (!om_eln_present(io, k) || io->ranks[k] == om_eln_ranks[k]) continue;
    om_shape_text(io->shapes[k], io->ranks[k], sx, sizeof sx);
    OM_ELN_FAIL("%s %s must have rank %zu", om_eln_inputs[k], sx, om_eln_ranks[k]);
  }
  const int64_t *ids = io->shapes[OM_ELN_IDS], *word = io->shapes[OM_ELN_WORD];
  memset(g, 0, sizeof *g);
  g->B = (size_t)ids[0];
  g->S = (size_t)ids[1];
  g->V = (size_t)word[0];
  g->H = (size_t)word[1];
  g->P = (size_t)io->shapes[OM_ELN_POS][0];
  for (size_t k = 0; k < io->n_inputs && k < OM_ELN_INPUTS; k++) {
    if (!om_eln_present(io, k)) continue;
    const int64_t* s = io->shapes[k];
    int ok = 1;
    if (k == OM_ELN_SEG_IDS || k == OM_ELN_MASK) ok = s[0] == ids[0] && s[1] == ids[1];
    if (k == OM_ELN_POS_IDS) ok = (s[0] == ids[0] || s[0] == 1) && s[1] == ids[1];
    if (k == OM_ELN_POS || k == OM_ELN_SEG) ok = s[1] == word[1];
    if (k == OM_ELN_GAMMA || k == OM_ELN_BETA) ok = s[0] == word[1];
    if (ok) continue;
    om_shape_text(s, io->ranks[k], sx, sizeof sx);
    if (k == OM_ELN_POS || k == OM_ELN_SEG || k == OM_ELN_GAMMA || k == OM_ELN_BETA)
      OM_ELN_FAIL("%s %s does not fit the hidden size %lld (word_embedding's second dimension)", om_eln_inputs[k], sx,
                  (long long)word[1]);
    OM_ELN_FAIL("%s %s does not fit input_ids [%lld, %lld]%s", om_eln_inputs[k], sx, (long long)ids[0],
                (long long)ids[1], k == OM_ELN_POS_IDS ? " (it must be [batch, sequence] or [1, sequence])" : "");
  }
  if (om_eln_present(io, OM_ELN_SEG)) g->G = (size_t)io->shapes[OM_ELN_SEG][0];
  if (om_eln_present(io, OM_ELN_POS_IDS)) g->pos_rows = (size_t)io->shapes[OM_ELN_POS_IDS][0];
  return 0;
}

static int om_eln_shapes(const om_node* node, const om_node_io* io) {
  om_eln_geom g;
  if (om_eln_geometry(node, io, &g) != 0) return -1;
  for (size_t o = 0; o < io->n_outputs; o++) {
    int64_t* s = io->out_shapes + o * OM_MAX_RANK;
    if (o == 1) {
      s[0] = (int64_t)g.B;
      io->out_ranks[o] = 1;
      continue;
    }
    s[0] = (int64_t)g.B;
    s[1] = (int64_t)g.S;
    s[2] = (int64_t)g.H;
    io->out_ranks[o] = 3;
  }
  return 0;
}

typedef struct om_eln_job {
  const om_node* node;
  size_t H;
  const int32_t *ids, *seg_ids, *pos_ids;
  size_t S, pos_rows;
  const float *word, *pos, *seg, *gamma, *beta;
  float *sum, *y;
} om_eln_job;

/* The position of token r (batch row r / S, sequence position r % S). */
static size_t om_eln_position(const om_eln_job* j, size_t r) {
  if (!j->pos_ids) return r % j->S;
  return (size_t)j->pos_ids[j->pos_rows == 1 ? r % j->S : r];
}

/* Tokens [b, e): their embedding sums, then their normalisation. */
static int om_eln_rows(const void* args, size_t b, size_t e) {
  const om_eln_job* j = args;
  const om_node* node = j->node;
  const om_eln_node* l = node->impl;
  size_t H = j->H;
  for (size_t r = b; r < e; r++) {
    const float* w = j->word + (size_t)j->ids[r] * H;
    const float* p = j->pos + om_eln_position(j, r) * H;
    const float* s = j->seg ? j->seg + (size_t)j->seg_ids[r] * H : NULL;
    if (om_skip_add(OM_T_FLOAT, node->mode, H, 0, 1, w, p, 1, s, j->sum + r * H) != 0) return -1;
  }
  return om_layernorm(node->path, OM_T_FLOAT, node->mode, 0, H, b, e, j->sum, j->gamma, j->beta, l->epsilon, j->y,
                      NULL, NULL);
}

/* The n ids of `ids` (input k) against a table of `rows` rows (input `table`); 0, or -1 naming the first out of
 * range. */
static int om_eln_check_ids(const om_node* node, const int32_t* ids, size_t n, size_t k, size_t rows, size_t table,
                            char* err, size_t errlen) {
  for (size_t i = 0; i < n; i++)
    if (ids[i] < 0 || (size_t)ids[i] >= rows)
      OM_ELN_FAIL("%s value %d (element %zu) is out of range for %s of %zu rows (allowed: 0 to %zu)",
                  om_eln_inputs[k], (int)ids[i], i, om_eln_inputs[table], rows, rows ? rows - 1 : 0);
  return 0;
}

static int om_eln_run(const om_node* node, const om_node_io* io) {
  char* err = io->err;
  size_t errlen = io->errlen;
  om_eln_geom g;
  if (om_eln_geometry(node, io, &g) != 0) return -1;
  size_t tokens = g.B * g.S;
  om_eln_job j = {.node = node, .H = g.H, .S = g.S, .pos_rows = g.pos_rows};
  j.ids = io->data[OM_ELN_IDS];
  j.word = io->data[OM_ELN_WORD];
  j.pos = io->data[OM_ELN_POS];
  j.gamma = io->data[OM_ELN_GAMMA];
  j.beta = io->data[OM_ELN_BETA];
  j.y = io->outs[0];
  if (om_eln_present(io, OM_ELN_SEG)) {
    j.seg = io->data[OM_ELN_SEG];
    j.seg_ids = io->data[OM_ELN_SEG_IDS];
  }
  if (om_eln_present(io, OM_ELN_POS_IDS)) j.pos_ids = io->data[OM_ELN_POS_IDS];
  if (io->n_outputs > 1 && io->outs[1]) { /* mask_index: stock ORT counts the elements equal to 1 */
    int32_t* mi = io->outs[1];
    const int32_t* mask = om_eln_present(io, OM_ELN_MASK) ? io->data[OM_ELN_MASK] : NULL;
    for (size_t b = 0; b < g.B; b++) {
      int32_t c = 0;
      for (size_t s = 0; mask && s < g.S; s++) c += mask[b * g.S + s] == 1;
      mi[b] = c;
    }
  }
  if (tokens == 0) return 0;
  if (om_eln_check_ids(node, j.ids, tokens, OM_ELN_IDS, g.V, OM_ELN_WORD, err, errlen) != 0) return -1;
  if (j.seg && om_eln_check_ids(node, j.seg_ids, tokens, OM_ELN_SEG_IDS, g.G, OM_ELN_SEG, err, errlen) != 0)
    return -1;
  if (j.pos_ids && om_eln_check_ids(node, j.pos_ids, g.pos_rows * g.S, OM_ELN_POS_IDS, g.P, OM_ELN_POS, err,
                                    errlen) != 0)
    return -1;
  if (!j.pos_ids && g.S > g.P)
    OM_ELN_FAIL("sequence length %zu exceeds position_embedding's %zu rows (no position_ids: token s takes position "
                "s)", g.S, g.P);
  if (g.H == 0) return 0;
  float* owned = NULL;
  j.sum = io->n_outputs > 2 ? io->outs[2] : NULL;
  if (!j.sum && !(j.sum = owned = malloc(tokens * g.H * sizeof(float))))
    OM_ELN_FAIL("out of memory");
  size_t chunk = OM_ELN_CHUNK_ELEMS / g.H;
  int rc = om_parallel_ranges(io->parallel_for, io->host_ctx, tokens, chunk ? chunk : 1, om_eln_rows, &j);
  free(owned);
  if (rc != 0) OM_ELN_FAIL("out of memory");
  return 0;
}

/* At creation: each input's declared rank. */
static int om_eln_check_ranks(const om_node* node, size_t n_inputs, const size_t* ranks, char* err, size_t errlen) {
  for (size_t k = 0; k < n_inputs && k < OM_ELN_INPUTS; k++)
    if (ranks[k] != OM_RANK_UNKNOWN && ranks[k] != om_eln_ranks[k])
      OM_ELN_FAIL("%s has rank %zu; it must have rank %zu", om_eln_inputs[k], ranks[k], om_eln_ranks[k]);
  return 0;
}

const om_family om_family_embed_layernorm = {.state_size = sizeof(om_eln_node), .create = om_eln_create,
                                             .shapes = om_eln_shapes, .run = om_eln_run,
                                             .check_ranks = om_eln_check_ranks};
