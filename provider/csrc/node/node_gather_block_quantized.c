/* node_gather_block_quantized.c - com.microsoft GatherBlockQuantized nodes with uint8, uint4 or int4 data
 * (docs/transformer-ops.md): blocked, packed quantized values gathered, then dequantized as DequantizeLinear does,
 * y = RN((float)(q - zero_point) * scale), the difference an exact integer.
 *
 * data: uint8 [D0, ..., Dr-1] holding 8 / bits values per byte along the last axis, lowest bits first (bits 2,
 * 4 or 8), Q = Dr-1 * 8 / bits values per row; gather_axis 0 and quantize_axis the last (ONNX Runtime's rule
 * for uint8 data); indices: int32 or int64, any shape, negative ones counted from the end, one out of
 * [-D0, D0 - 1] fails the run; scales: f32 or f16, data's shape with the last dimension ceil(Q / block_size)
 * (block_size a power of 2, at least 16, default 128); zero_points: optional uint8, scales' shape with the last
 * dimension ceil(blocks * bits / 8), packed as data; absent: 2^(bits - 1). Output: scales' type, of shape
 * indices' shape + data's [D1, ..., Dr-2] + [Q]. f16 scales: widened exactly to f32, the product rounded to f32,
 * then to f16 (ONNX Runtime's CPU kernel's order: two roundings, bit-equal to it).
 *
 * uint4 / int4 data (ONNX Runtime's types: the shape counts values, two a byte, element i of the tensor in row-major
 * order in the low four bits of byte i / 2 when i is even, the high four when odd; int4 sign-extended): bits 4,
 * any gather_axis and quantize_axis; scales of data's shape with dimension ceil(D_q / block_size) at the quantize
 * axis; zero_points of data's type and scales' shape, packed the same way; absent: 0. Output: data's shape with
 * the gather axis replaced by indices' shape. Float8 data is left to stock ORT. The node's last input may be the
 * rewriter's empty witness of the output's type (ignored here).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "broadcast.h"
#include "index_input.h"
#include "node_family.h"
#include "parallel.h"
#include "core/om_ops.h"
#include "math/om_half.h"
#include "reduce/reduce.h"

#define OM_GBQ_CHUNK_ELEMS ((size_t)1 << 15)

typedef struct om_gbq_node {
  int bits;
  size_t block;
  int64_t gather_axis;   /* the attribute (default 0): uint8 data, 0 only */
  int64_t quantize_axis; /* the attribute (default 1): uint8 data, data's last axis only */
  int index_type;        /* int32 or int64 */
  int type;              /* data's: uint8, uint4 or int4 */
} om_gbq_node;

static int om_gbq_is4(const om_gbq_node* g) { return g->type != OM_T_UINT8; }

#define OM_GBQ_FAIL(...)                                                                      \
  do {                                                                                        \
    int n_ = snprintf(err, errlen, "node '%s' (op GatherBlockQuantized): ", node->name);      \
    if (n_ >= 0 && (size_t)n_ < errlen) snprintf(err + n_, errlen - (size_t)n_, __VA_ARGS__); \
    return -1;                                                                                \
  } while (0)

