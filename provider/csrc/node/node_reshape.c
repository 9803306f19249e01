/* node_reshape.c - the ops that change a tensor's shape and not its elements: Reshape, Unsqueeze, Squeeze,
 * Flatten, Identity. The output is input 0's bytes as they are, under the new shape (one copy, none when the
 * host gives the input's own buffer as the output).
 *
 * Reshape: the shape input (int64, 1-D): 0 copies the input's dimension (allowzero = 1, opset 14: means 0), -1
 * (at most one) is inferred from the element count, which must then divide by the others' product (not 0).
 * Unsqueeze and Squeeze: axes as the attribute before opset 13, as input 1 from 13 (scalar or 1-D, int64);
 * negative axes count from the end (of the output for Unsqueeze); Unsqueeze refuses an axis named twice, Squeeze
 * squeezes it once, as stock ONNX Runtime does; Squeeze without axes drops every dimension of size 1, and
 * refuses to drop one that is not 1. Flatten: axis in [-rank, rank] (default 1), the output
 * [prod(dims before axis), prod(dims from axis)].
 */
#include <stdio.h>
#include <string.h>

#include "core/om_ops.h"
#include "int_input.h"
#include "node_family.h"

typedef struct om_reshape_node {
  om_int_inputs ints; /* first: input 1 (shape or axes) */
  int allowzero;      /* Reshape */
  int64_t axis;       /* Flatten */
} om_reshape_node;

static const char* om_rs_name(const om_node* node) { return om_op_row(node->op)->name; }

/* Squeeze's and Unsqueeze's axes: the attribute before opset 13, input 1 from 13 (when the opset is unknown,
 * whichever the node has). The attribute is kept as input 1's known list. */
static int om_rs_axes_form(om_node* node, om_reshape_node* s, const om_attrs* a, int has_input1, char* err,
                           size_t errlen) {
  const char* opn = om_rs_name(node);
  int input_form;
  if (om_axes_form(node, a, has_input1, 13, &input_form, err, errlen) != 0) return -1;
  if (node->op == OM_OP_UNSQUEEZE && (input_form ? !has_input1 : !a->has_axes)) {
    snprintf(err, errlen, "node '%s' (op %s): axes is required (%s)", node->name, opn,
             input_form ? "input 1" : "the attribute");
    return -1;
  }
  if (!input_form && a->has_axes) {
    if (node->op == OM_OP_UNSQUEEZE && a->n_axes_listed != a->n_axes) {
      snprintf(err, errlen, "node '%s' (op %s): attribute axes names an axis more than once", node->name, opn);
      return -1;
    }
    if (a->n_axes > OM_MAX_RANK) {
      snprintf(err, errlen, "node '%s' (op %s): attribute axes has %zu entries, more than the maximum rank (%d)",
               node->name, opn, a->n_axes, OM_MAX_RANK);
      return -1;
    }
    memcpy(s->ints.v[1].v, a->axes, a->n_axes * sizeof a->axes[0]);
    s->ints.v[1].n = a->n_axes;
    s->ints.v[1].known = 1;
  }
  return 0;
}

static int om_rs_create(om_node* node, const om_attrs* a, char* err, size_t errlen) {
  const size_t n_inputs = node->n_inputs;
  const int* types = node->input_types;
  const char* opn = om_rs_name(node);
  om_reshape_node* s = node->impl;
  int has_input1 = n_inputs > 1 && types[1] != 0;
  const char* what = node->op == OM_OP_RESHAPE ? "shape" : "axes";
  om_int_input_declare(&s->ints, 1, what, has_input1 ? types[1] : 0);
  s->ints.scalar_ok = node->op != OM_OP_RESHAPE;
  switch (node->op) {
    case OM_OP_RESHAPE:
      if (a->has_allowzero && node->opset > 0 && node->opset < 14) {
        snprintf(err, errlen, "node '%s' (op %s): attribute allowzero is defined from opset 14 on (opset %d)",
                 node->name, opn, node->opset);
        return -1;
      }
      if (a->has_allowzero && a->allowzero != 0 && a->allowzero != 1) {
        snprintf(err, errlen, "node '%s' (op %s): attribute allowzero must be 0 or 1, got %lld", node->name, opn,
                 (long long)a->allowzero);
        return -1;
      }
      s->allowzero = a->has_allowzero && a->allowzero == 1;
      return 0;
    case OM_OP_UNSQUEEZE:
    case OM_OP_SQUEEZE: return om_rs_axes_form(node, s, a, has_input1, err, errlen);
    case OM_OP_FLATTEN: s->axis = a->has_axis ? a->axis : 1; return 0;
    default: return 0;
  }
}

