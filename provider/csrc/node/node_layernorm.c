/* node_layernorm.c - LayerNormalization nodes (opset 17): axis, epsilon, stash_type, the optional Mean and
 * InvStdDev outputs, onto om_layernorm (reduce/reduce.h). The same family serves the RMS and residual forms
 * (om_ln_form below): SimplifiedLayerNormalization (ORT's, default domain, opset 1: outputs Y, inv_std_var) and
 * RMSNormalization (opset 23: Y) with the mean taken as 0; com.microsoft's SkipLayerNormalization (input, skip,
 * gamma, beta, bias) and SkipSimplifiedLayerNormalization (input, skip, gamma, bias), which normalise the last
 * axis of the residual sum (input + skip) + bias (om_skip_add) and output it as input_skip_bias_sum (output 3)
 * beside mean (1) and inv_std_var (2); SkipSimplifiedLayerNormalization's mean is the +0 its RMS form takes.
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

/* Where each form keeps its inputs and outputs (-1: none). */
typedef struct om_ln_form {
  int op;
  int rms;                               /* the mean taken as 0 */
  int in_scale, in_bias, in_skip, in_skip_bias;
  int out_mean, out_inv, out_sum;
  float epsilon;                         /* the attribute's default */
} om_ln_form;

static const om_ln_form om_ln_forms[] = {
    {OM_OP_LAYER_NORMALIZATION, 0, 1, 2, -1, -1, 1, 2, -1, 1e-5f},
    {OM_OP_SIMPLIFIED_LAYER_NORMALIZATION, 1, 1, -1, -1, -1, -1, 1, -1, 1e-5f},
    {OM_OP_RMS_NORMALIZATION, 1, 1, -1, -1, -1, -1, -1, -1, 1e-5f},
    {OM_OP_SKIP_LAYER_NORMALIZATION, 0, 2, 3, 1, 4, 1, 2, 3, 1e-12f},
    {OM_OP_SKIP_SIMPLIFIED_LAYER_NORMALIZATION, 1, 2, -1, 1, 3, 1, 2, 3, 1e-12f},
};

typedef struct om_layernorm_node {
  int64_t axis;
  float epsilon;
  const om_ln_form* form;
} om_layernorm_node;

static const char* om_ln_op(const om_node* node) { return om_op_row(node->op)->name; }

static int om_ln_create(om_node* node, const om_attrs* a, char* err, size_t errlen) {
  const om_ln_form* f = NULL;
  for (size_t q = 0; q < sizeof om_ln_forms / sizeof om_ln_forms[0]; q++)
    if (om_ln_forms[q].op == node->op) f = &om_ln_forms[q];
  if (!f) {
    snprintf(err, errlen, "node '%s' (op %s): not a normalisation", node->name, om_ln_op(node));
    return -1;
  }
  om_layernorm_node* l = node->impl;
  l->form = f;
  l->axis = a->has_axis && f->in_skip < 0 ? a->axis : -1; /* the skip forms normalise the last axis */
  l->epsilon = a->has_epsilon ? a->epsilon : f->epsilon;
  if (a->has_stash_type && a->stash_type != 1) {
    snprintf(err, errlen, "node '%s' (op %s): attribute stash_type %lld is not served (only 1, float)", node->name,
             om_ln_op(node), (long long)a->stash_type);
    return -1;
  }
  if (!om_layernorm_supported(node->type)) return om_family_no_kernel(node, err, errlen);
  if (f->out_mean > 0) node->out_types[f->out_mean] = OM_T_FLOAT;
  if (f->out_inv > 0) node->out_types[f->out_inv] = OM_T_FLOAT;
  if (f->out_sum > 0) node->out_types[f->out_sum] = node->type;
  return 0;
}

/* Input k's name in messages. */
static const char* om_ln_input(const om_ln_form* f, size_t k) {
  if ((int)k == f->in_skip) return "skip";
  if ((int)k == f->in_skip_bias) return "bias";
  if (f->in_skip >= 0) return (int)k == f->in_scale ? "gamma" : "beta";
  if (f->op == OM_OP_LAYER_NORMALIZATION) return k == 1 ? "Scale" : "B";
  return "scale";
}

