/* node_qconv.c - the quantized convolutions (docs/quantized-conv.md): ConvInteger (opset 10: int32 output) and
 * QLinearConv (opset 10: requantised to 8 bits), 1-D, 2-D and 3-D with every Conv attribute (node_conv_shape.c
 * reads and checks them, and the shapes), onto the exact integer product of quant/qgemm.h.
 *
 * Per image n, group g and a tile of output positions: X is first turned channels-last (conv/im2row.h), then
 *   acc[o][m] = sum over t of (R[o][t] - x_zp) * (Wt[t][m] - w_zp[m])     (int32, modulo 2^32; qgemm.h)
 * with R the row matrix of the tile (im2row: t = kernel position * C/G + channel, padding taps x_zp) and Wt the
 * group's weights transposed to the same t order (packed once at creation for a constant W). Every sum is an
 * exact integer, so neither the column order nor the tiling nor the path changes a bit. ConvInteger writes acc
 * to y[n, g*M/G + m, o]; QLinearConv adds the int32 bias B[m] (modulo 2^32) and requantises each element with
 * quant/qoutput.h's steps (the multiplier fl32(fl32(x_scale * w_scale[m]) / y_scale)), as QLinearMatMul does.
 *
 * Parameters served: x_scale, x_zero_point, y_scale, y_zero_point with one element; w_scale and w_zero_point
 * with one element or 1-D of M (per output channel); B 1-D of M. Another shape is an error naming node, op and
 * input: at creation for a constant one-element parameter, otherwise at the run. Knows nothing of ORT.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conv/im2row.h"
#include "conv/qdwconv.h"
#include "core/om_ops.h"
#include "node_conv.h"
#include "parallel.h"
#include "qmatmul.h"
#include "quant/qgemm.h"
#include "quant/qoutput.h"
#include "scratch_pool.h"

enum { OM_QC_NONE = -1, OM_QC_MAX_INPUTS = 10 };

/* Where each input is and what type it must have: 'Q' uint8 or int8, 'F' float, 'I' int32, 'X' / 'W' / 'Y' the
 * type of x / w / y_zero_point. */
typedef struct om_qconv_layout {
  int w, x_scale, x_zp, w_scale, w_zp, y_scale, y_zp, bias, witness;
  const char* kinds;
  const char* names[OM_QC_MAX_INPUTS];
} om_qconv_layout;

static const om_qconv_layout om_qc_integer = {1, OM_QC_NONE, 2, OM_QC_NONE, 3, OM_QC_NONE, OM_QC_NONE, OM_QC_NONE,
                                              OM_QC_NONE, "QQXW", {"x", "w", "x_zero_point", "w_zero_point"}};
static const om_qconv_layout om_qc_qlinear = {
    3, 1, 2, 4, 5, 6, 7, 8, 9, "QFXQFWFQIY",
    {"x", "x_scale", "x_zero_point", "w", "w_scale", "w_zero_point", "y_scale", "y_zero_point", "B",
     "input 9 (the output type's witness)"}};

typedef struct om_qconv {
  om_conv conv; /* first: node_conv_shape.c reads node->impl as an om_conv */
  const om_qconv_layout* l;
  int has[OM_QC_MAX_INPUTS];
  int x_signed, w_signed, y_signed;
  om_qgemm_packed** packed; /* a constant W: one packed Wt per group; NULL: packed at each run */
  int64_t packed_w[OM_CONV_MAX_AXES + 2];
  size_t packed_rank, packed_groups;
  om_scratch_pool xt_pool, task_pool; /* the runs' channels-last copies, the GEMM tasks' scratch */
} om_qconv;

/* Output positions per task: qgemm's row block (256), fewer when a row is long, at least 32. */
#define OM_QC_TILE_BYTES ((size_t)1 << 18)
#define OM_QC_TILE_MAX 256
#define OM_QC_TILE_MIN 32
#define OM_QC_T_POSITIONS 256 /* positions per task of the channels-last pass */
#define OM_QC_MAX_STRIDE 16   /* the direct depthwise path: strides of the last axis up to this */

static const char* om_qc_op(const om_node* node) { return om_op_row(node->op)->name; }

static int om_qc_type_ok(char kind, int t, const int* types, const om_qconv_layout* l) {
  switch (kind) {
    case 'Q': return t == OM_T_UINT8 || t == OM_T_INT8;
    case 'F': return t == OM_T_FLOAT;
    case 'I': return t == OM_T_INT32;
    case 'X': return t == types[0];
    case 'W': return t == types[l->w];
    default: return t == types[l->y_zp];
  }
}

