/* node_gather.c - Gather: the slices of input 0 along `axis` (default 0, negative from the end) that the int32
 * or int64 indices (input 1, any rank) name; an index counts from the end when negative. Every index is checked
 * before anything is written: one outside [-dim, dim - 1] is an error, never a read out of bounds. The output
 * is data.shape[:axis] + indices.shape + data.shape[axis + 1:].
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/om_ops.h"
#include "int_input.h"
#include "node_family.h"

typedef struct om_gather_node {
  int64_t axis;
} om_gather_node;

static int om_ga_create(om_node* node, const om_attrs* a, char* err, size_t errlen) {
  (void)err; /* cannot fail */
  (void)errlen;
  om_gather_node* g = node->impl;
  g->axis = a->has_axis ? a->axis : 0;
  return 0;
}

static int om_ga_check_ranks(const om_node* node, size_t n_inputs, const size_t* ranks, char* err, size_t errlen) {
  return om_axis_check_input0(node, ((const om_gather_node*)node->impl)->axis, n_inputs, ranks, err, errlen);
}

static int om_ga_shapes(const om_node* node, const om_node_io* io) {
  const om_gather_node* g = node->impl;
  size_t r = io->ranks[0], q = io->ranks[1];
  int64_t axis;
  if (om_axis_in_range(node, g->axis, r, "axis", &axis, io->err, io->errlen) != 0) return -1;
  if (r - 1 + q > OM_MAX_RANK) {
    snprintf(io->err, io->errlen, "node '%s' (op %s): the output would have rank %zu, more than the maximum (%d)",
             node->name, om_op_row(node->op)->name, r - 1 + q, OM_MAX_RANK);
    return -1;
  }
  int64_t* out = io->out_shapes;
  memcpy(out, io->shapes[0], (size_t)axis * sizeof *out);
  memcpy(out + axis, io->shapes[1], q * sizeof *out);
  memcpy(out + axis + q, io->shapes[0] + axis + 1, (r - (size_t)axis - 1) * sizeof *out);
  io->out_ranks[0] = r - 1 + q;
  return 0;
}

static int om_ga_run(const om_node* node, const om_node_io* io) {
  const om_gather_node* g = node->impl;
  size_t r = io->ranks[0], esz = om_type_size(node->type);
  size_t axis = (size_t)(g->axis < 0 ? g->axis + (int64_t)r : g->axis);
  int64_t dim = io->shapes[0][axis];
  size_t n_idx = om_shape_count(io->shapes[1], io->ranks[1]);
  size_t outer = om_shape_count(io->shapes[0], axis);
  size_t block = om_shape_count(io->shapes[0] + axis + 1, r - axis - 1) * esz;
  int64_t* idx = malloc((n_idx ? n_idx : 1) * sizeof *idx);
  if (!idx) {
    snprintf(io->err, io->errlen, "node '%s' (op %s): out of memory", node->name, om_op_row(node->op)->name);
    return -1;
  }
  for (size_t j = 0; j < n_idx; j++) {
    int64_t v;
    if (node->type1 == OM_T_INT32) {
      int32_t v32;
      memcpy(&v32, (const char*)io->data[1] + j * sizeof v32, sizeof v32);
      v = v32;
    } else {
      memcpy(&v, (const char*)io->data[1] + j * sizeof v, sizeof v);
    }
    if (v < -dim || v >= dim) {
      snprintf(io->err, io->errlen, "node '%s' (op %s): index %lld (element %zu of input 1) is out of range for axis "
               "%zu of size %lld (allowed: %lld to %lld)", node->name, om_op_row(node->op)->name, (long long)v, j,
               axis, (long long)dim, -(long long)dim, (long long)dim - 1);
      free(idx);
      return -1;
    }
    idx[j] = v < 0 ? v + dim : v;
  }
  char* out = io->outs[0];
  const char* in = io->data[0];
  for (size_t o = 0; block && o < outer; o++)
    for (size_t j = 0; j < n_idx; j++, out += block) memcpy(out, in + (o * (size_t)dim + (size_t)idx[j]) * block, block);
  free(idx);
  return 0;
}

const om_family om_family_gather = {sizeof(om_gather_node), om_ga_create, om_ga_shapes, om_ga_run, NULL, NULL, NULL, om_ga_check_ranks};
