/* node_qlinear_concat.c - com.microsoft QLinearConcat (docs/quantized-elementwise.md): Y_scale, Y_zero_point, then
 * one (X, X_scale, X_zero_point) triple per input; every X and Y of one 8-bit type, every scale and zero point
 * per tensor. Each input is requantised to Y's parameters through its own 256-entry table of DequantizeLinear
 * then QuantizeLinear (qlinear_params.h's om_qlin_table, the identity as the function), built per run, and
 * its rows are written one after another along axis as Concat does (node_concat.c). The work is split over the
 * rows before axis in fixed chunks. Knows nothing of ORT.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/om_ops.h"
#include "int_input.h"
#include "node_family.h"
#include "parallel.h"
#include "qlinear_params.h"
#include "quant/qlinear.h"

#define OM_QC_CHUNK_ELEMS ((size_t)1 << 16) /* output elements per parallel chunk (at least one row) */

typedef struct om_qcat {
  int64_t axis;
  int t; /* the 8-bit type of Y and every X */
} om_qcat;

static const char* om_qc_op(const om_node* node) { return om_op_row(node->op)->name; }

/* The name of input k: "Y_scale", "Y_zero_point", then "X", "X_scale", "X_zero_point" of input (k - 2) / 3. */
static void om_qc_name(size_t k, char* buf, size_t len) {
  static const char* const parts[3] = {"X", "X_scale", "X_zero_point"};
  if (k < 2) snprintf(buf, len, "%s", k ? "Y_zero_point" : "Y_scale");
  else snprintf(buf, len, "%s of input %zu", parts[(k - 2) % 3], (k - 2) / 3);
}

static int om_qc_create(om_node* node, const om_attrs* a, char* err, size_t errlen) {
  om_qcat* m = node->impl;
  const int* types = node->input_types;
  char name[64];
  if (node->n_inputs < 5 || (node->n_inputs - 2) % 3 != 0)
    OM_FAIL_MSG("node '%s' (op %s): %zu inputs; it takes Y_scale, Y_zero_point and then three inputs (X, X_scale, "
                "X_zero_point) per input tensor", node->name, om_qc_op(node), node->n_inputs);
  if (!a->has_axis) OM_FAIL_MSG("node '%s' (op %s): attribute axis is required", node->name, om_qc_op(node));
  m->axis = a->axis;
  m->t = types[1];
  if (m->t != OM_T_UINT8 && m->t != OM_T_INT8)
    OM_FAIL_MSG("node '%s' (op %s): Y_zero_point has element type %s; it must be uint8 or int8", node->name,
                om_qc_op(node), om_type_name(m->t));
  for (size_t k = 0; k < node->n_inputs; k++) {
    const int want = k == 0 || (k >= 2 && (k - 2) % 3 == 1) ? OM_T_FLOAT : m->t;
    om_qc_name(k, name, sizeof name);
    if (!types[k])
      OM_FAIL_MSG("node '%s' (op %s): %s (input %zu) is missing; it is required", node->name, om_qc_op(node), name,
                  k);
    if (types[k] != want)
      OM_FAIL_MSG("node '%s' (op %s): %s has element type %s; it must be %s", node->name, om_qc_op(node), name,
                  om_type_name(types[k]), om_type_name(want));
  }
  node->out_types[0] = m->t;
  return 0;
}

static int om_qc_check_ranks(const om_node* node, size_t n_inputs, const size_t* ranks, char* err, size_t errlen) {
  const om_qcat* m = node->impl;
  int64_t axis;
  for (size_t k = 2; k < n_inputs; k += 3)
    if (ranks[k] != OM_RANK_UNKNOWN && om_axis_in_range(node, m->axis, ranks[k], "axis", &axis, err, errlen) != 0)
      return -1;
  return 0;
}