static int om_qc_create(om_node* node, const om_attrs* a, char* err, size_t errlen) {
  om_qconv* q = node->impl;
  const int* types = node->input_types;
  const om_qconv_layout* l = q->l = node->op == OM_OP_QLINEAR_CONV ? &om_qc_qlinear : &om_qc_integer;
  if (om_conv_create(node, a, err, errlen) != 0) return -1;
  for (size_t k = 0; k < node->n_inputs && l->kinds[k]; k++) {
    q->has[k] = types[k] != 0;
    if (!types[k] || om_qc_type_ok(l->kinds[k], types[k], types, l)) continue;
    const char kind = l->kinds[k];
    const char* want = kind == 'Q' ? "uint8 or int8" : kind == 'F' ? "float" : kind == 'I' ? "int32"
                     : om_type_name(types[kind == 'X' ? 0 : kind == 'W' ? l->w : l->y_zp]);
    OM_FAIL_MSG("node '%s' (op %s): %s has element type %s; it must be %s", node->name, om_qc_op(node), l->names[k],
                om_type_name(types[k]), want);
  }
  for (int k = 0; l->y_zp != OM_QC_NONE && k <= l->y_zp; k++)
    if (!q->has[k])
      OM_FAIL_MSG("node '%s' (op %s): input %d, %s, is absent; QLinearConv requires it", node->name, om_qc_op(node),
                  k, l->names[k]);
  q->x_signed = types[0] == OM_T_INT8;
  q->w_signed = types[l->w] == OM_T_INT8;
  if (l->y_zp != OM_QC_NONE) {
    q->y_signed = types[l->y_zp] == OM_T_INT8;
    node->out_types[0] = types[l->y_zp];
  } else {
    node->out_types[0] = OM_T_INT32;
  }
  return 0;
}

/* check_ranks: X and W as Conv's, B 1-D; the parameters are checked by their element counts at the run. */
static int om_qc_check_ranks(const om_node* node, size_t n_inputs, const size_t* ranks, char* err, size_t errlen) {
  const om_qconv* q = node->impl;
  const om_qconv_layout* l = q->l;
  size_t conv_ranks[3] = {ranks[0], (size_t)l->w < n_inputs ? ranks[l->w] : OM_RANK_UNKNOWN, OM_RANK_UNKNOWN};
  if (l->bias != OM_QC_NONE && (size_t)l->bias < n_inputs && q->has[l->bias]) conv_ranks[2] = ranks[l->bias];
  return om_conv_check_ranks(node, 3, conv_ranks, err, errlen);
}

/* Wt of group g ([T][Mg], t = kernel position * Cg + c) from W [M][Cg][kernel...] into dst. */
static void om_qc_transpose_w(const uint8_t* w, size_t g, size_t Mg, size_t Cg, size_t KK, uint8_t* dst) {
  for (size_t m = 0; m < Mg; m++) {
    const uint8_t* wm = w + (g * Mg + m) * Cg * KK;
    for (size_t c = 0; c < Cg; c++)
      for (size_t kp = 0; kp < KK; kp++) dst[(kp * Cg + c) * Mg + m] = wm[c * KK + kp];
  }
}

static void om_qc_free_packed(om_qgemm_packed** p, size_t groups) {
  for (size_t g = 0; p && g < groups; g++) om_qgemm_packed_free(p[g]);
  free(p);
}

/* Every group's Wt packed for path's qgemm; NULL on out of memory (or when T or Mg is 0: nothing to pack). */
static om_qgemm_packed** om_qc_pack(const om_node* node, int w_signed, const uint8_t* w, size_t G, size_t Mg,
                                   size_t Cg, size_t KK) {
  const size_t T = Cg * KK;
  om_qgemm_packed** p = calloc(G ? G : 1, sizeof *p);
  uint8_t* wt = malloc(T * Mg + 1);
  int ok = p && wt;
  for (size_t g = 0; ok && g < G; g++) {
    om_qc_transpose_w(w, g, Mg, Cg, KK, wt);
    ok = (p[g] = om_qgemm_pack_b(node->path, 1, w_signed, T, Mg, wt, (ptrdiff_t)Mg)) != NULL;
  }
  free(wt);
  if (ok) return p;
  om_qc_free_packed(p, G);
  return NULL;
}

