/* node_groupnorm.c - InstanceNormalization (opset 6 on) and GroupNormalization (opset 18; scale and bias per
 * channel from 21) nodes: LayerNormalization's statistics of each group (om_moments, reduce/reduce.h), then
 * BatchNormalization's per-channel step with them (om_batchnorm_factor, om_batchnorm_plane, pool/batchnorm.h), in
 * the order of docs/pooling-norm.md.
 *
 * X is [N, C, D1, ..., Dk] (InstanceNormalization: k >= 1; GroupNormalization: k >= 0). InstanceNormalization is
 * G = C groups. Group (n, j) is the g = C / G channels from j g: one contiguous row of m = g P elements (P the
 * spatial size), so the statistics are those of rows [N G, m]. The rows are split over threads in fixed chunks;
 * nothing of an element's sequence depends on the chunk. f16 computes in f32, f64 in f64 (the stash type).
 */
#include <stdio.h>
#include <stdlib.h>

#include "node_family.h"
#include "parallel.h"
#include "core/om_ops.h"
#include "pool/batchnorm.h"
#include "reduce/reduce.h"

/* Elements per parallel chunk (whole groups, at least one): a few operations per element. */
#define OM_GN_CHUNK_ELEMS ((size_t)1 << 15)

typedef struct om_groupnorm_node {
  float epsilon;
  int64_t groups;  /* GroupNormalization's num_groups; 0: InstanceNormalization (one group per channel) */
  int per_channel; /* scale and bias per channel (InstanceNormalization; GroupNormalization from opset 21) */
  char bad[320];   /* num_groups below 1, reported when X comes: stock ORT's error would not name the node */
} om_groupnorm_node;

static const char* om_gn_op(const om_node* node) { return om_op_row(node->op)->name; }

static int om_gn_create(om_node* node, const om_attrs* a, char* err, size_t errlen) {
  om_groupnorm_node* s = node->impl;
  s->epsilon = a->has_epsilon ? a->epsilon : 1e-5f;
  s->per_channel = 1;
  if (node->op == OM_OP_GROUP_NORMALIZATION) {
    if (!a->has_num_groups) {
      snprintf(err, errlen, "node '%s' (op GroupNormalization): attribute num_groups is missing", node->name);
      return -1;
    }
    if (a->num_groups < 1)
      snprintf(s->bad, sizeof s->bad, "node '%s' (op GroupNormalization): attribute num_groups is %lld; it must be "
               "1 or more", node->name, (long long)a->num_groups);
    s->groups = a->num_groups < 1 ? 1 : a->num_groups;
    s->per_channel = node->opset == 0 || node->opset >= 21; /* an unknown opset reads as 21 on */
    if (s->per_channel && a->has_stash_type && a->stash_type != 1) {
      snprintf(err, errlen, "node '%s' (op GroupNormalization): attribute stash_type %lld is not served (only 1, "
               "float)", node->name, (long long)a->stash_type);
      return -1;
    }
  }
  if (!om_batchnorm_supported(node->type) || !om_layernorm_supported(node->type))
    return om_family_no_kernel(node, err, errlen);
  return 0;
}

static const char* om_gn_input(const om_node* node, size_t k) {
  if (k == 1) return "scale";
  return node->op == OM_OP_GROUP_NORMALIZATION ? "bias" : "B";
}

static int om_gn_rank_ok(const om_node* node, size_t rank, char* err, size_t errlen) {
  size_t least = node->op == OM_OP_GROUP_NORMALIZATION ? 2 : 3;
  if (rank >= least) return 0;
  snprintf(err, errlen, "node '%s' (op %s): input 0 (X) must be [N, C, ...] of rank %zu or more, it has rank %zu",
           node->name, om_gn_op(node), least, rank);
  return -1;
}

static int om_gn_check_ranks(const om_node* node, size_t n_inputs, const size_t* ranks, char* err, size_t errlen) {
  if (n_inputs > 0 && ranks[0] != OM_RANK_UNKNOWN && om_gn_rank_ok(node, ranks[0], err, errlen) != 0) return -1;
  for (size_t k = 1; k < n_inputs && k < 3; k++)
    if (ranks[k] != OM_RANK_UNKNOWN && ranks[k] != 1) {
      snprintf(err, errlen, "node '%s' (op %s): input %zu (%s) must be 1-D, it has rank %zu", node->name,
               om_gn_op(node), k, om_gn_input(node, k), ranks[k]);
      return -1;
    }
  return 0;
}

/* X's shape against the attributes and the other inputs: 0 with *groups set (0 when C = 0: Y is empty), or -1
 * with a message. */
