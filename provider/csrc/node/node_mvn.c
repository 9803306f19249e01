/* node_mvn.c - MeanVarianceNormalization (opsets 9, 13): x normalised over the axes `axes` (default [0, 2, 3]):
 * y = (x - mean) / (sqrt(var) + 1e-9) per group of x's elements that share their indices on the other axes;
 * float16, float, double (docs/pooling-norm.md).
 *
 * Each group's n elements are gathered into a row in row-major order of the reduced axes; its mean and variance
 * are reduce/'s om_moments of that row (mean = sum16(x) / n, var = sum16((x_i - mean)^2) / n, in A: f32 for
 * float16 and float, f64 for double: InstanceNormalization's statistics). Then, in A, each step rounded:
 *
 *   d   = sqrt(var) + eps        eps = 1e-9 rounded to A
 *   y_i = (x_i - mean) / d       float16: then rounded to float16 once; a NaN y_i is the canonical quiet NaN
 *
 * Groups in fixed chunks on the host's threads; a group whose elements are contiguous is read in place, else
 * gathered by its contiguous runs (X's trailing reduced axes). One plain body after om_moments, so every path gives
 * the same bits.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/om_ops.h"
#include "math/om_half.h"
#include "node_family.h"
#include "parallel.h"
#include "reduce/reduce.h"

/* Elements a parallel chunk of groups covers, at least (one group at least). */
#define OM_MVN_CHUNK_ELEMS ((size_t)1 << 16)

typedef struct om_mvn_node {
  size_t n_axes;
  int64_t axes[OM_NODE_MAX_RANK];
} om_mvn_node;

static const char* om_mvn_op(const om_node* node) { return om_op_row(node->op)->name; }

static int om_mvn_create(om_node* node, const om_attrs* a, char* err, size_t errlen) {
  om_mvn_node* m = node->impl;
  int t = node->type;
  if (t != OM_T_FLOAT && t != OM_T_DOUBLE && t != OM_T_FLOAT16) return om_family_no_kernel(node, err, errlen);
  if (!a->has_axes) {
    static const int64_t dflt[3] = {0, 2, 3};
    m->n_axes = 3;
    memcpy(m->axes, dflt, sizeof dflt);
    return 0;
  }
  if (a->n_axes_listed != a->n_axes)
    OM_FAIL_MSG("node '%s' (op %s): attribute axes lists an axis twice", node->name, om_mvn_op(node));
  if (a->n_axes > OM_NODE_MAX_RANK)
    OM_FAIL_MSG("node '%s' (op %s): attribute axes has %zu entries, more than %d", node->name, om_mvn_op(node),
                a->n_axes, OM_NODE_MAX_RANK);
  m->n_axes = a->n_axes;
  memcpy(m->axes, a->axes, a->n_axes * sizeof(int64_t));
  return 0;
}

/* Which of rank axes are reduced, into mask: 0, or -1 with a message (an axis out of range, or two the same). */
static int om_mvn_mask(const om_node* node, size_t rank, unsigned char* mask, char* err, size_t errlen) {
  const om_mvn_node* m = node->impl;
  memset(mask, 0, rank);
  for (size_t k = 0; k < m->n_axes; k++) {
    int64_t r = (int64_t)rank, a = m->axes[k] < 0 ? m->axes[k] + r : m->axes[k];
    if (a < 0 || a >= r)
      OM_FAIL_MSG("node '%s' (op %s): axis %lld of attribute axes is out of range for an input of rank %zu",
                  node->name, om_mvn_op(node), (long long)m->axes[k], rank);
    if (mask[a])
      OM_FAIL_MSG("node '%s' (op %s): attribute axes names axis %lld twice", node->name, om_mvn_op(node),
                  (long long)a);
    mask[a] = 1;
  }
  return 0;
}

static int om_mvn_check_ranks(const om_node* node, size_t n_inputs, const size_t* ranks, char* err, size_t errlen) {
  unsigned char mask[OM_NODE_MAX_RANK];
  (void)n_inputs;
  return ranks[0] == OM_RANK_UNKNOWN ? 0 : om_mvn_mask(node, ranks[0], mask, err, errlen);
}

static int om_mvn_shapes(const om_node* node, const om_node_io* io) {
  unsigned char mask[OM_NODE_MAX_RANK];
  size_t r = io->ranks[0];
  if (om_mvn_mask(node, r, mask, io->err, io->errlen) != 0) return -1;
  for (size_t d = 0; d < r; d++) io->out_shapes[d] = io->shapes[0][d];
  io->out_ranks[0] = r;
  return 0;
}

typedef struct om_mvn_job {
  const om_node* node;
  const char* x;
  char* y;
  size_t esz, n;                    /* element size, elements a group */
  size_t run, runs;                 /* a group: `runs` contiguous runs of `run` (X's trailing reduced axes) */
  size_t nk, nr;                    /* kept axes; reduced axes outside the runs */
  size_t kdim[OM_NODE_MAX_RANK], kstride[OM_NODE_MAX_RANK]; /* kept axes: sizes and element strides */
  size_t rdim[OM_NODE_MAX_RANK], rstride[OM_NODE_MAX_RANK]; /* reduced axes outside the runs */
} om_mvn_job;