/* Reshape's output shape for input dims x[0 .. r) and the shape list. */
static int om_rs_reshape(const om_node* node, const om_reshape_node* s, const int64_t* x, size_t r,
                         const om_int_list* shape, int64_t* out, size_t* out_rank, char* err, size_t errlen) {
  const char* opn = om_rs_name(node);
  size_t count = om_shape_count(x, r), unknown = (size_t)-1;
  int64_t prod = 1;
  for (size_t i = 0; i < shape->n; i++) {
    int64_t d = shape->v[i];
    if (d == 0 && !s->allowzero) {
      if (i >= r) {
        snprintf(err, errlen, "node '%s' (op %s): shape[%zu] is 0 (the input's dimension) but input 0 has rank %zu",
                 node->name, opn, i, r);
        return -1;
      }
      d = x[i];
    } else if (d == -1) {
      if (unknown != (size_t)-1) {
        snprintf(err, errlen, "node '%s' (op %s): shape has more than one -1 (at %zu and %zu)", node->name, opn,
                 unknown, i);
        return -1;
      }
      unknown = i;
      out[i] = -1;
      continue;
    } else if (d < -1) {
      snprintf(err, errlen, "node '%s' (op %s): shape[%zu] is %lld; a dimension is -1, 0 or positive", node->name,
               opn, i, (long long)d);
      return -1;
    }
    out[i] = d;
    if (prod != -2 && __builtin_mul_overflow(prod, d, &prod)) prod = -2; /* -2: past int64 */
  }
  if (unknown != (size_t)-1) {
    if (prod <= 0 || count % (uint64_t)prod != 0) {
      snprintf(err, errlen, "node '%s' (op %s): input 0 has %zu elements, which the shape's other dimensions "
               "(product %lld) cannot divide into the -1 at %zu", node->name, opn, count,
               prod == -2 ? -1LL : (long long)prod, unknown);
      return -1;
    }
    out[unknown] = (int64_t)(count / (uint64_t)prod);
  } else if (prod != (int64_t)count) {
    snprintf(err, errlen, "node '%s' (op %s): input 0 has %zu elements, the shape asks for %s%lld", node->name, opn,
             count, prod == -2 ? "more than " : "", prod == -2 ? (long long)INT64_MAX : (long long)prod);
    return -1;
  }
  *out_rank = shape->n;
  return 0;
}

/* Unsqueeze's and Squeeze's output shape; x NULL: only the axes against the rank (check_ranks). */
static int om_rs_axes_shape(const om_node* node, const int64_t* x, size_t r, const om_int_list* axes, int64_t* out,
                            size_t* out_rank, char* err, size_t errlen) {
  const char* opn = om_rs_name(node);
  uint8_t mark[2 * OM_MAX_RANK] = {0};
  int unsq = node->op == OM_OP_UNSQUEEZE;
  size_t rank = unsq ? r + axes->n : r; /* the rank the axes count in */
  if (rank > OM_MAX_RANK) {
    snprintf(err, errlen, "node '%s' (op %s): the output would have rank %zu, more than the maximum (%d)", node->name,
             opn, rank, OM_MAX_RANK);
    return -1;
  }
  for (size_t i = 0; i < axes->n; i++) {
    int64_t a;
    if (om_axis_in_range(node, axes->v[i], rank, "axis", &a, err, errlen) != 0) return -1;
    if (unsq && mark[a]) {
      snprintf(err, errlen, "node '%s' (op %s): axes names axis %lld more than once", node->name, opn, (long long)a);
      return -1;
    }
    if (!unsq && x && x[a] != 1) {
      snprintf(err, errlen, "node '%s' (op %s): axis %lld of input 0 has size %lld; only a dimension of size 1 can "
               "be squeezed", node->name, opn, (long long)a, (long long)x[a]);
      return -1;
    }
    mark[a] = 1;
  }
  if (!x) return 0;
  size_t o = 0, j = 0;
  if (unsq)
    for (size_t d = 0; d < rank; d++) out[o++] = mark[d] ? 1 : x[j++];
  else
    for (size_t d = 0; d < r; d++)
      if (!(axes->n ? mark[d] : x[d] == 1)) out[o++] = x[d];
  *out_rank = o;
  return 0;
}