static int om_qc_shapes(const om_node* node, const om_node_io* io) {
  const om_qcat* m = node->impl;
  const size_t r = io->ranks[2];
  const int64_t* s0 = io->shapes[2];
  int64_t axis;
  if (om_axis_in_range(node, m->axis, r, "axis", &axis, io->err, io->errlen) != 0) return -1;
  memcpy(io->out_shapes, s0, r * sizeof(int64_t));
  for (size_t k = 5; k < io->n_inputs; k += 3) {
    int same = io->ranks[k] == r;
    for (size_t d = 0; same && d < r; d++) same = (int64_t)d == axis || io->shapes[k][d] == s0[d];
    if (!same) {
      snprintf(io->err, io->errlen, "node '%s' (op %s): the shape of X of input %zu does not match input 0's but on "
               "axis %lld", node->name, om_qc_op(node), (k - 2) / 3, (long long)axis);
      return -1;
    }
    io->out_shapes[axis] += io->shapes[k][axis];
  }
  io->out_ranks[0] = r;
  return 0;
}

typedef struct om_qc_job {
  size_t n_in;       /* input tensors */
  const uint8_t** x; /* n_in */
  const size_t* row; /* n_in: elements of a row of each */
  const uint8_t* tables; /* n_in x 256 */
  size_t out_row;
  uint8_t* y;
} om_qc_job;

static int om_qc_rows(const void* args, size_t begin, size_t end) {
  const om_qc_job* j = args;
  for (size_t o = begin; o < end; o++) {
    uint8_t* y = j->y + o * j->out_row;
    for (size_t i = 0; i < j->n_in; i++) {
      om_qlin_lookup(j->x[i] + o * j->row[i], j->row[i], j->tables + 256 * i, y);
      y += j->row[i];
    }
  }
  return 0;
}

static int om_qc_run(const om_node* node, const om_node_io* io) {
  const om_qcat* m = node->impl;
  const size_t r = io->ranks[2], n_in = (io->n_inputs - 2) / 3;
  const size_t axis = (size_t)(m->axis < 0 ? m->axis + (int64_t)r : m->axis);
  char name[64];
  float sy;
  int32_t zy;
  if (om_qlin_scale(node, io, 0, "Y_scale", &sy) || om_qlin_zero_point(node, io, 1, "Y_zero_point", m->t, 1, &zy))
    return -1;
  const size_t outer = om_shape_count(io->out_shapes, axis);
  const size_t inner = om_shape_count(io->out_shapes + axis + 1, r - axis - 1);
  const size_t total = om_shape_count(io->out_shapes, io->out_ranks[0]);
  uint8_t* tables = malloc(n_in * 256);
  const uint8_t** x = malloc(n_in * sizeof *x);
  size_t* row = malloc(n_in * sizeof *row);
  int rc = tables && x && row ? 0 : -1;
  if (rc != 0) snprintf(io->err, io->errlen, "node '%s' (op %s): out of memory", node->name, om_qc_op(node));
  for (size_t i = 0; rc == 0 && i < n_in; i++) {
    const size_t k = 2 + 3 * i;
    float sx;
    int32_t zx;
    om_qc_name(k + 1, name, sizeof name);
    rc = om_qlin_scale(node, io, k + 1, name, &sx);
    om_qc_name(k + 2, name, sizeof name);
    if (rc == 0) rc = om_qlin_zero_point(node, io, k + 2, name, m->t, 1, &zx);
    if (rc == 0) om_qlin_table(m->t, sx, zx, NULL, NULL, sy, zy, tables + 256 * i);
    x[i] = io->data[k];
    row[i] = (size_t)io->shapes[k][axis] * inner;
  }
  if (rc == 0 && total && io->outs[0]) {
    om_qc_job j = {n_in, x, row, tables, (size_t)io->out_shapes[axis] * inner, io->outs[0]};
    size_t chunk = OM_QC_CHUNK_ELEMS / (j.out_row ? j.out_row : 1);
    rc = om_parallel_ranges(io->parallel_for, io->host_ctx, outer, chunk ? chunk : 1, om_qc_rows, &j);
  }
  free(tables);
  free(x);
  free(row);
  return rc;
}

const om_family om_family_qlinear_concat = {sizeof(om_qcat), om_qc_create, om_qc_shapes, om_qc_run,
                                            om_qlin_set_constant_one, NULL, NULL, om_qc_check_ranks};
