/* node_conv_transpose.c - ConvTranspose nodes (opsets 1, 11 and 22; 1-D, 2-D and 3-D; group, dilations, strides,
 * pads, output_padding, output_shape, auto_pad, optional bias; float16, float and double) in the order of
 * docs/conv.md ("ConvTranspose"). float16 is float's computation on the inputs widened to binary32 (exactly), each
 * output rounded once to float16 (nearest even).
 *
 * Per image n, group g and a block of the group's output channels, the partial sums of every (output channel,
 * kernel position) over every input position are one product onto om_gemm (gemm/gemm.h):
 *   col [mb*K, HW] = Wt_g [mb*K, Cg] . X_g [Cg, HW]
 * (K the kernel positions, HW the input positions, Cg = C/G; each element the GEMM's chain over the group's
 * input channels: P_kk of the contract), then conv/col2im.h adds them into the block's output planes in
 * kernel-position order and adds the bias. Wt_g is W's group g transposed to rows (mm, kk) and columns c, so
 * that the GEMM reads it in place; a constant W is transposed once at creation. The attribute lists are read by
 * Conv's create (node_conv_shape.c); the shapes are ConvTranspose's own (output_padding, output_shape, its SAME
 * rule). Tasks (n, g, channel block) are cut by the shapes alone, each writes whole output planes, so neither
 * the bits nor the order depend on the thread count.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conv/col2im.h"
#include "core/om_ops.h"
#include "gemm/gemm.h"
#include "math/om_half.h"
#include "node_conv.h"
#include "parallel.h"
#include "scratch_pool.h"

/* Elements of a task's col block, at most (as long as one channel fits): 1 MiB of f32. Input positions per GEMM
 * call: at most 512 (the GEMM reads the row-major X_g tile in place; Conv's measured tile). */
#define OM_CONVT_COL_ELEMS ((size_t)1 << 18)
#define OM_CONVT_TILE 512

typedef struct om_convt {
  om_conv c; /* group, auto_pad, kernel_shape, strides, dilations, pads: Conv's create (first member) */
  int has_out_pad, has_out_shape;
  int64_t out_pad[OM_CONV_MAX_AXES], out_shape[OM_CONV_MAX_AXES];
  unsigned char* wt; /* a constant W transposed, [G][M/G * K][C/G] row-major; NULL: transposed per run */
  int64_t wt_shape[OM_CONV_MAX_AXES + 2];
  size_t wt_rank;
  om_scratch_pool pool; /* the tasks' col blocks, kept between runs */
  char bad[320]; /* an attribute error found at create, reported when W (constant: at creation) or X comes:
                  * the node stays ours, so that stock ORT never runs it (group 0 kills its process) */
} om_convt;

typedef struct om_convt_dims {
  int64_t N, C, M, G;
  size_t axes;
  om_conv_geom geom; /* in: X's spatial sizes, out: Y's, pad: the begin pads p_i (leading axes of size 1) */
  int64_t out_shape[OM_CONV_MAX_AXES + 2];
  size_t out_rank;
} om_convt_dims;

static const char* const om_convt_pad_names[] = {"NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"};

static int om_convt_create(om_node* node, const om_attrs* a, char* err, size_t errlen) {
  om_convt* t = node->impl;
  om_conv* c = &t->c;
  node->out_types[0] = node->type;
  if (a->has_group && a->group < 1) {
    snprintf(t->bad, sizeof t->bad, "node '%s' (op ConvTranspose): attribute group is %lld; it must be 1 or more",
             node->name, (long long)a->group);
    return 0;
  }
  if (om_conv_create(node, a, err, errlen) != 0) return -1;
  if ((t->has_out_pad = a->has_output_padding) &&
      om_conv_list(node, c, "output_padding", a->output_padding, a->n_output_padding, 1, 0, t->out_pad, err,
                   errlen) != 0)
    return -1;
  if ((t->has_out_shape = a->has_output_shape) &&
      om_conv_list(node, c, "output_shape", a->output_shape, a->n_output_shape, 1, 1, t->out_shape, err,
                   errlen) != 0)
    return -1;
  for (size_t i = 0; t->has_out_pad && i < c->axes; i++) {
    int64_t s = c->has_strides ? c->strides[i] : 1, d = c->has_dilations ? c->dilations[i] : 1;
    if (t->out_pad[i] >= (s > d ? s : d) && !t->bad[0])
      snprintf(t->bad, sizeof t->bad, "node '%s' (op ConvTranspose): attribute output_padding entry %zu is %lld; "
               "it must be less than max(stride, dilation) = %lld", node->name, i, (long long)t->out_pad[i],
               (long long)(s > d ? s : d));
  }
  return 0;
}