/* The attribute axis of a node normalising X of rank `rank`, made non-negative into *axis; 0, or -1 with a
 * message when it is out of range. */
static int om_ln_axis_of(const om_node* node, size_t rank, size_t* axis, char* err, size_t errlen) {
  const om_layernorm_node* l = node->impl;
  int64_t r = (int64_t)rank, a = l->axis < 0 ? l->axis + r : l->axis;
  if (a < 0 || a >= r) {
    snprintf(err, errlen, "node '%s' (op %s): attribute axis %lld is out of range for X of rank %zu (accepted: "
             "[%lld, %lld])", node->name, om_ln_op(node), (long long)l->axis, rank, (long long)-r,
             (long long)(r - 1));
    return -1;
  }
  *axis = (size_t)a;
  return 0;
}

/* skip's shape against x's (rank r): after its leading 1s, x's last dimensions (the last one at least), so that
 * row q of x takes row q mod skip_rows of skip. 1 when it is. */
static int om_ln_skip_fits(const int64_t* ks, size_t kr, const int64_t* xs, size_t r, size_t* skip_rows) {
  size_t lead = 0;
  while (lead + 1 < kr && ks[lead] == 1) lead++;
  if (kr == 0 || kr - lead > r) return 0;
  for (size_t d = lead; d < kr; d++)
    if (ks[d] != xs[r - kr + d]) return 0;
  *skip_rows = om_shape_count(ks + lead, kr - lead - 1);
  return 1;
}

/* The normalised axis of x, and the other inputs' shapes checked against dims[axis:] (Scale and B broadcast to
 * it; the skip forms' gamma, beta and bias are exactly [hidden], skip as om_ln_skip_fits says); 0, or -1 with a
 * message. skip_rows: the skip forms' rows of skip. */
static int om_ln_axis(const om_node* node, size_t n_inputs, const int64_t* const* shapes, const size_t* ranks,
                      size_t* axis, size_t* skip_rows, char* err, size_t errlen) {
  const om_layernorm_node* l = node->impl;
  const om_ln_form* f = l->form;
  if (om_ln_axis_of(node, ranks[0], axis, err, errlen) != 0) return -1;
  size_t m = ranks[0] - *axis;
  const int64_t* nd = shapes[0] + *axis;
  char sx[200], sn[200]; /* shapes, formatted only for a message (this runs on every call) */
  for (size_t k = 1; k < n_inputs; k++) {
    if (!shapes[k]) continue; /* absent */
    if ((int)k == f->in_skip) {
      if (om_ln_skip_fits(shapes[k], ranks[k], shapes[0], ranks[0], skip_rows)) continue;
      om_shape_text(shapes[k], ranks[k], sx, sizeof sx);
      om_shape_text(shapes[0], ranks[0], sn, sizeof sn);
      snprintf(err, errlen, "node '%s' (op %s): skip %s does not fit input %s (it must be input's shape, or its last "
               "dimensions after leading 1s)", node->name, om_ln_op(node), sx, sn);
      return -1;
    }
    if (f->in_skip >= 0) {
      if (ranks[k] == 1 && shapes[k][0] == nd[0]) continue;
      om_shape_text(shapes[k], ranks[k], sx, sizeof sx);
      om_shape_text(nd, m, sn, sizeof sn);
      snprintf(err, errlen, "node '%s' (op %s): %s %s must have shape %s (the hidden size: input's last dimension)",
               node->name, om_ln_op(node), om_ln_input(f, k), sx, sn);
      return -1;
    }
    int ok = ranks[k] <= m;
    for (size_t d = 0; ok && d < ranks[k]; d++) {
      int64_t s = shapes[k][d], w = nd[m - ranks[k] + d];
      ok = s == w || s == 1;
    }
    if (!ok) {
      om_shape_text(shapes[k], ranks[k], sx, sizeof sx);
      om_shape_text(nd, m, sn, sizeof sn);
      snprintf(err, errlen, "node '%s' (op %s): %s %s does not broadcast to the normalised shape %s (X's dimensions "
               "from axis %zu)", node->name, om_ln_op(node), om_ln_input(f, k), sx, sn, *axis);
      return -1;
    }
  }
  return 0;
}

