/* node_bias_softmax.c - com.microsoft BiasSoftmax (docs/transformer-ops.md): y = Softmax(data + bias), the rows
 * as Softmax's before opset 13 (x coerced to 2-D at `axis`, default 1: N = prod(dims[:axis]) rows of
 * D = prod(dims[axis:]) elements).
 *
 * The bias, right-aligned to data's rank, has data's dimensions from axis on; before axis it broadcasts by one of
 * the two layouts of is_inner_broadcast (required): 1, data's leading dimensions then 1s ([B, 1, 1, S] on
 * [B, N, S, S]): row r takes bias row r / (N / bias_rows); 0, 1s then data's dimensions ([1, N, S, S]): row r
 * takes bias row r mod bias_rows. Any other bias shape is refused at the run, naming the node.
 *
 * Arithmetic, per element: s = x + b rounded once to binary32 (float16: both widened exactly to binary32 first),
 * the path's f32 Add kernel (a NaN sum's payload never shows: Softmax makes its row the canonical NaN); then
 * om_softmax's f32 rows
 * (docs/reductions.md, docs/exact-linalg.md: Softmax), float16 rounded once to half at the end. Rows in fixed
 * chunks of at most 8K elements (at least one row): no result depends on the chunking or the threads.
 */
#include <stdio.h>
#include <stdlib.h>

#include "core/om_ops.h"
#include "node_family.h"
#include "parallel.h"
#include "reduce/reduce.h"

#define OM_BSM_CHUNK_ELEMS ((size_t)1 << 13)

typedef struct om_bsm_node {
  int64_t axis;
  int inner; /* is_inner_broadcast */
} om_bsm_node;

#define OM_BSM_FAIL(...)                                                                        \
  do {                                                                                          \
    int om_k_ = snprintf(err, errlen, "node '%s' (op BiasSoftmax): ", node->name);             \
    if (om_k_ >= 0 && (size_t)om_k_ < errlen) snprintf(err + om_k_, errlen - (size_t)om_k_, __VA_ARGS__); \
    return -1;                                                                                  \
  } while (0)

static int om_bsm_create(om_node* node, const om_attrs* a, char* err, size_t errlen) {
  om_bsm_node* s = node->impl;
  if ((node->type != OM_T_FLOAT && node->type != OM_T_FLOAT16) || !node->wide->bin[OM_K_ADD][OM_T_FLOAT])
    return om_family_no_kernel(node, err, errlen);
  if (!a->has_is_inner_broadcast) OM_BSM_FAIL("the attribute is_inner_broadcast is required");
  if (a->is_inner_broadcast != 0 && a->is_inner_broadcast != 1)
    OM_BSM_FAIL("attribute is_inner_broadcast = %lld must be 0 or 1", (long long)a->is_inner_broadcast);
  s->inner = (int)a->is_inner_broadcast;
  s->axis = a->has_axis ? a->axis : 1;
  node->out_types[0] = node->type;
  return 0;
}

/* The view [rows, D] of data and the bias rows, checking bias's shape; 0, or -1 with a message. */
static int om_bsm_view(const om_node* node, const int64_t* xd, size_t r, const int64_t* bd, size_t br, size_t* rows,
                       size_t* d, size_t* bias_rows, char* err, size_t errlen) {
  const om_bsm_node* s = node->impl;
  size_t inner_unused;
  if (om_row_view(node, 1, s->axis, xd, r, rows, d, &inner_unused, err, errlen) != 0) return -1;
  size_t axis = (size_t)(s->axis < 0 ? s->axis + (int64_t)r : s->axis);
  int ok = br <= r;
  int64_t pb[OM_NODE_MAX_RANK];
  for (size_t i = 0; ok && i < r; i++) pb[i] = i < r - br ? 1 : bd[i - (r - br)];
  for (size_t i = axis; ok && i < r; i++) ok = pb[i] == xd[i];
  /* before axis: inner, data's dimensions then 1s; outer, 1s then data's dimensions */
  int ones = 0;
  for (size_t k = 0; ok && k < axis; k++) {
    size_t i = s->inner ? k : axis - 1 - k;
    if (!ones && pb[i] == xd[i]) continue;
    ones = 1;
    ok = pb[i] == 1;
  }
  if (!ok) {
    char xt[96], bt[96];
    om_shape_text(xd, r, xt, sizeof xt);
    om_shape_text(bd, br, bt, sizeof bt);
    OM_BSM_FAIL("input bias of shape %s does not broadcast to data of shape %s with axis %lld and "
                "is_inner_broadcast %d (bias: data's dimensions from axis on; before it, %s)", bt, xt,
                (long long)s->axis, s->inner, s->inner ? "data's leading dimensions then 1s" : "1s then data's dimensions");
  }
  *bias_rows = om_shape_count(pb, axis);
  return 0;
}

