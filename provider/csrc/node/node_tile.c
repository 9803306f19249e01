/* node_tile.c - Tile: input 0 repeated repeats[d] times along each axis d (repeats: input 1, int64, 1-D, one
 * entry per axis of input 0, none negative); output dimension d is in[d] * repeats[d]. Output element i along
 * axis d is input element i mod in[d]: the output is the walk of the dimensions (repeats[0], in[0],
 * repeats[1], in[1], ...) with strides (0, stride[0], 0, stride[1], ...) over the input, a copy (movement.h).
 */
#include <stdio.h>

#include "broadcast.h"
#include "core/om_ops.h"
#include "int_input.h"
#include "movement.h"
#include "node_family.h"

/* State: an om_int_inputs with input 1 (repeats) (int_input.h). */
static int om_tl_create(om_node* node, const om_attrs* a, char* err, size_t errlen) {
  (void)a;
  return om_int_inputs_create_one(node, 1, "repeats", err, errlen);
}

static int om_tl_shapes(const om_node* node, const om_node_io* io) {
  const char* opn = om_op_row(node->op)->name;
  om_int_list buf;
  const om_int_list* rep = om_int_inputs_get(node, io, 1, &buf);
  if (!rep) return -1;
  size_t r = io->ranks[0];
  if (!rep->known || rep->n != r) {
    snprintf(io->err, io->errlen, "node '%s' (op %s): input 1 (repeats) has %zu entries, input 0 has rank %zu",
             node->name, opn, rep->known ? rep->n : 0, r);
    return -1;
  }
  for (size_t d = 0; d < r; d++) {
    int64_t n = io->shapes[0][d], k = rep->v[d];
    if (k < 0) {
      snprintf(io->err, io->errlen, "node '%s' (op %s): repeats[%zu] is %lld, negative", node->name, opn, d,
               (long long)k);
      return -1;
    }
    if (k && n > INT64_MAX / k) {
      snprintf(io->err, io->errlen, "node '%s' (op %s): dimension %zu of the output (%lld x %lld) does not fit "
               "64 bits", node->name, opn, d, (long long)n, (long long)k);
      return -1;
    }
    io->out_shapes[d] = n * k;
  }
  io->out_ranks[0] = r;
  return 0;
}

static int om_tl_run(const om_node* node, const om_node_io* io) {
  size_t r = io->ranks[0], w = 0;
  int64_t in_stride[OM_MAX_RANK], dims[OM_MAX_RANK], stride[OM_MAX_RANK];
  om_row_major_strides(io->shapes[0], r, in_stride);
  if (om_shape_count(io->out_shapes, io->out_ranks[0]) == 0) return 0;
  for (size_t d = 0; d < r; d++) {
    int64_t n = io->shapes[0][d], k = io->out_shapes[d] / n; /* n, k >= 1: the output is not empty */
    if ((size_t)((k > 1) + (n > 1)) > (size_t)OM_MAX_RANK - w) {
      snprintf(io->err, io->errlen, "node '%s' (op %s): the walk has more than %d dimensions of more than 1 "
               "(more than 32 axes both repeated and longer than 1)", node->name, om_op_row(node->op)->name,
               OM_MAX_RANK);
      return -1;
    }
    if (k > 1) {
      dims[w] = k;
      stride[w++] = 0;
    }
    if (n > 1) {
      dims[w] = n;
      stride[w++] = in_stride[d];
    }
  }
  om_movement_copy_walk(node, io, io->data[0], w, dims, stride);
  return 0;
}

const om_family om_family_tile = {sizeof(om_int_inputs), om_tl_create, om_tl_shapes, om_tl_run, om_int_inputs_set_constant,
                                  om_int_inputs_shape_input, NULL, NULL};
