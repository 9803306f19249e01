/* node_qlinear_pool.c - com.microsoft QLinearGlobalAveragePool (docs/quantized-elementwise.md): X [N, C, D1, ...]
 * (channels_last: [N, D1, ..., C]) of an 8-bit type, per-tensor scales and zero points; Y [N, C, 1, ...] (or
 * [N, 1, ..., C]) of the same type. Each output is its channel's exact int32 sum of x - x_zero_point over the
 * S = D1 x ... x Dk positions, scaled by m = fl(x_scale / fl(y_scale * S)) and requantised by quant/qoutput.h's
 * om_qout_requantize; the work is split over the N x C outputs (channels_last: over N) in fixed chunks. S is at
 * most 8,388,608 (2^23), so that every sum is exact in int32 and S exact in binary32; more is an error naming
 * the node. Knows nothing of ORT.
 */
#include <stdio.h>
#include <stdlib.h>

#include "core/om_ops.h"
#include "node_family.h"
#include "parallel.h"
#include "qlinear_params.h"
#include "quant/qoutput.h"

enum { OM_QP_X, OM_QP_X_SCALE, OM_QP_X_ZP, OM_QP_Y_SCALE, OM_QP_Y_ZP };

static const char* const om_qp_names[5] = {"X", "x_scale", "x_zero_point", "y_scale", "y_zero_point"};

#define OM_QP_MAX_SPATIAL ((int64_t)1 << 23)
#define OM_QP_CHUNK_ELEMS ((size_t)1 << 16) /* input elements per parallel chunk (at least one row) */
#define OM_QP_BLOCK 256                      /* outputs requantised together */

typedef struct om_qpool {
  unsigned has;
  int channels_last;
} om_qpool;

static const char* om_qp_op(const om_node* node) { return om_op_row(node->op)->name; }

static int om_qp_create(om_node* node, const om_attrs* a, char* err, size_t errlen) {
  om_qpool* m = node->impl;
  if (a->has_channels_last && a->channels_last != 0 && a->channels_last != 1)
    OM_FAIL_MSG("node '%s' (op %s): channels_last is %lld; it must be 0 or 1", node->name, om_qp_op(node),
                (long long)a->channels_last);
  m->channels_last = a->has_channels_last && a->channels_last == 1;
  return om_qlin_check_inputs(node, "TFTFT", om_qp_names, node->type, &m->has, err, errlen);
}

static int om_qp_rank_ok(const om_node* node, size_t rank, char* err, size_t errlen) {
  if (rank >= 3) return 0;
  snprintf(err, errlen, "node '%s' (op %s): X must have rank 3 or more (N, C and at least one spatial axis), it "
           "has rank %zu", node->name, om_qp_op(node), rank);
  return -1;
}

static int om_qp_check_ranks(const om_node* node, size_t n_inputs, const size_t* ranks, char* err, size_t errlen) {
  if (n_inputs == 0 || ranks[0] == OM_RANK_UNKNOWN) return 0;
  return om_qp_rank_ok(node, ranks[0], err, errlen);
}

static int om_qp_shapes(const om_node* node, const om_node_io* io) {
  const om_qpool* m = node->impl;
  const size_t rank = io->ranks[0];
  if (om_qp_rank_ok(node, rank, io->err, io->errlen) != 0) return -1;
  const size_t c_axis = m->channels_last ? rank - 1 : 1;
  for (size_t d = 0; d < rank; d++) io->out_shapes[d] = d == 0 || d == c_axis ? io->shapes[0][d] : 1;
  io->out_ranks[0] = rank;
  return 0;
}

typedef struct om_qp_job {
  const void* x;
  void* y;
  size_t n, c, s; /* batch, channels, spatial positions */
  int channels_last, is_signed;
  int32_t zx, zy;
  float m;
} om_qp_job;

/* x's element i as an int32 (uint8 or int8). */
#define OM_QP_X(j, i) ((j)->is_signed ? (int32_t)((const int8_t*)(j)->x)[i] : (int32_t)((const uint8_t*)(j)->x)[i])

