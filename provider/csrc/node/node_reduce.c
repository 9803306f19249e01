/* node_reduce.c - the Reduce nodes (ReduceSum ... ReduceLogSumExp): attributes, axes, ONNX shapes, onto the
 * exact kernels of reduce/reduce.h.
 *
 * Axes: the attribute `axes` before opset 13 (ReduceSum) or 18 (the others), the optional int64 input 1 from
 * then on. A constant axes input (an initializer) is read once (om_node_set_constant_input); any other is read
 * at run time, and the output shape depends on its data. Negative axes count from the end; an axis out of
 * [-rank, rank - 1] is an error; an axis named more than once (also as -1 and rank - 1) is reduced once, as stock
 * ONNX Runtime does. No axes (absent or empty): every axis is reduced, or, with noop_with_empty_axes = 1, the
 * output is the input. keepdims (default 1) keeps each reduced axis as size 1.
 *
 * The dimensions are coalesced (size-1 ones dropped, neighbours of the same kind merged) before planning. When
 * the reduced and kept runs number more than OM_RED_MAX_RANK (alternate axes of a high-rank input), the input
 * is first gathered into [kept..., reduced...] order (each kind's elements in their own row-major order), which
 * the plan then reduces as two dimensions. The work is split over the output elements in fixed chunks
 * (om_parallel_ieee); the kernels' results never depend on the chunking.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "broadcast.h"
#include "node_family.h"
#include "node_reduce.h"
#include "parallel.h"
#include "core/om_ops.h"
#include "int_input.h"
#include "reduce/reduce.h"

/* Input elements per parallel chunk (at least one output each): enough work to amortise the hand-off. */
#define OM_RED_CHUNK_ELEMS ((size_t)1 << 15)
/* Distinct axis values that can all be in range: -64 .. 63 for the highest rank served. */
#define OM_RD_MAX_AXES (2 * OM_MAX_RANK)

typedef struct om_reduce_node {
  int red;          /* OM_RED_* */
  int keepdims;
  int noop;         /* noop_with_empty_axes */
  int axes_input;   /* 1: axes come from input 1; 0: from the attribute */
  int axes_known;   /* the attribute, or a constant input 1: axes[0 .. n_axes) */
  size_t n_axes;
  int64_t axes[OM_RD_MAX_AXES]; /* distinct values */
} om_reduce_node;

static const char* om_rd_name(const om_node* node) { return om_op_row(node->op)->name; }

/* The opset from which axes is input 1. */
static int om_rd_axes_input_since(int red) { return red == OM_RED_SUM ? 13 : 18; }

/* The opset from which element type t is served (0: every opset). */
static int om_rd_type_since(int red, int t) {
  if (t == OM_T_BFLOAT16) return 13;
  if ((t == OM_T_INT8 || t == OM_T_UINT8) && (red == OM_RED_MAX || red == OM_RED_MIN)) return 12;
  return 0;
}

/* The distinct values of axes[0 .. n) into out (at most OM_RD_MAX_AXES); more than that many distinct values
 * include one out of range for every rank served. 0, or -1 with a message. */
static int om_rd_distinct(const om_node* node, const int64_t* axes, size_t n, int64_t* out, size_t* n_out, char* err,
                          size_t errlen) {
  size_t m = 0;
  for (size_t i = 0; i < n; i++) {
    int64_t a = axes[i];
    size_t j = 0;
    while (j < m && out[j] != a) j++;
    if (j < m) continue; /* named again: reduced once */
    if (m == OM_RD_MAX_AXES || a < -(int64_t)OM_MAX_RANK || a >= (int64_t)OM_MAX_RANK) {
      snprintf(err, errlen, "node '%s' (op %s): axis %lld is out of range for every input rank served (at most %d)",
               node->name, om_rd_name(node), (long long)a, OM_MAX_RANK);
      return -1;
    }
    out[m++] = a;
  }
  *n_out = m;
  return 0;
}