static int om_bsm_shapes(const om_node* node, const om_node_io* io) {
  size_t rows, d, bias_rows;
  if (om_bsm_view(node, io->shapes[0], io->ranks[0], io->shapes[1], io->ranks[1], &rows, &d, &bias_rows, io->err,
                  io->errlen) != 0)
    return -1;
  for (size_t i = 0; i < io->ranks[0]; i++) io->out_shapes[i] = io->shapes[0][i];
  io->out_ranks[0] = io->ranks[0];
  return 0;
}

typedef struct om_bsm_job {
  const om_node* node;
  size_t rows, d, bias_rows;
  const void *x, *b;
  void* y;
} om_bsm_job;

/* y = x + b on n f32 elements: the path's vector Add kernel, then its one-lane kernel for the tail. */
static void om_bsm_add(const om_node* node, const float* x, const float* b, float* y, size_t n) {
  size_t done = node->wide->bin[OM_K_ADD][OM_T_FLOAT](x, b, y, n, 0, node->kflags);
  if (done < n) node->one->bin[OM_K_ADD][OM_T_FLOAT](x + done, b + done, y + done, n - done, 0, node->kflags);
}

/* The bias row of data row r. */
static size_t om_bsm_bias_row(const om_bsm_job* j, size_t r) {
  const om_bsm_node* s = j->node->impl;
  return s->inner ? r / (j->rows / j->bias_rows) : r % j->bias_rows;
}

/* Rows [b, e): the sums into an f32 buffer (f32: y itself), Softmax in place, then f16 rounded once. */
static int om_bsm_range(const void* args, size_t b, size_t e) {
  const om_bsm_job* j = args;
  const om_node* node = j->node;
  size_t d = j->d, n = e - b;
  if (node->type == OM_T_FLOAT) {
    float* y = (float*)j->y + b * d;
    const float *x = j->x, *bias = j->b;
    for (size_t r = b; r < e; r++)
      om_bsm_add(node, x + r * d, bias + om_bsm_bias_row(j, r) * d, y + (r - b) * d, d);
    return om_softmax(node->path, OM_T_FLOAT, node->mode, 0, n, d, 1, 0, n, y, y);
  }
  float* buf = malloc((n * d + 2 * d) * sizeof(float) + 64);
  if (!buf) return -1;
  float *xf = buf + n * d, *bf = xf + d;
  const uint16_t *x = j->x, *bias = j->b;
  size_t have = (size_t)-1;
  for (size_t r = b; r < e; r++) {
    size_t br = om_bsm_bias_row(j, r);
    if (br != have) om_red_cvt16(node->path, OM_T_FLOAT16, 1, bias + br * d, bf, d);
    have = br;
    om_red_cvt16(node->path, OM_T_FLOAT16, 1, x + r * d, xf, d);
    om_bsm_add(node, xf, bf, buf + (r - b) * d, d);
  }
  int rc = om_softmax(node->path, OM_T_FLOAT, node->mode, 0, n, d, 1, 0, n, buf, buf);
  if (rc == 0) om_red_cvt16(node->path, OM_T_FLOAT16, 0, buf, (uint16_t*)j->y + b * d, n * d);
  free(buf);
  return rc;
}

static int om_bsm_run(const om_node* node, const om_node_io* io) {
  om_bsm_job j = {node, 0, 0, 0, io->data[0], io->data[1], io->outs[0]};
  if (om_bsm_view(node, io->shapes[0], io->ranks[0], io->shapes[1], io->ranks[1], &j.rows, &j.d, &j.bias_rows,
                  io->err, io->errlen) != 0)
    return -1;
  if (j.rows == 0 || j.d == 0) return 0; /* no element */
  size_t chunk = OM_BSM_CHUNK_ELEMS / j.d ? OM_BSM_CHUNK_ELEMS / j.d : 1;
  if (om_parallel_ranges(io->parallel_for, io->host_ctx, j.rows, chunk, om_bsm_range, &j) != 0) {
    snprintf(io->err, io->errlen, "node '%s' (op BiasSoftmax): out of memory", node->name);
    return -1;
  }
  return 0;
}

/* At creation: the axis against data's declared rank, bias's rank against data's. */
static int om_bsm_check_ranks(const om_node* node, size_t n_inputs, const size_t* ranks, char* err, size_t errlen) {
  if (ranks[0] == OM_RANK_UNKNOWN || ranks[0] > OM_NODE_MAX_RANK) return 0;
  const om_bsm_node* s = node->impl;
  size_t rows, d, inner;
  int64_t dims[OM_NODE_MAX_RANK] = {0};
  if (om_row_view(node, 1, s->axis, dims, ranks[0], &rows, &d, &inner, err, errlen) != 0) return -1;
  if (n_inputs > 1 && ranks[1] != OM_RANK_UNKNOWN && ranks[1] > ranks[0])
    OM_BSM_FAIL("input bias has rank %zu, more than data's %zu", ranks[1], ranks[0]);
  return 0;
}

const om_family om_family_bias_softmax = {.state_size = sizeof(om_bsm_node), .create = om_bsm_create,
                                          .shapes = om_bsm_shapes, .run = om_bsm_run,
                                          .check_ranks = om_bsm_check_ranks};