static int om_qc_set_constant(om_node* node, size_t k, const void* data, const int64_t* shape, size_t rank,
                              char* err, size_t errlen) {
  om_qconv* q = node->impl;
  const om_qconv_layout* l = q->l;
  const int ki = (int)k;
  if (ki == l->x_scale || ki == l->x_zp || ki == l->y_scale || ki == l->y_zp)
    return om_qparam_one(node, l->names[k], shape, rank, err, errlen);
  if (ki != l->w) return 0;
  if (om_conv_set_constant(node, 1, data, shape, rank, err, errlen) != 0) return -1;
  size_t KK = 1, G = (size_t)q->conv.group, Mg = (size_t)shape[0] / G, Cg = (size_t)shape[1];
  for (size_t i = 2; i < rank; i++) KK *= (size_t)shape[i];
  if (Mg == 0 || Cg == 0 || (Cg == 1 && G > 1)) return 0; /* an empty sum, or depthwise: the run reads W */
  if (!(q->packed = om_qc_pack(node, q->w_signed, data, G, Mg, Cg, KK)))
    OM_FAIL_MSG("node '%s' (op %s): out of memory packing the constant w", node->name, om_qc_op(node));
  memcpy(q->packed_w, shape, rank * sizeof *shape);
  q->packed_rank = rank;
  q->packed_groups = G;
  return 0;
}

/* One call's problem and the strides of its per-channel parameters (0: one for all, 1: per output channel). */
typedef struct om_qc_call {
  om_conv_dims d;
  size_t w_scale_stride, w_zp_stride;
} om_qc_call;

static int om_qc_check(const om_node* node, const om_node_io* io, om_qc_call* c) {
  const om_qconv* q = node->impl;
  const om_qconv_layout* l = q->l;
  const int has_bias = l->bias != OM_QC_NONE && (size_t)l->bias < io->n_inputs && q->has[l->bias];
  const int64_t* shapes[3] = {io->shapes[0], io->shapes[l->w], has_bias ? io->shapes[l->bias] : NULL};
  const size_t ranks[3] = {io->ranks[0], io->ranks[l->w], has_bias ? io->ranks[l->bias] : 0};
  if (om_conv_dims_of(node, 3, shapes, ranks, &c->d, io->err, io->errlen) != 0) return -1;
  const int singles[4] = {l->x_scale, l->x_zp, l->y_scale, l->y_zp};
  size_t one;
  for (int s = 0; s < 4; s++)
    if (singles[s] != OM_QC_NONE && (size_t)singles[s] < io->n_inputs && q->has[singles[s]] &&
        om_qparam_stride(node, io, (size_t)singles[s], l->names[singles[s]], NULL, 0, &one) != 0)
      return -1;
  c->w_scale_stride = c->w_zp_stride = 0;
  if (l->w_scale != OM_QC_NONE &&
      om_qparam_stride(node, io, (size_t)l->w_scale, l->names[l->w_scale], "output channel", c->d.M,
                       &c->w_scale_stride) != 0)
    return -1;
  if ((size_t)l->w_zp < io->n_inputs && q->has[l->w_zp] &&
      om_qparam_stride(node, io, (size_t)l->w_zp, l->names[l->w_zp], "output channel", c->d.M, &c->w_zp_stride) != 0)
    return -1;
  return 0;
}

static int om_qc_shapes(const om_node* node, const om_node_io* io) {
  om_qc_call c;
  if (om_qc_check(node, io, &c) != 0) return -1;
  for (size_t i = 0; i < c.d.out_rank; i++) io->out_shapes[i] = c.d.out_shape[i];
  io->out_ranks[0] = c.d.out_rank;
  return 0;
}

typedef struct om_qc_job {
  const om_node* node;
  const om_qconv* q;
  om_scratch_pool* pool; /* the tasks' scratch blocks, task_bytes each */
  size_t task_bytes, qgemm_bytes;
  const om_conv_dims* d;
  const uint8_t* x;  /* X, channels first */
  const void* w;     /* W as given (the depthwise path) */
  uint8_t* xt;       /* X, channels last: [N][P][C] */
  size_t P, O, T, Mg, Cg, tile, tiles, t_blocks;
  int pointwise;
  int a_ready;     /* uint8 x: the row matrix built in qgemm's layout and read in place (qgemm.h's a_ready) */
  size_t ldr, nr;  /* the row matrix's bytes a row and rows (tile rounded up to qgemm's rows a tile) */
  om_qgemm_packed* const* packed; /* one per group */
  const void *x_zp, *w_zp;
  size_t w_zp_stride;
  uint8_t fill;                   /* the padding taps: x_zp's bits */
  const float* mult;              /* QLinearConv: the multipliers, ms apart */
  size_t ms;
  const int32_t* bias;
  const float* mrep; /* the GEMM path: [G][rep][Mg], mrep[g][o][m] = the multiplier of channel g*Mg + m */
  size_t rep;        /* output positions in mrep: the tile's are requantised rep at a time */
  int32_t y_zp;
  void* y;
  int failed; /* set atomically: -1 out of memory, -2 qgemm refused its arguments */
} om_qc_job;

