/* node_transpose.c - Transpose: output dimension d is input dimension perm[d] (perm a permutation of
 * 0 .. rank - 1, the reversal by default); the elements are copied in the output's order (movement.h).
 */
#include <stdio.h>

#include "broadcast.h"
#include "core/om_ops.h"
#include "movement.h"
#include "node_family.h"

typedef struct om_transpose_node {
  int has_perm;
  size_t n;
  int64_t perm[OM_MAX_RANK];
} om_transpose_node;

static int om_tr_create(om_node* node, const om_attrs* a, char* err, size_t errlen) {
  const char* opn = om_op_row(node->op)->name;
  om_transpose_node* t = node->impl;
  t->has_perm = a->has_perm;
  t->n = a->n_perm;
  uint8_t seen[OM_MAX_RANK] = {0};
  for (size_t i = 0; a->has_perm && i < a->n_perm; i++) {
    int64_t p = a->perm[i];
    if (p < 0 || p >= (int64_t)a->n_perm || seen[p]) {
      snprintf(err, errlen, "node '%s' (op %s): attribute perm is not a permutation of 0 .. %zu (perm[%zu] is %lld)",
               node->name, opn, a->n_perm - 1, i, (long long)p);
      return -1;
    }
    seen[p] = 1;
    t->perm[i] = p;
  }
  return 0;
}

static int om_tr_check_rank(const om_node* node, size_t rank, char* err, size_t errlen) {
  const om_transpose_node* t = node->impl;
  if (t->has_perm && t->n != rank) {
    snprintf(err, errlen, "node '%s' (op %s): attribute perm has %zu entries, input 0 has rank %zu", node->name,
             om_op_row(node->op)->name, t->n, rank);
    return -1;
  }
  return 0;
}

static int om_tr_check_ranks(const om_node* node, size_t n_inputs, const size_t* ranks, char* err, size_t errlen) {
  return n_inputs && ranks[0] != OM_RANK_UNKNOWN ? om_tr_check_rank(node, ranks[0], err, errlen) : 0;
}

static size_t om_tr_axis(const om_transpose_node* t, size_t rank, size_t d) {
  return t->has_perm ? (size_t)t->perm[d] : rank - 1 - d;
}

static int om_tr_shapes(const om_node* node, const om_node_io* io) {
  size_t rank = io->ranks[0];
  if (om_tr_check_rank(node, rank, io->err, io->errlen) != 0) return -1;
  for (size_t d = 0; d < rank; d++) io->out_shapes[d] = io->shapes[0][om_tr_axis(node->impl, rank, d)];
  io->out_ranks[0] = rank;
  return 0;
}

static int om_tr_run(const om_node* node, const om_node_io* io) {
  size_t rank = io->ranks[0];
  int64_t in_stride[OM_MAX_RANK], stride[OM_MAX_RANK];
  om_row_major_strides(io->shapes[0], rank, in_stride);
  for (size_t d = 0; d < rank; d++) stride[d] = in_stride[om_tr_axis(node->impl, rank, d)];
  om_movement_copy(node, io, io->data[0], stride);
  return 0;
}

const om_family om_family_transpose = {sizeof(om_transpose_node), om_tr_create, om_tr_shapes, om_tr_run, NULL, NULL, NULL, om_tr_check_ranks};
