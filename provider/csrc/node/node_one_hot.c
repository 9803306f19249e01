/* node_one_hot.c - OneHot (opsets 9, 11): input 0 `indices` (every integer type, float16, bfloat16, float,
 * double), input 1 `depth` (a scalar or one-element tensor of those types), input 2 `values` [off, on] (every
 * stored type, the output's). The output has indices' shape with an axis of length depth inserted at `axis`
 * (default -1, the last; in [-r - 1, r] for indices of rank r): y[..., d, ...] = on where the index there
 * equals d, else off (docs/data-movement.md). Indices of rank 0 are refused, as ONNX's shape inference does.
 *
 * The numbers: depth is converted to int64 by truncation toward zero (float16 and bfloat16 by way of float,
 * exactly); it must be finite, at least 0 and below 2^62 (else an error naming the node). An index of a float
 * type matches only as the whole number it is: one with a fraction, NaN, infinite or outside [-2^63, 2^63)
 * matches no d (as stock ONNX Runtime and ONNX's reference, which compare values). From opset 11 a negative index i in
 * [-depth, 0) means depth + i; before it (OneHot-9) a negative index matches no d. Nothing else is computed:
 * off and on are copied as they are (bytes).
 *
 * Each of the outer blocks (the product of indices' dimensions before axis) is depth x inner elements: filled with
 * off, then on written where each of its inner indices points; blocks in fixed groups on the host's threads.
 */
#include <stdio.h>
#include <string.h>

#include "core/om_ops.h"
#include "math/om_half.h"
#include "node_family.h"
#include "parallel.h"

/* Output bytes a parallel group of outer blocks writes, at least (one block at least). */
#define OM_OH_GROUP_BYTES ((size_t)1 << 18)
#define OM_OH_MAX_DEPTH ((int64_t)1 << 62)

typedef struct om_one_hot_node {
  int64_t axis;
  int depth_known; /* input 1 is an initializer: its value is depth */
  int64_t depth;
  int depth_type;
} om_one_hot_node;

static const char* om_oh_op(const om_node* node) { return om_op_row(node->op)->name; }

/* An index or depth element of `type` at x[i] as int64 into *v: 1, or 0 where it has no such value (NaN, infinite,
 * out of int64's range; with `whole`, a float with a fraction too). Without `whole` a float is truncated. */
static int om_oh_int(int type, const void* x, size_t i, int whole, int64_t* v) {
  double f;
  switch (type) {
    case OM_T_INT8: *v = ((const int8_t*)x)[i]; return 1;
    case OM_T_INT16: *v = ((const int16_t*)x)[i]; return 1;
    case OM_T_INT32: *v = ((const int32_t*)x)[i]; return 1;
    case OM_T_INT64: *v = ((const int64_t*)x)[i]; return 1;
    case OM_T_UINT8: *v = ((const uint8_t*)x)[i]; return 1;
    case OM_T_UINT16: *v = ((const uint16_t*)x)[i]; return 1;
    case OM_T_UINT32: *v = ((const uint32_t*)x)[i]; return 1;
    case OM_T_UINT64: {
      uint64_t u = ((const uint64_t*)x)[i];
      *v = (int64_t)u;
      return u <= (uint64_t)INT64_MAX;
    }
    case OM_T_FLOAT16: f = om_f16_to_f32(((const uint16_t*)x)[i]); break;
    case OM_T_BFLOAT16: f = om_bf16_to_f32(((const uint16_t*)x)[i]); break;
    case OM_T_FLOAT: f = ((const float*)x)[i]; break;
    default: f = ((const double*)x)[i]; break;
  }
  if (!(f >= -9223372036854775808.0 && f < 9223372036854775808.0)) return 0; /* NaN, inf, out of range */
  *v = (int64_t)f; /* toward zero */
  return !whole || (double)*v == f;
}

static int om_oh_index_type(int t) {
  return t != OM_T_BOOL && (OM_TB(t) & (OM_TS_NUMERIC | OM_TB(OM_T_BFLOAT16))) != 0;
}

