/* node_qlinear_binary.c - com.microsoft QLinearAdd and QLinearMul (docs/quantized-elementwise.md): A and B of one
 * 8-bit type broadcast as NumPy does, per-tensor scales and zero points (zero points optional), C of the same
 * type. The ratios of the scales are formed once per run; each element is then quant/qlinear.h's fixed steps
 * on the path's kernels, over the broadcast plan in fixed chunks of the output. Knows nothing of ORT.
 */
#include <stdio.h>

#include "broadcast.h"
#include "core/om_ops.h"
#include "node_family.h"
#include "parallel.h"
#include "qlinear_params.h"
#include "quant/qlinear.h"

enum { OM_QB_A, OM_QB_A_SCALE, OM_QB_A_ZP, OM_QB_B, OM_QB_B_SCALE, OM_QB_B_ZP, OM_QB_C_SCALE, OM_QB_C_ZP };

static const char* const om_qb_names[8] = {"A", "A_scale", "A_zero_point", "B", "B_scale", "B_zero_point",
                                           "C_scale", "C_zero_point"};

#define OM_QB_CHUNK ((size_t)1 << 15) /* output elements per parallel chunk */

typedef struct om_qbin {
  unsigned has; /* bit k: input k given */
} om_qbin;

static int om_qb_create(om_node* node, const om_attrs* a, char* err, size_t errlen) {
  om_qbin* m = node->impl;
  (void)a;
  return om_qlin_check_inputs(node, "TFtTFtFt", om_qb_names, node->type, &m->has, err, errlen);
}

static int om_qb_shapes(const om_node* node, const om_node_io* io) {
  const int64_t* shapes[2] = {io->shapes[OM_QB_A], io->shapes[OM_QB_B]};
  const size_t ranks[2] = {io->ranks[OM_QB_A], io->ranks[OM_QB_B]};
  char why[160];
  if (om_broadcast_shape(2, shapes, ranks, io->out_shapes, io->out_ranks, why, sizeof why) == 0) return 0;
  snprintf(io->err, io->errlen, "node '%s' (op %s): A and B do not broadcast: %s", node->name,
           om_op_row(node->op)->name, why);
  return -1;
}

/* The parameters of qlinear.h from the node's scales and zero points. */
static int om_qb_params(const om_node* node, const om_node_io* io, om_qlin_bin* p) {
  const om_qbin* m = node->impl;
  float sa, sb, sc;
  if (om_qlin_scale(node, io, OM_QB_A_SCALE, om_qb_names[OM_QB_A_SCALE], &sa) ||
      om_qlin_scale(node, io, OM_QB_B_SCALE, om_qb_names[OM_QB_B_SCALE], &sb) ||
      om_qlin_scale(node, io, OM_QB_C_SCALE, om_qb_names[OM_QB_C_SCALE], &sc))
    return -1;
  const size_t zk[3] = {OM_QB_A_ZP, OM_QB_B_ZP, OM_QB_C_ZP};
  int32_t* zv[3] = {&p->za, &p->zb, &p->zc};
  for (size_t q = 0; q < 3; q++)
    if (om_qlin_zero_point(node, io, zk[q], om_qb_names[zk[q]], node->type, (m->has >> zk[q]) & 1u, zv[q]) != 0)
      return -1;
  if (node->op == OM_OP_QLINEAR_ADD) {
    p->ra = sa / sc; /* one binary32 rounding each (FLT_EVAL_METHOD 0) */
    p->rb = sb / sc;
  } else {
    const float sab = sa * sb;
    p->ra = sab / sc;
    p->rb = 0.0f;
  }
  return 0;
}

typedef struct om_qb_job {
  om_plan plan;
  const om_qlin_kern* kern;
  int mul, is_signed;
  om_qlin_bin p;
  const uint8_t *a, *b;
  uint8_t* c;
} om_qb_job;

static void om_qb_piece(void* ctx, const int64_t* off, unsigned bcast, size_t pos, size_t len) {
  const om_qb_job* j = ctx;
  const size_t sa = (bcast & 1u) ? 0 : 1, sb = (bcast & 2u) ? 0 : 1;
  (j->mul ? j->kern->mul : j->kern->add)(j->a + off[0], sa, j->b + off[1], sb, len, &j->p, j->is_signed, j->c + pos);
}

static int om_qb_range(const void* args, size_t begin, size_t end) {
  om_plan_walk(&((const om_qb_job*)args)->plan, begin, end, om_qb_piece, (void*)args);
  return 0;
}

static int om_qb_run(const om_node* node, const om_node_io* io) {
  om_qb_job j;
  if (om_qb_params(node, io, &j.p) != 0) return -1;
  const size_t total = om_shape_count(io->out_shapes, io->out_ranks[0]);
  if (total == 0 || !io->outs[0]) return 0;
  const int64_t* shapes[2] = {io->shapes[OM_QB_A], io->shapes[OM_QB_B]};
  const size_t ranks[2] = {io->ranks[OM_QB_A], io->ranks[OM_QB_B]};
  om_plan_make(&j.plan, 2, shapes, ranks, io->out_shapes, io->out_ranks[0]);
  j.kern = om_qlin_kern_of(node->path);
  j.mul = node->op == OM_OP_QLINEAR_MUL;
  j.is_signed = node->type == OM_T_INT8;
  j.a = io->data[OM_QB_A];
  j.b = io->data[OM_QB_B];
  j.c = io->outs[0];
  return om_parallel_ranges(io->parallel_for, io->host_ctx, total, OM_QB_CHUNK, om_qb_range, &j);
}

const om_family om_family_qlinear_binary = {sizeof(om_qbin), om_qb_create, om_qb_shapes, om_qb_run,
                                            om_qlin_set_constant_one, NULL, NULL,
                                            NULL};
