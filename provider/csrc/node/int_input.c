/* int_input.c - the integer lists of the data-movement ops (int_input.h). */
#include "int_input.h"

#include <stdio.h>
#include <string.h>

#include "core/om_ops.h"

void om_int_input_declare(om_int_inputs* ii, size_t k, const char* what, int type) {
  ii->what[k] = what;
  ii->type[k] = type;
  if (type) ii->mask |= 1u << k;
}

int om_int_inputs_create_one(om_node* node, size_t k, const char* what, char* err, size_t errlen) {
  (void)err; /* cannot fail */
  (void)errlen;
  om_int_input_declare(node->impl, k, what, node->input_types[k]);
  return 0;
}

/* Input k's data into out: 0, or -1 with a message. */
static int om_int_list_read(const om_node* node, const om_int_inputs* ii, size_t k, const void* data,
                            const int64_t* shape, size_t rank, om_int_list* out, char* err, size_t errlen) {
  const char* opn = om_op_row(node->op)->name;
  if (rank > 1 || (rank == 0 && !ii->scalar_ok)) {
    snprintf(err, errlen, "node '%s' (op %s): input %zu (%s) must be %s, it has rank %zu", node->name, opn, k,
             ii->what[k], ii->scalar_ok ? "a scalar or 1-D" : "1-D", rank);
    return -1;
  }
  size_t n = rank ? (size_t)shape[0] : 1;
  if (n > OM_MAX_RANK) {
    snprintf(err, errlen, "node '%s' (op %s): input %zu (%s) has %zu entries, more than the maximum rank (%d)",
             node->name, opn, k, ii->what[k], n, OM_MAX_RANK);
    return -1;
  }
  for (size_t i = 0; i < n; i++)
    if (ii->type[k] == OM_T_INT32) {
      int32_t v;
      memcpy(&v, (const char*)data + i * sizeof v, sizeof v);
      out->v[i] = v;
    } else {
      memcpy(&out->v[i], (const char*)data + i * sizeof(int64_t), sizeof(int64_t));
    }
  out->n = n;
  out->known = 1;
  return 0;
}

int om_int_inputs_set_constant(om_node* node, size_t k, const void* data, const int64_t* shape, size_t rank,
                               char* err, size_t errlen) {
  om_int_inputs* ii = node->impl;
  if (k >= OM_INT_INPUTS || !(ii->mask & (1u << k))) return 0;
  return om_int_list_read(node, ii, k, data, shape, rank, &ii->v[k], err, errlen);
}

int om_int_inputs_shape_input(const om_node* node, size_t k) {
  const om_int_inputs* ii = node->impl;
  return k < OM_INT_INPUTS && (ii->mask & (1u << k)) && !ii->v[k].known;
}

const om_int_list* om_int_inputs_get(const om_node* node, const om_node_io* io, size_t k, om_int_list* buf) {
  const om_int_inputs* ii = node->impl;
  buf->known = 0;
  buf->n = 0;
  if (k < OM_INT_INPUTS && ii->v[k].known) return &ii->v[k];
  /* present when it has a shape or data (a host may give a rank-0 input no shape pointer) */
  if (k >= io->n_inputs || k >= OM_INT_INPUTS || !(ii->mask & (1u << k)) ||
      !(io->shapes[k] || (io->data && io->data[k])))
    return buf;
  if (!io->data || !io->data[k]) {
    snprintf(io->err, io->errlen, "node '%s' (op %s): the output shape needs input %zu (%s)'s data", node->name,
             om_op_row(node->op)->name, k, ii->what[k]);
    return NULL;
  }
  static const int64_t none[1] = {0};
  const int64_t* shape = io->shapes[k] ? io->shapes[k] : none;
  return om_int_list_read(node, ii, k, io->data[k], shape, io->ranks[k], buf, io->err, io->errlen) ? NULL : buf;
}

int om_axes_form(const om_node* node, const om_attrs* a, int has_input1, int since, int* input_form, char* err,
                 size_t errlen) {
  const char* opn = om_op_row(node->op)->name;
  *input_form = node->opset > 0 ? node->opset >= since : !a->has_axes;
  if (*input_form && a->has_axes) {
    snprintf(err, errlen, "node '%s' (op %s): attribute axes is not defined from opset %d on (opset %d): axes is "
             "input 1", node->name, opn, since, node->opset);
    return -1;
  }
  if (!*input_form && has_input1) {
    snprintf(err, errlen, "node '%s' (op %s): input 1 (axes) is defined from opset %d on (opset %d): before it, "
             "axes is an attribute", node->name, opn, since, node->opset);
    return -1;
  }
  return 0;
}

int om_axis_in_range(const om_node* node, int64_t a, size_t rank, const char* what, int64_t* out, char* err,
                     size_t errlen) {
  if (a < -(int64_t)rank || a >= (int64_t)rank) {
    snprintf(err, errlen, "node '%s' (op %s): %s %lld is out of range for rank %zu (allowed: %lld to %lld)",
             node->name, om_op_row(node->op)->name, what, (long long)a, rank, -(long long)rank, (long long)rank - 1);
    return -1;
  }
  *out = a < 0 ? a + (int64_t)rank : a;
  return 0;
}

int om_axis_check_input0(const om_node* node, int64_t axis, size_t n_inputs, const size_t* ranks, char* err,
                         size_t errlen) {
  int64_t normal;
  if (n_inputs == 0 || ranks[0] == OM_RANK_UNKNOWN) return 0;
  return om_axis_in_range(node, axis, ranks[0], "axis", &normal, err, errlen);
}
