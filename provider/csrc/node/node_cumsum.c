/* node_cumsum.c - CumSum (opsets 11, 14): the running sum of x along the axis given by input 1 (an int32 or int64
 * scalar or one-element tensor; read once when an initializer); int32, int64, uint32, uint64, float, double
 * (float16 and bfloat16, opset 14, stay with stock ONNX Runtime). docs/data-movement.md.
 *
 * Along each vector x_0 .. x_(n-1) (reverse = 1: taken from the end, x_(n-1) first), in the element type, one
 * rounding per addition, in index order:
 *
 *   inclusive:  y_0 = x_0,   y_i = y_(i-1) + x_i
 *   exclusive:  y_0 = 0,     y_i = y_(i-1) + x_(i-1)
 *
 * (The inclusive y_0 = x_0 is a copy: -0.0 stays -0.0; the exclusive y_0 is +0.0 and y_1 = +0.0 + x_0 an addition,
 * as stock ONNX Runtime's kernel.) Integers wrap modulo 2^bits. x is viewed as
 * [outer, n, inner]: each outer block runs i in order over runs of up to OM_CS_RUN inner elements at once (the
 * vectors side by side, each its own chain), the runs on the host's threads.
 */
#include <stdio.h>
#include <string.h>

#include "core/om_ops.h"
#include "int_input.h"
#include "node_family.h"
#include "parallel.h"

#define OM_CS_RUN ((size_t)1024)

typedef struct om_cumsum_node {
  om_int_inputs ii; /* first: input 1 (axis) (int_input.h) */
  int exclusive, reverse;
} om_cumsum_node;

static const char* om_cs_op(const om_node* node) { return om_op_row(node->op)->name; }

static int om_cs_create(om_node* node, const om_attrs* a, char* err, size_t errlen) {
  om_cumsum_node* c = node->impl;
  int t = node->type;
  if (t != OM_T_INT32 && t != OM_T_INT64 && t != OM_T_UINT32 && t != OM_T_UINT64 && t != OM_T_FLOAT &&
      t != OM_T_DOUBLE)
    return om_family_no_kernel(node, err, errlen);
  if (node->n_inputs != 2)
    OM_FAIL_MSG("node '%s' (op %s): needs 2 inputs (x, axis), has %zu", node->name, om_cs_op(node), node->n_inputs);
  om_int_input_declare(&c->ii, 1, "axis", node->input_types[1]);
  c->ii.scalar_ok = 1;
  c->exclusive = a->has_exclusive && a->exclusive != 0;
  c->reverse = a->has_reverse && a->reverse != 0;
  return 0;
}

/* The axis for the call io, in [0, rank): 0, or -1 with a message in io->err. */
static int om_cs_axis(const om_node* node, const om_node_io* io, size_t* axis) {
  om_int_list buf;
  const om_int_list* l = om_int_inputs_get(node, io, 1, &buf);
  if (!l) return -1;
  if (!l->known || l->n != 1) {
    snprintf(io->err, io->errlen, "node '%s' (op %s): input 1 (axis) must hold one integer, it has %zu", node->name,
             om_cs_op(node), l->known ? l->n : 0);
    return -1;
  }
  int64_t a;
  if (om_axis_in_range(node, l->v[0], io->ranks[0], "axis", &a, io->err, io->errlen) != 0) return -1;
  *axis = (size_t)a;
  return 0;
}

static int om_cs_shapes(const om_node* node, const om_node_io* io) {
  const om_cumsum_node* c = node->impl;
  size_t axis, r = io->ranks[0];
  /* the output shape needs no axis: checked here when known, else at the run */
  if ((c->ii.v[1].known || (io->data && io->data[1])) && om_cs_axis(node, io, &axis) != 0) return -1;
  memcpy(io->out_shapes, io->shapes[0], r * sizeof(int64_t));
  io->out_ranks[0] = r;
  return 0;
}