static void om_convt_destroy(om_node* node) {
  om_convt* t = node->impl;
  if (t) {
    free(t->wt);
    om_scratch_pool_free(&t->pool);
  }
}

/* W [C, M/G, kernel...] against the attributes: 0, or -1 with a message (a dimension < 0: not known yet). */
static int om_convt_check_w(const om_node* node, const om_convt* t, const int64_t* w, size_t rank, char* err,
                            size_t errlen) {
  const om_conv* c = &t->c;
  char sw[160]; /* W's shape, formatted only for a message */
#define OM_CONVT_W_TEXT om_shape_text(w, rank, sw, sizeof sw)
  if (rank < 3 || rank > OM_CONV_MAX_AXES + 2 || (c->axes && rank != c->axes + 2)) {
    OM_CONVT_W_TEXT;
    OM_FAIL_MSG("node '%s' (op ConvTranspose): W %s must have rank %s (C, M/group, kernel...)", node->name, sw,
                c->axes ? (c->axes == 1 ? "3" : c->axes == 2 ? "4" : "5") : "3 to 5");
  }
  for (size_t i = 0; i < rank; i++)
    if (w[i] < 0) return 0;
  if (w[0] % c->group != 0) {
    OM_CONVT_W_TEXT;
    OM_FAIL_MSG("node '%s' (op ConvTranspose): W %s has %lld input channels, not divisible by group %lld",
                node->name, sw, (long long)w[0], (long long)c->group);
  }
  for (size_t i = 0; c->has_kernel && i + 2 < rank; i++)
    if (w[i + 2] != c->kernel[i]) {
      char sk[160];
      om_shape_text(c->kernel, c->axes, sk, sizeof sk);
      OM_CONVT_W_TEXT;
      OM_FAIL_MSG("node '%s' (op ConvTranspose): attribute kernel_shape %s does not match W %s", node->name, sk, sw);
    }
  for (size_t i = 2; i < rank; i++)
    if (w[i] < 1) {
      OM_CONVT_W_TEXT;
      OM_FAIL_MSG("node '%s' (op ConvTranspose): W %s has an empty kernel", node->name, sw);
    }
  return 0;
#undef OM_CONVT_W_TEXT
}

/* W transposed per group into dst: dst[(g*R + r)*Cg + c] = W[(g*Cg + c)*R + r], R = M/G * K. */
static void om_convt_transpose_w(const unsigned char* w, size_t G, size_t Cg, size_t R, size_t esize,
                                 unsigned char* dst) {
  for (size_t g = 0; g < G; g++)
    for (size_t c = 0; c < Cg; c++)
      for (size_t r = 0; r < R; r++)
        memcpy(dst + ((g * R + r) * Cg + c) * esize, w + ((g * Cg + c) * R + r) * esize, esize);
}

/* The arithmetic's element type and size: binary32 for float16 and float, binary64 for double. */
static int om_convt_atype(const om_node* node) { return node->type == OM_T_DOUBLE ? OM_T_DOUBLE : OM_T_FLOAT; }
static size_t om_convt_esize(const om_node* node) { return node->type == OM_T_DOUBLE ? 8 : 4; }

/* n elements of node->type at src in the arithmetic's type: src itself, or (float16) a widened copy in *buf
 * (NULL src: NULL). 0, or -1 out of memory. */
static int om_convt_widen(const om_node* node, const void* src, size_t n, const void** out, float** buf) {
  *buf = NULL;
  *out = src;
  if (!src || node->type != OM_T_FLOAT16) return 0;
  if (!(*buf = malloc(n * sizeof(float) + 1))) return -1;
  for (size_t i = 0; i < n; i++) (*buf)[i] = om_f16_to_f32(((const uint16_t*)src)[i]);
  *out = *buf;
  return 0;
}

static int om_convt_set_constant(om_node* node, size_t k, const void* data, const int64_t* shape, size_t rank,
                                 char* err, size_t errlen) {
  om_convt* t = node->impl;
  if (t->bad[0]) OM_FAIL_MSG("%s", t->bad);
  if (k != 1) return 0;
  if (om_convt_check_w(node, t, shape, rank, err, errlen) != 0) return -1;
  size_t n = om_shape_count(shape, rank);
  if (n == 0 || rank > OM_CONV_MAX_AXES + 2) return 0;
  size_t G = (size_t)t->c.group, Cg = (size_t)shape[0] / G, R = n / (size_t)shape[0];
  free(t->wt);
  const void* w;
  float* wbuf;
  if (om_convt_widen(node, data, n, &w, &wbuf) != 0 || !(t->wt = malloc(n * om_convt_esize(node)))) {
    free(wbuf);
    OM_FAIL_MSG("node '%s' (op ConvTranspose): out of memory transposing the constant W", node->name);
  }
  om_convt_transpose_w(w, G, Cg, R, om_convt_esize(node), t->wt);
  free(wbuf);
  memcpy(t->wt_shape, shape, rank * sizeof *shape);
  t->wt_rank = rank;
  return 0;
}