static int om_gn_check(const om_node* node, const om_node_io* io, size_t* groups) {
  const om_groupnorm_node* s = node->impl;
  if (s->bad[0]) {
    snprintf(io->err, io->errlen, "%s", s->bad);
    return -1;
  }
  if (om_gn_rank_ok(node, io->ranks[0], io->err, io->errlen) != 0) return -1;
  int64_t c = io->shapes[0][1], g = s->groups ? s->groups : c;
  *groups = 0;
  if (c == 0) return 0;
  if (c % g != 0) {
    snprintf(io->err, io->errlen, "node '%s' (op %s): X's C = %lld channels do not divide into num_groups = %lld "
             "groups", node->name, om_gn_op(node), (long long)c, (long long)g);
    return -1;
  }
  int64_t want = s->per_channel ? c : g;
  for (size_t k = 1; k < 3; k++)
    if (k >= io->n_inputs || io->ranks[k] != 1 || io->shapes[k][0] != want) {
      snprintf(io->err, io->errlen, "node '%s' (op %s): input %zu (%s) must be 1-D of %lld elements (%s)", node->name,
               om_gn_op(node), k, om_gn_input(node, k), (long long)want,
               s->per_channel ? "C, X's dimension 1" : "num_groups");
      return -1;
    }
  *groups = (size_t)g;
  return 0;
}

static int om_gn_shapes(const om_node* node, const om_node_io* io) {
  size_t groups;
  if (om_gn_check(node, io, &groups) != 0) return -1;
  for (size_t d = 0; d < io->ranks[0]; d++) io->out_shapes[d] = io->shapes[0][d];
  io->out_ranks[0] = io->ranks[0];
  return 0;
}

typedef struct om_gn_job {
  const om_node* node;
  const om_node_io* io;
  size_t groups, per_group, plane; /* G, channels a group, P */
  void *mean, *var;                /* one per group row, in the stash type */
} om_gn_job;

/* Group rows [b, e) (om_parallel_ranges): their statistics, then each channel's planes. */
static int om_gn_rows(const void* args, size_t b, size_t e) {
  const om_gn_job* j = args;
  const om_node* node = j->node;
  const om_groupnorm_node* s = node->impl;
  int t = node->type, st = t == OM_T_DOUBLE ? OM_T_DOUBLE : OM_T_FLOAT;
  size_t m = j->per_group * j->plane, esz = om_type_size(t);
  if (om_moments(node->path, t, m, b, e, j->io->data[0], j->mean, j->var) != 0) return -1;
  for (size_t r = b; r < e; r++) {
    double mean = om_batchnorm_value(st, j->mean, r), var = om_batchnorm_value(st, j->var, r);
    size_t grp = r % j->groups;
    for (size_t q = 0; q < j->per_group; q++) {
      size_t c = grp * j->per_group + q, at = s->per_channel ? c : grp, off = (r * m + q * j->plane) * esz;
      double f = om_batchnorm_factor(t, om_batchnorm_value(t, j->io->data[1], at), var, s->epsilon);
      om_batchnorm_plane(node->path, t, (const char*)j->io->data[0] + off, (char*)j->io->outs[0] + off, j->plane, mean, f,
                         om_batchnorm_value(t, j->io->data[2], at));
    }
  }
  return 0;
}

static int om_gn_run(const om_node* node, const om_node_io* io) {
  size_t groups;
  if (om_gn_check(node, io, &groups) != 0) return -1;
  const int64_t* shape = io->shapes[0];
  size_t n = (size_t)shape[0], c = (size_t)shape[1], plane = om_shape_count(shape + 2, io->ranks[0] - 2);
  if (n == 0 || groups == 0 || plane == 0) return 0;
  if (!io->data[1] || !io->data[2]) {
    snprintf(io->err, io->errlen, "node '%s' (op %s): input %s has no data", node->name, om_gn_op(node),
             om_gn_input(node, io->data[1] ? 2 : 1));
    return -1;
  }
  size_t rows = n * groups;
  om_gn_job j = {node, io, groups, c / groups, plane, NULL, NULL};
  void* stats = malloc(2 * rows * sizeof(double));
  int rc = -1;
  if (stats) {
    j.mean = stats;
    j.var = (char*)stats + rows * sizeof(double);
    rc = om_parallel_ranges(io->parallel_for, io->host_ctx, rows, OM_GN_CHUNK_ELEMS / (j.per_group * plane), om_gn_rows,
                            &j);
  }
  free(stats);
  if (rc != 0) snprintf(io->err, io->errlen, "node '%s' (op %s): out of memory", node->name, om_gn_op(node));
  return rc;
}

const om_family om_family_groupnorm = {.state_size = sizeof(om_groupnorm_node), .create = om_gn_create,
                                       .shapes = om_gn_shapes, .run = om_gn_run, .check_ranks = om_gn_check_ranks};