static int om_rs_flatten(const om_node* node, const om_reshape_node* s, const int64_t* x, size_t r, int64_t* out,
                         char* err, size_t errlen) {
  if (s->axis < -(int64_t)r || s->axis > (int64_t)r) {
    snprintf(err, errlen, "node '%s' (op %s): axis %lld is out of range for rank %zu (allowed: %lld to %zu)",
             node->name, om_rs_name(node), (long long)s->axis, r, -(long long)r, r);
    return -1;
  }
  if (!x) return 0;
  size_t a = (size_t)(s->axis < 0 ? s->axis + (int64_t)r : s->axis);
  out[0] = (int64_t)om_shape_count(x, a);
  out[1] = (int64_t)om_shape_count(x + a, r - a);
  return 0;
}

static int om_rs_shapes(const om_node* node, const om_node_io* io) {
  const om_reshape_node* s = node->impl;
  const int64_t* x = io->shapes[0];
  size_t r = io->ranks[0];
  om_int_list buf;
  switch (node->op) {
    case OM_OP_RESHAPE: {
      const om_int_list* shape = om_int_inputs_get(node, io, 1, &buf);
      return shape ? om_rs_reshape(node, s, x, r, shape, io->out_shapes, io->out_ranks, io->err, io->errlen) : -1;
    }
    case OM_OP_UNSQUEEZE:
    case OM_OP_SQUEEZE: {
      const om_int_list* axes = om_int_inputs_get(node, io, 1, &buf);
      return axes ? om_rs_axes_shape(node, x, r, axes, io->out_shapes, io->out_ranks, io->err, io->errlen) : -1;
    }
    case OM_OP_FLATTEN:
      io->out_ranks[0] = 2;
      return om_rs_flatten(node, s, x, r, io->out_shapes, io->err, io->errlen);
    default:
      memcpy(io->out_shapes, x, r * sizeof *x);
      io->out_ranks[0] = r;
      return 0;
  }
}

static int om_rs_check_ranks(const om_node* node, size_t n_inputs, const size_t* ranks, char* err, size_t errlen) {
  const om_reshape_node* s = node->impl;
  if (n_inputs == 0 || ranks[0] == OM_RANK_UNKNOWN) return 0;
  if (node->op == OM_OP_FLATTEN) return om_rs_flatten(node, s, NULL, ranks[0], NULL, err, errlen);
  if ((node->op == OM_OP_UNSQUEEZE || node->op == OM_OP_SQUEEZE) && s->ints.v[1].known)
    return om_rs_axes_shape(node, NULL, ranks[0], &s->ints.v[1], NULL, NULL, err, errlen);
  return 0;
}

static int om_rs_run(const om_node* node, const om_node_io* io) {
  size_t bytes = om_shape_count(io->shapes[0], io->ranks[0]) * om_type_size(node->type);
  if (bytes && io->outs[0] != io->data[0]) memcpy(io->outs[0], io->data[0], bytes);
  return 0;
}

const om_family om_family_reshape = {sizeof(om_reshape_node), om_rs_create, om_rs_shapes, om_rs_run, om_int_inputs_set_constant,
                                     om_int_inputs_shape_input, NULL, om_rs_check_ranks};