static int om_gbq_create(om_node* node, const om_attrs* a, char* err, size_t errlen) {
  om_gbq_node* g = node->impl;
  const int* types = node->input_types;
  int64_t bits = a->has_nbits_bits ? a->nbits_bits : 4;
  int64_t block = a->has_block_size ? a->block_size : 128;
  g->type = types[0];
  if (om_gbq_is4(g) && bits != 4)
    OM_GBQ_FAIL("attribute bits = %lld is not served for %s data (only 4)", (long long)bits, om_type_name(g->type));
  if (bits != 2 && bits != 4 && bits != 8)
    OM_GBQ_FAIL("attribute bits = %lld is not served (2, 4 or 8)", (long long)bits);
  if (block < 16 || (block & (block - 1)) != 0)
    OM_GBQ_FAIL("attribute block_size = %lld must be a power of 2, at least 16", (long long)block);
  if (!om_gbq_is4(g) && a->has_gather_axis && a->gather_axis != 0)
    OM_GBQ_FAIL("attribute gather_axis = %lld is not served (only 0, for uint8 data)", (long long)a->gather_axis);
  if (types[1] != OM_T_INT32 && types[1] != OM_T_INT64)
    OM_GBQ_FAIL("indices have type %s; they must be int32 or int64", om_type_name(types[1]));
  if (types[2] != OM_T_FLOAT && types[2] != OM_T_FLOAT16)
    OM_GBQ_FAIL("scales have type %s; float and float16 are served", om_type_name(types[2]));
  if (node->n_inputs > 3 && types[3] && types[3] != g->type)
    OM_GBQ_FAIL("zero_points have type %s; they must be %s like data", om_type_name(types[3]),
                om_type_name(g->type));
  g->bits = (int)bits;
  g->block = (size_t)block;
  g->gather_axis = a->has_gather_axis ? a->gather_axis : 0;
  g->quantize_axis = a->has_quantize_axis ? a->quantize_axis : 1;
  g->index_type = types[1];
  node->out_types[0] = types[2]; /* the output has the scales' type */
  return 0;
}

/* 4-bit data: gather_axis and quantize_axis against data's rank, into *ga and *qa; 0, or -1 with a message. */
static int om_gbq_axes4(const om_node* node, size_t rank, size_t* ga, size_t* qa, char* err, size_t errlen) {
  const om_gbq_node* g = node->impl;
  const int64_t r = (int64_t)rank, axes[2] = {g->gather_axis, g->quantize_axis};
  static const char* const names[2] = {"gather_axis", "quantize_axis"};
  size_t* out[2] = {ga, qa};
  for (int k = 0; k < 2; k++) {
    int64_t v = axes[k] < 0 ? axes[k] + r : axes[k];
    if (v < 0 || v >= r)
      OM_GBQ_FAIL("attribute %s = %lld is out of range for data of rank %zu", names[k], (long long)axes[k], rank);
    *out[k] = (size_t)v;
  }
  return 0;
}

/* quantize_axis against data's rank: 0, or -1 with a message. */
static int om_gbq_axes(const om_node* node, size_t rank, char* err, size_t errlen) {
  const om_gbq_node* g = node->impl;
  size_t ga, qa;
  if (om_gbq_is4(g)) return om_gbq_axes4(node, rank, &ga, &qa, err, errlen);
  int64_t r = (int64_t)rank, q = g->quantize_axis < 0 ? g->quantize_axis + r : g->quantize_axis;
  if (rank < 2)
    OM_GBQ_FAIL("data has rank %zu; it must have rank 2 at least (gather axis 0, quantize axis last)", rank);
  if (q != r - 1)
    OM_GBQ_FAIL("attribute quantize_axis = %lld is not served for data of rank %zu (only the last axis, %lld, for "
                "uint8 data)", (long long)g->quantize_axis, rank, (long long)(r - 1));
  return 0;
}

static int om_gbq_check_ranks(const om_node* node, size_t n_inputs, const size_t* ranks, char* err, size_t errlen) {
  if (ranks[0] != OM_RANK_UNKNOWN && om_gbq_axes(node, ranks[0], err, errlen) != 0) return -1;
  for (size_t k = 2; k < n_inputs && k < 4; k++)
    if (ranks[0] != OM_RANK_UNKNOWN && ranks[k] != OM_RANK_UNKNOWN && ranks[k] != ranks[0])
      OM_GBQ_FAIL("%s have rank %zu; they must have data's rank %zu", k == 2 ? "scales" : "zero_points", ranks[k],
                  ranks[0]);
  return 0;
}