static int om_rd_create(om_node* node, const om_attrs* a, char* err, size_t errlen) {
  const char* opn = om_rd_name(node);
  om_reduce_node* r = node->impl;
  r->red = om_reduce_op_from_name(opn);
  if (r->red < 0 || !om_reduce_supported(r->red, node->type)) return om_family_no_kernel(node, err, errlen);
  int since = om_rd_type_since(r->red, node->type);
  if (node->opset > 0 && node->opset < since) {
    snprintf(err, errlen, "node '%s' (op %s): element type %s needs opset %d or later (opset %d)", node->name, opn,
             om_type_name(node->type), since, node->opset);
    return -1;
  }
  r->keepdims = a->has_keepdims ? (int)a->keepdims : 1;
  if (a->has_keepdims && a->keepdims != 0 && a->keepdims != 1) {
    snprintf(err, errlen, "node '%s' (op %s): attribute keepdims must be 0 or 1, got %lld", node->name, opn,
             (long long)a->keepdims);
    return -1;
  }
  if (a->has_noop_with_empty_axes && a->noop_with_empty_axes != 0 && a->noop_with_empty_axes != 1) {
    snprintf(err, errlen, "node '%s' (op %s): attribute noop_with_empty_axes must be 0 or 1, got %lld", node->name,
             opn, (long long)a->noop_with_empty_axes);
    return -1;
  }
  r->noop = a->has_noop_with_empty_axes ? (int)a->noop_with_empty_axes : 0;
  int in_since = om_rd_axes_input_since(r->red);
  int has_input1 = node->type1 != 0; /* input 1 (axes) given */
  if (om_axes_form(node, a, has_input1, in_since, &r->axes_input, err, errlen) != 0) return -1;
  if (!r->axes_input && a->has_noop_with_empty_axes) {
    snprintf(err, errlen, "node '%s' (op %s): attribute noop_with_empty_axes is defined from opset %d on (opset %d)",
             node->name, opn, in_since, node->opset);
    return -1;
  }
  if (!r->axes_input) {
    r->axes_known = 1;
    size_t n = a->has_axes ? a->n_axes : 0;
    if (om_rd_distinct(node, a->axes, n, r->axes, &r->n_axes, err, errlen) != 0) return -1;
  } else if (!has_input1) {
    r->axes_known = 1; /* no axes input: no axes */
  }
  return 0;
}

/* The axes of input 1 (a 1-D int64 tensor) into axes; 0, or -1 with a message. */
static int om_rd_read_axes(const om_node* node, const void* data, const int64_t* shape, size_t rank, int64_t* axes,
                           size_t* n_axes, char* err, size_t errlen) {
  const char* opn = om_rd_name(node);
  if (rank != 1) {
    snprintf(err, errlen, "node '%s' (op %s): input 1 (axes) must be 1-D, it has rank %zu", node->name, opn, rank);
    return -1;
  }
  return om_rd_distinct(node, data, (size_t)shape[0], axes, n_axes, err, errlen);
}

static int om_rd_set_constant(om_node* node, size_t k, const void* data, const int64_t* shape, size_t rank,
                              char* err, size_t errlen) {
  om_reduce_node* r = node->impl;
  if (k != 1 || !r->axes_input) return 0;
  if (om_rd_read_axes(node, data, shape, rank, r->axes, &r->n_axes, err, errlen) != 0) return -1;
  r->axes_known = 1;
  return 0;
}

static int om_rd_shape_input(const om_node* node, size_t k) {
  const om_reduce_node* r = node->impl;
  return k == 1 && !r->axes_known;
}

/* Whether the reduction of one element is that element (so a no-op reduction may copy). */
static int om_rd_one_is_copy(int red) {
  return red == OM_RED_SUM || red == OM_RED_MEAN || red == OM_RED_MAX || red == OM_RED_MIN || red == OM_RED_PROD;
}

/* What one run reduces: mask[d] for the input's axes, or identity (noop_with_empty_axes, no axes). */
typedef struct om_rd_axes {
  int identity;
  uint8_t mask[OM_MAX_RANK];
} om_rd_axes;

