/* node_conv.c - Conv nodes (opsets 1 and 11; 1-D, 2-D and 3-D; group, dilations, strides, pads, auto_pad,
 * optional bias) onto om_gemm (gemm/gemm.h), in the order of docs/conv.md.
 *
 * Per image n and group g, Y_g [M/G, O] = W_g [M/G, T] . col [T, O], col the column matrix of X's channels of
 * group g (conv/im2col.h: row t = (c, kernel position row-major), zero taps for the padding),
 * T = (C/G) * prod(kernel). Each output element is the GEMM's chain over t in increasing order (blocks of 256,
 * the binary-counter tree), exactly the documented order. W_g is row-major with unit column stride, which the
 * GEMM reads in place: no packing, constant W or not. (Measured against it, 2026-12-03: the transposed product
 * Y_g^T = col^T . W_g^T with W_g^T packed once as the GEMM's B was 10-25% slower at ResNet-18's shapes, the
 * GEMM then packing col^T as its A.) Output planes of at most OM_CONV_T_MAX_O positions (MobileNet's late
 * stages, SE blocks at 1x1) do take that transposed product: there the GEMM's lanes over a few positions were
 * mostly idle; W^T of a constant W of group 1 is packed once, by the first run (om_conv_t_task).
 * The work is cut into tasks of (n, g, a tile of output positions) by the shapes alone; a task runs the GEMM
 * on the calling thread over its tile of col: for f32 made by the GEMM one B panel at a time straight from X
 * (om_im2col_panel, every row tile in one block so each panel is made once per K block), for f16 and f64
 * stored first (om_im2col); a 1x1 convolution with stride 1 and no pad reads X itself.
 * The bias is then one rounded add per element (f32, f64), or the GEMM's own Cin add in f32 before the one
 * rounding to f16.
 * Depthwise (one input channel per group, at most 256 kernel positions: the order is one fma chain) takes the
 * direct path instead (conv/dwconv.h), tasks of whole groups of one image: by rows of output positions in the
 * vector lanes, or for narrow output rows by channels in the lanes (a constant W's filters interleaved once).
 * f32 with two or more channels per group and at least a narrow tile of output channels per group, unless
 * pointwise, takes the direct kernel (conv/convdirect.h): a padded copy per (image, group) first, then tasks of
 * (n, g, output channels, flattened positions), the filters packed once for a constant W; the same order.
 */
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>

#include "conv/convdirect.h"
#include "conv/dwconv.h"
#include "core/om_ops.h"
#include "gemm/gemm.h"
#include "isa/isa.h"
#include "node_conv.h"
#include "parallel.h"

/* Elements of a task's column tile, at most (as long as 64 positions fit): 1 MiB of f32, half the L2 of the
 * machine measured. Output positions per task: a multiple of 64 (whole GEMM panels on every path), at most 512
 * (the GEMM reads the tile, a row-major B, in place; rows of 896 or 1024 positions ran 3x slower at 64x56x56
 * 3x3, 2026-12-03). */
#define OM_CONV_TILE_ELEMS ((size_t)1 << 18)
#define OM_CONV_TILE_MIN 64
#define OM_CONV_TILE_MAX 512

/* Output planes of at most this many positions take the transposed product (om_conv_t_task): the GEMM's lanes
 * then run over the output channels instead of a few positions (SE blocks' 1x1 planes, MobileNet's 2x2 and
 * 4x4 stages). Measured 2026-12-04 (docs/conv.md). */
#define OM_CONV_T_MAX_O 4
/* ... and so do one-channel groups (which the depthwise path serves otherwise) from this many output channels per
 * group: the depthwise row kernel filled 1 to 4 of its lanes, one output channel at a time (silero-vad's STFT,
 * 1 -> 258 channels, 256 taps, 4 positions: 141 us against stock's 25, docs/conv.md). Same terms, same order. */
#define OM_CONV_T_MIN_MG 16

/* Direct f32 path (conv/convdirect.h), taken for f32 with at least two input channels and at least one narrow
 * tile of output channels per group (16 on the 512 path, 8 on the 256, 4 on the 128, 2 on the scalar; the wide
 * tile from 32, 16, 8, 4: fewer leave lanes idle, the GEMM's rows do not), unless pointwise (1x1, stride 1, no
 * pad: the GEMM reads X in place). Measured 2026-12-05 (docs/conv.md). Output channels per task at most (rounded up to whole tiles), and about
 * this many fmas per task. */
