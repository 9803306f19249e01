/* node_scatter.c - ScatterElements and ScatterND (opset 11; bfloat16 from 13; `reduction` add and mul from 16, max
 * and min from 18): output 0 is data (input 0) with the updates (input 2) written at the places the indices
 * (input 1) name, an index counting from the end when negative (docs/data-movement.md). Every index is checked,
 * and each update turned into its element offset, before anything is written: one out of range stops the run
 * with an error naming the first such index in indices' order. Then data is copied and the updates applied in
 * their row-major order on one thread (scatter_apply.c), which makes duplicate indices deterministic.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/om_ops.h"
#include "index_input.h"
#include "int_input.h"
#include "movement.h"
#include "node_family.h"
#include "scatter_apply.h"

typedef struct om_scatter_node {
  int64_t axis;  /* ScatterElements */
  int reduction; /* OM_SCATTER_* */
} om_scatter_node;

static int om_sc_create(om_node* node, const om_attrs* a, char* err, size_t errlen) {
  om_scatter_node* s = node->impl;
  const char* opn = om_op_row(node->op)->name;
  int want_index = node->op == OM_OP_SCATTER_ND ? OM_T_INT64 : -1;
  int ti = node->input_types[1];
  if (want_index == OM_T_INT64 ? ti != OM_T_INT64 : (ti != OM_T_INT32 && ti != OM_T_INT64))
    OM_FAIL_MSG("node '%s' (op %s): unsupported element type %s for input 1 (indices; supported: %s)", node->name,
                opn, om_type_name(ti), want_index == OM_T_INT64 ? "int64" : "int32, int64");
  if (node->input_types[2] != node->type)
    OM_FAIL_MSG("node '%s' (op %s): element type %s of input 2 (updates) does not match input 0 (%s)", node->name,
                opn, om_type_name(node->input_types[2]), om_type_name(node->type));
  if (node->op == OM_OP_SCATTER_ELEMENTS) s->axis = a->has_axis ? a->axis : 0;
  else if (a->has_axis)
    OM_FAIL_MSG("node '%s' (op %s): attribute 'axis' is not one of %s's", node->name, opn, opn);
  s->reduction = a->has_scatter_reduction ? a->scatter_reduction : OM_SCATTER_NONE;
  if (s->reduction < 0 || s->reduction > OM_SCATTER_MIN)
    OM_FAIL_MSG("node '%s' (op %s): attribute 'reduction' must be none, add, mul, max or min", node->name, opn);
  int since = s->reduction >= OM_SCATTER_MAX ? 18 : 16;
  if (a->has_scatter_reduction && node->opset > 0 && node->opset < since)
    OM_FAIL_MSG("node '%s' (op %s): attribute 'reduction' %s is not in opset %d (from %d)", node->name, opn,
                om_scatter_reduction_name(s->reduction), node->opset, since);
  if (!om_scatter_reduction_serves(s->reduction, node->type))
    OM_FAIL_MSG("node '%s' (op %s): reduction %s on element type %s is not served", node->name, opn,
                om_scatter_reduction_name(s->reduction), om_type_name(node->type));
  return 0;
}

/* The ranks r (data), q (indices), u (updates; OM_RANK_UNKNOWN: not known yet) */
static int om_sc_ranks(const om_node* node, size_t r, size_t q, size_t u, char* err, size_t errlen) {
  const char* opn = om_op_row(node->op)->name;
  if (r == 0) OM_FAIL_MSG("node '%s' (op %s): input 0 (data) has rank 0; %s needs rank 1 or more", node->name, opn, opn);
  if (q == 0) OM_FAIL_MSG("node '%s' (op %s): input 1 (indices) has rank 0; %s needs rank 1 or more", node->name, opn, opn);
  if (node->op == OM_OP_SCATTER_ND) return 0;
  if (q != OM_RANK_UNKNOWN && q != r)
    OM_FAIL_MSG("node '%s' (op %s): input 1 (indices) has rank %zu, input 0 (data) rank %zu; they must be equal",
                node->name, opn, q, r);
  if (u != OM_RANK_UNKNOWN && u != r)
    OM_FAIL_MSG("node '%s' (op %s): input 2 (updates) has rank %zu, input 0 (data) rank %zu; they must be equal",
                node->name, opn, u, r);
  int64_t axis;
  return om_axis_in_range(node, ((const om_scatter_node*)node->impl)->axis, r, "axis", &axis, err, errlen);
}

static int om_sc_check_ranks(const om_node* node, size_t n_inputs, const size_t* ranks, char* err, size_t errlen) {
  if (n_inputs < 3 || ranks[0] == OM_RANK_UNKNOWN) return 0;
  return om_sc_ranks(node, ranks[0], ranks[1], ranks[2], err, errlen);
}

/* The updates' shape against what the indices and data make it: ScatterElements indices' shape, with each
 * dimension but the axis at most data's; ScatterND indices.shape[:-1] + data.shape[k:]. */