/* Whether input k (scales or zero_points) has data's shape but for dimension at_axis at axis `axis`. */
static int om_gbq_fits(const om_node_io* io, size_t k, size_t axis, size_t at_axis) {
  const int64_t *s = io->shapes[k], *d = io->shapes[0];
  size_t r = io->ranks[0];
  int ok = io->ranks[k] == r;
  for (size_t a = 0; ok && a < r; a++) ok = (size_t)s[a] == (a == axis ? at_axis : (size_t)d[a]);
  return ok;
}

/* The shapes of one call. */
typedef struct om_gbq_geom {
  size_t rows;      /* D0 */
  size_t inner;     /* D1 * ... * Dr-2 */
  size_t bytes;     /* Dr-1 */
  size_t q;         /* values per row */
  size_t blocks;    /* scales per row */
  size_t zp_bytes;  /* zero-point bytes per row */
  size_t n_indices;
} om_gbq_geom;

static int om_gbq_geometry(const om_node* node, const om_node_io* io, om_gbq_geom* m) {
  const om_gbq_node* g = node->impl;
  char* err = io->err;
  size_t errlen = io->errlen;
  size_t r = io->ranks[0];
  if (om_gbq_axes(node, r, err, errlen) != 0) return -1;
  const int64_t* d = io->shapes[0];
  size_t per = (size_t)(8 / g->bits);
  m->rows = (size_t)d[0];
  m->inner = om_shape_count(d + 1, r - 2);
  m->bytes = (size_t)d[r - 1];
  m->q = m->bytes * per;
  m->blocks = (m->q + g->block - 1) / g->block;
  m->zp_bytes = (m->blocks + per - 1) / per;
  m->n_indices = om_shape_count(io->shapes[1], io->ranks[1]);
  char sx[200], sd[200];
  for (size_t k = 2; k < io->n_inputs && k < 4; k++) {
    if (!io->shapes[k] || om_gbq_fits(io, k, r - 1, k == 2 ? m->blocks : m->zp_bytes)) continue;
    om_shape_text(io->shapes[k], io->ranks[k], sx, sizeof sx);
    om_shape_text(d, r, sd, sizeof sd);
    OM_GBQ_FAIL("%s %s do not fit data %s: they must be data's shape with the last dimension %zu (%s)",
                k == 2 ? "scales" : "zero_points", sx, sd, k == 2 ? m->blocks : m->zp_bytes,
                k == 2 ? "blocks per row" : "bytes of packed zero points per row");
  }
  return 0;
}


/* The shapes of one call with 4-bit data: data as [outer, axis, inner] around the gather axis and as
 * [q_outer, q_dim, q_inner] around the quantize axis (scales [q_outer, blocks, q_inner]). */
typedef struct om_gbq_geom4 {
  size_t ga, qa;
  size_t outer, axis, inner;
  size_t q_dim, q_inner, blocks;
  size_t n_indices;
} om_gbq_geom4;

static int om_gbq_geometry4(const om_node* node, const om_node_io* io, om_gbq_geom4* m) {
  const om_gbq_node* g = node->impl;
  char* err = io->err;
  size_t errlen = io->errlen, r = io->ranks[0];
  if (om_gbq_axes4(node, r, &m->ga, &m->qa, err, errlen) != 0) return -1;
  const int64_t* d = io->shapes[0];
  m->outer = om_shape_count(d, m->ga);
  m->axis = (size_t)d[m->ga];
  m->inner = om_shape_count(d + m->ga + 1, r - m->ga - 1);
  m->q_dim = (size_t)d[m->qa];
  m->q_inner = om_shape_count(d + m->qa + 1, r - m->qa - 1);
  m->blocks = (m->q_dim + g->block - 1) / g->block;
  m->n_indices = om_shape_count(io->shapes[1], io->ranks[1]);
  char sx[200], sd[200];
  for (size_t k = 2; k < io->n_inputs && k < 4; k++) {
    if (!io->shapes[k] || om_gbq_fits(io, k, m->qa, m->blocks)) continue;
    om_shape_text(io->shapes[k], io->ranks[k], sx, sizeof sx);
    om_shape_text(d, r, sd, sizeof sd);
    OM_GBQ_FAIL("%s %s do not fit data %s: they must be data's shape with dimension %zu (blocks of %zu) at the "
                "quantize axis %zu", k == 2 ? "scales" : "zero_points", sx, sd, m->blocks, g->block, m->qa);
  }
  return 0;
}