/* One spatial axis: the output size and the begin pad (docs/conv.md's shape rules). */
static int om_convt_axis(const om_node* node, const om_convt* t, size_t i, int64_t D, int64_t K, int64_t* out,
                         int64_t* pad, char* err, size_t errlen) {
  const om_conv* c = &t->c;
  int64_t s = c->has_strides ? c->strides[i] : 1, dil = c->has_dilations ? c->dilations[i] : 1;
  int64_t full = s * (D - 1) + (t->has_out_pad ? t->out_pad[i] : 0) + dil * (K - 1) + 1, O;
  if (t->has_out_shape || c->auto_pad == 1 || c->auto_pad == 2) {
    O = t->has_out_shape ? t->out_shape[i] : D * s;
    int64_t total = full - O;
    if (total <= -s)
      OM_FAIL_MSG("node '%s' (op ConvTranspose): spatial axis %zu: output size %lld is more than stride %lld past "
                  "the %lld the taps reach (input %lld, kernel %lld, dilation %lld)", node->name, i, (long long)O,
                  (long long)s, (long long)full, (long long)D, (long long)K, (long long)dil);
    *pad = total < 0 ? 0 : c->auto_pad == 1 ? total / 2 : total - total / 2;
  } else if (c->auto_pad == 3) {
    O = full;
    *pad = 0;
  } else {
    int64_t pb = c->has_pads ? c->pads[i] : 0, pe = c->has_pads ? c->pads[c->axes + i] : 0;
    O = full - pb - pe;
    *pad = pb;
    if (O < 1)
      OM_FAIL_MSG("node '%s' (op ConvTranspose): spatial axis %zu: pads %lld + %lld leave no output of the %lld "
                  "the taps reach (input %lld, kernel %lld, auto_pad %s)", node->name, i, (long long)pb,
                  (long long)pe, (long long)full, (long long)D, (long long)K, om_convt_pad_names[c->auto_pad]);
  }
  *out = O;
  return 0;
}

static int om_convt_dims_of(const om_node* node, const om_node_io* io, om_convt_dims* d) {
  const om_convt* t = node->impl;
  char* err = io->err;
  size_t errlen = io->errlen;
  const int64_t* const* shapes = io->shapes;
  int has_b = io->n_inputs > 2 && shapes[2];
  if (t->bad[0]) OM_FAIL_MSG("%s", t->bad);
  size_t rank_list[3] = {io->ranks[0], io->ranks[1], has_b ? io->ranks[2] : OM_RANK_UNKNOWN};
  if (om_conv_check_ranks(node, 3, rank_list, err, errlen) != 0) return -1;
  const int64_t *x = shapes[0], *w = shapes[1];
  size_t rank = io->ranks[0];
  if (io->ranks[1] != rank)
    OM_FAIL_MSG("node '%s' (op ConvTranspose): X has rank %zu and W rank %zu; they must be equal", node->name, rank,
                io->ranks[1]);
  if (om_convt_check_w(node, t, w, rank, err, errlen) != 0) return -1;
  memset(d, 0, sizeof *d);
  d->N = x[0];
  d->C = x[1];
  d->G = t->c.group;
  d->M = w[1] * d->G;
  d->axes = rank - 2;
  char sx[160], sw[160]; /* X's and W's shapes, formatted only for a message */
  if (w[0] != d->C || (has_b && shapes[2][0] != d->M)) {
    om_shape_text(x, rank, sx, sizeof sx);
    om_shape_text(w, rank, sw, sizeof sw);
  }
  if (w[0] != d->C)
    OM_FAIL_MSG("node '%s' (op ConvTranspose): X %s has %lld channels, W %s has %lld (W is [C, M/group, kernel...])",
                node->name, sx, (long long)d->C, sw, (long long)w[0]);
  if (has_b && shapes[2][0] != d->M)
    OM_FAIL_MSG("node '%s' (op ConvTranspose): B has %lld entries, W %s with group %lld has M = %lld output channels",
                node->name, (long long)shapes[2][0], sw, (long long)d->G, (long long)d->M);
  om_conv_geom* g = &d->geom;
  g->channels = (size_t)(d->C / d->G);
  d->out_shape[0] = d->N;
  d->out_shape[1] = d->M;
  d->out_rank = rank;
  const size_t lead = OM_CONV_MAX_AXES - d->axes; /* axes of size 1 in front */
  for (size_t a = 0; a < OM_CONV_MAX_AXES; a++) {
    int64_t O = 1, p = 0;
    const size_t i = a - lead; /* the spatial axis, when a >= lead */
    if (a >= lead && om_convt_axis(node, t, i, x[2 + i], w[2 + i], &O, &p, err, errlen) != 0) return -1;
    if (a >= lead) d->out_shape[2 + i] = O;
    g->in[a] = a >= lead ? x[2 + i] : 1;
    g->kernel[a] = a >= lead ? w[2 + i] : 1;
    g->stride[a] = a >= lead && t->c.has_strides ? t->c.strides[i] : 1;
    g->dilation[a] = a >= lead && t->c.has_dilations ? t->c.dilations[i] : 1;
    g->out[a] = O;
    g->pad[a] = p;
  }
  return 0;
}