static void om_qc_channels_last_task(void* ctx, size_t t) {
  om_qc_job* j = ctx;
  size_t n = t / j->t_blocks, p0 = t % j->t_blocks * OM_QC_T_POSITIONS;
  size_t p1 = p0 + OM_QC_T_POSITIONS < j->P ? p0 + OM_QC_T_POSITIONS : j->P, C = (size_t)j->d->C;
  om_bytes_to_channels_last(j->x + n * C * j->P, C, j->P, p0, p1, j->xt + n * j->P * C);
}

/* acc [no][Mg] of output positions o0.. of group g, image n, into y: int32 as is, or requantised. */
static void om_qc_store(const om_qc_job* j, size_t n, size_t g, size_t o0, size_t no, int32_t* acc, uint8_t* q8) {
  const size_t Mg = j->Mg, O = j->O, m0 = g * Mg;
  if (!j->mult) {
    int32_t* y = (int32_t*)j->y + (n * (size_t)j->d->M + m0) * O + o0;
    for (size_t m = 0; m < Mg; m++)
      for (size_t o = 0; o < no; o++) y[m * O + o] = acc[o * Mg + m];
    return;
  }
  /* rep positions a call, each element with its channel's multiplier (the [rep][Mg] copies); B is in acc */
  om_qout_requantize_fn* const rq = om_qout_requantize_of(j->node->path);
  for (size_t o = 0; o < no; o += j->rep) {
    const size_t len = (no - o < j->rep ? no - o : j->rep) * Mg;
    rq(acc + o * Mg, len, j->mrep + g * j->rep * Mg, 1, j->y_zp, j->q->y_signed, q8 + o * Mg);
  }
  om_bytes_transpose(q8, Mg, no, Mg, (uint8_t*)j->y + (n * (size_t)j->d->M + m0) * O + o0, O);
}

/* Where qgemm's scratch starts in a task's block: after acc, the rows and the requantised tile, 64-aligned. */
static size_t om_qc_rows_bytes(const om_qc_job* j) { return j->pointwise ? 0 : j->nr * j->ldr; }

static size_t om_qc_task_qgemm_at(const om_qc_job* j) {
  const size_t bytes = j->tile * j->Mg * sizeof(int32_t) + om_qc_rows_bytes(j) + (j->mult ? j->tile * j->Mg : 0);
  return (bytes + 63) / 64 * 64;
}

static void om_qc_task(void* ctx, size_t t) {
  om_qc_job* j = ctx;
  const size_t G = (size_t)j->d->G, C = (size_t)j->d->C;
  const size_t per_image = G * j->tiles;
  const size_t n = t / per_image, g = t % per_image / j->tiles, o0 = t % j->tiles * j->tile;
  const size_t no = j->O - o0 < j->tile ? j->O - o0 : j->tile;
  const uint8_t* xg = j->xt + n * j->P * C + g * j->Cg; /* the group's first channel of position 0 */
  const size_t rows_bytes = om_qc_rows_bytes(j);
  const size_t acc_bytes = j->tile * j->Mg * sizeof(int32_t);
  unsigned char* block = om_scratch_take(j->pool, j->task_bytes);
  if (!block) {
    __atomic_store_n(&j->failed, -1, __ATOMIC_RELAXED);
    return;
  }
  unsigned char* mem = block + OM_SCRATCH_HEAD; /* acc, the rows, the requantised tile, qgemm's scratch */
  int32_t* acc = (int32_t*)(void*)mem;
  uint8_t* rows = mem + acc_bytes;
  const uint8_t* a = xg + o0 * C; /* pointwise: position o's channels are its row */
  size_t lda = C;
  if (!j->pointwise) {
    om_im2row_u8(&j->d->geom, xg, C, j->fill, o0, no, rows, j->ldr);
    for (size_t o = 0; j->ldr > j->T && o < no; o++) memset(rows + o * j->ldr + j->T, 0, j->ldr - j->T);
    a = rows;
    lda = j->ldr;
  }
  om_qgemm_args ga = {j->node->path, 1, j->q->x_signed, j->q->w_signed, no, j->Mg, j->T, a, lda, NULL, 0,
                      j->T ? j->packed[g] : NULL, j->x_zp, 0,
                      j->w_zp ? (const uint8_t*)j->w_zp + g * j->Mg * j->w_zp_stride : NULL, j->w_zp_stride, acc,
                      j->Mg, mem + om_qc_task_qgemm_at(j), j->qgemm_bytes, j->a_ready,
                      j->mult && j->bias ? j->bias + g * j->Mg : NULL}; /* B[m] added in the product */
  int rc = om_qgemm(&ga, NULL, NULL);
  if (rc == 0) om_qc_store(j, n, g, o0, no, acc, rows + rows_bytes);
  else __atomic_store_n(&j->failed, rc, __ATOMIC_RELAXED);
  om_scratch_give(j->pool, block);
}