/* 0, or -1 with a message when the output's rank (indices' + data's - 1) is above OM_MAX_RANK. */
static int om_gbq_out_rank_check(const om_node* node, const om_node_io* io) {
  size_t rank = io->ranks[1] + io->ranks[0] - 1;
  if (rank <= OM_MAX_RANK) return 0;
  snprintf(io->err, io->errlen, "node '%s' (op GatherBlockQuantized): the output's rank %zu is above %d",
           node->name, rank, OM_MAX_RANK);
  return -1;
}

static int om_gbq_shapes4(const om_node* node, const om_node_io* io) {
  om_gbq_geom4 m;
  if (om_gbq_geometry4(node, io, &m) != 0) return -1;
  size_t r = io->ranks[0], ir = io->ranks[1], o = 0;
  if (om_gbq_out_rank_check(node, io) != 0) return -1;
  for (size_t a = 0; a < m.ga; a++) io->out_shapes[o++] = io->shapes[0][a];
  for (size_t a = 0; a < ir; a++) io->out_shapes[o++] = io->shapes[1][a];
  for (size_t a = m.ga + 1; a < r; a++) io->out_shapes[o++] = io->shapes[0][a];
  io->out_ranks[0] = o;
  return 0;
}

static int om_gbq_shapes(const om_node* node, const om_node_io* io) {
  if (om_gbq_is4(node->impl)) return om_gbq_shapes4(node, io);
  om_gbq_geom m;
  if (om_gbq_geometry(node, io, &m) != 0) return -1;
  size_t r = io->ranks[0], ir = io->ranks[1], o = 0;
  if (om_gbq_out_rank_check(node, io) != 0) return -1;
  for (size_t a = 0; a < ir; a++) io->out_shapes[o++] = io->shapes[1][a];
  for (size_t a = 1; a + 1 < r; a++) io->out_shapes[o++] = io->shapes[0][a];
  io->out_shapes[o++] = (int64_t)m.q;
  io->out_ranks[0] = o;
  return 0;
}

/* A call's tensors, shared by both layouts' jobs. */
typedef struct om_gbq_tensors {
  int index_type;
  const void* indices;
  const uint8_t *data, *zp;
  const void* scales; /* f32 or f16 (half) */
  void* y;            /* scales' type */
  int half, path;
} om_gbq_tensors;

static om_gbq_tensors om_gbq_tensors_of(const om_node* node, const om_node_io* io) {
  const om_gbq_node* g = node->impl;
  om_gbq_tensors t = {.index_type = g->index_type, .indices = io->data[1], .data = io->data[0],
                      .zp = io->n_inputs > 3 ? io->data[3] : NULL, .scales = io->data[2], .y = io->outs[0],
                      .half = node->out_types[0] == OM_T_FLOAT16, .path = node->path};
  return t;
}

/* Output rows [0, out_rows) of row_len values each through fn(job), in chunks of about OM_GBQ_CHUNK_ELEMS. */
static int om_gbq_parallel(const om_node* node, const om_node_io* io, size_t out_rows, size_t row_len,
                           int (*fn)(const void*, size_t, size_t), const void* job) {
  size_t chunk = OM_GBQ_CHUNK_ELEMS / row_len;
  if (om_parallel_ranges(io->parallel_for, io->host_ctx, out_rows, chunk ? chunk : 1, fn, job) != 0) {
    snprintf(io->err, io->errlen, "node '%s' (op GatherBlockQuantized): out of memory", node->name);
    return -1;
  }
  return 0;
}