static int om_convt_shapes(const om_node* node, const om_node_io* io) {
  om_convt_dims d;
  int rc = om_convt_dims_of(node, io, &d);
  if (rc == 0) memcpy(io->out_shapes, d.out_shape, d.out_rank * sizeof d.out_shape[0]);
  io->out_ranks[0] = rc == 0 ? d.out_rank : 0;
  return rc;
}

typedef struct om_convt_job {
  const om_node* node;
  const om_convt_dims* d;
  const unsigned char *x, *wt, *b;
  unsigned char* y;
  om_scratch_pool* pool; /* the node's col blocks */
  size_t esize, K, HW, O, Cg, Mg, mb, blocks;
  int half;   /* float16: the planes are summed in binary32 scratch, then rounded into y */
  int failed; /* set atomically: -1 out of memory, -2 the GEMM refused its arguments */
} om_convt_job;

/* Task t: image n, group g, output channels [m0, m0 + mb) of the group. */
static void om_convt_task(void* ctx, size_t t) {
  om_convt_job* j = ctx;
  const om_convt_dims* d = j->d;
  const om_node* node = j->node;
  const size_t m0 = t % j->blocks * j->mb, image_group = t / j->blocks;
  const size_t g = image_group % (size_t)d->G, n = image_group / (size_t)d->G;
  size_t mc = j->Mg - m0 < j->mb ? j->Mg - m0 : j->mb, rows = mc * j->K;
  unsigned char* block = om_scratch_take(j->pool, (rows * j->HW + (j->half ? j->O : 0)) * j->esize + 1);
  unsigned char* col = block ? block + OM_SCRATCH_HEAD : NULL;
  if (!col) {
    __atomic_store_n(&j->failed, -1, __ATOMIC_RELAXED);
    return;
  }
  const unsigned char* xg = j->x + ((size_t)n * (size_t)d->C + g * j->Cg) * j->HW * j->esize;
  if (j->Cg == 0) memset(col, 0, rows * j->HW * j->esize); /* empty dot products: +0.0 */
  for (size_t i0 = 0; j->Cg && i0 < j->HW; i0 += OM_CONVT_TILE) {
    om_gemm_args ga = {0};
    ga.path = node->path;
    ga.type = om_convt_atype(node);
    ga.mode = node->mode;
    ga.batch = 1;
    ga.M = rows;
    ga.N = j->HW - i0 < OM_CONVT_TILE ? j->HW - i0 : OM_CONVT_TILE;
    ga.K = j->Cg;
    ga.A = j->wt + (g * j->Mg + m0) * j->K * j->Cg * j->esize;
    ga.rsa = (ptrdiff_t)j->Cg;
    ga.csa = 1;
    ga.B = xg + i0 * j->esize;
    ga.rsb = (ptrdiff_t)j->HW;
    ga.csb = 1;
    ga.alpha = 1.0;
    ga.beta = 1.0;
    ga.C = col + i0 * j->esize;
    ga.ldc = (ptrdiff_t)j->HW;
    int rc = om_gemm(&ga, NULL, NULL);
    if (rc != 0) {
      __atomic_store_n(&j->failed, rc, __ATOMIC_RELAXED);
      om_scratch_give(j->pool, block);
      return;
    }
  }
  const int exact = node->mode == OM_MODE_EXACT;
  float* plane = j->half ? (float*)(col + rows * j->HW * j->esize) : NULL; /* float16: binary32 scratch */
  for (size_t mm = 0; mm < mc; mm++) {
    size_t m = g * j->Mg + m0 + mm, at = ((size_t)n * (size_t)d->M + m) * j->O;
    om_col2im_plane(&d->geom, om_convt_atype(node), col + mm * j->K * j->HW * j->esize, j->HW,
                    j->b ? j->b + m * j->esize : NULL, exact, plane ? (void*)plane : j->y + at * j->esize);
    for (size_t o = 0; plane && o < j->O; o++) ((uint16_t*)j->y)[at + o] = om_f32_to_f16(plane[o]);
  }
  om_scratch_give(j->pool, block);
}

