/* node_dynamic_quantize.c - DynamicQuantizeLinear nodes (opset 11): float x to uint8 y with the scale and zero
 * point found from x's range (docs/quantized.md): the least and greatest non-NaN elements per fixed chunk
 * (quant/qdq.h's minmax; min and max of numbers are exact, so combining the chunks in any order gives the same
 * two numbers), then y_scale and y_zero_point in a few IEEE steps, then QuantizeLinear's steps per element.
 */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "core/om_ops.h"
#include "dynamic_quantize.h"
#include "node_family.h"
#include "parallel.h"
#include "quant/qdq.h"

#define OM_DQL_CHUNK ((size_t)1 << 14) /* elements per parallel chunk */

static int om_dql_create(om_node* node, const om_attrs* a, char* err, size_t errlen) {
  (void)a;
  (void)err;
  (void)errlen;
  node->out_types[0] = OM_T_UINT8;
  node->out_types[1] = OM_T_FLOAT;
  node->out_types[2] = OM_T_UINT8;
  return 0;
}

static int om_dql_shapes(const om_node* node, const om_node_io* io) {
  (void)node;
  memcpy(io->out_shapes, io->shapes[0], io->ranks[0] * sizeof(int64_t));
  io->out_ranks[0] = io->ranks[0];
  for (size_t k = 1; k < io->n_outputs && k < 3; k++) io->out_ranks[k] = 0;
  return 0;
}

typedef struct om_dql_task {
  const float* x;
  size_t n;
  const om_qdq_kern* k;
  float* range;   /* per chunk: least, greatest */
  float scale;    /* y_scale */
  int32_t zp;     /* y_zero_point */
  uint8_t* y;
} om_dql_task;

static void om_dql_range_chunk(void* ctx, size_t c) {
  om_dql_task* t = ctx;
  size_t end, i = om_chunk_begin(c, OM_DQL_CHUNK, t->n, &end);
  t->range[2 * c] = __builtin_inff();
  t->range[2 * c + 1] = -__builtin_inff();
  t->k->minmax(t->x + i, end - i, &t->range[2 * c], &t->range[2 * c + 1]);
}

/* y_scale and y_zero_point from the chunks' ranges (docs/quantized.md, DynamicQuantizeLinear steps 1-4). */
static void om_dql_params(void* ctx, size_t c) {
  om_dql_task* t = ctx;
  size_t chunks = (t->n + OM_DQL_CHUNK - 1) / OM_DQL_CHUNK;
  float mn = __builtin_inff(), mx = -__builtin_inff();
  (void)c;
  for (size_t q = 0; q < chunks; q++) {
    mn = t->range[2 * q] < mn ? t->range[2 * q] : mn;
    mx = t->range[2 * q + 1] > mx ? t->range[2 * q + 1] : mx;
  }
  mn = mn < 0.0f ? mn : 0.0f;
  mx = mx > 0.0f ? mx : 0.0f;
  t->scale = (mx == mn ? 1.0f : mx - mn) / 255.0f;
  float zf = 0.0f - mn / t->scale;
  zf = zf <= 255.0f ? zf : 255.0f; /* a NaN gives 255 */
  zf = zf >= 0.0f ? zf : 0.0f;
  const float magic = 12582912.0f; /* 1.5 * 2^23: round half to even */
  t->zp = (int32_t)((zf + magic) - magic);
}

static void om_dql_quantize_chunk(void* ctx, size_t c) {
  const om_dql_task* t = ctx;
  size_t end, i = om_chunk_begin(c, OM_DQL_CHUNK, t->n, &end);
  t->k->quantize(t->x + i, end - i, &t->scale, &t->zp, 0, OM_T_UINT8, t->y + i);
}

int om_dynamic_quantize_u8(int path, const float* x, size_t n, om_parallel_for_fn pf, void* host_ctx, uint8_t* y,
                           float* scale, int32_t* zp) {
  const size_t chunks = (n + OM_DQL_CHUNK - 1) / OM_DQL_CHUNK;
  float one_range[2];
  om_dql_task t = {x, n, om_qdq_kern_of(path), chunks > 1 ? malloc(2 * chunks * sizeof(float)) : one_range, 0.0f,
                   0, y};
  if (!t.range) return -1;
  om_parallel_ieee(pf, host_ctx, chunks, om_dql_range_chunk, &t);
  om_parallel_ieee(NULL, NULL, 1, om_dql_params, &t);
  if (t.y) om_parallel_ieee(pf, host_ctx, chunks, om_dql_quantize_chunk, &t);
  if (t.range != one_range) free(t.range);
  *scale = t.scale;
  *zp = t.zp;
  return 0;
}

static int om_dql_run(const om_node* node, const om_node_io* io) {
  const size_t n = om_shape_count(io->shapes[0], io->ranks[0]);
  float scale;
  int32_t zp;
  if (om_dynamic_quantize_u8(node->path, io->data[0], n, io->parallel_for, io->host_ctx, io->outs[0], &scale, &zp)) {
    snprintf(io->err, io->errlen, "node '%s' (op DynamicQuantizeLinear): out of memory", node->name);
    return -1;
  }
  if (io->n_outputs > 1 && io->outs[1]) memcpy(io->outs[1], &scale, sizeof scale);
  if (io->n_outputs > 2 && io->outs[2]) *(uint8_t*)io->outs[2] = (uint8_t)zp;
  return 0;
}

const om_family om_family_dynamic_quantize = {0, om_dql_create, om_dql_shapes, om_dql_run, NULL, NULL, NULL, NULL};
