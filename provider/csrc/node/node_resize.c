/* node_resize.c - Resize (opsets 10, 11, 13, 18, 19) and Upsample (9): input 0 resized along each axis by a
 * scale, from the scales input (float) or the sizes input (int64; Resize 11 on), over the listed axes (the
 * attribute axes, opset 18 on) or all of them. mode nearest copies one input element per output element (every
 * stored type); mode linear (float32) interpolates along each resized axis, the last first; mode cubic and
 * antialias (float32) sum the filter taps of resize_filter.c the same way. The contract, per
 * output element: docs/resize.md; the arithmetic: resize/resize.c. Each axis gets a table from output index to
 * source offset (nearest) or taps (linear, filter); the output's rows (its last axis) in fixed blocks on the host's
 * threads. Knows nothing of ORT.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "broadcast.h"
#include "core/om_ops.h"
#include "core/om_types.h"
#include "int_input.h"
#include "kernels/kernels.h"
#include "movement.h"
#include "node_family.h"
#include "parallel.h"
#include "resize/resize.h"

/* Output elements per parallel block (whole rows: at least one). */
#define OM_RESIZE_BLOCK ((size_t)1 << 15)

typedef struct om_resize_node {
  int linear;  /* mode linear; else nearest */
  int cubic;   /* mode cubic */
  int filter;  /* the taps of om_resize_filter (cubic, antialias); else linear's two or nearest's one */
  int antialias, exclude;
  float cubic_a;
  int coord;   /* OM_RESIZE_HALF_PIXEL ... OM_RESIZE_ASYMMETRIC */
  int nearest; /* OM_RESIZE_ROUND_PREFER_FLOOR ... OM_RESIZE_SIMPLE */
  int upsample;
  size_t scales_k, sizes_k; /* their input indices; sizes_k 0: no sizes input (opset 10, Upsample) */
  int has_axes;
  size_t n_axes;
  int64_t axes[OM_MAX_RANK];
} om_resize_node;

#define OM_RS_FAIL(...)                        \
  do {                                         \
    snprintf(err, errlen, "node '%s' (op %s): " __VA_ARGS__); \
    return -1;                                 \
  } while (0)