#define OM_CONV_DIRECT_M 64
#define OM_CONV_DIRECT_FMAS ((size_t)1 << 20)

/* Direct depthwise path (conv/dwconv.h): about this many fmas per task, whole channels, at least one. Scratch
 * up to this size lives on the task's stack. */
#define OM_CONV_DW_TASK_FMAS ((size_t)1 << 15)
#define OM_CONV_DW_STACK 16384

static int om_conv_shapes(const om_node* node, const om_node_io* io) {
  om_conv_dims d;
  if (om_conv_dims_of(node, io->n_inputs, io->shapes, io->ranks, &d, io->err, io->errlen) != 0) return -1;
  for (size_t i = 0; i < d.out_rank; i++) io->out_shapes[i] = d.out_shape[i];
  io->out_ranks[0] = d.out_rank;
  return 0;
}

typedef struct om_conv_job {
  const om_node* node;
  const om_conv_dims* d;
  const unsigned char *x, *w, *b;
  unsigned char* y;
  size_t esize, T, O, Mg, tile, tiles;
  int pointwise;
  int fill; /* f32 column tiles made panel by panel inside the GEMM (om_im2col_panel), not in a buffer */
  const om_gemm_packed* wt; /* the transposed product's packed W^T (group 1, constant W), or NULL */
  const struct om_dwconv_kern* dw; /* the direct depthwise path's kernels, NULL: the GEMM */
  size_t dw_groups, dw_scratch;    /* groups per task, scratch bytes per task */
  int dw_chan;                     /* the channels in lanes (om_dwconv_channels) */
  const void* dw_wi;               /* their interleaved filters (constant W), or NULL */
  const om_convd_kern* cd;         /* the direct f32 path's tile kernel (conv/convdirect.h), NULL: not taken */
  float* cd_x;                     /* the padded copies, one per (n, g), cd_copy floats each */
  const float* cd_w;               /* the packed filters, group after group (cd_wg floats each) */
  const ptrdiff_t* cd_off;         /* the taps' offsets */
  size_t cd_copy, cd_wg, cd_mtile, cd_mtiles, cd_ptile, cd_ptiles, cd_pos;
  int failed; /* set atomically: -1 out of memory, -2 the GEMM refused its arguments */
} om_conv_job;

/* y[r*ldy + o] += b[r] for r < rows, o < n, one rounded add each; NaN -> the canonical NaN in exact mode. */
#define OM_CONV_BIAS(NAME, T_, NAN_)                                                                   \
  static void NAME(T_* y, size_t ldy, const T_* b, size_t rows, size_t n, int exact) {                \
    for (size_t r = 0; r < rows; r++) {                                                               \
      T_* yr = y + r * ldy;                                                                           \
      const T_ br = b[r];                                                                             \
      for (size_t o = 0; o < n; o++) yr[o] = yr[o] + br;                                              \
      for (size_t o = 0; exact && o < n; o++)                                                         \
        if (yr[o] != yr[o]) yr[o] = NAN_;                                                             \
    }                                                                                                 \
  }
OM_CONV_BIAS(om_conv_bias_f32, float, __builtin_nanf(""))
OM_CONV_BIAS(om_conv_bias_f64, double, __builtin_nan(""))

