/* node_pool.c - the global pooling nodes (GlobalAveragePool, GlobalMaxPool): shapes, onto the exact kernels of
 * reduce/reduce.h.
 *
 * X is [N, C, D1, ..., Dk] (k >= 1); Y is [N, C, 1, ..., 1]. Each output element is its (n, c) slab's
 * D1 x ... x Dk elements, in row-major order, reduced as ReduceMean (GlobalAveragePool) or ReduceMax
 * (GlobalMaxPool) over axes [2, ..., rank - 1] with keepdims = 1 reduces them: the same plan, the same kernels,
 * hence the same bits (docs/pooling-norm.md), through om_reduce_node_run (node_reduce.h): the work is split over
 * the N x C outputs in fixed chunks; the kernels' results never depend on the chunking.
 */
#include <stdio.h>

#include "node_family.h"
#include "node_reduce.h"
#include "core/om_ops.h"
#include "reduce/reduce.h"

typedef struct om_global_pool_node {
  int red; /* OM_RED_MEAN or OM_RED_MAX */
} om_global_pool_node;

static const char* om_gp_name(const om_node* node) { return om_op_row(node->op)->name; }

static int om_gp_create(om_node* node, const om_attrs* a, char* err, size_t errlen) {
  (void)a;
  om_global_pool_node* g = node->impl;
  g->red = node->op == OM_OP_GLOBAL_MAX_POOL ? OM_RED_MAX : OM_RED_MEAN;
  if (!om_reduce_supported(g->red, node->type)) {
    snprintf(err, errlen, "node '%s' (op %s): no kernel for element type %s", node->name, om_gp_name(node),
             om_type_name(node->type));
    return -1;
  }
  return 0;
}

/* X must be [N, C, D1, ...]: rank 3 or more, as stock ONNX Runtime requires. */
static int om_gp_rank_ok(const om_node* node, size_t rank, char* err, size_t errlen) {
  if (rank >= 3) return 0;
  snprintf(err, errlen, "node '%s' (op %s): input 0 must be [N, C, D1, ...] (rank 3 or more), it has rank %zu",
           node->name, om_gp_name(node), rank);
  return -1;
}

static int om_gp_check_ranks(const om_node* node, size_t n_inputs, const size_t* ranks, char* err, size_t errlen) {
  if (n_inputs == 0 || ranks[0] == OM_RANK_UNKNOWN) return 0;
  return om_gp_rank_ok(node, ranks[0], err, errlen);
}

static int om_gp_shapes(const om_node* node, const om_node_io* io) {
  size_t rank = io->ranks[0];
  if (om_gp_rank_ok(node, rank, io->err, io->errlen) != 0) return -1;
  for (size_t d = 0; d < rank; d++) io->out_shapes[d] = d < 2 ? io->shapes[0][d] : 1;
  io->out_ranks[0] = rank;
  return 0;
}

static int om_gp_run(const om_node* node, const om_node_io* io) {
  const om_global_pool_node* g = node->impl;
  const int64_t* shape = io->shapes[0];
  size_t rank = io->ranks[0];
  /* [N x C, D1 x ... x Dk] with size-1 dimensions dropped, as node_reduce.c coalesces ReduceMean's axes */
  int64_t outer = shape[0] * shape[1], spatial = 1;
  for (size_t d = 2; d < rank; d++) spatial *= shape[d];
  int64_t dims[2];
  uint8_t mask[2];
  size_t c = 0;
  if (outer != 1) {
    dims[c] = outer;
    mask[c++] = 0;
  }
  if (spatial != 1) {
    dims[c] = spatial;
    mask[c++] = 1;
  }
  return om_reduce_node_run(node, io, g->red, c, dims, mask, io->data[0]);
}

const om_family om_family_global_pool = {sizeof(om_global_pool_node), om_gp_create, om_gp_shapes, om_gp_run, NULL, NULL, NULL,
                                         om_gp_check_ranks};