static int om_sc_shapes(const om_node* node, const om_node_io* io) {
  const char* opn = om_op_row(node->op)->name;
  char* err = io->err;
  size_t errlen = io->errlen, r = io->ranks[0], q = io->ranks[1], u = io->ranks[2];
  if (om_sc_ranks(node, r, q, u, err, errlen) != 0) return -1;
  const int64_t *x = io->shapes[0], *ix = io->shapes[1], *up = io->shapes[2];
  if (node->op == OM_OP_SCATTER_ELEMENTS) {
    int64_t axis = ((const om_scatter_node*)node->impl)->axis;
    size_t ax = (size_t)(axis < 0 ? axis + (int64_t)r : axis);
    for (size_t d = 0; d < r; d++) {
      if (up[d] != ix[d])
        OM_FAIL_MSG("node '%s' (op %s): input 2 (updates) has %lld along dimension %zu, input 1 (indices) %lld; "
                    "their shapes must be equal", node->name, opn, (long long)up[d], d, (long long)ix[d]);
      if (d != ax && ix[d] > x[d])
        OM_FAIL_MSG("node '%s' (op %s): input 1 (indices) has %lld along dimension %zu, more than input 0 "
                    "(data)'s %lld", node->name, opn, (long long)ix[d], d, (long long)x[d]);
    }
  } else {
    int64_t k = ix[q - 1];
    if (k < 1 || (uint64_t)k > r)
      OM_FAIL_MSG("node '%s' (op %s): the last dimension of input 1 (indices) is %lld; it must be 1 to %zu (data's "
                  "rank)", node->name, opn, (long long)k, r);
    size_t want = q - 1 + r - (size_t)k;
    int ok = u == want;
    for (size_t d = 0; ok && d < want; d++) ok = up[d] == (d < q - 1 ? ix[d] : x[(size_t)k + d - (q - 1)]);
    if (!ok)
      OM_FAIL_MSG("node '%s' (op %s): input 2 (updates) must have the shape indices.shape[:-1] + data.shape[%lld:] "
                  "(rank %zu); it has rank %zu or another dimension", node->name, opn, (long long)k, want, u);
  }
  memcpy(io->out_shapes, x, r * sizeof(int64_t));
  io->out_ranks[0] = r;
  return 0;
}

/* ScatterElements: each update's element offset in data, checked; 0, or -1 with the first bad index named. */
static int om_sc_elements_offsets(const om_node* node, const om_node_io* io, size_t* off) {
  size_t r = io->ranks[0], n = om_shape_count(io->shapes[1], r);
  int64_t axis = ((const om_scatter_node*)node->impl)->axis;
  size_t ax = (size_t)(axis < 0 ? axis + (int64_t)r : axis);
  int64_t size = io->shapes[0][ax], stride[OM_MAX_RANK];
  size_t pos[OM_MAX_RANK] = {0};
  const int64_t* ix = io->shapes[1];
  om_row_major_strides(io->shapes[0], r, stride);
  if (om_indices_check(node, node->type1, io->data[1], n, size, "axis", ax, io->err, io->errlen) != 0) return -1;
  for (size_t g = 0; g < n; g++) {
    int64_t v = om_index_at(node->type1, io->data[1], g), o = (v < 0 ? v + size : v) * stride[ax];
    for (size_t d = 0; d < r; d++)
      if (d != ax) o += (int64_t)pos[d] * stride[d];
    off[g] = (size_t)o;
    for (size_t d = r; d-- > 0;) { /* the next position, row-major */
      if (++pos[d] < (size_t)ix[d]) break;
      pos[d] = 0;
    }
  }
  return 0;
}

/* ScatterND: each k-tuple's run offset in data, checked in indices' order. */
static int om_sc_nd_offsets(const om_node* node, const om_node_io* io, size_t* off, size_t runs, size_t run) {
  size_t q = io->ranks[1], k = (size_t)io->shapes[1][q - 1];
  const int64_t *x = io->shapes[0], *idx = io->data[1];
  size_t stride[OM_MAX_RANK]; /* data's element stride of dimension m < k */
  for (size_t m = k, s = run; m-- > 0;) {
    stride[m] = s;
    s *= (size_t)x[m];
  }
  for (size_t g = 0; g < runs; g++) {
    size_t o = 0;
    for (size_t m = 0; m < k; m++) {
      int64_t v = idx[g * k + m], dim = x[m];
      if (v < -dim || v >= dim)
        return om_index_out_of_range(node, v, g * k + m, dim, "data dimension", m, io->err, io->errlen);
      o += (size_t)(v < 0 ? v + dim : v) * stride[m];
    }
    off[g] = o;
  }
  return 0;
}

static int om_sc_run(const om_node* node, const om_node_io* io) {
  size_t r = io->ranks[0], q = io->ranks[1], esz = om_type_size(node->type);
  size_t runs, run;
  if (node->op == OM_OP_SCATTER_ELEMENTS) {
    runs = om_shape_count(io->shapes[1], q);
    run = 1;
  } else {
    size_t k = (size_t)io->shapes[1][q - 1];
    runs = om_shape_count(io->shapes[1], q - 1);
    run = om_shape_count(io->shapes[0] + k, r - k);
  }
  size_t* off = runs ? malloc(runs * sizeof *off) : NULL;
  if (runs && !off) {
    snprintf(io->err, io->errlen, "node '%s' (op %s): out of memory", node->name, om_op_row(node->op)->name);
    return -1;
  }
  int bad = node->op == OM_OP_SCATTER_ELEMENTS ? om_sc_elements_offsets(node, io, off)
                                               : om_sc_nd_offsets(node, io, off, runs, run);
  if (!bad && io->outs[0]) {
    size_t n = om_shape_count(io->shapes[0], r);
    if (n && io->outs[0] != io->data[0]) memcpy(io->outs[0], io->data[0], n * esz);
    if (run)
      om_scatter_apply(node->type, ((const om_scatter_node*)node->impl)->reduction, io->outs[0], io->data[2], off,
                       runs, run);
  }
  free(off);
  return bad ? -1 : 0;
}

const om_family om_family_scatter = {sizeof(om_scatter_node), om_sc_create, om_sc_shapes, om_sc_run,
                                     NULL, NULL, NULL, om_sc_check_ranks};