static int om_ln_shapes(const om_node* node, const om_node_io* io) {
  size_t axis, skip_rows = 0;
  if (om_ln_axis(node, io->n_inputs, io->shapes, io->ranks, &axis, &skip_rows, io->err, io->errlen) != 0) return -1;
  const om_layernorm_node* l = node->impl;
  size_t r = io->ranks[0];
  for (size_t o = 0; o < io->n_outputs; o++) { /* Y and the residual sum: X's shape; the statistics: 1 from axis */
    int whole = o == 0 || (int)o == l->form->out_sum;
    for (size_t d = 0; d < r; d++) io->out_shapes[o * OM_MAX_RANK + d] = whole || d < axis ? io->shapes[0][d] : 1;
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
  size_t rows, n;
  const void *x, *scale, *bias;
  const void *skip, *skip_bias; /* the skip forms: x is then the residual sum, written first */
  size_t skip_rows;
  const void* input;
  void *y, *mean, *inv;  /* mean, inv: the kernel's (f64 for f64 input) */
  float *mean32, *inv32; /* f64 input: the outputs, mean and inv rounded */
} om_ln_job;

/* Rows [b, e) (om_parallel_ranges): 0, or -1 out of memory. */
static int om_ln_rows(const void* args, size_t b, size_t e) {
  const om_ln_job* j = args;
  const om_layernorm_node* l = j->node->impl;
  if (j->skip && om_skip_add(j->node->type, j->node->mode, j->n, b, e, j->input, j->skip, j->skip_rows, j->skip_bias,
                             (void*)j->x) != 0)
    return -1;
  if (om_layernorm(j->node->path, j->node->type, j->node->mode, l->form->rms, j->n, b, e, j->x, j->scale, j->bias,
                   l->epsilon, j->y, j->mean, j->inv) != 0)
    return -1;
  for (size_t r = b; r < e; r++) { /* here, under the IEEE default environment */
    if (j->mean32) j->mean32[r] = (float)((const double*)j->mean)[r];
    if (j->inv32) j->inv32[r] = (float)((const double*)j->inv)[r];
  }
  return 0;
}

/* Input k's data, NULL when the form has no such input or the node none. */
static const void* om_ln_in(const om_node_io* io, int k) {
  return k >= 0 && (size_t)k < io->n_inputs ? io->data[k] : NULL;
}
static void* om_ln_out(const om_node_io* io, int k) {
  return k > 0 && (size_t)k < io->n_outputs ? io->outs[k] : NULL;
}

static int om_ln_run(const om_node* node, const om_node_io* io) {
  const om_layernorm_node* l = node->impl;
  const om_ln_form* f = l->form;
  const char* opn = om_ln_op(node);
  size_t axis;
  om_ln_job j;
  memset(&j, 0, sizeof j);
  if (om_ln_axis(node, io->n_inputs, io->shapes, io->ranks, &axis, &j.skip_rows, io->err, io->errlen) != 0) return -1;
  j.node = node;
  j.rows = om_shape_count(io->shapes[0], axis);
  j.n = om_shape_count(io->shapes[0] + axis, io->ranks[0] - axis);
  j.x = io->data[0];
  j.y = io->outs[0];
  void* mean = om_ln_out(io, f->out_mean);
  void* inv = om_ln_out(io, f->out_inv);
  void* sum = om_ln_out(io, f->out_sum);
  if (j.rows == 0) return 0;
  if (j.n == 0) { /* Y is empty; Mean and InvStdDev: +0 / 0 (the RMS forms' Mean: +0) */
    const uint32_t nan = 0x7FC00000u, zero = 0;
    for (size_t r = 0; r < j.rows; r++) {
      if (mean) memcpy((char*)mean + 4 * r, f->rms ? &zero : &nan, 4);
      if (inv) memcpy((char*)inv + 4 * r, &nan, 4);
    }
    return 0;
  }
  if (!j.y) {
    snprintf(io->err, io->errlen, "node '%s' (op %s): output Y is required", node->name, opn);
    return -1;
  }
  size_t esz = om_type_size(node->type), m = io->ranks[0] - axis;
  void* owned[5] = {NULL, NULL, NULL, NULL, NULL};
  int rc = 0;
  const void** ops[2] = {&j.scale, &j.bias};
  const int at[2] = {f->in_scale, f->in_bias};
  for (size_t q = 0; q < 2; q++) {
    const void* d = om_ln_in(io, at[q]);
    if (!d) continue;
    size_t k = (size_t)at[q];
    if (om_shape_count(io->shapes[k], io->ranks[k]) == j.n) { /* broadcasting adds no element: the same layout */
      *ops[q] = d;
      continue;
    }
    owned[q] = om_ln_expand(d, io->shapes[k], io->ranks[k], io->shapes[0] + axis, m, j.n, esz);
    if (!owned[q]) goto oom;
    *ops[q] = owned[q];
  }
  if (!j.scale || (f->in_skip >= 0 && !om_ln_in(io, f->in_skip))) {
    snprintf(io->err, io->errlen, "node '%s' (op %s): input %s has no data", node->name, opn,
             om_ln_input(f, j.scale ? (size_t)f->in_skip : (size_t)f->in_scale));
    rc = -1;
    goto out;
  }
  if (f->in_skip >= 0) { /* x becomes the residual sum, in output input_skip_bias_sum or a buffer of ours */
    j.input = io->data[0];
    j.skip = io->data[f->in_skip];
    j.skip_bias = om_ln_in(io, f->in_skip_bias);
    if (!sum && !(sum = owned[4] = malloc(j.rows * j.n * esz))) goto oom;
    j.x = sum;
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
  if (om_parallel_ranges(io->parallel_for, io->host_ctx, j.rows, OM_LAYERNORM_CHUNK_ELEMS / j.n, om_ln_rows, &j) != 0)
    goto oom;
  goto out;
oom:
  snprintf(io->err, io->errlen, "node '%s' (op %s): out of memory", node->name, opn);
  rc = -1;
out:
  for (int q = 0; q < 5; q++) free(owned[q]);
  return rc;
}

/* At creation: the axis against X's declared rank, and the other inputs' ranks against the normalised rank (the
 * skip forms: gamma, beta and bias of rank 1). */
static int om_ln_check_ranks(const om_node* node, size_t n_inputs, const size_t* ranks, char* err, size_t errlen) {
  const om_layernorm_node* l = node->impl;
  const om_ln_form* f = l->form;
  if (ranks[0] == OM_RANK_UNKNOWN) return 0;
  size_t axis;
  if (om_ln_axis_of(node, ranks[0], &axis, err, errlen) != 0) return -1;
  for (size_t k = 1; k < n_inputs; k++) {
    if (ranks[k] == OM_RANK_UNKNOWN || (int)k == f->in_skip) continue;
    if (f->in_skip >= 0 && ranks[k] != 1) {
      snprintf(err, errlen, "node '%s' (op %s): %s has rank %zu; it must have rank 1 (the hidden size)", node->name,
               om_ln_op(node), om_ln_input(f, k), ranks[k]);
      return -1;
    }
    if (ranks[k] > ranks[0] - axis) {
      snprintf(err, errlen, "node '%s' (op %s): %s of rank %zu does not broadcast to the normalised shape of rank "
               "%zu (X's dimensions from axis %zu)", node->name, om_ln_op(node), om_ln_input(f, k), ranks[k],
               ranks[0] - axis, axis);
      return -1;
    }
  }
  return 0;
}

const om_family om_family_layernorm = {.state_size = sizeof(om_layernorm_node), .create = om_ln_create,
                                       .shapes = om_ln_shapes, .run = om_ln_run, .check_ranks = om_ln_check_ranks};