/* At creation: a constant axis against a declared rank. */
static int om_cs_check_ranks(const om_node* node, size_t n_inputs, const size_t* ranks, char* err, size_t errlen) {
  const om_cumsum_node* c = node->impl;
  int64_t a;
  (void)n_inputs;
  if (ranks[0] == OM_RANK_UNKNOWN || !c->ii.v[1].known || c->ii.v[1].n != 1) return 0;
  return om_axis_in_range(node, c->ii.v[1].v[0], ranks[0], "axis", &a, err, errlen);
}

typedef struct om_cs_job {
  const char* x;
  char* y;
  int type, exclusive, reverse;
  size_t esz, n, inner, runs_per_block; /* runs of up to OM_CS_RUN along inner per outer block */
} om_cs_job;

/* One run: w vectors side by side from element offset base (x and y), stride `inner` between steps. */
#define OM_CS_BODY(T, U)                                                                                  \
  do {                                                                                                    \
    const T* x = (const T*)j->x + base;                                                                   \
    T* y = (T*)j->y + base;                                                                               \
    ptrdiff_t step = j->reverse ? -(ptrdiff_t)in : (ptrdiff_t)in;                                         \
    size_t first = j->reverse ? (j->n - 1) * in : 0;                                                      \
    const T* xs = x + first;                                                                              \
    T* ys = y + first;                                                                                    \
    if (j->exclusive) {                                                                                   \
      for (size_t q = 0; q < w; q++) ys[q] = (T)0;                                                        \
      for (size_t i = 1; i < j->n; i++)                                                                   \
        for (size_t q = 0; q < w; q++)                                                                    \
          ys[i * step + q] = (T)((U)ys[(i - 1) * step + q] + (U)xs[(i - 1) * step + q]);                  \
    } else {                                                                                              \
      for (size_t q = 0; q < w; q++) ys[q] = xs[q];                                                       \
      for (size_t i = 1; i < j->n; i++)                                                                   \
        for (size_t q = 0; q < w; q++) ys[i * step + q] = (T)((U)ys[(i - 1) * step + q] + (U)xs[i * step + q]); \
    }                                                                                                     \
  } while (0)

static void om_cs_run_one(void* vj, size_t u) {
  const om_cs_job* j = vj;
  size_t in = j->inner, o = u / j->runs_per_block, j0 = (u % j->runs_per_block) * OM_CS_RUN;
  size_t w = in - j0 < OM_CS_RUN ? in - j0 : OM_CS_RUN, base = o * j->n * in + j0;
  switch (j->type) {
    case OM_T_INT32: OM_CS_BODY(int32_t, uint32_t); break;
    case OM_T_UINT32: OM_CS_BODY(uint32_t, uint32_t); break;
    case OM_T_INT64: OM_CS_BODY(int64_t, uint64_t); break;
    case OM_T_UINT64: OM_CS_BODY(uint64_t, uint64_t); break;
    case OM_T_FLOAT: OM_CS_BODY(float, float); break;
    default: OM_CS_BODY(double, double); break;
  }
}

static int om_cs_run(const om_node* node, const om_node_io* io) {
  const om_cumsum_node* c = node->impl;
  size_t axis, r = io->ranks[0];
  if (om_cs_axis(node, io, &axis) != 0) return -1;
  om_cs_job j = {io->data[0], io->outs[0], node->type, c->exclusive, c->reverse, om_type_size(node->type),
                 (size_t)io->shapes[0][axis], 0, 0};
  j.inner = om_shape_count(io->shapes[0] + axis + 1, r - axis - 1);
  size_t outer = om_shape_count(io->shapes[0], axis);
  if (!j.y || !outer || !j.n || !j.inner) return 0;
  j.runs_per_block = (j.inner + OM_CS_RUN - 1) / OM_CS_RUN;
  om_parallel_ieee(io->parallel_for, io->host_ctx, outer * j.runs_per_block, om_cs_run_one, &j);
  return 0;
}

const om_family om_family_cumsum = {sizeof(om_cumsum_node), om_cs_create, om_cs_shapes, om_cs_run,
                                    om_int_inputs_set_constant, NULL, NULL, om_cs_check_ranks};
