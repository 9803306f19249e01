/* node_window_pool.c - the windowed pools (MaxPool with its optional Indices, AveragePool, LpPool) and
 * GlobalLpPool (one window over all spatial positions): attributes, shapes, onto pool/window_pool.h.
 *
 * X is [N, C, D1, ..., Dk] (k = 1 to 3, as kernel_shape gives); Y (and Indices) [N, C, O1, ..., Ok]. The
 * attributes kernel_shape, strides, dilations, pads and auto_pad are read and checked by Conv's create
 * (node_conv_shape.c) and each axis's output size and pads come from its om_conv_axis_of, with the pools' own
 * ceil_mode; storage_order (MaxPool) and count_include_pad (AveragePool) are read here. The work is split over
 * the output rows (N x C x O1 x O2 of them, padded to three axes) in fixed chunks; each output element's sequence
 * depends only on its window (docs/pooling-norm.md). LpPool (opsets 2, 11, 18) and GlobalLpPool (opset 2): float16,
 * float, double, any p >= 1; float with p 1 or 2 runs whole in the window kernels, the others as three passes:
 * |x|^p of every element (lp_power.c), the window sums of those (pool/, in binary32 for float16 and float,
 * binary64 for double), the p-th root of each sum (lp_power.c). GlobalLpPool's X is [N, C, D1, ..., Dk] (k >= 1),
 * its spatial axes flattened into one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "broadcast.h"
#include "lp_power.h"
#include "node_conv.h"
#include "node_family.h"
#include "parallel.h"
#include "core/om_ops.h"
#include "pool/window_pool.h"
#include "window_geom.h"

/* Window taps per parallel chunk (whole output rows, at least one). */
#define OM_WPOOL_CHUNK_TAPS ((size_t)1 << 16)

typedef struct om_wpool_node {
  om_conv conv; /* first: Conv's create fills it through node->impl */
  int is_max, ceil_mode, col_major, count_include_pad;
  int64_t lp; /* LpPool, GlobalLpPool: p (>= 1); 0 for MaxPool, AveragePool */
  int global; /* GlobalLpPool */
} om_wpool_node;

static const char* om_wpool_op(const om_node* node) { return om_op_row(node->op)->name; }

/* A 0/1 attribute: 0, or -1 with a message. */
static int om_wpool_flag(const om_node* node, const char* name, int has, int64_t v, int* dst, char* err,
                         size_t errlen) {
  *dst = has ? (int)v : 0;
  if (!has || v == 0 || v == 1) return 0;
  snprintf(err, errlen, "node '%s' (op %s): attribute %s must be 0 or 1, got %lld", node->name, om_wpool_op(node),
           name, (long long)v);
  return -1;
}

static int om_wpool_create(om_node* node, const om_attrs* a, char* err, size_t errlen) {
  om_wpool_node* p = node->impl;
  const om_conv* c = &p->conv;
  p->is_max = node->op == OM_OP_MAX_POOL;
  p->global = node->op == OM_OP_GLOBAL_LP_POOL;
  if (node->op == OM_OP_LP_POOL || p->global) {
    if (node->type != OM_T_FLOAT && node->type != OM_T_DOUBLE && node->type != OM_T_FLOAT16)
      return om_family_no_kernel(node, err, errlen);
    int64_t pv = a->has_p ? a->p : 2;
    if (pv < 1) {
      snprintf(err, errlen, "node '%s' (op %s): attribute p is %lld; it must be 1 or more", node->name,
               om_wpool_op(node), (long long)pv);
      return -1;
    }
    p->lp = pv;
    if (p->global) return 0;
  } else if (!(p->is_max ? om_wpool_max_supported(node->type) : om_wpool_avg_supported(node->type)))
    return om_family_no_kernel(node, err, errlen);
  if (om_conv_create(node, a, err, errlen) != 0) return -1;
  if (om_wpool_flag(node, "ceil_mode", a->has_ceil_mode, a->ceil_mode, &p->ceil_mode, err, errlen) != 0 ||
      om_wpool_flag(node, "storage_order", p->is_max && a->has_storage_order, a->storage_order, &p->col_major, err,
                    errlen) != 0 ||
      om_wpool_flag(node, "count_include_pad", !p->is_max && a->has_count_include_pad, a->count_include_pad,
                    &p->count_include_pad, err, errlen) != 0)
    return -1;
  if (om_window_check(node, c, 24, err, errlen) != 0) return -1;
  node->out_types[1] = OM_T_INT64;
  return 0;
}