static void om_conv_task(void* ctx, size_t t) {
  om_conv_job* j = ctx;
  const om_conv_dims* d = j->d;
  const om_node* node = j->node;
  size_t per_image = (size_t)d->G * j->tiles;
  size_t n = t / per_image, rest = t % per_image, g = rest / j->tiles, o0 = rest % j->tiles * j->tile;
  size_t no = j->O - o0 < j->tile ? j->O - o0 : j->tile;
  size_t in_plane = (size_t)(d->geom.in[0] * d->geom.in[1] * d->geom.in[2]);
  const unsigned char* xg = j->x + ((size_t)n * (size_t)d->C + g * d->geom.channels) * in_plane * j->esize;
  const unsigned char* col = xg + o0 * j->esize; /* col(t, o) = col[t*ldcol + o] */
  size_t ldcol = j->O;
  unsigned char* mem = NULL;
  om_im2col_src src = {&d->geom, (const float*)(const void*)xg, o0};
  if (!j->pointwise && !j->fill) {
    mem = malloc(j->T * no * j->esize + 1);
    if (!mem) {
      __atomic_store_n(&j->failed, -1, __ATOMIC_RELAXED);
      return;
    }
    om_im2col(&d->geom, j->esize, xg, o0, no, mem, no);
    col = mem;
    ldcol = no;
  }
  unsigned char* yt = j->y + (((size_t)n * (size_t)d->M + g * j->Mg) * j->O + o0) * j->esize;
  const int half_bias = j->b && node->type == OM_T_FLOAT16;
  om_gemm_args ga = {0};
  ga.path = node->path;
  ga.type = node->type;
  ga.mode = node->mode;
  ga.batch = 1;
  ga.M = j->Mg;
  ga.N = no;
  ga.K = j->T;
  ga.A = j->w + g * j->Mg * j->T * j->esize;
  ga.rsa = (ptrdiff_t)j->T;
  ga.csa = 1;
  if (j->fill && !j->pointwise) {
    ga.b_fill = om_im2col_panel;
    ga.b_fill_ctx = &src;
    ga.b_fill_rows = 1;
  } else {
    ga.B = col;
    ga.rsb = (ptrdiff_t)ldcol;
    ga.csb = 1;
  }
  ga.alpha = 1.0;
  ga.beta = 1.0;
  if (half_bias) { /* acc + b in f32, then the one rounding to f16: the GEMM's epilogue */
    ga.Cin = j->b + g * j->Mg * j->esize;
    ga.rsc_in = 1;
    ga.csc_in = 0;
  }
  ga.C = yt;
  ga.ldc = (ptrdiff_t)j->O;
  int rc = om_gemm(&ga, NULL, NULL);
  free(mem);
  if (rc != 0) {
    __atomic_store_n(&j->failed, rc, __ATOMIC_RELAXED);
    return;
  }
  if (!j->b || half_bias) return;
  const int exact = node->mode == OM_MODE_EXACT;
  if (node->type == OM_T_FLOAT)
    om_conv_bias_f32((float*)(void*)yt, j->O, (const float*)(const void*)j->b + g * j->Mg, j->Mg, no, exact);
  else
    om_conv_bias_f64((double*)(void*)yt, j->O, (const double*)(const void*)j->b + g * j->Mg, j->Mg, no, exact);
}

/* y[m*O + o] = yt[o*Mg + m] for o < O, m < Mg: elements of es bytes, copied. */
static void om_conv_transpose_out(size_t es, const unsigned char* yt, size_t O, size_t Mg, unsigned char* y) {
#define OM_CONV_TR(T_)                                                                     \
  for (size_t m = 0; m < Mg; m++)                                                          \
    for (size_t o = 0; o < O; o++) ((T_*)(void*)y)[m * O + o] = ((const T_*)(const void*)yt)[o * Mg + m];
  if (es == 2) {
    OM_CONV_TR(uint16_t)
  } else if (es == 4) {
    OM_CONV_TR(uint32_t)
  } else {
    OM_CONV_TR(uint64_t)
  }
#undef OM_CONV_TR
}

/* Task t = (n, g) of the transposed product, for small output planes: Yt[O, Mg] = col^T [O, T] . W_g^T [T, Mg]
 * into scratch, the bias as the GEMM's Cin (one rounded add after the chain, then the canonical NaN: the same
 * operations as om_conv_task's bias pass), then Yt transposed into Y_g. Element (o, m) is the GEMM's chain over t
 * of fma(col[t, o], W[m, t]): the product commutes exactly, so the bits are om_conv_task's. */
