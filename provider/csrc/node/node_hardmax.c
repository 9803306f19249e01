/* node_hardmax.c - Hardmax (f16, f32, f64): 1 at the first greatest element of each row, 0 elsewhere; the rows as
 * Softmax's (om_row_view: one axis from opset 13, the input coerced to 2-D at axis before). The rule, NaN included
 * (docs/shape-ops.md, "Hardmax"): ArgMax's (select_last_index 0): the first greatest, a NaN greater than every
 * number (NumPy's argmax, ONNX's reference). Comparisons only: no rounding, so every path, thread count and
 * chunking gives the same bits. The rows are split over fixed chunks of units.
 */
#include <stdio.h>
#include <string.h>

#include "broadcast.h"
#include "core/om_ops.h"
#include "math/om_half.h"
#include "node_family.h"
#include "parallel.h"

/* Elements scanned per parallel chunk (at least one row). */
#define OM_HARDMAX_CHUNK ((size_t)1 << 15)

typedef struct om_hardmax_node {
  int coerce_2d; /* opset < 13 */
  int64_t axis;
} om_hardmax_node;

static int om_hm_create(om_node* node, const om_attrs* a, char* err, size_t errlen) {
  om_hardmax_node* s = node->impl;
  if (node->type != OM_T_FLOAT && node->type != OM_T_DOUBLE && node->type != OM_T_FLOAT16)
    return om_family_no_kernel(node, err, errlen);
  s->coerce_2d = node->opset > 0 && node->opset < 13;
  s->axis = a->has_axis ? a->axis : s->coerce_2d ? 1 : -1;
  return 0;
}

static int om_hm_view(const om_node* node, const int64_t* dims, size_t rank, size_t* outer, size_t* n, size_t* inner,
                      char* err, size_t errlen) {
  const om_hardmax_node* s = node->impl;
  return om_row_view(node, s->coerce_2d, s->axis, dims, rank, outer, n, inner, err, errlen);
}

static int om_hm_shapes(const om_node* node, const om_node_io* io) {
  size_t outer, n, inner;
  if (om_hm_view(node, io->shapes[0], io->ranks[0], &outer, &n, &inner, io->err, io->errlen) != 0) return -1;
  for (size_t d = 0; d < io->ranks[0]; d++) io->out_shapes[d] = io->shapes[0][d];
  io->out_ranks[0] = io->ranks[0];
  return 0;
}

typedef struct om_hm_job {
  int type;
  size_t n, inner;
  const void* x;
  void* y;
} om_hm_job;

/* Element e of x as a double (exact for every served type). */
static double om_hm_at(int type, const void* x, size_t e) {
  if (type == OM_T_FLOAT) return ((const float*)x)[e];
  if (type == OM_T_DOUBLE) return ((const double*)x)[e];
  return om_f16_to_f32(((const uint16_t*)x)[e]);
}

/* Units (outer x inner positions) [b, e): each row's index, then its zeros and its one. */
static int om_hm_units(const void* args, size_t b, size_t e) {
  const om_hm_job* j = args;
  const size_t size = om_type_size(j->type);
  for (size_t u = b; u < e; u++) {
    size_t o = u / j->inner, i = u % j->inner, base = o * j->n * j->inner + i;
    size_t k = 0;
    double best = om_hm_at(j->type, j->x, base);
    for (size_t q = 1; q < j->n && best == best; q++) { /* a NaN at k ends the scan */
      double v = om_hm_at(j->type, j->x, base + q * j->inner);
      if (best < v || v != v) {
        best = v;
        k = q;
      }
    }
    char* y = j->y;
    for (size_t q = 0; q < j->n; q++) memset(y + (base + q * j->inner) * size, 0, size);
    char* one = y + (base + k * j->inner) * size;
    if (j->type == OM_T_FLOAT) *(float*)(void*)one = 1.0f;
    else if (j->type == OM_T_DOUBLE) *(double*)(void*)one = 1.0;
    else *(uint16_t*)(void*)one = 0x3C00u; /* f16 1.0 */
  }
  return 0;
}

static int om_hm_run(const om_node* node, const om_node_io* io) {
  om_hm_job j = {node->type, 0, 0, io->data[0], io->outs[0]};
  size_t outer;
  if (om_hm_view(node, io->shapes[0], io->ranks[0], &outer, &j.n, &j.inner, io->err, io->errlen) != 0) return -1;
  size_t units = outer * j.inner;
  if (units == 0 || j.n == 0) return 0; /* no element */
  if (om_parallel_ranges(io->parallel_for, io->host_ctx, units, OM_HARDMAX_CHUNK / j.n, om_hm_units, &j) != 0) {
    snprintf(io->err, io->errlen, "node '%s' (op %s): internal error", node->name, om_op_row(node->op)->name);
    return -1;
  }
  return 0;
}

/* At creation: the axis against a declared rank. */
static int om_hm_check_ranks(const om_node* node, size_t n_inputs, const size_t* ranks, char* err, size_t errlen) {
  (void)n_inputs;
  if (ranks[0] == OM_RANK_UNKNOWN || ranks[0] > OM_MAX_RANK) return 0;
  size_t outer, n, inner;
  int64_t dims[OM_MAX_RANK] = {0};
  return om_hm_view(node, dims, ranks[0], &outer, &n, &inner, err, errlen);
}

const om_family om_family_hardmax = {.state_size = sizeof(om_hardmax_node), .create = om_hm_create,
                                     .shapes = om_hm_shapes, .run = om_hm_run, .check_ranks = om_hm_check_ranks};