static int om_rs_create(om_node* node, const om_attrs* a, char* err, size_t errlen) {
  om_resize_node* st = node->impl;
  const char* nn = node->name;
  const char* opn = om_op_row(node->op)->name;
  const int* types = node->input_types;
  st->upsample = node->op == OM_OP_UPSAMPLE;
  int legacy = st->upsample || (node->opset > 0 && node->opset < 11); /* inputs X, scales; no coordinate modes */
  if (legacy && node->n_inputs != 2)
    OM_RS_FAIL("%zu inputs; opset %d takes two (X, scales)", nn, opn, node->n_inputs, node->opset);
  st->scales_k = legacy ? 1 : 2;
  st->sizes_k = legacy ? 0 : 3;
  if (st->scales_k < node->n_inputs && types[st->scales_k] && types[st->scales_k] != OM_T_FLOAT)
    OM_RS_FAIL("input %zu (scales) is %s, it must be float", nn, opn, st->scales_k,
               om_type_name(types[st->scales_k]));
  if (st->sizes_k && st->sizes_k < node->n_inputs && types[st->sizes_k] && types[st->sizes_k] != OM_T_INT64)
    OM_RS_FAIL("input 3 (sizes) is %s, it must be int64", nn, opn, om_type_name(types[3]));
  if (!legacy && node->n_inputs > 1 && types[1] && !(OM_TS_FLOAT & OM_TB(types[1])))
    OM_RS_FAIL("input 1 (roi) is %s, it must be float16, float or double", nn, opn, om_type_name(types[1]));
  int mode = a->resize_mode ? a->resize_mode : OM_RESIZE_NEAREST;
  if (mode < 0) OM_RS_FAIL("attribute mode must be nearest, linear or cubic", nn, opn);
  if (mode == OM_RESIZE_CUBIC && legacy) OM_RS_FAIL("mode cubic needs opset 11 or later", nn, opn);
  st->linear = mode == OM_RESIZE_LINEAR;
  st->cubic = mode == OM_RESIZE_CUBIC;
  if ((st->linear || st->cubic) && node->type != OM_T_FLOAT && node->type != OM_T_FLOAT16)
    OM_RS_FAIL("mode %s on element type %s is not served (float16 and float only)", nn, opn,
               st->cubic ? "cubic" : "linear", om_type_name(node->type));
  st->coord = legacy ? OM_RESIZE_ASYMMETRIC : a->resize_coord ? a->resize_coord : OM_RESIZE_HALF_PIXEL;
  if (st->coord < 0) OM_RS_FAIL("attribute coordinate_transformation_mode has an unknown value", nn, opn);
  if (st->coord == OM_RESIZE_TF_HALF_PIXEL_FOR_NN || st->coord == OM_RESIZE_TF_CROP_AND_RESIZE)
    OM_RS_FAIL("coordinate_transformation_mode %s is not served",  nn, opn,
               st->coord == OM_RESIZE_TF_CROP_AND_RESIZE ? "tf_crop_and_resize" : "tf_half_pixel_for_nn");
  st->nearest = legacy ? OM_RESIZE_SIMPLE : a->resize_nearest ? a->resize_nearest : OM_RESIZE_ROUND_PREFER_FLOOR;
  if (st->nearest < 0) OM_RS_FAIL("attribute nearest_mode has an unknown value", nn, opn);
  if (a->resize_aspect < 0 || a->resize_aspect > OM_RESIZE_STRETCH)
    OM_RS_FAIL("keep_aspect_ratio_policy other than stretch is not served", nn, opn);
  if (a->has_antialias && a->antialias != 0 && a->antialias != 1)
    OM_RS_FAIL("attribute antialias is %lld; it must be 0 or 1", nn, opn, (long long)a->antialias);
  st->antialias = a->has_antialias && a->antialias == 1;
  if (st->antialias && !st->linear && !st->cubic) OM_RS_FAIL("antialias=1 with mode nearest is not served", nn, opn);
  if (a->has_exclude_outside && a->exclude_outside != 0 && a->exclude_outside != 1)
    OM_RS_FAIL("attribute exclude_outside is %lld; it must be 0 or 1", nn, opn, (long long)a->exclude_outside);
  st->exclude = a->has_exclude_outside && a->exclude_outside == 1;
  st->cubic_a = a->has_cubic_coeff_a ? a->cubic_coeff_a : -0.75f;
  if (!(st->cubic_a > -3.4028234663852886e38f && st->cubic_a < 3.4028234663852886e38f))
    OM_RS_FAIL("attribute cubic_coeff_a is %g; it must be finite", nn, opn, (double)st->cubic_a);
  st->filter = st->cubic || st->antialias;
  if (a->has_axes) {
    if (a->n_axes != a->n_axes_listed) OM_RS_FAIL("attribute axes names an axis twice", nn, opn);
    if (a->n_axes > OM_MAX_RANK) OM_RS_FAIL("attribute axes has %zu entries, more than any rank served", nn, opn,
                                            a->n_axes);
    st->has_axes = 1;
    st->n_axes = a->n_axes;
    memcpy(st->axes, a->axes, a->n_axes * sizeof(int64_t));
  }
  return 0;
}

/* The axes the scales or sizes name, in [0, rank), into ax (n_axes or rank of them): 0, or -1 with a message. */
static int om_rs_axes(const om_node* node, size_t rank, int64_t* ax, size_t* n, char* err, size_t errlen) {
  const om_resize_node* st = node->impl;
  if (!st->has_axes) {
    for (size_t d = 0; d < rank; d++) ax[d] = (int64_t)d;
    *n = rank;
    return 0;
  }
  for (size_t j = 0; j < st->n_axes; j++) {
    if (om_axis_in_range(node, st->axes[j], rank, "axes entry", &ax[j], err, errlen) != 0) return -1;
    for (size_t q = 0; q < j; q++)
      if (ax[q] == ax[j]) OM_RS_FAIL("attribute axes names axis %lld twice", node->name, om_op_row(node->op)->name,
                                     (long long)ax[j]);
  }
  *n = st->n_axes;
  return 0;
}