static int om_wpool_rank_ok(const om_node* node, size_t rank, char* err, size_t errlen) {
  const om_wpool_node* p = node->impl;
  const om_conv* c = &p->conv;
  if (p->global) {
    if (rank >= 3) return 0;
    snprintf(err, errlen, "node '%s' (op %s): input 0 (X) has rank %zu; it must be [N, C, D1, ...] (rank 3 or more)",
             node->name, om_wpool_op(node), rank);
    return -1;
  }
  if (rank == c->axes + 2) return 0;
  snprintf(err, errlen, "node '%s' (op %s): input 0 (X) has rank %zu; kernel_shape has %zu entries, so X must be "
           "[N, C] and %zu spatial axes (rank %zu)", node->name, om_wpool_op(node), rank, c->axes, c->axes,
           c->axes + 2);
  return -1;
}

static int om_wpool_check_ranks(const om_node* node, size_t n_inputs, const size_t* ranks, char* err,
                                size_t errlen) {
  if (n_inputs == 0 || ranks[0] == OM_RANK_UNKNOWN) return 0;
  return om_wpool_rank_ok(node, ranks[0], err, errlen);
}

/* The geometry of one call (three axes, leading ones of size 1) and the output shape. */
static int om_wpool_geom_of(const om_node* node, const om_node_io* io, om_wpool_geom* g, int64_t* out_shape) {
  const om_wpool_node* p = node->impl;
  const om_conv* c = &p->conv;
  const int64_t* x = io->shapes[0];
  size_t rank = io->ranks[0];
  if (om_wpool_rank_ok(node, rank, io->err, io->errlen) != 0) return -1;
  out_shape[0] = x[0];
  out_shape[1] = x[1];
  if (p->global) { /* one window over the flattened spatial axes */
    for (size_t a = 0; a < 3; a++) {
      g->in[a] = g->out[a] = g->kernel[a] = g->stride[a] = g->dilation[a] = 1;
      g->pad_begin[a] = g->pad_end[a] = 0;
    }
    size_t n = om_shape_count(x + 2, rank - 2);
    for (size_t d = 2; d < rank; d++) out_shape[d] = 1;
    g->in[2] = g->kernel[2] = n;
    return 0;
  }
  return om_window_geom_of(node, c, p->ceil_mode, x, rank, 2, g, out_shape + 2, io->err, io->errlen);
}

static int om_wpool_shapes(const om_node* node, const om_node_io* io) {
  om_wpool_geom g;
  int64_t shape[OM_MAX_RANK];
  if (om_wpool_geom_of(node, io, &g, shape) != 0) return -1;
  for (size_t o = 0; o < io->n_outputs && o < node->n_outputs; o++) {
    for (size_t d = 0; d < io->ranks[0]; d++) io->out_shapes[o * OM_MAX_RANK + d] = shape[d];
    io->out_ranks[o] = io->ranks[0];
  }
  return 0;
}

typedef struct om_wpool_task {
  const om_node* node;
  const om_node_io* io;
  om_wpool_geom g;
  size_t rows, per_chunk;
  void *pow, *sums; /* the passes' buffers (accumulation type): |x|^p of X's elements, the rows' window sums */
  size_t x_count;
} om_wpool_task;

/* LpPool in three passes: float16, double, float with p >= 3. */
static int om_wpool_lp_passes(const om_node* node) {
  const om_wpool_node* p = node->impl;
  return p->lp && (node->type != OM_T_FLOAT || p->lp > 2);
}

