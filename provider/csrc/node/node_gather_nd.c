/* node_gather_nd.c - GatherND (opset 11; batch_dims from 12): for each batch index and each k-tuple of the int64
 * indices' last dimension, the run of data's trailing elements the tuple names, an index counting from the end
 * when negative (docs/data-movement.md). Every index is checked, and each tuple turned into its run's offset,
 * before anything is written; then the runs are copied in fixed blocks on the host's threads. Nothing is computed
 * on the elements.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/om_ops.h"
#include "broadcast.h"
#include "index_input.h"
#include "node_family.h"
#include "parallel.h"

/* Output bytes a parallel block of runs writes, at least (one run at least). */
#define OM_GND_BLOCK_BYTES ((size_t)1 << 16)

typedef struct om_gather_nd_node {
  int64_t batch_dims;
} om_gather_nd_node;

static int om_gnd_create(om_node* node, const om_attrs* a, char* err, size_t errlen) {
  om_gather_nd_node* g = node->impl;
  const char* opn = om_op_row(node->op)->name;
  if (a->has_batch_dims && node->opset > 0 && node->opset < 12)
    OM_FAIL_MSG("node '%s' (op %s): attribute 'batch_dims' is not in opset %d (from 12)", node->name, opn, node->opset);
  g->batch_dims = a->has_batch_dims ? a->batch_dims : 0;
  if (g->batch_dims < 0)
    OM_FAIL_MSG("node '%s' (op %s): batch_dims %lld must be 0 or more", node->name, opn, (long long)g->batch_dims);
  return 0;
}

/* The ranks r (data) and q (indices; OM_RANK_UNKNOWN: not known yet) against batch_dims. */
static int om_gnd_ranks(const om_node* node, size_t r, size_t q, char* err, size_t errlen) {
  const char* opn = om_op_row(node->op)->name;
  int64_t b = ((const om_gather_nd_node*)node->impl)->batch_dims;
  if (r == 0) OM_FAIL_MSG("node '%s' (op %s): input 0 (data) has rank 0; %s needs rank 1 or more", node->name, opn, opn);
  if (q == 0) OM_FAIL_MSG("node '%s' (op %s): input 1 (indices) has rank 0; %s needs rank 1 or more", node->name, opn, opn);
  size_t m = q != OM_RANK_UNKNOWN && q < r ? q : r;
  if ((uint64_t)b >= m)
    OM_FAIL_MSG("node '%s' (op %s): batch_dims %lld must be less than the ranks of data (%zu) and indices (%zu)",
                node->name, opn, (long long)b, r, q == OM_RANK_UNKNOWN ? r : q);
  return 0;
}

static int om_gnd_check_ranks(const om_node* node, size_t n_inputs, const size_t* ranks, char* err, size_t errlen) {
  if (n_inputs < 2 || ranks[0] == OM_RANK_UNKNOWN) return 0;
  return om_gnd_ranks(node, ranks[0], ranks[1], err, errlen);
}

static int om_gnd_shapes(const om_node* node, const om_node_io* io) {
  const char* opn = om_op_row(node->op)->name;
  char* err = io->err;
  size_t errlen = io->errlen, r = io->ranks[0], q = io->ranks[1];
  if (om_gnd_ranks(node, r, q, err, errlen) != 0) return -1;
  size_t b = (size_t)((const om_gather_nd_node*)node->impl)->batch_dims;
  const int64_t *x = io->shapes[0], *ix = io->shapes[1];
  int64_t k = ix[q - 1];
  if (k < 1 || (uint64_t)k > r - b)
    OM_FAIL_MSG("node '%s' (op %s): the last dimension of input 1 (indices) is %lld; it must be 1 to %zu (data's "
                "rank %zu less batch_dims %zu)", node->name, opn, (long long)k, r - b, r, b);
  for (size_t d = 0; d < b; d++)
    if (x[d] != ix[d])
      OM_FAIL_MSG("node '%s' (op %s): batch dimension %zu is %lld in data and %lld in indices; they must be equal",
                  node->name, opn, d, (long long)x[d], (long long)ix[d]);
  size_t out_rank = q - 1 + r - b - (size_t)k;
  if (out_rank > OM_MAX_RANK)
    OM_FAIL_MSG("node '%s' (op %s): the output would have rank %zu, more than the maximum (%d)", node->name, opn,
                out_rank, OM_MAX_RANK);
  memcpy(io->out_shapes, ix, (q - 1) * sizeof(int64_t));
  memcpy(io->out_shapes + q - 1, x + b + k, (r - b - (size_t)k) * sizeof(int64_t));
  io->out_ranks[0] = out_rank;
  return 0;
}