static int om_rs_check_ranks(const om_node* node, size_t n_inputs, const size_t* ranks, char* err, size_t errlen) {
  const om_resize_node* st = node->impl;
  int64_t ax[OM_MAX_RANK];
  size_t n;
  if (n_inputs == 0 || ranks[0] == OM_RANK_UNKNOWN) return 0;
  if (st->cubic && ranks[0] != 2 && ranks[0] != 4) /* stock ORT's bicubic only (docs/resize.md) */
    OM_RS_FAIL("mode cubic on input 0 of rank %zu; it is served on rank 2 and 4 (as stock ORT)", node->name,
               om_op_row(node->op)->name, ranks[0]);
  return om_rs_axes(node, ranks[0], ax, &n, err, errlen);
}

/* Mode cubic on the scales sc of every axis: stock ORT's bicubic (rank 2; rank 4 with the scales of axes 0 and 1
 * 1, or of axes 0 and 3 1 and, without antialias, the others at least 1): 0, or -1 with a message. */
static int om_rs_check_cubic(const om_node* node, size_t r, const float* sc, char* err, size_t errlen) {
  const om_resize_node* st = node->impl;
  const char* nn = node->name;
  const char* opn = om_op_row(node->op)->name;
  if (!st->cubic) return 0;
  if (r != 2 && r != 4)
    OM_RS_FAIL("mode cubic on input 0 of rank %zu; it is served on rank 2 and 4 (as stock ORT)", nn, opn, r);
  if (r == 2 || (sc[0] == 1.0f && sc[1] == 1.0f)) return 0;
  if (sc[0] == 1.0f && sc[3] == 1.0f && (st->antialias || (sc[1] >= 1.0f && sc[2] >= 1.0f))) return 0;
  OM_RS_FAIL("mode cubic on rank 4 resizes axes 0 and 1 only with scale 1, or axes 0 and 3 with scale 1 and, "
             "without antialias, axes 1 and 2 with scales at least 1 (as stock ORT); the scales are %g, %g, %g, %g",
             nn, opn, (double)sc[0], (double)sc[1], (double)sc[2], (double)sc[3]);
}

/* The element count of input k in this call, 0 when absent. */
static size_t om_rs_count(const om_node_io* io, size_t k) {
  if (k == 0 || k >= io->n_inputs || !io->shapes[k]) return 0;
  return om_shape_count(io->shapes[k], io->ranks[k]);
}

/* Output length out[d] and scale sc[d] of every axis for the call io: 0, or -1 with a message in io->err. */
static int om_rs_geometry(const om_node* node, const om_node_io* io, int64_t* out, float* sc) {
  const om_resize_node* st = node->impl;
  char* err = io->err;
  size_t errlen = io->errlen;
  const char* nn = node->name;
  const char* opn = om_op_row(node->op)->name;
  size_t r = io->ranks[0], n_ax;
  const int64_t* in = io->shapes[0];
  int64_t ax[OM_MAX_RANK];
  size_t ns = om_rs_count(io, st->scales_k), nz = om_rs_count(io, st->sizes_k);
  if (ns && nz) OM_RS_FAIL("both scales and sizes are given; give one", nn, opn);
  if (!ns && !nz) OM_RS_FAIL("neither scales nor sizes is given (or both are empty)", nn, opn);
  if (om_rs_axes(node, r, ax, &n_ax, err, errlen) != 0) return -1;
  if ((ns ? ns : nz) != n_ax)
    OM_RS_FAIL("input %s has %zu elements; it needs one per %s (%zu)", nn, opn, ns ? "scales" : "sizes",
               ns ? ns : nz, st->has_axes ? "entry of axes" : "axis of input 0", n_ax);
  const float* scales = ns ? io->data[st->scales_k] : NULL;
  const int64_t* sizes = nz ? io->data[st->sizes_k] : NULL;
  for (size_t d = 0; d < r; d++) {
    out[d] = in[d];
    sc[d] = 1.0f;
  }
  for (size_t j = 0; j < n_ax; j++) {
    size_t d = (size_t)ax[j];
    int64_t len = in[d];
    if (len >= OM_RESIZE_MAX_LEN)
      OM_RS_FAIL("axis %zu of input 0 has length %lld; resized axes are served below 2^24", nn, opn, d,
                 (long long)len);
    if (scales) {
      float s = scales[j];
      if (!(s > 0.0f) || s > 3.4028234663852886e38f)
        OM_RS_FAIL("scale %g of axis %zu must be finite and greater than 0", nn, opn, (double)s, d);
      if (st->upsample && s < 1.0f)
        OM_RS_FAIL("scale %g of axis %zu is below 1; Upsample's scales are at least 1", nn, opn, (double)s, d);
      float p = (float)len * s;
      if (!(p < (float)OM_RESIZE_MAX_LEN))
        OM_RS_FAIL("axis %zu: length %lld times scale %g is 2^24 or more, not served", nn, opn, d, (long long)len,
                   (double)s);
      out[d] = (int64_t)p;
      sc[d] = s;
    } else {
      int64_t lo = sizes[j];
      if (lo < 0 || lo >= OM_RESIZE_MAX_LEN)
        OM_RS_FAIL("size %lld of axis %zu must be at least 0 and below 2^24", nn, opn, (long long)lo, d);
      if (len == 0 && lo != 0)
        OM_RS_FAIL("axis %zu has length 0 and cannot be resized to %lld", nn, opn, d, (long long)lo);
      out[d] = lo;
      sc[d] = len == 0 ? 1.0f : (float)lo / (float)len;
    }
  }
  return om_rs_check_cubic(node, r, sc, err, errlen);
}