typedef struct om_gbq_job {
  const om_gbq_node* g;
  om_gbq_geom m;
  om_gbq_tensors t;
} om_gbq_job;

/* Scale i of f32 or (half) f16 scales, widened exactly to f32. */
static inline float om_gbq_scale(const void* scales, int half, size_t i) {
  return half ? om_f16_to_f32(((const uint16_t*)scales)[i]) : ((const float*)scales)[i];
}

/* f16 scales: an output row computed in f32 into a scratch row, then rounded once to f16 into y (ONNX
 * Runtime's order: the product in f32, then converted); f32: y's row itself. */
static float* om_gbq_row_out(void* y, float* scratch, size_t row, size_t n) {
  return scratch ? scratch : (float*)y + row * n;
}
static void om_gbq_row_done(int path, void* y, const float* scratch, size_t row, size_t n) {
  if (scratch) om_red_cvt16(path, OM_T_FLOAT16, 0, scratch, (uint16_t*)y + row * n, n);
}

/* Value j of a packed row of `bits`-bit values, lowest bits first. */
static int32_t om_gbq_value(const uint8_t* row, size_t j, int bits) {
  size_t per = (size_t)(8 / bits);
  return (int32_t)((row[j / per] >> ((j % per) * (size_t)bits)) & ((1u << bits) - 1u));
}

/* Output rows [b, e) (index i = row / inner, inner row k = row % inner). */
static int om_gbq_rows(const void* args, size_t b, size_t e) {
  const om_gbq_job* j = args;
  const om_gbq_geom* m = &j->m;
  int bits = j->g->bits;
  float* scratch = j->t.half ? malloc((m->q + 1) * sizeof(float)) : NULL;
  if (j->t.half && !scratch) return -1;
  for (size_t row = b; row < e; row++) {
    int64_t v = om_index_at(j->t.index_type, j->t.indices, row / m->inner);
    size_t src = (size_t)(v < 0 ? v + (int64_t)m->rows : v) * m->inner + row % m->inner;
    const uint8_t* q = j->t.data + src * m->bytes;
    size_t sc = src * m->blocks;
    const uint8_t* zp = j->t.zp ? j->t.zp + src * m->zp_bytes : NULL;
    float* y = om_gbq_row_out(j->t.y, scratch, row, m->q);
    size_t lg = bits == 8 ? 0 : bits == 4 ? 1 : 2, mask = ((size_t)1 << bits) - 1, block = j->g->block;
    for (size_t blk = 0, t0 = 0; t0 < m->q; blk++, t0 += block) { /* a block's zero point and scale, once */
      int32_t z = zp ? om_gbq_value(zp, blk, bits) : 1 << (bits - 1);
      float s = om_gbq_scale(j->t.scales, j->t.half, sc + blk);
      size_t t1 = t0 + block < m->q ? t0 + block : m->q;
      for (size_t t = t0; t < t1; t++) {
        size_t shift = (t & (((size_t)1 << lg) - 1)) * (size_t)bits;
        y[t] = (float)((int32_t)((q[t >> lg] >> shift) & mask) - z) * s;
      }
    }
    om_gbq_row_done(j->t.path, j->t.y, scratch, row, m->q);
  }
  free(scratch);
  return 0;
}


/* Value i of a tensor of 4-bit values, two a byte, the first in the low bits; int4 sign-extended. */
static int32_t om_gbq_nibble(const uint8_t* p, size_t i, int is_signed) {
  int32_t v = (p[i >> 1] >> ((i & 1) * 4)) & 0xF;
  return is_signed ? v - ((v & 8) << 1) : v;
}

typedef struct om_gbq_job4 {
  om_gbq_geom4 m;
  unsigned block_log2; /* block_size = 2^block_log2 */
  int is_signed;
  om_gbq_tensors t;
} om_gbq_job4;