/* channels first: outputs [begin, end) of the N x C, each its row of s elements. */
static int om_qp_rows(const void* args, size_t begin, size_t end) {
  const om_qp_job* j = args;
  int32_t acc[OM_QP_BLOCK];
  for (size_t r0 = begin; r0 < end; r0 += OM_QP_BLOCK) {
    const size_t len = end - r0 < OM_QP_BLOCK ? end - r0 : OM_QP_BLOCK;
    for (size_t r = 0; r < len; r++) {
      const size_t base = (r0 + r) * j->s;
      int32_t sum = 0;
      if (j->is_signed)
        for (size_t i = 0; i < j->s; i++) sum += ((const int8_t*)j->x)[base + i];
      else
        for (size_t i = 0; i < j->s; i++) sum += ((const uint8_t*)j->x)[base + i];
      acc[r] = sum - (int32_t)j->s * j->zx;
    }
    om_qout_requantize(acc, len, &j->m, 0, j->zy, j->is_signed, (uint8_t*)j->y + r0);
  }
  return 0;
}

/* channels last: images [begin, end), each s positions of c channels; acc: c int32. */
static int om_qp_images(const void* args, size_t begin, size_t end) {
  const om_qp_job* j = args;
  int32_t* acc = malloc(j->c * sizeof *acc);
  if (!acc) return -1;
  for (size_t b = begin; b < end; b++) {
    for (size_t ch = 0; ch < j->c; ch++) acc[ch] = -(int32_t)j->s * j->zx;
    const size_t base = b * j->s * j->c;
    for (size_t p = 0; p < j->s; p++)
      for (size_t ch = 0; ch < j->c; ch++) acc[ch] += OM_QP_X(j, base + p * j->c + ch);
    om_qout_requantize(acc, j->c, &j->m, 0, j->zy, j->is_signed, (uint8_t*)j->y + b * j->c);
  }
  free(acc);
  return 0;
}

static int om_qp_run(const om_node* node, const om_node_io* io) {
  const om_qpool* m = node->impl;
  float sx, sy;
  om_qp_job j;
  if (om_qlin_scale(node, io, OM_QP_X_SCALE, om_qp_names[OM_QP_X_SCALE], &sx) ||
      om_qlin_scale(node, io, OM_QP_Y_SCALE, om_qp_names[OM_QP_Y_SCALE], &sy) ||
      om_qlin_zero_point(node, io, OM_QP_X_ZP, om_qp_names[OM_QP_X_ZP], node->type, 1, &j.zx) ||
      om_qlin_zero_point(node, io, OM_QP_Y_ZP, om_qp_names[OM_QP_Y_ZP], node->type, 1, &j.zy))
    return -1;
  const int64_t* sh = io->shapes[0];
  const size_t rank = io->ranks[0];
  j.channels_last = m->channels_last;
  j.n = (size_t)sh[0];
  j.c = (size_t)sh[j.channels_last ? rank - 1 : 1];
  int64_t s = 1;
  for (size_t d = j.channels_last ? 1 : 2; d < (j.channels_last ? rank - 1 : rank); d++) s *= sh[d];
  if (s > OM_QP_MAX_SPATIAL) {
    snprintf(io->err, io->errlen, "node '%s' (op %s): %lld spatial positions, more than the %lld served (the int32 "
             "sums must be exact)", node->name, om_qp_op(node), (long long)s, (long long)OM_QP_MAX_SPATIAL);
    return -1;
  }
  j.s = (size_t)s;
  j.is_signed = node->type == OM_T_INT8;
  j.x = io->data[OM_QP_X];
  j.y = io->outs[0];
  const float ys = sy * (float)s; /* one binary32 rounding each */
  j.m = sx / ys;
  if (j.n * j.c == 0 || !j.y) return 0;
  if (!j.channels_last) {
    size_t chunk = OM_QP_CHUNK_ELEMS / (j.s ? j.s : 1);
    return om_parallel_ranges(io->parallel_for, io->host_ctx, j.n * j.c, chunk ? chunk : 1, om_qp_rows, &j);
  }
  const size_t image = j.s * j.c;
  size_t chunk = OM_QP_CHUNK_ELEMS / (image ? image : 1);
  if (om_parallel_ranges(io->parallel_for, io->host_ctx, j.n, chunk ? chunk : 1, om_qp_images, &j) == 0) return 0;
  snprintf(io->err, io->errlen, "node '%s' (op %s): out of memory", node->name, om_qp_op(node));
  return -1;
}

const om_family om_family_qlinear_global_pool = {sizeof(om_qpool), om_qp_create, om_qp_shapes, om_qp_run,
                                                 om_qlin_set_constant_one, NULL, NULL, om_qp_check_ranks};