static int om_rs_shapes(const om_node* node, const om_node_io* io) {
  float sc[OM_MAX_RANK];
  if (om_rs_geometry(node, io, io->out_shapes, sc) != 0) return -1;
  io->out_ranks[0] = io->ranks[0];
  return 0;
}

typedef struct om_rs_job {
  const om_resize_node* st;
  size_t r;     /* rank, at least 1 */
  size_t esz;   /* element bytes */
  size_t w;     /* output row length (the last axis) */
  const char* src;
  char* dst;
  const int64_t* out;     /* output dims */
  int64_t istride[OM_MAX_RANK];
  int64_t* off[OM_MAX_RANK];             /* nearest: source offset (elements) of each output index, per axis */
  om_resize_tap* taps[OM_MAX_RANK];      /* linear: the taps of each output index, per axis */
  om_resize_filter filt[OM_MAX_RANK];    /* cubic, antialias: the taps of each output index, per axis */
  int last_identity;                     /* the last axis has scale 1 */
  int half;                              /* float16: rows widened to f32, the output rounded once */
  int path;                              /* the node's kernel path (float16's conversions) */
  size_t in_w;                           /* input row length (the last axis) */
  size_t slots;                          /* rows the cache of om_rs_leaf keeps */
} om_rs_job;

/* The output row's multi-index o[0 .. r-1) of row g. */
static void om_rs_row_index(const om_rs_job* j, size_t g, int64_t* o) {
  for (size_t d = j->r - 1; d-- > 0;) {
    o[d] = (int64_t)(g % (size_t)j->out[d]);
    g /= (size_t)j->out[d];
  }
}

static void om_rs_next_row(const om_rs_job* j, int64_t* o) {
  for (size_t d = j->r - 1; d-- > 0;) {
    if (++o[d] < j->out[d]) return;
    o[d] = 0;
  }
}

/* float16 <-> float32 over n elements: the path's Cast kernels (whole vectors), the tail on one lane. Exact
 * (a NaN becomes the canonical NaN of the target type), the same bits on every path. */
static void om_rs_convert(int path, int from, int to, const void* a, void* o, size_t n) {
  const om_kernel_table* tab[2] = {om_path_table(path), om_path_table(OM_PATH_SCALAR)};
  size_t done = 0, sa = om_type_size(from), so = om_type_size(to);
  for (int q = 0; q < 2 && done < n; q++)
    done += tab[q]->cast[from][to]((const char*)a + done * sa, (char*)o + done * so, n - done, OM_FL_EXACT);
}

