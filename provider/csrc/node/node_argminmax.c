/* node_argminmax.c - ArgMax and ArgMin: the int64 index of the greatest or least element along `axis` (default 0;
 * negative counts from the end), keepdims (default 1) keeping the axis as 1, select_last_index (opset 12 on,
 * default 0) the last index of the extreme instead of the first. The rule per output element, NaN included:
 * docs/shape-ops.md; the scans: kernels/argminmax.c. The work is split over fixed blocks of outputs.
 */
#include <stdio.h>

#include "core/om_ops.h"
#include "int_input.h"
#include "kernels/argminmax.h"
#include "node_family.h"
#include "parallel.h"

/* Elements scanned per parallel chunk (at least one output). */
#define OM_AMM_CHUNK ((size_t)1 << 16)

typedef struct om_amm_node {
  int64_t axis;
  int keepdims, last;
} om_amm_node;

static int om_amm_create(om_node* node, const om_attrs* a, char* err, size_t errlen) {
  om_amm_node* s = node->impl;
  const char* opn = om_op_row(node->op)->name;
  if (om_argminmax_supported(node->type) != 0) return om_family_no_kernel(node, err, errlen);
  if (a->has_select_last_index && a->select_last_index != 0 && node->opset > 0 && node->opset < 12) {
    snprintf(err, errlen, "node '%s' (op %s): attribute select_last_index is defined from opset 12 on (opset %d)",
             node->name, opn, node->opset);
    return -1;
  }
  if ((a->has_keepdims && a->keepdims != 0 && a->keepdims != 1) ||
      (a->has_select_last_index && a->select_last_index != 0 && a->select_last_index != 1)) {
    snprintf(err, errlen, "node '%s' (op %s): attributes keepdims and select_last_index must be 0 or 1", node->name,
             opn);
    return -1;
  }
  s->axis = a->has_axis ? a->axis : 0;
  s->keepdims = a->has_keepdims ? (int)a->keepdims : 1;
  s->last = a->has_select_last_index ? (int)a->select_last_index : 0;
  node->out_types[0] = OM_T_INT64;
  return 0;
}

/* The axis in [0, rank), or -1 with a message in io->err. */
static int64_t om_amm_axis(const om_node* node, const om_node_io* io) {
  const om_amm_node* s = node->impl;
  int64_t axis;
  if (om_axis_in_range(node, s->axis, io->ranks[0], "axis", &axis, io->err, io->errlen) != 0) return -1;
  if (io->shapes[0][axis] == 0) {
    snprintf(io->err, io->errlen, "node '%s' (op %s): axis %lld has no element to choose from", node->name,
             om_op_row(node->op)->name, (long long)axis);
    return -1;
  }
  return axis;
}

static int om_amm_shapes(const om_node* node, const om_node_io* io) {
  const om_amm_node* s = node->impl;
  int64_t axis = om_amm_axis(node, io);
  if (axis < 0) return -1;
  size_t r = io->ranks[0], w = 0;
  for (size_t d = 0; d < r; d++) {
    if ((int64_t)d != axis) io->out_shapes[w++] = io->shapes[0][d];
    else if (s->keepdims) io->out_shapes[w++] = 1;
  }
  io->out_ranks[0] = w;
  return 0;
}

typedef struct om_amm_task {
  om_argminmax scan;
  size_t outer, per_chunk, chunks_per_outer;
  const char* src;
  int64_t* out;
} om_amm_task;

/* Chunk c: outer block c / chunks_per_outer, its inner positions [i0, i1). */
static void om_amm_chunk(void* vt, size_t c) {
  const om_amm_task* t = vt;
  const om_argminmax* a = &t->scan;
  size_t esz = om_type_size(a->type), end;
  if (a->inner == 1) { /* the outer blocks are the outputs: chunk c covers per_chunk of them */
    size_t b = om_chunk_begin(c, t->per_chunk, t->outer, &end);
    for (size_t k = b; k < end; k++) om_argminmax_run(a, t->src + k * a->n * esz, 0, 1, t->out + k);
    return;
  }
  size_t o = c / t->chunks_per_outer;
  size_t i0 = om_chunk_begin(c % t->chunks_per_outer, t->per_chunk, a->inner, &end);
  om_argminmax_run(a, t->src + o * a->n * a->inner * esz, i0, end, t->out + o * a->inner + i0);
}

static int om_amm_run(const om_node* node, const om_node_io* io) {
  const om_amm_node* s = node->impl;
  int64_t axis = om_amm_axis(node, io);
  if (axis < 0) return -1;
  om_amm_task t;
  t.scan.type = node->type;
  t.scan.is_max = node->op == OM_OP_ARG_MAX;
  t.scan.last = s->last;
  t.scan.n = (size_t)io->shapes[0][axis];
  t.outer = om_shape_count(io->shapes[0], (size_t)axis);
  t.scan.inner = om_shape_count(io->shapes[0] + axis + 1, io->ranks[0] - (size_t)axis - 1);
  if (!t.outer || !t.scan.inner || !io->outs[0]) return 0;
  t.src = io->data[0];
  t.out = io->outs[0];
  size_t per = OM_AMM_CHUNK / t.scan.n;
  t.per_chunk = per ? per : 1;
  size_t chunks;
  if (t.scan.inner > 1) {
    t.chunks_per_outer = (t.scan.inner + t.per_chunk - 1) / t.per_chunk;
    chunks = t.outer * t.chunks_per_outer;
  } else {
    t.chunks_per_outer = 1;
    chunks = (t.outer + t.per_chunk - 1) / t.per_chunk;
  }
  om_parallel_ieee(io->parallel_for, io->host_ctx, chunks, om_amm_chunk, &t);
  return 0;
}

/* At creation: the axis against a declared rank. */
static int om_amm_check_ranks(const om_node* node, size_t n_inputs, const size_t* ranks, char* err, size_t errlen) {
  return om_axis_check_input0(node, ((const om_amm_node*)node->impl)->axis, n_inputs, ranks, err, errlen);
}

const om_family om_family_argminmax = {sizeof(om_amm_node), om_amm_create, om_amm_shapes, om_amm_run, NULL, NULL,
                                       NULL, om_amm_check_ranks};
