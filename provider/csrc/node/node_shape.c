/* node_shape.c - Shape: input 0's dimensions as a 1-D int64 tensor, from opset 15 the slice [start, end) of
 * them (negative values count from the end; both clamped to [0, rank]; an empty slice when end <= start).
 * Size: input 0's element count (the product of its dimensions, 1 for rank 0) as an int64 scalar. The
 * input's data is never read.
 */
#include <stdio.h>
#include <string.h>

#include "core/om_ops.h"
#include "node_family.h"

typedef struct om_shape_node {
  int64_t start, end; /* as given */
  int has_end;
} om_shape_node;

static int om_sh_create(om_node* node, const om_attrs* a, char* err, size_t errlen) {
  if ((a->has_start || a->has_end) && node->opset > 0 && node->opset < 15) {
    snprintf(err, errlen, "node '%s' (op %s): attributes start and end are defined from opset 15 on (opset %d)",
             node->name, om_op_row(node->op)->name, node->opset);
    return -1;
  }
  om_shape_node* s = node->impl;
  s->start = a->has_start ? a->start : 0;
  s->end = a->end;
  s->has_end = a->has_end;
  node->out_types[0] = OM_T_INT64;
  return 0;
}

/* v counted from the end when negative, then clamped to [0, rank]. */
static size_t om_sh_clamp(int64_t v, size_t rank) {
  if (v < 0) v += (int64_t)rank;
  return v < 0 ? 0 : (v > (int64_t)rank ? rank : (size_t)v);
}

static void om_sh_range(const om_node* node, size_t rank, size_t* b, size_t* e) {
  const om_shape_node* s = node->impl;
  *b = om_sh_clamp(s->start, rank);
  *e = s->has_end ? om_sh_clamp(s->end, rank) : rank;
  if (*e < *b) *e = *b;
}

static int om_sh_shapes(const om_node* node, const om_node_io* io) {
  size_t b, e;
  om_sh_range(node, io->ranks[0], &b, &e);
  io->out_shapes[0] = (int64_t)(e - b);
  io->out_ranks[0] = 1;
  return 0;
}

static int om_sh_run(const om_node* node, const om_node_io* io) {
  size_t b, e;
  om_sh_range(node, io->ranks[0], &b, &e);
  if (e > b) memcpy(io->outs[0], io->shapes[0] + b, (e - b) * sizeof(int64_t));
  return 0;
}

const om_family om_family_shape = {sizeof(om_shape_node), om_sh_create, om_sh_shapes, om_sh_run, NULL, NULL, NULL, NULL};

static int om_sz_create(om_node* node, const om_attrs* a, char* err, size_t errlen) {
  (void)a;
  (void)err;
  (void)errlen;
  node->out_types[0] = OM_T_INT64;
  return 0;
}

static int om_sz_shapes(const om_node* node, const om_node_io* io) {
  (void)node;
  io->out_ranks[0] = 0;
  return 0;
}

static int om_sz_run(const om_node* node, const om_node_io* io) {
  (void)node;
  int64_t n = (int64_t)om_shape_count(io->shapes[0], io->ranks[0]);
  memcpy(io->outs[0], &n, sizeof n);
  return 0;
}

const om_family om_family_size = {0, om_sz_create, om_sz_shapes, om_sz_run, NULL, NULL, NULL, NULL};
