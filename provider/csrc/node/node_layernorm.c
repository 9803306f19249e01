/* node_layernorm.c - LayerNormalization nodes (opset 17): axis, epsilon, stash_type, the optional Mean and
 * InvStdDev outputs, onto om_layernorm (reduce/reduce.h).
 *
 * x is viewed as rows of n = prod(dims[axis:]) contiguous elements (axis in [-rank, rank - 1], default -1).
 * Scale and the optional B have x's type and broadcast unidirectionally to the normalised shape dims[axis:]
 * (ONNX's rule); one that is not that shape is expanded to it once per run. stash_type 1 (float) is the only
 * one served: Mean and InvStdDev are float, of shape dims[:axis] + [1] * (rank - axis). For f64 input the
 * kernel computes in f64 (docs/exact-linalg.md); Mean and InvStdDev are those f64 values rounded once to f32.
 * n = 0 gives an empty Y and Mean = InvStdDev = NaN (0 / 0). Rows are split over threads in fixed chunks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "broadcast.h"
#include "node_family.h"
#include "parallel.h"
#include "core/om_ops.h"
#include "reduce/reduce.h"

/* Elements per parallel chunk: a few operations per element, as the cheap element-wise kernels (node.c). */
#define OM_LAYERNORM_CHUNK_ELEMS ((size_t)1 << 15)

typedef struct om_layernorm_node {
  int64_t axis;
  float epsilon;
} om_layernorm_node;

static int om_ln_create(om_node* node, const om_attrs* a, char* err, size_t errlen) {
  om_layernorm_node* l = node->impl;
  l->axis = a->has_axis ? a->axis : -1;
  l->epsilon = a->has_epsilon ? a->epsilon : 1e-5f;
  if (a->has_stash_type && a->stash_type != 1) {
    snprintf(err, errlen, "node '%s' (op LayerNormalization): attribute stash_type %lld is not served (only 1, "
             "float)", node->name, (long long)a->stash_type);
    return -1;
  }
  if (!om_layernorm_supported(node->type)) return om_family_no_kernel(node, err, errlen);
  node->out_types[1] = node->out_types[2] = OM_T_FLOAT;
  return 0;
}

static void om_ln_shape_str(const int64_t* s, size_t r, char* buf, size_t len) {
  size_t used = (size_t)snprintf(buf, len, "[");
  for (size_t d = 0; d < r && used < len; d++)
    used += (size_t)snprintf(buf + used, len - used, "%s%lld", d ? ", " : "", (long long)s[d]);
  if (used < len) snprintf(buf + used, len - used, "]");
}

/* The normalised axis of x, and Scale's and B's shapes checked against dims[axis:]; 0, or -1 with a message. */
static int om_ln_axis(const om_node* node, size_t n_inputs, const int64_t* const* shapes, const size_t* ranks,
                      size_t* axis, char* err, size_t errlen) {
  const om_layernorm_node* l = node->impl;
  int64_t r = (int64_t)ranks[0], a = l->axis < 0 ? l->axis + r : l->axis;
  if (a < 0 || a >= r) {
    snprintf(err, errlen, "node '%s' (op LayerNormalization): attribute axis %lld is out of range for X of rank %zu "
             "(accepted: [%lld, %lld])", node->name, (long long)l->axis, ranks[0], (long long)-r, (long long)(r - 1));
    return -1;
  }
  *axis = (size_t)a;
  size_t m = ranks[0] - *axis;
  const int64_t* nd = shapes[0] + *axis;
  for (size_t k = 1; k < n_inputs && k < 3; k++) {
    if (!shapes[k] && ranks[k] == 0 && k == 2) continue; /* B absent */
    int ok = ranks[k] <= m;
    for (size_t d = 0; ok && d < ranks[k]; d++) {
      int64_t s = shapes[k][d], w = nd[m - ranks[k] + d];
      ok = s == w || s == 1;
    }
    if (!ok) {
      char sx[200], sn[200];
      om_ln_shape_str(shapes[k], ranks[k], sx, sizeof sx);
      om_ln_shape_str(nd, m, sn, sizeof sn);
      snprintf(err, errlen, "node '%s' (op LayerNormalization): %s %s does not broadcast to the normalised shape %s "
               "(X's dimensions from axis %zu)", node->name, k == 1 ? "Scale" : "B", sx, sn, *axis);
      return -1;
    }
  }
  return 0;
}

