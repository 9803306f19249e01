/* node_trilu.c - Trilu (opset 14): the upper (upper != 0, the default) or lower triangle of each matrix of the
 * last two dimensions, from the k-th diagonal (input 1, an int64 scalar, default 0): element (i, j) kept when
 * j - i >= k (upper) or j - i <= k (lower), else all-zero bytes (docs/data-movement.md). Each matrix row is a
 * memcpy of its kept columns, a contiguous run, and memset 0 of the rest; rows in fixed blocks on the host's
 * threads. Nothing is computed on the elements.
 */
#include <stdio.h>
#include <string.h>

#include "core/om_ops.h"
#include "int_input.h"
#include "node_family.h"
#include "parallel.h"

/* Bytes of output a parallel block of rows writes, at least (one row at least). */
#define OM_TRILU_BLOCK_BYTES ((size_t)1 << 18)

typedef struct om_trilu_node {
  om_int_inputs ii; /* first: input 1 (k) (int_input.h) */
  int upper;
} om_trilu_node;

static int om_tr_create(om_node* node, const om_attrs* a, char* err, size_t errlen) {
  (void)err;
  (void)errlen;
  om_trilu_node* t = node->impl;
  if (node->n_inputs > 1) om_int_input_declare(&t->ii, 1, "k", node->input_types[1]);
  t->ii.scalar_ok = 1;
  t->upper = a->has_upper ? a->upper != 0 : 1;
  return 0;
}

static int om_tr_rank(const om_node* node, size_t rank, char* err, size_t errlen) {
  if (rank >= 2) return 0;
  snprintf(err, errlen, "node '%s' (op %s): input 0 has rank %zu; Trilu needs rank 2 or more", node->name,
           om_op_row(node->op)->name, rank);
  return -1;
}

static int om_tr_check_ranks(const om_node* node, size_t n_inputs, const size_t* ranks, char* err, size_t errlen) {
  (void)n_inputs;
  return ranks[0] == OM_RANK_UNKNOWN ? 0 : om_tr_rank(node, ranks[0], err, errlen);
}

/* The diagonal k for the call io into *k: 0, or -1 with a message in io->err. */
static int om_tr_k(const om_node* node, const om_node_io* io, int64_t* k) {
  om_int_list buf;
  const om_int_list* l = om_int_inputs_get(node, io, 1, &buf);
  if (!l) return -1;
  *k = 0;
  if (!l->known) return 0; /* absent: the main diagonal */
  if (l->n != 1) {
    snprintf(io->err, io->errlen, "node '%s' (op %s): input 1 (k) has %zu elements, must have one", node->name,
             om_op_row(node->op)->name, l->n);
    return -1;
  }
  *k = l->v[0];
  return 0;
}

static int om_tr_shapes(const om_node* node, const om_node_io* io) {
  int64_t k;
  size_t r = io->ranks[0];
  if (om_tr_rank(node, r, io->err, io->errlen) != 0 || om_tr_k(node, io, &k) != 0) return -1;
  memcpy(io->out_shapes, io->shapes[0], r * sizeof(int64_t));
  io->out_ranks[0] = r;
  return 0;
}

typedef struct om_trilu_task {
  const char* src;
  char* dst;
  int64_t m, n, k; /* rows and columns of a matrix, the diagonal */
  int upper;
  size_t esz, rows, block;
} om_trilu_task;

/* The kept columns [*lo, *hi) of row i. */
static void om_tr_kept(const om_trilu_task* t, int64_t i, int64_t* lo, int64_t* hi) {
  int64_t edge; /* upper: the first kept column i + k; lower: one past the last, i + k + 1; in [0, n] */
  if (t->k >= t->n) edge = t->n + !t->upper; /* clamped below; keeps i + k in range */
  else if (t->k < -t->m) edge = 0;
  else edge = i + t->k + !t->upper;
  edge = edge < 0 ? 0 : edge > t->n ? t->n : edge;
  *lo = t->upper ? edge : 0;
  *hi = t->upper ? t->n : edge;
}

static void om_trilu_block(void* vt, size_t b) {
  const om_trilu_task* t = vt;
  size_t end, g = om_chunk_begin(b, t->block, t->rows, &end);
  size_t row = (size_t)t->n * t->esz;
  for (; g < end; g++) {
    int64_t lo, hi;
    om_tr_kept(t, (int64_t)(g % (size_t)t->m), &lo, &hi);
    char* d = t->dst + g * row;
    const char* s = t->src + g * row;
    size_t a = (size_t)lo * t->esz, z = (size_t)hi * t->esz;
    memset(d, 0, a);
    memcpy(d + a, s + a, z - a);
    memset(d + z, 0, row - z);
  }
}

static int om_tr_run(const om_node* node, const om_node_io* io) {
  const om_trilu_node* tn = node->impl;
  int64_t k;
  if (om_tr_k(node, io, &k) != 0) return -1;
  size_t r = io->ranks[0], esz = om_type_size(node->type);
  om_trilu_task t = {io->data[0], io->outs[0], io->shapes[0][r - 2], io->shapes[0][r - 1], k, tn->upper, esz, 0, 0};
  t.rows = om_shape_count(io->shapes[0], r - 1);
  size_t row = (size_t)t.n * esz;
  if (!t.rows || !row || !io->outs[0]) return 0;
  t.block = row >= OM_TRILU_BLOCK_BYTES ? 1 : OM_TRILU_BLOCK_BYTES / row;
  om_parallel_ieee(io->parallel_for, io->host_ctx, (t.rows + t.block - 1) / t.block, om_trilu_block, &t);
  return 0;
}

const om_family om_family_trilu = {sizeof(om_trilu_node),    om_tr_create, om_tr_shapes, om_tr_run,
                                   om_int_inputs_set_constant, om_int_inputs_shape_input, NULL, om_tr_check_ranks};