static void om_wpool_chunk(void* vt, size_t i) {
  const om_wpool_task* t = vt;
  const om_wpool_node* p = t->node->impl;
  size_t end, begin = om_chunk_begin(i, t->per_chunk, t->rows, &end);
  const om_node_io* io = t->io;
  if (t->pow) { /* the window sums of |x|^p, then their roots */
    int at = om_lp_acc_type(t->node->type);
    size_t OW = t->g.out[2], asize = at == OM_T_DOUBLE ? 8 : 4, osize = om_type_size(t->node->type);
    om_wpool_lp_rows(t->node->path, at, 1, &t->g, t->pow, t->sums, begin, end);
    om_lp_root(t->node, p->lp, (unsigned char*)t->sums + begin * OW * asize,
               (unsigned char*)io->outs[0] + begin * OW * osize, (end - begin) * OW);
  } else if (p->lp)
    om_wpool_lp_rows(t->node->path, OM_T_FLOAT, (int)p->lp, &t->g, io->data[0], io->outs[0], begin, end);
  else if (p->is_max)
    om_wpool_max_rows(t->node->path, t->node->type, &t->g, io->data[0], io->outs[0],
                      io->n_outputs > 1 ? io->outs[1] : NULL, p->col_major, begin, end);
  else
    om_wpool_avg_rows(t->node->path, t->node->type, &t->g, p->count_include_pad, io->data[0], io->outs[0], begin,
                      end);
}

#define OM_WPOOL_POW_CHUNK ((size_t)1 << 13) /* elements per chunk of the |x|^p pass */

static int om_wpool_pow_range(const void* vt, size_t b, size_t e) {
  const om_wpool_task* t = vt;
  size_t xsize = om_type_size(t->node->type), asize = om_lp_acc_type(t->node->type) == OM_T_DOUBLE ? 8 : 4;
  const om_wpool_node* p = t->node->impl;
  om_lp_power(t->node, p->lp, (const unsigned char*)t->io->data[0] + b * xsize, (unsigned char*)t->pow + b * asize,
              e - b);
  return 0;
}

static int om_wpool_run(const om_node* node, const om_node_io* io) {
  om_wpool_task t;
  memset(&t, 0, sizeof t);
  t.node = node;
  t.io = io;
  int64_t shape[OM_MAX_RANK];
  if (om_wpool_geom_of(node, io, &t.g, shape) != 0) return -1;
  t.rows = (size_t)shape[0] * (size_t)shape[1] * t.g.out[0] * t.g.out[1];
  size_t row_taps = t.g.out[2] * t.g.kernel[0] * t.g.kernel[1] * t.g.kernel[2];
  const om_wpool_node* p = node->impl;
  if (p->global && t.g.in[2] == 0 && io->outs[0]) /* empty windows: the sum +0, so y = +0 (every p) */
    memset(io->outs[0], 0, t.rows * om_type_size(node->type));
  if (t.rows == 0 || row_taps == 0 || !io->outs[0]) return 0;
  t.per_chunk = OM_WPOOL_CHUNK_TAPS / row_taps ? OM_WPOOL_CHUNK_TAPS / row_taps : 1;
  if (om_wpool_lp_passes(node)) {
    size_t asize = om_lp_acc_type(node->type) == OM_T_DOUBLE ? 8 : 4;
    t.x_count = (size_t)shape[0] * (size_t)shape[1] * t.g.in[0] * t.g.in[1] * t.g.in[2];
    t.pow = malloc(t.x_count * asize + 1);
    t.sums = malloc(t.rows * t.g.out[2] * asize + 1);
    if (!t.pow || !t.sums) {
      free(t.pow);
      free(t.sums);
      snprintf(io->err, io->errlen, "node '%s' (op %s): out of memory", node->name, om_wpool_op(node));
      return -1;
    }
    om_parallel_ranges(io->parallel_for, io->host_ctx, t.x_count, OM_WPOOL_POW_CHUNK, om_wpool_pow_range, &t);
  }
  om_parallel_ieee(io->parallel_for, io->host_ctx, (t.rows + t.per_chunk - 1) / t.per_chunk, om_wpool_chunk, &t);
  free(t.pow);
  free(t.sums);
  return 0;
}

const om_family om_family_window_pool = {sizeof(om_wpool_node), om_wpool_create, om_wpool_shapes, om_wpool_run,
                                         NULL, NULL, NULL, om_wpool_check_ranks};
