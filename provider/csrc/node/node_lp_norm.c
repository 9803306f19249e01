/* node_lp_norm.c - LpNormalization (opset 1): each vector of x along `axis` (default -1) divided by its L1 (p = 1)
 * or L2 (p = 2, the default) norm; float and double (docs/pooling-norm.md). x is viewed as [outer, n, inner] with
 * n = dims[axis]; each of the outer x inner vectors, in double:
 *
 *   s = 0; for i = 0 .. n - 1 in order: s = s + |x_i| (p = 1) or s = s + x_i * x_i (p = 2), each step rounded
 *   norm = s (p = 1) or sqrt(s) (p = 2, correctly rounded)
 *   y_i = x_i / norm, rounded to double, then (float) to float; norm == 0: y_i = +0.0; a NaN y_i is the
 *         canonical quiet NaN (positive, no payload)
 *
 * (float x_i are widened exactly; a float's square is exact in double.) Vectors in fixed chunks on the host's
 * threads, up to 64 neighbours along inner side by side (each its own sequential sum; contiguous vectors, inner
 * 1, up to 8 at a time); one plain body, so every path gives the same bits. p other than 1 and 2 stays with stock
 * ONNX Runtime.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/om_ops.h"
#include "node_family.h"
#include "parallel.h"

/* Elements a parallel chunk of vectors covers, at least (one vector at least). */
#define OM_LP_CHUNK_ELEMS ((size_t)1 << 16)

typedef struct om_lp_node {
  int64_t axis;
  int p;
} om_lp_node;

static int om_lp_create(om_node* node, const om_attrs* a, char* err, size_t errlen) {
  om_lp_node* l = node->impl;
  if (node->type != OM_T_FLOAT && node->type != OM_T_DOUBLE) return om_family_no_kernel(node, err, errlen);
  int64_t p = a->has_p ? a->p : 2;
  if (p != 1 && p != 2)
    OM_FAIL_MSG("node '%s' (op %s): attribute p is %lld; ONNX defines only 1 and 2", node->name,
                om_op_row(node->op)->name, (long long)p);
  l->p = (int)p;
  l->axis = a->has_axis ? a->axis : -1;
  return 0;
}

/* The axis against rank: 0 with *axis in [0, rank), or -1 with a message. */
static int om_lp_axis(const om_node* node, size_t rank, size_t* axis, char* err, size_t errlen) {
  const om_lp_node* l = node->impl;
  int64_t r = (int64_t)rank, a = l->axis < 0 ? l->axis + r : l->axis;
  if (a < 0 || a >= r)
    OM_FAIL_MSG("node '%s' (op %s): attribute axis %lld is out of range for an input of rank %zu", node->name,
                om_op_row(node->op)->name, (long long)l->axis, rank);
  *axis = (size_t)a;
  return 0;
}

static int om_lp_check_ranks(const om_node* node, size_t n_inputs, const size_t* ranks, char* err, size_t errlen) {
  size_t axis;
  (void)n_inputs;
  return ranks[0] == OM_RANK_UNKNOWN ? 0 : om_lp_axis(node, ranks[0], &axis, err, errlen);
}

static int om_lp_shapes(const om_node* node, const om_node_io* io) {
  size_t axis, r = io->ranks[0];
  if (om_lp_axis(node, r, &axis, io->err, io->errlen) != 0) return -1;
  for (size_t d = 0; d < r; d++) io->out_shapes[d] = io->shapes[0][d];
  io->out_ranks[0] = r;
  return 0;
}

typedef struct om_lp_job {
  const void* x;
  void* y;
  size_t n, inner;
  int p, f64;
} om_lp_job;

/* Vectors of a tile: up to OM_LP_TILE neighbours along inner (one chain each, so the chains run side by side). */
#define OM_LP_TILE 64

/* The tile of vectors (o, j0 .. j0 + w - 1), x and y of element type T (float or double). */
#define OM_LP_TILE_BODY(T, NAN_BITS, NAN_SIZE)                                                         \
  do {                                                                                                 \
    const T* x = (const T*)j->x + o * j->n * j->inner + j0;                                           \
    T* y = (T*)j->y + o * j->n * j->inner + j0;                                                       \
    double s[OM_LP_TILE], norm[OM_LP_TILE];                                                            \
    size_t in = j->inner;                                                                              \
    for (size_t q = 0; q < w; q++) s[q] = 0.0;                                                         \
    if (w == 1 && j->p == 2) /* one chain: the same sums, without the tile's bookkeeping */            \
      for (size_t i = 0; i < j->n; i++) s[0] = s[0] + (double)x[i * in] * (double)x[i * in];           \
    else if (j->p == 2)                                                                                \
      for (size_t i = 0; i < j->n; i++)                                                                \
        for (size_t q = 0; q < w; q++) s[q] = s[q] + (double)x[i * in + q] * (double)x[i * in + q];    \
    else                                                                                               \
      for (size_t i = 0; i < j->n; i++)                                                                \
        for (size_t q = 0; q < w; q++) s[q] = s[q] + fabs((double)x[i * in + q]);                      \
    for (size_t q = 0; q < w; q++) norm[q] = j->p == 1 ? s[q] : sqrt(s[q]);                            \
    for (size_t i = 0; i < j->n; i++)                                                                  \
      for (size_t q = 0; q < w; q++) {                                                                 \
        double r = norm[q] == 0.0 ? 0.0 : (double)x[i * in + q] / norm[q]; /* zero norm: +0.0 */        \
        T t = (T)r;                                                                                    \
        if (t != t) memcpy(&t, &(NAN_BITS), NAN_SIZE); /* the canonical quiet NaN, positive */          \
        y[i * in + q] = t;                                                                             \
      }                                                                                                \
  } while (0)