static int om_oh_create(om_node* node, const om_attrs* a, char* err, size_t errlen) {
  om_one_hot_node* h = node->impl;
  if (node->n_inputs != 3) OM_FAIL_MSG("node '%s' (op %s): needs 3 inputs (indices, depth, values), has %zu",
                                       node->name, om_oh_op(node), node->n_inputs);
  static const char* const what[2] = {"indices", "depth"};
  for (size_t k = 0; k < 2; k++)
    if (!om_oh_index_type(node->input_types[k]))
      OM_FAIL_MSG("node '%s' (op %s): input %zu (%s) has element type %s, not a number", node->name, om_oh_op(node),
                  k, what[k], om_type_name(node->input_types[k]));
  h->axis = a->has_axis ? a->axis : -1;
  h->depth_type = node->input_types[1];
  node->out_types[0] = node->input_types[2];
  return 0;
}

/* depth from its element(s) of `type` (n of them): 0 with *depth, or -1 with a message. */
static int om_oh_depth_of(const om_node* node, int type, const void* data, size_t n, int64_t* depth, char* err,
                          size_t errlen) {
  if (n != 1) OM_FAIL_MSG("node '%s' (op %s): input 1 (depth) has %zu elements, must have one", node->name,
                          om_oh_op(node), n);
  int64_t d;
  if (!om_oh_int(type, data, 0, 0, &d) || d < 0 || d >= OM_OH_MAX_DEPTH)
    OM_FAIL_MSG("node '%s' (op %s): input 1 (depth) is not a whole number in [0, 2^62) after truncation",
                node->name, om_oh_op(node));
  *depth = d;
  return 0;
}

static int om_oh_set_constant(om_node* node, size_t k, const void* data, const int64_t* shape, size_t rank,
                              char* err, size_t errlen) {
  om_one_hot_node* h = node->impl;
  if (k != 1) return 0;
  if (rank > 1) OM_FAIL_MSG("node '%s' (op %s): input 1 (depth) must be a scalar or 1-D, it has rank %zu",
                            node->name, om_oh_op(node), rank);
  if (om_oh_depth_of(node, h->depth_type, data, om_shape_count(shape, rank), &h->depth, err, errlen) != 0) return -1;
  h->depth_known = 1;
  return 0;
}

static int om_oh_shape_input(const om_node* node, size_t k) {
  const om_one_hot_node* h = node->impl;
  return k == 1 && !h->depth_known;
}

static int om_oh_axis_check(const om_node* node, size_t rank, char* err, size_t errlen) {
  const om_one_hot_node* h = node->impl;
  int64_t r = (int64_t)rank;
  if (rank == 0) OM_FAIL_MSG("node '%s' (op %s): input 0 (indices) has rank 0; OneHot needs rank 1 or more",
                             node->name, om_oh_op(node));
  if (h->axis >= -r - 1 && h->axis <= r) return 0;
  OM_FAIL_MSG("node '%s' (op %s): axis %lld is out of range for indices of rank %zu (allowed [%lld, %lld])",
              node->name, om_oh_op(node), (long long)h->axis, rank, (long long)(-r - 1), (long long)r);
}

static int om_oh_check_ranks(const om_node* node, size_t n_inputs, const size_t* ranks, char* err, size_t errlen) {
  if (ranks[0] != OM_RANK_UNKNOWN) {
    if (ranks[0] + 1 > OM_NODE_MAX_RANK)
      OM_FAIL_MSG("node '%s' (op %s): indices of rank %zu give an output of rank %zu, above %d", node->name,
                  om_oh_op(node), ranks[0], ranks[0] + 1, OM_NODE_MAX_RANK);
    if (om_oh_axis_check(node, ranks[0], err, errlen) != 0) return -1;
  }
  if (n_inputs > 1 && ranks[1] != OM_RANK_UNKNOWN && ranks[1] > 1)
    OM_FAIL_MSG("node '%s' (op %s): input 1 (depth) must be a scalar or 1-D, it has rank %zu", node->name,
                om_oh_op(node), ranks[1]);
  if (n_inputs > 2 && ranks[2] != OM_RANK_UNKNOWN && ranks[2] != 1)
    OM_FAIL_MSG("node '%s' (op %s): input 2 (values) must be 1-D [off, on], it has rank %zu", node->name,
                om_oh_op(node), ranks[2]);
  return 0;
}