typedef struct om_gnd_task {
  const char* data;
  char* out;
  const size_t* off; /* each run's first element in data */
  size_t runs, bytes, block, esz;
} om_gnd_task;

/* Runs of one element of type T: out[g] = data[off[g]]. */
#define OM_GND_ONE(T)                                                      \
  do {                                                                     \
    for (; g < end; g++) ((T*)t->out)[g] = ((const T*)t->data)[t->off[g]]; \
  } while (0)

static void om_gnd_block(void* vt, size_t i) {
  const om_gnd_task* t = vt;
  size_t end, g = om_chunk_begin(i, t->block, t->runs, &end);
  if (t->bytes == t->esz) {
    switch (t->esz) {
      case 1: OM_GND_ONE(uint8_t); return;
      case 2: OM_GND_ONE(uint16_t); return;
      case 4: OM_GND_ONE(uint32_t); return;
      default: OM_GND_ONE(uint64_t); return;
    }
  }
  for (; g < end; g++) memcpy(t->out + g * t->bytes, t->data + t->off[g] * t->esz, t->bytes);
}

static int om_gnd_run(const om_node* node, const om_node_io* io) {
  size_t r = io->ranks[0], q = io->ranks[1], b = (size_t)((const om_gather_nd_node*)node->impl)->batch_dims;
  const int64_t *x = io->shapes[0], *ix = io->shapes[1];
  size_t k = (size_t)ix[q - 1], esz = om_type_size(node->type);
  size_t runs = om_shape_count(ix, q - 1), per_batch = om_shape_count(ix + b, q - 1 - b);
  size_t run = om_shape_count(x + b + k, r - b - k), batch = om_shape_count(x + b, r - b);
  if (!runs) return 0;
  size_t* off = malloc(runs * sizeof *off);
  if (!off) {
    snprintf(io->err, io->errlen, "node '%s' (op %s): out of memory", node->name, om_op_row(node->op)->name);
    return -1;
  }
  const int64_t* idx = io->data[1];
  size_t stride[OM_MAX_RANK]; /* data's element stride of dimension b + m */
  for (size_t m = k, s = run; m-- > 0;) {
    stride[m] = s;
    s *= (size_t)x[b + m];
  }
  for (size_t g = 0; g < runs; g++) {
    size_t o = g / per_batch * batch;
    for (size_t m = 0; m < k; m++) {
      int64_t v = idx[g * k + m], dim = x[b + m];
      if (v < -dim || v >= dim) {
        free(off);
        return om_index_out_of_range(node, v, g * k + m, dim, "data dimension", b + m, io->err, io->errlen);
      }
      o += (size_t)(v < 0 ? v + dim : v) * stride[m];
    }
    off[g] = o;
  }
  if (run && io->outs[0]) {
    om_gnd_task t = {io->data[0], io->outs[0], off, runs, run * esz, 0, esz};
    t.block = t.bytes >= OM_GND_BLOCK_BYTES ? 1 : OM_GND_BLOCK_BYTES / t.bytes;
    om_parallel_ieee(io->parallel_for, io->host_ctx, (runs + t.block - 1) / t.block, om_gnd_block, &t);
  }
  free(off);
  return 0;
}

const om_family om_family_gather_nd = {sizeof(om_gather_nd_node), om_gnd_create, om_gnd_shapes, om_gnd_run,
                                       NULL, NULL, NULL, om_gnd_check_ranks};