static int om_rd_resolve(const om_node* node, size_t n_inputs, const void* const* data,
                         const int64_t* const* shapes, const size_t* ranks, om_rd_axes* out, char* err,
                         size_t errlen) {
  const om_reduce_node* r = node->impl;
  const char* opn = om_rd_name(node);
  int64_t buf[OM_RD_MAX_AXES];
  const int64_t* axes = r->axes;
  size_t n_axes = r->n_axes;
  /* Input 1 is present when it has a shape or data (a host may give a rank-0 input no shape pointer). */
  if (!r->axes_known && n_inputs > 1 && (shapes[1] || (data && data[1]))) {
    if (!data || !data[1]) {
      snprintf(err, errlen, "node '%s' (op %s): the output shape needs input 1 (axes)'s data", node->name, opn);
      return -1;
    }
    if (om_rd_read_axes(node, data[1], shapes[1], ranks[1], buf, &n_axes, err, errlen) != 0) return -1;
    axes = buf;
  } else if (!r->axes_known) {
    n_axes = 0; /* input 1 absent at run time */
  }
  size_t rank = ranks[0];
  memset(out, 0, sizeof *out);
  /* Axes from a run-time input on a scalar: its one element is reduced alone, whatever they say, as stock ORT
   * runs it. Constant axes (the attribute or an initializer) that name no axis of a scalar are refused, as
   * ONNX's shape inference refuses them in stock ORT. */
  if (rank == 0 && shapes && !r->axes_known) return 0;
  if (n_axes == 0) {
    /* noop_with_empty_axes: no axis reduced. Sum, Mean, Max, Min and Prod of one element are the element (a
     * copy); the others apply their element-wise part (|x|, x^2, sqrt(x^2), log x, log(exp x)) as a
     * reduction over one element each, as ONNX's reference and stock ORT do. */
    if (r->noop && r->axes_input) out->identity = om_rd_one_is_copy(r->red);
    else memset(out->mask, 1, rank);
    return 0;
  }
  for (size_t i = 0; i < n_axes; i++) {
    int64_t a = axes[i];
    if (a < -(int64_t)rank || a >= (int64_t)rank) {
      snprintf(err, errlen, "node '%s' (op %s): axis %lld is out of range for input 0 of rank %zu (allowed: %lld to %lld)",
               node->name, opn, (long long)a, rank, -(long long)rank, (long long)rank - 1);
      return -1;
    }
    out->mask[a < 0 ? a + (int64_t)rank : a] = 1; /* named twice (a and a - rank): reduced once */
  }
  return 0;
}

static int om_rd_check_ranks(const om_node* node, size_t n_inputs, const size_t* ranks, char* err, size_t errlen) {
  const om_reduce_node* r = node->impl;
  if (!r->axes_known || n_inputs == 0 || ranks[0] == OM_RANK_UNKNOWN) return 0;
  om_rd_axes ax;
  return om_rd_resolve(node, n_inputs, NULL, NULL, ranks, &ax, err, errlen);
}

static int om_rd_shapes(const om_node* node, const om_node_io* io) {
  const om_reduce_node* r = node->impl;
  om_rd_axes ax;
  if (om_rd_resolve(node, io->n_inputs, io->data, io->shapes, io->ranks, &ax, io->err, io->errlen) != 0) return -1;
  size_t o = 0;
  for (size_t d = 0; d < io->ranks[0]; d++) {
    if (ax.identity || !ax.mask[d]) io->out_shapes[o++] = io->shapes[0][d];
    else if (r->keepdims) io->out_shapes[o++] = 1;
  }
  io->out_ranks[0] = o;
  return 0;
}

/* x (count elements of esz bytes, coalesced dims[0 .. c) with mask) copied into a new buffer in the order
 * [kept dimensions..., reduced dimensions...], each kind in its own order: NULL when out of memory. */
static void* om_rd_gather(const void* x, size_t esz, size_t c, const int64_t* dims, const uint8_t* mask,
                          size_t count) {
  char* out = malloc(count ? count * esz : 1);
  if (!out) return NULL;
  int64_t src_stride[OM_MAX_RANK], pdims[OM_MAX_RANK], pstride[OM_MAX_RANK], idx[OM_MAX_RANK];
  int64_t s = 1;
  for (size_t d = c; d-- > 0;) {
    src_stride[d] = s;
    s *= dims[d];
  }
  size_t p = 0; /* the walk's dimensions: kept ones, then reduced ones */
  for (int kind = 0; kind < 2; kind++)
    for (size_t d = 0; d < c; d++)
      if (mask[d] == kind) {
        pdims[p] = dims[d];
        pstride[p++] = src_stride[d];
      }
  memset(idx, 0, sizeof idx);
  int64_t off = 0;
  for (size_t i = 0; i < count; i++) {
    memcpy(out + i * esz, (const char*)x + off * (int64_t)esz, esz);
    for (size_t q = c; q-- > 0;) { /* next index, row-major over the walk's dimensions */
      off += pstride[q];
      if (++idx[q] < pdims[q]) break;
      off -= pstride[q] * pdims[q];
      idx[q] = 0;
    }
  }
  return out;
}