static int om_ln_shapes(const om_node* node, const om_node_io* io) {
  size_t axis;
  if (om_ln_axis(node, io->n_inputs, io->shapes, io->ranks, &axis, io->err, io->errlen) != 0) return -1;
  size_t r = io->ranks[0];
  for (size_t o = 0; o < io->n_outputs; o++) {
    for (size_t d = 0; d < r; d++) io->out_shapes[o * OM_MAX_RANK + d] = o == 0 || d < axis ? io->shapes[0][d] : 1;
    io->out_ranks[o] = r;
  }
  return 0;
}

/* Scale or B (shape s of rank k) expanded to the normalised shape nd (rank m): a new buffer of n elements. */
static void* om_ln_expand(const void* src, const int64_t* s, size_t k, const int64_t* nd, size_t m, size_t n,
                          size_t esz) {
  char* out = malloc(n * esz);
  if (!out) return NULL;
  int64_t idx[OM_MAX_RANK];
  memset(idx, 0, sizeof idx);
  for (size_t i = 0; i < n; i++) {
    size_t off = 0, stride = 1;
    for (size_t q = 0; q < k; q++) { /* from the innermost dimension of s outwards */
      size_t d = k - 1 - q;
      if (s[d] != 1) off += (size_t)idx[m - k + d] * stride;
      stride *= (size_t)s[d];
    }
    memcpy(out + i * esz, (const char*)src + off * esz, esz);
    for (size_t d = m; d-- > 0;) { /* next index of nd, row-major */
      if (++idx[d] < nd[d]) break;
      idx[d] = 0;
    }
  }
  return out;
}

typedef struct om_ln_job {
  const om_node* node;
  size_t rows, n, chunk;
  const void *x, *scale, *bias;
  void *y, *mean, *inv;  /* mean, inv: the kernel's (f64 for f64 input) */
  float *mean32, *inv32; /* f64 input: the outputs, mean and inv rounded */
  volatile int failed;
} om_ln_job;

static void om_ln_chunk(void* ctx, size_t i) {
  om_ln_job* j = ctx;
  const om_layernorm_node* l = j->node->impl;
  size_t e, b = om_chunk_begin(i, j->chunk, j->rows, &e);
  if (om_layernorm(j->node->path, j->node->type, j->node->mode, j->n, b, e, j->x, j->scale, j->bias, l->epsilon, j->y,
                   j->mean, j->inv) != 0) {
    j->failed = 1;
    return;
  }
  for (size_t r = b; r < e; r++) { /* here, under the IEEE default environment */
    if (j->mean32) j->mean32[r] = (float)((const double*)j->mean)[r];
    if (j->inv32) j->inv32[r] = (float)((const double*)j->inv)[r];
  }
}

