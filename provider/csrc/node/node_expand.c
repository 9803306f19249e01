/* node_expand.c - Expand: input 0 broadcast (NumPy's rules, both ways) with the shape input (int64, 1-D): the
 * output has the broadcast shape, each element a copy of the input element it comes from (movement.h).
 */
#include <stdio.h>

#include "broadcast.h"
#include "core/om_ops.h"
#include "int_input.h"
#include "movement.h"
#include "node_family.h"

/* State: an om_int_inputs with input 1 (shape) (int_input.h). */
static int om_ex_create(om_node* node, const om_attrs* a, char* err, size_t errlen) {
  (void)a;
  return om_int_inputs_create_one(node, 1, "shape", err, errlen);
}

static int om_ex_shapes(const om_node* node, const om_node_io* io) {
  om_int_list buf;
  const om_int_list* shape = om_int_inputs_get(node, io, 1, &buf);
  if (!shape) return -1;
  const int64_t* shapes[2] = {io->shapes[0], shape->v};
  size_t ranks[2] = {io->ranks[0], shape->n};
  char why[256];
  if (om_broadcast_shape(2, shapes, ranks, io->out_shapes, io->out_ranks, why, sizeof why) != 0) {
    snprintf(io->err, io->errlen, "node '%s' (op %s): input 0 cannot be expanded to the shape (input 1): %s",
             node->name, om_op_row(node->op)->name, why);
    return -1;
  }
  return 0;
}

static int om_ex_run(const om_node* node, const om_node_io* io) {
  size_t r = io->ranks[0], out_r = io->out_ranks[0];
  int64_t in_stride[OM_MAX_RANK], stride[OM_MAX_RANK];
  om_row_major_strides(io->shapes[0], r, in_stride);
  for (size_t d = 0; d < out_r; d++) {
    size_t lead = out_r - r;
    stride[d] = d < lead || io->shapes[0][d - lead] == 1 ? 0 : in_stride[d - lead];
  }
  om_movement_copy(node, io, io->data[0], stride);
  return 0;
}

const om_family om_family_expand = {sizeof(om_int_inputs), om_ex_create, om_ex_shapes, om_ex_run, om_int_inputs_set_constant,
                                    om_int_inputs_shape_input, NULL, NULL};