static void om_conv_t_task(void* ctx, size_t t) {
  om_conv_job* j = ctx;
  const om_conv_dims* d = j->d;
  const om_node* node = j->node;
  size_t n = t / (size_t)d->G, g = t % (size_t)d->G, O = j->O, Mg = j->Mg, es = j->esize;
  size_t in_plane = (size_t)(d->geom.in[0] * d->geom.in[1] * d->geom.in[2]);
  const unsigned char* xg = j->x + ((size_t)n * (size_t)d->C + g * d->geom.channels) * in_plane * es;
  size_t col_bytes = j->pointwise ? 0 : (j->T * O * es + 63) / 64 * 64;
  unsigned char* mem = malloc(col_bytes + O * Mg * es + 1);
  if (!mem) {
    __atomic_store_n(&j->failed, -1, __ATOMIC_RELAXED);
    return;
  }
  const unsigned char* col = xg; /* col(t, o) = col[t*O + o] */
  if (!j->pointwise) {
    om_im2col(&d->geom, es, xg, 0, O, mem, O);
    col = mem;
  }
  unsigned char* yt = mem + col_bytes;
  om_gemm_args ga = {0};
  ga.path = node->path;
  ga.type = node->type;
  ga.mode = node->mode;
  ga.batch = 1;
  ga.M = O;
  ga.N = Mg;
  ga.K = j->T;
  ga.A = col;
  ga.rsa = 1;
  ga.csa = (ptrdiff_t)O;
  ga.B = j->w + g * Mg * j->T * es;
  ga.rsb = 1;
  ga.csb = (ptrdiff_t)j->T;
  ga.packed_b = j->wt;
  ga.alpha = 1.0;
  ga.beta = 1.0;
  if (j->b) {
    ga.Cin = j->b + g * Mg * es;
    ga.rsc_in = 0;
    ga.csc_in = 1;
  }
  ga.C = yt;
  ga.ldc = (ptrdiff_t)Mg;
  int rc = om_gemm(&ga, NULL, NULL);
  if (rc == 0) {
    unsigned char* y = j->y + ((size_t)n * (size_t)d->M + g * Mg) * O * es;
    om_conv_transpose_out(es, yt, O, Mg, y);
  }
  free(mem);
  if (rc != 0) __atomic_store_n(&j->failed, rc, __ATOMIC_RELAXED);
}

/* The transposed product's B, W^T [T, M], packed once for a constant W of group 1 (the first run that needs it
 * packs it; a run that loses the race frees its own copy); NULL otherwise or without the memory: the GEMM then
 * packs its panels each run (the same panels, the same bits). */