/* The element offsets of group g's runs, in row-major order of the reduced axes, into off[runs]. */
static void om_mvn_offsets(const om_mvn_job* j, size_t g, size_t* off) {
  size_t base = 0, rest = g, idx[OM_NODE_MAX_RANK] = {0};
  for (size_t d = j->nk; d-- > 0;) {
    base += (rest % j->kdim[d]) * j->kstride[d];
    rest /= j->kdim[d];
  }
  for (size_t k = 0; k < j->runs; k++) {
    off[k] = base;
    for (size_t d = j->nr; d-- > 0;) { /* the next run: an odometer over the reduced axes outside the runs */
      base += j->rstride[d];
      if (++idx[d] < j->rdim[d]) break;
      base -= idx[d] * j->rstride[d];
      idx[d] = 0;
    }
  }
}

/* One group's row v (n elements) normalised into yrow: 0, or -1 (om_moments refused the type). */
static int om_mvn_row(const om_node* node, size_t n, const void* v, void* yrow) {
  int t = node->type;
  if (t == OM_T_DOUBLE) {
    double mean, var;
    if (om_moments(node->path, t, n, 0, 1, v, &mean, &var) != 0) return -1;
    double d = sqrt(var) + 1e-9;
    for (size_t i = 0; i < n; i++) {
      double q = (((const double*)v)[i] - mean) / d;
      ((double*)yrow)[i] = q != q ? (double)NAN : q;
    }
    return 0;
  }
  float mean, var;
  if (om_moments(node->path, t, n, 0, 1, v, &mean, &var) != 0) return -1;
  float d = sqrtf(var) + 1e-9f;
  if (t == OM_T_FLOAT) {
    for (size_t i = 0; i < n; i++) {
      float q = (((const float*)v)[i] - mean) / d;
      ((float*)yrow)[i] = q != q ? NAN : q;
    }
    return 0;
  }
  for (size_t i = 0; i < n; i++) {
    float q = (om_f16_to_f32(((const uint16_t*)v)[i]) - mean) / d;
    ((uint16_t*)yrow)[i] = om_f32_to_f16(q != q ? NAN : q);
  }
  return 0;
}

/* Groups [b, e) (om_parallel_ranges): a group of one run is read and written in place, else gathered by runs. */
static int om_mvn_groups(const void* args, size_t b, size_t e) {
  const om_mvn_job* j = args;
  size_t rb = j->run * j->esz;
  size_t* off = malloc(j->runs * sizeof(size_t) + (j->runs > 1 ? 2 * j->n * j->esz : 0));
  if (!off) return -1;
  char* row = (char*)(off + j->runs);
  char* yrow = row + j->n * j->esz;
  int rc = 0;
  for (size_t g = b; g < e && rc == 0; g++) {
    om_mvn_offsets(j, g, off);
    if (j->runs == 1) {
      rc = om_mvn_row(j->node, j->n, j->x + off[0] * j->esz, j->y + off[0] * j->esz);
      continue;
    }
    for (size_t k = 0; k < j->runs; k++) memcpy(row + k * rb, j->x + off[k] * j->esz, rb);
    rc = om_mvn_row(j->node, j->n, row, yrow);
    for (size_t k = 0; k < j->runs; k++) memcpy(j->y + off[k] * j->esz, yrow + k * rb, rb);
  }
  free(off);
  return rc;
}

static int om_mvn_run(const om_node* node, const om_node_io* io) {
  unsigned char mask[OM_NODE_MAX_RANK];
  size_t r = io->ranks[0];
  if (om_mvn_mask(node, r, mask, io->err, io->errlen) != 0) return -1;
  om_mvn_job j = {.node = node, .x = io->data[0], .y = io->outs[0], .esz = om_type_size(node->type), .n = 1,
                  .run = 1};
  size_t groups = 1, stride = 1, d = r;
  for (; d > 0 && mask[d - 1]; d--) j.run *= (size_t)io->shapes[0][d - 1]; /* trailing reduced axes: one run */
  stride = j.run;
  j.n = j.run;
  for (; d-- > 0;) { /* the other axes, innermost first; reversed into outer-to-inner order below */
    size_t dim = (size_t)io->shapes[0][d];
    if (mask[d]) {
      j.rdim[j.nr] = dim;
      j.rstride[j.nr++] = stride;
      j.n *= dim;
    } else {
      j.kdim[j.nk] = dim;
      j.kstride[j.nk++] = stride;
      groups *= dim;
    }
    stride *= dim;
  }
  j.runs = j.run ? j.n / j.run : 0;
  for (size_t a = 0, z = j.nr; a + 1 < z; a++, z--) {
    size_t t0 = j.rdim[a], t1 = j.rstride[a];
    j.rdim[a] = j.rdim[z - 1], j.rstride[a] = j.rstride[z - 1];
    j.rdim[z - 1] = t0, j.rstride[z - 1] = t1;
  }
  for (size_t a = 0, z = j.nk; a + 1 < z; a++, z--) {
    size_t t0 = j.kdim[a], t1 = j.kstride[a];
    j.kdim[a] = j.kdim[z - 1], j.kstride[a] = j.kstride[z - 1];
    j.kdim[z - 1] = t0, j.kstride[z - 1] = t1;
  }
  if (!j.y || !groups || !j.n) return 0;
  size_t chunk = j.n >= OM_MVN_CHUNK_ELEMS ? 1 : OM_MVN_CHUNK_ELEMS / j.n;
  if (om_parallel_ranges(io->parallel_for, io->host_ctx, groups, chunk, om_mvn_groups, &j) == 0) return 0;
  snprintf(io->err, io->errlen, "node '%s' (op %s): out of memory", node->name, om_mvn_op(node));
  return -1;
}

const om_family om_family_mvn = {.state_size = sizeof(om_mvn_node), .create = om_mvn_create,
                                 .shapes = om_mvn_shapes, .run = om_mvn_run, .check_ranks = om_mvn_check_ranks};
