/* node_concat.c - Concat: the inputs (same type, same rank, the same dimensions but on `axis`) one after
 * another along axis (negative: from the end). Each input's rows (the elements from axis on, for each index of
 * the dimensions before it) are copied whole; inputs with nothing on axis contribute nothing.
 */
#include <stdio.h>
#include <string.h>

#include "core/om_ops.h"
#include "int_input.h"
#include "node_family.h"

typedef struct om_concat_node {
  int64_t axis;
} om_concat_node;

static int om_cc_create(om_node* node, const om_attrs* a, char* err, size_t errlen) {
  const size_t n_inputs = node->n_inputs;
  const int* types = node->input_types;
  const char* opn = om_op_row(node->op)->name;
  for (size_t k = 0; k < n_inputs; k++)
    if (types[k] == 0) {
      snprintf(err, errlen, "node '%s' (op %s): input %zu is absent; every input of Concat is required", node->name,
               opn, k);
      return -1;
    }
  if (!a->has_axis) {
    snprintf(err, errlen, "node '%s' (op %s): attribute axis is required", node->name, opn);
    return -1;
  }
  om_concat_node* c = node->impl;
  c->axis = a->axis;
  return 0;
}

static int om_cc_check_ranks(const om_node* node, size_t n_inputs, const size_t* ranks, char* err, size_t errlen) {
  const om_concat_node* c = node->impl;
  int64_t axis;
  for (size_t k = 0; k < n_inputs; k++)
    if (ranks[k] != OM_RANK_UNKNOWN && om_axis_in_range(node, c->axis, ranks[k], "axis", &axis, err, errlen) != 0)
      return -1;
  return 0;
}

static int om_cc_shapes(const om_node* node, const om_node_io* io) {
  const om_concat_node* c = node->impl;
  const char* opn = om_op_row(node->op)->name;
  size_t r = io->ranks[0];
  int64_t axis;
  if (om_axis_in_range(node, c->axis, r, "axis", &axis, io->err, io->errlen) != 0) return -1;
  memcpy(io->out_shapes, io->shapes[0], r * sizeof(int64_t));
  for (size_t k = 1; k < io->n_inputs; k++) {
    int same = io->ranks[k] == r;
    for (size_t d = 0; same && d < r; d++) same = (int64_t)d == axis || io->shapes[k][d] == io->shapes[0][d];
    if (!same) {
      snprintf(io->err, io->errlen, "node '%s' (op %s): input %zu's shape does not match input 0's but on axis %lld",
               node->name, opn, k, (long long)axis);
      return -1;
    }
    io->out_shapes[axis] += io->shapes[k][axis];
  }
  io->out_ranks[0] = r;
  return 0;
}

static int om_cc_run(const om_node* node, const om_node_io* io) {
  const om_concat_node* c = node->impl;
  size_t r = io->ranks[0], esz = om_type_size(node->type);
  size_t axis = (size_t)(c->axis < 0 ? c->axis + (int64_t)r : c->axis);
  size_t outer = om_shape_count(io->out_shapes, axis);
  size_t inner = om_shape_count(io->out_shapes + axis + 1, r - axis - 1) * esz;
  size_t out_row = (size_t)io->out_shapes[axis] * inner, at = 0;
  for (size_t k = 0; k < io->n_inputs; k++) {
    size_t row = (size_t)io->shapes[k][axis] * inner;
    for (size_t o = 0; row && o < outer; o++)
      memcpy((char*)io->outs[0] + o * out_row + at, (const char*)io->data[k] + o * row, row);
    at += row;
  }
  return 0;
}

const om_family om_family_concat = {sizeof(om_concat_node), om_cc_create, om_cc_shapes, om_cc_run, NULL, NULL, NULL, om_cc_check_ranks};
