/* node_slice.c - Slice: for each listed axis (axes; by default 0, 1, ...), the elements start, start + step, ...
 * short of end. Before opset 10 starts, ends and axes are attributes (step 1); from 10 they are inputs 1-4
 * (int32 or int64, all one type; axes and steps optional). As ONNX defines it: a negative start or end counts
 * from the end of the dimension; then start is clamped to [0, dim] (step > 0) or [0, dim - 1] (step < 0), end to
 * [0, dim] or [-1, dim - 1]; the output has ceil((end - start) / step) elements on the axis, none if that is not
 * positive. As stock ONNX Runtime reads it (NumPy's x[start::step]), an end of INT32_MAX or INT64_MAX with a
 * negative step runs through element 0. An axis named twice, a step of 0 and a scalar input 0 (as stock ONNX Runtime) are errors. The copy walks input 0 from the first element with
 * each axis's stride times its step (movement.h).
 */
#include <stdio.h>
#include <string.h>

#include "core/om_ops.h"
#include "int_input.h"
#include "movement.h"
#include "node_family.h"

typedef struct om_slice_node {
  om_int_inputs ints; /* first: inputs 1-4 (starts, ends, axes, steps), or the attributes in their places */
} om_slice_node;

static const char* const om_sl_what[5] = {"", "starts", "ends", "axes", "steps"};

static int om_sl_create(om_node* node, const om_attrs* a, char* err, size_t errlen) {
  const size_t n_inputs = node->n_inputs;
  const int* types = node->input_types;
  const char* opn = om_op_row(node->op)->name;
  om_slice_node* s = node->impl;
  int input_form = node->opset > 0 ? node->opset >= 10 : n_inputs > 1;
  if (input_form) {
    if (a->has_starts || a->has_ends || a->has_axes) {
      snprintf(err, errlen, "node '%s' (op %s): attributes starts, ends and axes are not defined from opset 10 on "
               "(opset %d): they are inputs", node->name, opn, node->opset);
      return -1;
    }
    if (n_inputs < 3 || !types[1] || !types[2]) {
      snprintf(err, errlen, "node '%s' (op %s): inputs 1 (starts) and 2 (ends) are required from opset 10 on",
               node->name, opn);
      return -1;
    }
    for (size_t k = 1; k < n_inputs; k++) {
      if (types[k] && types[k] != types[1]) {
        snprintf(err, errlen, "node '%s' (op %s): input %zu (%s) is %s, input 1 (starts) %s: they must be one type",
                 node->name, opn, k, om_sl_what[k], om_type_name(types[k]), om_type_name(types[1]));
        return -1;
      }
      om_int_input_declare(&s->ints, k, om_sl_what[k], types[k]);
    }
    return 0;
  }
  if (n_inputs > 1) {
    snprintf(err, errlen, "node '%s' (op %s): inputs starts and ends are defined from opset 10 on (opset %d): before "
             "it, they are attributes", node->name, opn, node->opset);
    return -1;
  }
  if (!a->has_starts || !a->has_ends) {
    snprintf(err, errlen, "node '%s' (op %s): attributes starts and ends are required before opset 10", node->name,
             opn);
    return -1;
  }
  if (a->has_axes && a->n_axes_listed != a->n_axes) {
    snprintf(err, errlen, "node '%s' (op %s): attribute axes names an axis more than once", node->name, opn);
    return -1;
  }
  const int64_t* lists[3] = {a->starts, a->ends, a->axes};
  size_t ns[3] = {a->n_starts, a->n_ends, a->n_axes};
  for (size_t k = 1; k <= 3; k++) {
    if (k == 3 && !a->has_axes) break;
    if (ns[k - 1] > OM_MAX_RANK) {
      snprintf(err, errlen, "node '%s' (op %s): attribute %s has %zu entries, more than the maximum rank (%d)",
               node->name, opn, om_sl_what[k], ns[k - 1], OM_MAX_RANK);
      return -1;
    }
    memcpy(s->ints.v[k].v, lists[k - 1], ns[k - 1] * sizeof(int64_t));
    s->ints.v[k].n = ns[k - 1];
    s->ints.v[k].known = 1;
  }
  return 0;
}

/* Per dimension of input 0: the first element, the step and the count taken. */
typedef struct om_sl_plan {
  int64_t start[OM_MAX_RANK], step[OM_MAX_RANK];
} om_sl_plan;

