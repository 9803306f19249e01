/* node_depth_space.c - DepthToSpace (DCR or CRD) and SpaceToDepth on a rank-4 input, N x C x H x W, with block
 * size b (docs/data-movement.md). DepthToSpace: each output row (n, c, h * b + i) is the b input rows
 * (n, channel(i, j, c), h), j < b, interleaved element by element; SpaceToDepth: each input row (n, c, h * b + i)
 * is dealt out, element w * b + j to output row (n, (i * b + j) * C + c, h). Rows in fixed chunks on the host's
 * threads. Nothing is computed on the elements.
 */
#include <stdio.h>
#include <string.h>

#include "core/om_ops.h"
#include "movement.h"
#include "node_family.h"
#include "parallel.h"

/* Elements a parallel chunk of rows moves, at least (one row at least). */
#define OM_DS_CHUNK_ELEMENTS ((size_t)1 << 16)

typedef struct om_depth_space_node {
  int64_t b;
  int crd; /* DepthToSpace mode CRD (else DCR) */
} om_depth_space_node;

static int om_ds_create(om_node* node, const om_attrs* a, char* err, size_t errlen) {
  om_depth_space_node* s = node->impl;
  const char* opn = om_op_row(node->op)->name;
  if (!a->has_blocksize) OM_FAIL_MSG("node '%s' (op %s): attribute 'blocksize' is required", node->name, opn);
  if (a->blocksize < 1)
    OM_FAIL_MSG("node '%s' (op %s): blocksize %lld must be 1 or more", node->name, opn, (long long)a->blocksize);
  s->b = a->blocksize;
  if (node->op == OM_OP_DEPTH_TO_SPACE && a->has_depth_mode) {
    if (node->opset > 0 && node->opset < 11)
      OM_FAIL_MSG("node '%s' (op %s): attribute 'mode' is not in opset %d (from 11)", node->name, opn, node->opset);
    if (a->depth_mode != 0 && a->depth_mode != 1)
      OM_FAIL_MSG("node '%s' (op %s): attribute 'mode' must be \"DCR\" or \"CRD\"", node->name, opn);
    s->crd = a->depth_mode == 1;
  }
  return 0;
}

static int om_ds_rank(const om_node* node, size_t rank, char* err, size_t errlen) {
  if (rank == 4) return 0;
  OM_FAIL_MSG("node '%s' (op %s): input 0 has rank %zu; %s needs rank 4 (N, C, H, W)", node->name,
              om_op_row(node->op)->name, rank, om_op_row(node->op)->name);
}

static int om_ds_check_ranks(const om_node* node, size_t n_inputs, const size_t* ranks, char* err, size_t errlen) {
  (void)n_inputs;
  return ranks[0] == OM_RANK_UNKNOWN ? 0 : om_ds_rank(node, ranks[0], err, errlen);
}

static int om_ds_shapes(const om_node* node, const om_node_io* io) {
  const om_depth_space_node* s = node->impl;
  const char* opn = om_op_row(node->op)->name;
  char* err = io->err;
  size_t errlen = io->errlen;
  if (om_ds_rank(node, io->ranks[0], err, errlen) != 0) return -1;
  const int64_t* x = io->shapes[0];
  int64_t b = s->b,* y = io->out_shapes;
  y[0] = x[0];
  if (node->op == OM_OP_DEPTH_TO_SPACE) {
    if (b > INT64_MAX / b || x[1] % (b * b) != 0)
      OM_FAIL_MSG("node '%s' (op %s): C = %lld is not a multiple of blocksize * blocksize (blocksize %lld)", node->name,
                  opn, (long long)x[1], (long long)b);
    if (x[2] > INT64_MAX / b || x[3] > INT64_MAX / b)
      OM_FAIL_MSG("node '%s' (op %s): H or W times blocksize %lld exceeds 2^63 - 1", node->name, opn, (long long)b);
    y[1] = x[1] / (b * b);
    y[2] = x[2] * b;
    y[3] = x[3] * b;
  } else {
    if (x[2] % b != 0 || x[3] % b != 0)
      OM_FAIL_MSG("node '%s' (op %s): H = %lld and W = %lld must be multiples of blocksize %lld", node->name, opn,
                  (long long)x[2], (long long)x[3], (long long)b);
    if (x[1] > INT64_MAX / b || (b > 1 && x[1] * b > INT64_MAX / b))
      OM_FAIL_MSG("node '%s' (op %s): C times blocksize^2 exceeds 2^63 - 1 (blocksize %lld)", node->name, opn,
                  (long long)b);
    y[1] = x[1] * b * b;
    y[2] = x[2] / b;
    y[3] = x[3] / b;
  }
  io->out_ranks[0] = 4;
  return 0;
}

typedef struct om_d2s_task {
  const char* src;
  char* dst;
  size_t esz, b, cq, h, w; /* block size, output channels C', input H and W */
  int crd;
} om_d2s_task;