/* Output rows [b, e) of `inner` values each: row = o * n_indices + i gathers data[o, indices[i], :]. */
static int om_gbq_rows4(const void* args, size_t b, size_t e) {
  const om_gbq_job4* j = args;
  const om_gbq_geom4* m = &j->m;
  const size_t q_span = m->q_dim * m->q_inner; /* data elements per q_outer index */
  float* scratch = j->t.half ? malloc((m->inner + 1) * sizeof(float)) : NULL;
  if (j->t.half && !scratch) return -1;
  for (size_t row = b; row < e; row++) {
    size_t o = row / m->n_indices;
    int64_t v = om_index_at(j->t.index_type, j->t.indices, row % m->n_indices);
    size_t src = (o * m->axis + (size_t)(v < 0 ? v + (int64_t)m->axis : v)) * m->inner;
    float* y = om_gbq_row_out(j->t.y, scratch, row, m->inner);
    /* data's element i = src + t sits at [x, qi, zi] of [q_outer, q_dim, q_inner], its scale at
     * [x, qi / block, zi] of [q_outer, blocks, q_inner]: the counters start from divisions, then step */
    size_t x = src / q_span, qi = src / m->q_inner % m->q_dim, zi = src % m->q_inner;
    for (size_t t = 0; t < m->inner; t++) {
      size_t i = src + t, si = (x * m->blocks + (qi >> j->block_log2)) * m->q_inner + zi;
      int32_t z = j->t.zp ? om_gbq_nibble(j->t.zp, si, j->is_signed) : 0;
      y[t] = (float)(om_gbq_nibble(j->t.data, i, j->is_signed) - z) * om_gbq_scale(j->t.scales, j->t.half, si);
      if (++zi == m->q_inner) {
        zi = 0;
        if (++qi == m->q_dim) {
          qi = 0;
          x++;
        }
      }
    }
    om_gbq_row_done(j->t.path, j->t.y, scratch, row, m->inner);
  }
  free(scratch);
  return 0;
}

static int om_gbq_run4(const om_node* node, const om_node_io* io) {
  const om_gbq_node* g = node->impl;
  om_gbq_job4 j;
  memset(&j, 0, sizeof j);
  if (om_gbq_geometry4(node, io, &j.m) != 0) return -1;
  while (((size_t)1 << j.block_log2) < g->block) j.block_log2++;
  j.is_signed = g->type == OM_T_INT4;
  j.t = om_gbq_tensors_of(node, io);
  if (om_indices_check(node, j.t.index_type, j.t.indices, j.m.n_indices, (int64_t)j.m.axis, "axis", j.m.ga, io->err,
                       io->errlen) != 0)
    return -1;
  size_t out_rows = j.m.outer * j.m.n_indices;
  if (out_rows == 0 || j.m.inner == 0) return 0;
  return om_gbq_parallel(node, io, out_rows, j.m.inner, om_gbq_rows4, &j);
}

static int om_gbq_run(const om_node* node, const om_node_io* io) {
  if (om_gbq_is4(node->impl)) return om_gbq_run4(node, io);
  om_gbq_job j;
  memset(&j, 0, sizeof j);
  if (om_gbq_geometry(node, io, &j.m) != 0) return -1;
  j.g = node->impl;
  j.t = om_gbq_tensors_of(node, io);
  if (om_indices_check(node, j.t.index_type, j.t.indices, j.m.n_indices, (int64_t)j.m.rows, "axis", 0, io->err,
                       io->errlen) != 0)
    return -1;
  size_t out_rows = j.m.n_indices * j.m.inner;
  if (out_rows == 0 || j.m.q == 0) return 0;
  return om_gbq_parallel(node, io, out_rows, j.m.q, om_gbq_rows, &j);
}

const om_family om_family_gather_block_quantized = {.state_size = sizeof(om_gbq_node), .create = om_gbq_create,
                                                    .shapes = om_gbq_shapes, .run = om_gbq_run,
                                                    .check_ranks = om_gbq_check_ranks};