/* Depthwise (one input channel a group): task t is image n, group g, computed directly. The group's plane is
 * copied once, as int32 values x - x_zp (in [-255, 255]), into a plane padded with 0; each output channel m of
 * the group then takes, row of outputs by row, init + the sum over kernel positions of the int32 products
 * (x - x_zp) * (w - w_zp[m]) (exact: at most 65025 in magnitude) modulo 2^32, init = B[m] (QLinearConv with B)
 * else 0: the same integers as the GEMM path gives (exact sums: any order). The path's kernels: conv/qdwconv.h. */
static int32_t om_qc_q8(const uint8_t* p, size_t i, int is_signed) {
  return is_signed ? (int32_t)(int8_t)p[i] : (int32_t)p[i];
}

static void om_qc_dw_task(void* ctx, size_t t) {
  om_qc_job* j = ctx;
  const om_conv_geom g = j->d->geom; /* a local copy: the loops below store through other pointers */
  const size_t G = (size_t)j->d->G, n = t / G, grp = t % G, Mg = j->Mg, O = j->O, KK = j->T;
  const om_qdw_kern* k = om_qdw_kern_of(j->node->path);
  int64_t dp[3];
  for (int a = 0; a < 3; a++) {
    int64_t need = (g.out[a] - 1) * g.stride[a] + (g.kernel[a] - 1) * g.dilation[a] + 1;
    dp[a] = g.in[a] + g.pad[a] > need ? g.in[a] + g.pad[a] : need;
  }
  const size_t plane = (size_t)(dp[0] * dp[1] * dp[2]);
  /* Each padded row stored by phase of the last axis' stride s: column c at phase_at[c % s] + c / s, so that
   * the taps o*s + c0 of a row of outputs are contiguous (from phase_at[c0 % s] + c0 / s). */
  const int64_t s2 = g.stride[2];
  int64_t phase_at[OM_QC_MAX_STRIDE];
  for (int64_t ph = 0, at = 0; ph < s2 && ph < OM_QC_MAX_STRIDE; ph++) {
    phase_at[ph] = at;
    at += ph < dp[2] ? (dp[2] - ph + s2 - 1) / s2 : 0;
  }
  /* Strides 1 on the last two axes: the rows of an output plane run as one row over the padded width, the
   * columns past out[2] computed and dropped (their taps stay inside the plane). */
  const int flat = g.stride[1] == 1 && s2 == 1 && g.out[2] < dp[2];
  const size_t flat_n = flat ? (size_t)((g.out[1] - 1) * dp[2] + g.out[2]) : 0;
  /* One block from the node's pool (kept between runs): the plane, the tap offsets, the weights, acc, the
   * flat row; each part 64-byte aligned. The plane is zeroed (its padding); the rest is written before use. */
  size_t at[6] = {0};
  const size_t part[5] = {(plane + 1) * sizeof(om_qdw_val), (KK + 1) * sizeof(ptrdiff_t),
                          (KK + 1) * sizeof(int16_t), (O + 1) * sizeof(int32_t), (flat_n + 1) * sizeof(int32_t)};
  for (int i = 0; i < 5; i++) at[i + 1] = at[i] + (part[i] + 63) / 64 * 64;
  unsigned char* block = om_scratch_take(j->pool, at[5]);
  if (!block) {
    __atomic_store_n(&j->failed, -1, __ATOMIC_RELAXED);
    return;
  }
  unsigned char* mem = block + OM_SCRATCH_HEAD;
  om_qdw_val* xp = (om_qdw_val*)(void*)mem;
  ptrdiff_t* off = (ptrdiff_t*)(void*)(mem + at[1]);
  int16_t* wv = (int16_t*)(void*)(mem + at[2]);
  int32_t* acc = j->mult ? (int32_t*)(void*)(mem + at[3]) : NULL;
  int32_t* fl = flat ? (int32_t*)(void*)(mem + at[4]) : NULL;
  memset(xp, 0, part[0]);
  const int xs = j->q->x_signed, ws = j->q->w_signed;
  const int32_t xz = j->x_zp ? om_qc_q8(j->x_zp, 0, xs) : 0;
  const uint8_t* x = j->x + (n * G + grp) * j->P;
  for (int64_t i0 = 0; i0 < g.in[0]; i0++)
    for (int64_t i1 = 0; i1 < g.in[1]; i1++) {
      const uint8_t* src = x + (size_t)((i0 * g.in[1] + i1) * g.in[2]);
      om_qdw_val* dst = xp + (size_t)(((i0 + g.pad[0]) * dp[1] + i1 + g.pad[1]) * dp[2]); /* column c = i2 + pad */
      const int64_t c_lo = g.pad[2], c_hi = g.pad[2] + g.in[2]; /* the row's input columns c = q*s2 + ph */
      if (s2 == 2) { /* input column i2 at column c = c_lo + i2: phase (c_lo + i2) % 2, index (c_lo + i2) / 2 */
        const int64_t p0 = c_lo % 2, p1 = 1 - p0;
        k->split2(src, (size_t)g.in[2], xz, xs, dst + phase_at[p0] + c_lo / 2, dst + phase_at[p1] + (c_lo + 1) / 2);
        continue;
      }
      for (int64_t ph = 0; ph < s2; ph++) {
        const int64_t q_lo = c_lo > ph ? (c_lo - ph + s2 - 1) / s2 : 0;
        const int64_t q_hi = c_hi > ph ? (c_hi - ph + s2 - 1) / s2 : 0;
        if (q_hi > q_lo)
          k->widen(src + q_lo * s2 + ph - c_lo, (size_t)s2, (size_t)(q_hi - q_lo), xz, xs, dst + phase_at[ph] + q_lo);
      }
    }
  size_t kp = 0;
  for (int64_t k0 = 0; k0 < g.kernel[0]; k0++)
    for (int64_t k1 = 0; k1 < g.kernel[1]; k1++)
      for (int64_t k2 = 0; k2 < g.kernel[2]; k2++, kp++) {
        const int64_t c0 = k2 * g.dilation[2];
        off[kp] = (ptrdiff_t)((k0 * g.dilation[0] * dp[1] + k1 * g.dilation[1]) * dp[2] + phase_at[c0 % s2] + c0 / s2);
      }
  const uint8_t* wbase = (const uint8_t*)j->w + grp * Mg * KK;
  for (size_t m = 0; m < Mg; m++) {
    const size_t mc = grp * Mg + m;
    const int32_t wz = j->w_zp ? om_qc_q8(j->w_zp, mc * j->w_zp_stride, ws) : 0;
    for (kp = 0; kp < KK; kp++) wv[kp] = (int16_t)(om_qc_q8(wbase, m * KK + kp, ws) - wz); /* in [-255, 255] */
    const int32_t init = j->mult && j->bias ? j->bias[mc] : 0;
    int32_t* y = acc ? acc : (int32_t*)j->y + (n * (size_t)j->d->M + mc) * O;
    int32_t* a = y;
    for (int64_t o0 = 0; o0 < g.out[0]; o0++) {
      const om_qdw_val* plane0 = xp + (size_t)(o0 * g.stride[0] * dp[1] * dp[2]);
      if (flat) {
        k->row(plane0, off, wv, KK, init, fl, flat_n);
        for (int64_t o1 = 0; o1 < g.out[1]; o1++, a += g.out[2])
          memcpy(a, fl + o1 * dp[2], (size_t)g.out[2] * sizeof *a);
        continue;
      }
      for (int64_t o1 = 0; o1 < g.out[1]; o1++, a += g.out[2])
        k->row(plane0 + (size_t)(o1 * g.stride[1] * dp[2]), off, wv, KK, init, a, (size_t)g.out[2]);
    }
    if (j->mult)
      om_qout_requantize_of(j->node->path)(acc, O, j->mult + mc * j->ms, 0, j->y_zp, j->q->y_signed,
                         (uint8_t*)j->y + (n * (size_t)j->d->M + mc) * O);
  }
  om_scratch_give(j->pool, block);
}