/* dst[w * b + j] = rows[j][w] for w < W, j < b, elements of type T. */
#define OM_D2S_ROW(T)                                                  \
  do {                                                                 \
    T* d = (T*)dst;                                                    \
    for (size_t j = 0; j < t->b; j++) {                                \
      const T* s = (const T*)rows[j];                                  \
      for (size_t x = 0; x < t->w; x++) d[x * t->b + j] = s[x];        \
    }                                                                  \
  } while (0)

/* Output rows [begin, end), row g = ((n * C' + c) * H + h) * b + i. */
static int om_d2s_rows(const void* args, size_t begin, size_t end) {
  const om_d2s_task* t = args;
  const char* rows[64];
  size_t bb = t->b * t->b, plane = t->h * t->w * t->esz, orow = t->w * t->b * t->esz;
  for (size_t g = begin; g < end; g++) {
    size_t i = g % t->b, h = g / t->b % t->h, c = g / t->b / t->h % t->cq, n = g / t->b / t->h / t->cq;
    const char* base = t->src + n * bb * t->cq * plane + h * t->w * t->esz;
    char* dst = t->dst + g * orow;
    if (t->b > 64) { /* a wide block: one element at a time */
      for (size_t x = 0; x < t->w * t->b; x++) {
        size_t j = x % t->b, ch = t->crd ? c * bb + i * t->b + j : (i * t->b + j) * t->cq + c;
        memcpy(dst + x * t->esz, base + ch * plane + x / t->b * t->esz, t->esz);
      }
      continue;
    }
    for (size_t j = 0; j < t->b; j++) rows[j] = base + (t->crd ? c * bb + i * t->b + j : (i * t->b + j) * t->cq + c) * plane;
    OM_BY_ELEMENT_SIZE(t->esz, OM_D2S_ROW);
  }
  return 0;
}

/* SpaceToDepth: out_rows[j][w] = src[w * b + j] for w < W / b, j < b, elements of type T (block 2: both output
 * rows in one pass over the input row). */
#define OM_S2D_ROW(T)                                                  \
  do {                                                                 \
    const T* s = (const T*)src;                                        \
    if (t->b == 2) {                                                   \
      T *d0 = (T*)out, *d1 = (T*)(out + cstep);                        \
      for (size_t x = 0; x < ow; x++) {                                \
        d0[x] = s[2 * x];                                              \
        d1[x] = s[2 * x + 1];                                          \
      }                                                                \
      break;                                                           \
    }                                                                  \
    for (size_t j = 0; j < t->b; j++) {                                \
      T* d = (T*)(out + j * cstep);                                    \
      for (size_t x = 0; x < ow; x++) d[x] = s[x * t->b + j];          \
    }                                                                  \
  } while (0)

/* SpaceToDepth's input rows [begin, end), row g = (n * C + c) * H + h: t->cq is C, t->h and t->w the input's. */
static int om_s2d_rows(const void* args, size_t begin, size_t end) {
  const om_d2s_task* t = args;
  size_t oh = t->h / t->b, ow = t->w / t->b, oplane = oh * ow * t->esz, cstep = t->cq * oplane;
  for (size_t g = begin; g < end; g++) {
    size_t h = g % t->h, c = g / t->h % t->cq, n = g / t->h / t->cq, i = h % t->b;
    const char* src = t->src + g * t->w * t->esz;
    /* output channel (i * b + j) * C + c, row h / b; channel j + 1 is cstep bytes on */
    char* out = t->dst + ((n * t->b * t->b + i * t->b) * t->cq + c) * oplane + h / t->b * ow * t->esz;
    OM_BY_ELEMENT_SIZE(t->esz, OM_S2D_ROW);
  }
  return 0;
}

static int om_ds_run(const om_node* node, const om_node_io* io) {
  const om_depth_space_node* s = node->impl;
  const int64_t* x = io->shapes[0];
  if (!io->outs[0] || om_shape_count(io->out_shapes, 4) == 0) return 0;
  int s2d = node->op == OM_OP_SPACE_TO_DEPTH;
  om_d2s_task t = {io->data[0], io->outs[0], om_type_size(node->type), (size_t)s->b,
                   (size_t)(s2d ? x[1] : io->out_shapes[1]), (size_t)x[2], (size_t)x[3], s->crd};
  size_t rows = s2d ? (size_t)x[0] * t.cq * t.h : (size_t)x[0] * t.cq * t.h * t.b, row = t.w * (s2d ? 1 : t.b);
  size_t chunk = row >= OM_DS_CHUNK_ELEMENTS ? 1 : OM_DS_CHUNK_ELEMENTS / row;
  (void)om_parallel_ranges(io->parallel_for, io->host_ctx, rows, chunk, s2d ? om_s2d_rows : om_d2s_rows,
                           &t); /* never fails */
  return 0;
}

const om_family om_family_depth_space = {sizeof(om_depth_space_node), om_ds_create, om_ds_shapes, om_ds_run,
                                         NULL, NULL, NULL, om_ds_check_ranks};