static int om_rs_nearest_rows(const void* args, size_t begin, size_t end) {
  const om_rs_job* j = args;
  int64_t o[OM_MAX_RANK];
  size_t last = j->r - 1, row = j->w * j->esz;
  int64_t prev = -1;
  om_rs_row_index(j, begin, o);
  for (size_t g = begin; g < end; g++, om_rs_next_row(j, o)) {
    int64_t base = 0;
    for (size_t d = 0; d < last; d++) base += j->off[d][o[d]];
    char* dst = j->dst + g * row;
    if (base == prev) memcpy(dst, dst - row, row); /* the row above has the same source row */
    else if (j->last_identity) memcpy(dst, j->src + (size_t)base * j->esz, row);
    else om_resize_gather(dst, j->src + (size_t)base * j->esz, j->off[last], j->w, j->esz);
    prev = base;
  }
  return 0;
}

/* The last few rows interpolated along the last axis, keyed by their source offset: consecutive output rows
 * of an upsampling share source rows. Least recently used out; each row om_rs_leaf returns is used before the
 * next is looked up, so one slot would do and more slots only save work (at least the taps of an outer axis:
 * slots). */
#define OM_RS_CACHE 4
typedef struct om_rs_cache {
  size_t slots;
  int64_t* key;
  unsigned long long* used;
  unsigned long long clock;
  float* rows; /* slots rows of the output row's length */
  float* wide; /* float16: one input row widened to f32 */
} om_rs_cache;

/* The source row at element offset base interpolated along the last axis (docs/resize.md: that axis's step). */
static const float* om_rs_leaf(const om_rs_job* j, om_rs_cache* c, int64_t base) {
  const float* src = (const float*)j->src + base;
  if (j->last_identity && !j->half) return src;
  size_t q = 0;
  for (size_t k = 0; k < c->slots; k++) {
    if (c->key[k] == base) {
      c->used[k] = ++c->clock;
      return c->rows + k * j->w;
    }
    if (c->used[k] < c->used[q]) q = k;
  }
  float* row = c->rows + q * j->w;
  if (j->half) { /* exact: every float16 is a float */
    const uint16_t* h = (const uint16_t*)(const void*)j->src + base;
    float* to = j->last_identity ? row : c->wide;
    om_rs_convert(j->path, OM_T_FLOAT16, OM_T_FLOAT, h, to, j->in_w);
    src = to;
  }
  if (!j->last_identity) { /* the widened row itself, when the last axis has scale 1 */
    if (j->st->filter) om_resize_filter_row_f32(row, src, &j->filt[j->r - 1], j->w);
    else om_resize_linear_row_f32(row, src, j->taps[j->r - 1], j->w);
  }
  c->key[q] = base;
  c->used[q] = ++c->clock;
  return row;
}

/* The interpolation over axes k .. r-1 of the output row o (docs/resize.md: V, the last axis first) from the
 * source element offset base: dst (written) or a row of the cache; scratch: a row for each axis below k. */
static const float* om_rs_linear(const om_rs_job* j, const int64_t* o, size_t k, int64_t base, float* dst,
                                 float* scratch, om_rs_cache* c) {
  if (k == j->r - 1) return om_rs_leaf(j, c, base);
  const om_resize_tap* t = &j->taps[k][o[k]];
  if (t->one) return om_rs_linear(j, o, k + 1, base + t->i0 * j->istride[k], dst, scratch, c);
  const float* a = om_rs_linear(j, o, k + 1, base + t->i0 * j->istride[k], dst, scratch + j->w, c);
  const float* b = om_rs_linear(j, o, k + 1, base + t->i1 * j->istride[k], scratch, scratch + j->w, c);
  om_resize_blend_f32(dst, a, t->w0, b, t->w1, j->w);
  return dst;
}

/* As om_rs_linear for the filter taps (docs/resize.md: cubic, antialias): the sum over axis k's taps of the
 * interpolation over axes k+1 .. r-1, in the taps' order; NaN canonical. */
