/* node_softmax.c - Softmax and LogSoftmax nodes: the axis attribute and ONNX's two readings of it, onto
 * om_softmax (reduce/reduce.h).
 *
 * Opset 13 on: the rows run along one axis (default -1); x is viewed as [outer, n, inner] with n = dims[axis].
 * Before 13: x is coerced to 2-D at axis (default 1), each row the flattened trailing dimensions: outer =
 * prod(dims[:axis]), n = prod(dims[axis:]), inner = 1. An unknown opset (0) reads as 13 on. Accepted axes:
 * [-rank, rank - 1]. The rows are split over threads in fixed chunks of whole row units; no result depends on
 * the chunking (reduce.h). Output 0 never aliases input 0 (the row op is not OM_F_INPLACE: along a non-last
 * axis a row's elements are read after other rows' outputs would have overwritten them).
 */
#include <stdio.h>
#include <stdlib.h>

#include "broadcast.h"
#include "node_family.h"
#include "parallel.h"
#include "core/om_ops.h"
#include "reduce/reduce.h"

/* Elements per parallel chunk: 8K, as the costly element-wise kernels (node.c); 32K measured the same at one
 * thread (onemodel bench --ops Softmax,LogSoftmax, 64K to 16M, 2026-12-02) and splits 64K rows in only two. */
#define OM_SOFTMAX_CHUNK_ELEMS ((size_t)1 << 13)

typedef struct om_softmax_node {
  int log;         /* LogSoftmax */
  int coerce_2d;   /* opset < 13 */
  int64_t axis;
} om_softmax_node;

static int om_sm_create(om_node* node, const om_attrs* a, char* err, size_t errlen) {
  om_softmax_node* s = node->impl;
  s->log = node->op == OM_OP_LOG_SOFTMAX;
  s->coerce_2d = node->opset > 0 && node->opset < 13;
  s->axis = a->has_axis ? a->axis : s->coerce_2d ? 1 : -1;
  return om_softmax_supported(node->type) ? 0 : om_family_no_kernel(node, err, errlen);
}

int om_row_view(const om_node* node, int coerce_2d, int64_t axis_attr, const int64_t* dims, size_t rank,
                size_t* outer, size_t* n, size_t* inner, char* err, size_t errlen) {
  int64_t r = (int64_t)rank, axis = axis_attr < 0 ? axis_attr + r : axis_attr;
  if (axis < 0 || axis >= r) {
    snprintf(err, errlen, "node '%s' (op %s): attribute axis %lld is out of range for an input of rank %zu "
             "(accepted: [%lld, %lld])", node->name, om_op_row(node->op)->name, (long long)axis_attr, rank,
             (long long)-r, (long long)(r - 1));
    return -1;
  }
  size_t a = (size_t)axis;
  *outer = om_shape_count(dims, a);
  if (coerce_2d) {
    *n = om_shape_count(dims + a, rank - a);
    *inner = 1;
  } else {
    *n = (size_t)dims[a];
    *inner = om_shape_count(dims + a + 1, rank - a - 1);
  }
  return 0;
}

/* The row view [outer, n, inner] of x; 0, or -1 with a message (axis out of range). */
static int om_sm_view(const om_node* node, const int64_t* dims, size_t rank, size_t* outer, size_t* n, size_t* inner,
                      char* err, size_t errlen) {
  const om_softmax_node* s = node->impl;
  return om_row_view(node, s->coerce_2d, s->axis, dims, rank, outer, n, inner, err, errlen);
}

static int om_sm_shapes(const om_node* node, const om_node_io* io) {
  size_t outer, n, inner;
  if (om_sm_view(node, io->shapes[0], io->ranks[0], &outer, &n, &inner, io->err, io->errlen) != 0) return -1;
  for (size_t d = 0; d < io->ranks[0]; d++) io->out_shapes[d] = io->shapes[0][d];
  io->out_ranks[0] = io->ranks[0];
  return 0;
}

typedef struct om_sm_job {
  const om_node* node;
  size_t outer, n, inner;
  const void* x;
  void* y;
} om_sm_job;

/* Units (outer x inner positions) [b, e) (om_parallel_ranges): 0, or -1 out of memory. */
static int om_sm_units(const void* args, size_t b, size_t e) {
  const om_sm_job* j = args;
  const om_softmax_node* s = j->node->impl;
  return om_softmax(j->node->path, j->node->type, j->node->mode, s->log, j->outer, j->n, j->inner, b, e, j->x, j->y);
}

static int om_sm_run(const om_node* node, const om_node_io* io) {
  om_sm_job j = {node, 0, 0, 0, io->data[0], io->outs[0]};
  if (om_sm_view(node, io->shapes[0], io->ranks[0], &j.outer, &j.n, &j.inner, io->err, io->errlen) != 0) return -1;
  size_t units = j.outer * j.inner;
  if (units == 0 || j.n == 0) return 0; /* no element */
  if (om_parallel_ranges(io->parallel_for, io->host_ctx, units, OM_SOFTMAX_CHUNK_ELEMS / j.n, om_sm_units, &j) != 0) {
    snprintf(io->err, io->errlen, "node '%s' (op %s): out of memory", node->name, om_op_row(node->op)->name);
    return -1;
  }
  return 0;
}

/* At creation: the axis against a declared rank. */
static int om_sm_check_ranks(const om_node* node, size_t n_inputs, const size_t* ranks, char* err, size_t errlen) {
  (void)n_inputs;
  if (ranks[0] == OM_RANK_UNKNOWN) return 0;
  size_t outer, n, inner;
  int64_t dims[OM_MAX_RANK] = {0};
  return ranks[0] > OM_MAX_RANK ? 0 : om_sm_view(node, dims, ranks[0], &outer, &n, &inner, err, errlen);
}

const om_family om_family_softmax = {.state_size = sizeof(om_softmax_node), .create = om_sm_create,
                                     .shapes = om_sm_shapes, .run = om_sm_run, .check_ranks = om_sm_check_ranks};