static const om_gemm_packed* om_conv_packed_wt(const om_node* node, const om_conv_dims* d, const void* w, size_t T) {
  om_conv* c = node->impl;
  if (!c->w_const || d->G != 1) return NULL;
  om_gemm_packed* p = __atomic_load_n(&c->packed_wt, __ATOMIC_ACQUIRE);
  if (p) return p;
  if (!(p = om_gemm_pack_b(node->path, node->type, T, (size_t)d->M, w, 1, (ptrdiff_t)T))) return NULL;
  om_gemm_packed* seen = NULL;
  if (__atomic_compare_exchange_n(&c->packed_wt, &seen, p, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) return p;
  om_gemm_packed_free(p);
  return seen;
}

/* The depthwise filters interleaved once for the channel kernel (constant W only; the first run that needs them
 * makes them, a run that loses the race frees its copy); NULL otherwise or without the memory: each run then
 * interleaves them (the same values, the same bits). */
static const void* om_conv_dw_weights(const om_node* node, const om_dwconv_kern* k, const void* w, size_t G, size_t T) {
  om_conv* c = node->impl;
  if (!c->w_const) return NULL;
  void* p = __atomic_load_n(&c->dw_weights, __ATOMIC_ACQUIRE);
  if (p) return p;
  if (!(p = om_dwconv_weights(k, node->type, w, G, T))) return NULL;
  void* seen = NULL;
  if (__atomic_compare_exchange_n(&c->dw_weights, &seen, p, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) return p;
  free(p);
  return seen;
}

/* Task t of the direct depthwise path: groups [g0, g0 + dw_groups) of one image, one channel each. */
static void om_conv_dw_task(void* ctx, size_t t) {
  om_conv_job* j = ctx;
  const om_conv_dims* d = j->d;
  size_t per_image = ((size_t)d->G + j->dw_groups - 1) / j->dw_groups;
  size_t n = t / per_image, g0 = t % per_image * j->dw_groups, G = (size_t)d->G;
  size_t g1 = g0 + j->dw_groups < G ? g0 + j->dw_groups : G;
  size_t in_plane = (size_t)(d->geom.in[0] * d->geom.in[1] * d->geom.in[2]);
  _Alignas(64) unsigned char stack[OM_CONV_DW_STACK];
  void* scratch = stack;
  if (j->dw_scratch > sizeof stack && !(scratch = aligned_alloc(64, (j->dw_scratch + 63) / 64 * 64))) {
    __atomic_store_n(&j->failed, -1, __ATOMIC_RELAXED);
    return;
  }
  om_dwconv_taps(&d->geom, j->node->type, scratch);
  if (j->dw_chan)
    om_dwconv_channels(j->dw, &d->geom, j->node->type, j->node->mode == OM_MODE_EXACT,
                       j->x + (n * G + g0) * in_plane * j->esize, in_plane, j->w + g0 * j->T * j->esize,
                       j->dw_wi ? (const unsigned char*)j->dw_wi + g0 * j->T * (j->node->type == OM_T_DOUBLE ? 8 : 4)
                                : NULL,
                       j->b ? j->b + g0 * j->esize : NULL, g1 - g0, j->y + (n * (size_t)d->M + g0) * j->O * j->esize,
                       scratch);
  else
    for (size_t g = g0; g < g1; g++)
      om_dwconv_channel(j->dw, &d->geom, j->node->type, j->node->mode == OM_MODE_EXACT,
                        j->x + (n * G + g) * in_plane * j->esize, j->w + g * j->Mg * j->T * j->esize,
                        j->b ? j->b + g * j->Mg * j->esize : NULL, j->Mg,
                        j->y + (n * (size_t)d->M + g * j->Mg) * j->O * j->esize, scratch);
  if (scratch != stack) free(scratch);
}

/* The direct path's filters packed once for a constant W (the first run packs them, a run that loses the race
 * frees its copy); NULL otherwise or without the memory: each run then packs them (the same values). */
static const float* om_conv_direct_weights(const om_node* node, const om_conv_job* j, const float* w) {
  om_conv* c = node->impl;
  if (!c->w_const) return NULL;
  float* p = __atomic_load_n(&c->direct_w, __ATOMIC_ACQUIRE);
  if (p) return p;
  /* 64-byte aligned: every weight vector the tile kernel loads is then one cache line (malloc's 16-byte
   * alignment split each 512-bit load across two) */
  if (!(p = aligned_alloc(64, (j->cd_wg * (size_t)j->d->G * sizeof(float) + 64) / 64 * 64))) return NULL;
  for (size_t g = 0; g < (size_t)j->d->G; g++)
    om_convd_pack_weights(&j->d->geom, j->cd, w + g * j->Mg * j->T, j->Mg, p + g * j->cd_wg);
  float* seen = NULL;
  if (__atomic_compare_exchange_n(&c->direct_w, &seen, p, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) return p;
  free(p);
  return seen;
}

/* Task t of the direct path's copy: the padded copy of image n, group g (t = n*G + g). */
static void om_conv_direct_copy_task(void* ctx, size_t t) {
  om_conv_job* j = ctx;
  const om_conv_dims* d = j->d;
  size_t in_plane = (size_t)(d->geom.in[0] * d->geom.in[1] * d->geom.in[2]);
  size_t n = t / (size_t)d->G, g = t % (size_t)d->G;
  om_convd_copy(&d->geom, j->cd, (const float*)(const void*)j->x + (n * (size_t)d->C + g * d->geom.channels) * in_plane,
                j->cd_x + t * j->cd_copy);
}

/* Task t of the direct path: (n, g, a block of cd_mtile output channels, a block of cd_ptile flattened
 * positions), by the shapes alone. */
static void om_conv_direct_task(void* ctx, size_t t) {
  om_conv_job* j = ctx;
  const om_conv_dims* d = j->d;
  size_t pt = t % j->cd_ptiles, mt = t / j->cd_ptiles % j->cd_mtiles, ng = t / j->cd_ptiles / j->cd_mtiles;
  size_t g = ng % (size_t)d->G, n = ng / (size_t)d->G;
  size_t m0 = mt * j->cd_mtile, nm = j->Mg - m0 < j->cd_mtile ? j->Mg - m0 : j->cd_mtile;
  size_t p0 = pt * j->cd_ptile, p1 = j->cd_pos - p0 < j->cd_ptile ? j->cd_pos : p0 + j->cd_ptile;
  size_t nlev = om_convd_levels_elems(&d->geom, j->cd);
  float* levels = NULL;
  if (nlev && !(levels = malloc(nlev * sizeof(float)))) {
    __atomic_store_n(&j->failed, -1, __ATOMIC_RELAXED);
    return;
  }
  const float* b = j->b ? (const float*)(const void*)j->b + g * j->Mg : NULL;
  float* y = (float*)(void*)j->y + (n * (size_t)d->M + g * j->Mg) * j->O;
  om_convd_run(&d->geom, j->cd, j->cd_x + ng * j->cd_copy, j->cd_off, j->cd_w + g * j->cd_wg, b, m0, nm, p0, p1,
               j->node->mode == OM_MODE_EXACT, y, levels);
  free(levels);
}

/* The direct path (conv/convdirect.h): the padded copies, then the tiles; -1 without memory. */
static int om_conv_direct(const om_node* node, const om_node_io* io, om_conv_job* j) {
  const om_conv_dims* d = j->d;
  const om_convd_kern* k = j->cd;
  const size_t G = (size_t)d->G, copies = (size_t)d->N * G;
  j->cd_copy = (om_convd_copy_elems(&d->geom, k) + 15) / 16 * 16;
  j->cd_wg = om_convd_weights_elems(&d->geom, k, j->Mg);
  j->cd_pos = om_convd_positions(&d->geom);
  const float* wc = om_conv_direct_weights(node, j, (const float*)(const void*)j->w);
  const size_t off_bytes = (j->T * sizeof(ptrdiff_t) + 63) / 64 * 64; /* the packed filters 64-byte aligned */
  size_t bytes = (copies * j->cd_copy + (wc ? 0 : G * j->cd_wg)) * sizeof(float) + off_bytes;
  unsigned char* mem = aligned_alloc(64, (bytes + 63) / 64 * 64);
  if (!mem) return -1;
  j->cd_x = (float*)(void*)mem;
  ptrdiff_t* off = (ptrdiff_t*)(void*)(j->cd_x + copies * j->cd_copy);
  om_convd_offsets(&d->geom, off);
  j->cd_off = off;
  if (wc) {
    j->cd_w = wc;
  } else {
    float* wp = (float*)(void*)((unsigned char*)off + off_bytes);
    for (size_t g = 0; g < G; g++)
      om_convd_pack_weights(&d->geom, k, (const float*)(const void*)j->w + g * j->Mg * j->T, j->Mg, wp + g * j->cd_wg);
    j->cd_w = wp;
  }
  /* Channels per task: up to OM_CONV_DIRECT_M, whole tiles; positions: about OM_CONV_DIRECT_FMAS fmas a task. */
  j->cd_mtile = ((j->Mg < OM_CONV_DIRECT_M ? j->Mg : OM_CONV_DIRECT_M) + k->mr - 1) / k->mr * k->mr;
  j->cd_mtiles = (j->Mg + j->cd_mtile - 1) / j->cd_mtile;
  size_t per_tile = j->cd_mtile * k->nr * (j->T ? j->T : 1);
  j->cd_ptile = (OM_CONV_DIRECT_FMAS / per_tile ? OM_CONV_DIRECT_FMAS / per_tile : 1) * k->nr;
  j->cd_ptiles = (j->cd_pos + j->cd_ptile - 1) / j->cd_ptile;
  om_parallel_ieee(io->parallel_for, io->host_ctx, copies, om_conv_direct_copy_task, j);
  om_parallel_ieee(io->parallel_for, io->host_ctx, copies * j->cd_mtiles * j->cd_ptiles, om_conv_direct_task, j);
  free(mem);
  return 0;
}

/* Output positions per task, from T and O only. */
static size_t om_conv_tile(size_t T, size_t O) {
  size_t t = OM_CONV_TILE_ELEMS / (T ? T : 1) / OM_CONV_TILE_MIN * OM_CONV_TILE_MIN;
  if (t < OM_CONV_TILE_MIN) t = OM_CONV_TILE_MIN;
  if (t > OM_CONV_TILE_MAX) t = OM_CONV_TILE_MAX;
  return t < O ? t : O;
}

static int om_conv_run(const om_node* node, const om_node_io* io) {
  om_conv_dims d;
  if (om_conv_dims_of(node, io->n_inputs, io->shapes, io->ranks, &d, io->err, io->errlen) != 0) return -1;
  om_conv_job j = {0};
  j.node = node;
  j.d = &d;
  j.x = io->data[0];
  j.w = io->data[1];
  j.b = io->n_inputs > 2 ? io->data[2] : NULL;
  j.y = io->outs[0];
  j.esize = node->type == OM_T_DOUBLE ? 8 : node->type == OM_T_FLOAT16 ? 2 : 4;
  j.T = om_conv_rows(&d.geom);
  j.O = om_conv_positions(&d.geom);
  j.Mg = (size_t)(d.M / d.G);
  j.pointwise = om_conv_is_pointwise(&d.geom);
  if (!j.y || d.N == 0 || d.M == 0 || j.O == 0) return 0;
  const int transposed = j.O <= OM_CONV_T_MAX_O;
  if (om_dwconv_serves(&d.geom) && om_path_available_cached(node->path) &&
      !(transposed && j.Mg >= OM_CONV_T_MIN_MG)) {
    size_t per_group = j.Mg * j.O * j.T;
    j.dw = om_isa_path_get(node->path)->dwconv;
    j.dw_groups = per_group >= OM_CONV_DW_TASK_FMAS ? 1 : OM_CONV_DW_TASK_FMAS / per_group;
    j.dw_scratch = om_dwconv_scratch(&d.geom, node->type, j.Mg);
    j.dw_chan = om_dwconv_by_channels(&d.geom, j.Mg);
    if (j.dw_chan) { /* tasks start at a block of every path's lanes; a constant W interleaved once */
      j.dw_groups = (j.dw_groups + OM_DWCONV_MAX_LANES - 1) / OM_DWCONV_MAX_LANES * OM_DWCONV_MAX_LANES;
      j.dw_wi = om_conv_dw_weights(node, j.dw, j.w, (size_t)d.G, j.T);
    }
    size_t tasks = (size_t)d.N * (((size_t)d.G + j.dw_groups - 1) / j.dw_groups);
    om_parallel_ieee(io->parallel_for, io->host_ctx, tasks, om_conv_dw_task, &j);
  } else if (node->type == OM_T_FLOAT && om_convd_serves(&d.geom) && !j.pointwise &&
             om_path_available_cached(node->path) && j.Mg >= om_isa_path_get(node->path)->convd->narrow.mr) {
    const om_convd_kerns* ks = om_isa_path_get(node->path)->convd;
    j.cd = j.Mg >= ks->wide.mr ? &ks->wide : &ks->narrow; /* by W's shape: a constant W's packing stays valid */
    if (om_conv_direct(node, io, &j) != 0) __atomic_store_n(&j.failed, -1, __ATOMIC_RELAXED);
  } else if (transposed) {
    j.wt = om_conv_packed_wt(node, &d, j.w, j.T);
    om_parallel_ieee(io->parallel_for, io->host_ctx, (size_t)d.N * (size_t)d.G, om_conv_t_task, &j);
  } else {
    j.fill = node->type == OM_T_FLOAT;
    j.tile = om_conv_tile(j.T, j.O);
    j.tiles = (j.O + j.tile - 1) / j.tile;
    size_t tasks = (size_t)d.N * (size_t)d.G * j.tiles;
    om_parallel_ieee(io->parallel_for, io->host_ctx, tasks, om_conv_task, &j);
  }
  int failed = __atomic_load_n(&j.failed, __ATOMIC_RELAXED);
  if (failed) {
    snprintf(io->err, io->errlen, failed == -2 ? "node '%s' (op Conv): internal error: om_gemm refused its arguments"
                                               : "node '%s' (op Conv): out of memory",
             node->name);
    return -1;
  }
  return 0;
}

const om_family om_family_conv = {sizeof(om_conv), om_conv_create, om_conv_shapes, om_conv_run, om_conv_set_constant, NULL, om_conv_destroy,
                                  om_conv_check_ranks};