/* The multipliers repeated for rep output positions, [G][rep][Mg] (rep * Mg about 1024 elements, at most a
 * tile's), so that a tile's accumulators are requantised in few calls: -1 on out of memory. */
static int om_qc_replicate(om_qc_job* j, float** mrep) {
  const size_t G = (size_t)j->d->G, Mg = j->Mg;
  size_t tile = 1024 / (Mg ? Mg : 1);
  tile = tile < 1 ? 1 : tile > j->tile ? j->tile : tile;
  j->rep = tile;
  *mrep = malloc(G * tile * Mg * sizeof **mrep + 1);
  if (!*mrep) return -1;
  for (size_t g = 0; g < G; g++)
    for (size_t o = 0; o < tile; o++)
      for (size_t m = 0; m < Mg; m++) (*mrep)[(g * tile + o) * Mg + m] = j->mult[(g * Mg + m) * j->ms];
  j->mrep = *mrep;
  return 0;
}

static size_t om_qc_tile(size_t T, size_t O) {
  size_t t = OM_QC_TILE_BYTES / (T ? T : 1) / OM_QC_TILE_MIN * OM_QC_TILE_MIN;
  if (t < OM_QC_TILE_MIN) t = OM_QC_TILE_MIN;
  if (t > OM_QC_TILE_MAX) t = OM_QC_TILE_MAX;
  return t < O ? t : O;
}