/* depth for the call io: 0, or -1 with a message in io->err. */
static int om_oh_depth(const om_node* node, const om_node_io* io, int64_t* depth) {
  const om_one_hot_node* h = node->impl;
  if (h->depth_known) {
    *depth = h->depth;
    return 0;
  }
  if (!io->data || !io->data[1]) {
    snprintf(io->err, io->errlen, "node '%s' (op %s): the output shape needs input 1 (depth)'s data", node->name,
             om_oh_op(node));
    return -1;
  }
  if (io->ranks[1] > 1) {
    snprintf(io->err, io->errlen, "node '%s' (op %s): input 1 (depth) must be a scalar or 1-D, it has rank %zu",
             node->name, om_oh_op(node), io->ranks[1]);
    return -1;
  }
  return om_oh_depth_of(node, h->depth_type, io->data[1], om_shape_count(io->shapes[1], io->ranks[1]), depth,
                        io->err, io->errlen);
}

static int om_oh_shapes(const om_node* node, const om_node_io* io) {
  const om_one_hot_node* h = node->impl;
  size_t r = io->ranks[0];
  int64_t depth;
  if (r + 1 > OM_NODE_MAX_RANK || om_oh_axis_check(node, r, io->err, io->errlen) != 0) {
    if (r + 1 > OM_NODE_MAX_RANK)
      snprintf(io->err, io->errlen, "node '%s' (op %s): indices of rank %zu give an output of rank above %d",
               node->name, om_oh_op(node), r, OM_NODE_MAX_RANK);
    return -1;
  }
  if (om_oh_depth(node, io, &depth) != 0) return -1;
  if (io->ranks[2] != 1 || io->shapes[2][0] != 2) {
    snprintf(io->err, io->errlen, "node '%s' (op %s): input 2 (values) must have shape [2] (off, on)", node->name,
             om_oh_op(node));
    return -1;
  }
  size_t axis = (size_t)(h->axis < 0 ? h->axis + (int64_t)r + 1 : h->axis);
  for (size_t d = 0, s = 0; d <= r; d++) io->out_shapes[d] = d == axis ? depth : io->shapes[0][s++];
  io->out_ranks[0] = r + 1;
  return 0;
}

typedef struct om_oh_task {
  const void* idx;
  int idx_type;
  unsigned char off[8], on[8];
  char* y;
  size_t esz, outer, inner, group;
  int64_t depth;
  int wrap; /* opset 11: a negative index counts from depth */
} om_oh_task;

static void om_oh_group(void* vt, size_t g) {
  const om_oh_task* t = vt;
  size_t end, o = om_chunk_begin(g, t->group, t->outer, &end);
  size_t block = (size_t)t->depth * t->inner * t->esz;
  for (; o < end; o++) {
    char* y = t->y + o * block;
    if (block) { /* off everywhere: one element, then doubling copies */
      memcpy(y, t->off, t->esz);
      for (size_t done = t->esz; done < block; done *= 2) memcpy(y + done, y, done * 2 <= block ? done : block - done);
    }
    for (size_t i = 0; i < t->inner; i++) {
      int64_t v;
      if (!om_oh_int(t->idx_type, t->idx, o * t->inner + i, 1, &v)) continue;
      if (v < 0 && t->wrap) v += t->depth;
      if (v < 0 || v >= t->depth) continue;
      memcpy(y + ((size_t)v * t->inner + i) * t->esz, t->on, t->esz);
    }
  }
}

static int om_oh_run(const om_node* node, const om_node_io* io) {
  const om_one_hot_node* h = node->impl;
  size_t r = io->ranks[0];
  size_t axis = (size_t)(h->axis < 0 ? h->axis + (int64_t)r + 1 : h->axis);
  om_oh_task t = {io->data[0], node->type, {0}, {0}, io->outs[0], om_type_size(node->out_types[0]), 0, 0, 0, 0,
                  node->opset == 0 || node->opset >= 11};
  t.depth = io->out_shapes[axis];
  t.outer = om_shape_count(io->shapes[0], axis);
  t.inner = om_shape_count(io->shapes[0] + axis, r - axis);
  memcpy(t.off, io->data[2], t.esz);
  memcpy(t.on, (const char*)io->data[2] + t.esz, t.esz);
  size_t block = (size_t)t.depth * t.inner * t.esz;
  if (!t.y || !t.outer || !block) return 0;
  t.group = block >= OM_OH_GROUP_BYTES ? 1 : OM_OH_GROUP_BYTES / block;
  om_parallel_ieee(io->parallel_for, io->host_ctx, (t.outer + t.group - 1) / t.group, om_oh_group, &t);
  return 0;
}

const om_family om_family_one_hot = {sizeof(om_one_hot_node), om_oh_create,       om_oh_shapes,
                                     om_oh_run,               om_oh_set_constant, om_oh_shape_input,
                                     NULL,                    om_oh_check_ranks};