static const float* om_rs_filter(const om_rs_job* j, const int64_t* o, size_t k, int64_t base, float* dst,
                                 float* scratch, om_rs_cache* c) {
  if (k == j->r - 1) return om_rs_leaf(j, c, base);
  const om_resize_filter* f = &j->filt[k];
  const int64_t* idx = f->idx + (size_t)o[k] * f->k;
  const float* w = f->w + (size_t)o[k] * f->k;
  uint32_t m = f->n[o[k]];
  if (m == 1 && w[0] == 1.0f) return om_rs_filter(j, o, k + 1, base + idx[0] * j->istride[k], dst, scratch, c);
  if (m == 0) {
    memset(dst, 0, j->w * sizeof(float));
    return dst;
  }
  for (uint32_t t = 0; t < m; t++) {
    const float* v = om_rs_filter(j, o, k + 1, base + idx[t] * j->istride[k], scratch, scratch + j->w, c);
    om_resize_accumulate_f32(dst, v, w[t], t == 0, j->w);
  }
  om_resize_canonical_nan_f32(dst, j->w);
  return dst;
}

static int om_rs_interp_rows(const void* args, size_t begin, size_t end) {
  const om_rs_job* j = args;
  int64_t o[OM_MAX_RANK];
  size_t slots = j->slots;
  /* the cache's keys and clocks first (8-byte aligned), then the rows */
  /* float16: then the f32 output row and the widened input row */
  size_t extra = j->half ? j->w + j->in_w : 0;
  int64_t* keys = malloc(slots * (sizeof(int64_t) + sizeof(unsigned long long)) +
                         (j->w * (j->r + slots) + extra) * sizeof(float));
  if (!keys) return -1;
  float* mem = (float*)(void*)(keys + 2 * slots);
  float* row32 = mem + (j->r + slots) * j->w;
  om_rs_cache c = {slots, keys, (unsigned long long*)(void*)(keys + slots), 0, mem + j->r * j->w, row32 + j->w};
  for (size_t k = 0; k < slots; k++) {
    c.key[k] = -1;
    c.used[k] = 0;
  }
  om_rs_row_index(j, begin, o);
  for (size_t g = begin; g < end; g++, om_rs_next_row(j, o)) {
    float* dst = j->half ? row32 : (float*)(void*)j->dst + g * j->w;
    const float* v = j->st->filter ? om_rs_filter(j, o, 0, 0, dst, mem, &c) : om_rs_linear(j, o, 0, 0, dst, mem, &c);
    if (j->half) { /* one rounding to float16 */
      om_rs_convert(j->path, OM_T_FLOAT, OM_T_FLOAT16, v, (uint16_t*)(void*)j->dst + g * j->w, j->w);
    } else if (v != dst) {
      memcpy(dst, v, j->w * sizeof(float));
    }
  }
  free(keys);
  return 0;
}

/* The bytes of axis d's table: out[d] nearest offsets, linear taps, or filter rows of k taps. */
static size_t om_rs_table_bytes(const om_rs_job* j, size_t d, size_t k) {
  size_t n = (size_t)j->out[d];
  if (j->st->filter) return (n * (k * (sizeof(int64_t) + sizeof(float)) + sizeof(uint32_t)) + 7) & ~(size_t)7;
  return n * (j->st->linear ? sizeof(om_resize_tap) : sizeof(int64_t));
}

/* Axis d's output index i: the filter taps (scale 1: the identity, one tap of weight 1). */
static void om_rs_filter_index(om_rs_job* j, size_t d, int64_t i, int64_t len, const float* sc) {
  const om_resize_node* st = j->st;
  om_resize_filter* f = &j->filt[d];
  if (sc[d] == 1.0f) {
    f->idx[(size_t)i * f->k] = i;
    f->w[(size_t)i * f->k] = 1.0f;
    f->n[i] = 1;
    return;
  }
  float xs = om_resize_source(st->coord, i, len, j->out[d], sc[d]);
  om_resize_filter_taps(st->cubic, st->antialias, st->exclude, st->cubic_a, xs, sc[d], len, f, i);
}