/* The packed Wt of this call: the constant one when W's shape is the packed one, else packed now into *own. */
static int om_qc_weights(const om_node* node, const om_node_io* io, const om_qc_job* j, om_qgemm_packed*** own,
                         om_qgemm_packed* const** packed) {
  const om_qconv* q = node->impl;
  const size_t rank = io->ranks[q->l->w];
  *own = NULL;
  *packed = NULL;
  if (j->T == 0) return 0;
  if (q->packed && q->packed_rank == rank && !memcmp(q->packed_w, io->shapes[q->l->w], rank * sizeof(int64_t))) {
    *packed = q->packed;
    return 0;
  }
  size_t KK = j->T / j->Cg;
  if (!(*own = om_qc_pack(node, q->w_signed, io->data[q->l->w], (size_t)j->d->G, j->Mg, j->Cg, KK))) return -1;
  *packed = *own;
  return 0;
}

static int om_qc_run(const om_node* node, const om_node_io* io) {
  const om_qconv* q = node->impl;
  const om_qconv_layout* l = q->l;
  om_qc_call c;
  if (om_qc_check(node, io, &c) != 0) return -1;
  const om_conv_dims* d = &c.d;
  om_qc_job j = {0};
  j.node = node;
  j.q = q;
  j.d = d;
  j.x = io->data[0];
  j.y = io->outs[0];
  j.P = (size_t)(d->geom.in[0] * d->geom.in[1] * d->geom.in[2]);
  j.O = om_conv_positions(&d->geom);
  j.T = om_conv_rows(&d->geom);
  j.Cg = d->geom.channels;
  j.Mg = (size_t)(d->M / d->G);
  if (!j.y || d->N == 0 || d->M == 0 || j.O == 0) return 0;
  j.pointwise = om_conv_is_pointwise(&d->geom);
  j.x_zp = q->has[l->x_zp] ? io->data[l->x_zp] : NULL;
  j.fill = j.x_zp ? *(const uint8_t*)j.x_zp : 0;
  j.w_zp = (size_t)l->w_zp < io->n_inputs && q->has[l->w_zp] ? io->data[l->w_zp] : NULL;
  j.w_zp_stride = c.w_zp_stride;
  float* mult = NULL;
  if (l->y_scale != OM_QC_NONE) {
    j.ms = c.w_scale_stride;
    mult = malloc((j.ms ? (size_t)d->M : 1) * sizeof(float));
    if (mult) {
      float x_scale;
      memcpy(&x_scale, io->data[l->x_scale], sizeof x_scale);
      om_qout_multipliers(x_scale, io->data[l->w_scale], j.ms, io->data[l->y_scale], j.ms ? (size_t)d->M : 1, mult);
    }
    j.mult = mult;
    j.bias = (size_t)l->bias < io->n_inputs && q->has[l->bias] ? io->data[l->bias] : NULL;
    j.y_zp = om_qint8_value(io->data[l->y_zp], node->out_types[0]);
  }
  const size_t C = (size_t)d->C;
  om_qconv* qm = node->impl; /* its pools: taken and given back atomically */
  j.pool = &qm->task_pool;
  if (j.Cg == 1 && d->G > 1 && d->geom.stride[2] <= OM_QC_MAX_STRIDE) { /* depthwise: direct */
    j.w = io->data[l->w];
    if (mult || l->y_scale == OM_QC_NONE)
      om_parallel_ieee(io->parallel_for, io->host_ctx, (size_t)d->N * (size_t)d->G, om_qc_dw_task, &j);
    int failed = mult || l->y_scale == OM_QC_NONE ? __atomic_load_n(&j.failed, __ATOMIC_RELAXED) : -1;
    free(mult);
    if (failed)
      snprintf(io->err, io->errlen, "node '%s' (op %s): out of memory", node->name, om_qc_op(node));
    return failed ? -1 : 0;
  }
  /* uint8 x: A of qgemm read in place, the row matrix (or, pointwise, the channels-last X when its rows are
   * the layout already) with qgemm's row bytes and rows past the tile readable (the channels-last copy's slack) */
  j.tile = om_qc_tile(j.T, j.O);
  om_qgemm_args shape = {node->path, 1, q->x_signed, q->w_signed, j.tile, j.Mg, j.T, NULL, 0, NULL, 0, NULL,
                         NULL, 0, NULL, 0, NULL, 0, NULL, 0, 0, NULL};
  size_t mr = 0, a_lda = om_qgemm_a_layout(&shape, &j.nr);
  shape.M = 1;
  (void)om_qgemm_a_layout(&shape, &mr);
  shape.M = j.tile;
  j.a_ready = !q->x_signed && a_lda && (!j.pointwise || (a_lda == j.T && C % 4 == 0));
  j.ldr = j.a_ready ? a_lda : j.T;
  if (!j.a_ready) j.nr = j.tile;
  unsigned char* xt_block = om_scratch_take(&qm->xt_pool, d->N * j.P * C + mr * C + 1);
  j.xt = xt_block ? xt_block + OM_SCRATCH_HEAD : NULL;
  om_qgemm_packed** own = NULL;
  float* mrep = NULL;
  int rc = (!mult && l->y_scale != OM_QC_NONE) || !j.xt ? -1 : om_qc_weights(node, io, &j, &own, &j.packed);
  if (rc == 0) {
    j.t_blocks = (j.P + OM_QC_T_POSITIONS - 1) / OM_QC_T_POSITIONS;
    if (C == 1) memcpy(j.xt, j.x, (size_t)d->N * j.P); /* one channel: channels last is the same bytes */
    else om_parallel_ieee(io->parallel_for, io->host_ctx, (size_t)d->N * j.t_blocks, om_qc_channels_last_task, &j);
    j.tiles = (j.O + j.tile - 1) / j.tile;
    j.qgemm_bytes = om_qgemm_scratch(&shape);
    j.task_bytes = om_qc_task_qgemm_at(&j) + j.qgemm_bytes;
    rc = mult ? om_qc_replicate(&j, &mrep) : 0;
  }
  if (rc == 0) {
    om_parallel_ieee(io->parallel_for, io->host_ctx, (size_t)d->N * (size_t)d->G * j.tiles, om_qc_task, &j);
    rc = __atomic_load_n(&j.failed, __ATOMIC_RELAXED);
  }
  om_qc_free_packed(own, own ? (size_t)d->G : 0);
  om_scratch_give(&qm->xt_pool, xt_block);
  free(mult);
  free(mrep);
  if (rc != 0) {
    snprintf(io->err, io->errlen, rc == -2 ? "node '%s' (op %s): internal error: om_qgemm refused its arguments"
                                           : "node '%s' (op %s): out of memory", node->name, om_qc_op(node));
    return -1;
  }
  return 0;
}

static void om_qc_destroy(om_node* node) {
  om_qconv* q = node->impl;
  if (q) {
    om_qc_free_packed(q->packed, q->packed_groups);
    om_scratch_pool_free(&q->xt_pool);
    om_scratch_pool_free(&q->task_pool);
  }
  free(q);
}

const om_family om_family_qconv = {sizeof(om_qconv), om_qc_create, om_qc_shapes, om_qc_run, om_qc_set_constant,
                                   NULL, om_qc_destroy, om_qc_check_ranks};