/* v counted from the end when negative, then clamped to [lo, hi]. */
static int64_t om_sl_clamp(int64_t v, int64_t dim, int64_t lo, int64_t hi) {
  if (v < 0) v += dim;
  return v < lo ? lo : (v > hi ? hi : v);
}

static int om_sl_resolve(const om_node* node, const om_node_io* io, om_sl_plan* p, int64_t* out_dims) {
  const char* opn = om_op_row(node->op)->name;
  om_int_list bufs[5];
  const om_int_list* l[5] = {NULL};
  for (size_t k = 1; k <= 4; k++)
    if (!(l[k] = om_int_inputs_get(node, io, k, &bufs[k]))) return -1;
  size_t r = io->ranks[0], n = l[1]->n;
  const int64_t* x = io->shapes[0];
  if (r == 0) { /* as stock ONNX Runtime: there is no axis to slice */
    snprintf(io->err, io->errlen, "node '%s' (op %s): input 0 is a scalar (rank 0), which has no axis to slice",
             node->name, opn);
    return -1;
  }
  for (size_t k = 2; k <= 4; k++)
    if ((k <= 2 || l[k]->known) && l[k]->n != n) {
      snprintf(io->err, io->errlen, "node '%s' (op %s): %s has %zu entries, starts has %zu", node->name, opn,
               om_sl_what[k], l[k]->n, n);
      return -1;
    }
  for (size_t d = 0; d < r; d++) {
    p->start[d] = 0;
    p->step[d] = 1;
    out_dims[d] = x[d];
  }
  uint8_t seen[OM_MAX_RANK] = {0};
  for (size_t i = 0; i < n; i++) {
    int64_t axis = (int64_t)i, step = l[4]->known ? l[4]->v[i] : 1;
    if (l[3]->known) {
      if (om_axis_in_range(node, l[3]->v[i], r, "axis", &axis, io->err, io->errlen) != 0) return -1;
    } else if (i >= r) {
      snprintf(io->err, io->errlen, "node '%s' (op %s): starts has %zu entries, input 0 has rank %zu", node->name, opn,
               n, r);
      return -1;
    }
    if (seen[axis]) {
      snprintf(io->err, io->errlen, "node '%s' (op %s): axes names axis %lld more than once", node->name, opn,
               (long long)axis);
      return -1;
    }
    seen[axis] = 1;
    if (step == 0) {
      snprintf(io->err, io->errlen, "node '%s' (op %s): steps[%zu] is 0", node->name, opn, i);
      return -1;
    }
    int64_t dim = x[axis], b, e;
    uint64_t count = 0;
    if (step > 0) {
      b = om_sl_clamp(l[1]->v[i], dim, 0, dim);
      e = om_sl_clamp(l[2]->v[i], dim, 0, dim);
      if (e > b) count = ((uint64_t)(e - b) + (uint64_t)step - 1) / (uint64_t)step;
    } else {
      b = om_sl_clamp(l[1]->v[i], dim, 0, dim - 1);
      e = l[2]->v[i] == INT32_MAX || l[2]->v[i] == INT64_MAX ? -1 : om_sl_clamp(l[2]->v[i], dim, -1, dim - 1);
      uint64_t m = (uint64_t)0 - (uint64_t)step;
      if (dim > 0 && b > e) count = ((uint64_t)(b - e) + m - 1) / m;
    }
    p->start[axis] = count ? b : 0;
    p->step[axis] = step;
    out_dims[axis] = (int64_t)count;
  }
  return 0;
}

static int om_sl_shapes(const om_node* node, const om_node_io* io) {
  om_sl_plan p;
  if (om_sl_resolve(node, io, &p, io->out_shapes) != 0) return -1;
  io->out_ranks[0] = io->ranks[0];
  return 0;
}

static int om_sl_run(const om_node* node, const om_node_io* io) {
  om_sl_plan p;
  int64_t dims[OM_MAX_RANK], stride[OM_MAX_RANK];
  if (om_sl_resolve(node, io, &p, dims) != 0) return -1;
  size_t r = io->ranks[0];
  om_row_major_strides(io->shapes[0], r, stride);
  int64_t first = 0;
  for (size_t d = 0; d < r; d++) {
    first += p.start[d] * stride[d];
    stride[d] *= p.step[d];
  }
  om_movement_copy(node, io, (const char*)io->data[0] + first * (int64_t)om_type_size(node->type), stride);
  return 0;
}

const om_family om_family_slice = {sizeof(om_slice_node), om_sl_create, om_sl_shapes, om_sl_run, om_int_inputs_set_constant,
                                   om_int_inputs_shape_input, NULL, NULL};