static int om_convt_oom(const om_node* node, const om_node_io* io) {
  snprintf(io->err, io->errlen, "node '%s' (op ConvTranspose): out of memory", node->name);
  return -1;
}

static int om_convt_run(const om_node* node, const om_node_io* io) {
  const om_convt* t = node->impl;
  om_convt_dims d;
  if (om_convt_dims_of(node, io, &d) != 0) return -1;
  om_convt_job j = {0};
  j.node = node;
  j.pool = &((om_convt*)node->impl)->pool;
  j.d = &d;
  j.y = io->outs[0];
  j.esize = om_convt_esize(node);
  j.half = node->type == OM_T_FLOAT16;
  j.K = (size_t)(d.geom.kernel[0] * d.geom.kernel[1] * d.geom.kernel[2]);
  j.HW = (size_t)(d.geom.in[0] * d.geom.in[1] * d.geom.in[2]);
  j.O = om_conv_positions(&d.geom);
  j.Cg = d.geom.channels;
  j.Mg = (size_t)(d.M / d.G);
  if (!j.y || d.N == 0 || d.M == 0 || j.O == 0) return 0;
  float *xbuf = NULL, *bbuf = NULL, *wbuf = NULL; /* float16: widened copies */
  const void *x, *b;
  if (om_convt_widen(node, io->data[0], (size_t)d.N * (size_t)d.C * j.HW, &x, &xbuf) != 0 ||
      om_convt_widen(node, io->n_inputs > 2 && io->shapes[2] ? io->data[2] : NULL, (size_t)d.M, &b, &bbuf) != 0) {
    free(xbuf);
    return om_convt_oom(node, io);
  }
  j.x = x;
  j.b = b;
  size_t per_channel = j.K * (j.HW ? j.HW : 1);
  j.mb = per_channel >= OM_CONVT_COL_ELEMS ? 1 : OM_CONVT_COL_ELEMS / per_channel;
  if (j.mb > j.Mg) j.mb = j.Mg;
  j.blocks = (j.Mg + j.mb - 1) / j.mb;
  unsigned char* wt = NULL;
  int same_w = t->wt && t->wt_rank == io->ranks[1] &&
               memcmp(t->wt_shape, io->shapes[1], io->ranks[1] * sizeof(int64_t)) == 0;
  if (same_w) {
    j.wt = t->wt;
  } else {
    size_t n = (size_t)d.C * j.Mg * j.K;
    const void* w;
    if (om_convt_widen(node, io->data[1], n, &w, &wbuf) != 0 || !(wt = malloc(n * j.esize + 1))) {
      free(xbuf);
      free(bbuf);
      free(wbuf);
      return om_convt_oom(node, io);
    }
    om_convt_transpose_w(w, (size_t)d.G, j.Cg, j.Mg * j.K, j.esize, wt);
    free(wbuf);
    j.wt = wt;
  }
  size_t tasks = (size_t)d.N * (size_t)d.G * j.blocks;
  om_parallel_ieee(io->parallel_for, io->host_ctx, tasks, om_convt_task, &j);
  free(wt);
  free(xbuf);
  free(bbuf);
  int failed = __atomic_load_n(&j.failed, __ATOMIC_RELAXED);
  if (failed == -1) return om_convt_oom(node, io);
  if (failed) {
    snprintf(io->err, io->errlen, "node '%s' (op ConvTranspose): internal error: om_gemm refused its arguments",
             node->name);
    return -1;
  }
  return 0;
}

const om_family om_family_conv_transpose = {.state_size = sizeof(om_convt),
                                            .create = om_convt_create,
                                            .shapes = om_convt_shapes,
                                            .run = om_convt_run,
                                            .set_constant = om_convt_set_constant,
                                            .destroy = om_convt_destroy,
                                            .check_ranks = om_conv_check_ranks};