typedef struct om_rd_task {
  const om_reduce_plan* plan;
  int path, red, type, mode;
  const void* x;
  void* y;
} om_rd_task;

/* Output units [b, e) (om_parallel_ranges): 0, or -1 out of memory. */
static int om_rd_units(const void* args, size_t b, size_t e) {
  const om_rd_task* t = args;
  return om_reduce_plan_run(t->plan, t->path, t->red, t->type, t->mode, b, e, t->x, t->y);
}

int om_reduce_node_run(const om_node* node, const om_node_io* io, int red, size_t c, const int64_t* dims,
                       const uint8_t* mask, const void* x) {
  const char* opn = om_op_row(node->op)->name;
  om_reduce_plan plan;
  if (om_reduce_plan_make(c, dims, mask, &plan) != 0) {
    snprintf(io->err, io->errlen, "node '%s' (op %s): internal error: the reduction could not be planned", node->name, opn);
    return -1;
  }
  om_rd_task t = {&plan, node->path, red, node->type, node->mode, x, io->outs[0]};
  size_t per = plan.n_reduced ? OM_RED_CHUNK_ELEMS / plan.n_reduced : OM_RED_CHUNK_ELEMS;
  if (om_parallel_ranges(io->parallel_for, io->host_ctx, plan.units, per, om_rd_units, &t) != 0) {
    snprintf(io->err, io->errlen, "node '%s' (op %s): out of memory", node->name, opn);
    return -1;
  }
  return 0;
}

static int om_rd_run(const om_node* node, const om_node_io* io) {
  const om_reduce_node* r = node->impl;
  const char* opn = om_rd_name(node);
  om_rd_axes ax;
  if (om_rd_resolve(node, io->n_inputs, io->data, io->shapes, io->ranks, &ax, io->err, io->errlen) != 0) return -1;
  size_t rank = io->ranks[0];
  size_t count = om_shape_count(io->shapes[0], rank);
  if (ax.identity) {
    if (count) memcpy(io->outs[0], io->data[0], count * om_type_size(node->type));
    return 0;
  }
  /* coalesce: drop size-1 dimensions, merge neighbours of the same kind */
  int64_t dims[OM_MAX_RANK];
  uint8_t mask[OM_MAX_RANK];
  size_t c = 0;
  for (size_t d = 0; d < rank; d++) {
    int64_t e = io->shapes[0][d];
    if (e == 1) continue;
    if (c && mask[c - 1] == ax.mask[d]) {
      dims[c - 1] *= e;
      continue;
    }
    dims[c] = e;
    mask[c++] = ax.mask[d];
  }
  const void* x = io->data[0];
  void* gathered = NULL;
  if (c > OM_RED_MAX_RANK) { /* more runs than a plan takes: gather into [kept..., reduced...], two dimensions */
    gathered = om_rd_gather(x, om_type_size(node->type), c, dims, mask, count);
    if (!gathered) {
      snprintf(io->err, io->errlen, "node '%s' (op %s): out of memory", node->name, opn);
      return -1;
    }
    int64_t kept = 1, reduced = 1;
    for (size_t d = 0; d < c; d++) *(mask[d] ? &reduced : &kept) *= dims[d];
    dims[0] = kept;
    dims[1] = reduced;
    mask[0] = 0;
    mask[1] = 1;
    c = 2;
    x = gathered;
  }
  int rc = om_reduce_node_run(node, io, r->red, c, dims, mask, x);
  free(gathered);
  return rc;
}

const om_family om_family_reduce = {.state_size = sizeof(om_reduce_node), .create = om_rd_create,
                                    .shapes = om_rd_shapes, .run = om_rd_run, .set_constant = om_rd_set_constant,
                                    .shape_input = om_rd_shape_input, .check_ranks = om_rd_check_ranks};