/* The per-axis tables of the job (one allocation, *mem to free): 0, or -1 with a message. */
static int om_rs_tables(om_rs_job* j, const int64_t* in, const float* sc, void** mem, char* err, size_t errlen) {
  const om_resize_node* st = j->st;
  size_t total = 0, width[OM_MAX_RANK];
  j->slots = OM_RS_CACHE;
  for (size_t d = 0; d < j->r; d++) {
    width[d] = 1;
    if (st->filter && sc[d] != 1.0f) {
      width[d] = om_resize_filter_width(st->cubic, st->antialias, sc[d]);
      if (width[d] == 0) {
        snprintf(err, errlen, "axis %zu: scale %g makes the antialias window wider than served (2^20)", d,
                 (double)sc[d]);
        return -1;
      }
      if (d + 1 < j->r && width[d] + 1 > j->slots) j->slots = width[d] + 1;
    }
    total += om_rs_table_bytes(j, d, width[d]);
  }
  char* p = malloc(total + 1);
  *mem = p;
  if (!p) {
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  for (size_t d = 0; d < j->r; d++) {
    int64_t n = j->out[d];
    if (st->filter) {
      om_resize_filter* f = &j->filt[d];
      f->k = width[d];
      f->idx = (int64_t*)(void*)p;
      f->w = (float*)(void*)(p + (size_t)n * f->k * sizeof(int64_t));
      f->n = (uint32_t*)(void*)(p + (size_t)n * f->k * (sizeof(int64_t) + sizeof(float)));
    } else if (st->linear) {
      j->taps[d] = (om_resize_tap*)(void*)p;
    } else {
      j->off[d] = (int64_t*)(void*)p;
    }
    p += om_rs_table_bytes(j, d, width[d]);
    for (int64_t i = 0; i < n; i++) {
      if (st->filter) {
        om_rs_filter_index(j, d, i, in[d], sc);
        continue;
      }
      if (sc[d] == 1.0f) { /* the identity (docs/resize.md) */
        if (st->linear) j->taps[d][i] = (om_resize_tap){i, i, 1.0f, 0.0f, 1};
        else j->off[d][i] = i * j->istride[d];
        continue;
      }
      float xs = om_resize_source(st->coord, i, in[d], n, sc[d]);
      if (st->linear) om_resize_linear_tap(xs, in[d], &j->taps[d][i]);
      else j->off[d][i] = om_resize_nearest(st->nearest, xs, sc[d], in[d]) * j->istride[d];
    }
  }
  return 0;
}

static int om_rs_run(const om_node* node, const om_node_io* io) {
  const om_resize_node* st = node->impl;
  int64_t out[OM_MAX_RANK];
  float sc[OM_MAX_RANK];
  if (om_rs_geometry(node, io, out, sc) != 0) return -1;
  size_t r = io->ranks[0], esz = om_type_size(node->type);
  size_t count = om_shape_count(out, r);
  if (!io->outs[0] || count == 0) return 0;
  if (r == 0) { /* a scalar: nothing to resize */
    memcpy(io->outs[0], io->data[0], esz);
    return 0;
  }
  om_rs_job j;
  memset(&j, 0, sizeof j);
  j.st = st;
  j.r = r;
  j.esz = esz;
  j.w = (size_t)out[r - 1];
  j.src = io->data[0];
  j.dst = io->outs[0];
  j.out = out;
  j.last_identity = sc[r - 1] == 1.0f;
  j.half = node->type == OM_T_FLOAT16 && (st->linear || st->filter);
  j.path = node->path;
  j.in_w = (size_t)io->shapes[0][r - 1];
  om_row_major_strides(io->shapes[0], r, j.istride);
  void* mem = NULL;
  char why[160] = "out of memory";
  int rc = om_rs_tables(&j, io->shapes[0], sc, &mem, why, sizeof why);
  if (rc == 0) {
    size_t rows = count / j.w, block = j.w >= OM_RESIZE_BLOCK ? 1 : OM_RESIZE_BLOCK / j.w;
    rc = om_parallel_ranges(io->parallel_for, io->host_ctx, rows, block,
                            st->linear || st->filter ? om_rs_interp_rows : om_rs_nearest_rows, &j);
  }
  free(mem);
  if (rc != 0) snprintf(io->err, io->errlen, "node '%s' (op %s): %s", node->name, om_op_row(node->op)->name, why);
  return rc;
}

static int om_rs_shape_input(const om_node* node, size_t k) {
  const om_resize_node* st = node->impl;
  return k > 0 && (k == st->scales_k || k == st->sizes_k);
}

const om_family om_family_resize = {sizeof(om_resize_node), om_rs_create, om_rs_shapes,     om_rs_run,
                                    NULL,                   om_rs_shape_input, NULL, om_rs_check_ranks};