static const uint64_t om_lp_nan64 = 0x7FF8000000000000u;
static const uint32_t om_lp_nan32 = 0x7FC00000u;

/* Contiguous vectors (inner 1): up to OM_LP_ROWS of them side by side, each its own sequential sum (so the
 * chains of dependent additions overlap), then each vector's quotients. */
#define OM_LP_ROWS 8

#define OM_LP_ROWS_BODY(T, NAN_BITS, NAN_SIZE)                                                          \
  do {                                                                                                 \
    const T* x = (const T*)j->x + u * n;                                                               \
    T* y = (T*)j->y + u * n;                                                                           \
    double s[OM_LP_ROWS] = {0.0};                                                                      \
    if (k == OM_LP_ROWS && j->p == 2)                                                                  \
      for (size_t i = 0; i < n; i++)                                                                   \
        for (size_t q = 0; q < OM_LP_ROWS; q++) /* the tile spelled out: its chains unrolled */          \
          s[q] = s[q] + (double)x[q * n + i] * (double)x[q * n + i];                                   \
    else if (j->p == 2)                                                                                \
      for (size_t i = 0; i < n; i++)                                                                   \
        for (size_t q = 0; q < k; q++) s[q] = s[q] + (double)x[q * n + i] * (double)x[q * n + i];      \
    else                                                                                               \
      for (size_t i = 0; i < n; i++)                                                                   \
        for (size_t q = 0; q < k; q++) s[q] = s[q] + fabs((double)x[q * n + i]);                       \
    for (size_t q = 0; q < k; q++) {                                                                   \
      double norm = j->p == 1 ? s[q] : sqrt(s[q]);                                                     \
      const T* xq = x + q * n;                                                                         \
      T* yq = y + q * n;                                                                               \
      if (norm == 0.0) /* zero norm: +0.0 */                                                           \
        for (size_t i = 0; i < n; i++) yq[i] = (T)0.0;                                                 \
      else                                                                                             \
        for (size_t i = 0; i < n; i++) {                                                               \
          T t = (T)((double)xq[i] / norm);                                                             \
          if (t != t) memcpy(&t, &(NAN_BITS), NAN_SIZE); /* the canonical quiet NaN, positive */        \
          yq[i] = t;                                                                                   \
        }                                                                                              \
    }                                                                                                  \
  } while (0)

/* Vectors [b, e) of outer x inner (om_parallel_ranges), in tiles of neighbours along inner. */
static int om_lp_vectors(const void* args, size_t b, size_t e) {
  const om_lp_job* j = args;
  if (j->inner == 1) {
    for (size_t u = b, n = j->n; u < e;) {
      size_t k = e - u < OM_LP_ROWS ? e - u : OM_LP_ROWS;
      if (j->f64) OM_LP_ROWS_BODY(double, om_lp_nan64, 8);
      else OM_LP_ROWS_BODY(float, om_lp_nan32, 4);
      u += k;
    }
    return 0;
  }
  for (size_t u = b; u < e;) {
    size_t o = u / j->inner, j0 = u % j->inner, w = j->inner - j0;
    if (w > e - u) w = e - u;
    if (w > OM_LP_TILE) w = OM_LP_TILE;
    if (j->f64) OM_LP_TILE_BODY(double, om_lp_nan64, 8);
    else OM_LP_TILE_BODY(float, om_lp_nan32, 4);
    u += w;
  }
  return 0;
}

static int om_lp_run(const om_node* node, const om_node_io* io) {
  const om_lp_node* l = node->impl;
  size_t axis, r = io->ranks[0];
  if (om_lp_axis(node, r, &axis, io->err, io->errlen) != 0) return -1;
  om_lp_job j = {io->data[0], io->outs[0], (size_t)io->shapes[0][axis], 0, l->p, node->type == OM_T_DOUBLE};
  j.inner = om_shape_count(io->shapes[0] + axis + 1, r - axis - 1);
  size_t units = om_shape_count(io->shapes[0], axis) * j.inner;
  if (!j.y || !units || !j.n) return 0;
  size_t chunk = j.n >= OM_LP_CHUNK_ELEMS ? 1 : OM_LP_CHUNK_ELEMS / j.n;
  om_parallel_ranges(io->parallel_for, io->host_ctx, units, chunk, om_lp_vectors, &j);
  return 0;
}

const om_family om_family_lp_norm = {sizeof(om_lp_node), om_lp_create, om_lp_shapes, om_lp_run,
                                     NULL,               NULL,         NULL,         om_lp_check_ranks};