static int om_ln_run(const om_node* node, const om_node_io* io) {
  size_t axis;
  if (om_ln_axis(node, io->n_inputs, io->shapes, io->ranks, &axis, io->err, io->errlen) != 0) return -1;
  om_ln_job j;
  memset(&j, 0, sizeof j);
  j.node = node;
  j.rows = om_shape_count(io->shapes[0], axis);
  j.n = om_shape_count(io->shapes[0] + axis, io->ranks[0] - axis);
  j.x = io->data[0];
  j.y = io->outs[0];
  void* mean = io->n_outputs > 1 ? io->outs[1] : NULL;
  void* inv = io->n_outputs > 2 ? io->outs[2] : NULL;
  if (j.rows == 0) return 0;
  if (j.n == 0) { /* Y is empty; Mean and InvStdDev: +0 / 0 */
    const uint32_t nan = 0x7FC00000u;
    for (size_t r = 0; r < j.rows; r++) {
      if (mean) memcpy((char*)mean + 4 * r, &nan, 4);
      if (inv) memcpy((char*)inv + 4 * r, &nan, 4);
    }
    return 0;
  }
  if (!j.y) {
    snprintf(io->err, io->errlen, "node '%s' (op LayerNormalization): output Y is required", node->name);
    return -1;
  }
  size_t esz = om_type_size(node->type), m = io->ranks[0] - axis;
  void* owned[4] = {NULL, NULL, NULL, NULL};
  int rc = 0;
  const void** ops[2] = {&j.scale, &j.bias};
  for (size_t k = 1; k < 3; k++) {
    if (k >= io->n_inputs || !io->data[k]) continue;
    if (om_shape_count(io->shapes[k], io->ranks[k]) == j.n) { /* broadcasting adds no element: the same layout */
      *ops[k - 1] = io->data[k];
      continue;
    }
    owned[k - 1] = om_ln_expand(io->data[k], io->shapes[k], io->ranks[k], io->shapes[0] + axis, m, j.n, esz);
    if (!owned[k - 1]) goto oom;
    *ops[k - 1] = owned[k - 1];
  }
  if (!j.scale) {
    snprintf(io->err, io->errlen, "node '%s' (op LayerNormalization): input Scale has no io->data", node->name);
    rc = -1;
    goto out;
  }
  /* f64 input: the kernel's f64 statistics, rounded to f32 below */
  int wide = node->type == OM_T_DOUBLE;
  j.mean = mean;
  j.inv = inv;
  if (wide && mean && !(j.mean = owned[2] = malloc(j.rows * sizeof(double)))) goto oom;
  if (wide && inv && !(j.inv = owned[3] = malloc(j.rows * sizeof(double)))) goto oom;
  if (wide) {
    j.mean32 = mean;
    j.inv32 = inv;
  }
  j.chunk = OM_LAYERNORM_CHUNK_ELEMS / j.n ? OM_LAYERNORM_CHUNK_ELEMS / j.n : 1;
  om_parallel_ieee(io->parallel_for, io->host_ctx, (j.rows + j.chunk - 1) / j.chunk, om_ln_chunk, &j);
  if (j.failed) goto oom;
  goto out;
oom:
  snprintf(io->err, io->errlen, "node '%s' (op LayerNormalization): out of memory", node->name);
  rc = -1;
out:
  for (int q = 0; q < 4; q++) free(owned[q]);
  return rc;
}

/* At creation: the axis against X's declared rank, and Scale's and B's ranks against the normalised rank. */
static int om_ln_check_ranks(const om_node* node, size_t n_inputs, const size_t* ranks, char* err, size_t errlen) {
  const om_layernorm_node* l = node->impl;
  if (ranks[0] == OM_RANK_UNKNOWN) return 0;
  int64_t r = (int64_t)ranks[0], a = l->axis < 0 ? l->axis + r : l->axis;
  if (a < 0 || a >= r) {
    snprintf(err, errlen, "node '%s' (op LayerNormalization): attribute axis %lld is out of range for X of rank %zu "
             "(accepted: [%lld, %lld])", node->name, (long long)l->axis, ranks[0], (long long)-r, (long long)(r - 1));
    return -1;
  }
  for (size_t k = 1; k < n_inputs && k < 3; k++)
    if (ranks[k] != OM_RANK_UNKNOWN && ranks[k] > (size_t)(r - a)) {
      snprintf(err, errlen, "node '%s' (op LayerNormalization): %s of rank %zu does not broadcast to the normalised "
               "shape of rank %lld (X's dimensions from axis %lld)", node->name, k == 1 ? "Scale" : "B", ranks[k],
               (long long)(r - a), (long long)a);
      return -1;
    }
  return 0;
}

const om_family om_family_layernorm = {.state_size = sizeof(om_layernorm_node), .create = om_ln_create,
                                       .shapes = om_ln_shapes, .run = om_ln_run, .check_ranks = om_ln_check_ranks};
