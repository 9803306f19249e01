/* node_pad.c - Pad (opset 11 on): input 0 with, per axis, elements added before and after (constant, reflect,
 * edge or wrap) or cropped (negative pads). pads: input 1 (int64, 1-D, the begins then the ends of the listed
 * axes); constant_value: optional input 2 (one element of input 0's type); axes: optional input 3 (opset 18 on,
 * int32 or int64). The rules, per output element: docs/shape-ops.md. Each axis gets a map from output index to
 * input index (or none: the constant); the rows of the last axis are written by kernels/pad_rows.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/om_ops.h"
#include "int_input.h"
#include "kernels/pad_rows.h"
#include "movement.h"
#include "node_family.h"
#include "parallel.h"

enum { OM_PAD_CONSTANT = 0, OM_PAD_REFLECT = 1, OM_PAD_EDGE = 2, OM_PAD_WRAP = 3 };

/* The highest rank served without axes: pads (2 entries an axis) is read as a list of at most OM_MAX_RANK. */
#define OM_PAD_MAX_RANK (OM_MAX_RANK / 2)
/* Output elements per parallel chunk (whole rows: at least one). */
#define OM_PAD_CHUNK ((size_t)1 << 16)

typedef struct om_pad_node {
  om_int_inputs ints; /* first: input 1 (pads) and input 3 (axes) */
  int mode;
} om_pad_node;

static const char* const om_pad_mode_names[4] = {"constant", "reflect", "edge", "wrap"};

static int om_pad_create(om_node* node, const om_attrs* a, char* err, size_t errlen) {
  const int* types = node->input_types;
  const char* opn = om_op_row(node->op)->name;
  om_pad_node* s = node->impl;
  s->mode = a->has_pad_mode ? a->pad_mode : OM_PAD_CONSTANT;
  if (s->mode < 0) {
    snprintf(err, errlen, "node '%s' (op %s): attribute mode must be constant, reflect, edge or wrap", node->name,
             opn);
    return -1;
  }
  if (s->mode == OM_PAD_WRAP && node->opset > 0 && node->opset < 19) {
    snprintf(err, errlen, "node '%s' (op %s): mode wrap is defined from opset 19 on (opset %d)", node->name, opn,
             node->opset);
    return -1;
  }
  if (types[1] != OM_T_INT64) {
    snprintf(err, errlen, "node '%s' (op %s): input 1 (pads) is %s, it must be int64", node->name, opn,
             om_type_name(types[1]));
    return -1;
  }
  if (node->n_inputs > 2 && types[2] && types[2] != node->type) {
    snprintf(err, errlen, "node '%s' (op %s): input 2 (constant_value) is %s, input 0 %s: they must be one type",
             node->name, opn, om_type_name(types[2]), om_type_name(node->type));
    return -1;
  }
  if (node->n_inputs > 3 && types[3]) {
    if (types[3] != OM_T_INT32 && types[3] != OM_T_INT64) {
      snprintf(err, errlen, "node '%s' (op %s): input 3 (axes) is %s, it must be int32 or int64", node->name, opn,
               om_type_name(types[3]));
      return -1;
    }
    if (node->opset > 0 && node->opset < 18) {
      snprintf(err, errlen, "node '%s' (op %s): input 3 (axes) is defined from opset 18 on (opset %d)", node->name,
               opn, node->opset);
      return -1;
    }
    om_int_input_declare(&s->ints, 3, "axes", types[3]);
  }
  om_int_input_declare(&s->ints, 1, "pads", types[1]);
  return 0;
}

/* Per axis: the output dimension, the begin fill p, the kept extent n and its first input index s. */
typedef struct om_pad_plan {
  size_t r;
  int64_t out[OM_MAX_RANK], p[OM_MAX_RANK], n[OM_MAX_RANK], s[OM_MAX_RANK];
} om_pad_plan;

static int om_pad_has_input(const om_node_io* io, size_t k) {
  return k < io->n_inputs && (io->shapes[k] || (io->data && io->data[k]));
}

static int om_pad_resolve(const om_node* node, const om_node_io* io, om_pad_plan* pl) {
  const om_pad_node* st = node->impl;
  const char* opn = om_op_row(node->op)->name;
  om_int_list bufs[2];
  const om_int_list* pads = om_int_inputs_get(node, io, 1, &bufs[0]);
  const om_int_list* axes = pads ? om_int_inputs_get(node, io, 3, &bufs[1]) : NULL;
  if (!axes) return -1;
  size_t r = io->ranks[0], m = axes->known ? axes->n : r;
  if (!pads->known || pads->n != 2 * m) {
    snprintf(io->err, io->errlen, "node '%s' (op %s): input 1 (pads) has %zu entries, expected %zu (twice the %s %zu)",
             node->name, opn, pads->known ? pads->n : 0, 2 * m, axes->known ? "number of axes" : "rank of input 0", m);
    return -1;
  }
  if (om_pad_has_input(io, 2) && io->shapes[2] && om_shape_count(io->shapes[2], io->ranks[2]) != 1) {
    snprintf(io->err, io->errlen, "node '%s' (op %s): input 2 (constant_value) has %zu elements, it must have one",
             node->name, opn, om_shape_count(io->shapes[2], io->ranks[2]));
    return -1;
  }
  int64_t b[OM_MAX_RANK] = {0}, e[OM_MAX_RANK] = {0};
  uint8_t seen[OM_MAX_RANK] = {0};
  for (size_t i = 0; i < m; i++) {
    int64_t d = (int64_t)i;
    if (axes->known && om_axis_in_range(node, axes->v[i], r, "axis", &d, io->err, io->errlen) != 0) return -1;
    if (seen[d]) {
      snprintf(io->err, io->errlen, "node '%s' (op %s): input 3 (axes) names axis %lld more than once", node->name,
               opn, (long long)d);
      return -1;
    }
    seen[d] = 1;
    b[d] = pads->v[i];
    e[d] = pads->v[m + i];
  }
  pl->r = r;
  for (size_t d = 0; d < r; d++) {
    int64_t in = io->shapes[0][d], cb = b[d] < 0 ? b[d] : 0, ce = e[d] < 0 ? e[d] : 0;
    int64_t p = b[d] > 0 ? b[d] : 0, q = e[d] > 0 ? e[d] : 0;
    if ((cb < -in) || (ce < -in - cb)) {
      snprintf(io->err, io->errlen, "node '%s' (op %s): pads crop %lld and %lld elements of axis %zu, which has %lld",
               node->name, opn, (long long)-cb, (long long)-ce, d, (long long)in);
      return -1;
    }
    int64_t n = in + cb + ce;
    if (n == 0 && (p || q) && st->mode != OM_PAD_CONSTANT) {
      snprintf(io->err, io->errlen, "node '%s' (op %s): mode %s cannot pad axis %zu, which keeps no element",
               node->name, opn, om_pad_mode_names[st->mode], d);
      return -1;
    }
    if (p > INT64_MAX - n || q > INT64_MAX - n - p) {
      snprintf(io->err, io->errlen, "node '%s' (op %s): dimension %zu of the output does not fit 64 bits", node->name,
               opn, d);
      return -1;
    }
    pl->p[d] = p;
    pl->n[d] = n;
    pl->s[d] = -cb;
    pl->out[d] = p + n + q;
  }
  return 0;
}

static int om_pad_shapes(const om_node* node, const om_node_io* io) {
  om_pad_plan pl;
  if (om_pad_resolve(node, io, &pl) != 0) return -1;
  memcpy(io->out_shapes, pl.out, pl.r * sizeof(int64_t));
  io->out_ranks[0] = pl.r;
  return 0;
}

/* The input index of output index o along an axis (docs/shape-ops.md, Pad step 4), -1 for the constant. */
static int64_t om_pad_source(int mode, int64_t o, int64_t p, int64_t n, int64_t s) {
  int64_t j = o - p;
  if (j >= 0 && j < n) return s + j;
  switch (mode) {
    case OM_PAD_EDGE: return s + (j < 0 ? 0 : n - 1);
    case OM_PAD_REFLECT: {
      if (n == 1) return s;
      int64_t period = 2 * (n - 1), k = j % period;
      if (k < 0) k += period;
      return s + (k < n ? k : period - k);
    }
    case OM_PAD_WRAP: {
      int64_t k = j % n;
      return s + (k < 0 ? k + n : k);
    }
    default: return -1;
  }
}

typedef struct om_pad_task {
  om_pad_row_plan row;
  size_t r, rows, rows_per_chunk;
  const int64_t* out;
  int64_t* const* maps; /* maps[d]: out[d] entries */
  int64_t stride[OM_MAX_RANK];
  const char* src;
  char* dst;
} om_pad_task;

static void om_pad_chunk(void* vt, size_t c) {
  const om_pad_task* t = vt;
  size_t end, begin = om_chunk_begin(c, t->rows_per_chunk, t->rows, &end);
  size_t outer = t->r - 1, row_bytes = t->row.width * t->row.esz;
  int64_t idx[OM_MAX_RANK];
  size_t rest = begin;
  for (size_t d = outer; d-- > 0;) {
    idx[d] = (int64_t)(rest % (size_t)t->out[d]);
    rest /= (size_t)t->out[d];
  }
  for (size_t row = begin; row < end; row++) {
    int64_t off = 0;
    int constant = 0;
    for (size_t d = 0; d < outer; d++) {
      int64_t m = t->maps[d][idx[d]];
      if (m < 0) constant = 1;
      off += m * t->stride[d];
    }
    om_pad_row(&t->row, t->dst + row * row_bytes, constant ? NULL : t->src + (size_t)off * t->row.esz);
    for (size_t d = outer; d-- > 0;) { /* the next row's index */
      if (++idx[d] < t->out[d]) break;
      idx[d] = 0;
    }
  }
}

static int om_pad_run(const om_node* node, const om_node_io* io) {
  const om_pad_node* st = node->impl;
  om_pad_plan pl;
  if (om_pad_resolve(node, io, &pl) != 0) return -1;
  size_t total = om_shape_count(pl.out, pl.r), esz = om_type_size(node->type), r = pl.r;
  if (!total || !io->outs[0]) return 0;
  om_pad_task t;
  memset(&t, 0, sizeof t);
  t.row.esz = esz;
  if (om_pad_has_input(io, 2) && io->data[2]) memcpy(t.row.value, io->data[2], esz);
  if (r == 0) { /* a scalar: nothing to pad */
    memcpy(io->outs[0], io->data[0], esz);
    return 0;
  }
  size_t n_map = 0;
  for (size_t d = 0; d < r; d++) n_map += (size_t)pl.out[d];
  int64_t* all = malloc(n_map * sizeof *all);
  int64_t* maps[OM_MAX_RANK];
  if (!all) {
    snprintf(io->err, io->errlen, "node '%s' (op %s): out of memory (%zu index entries)", node->name,
             om_op_row(node->op)->name, n_map);
    return -1;
  }
  int64_t* next = all;
  for (size_t d = 0; d < r; d++) {
    maps[d] = next;
    for (int64_t o = 0; o < pl.out[d]; o++) next[o] = om_pad_source(st->mode, o, pl.p[d], pl.n[d], pl.s[d]);
    next += pl.out[d];
  }
  om_row_major_strides(io->shapes[0], r, t.stride);
  t.r = r;
  t.out = pl.out;
  t.maps = maps;
  t.row.width = (size_t)pl.out[r - 1];
  t.row.map = maps[r - 1];
  t.row.mid_begin = (size_t)pl.p[r - 1];
  t.row.mid_len = (size_t)pl.n[r - 1];
  t.row.mid_src = pl.s[r - 1];
  t.rows = total / t.row.width;
  t.rows_per_chunk = t.row.width >= OM_PAD_CHUNK ? 1 : OM_PAD_CHUNK / t.row.width;
  t.src = io->data[0];
  t.dst = io->outs[0];
  om_parallel_ieee(io->parallel_for, io->host_ctx, (t.rows + t.rows_per_chunk - 1) / t.rows_per_chunk, om_pad_chunk,
                   &t);
  free(all);
  return 0;
}

static int om_pad_check_ranks(const om_node* node, size_t n_inputs, const size_t* ranks, char* err, size_t errlen) {
  const om_pad_node* st = node->impl;
  int has_axes = (st->ints.mask >> 3) & 1u;
  if (ranks[0] == OM_RANK_UNKNOWN || has_axes) return 0;
  (void)n_inputs;
  const char* opn = om_op_row(node->op)->name;
  if (ranks[0] > OM_PAD_MAX_RANK) {
    snprintf(err, errlen, "node '%s' (op %s): input 0 has rank %zu; Pad without axes is served up to rank %d",
             node->name, opn, ranks[0], OM_PAD_MAX_RANK);
    return -1;
  }
  const om_int_list* pads = &st->ints.v[1];
  if (pads->known && pads->n != 2 * ranks[0]) {
    snprintf(err, errlen, "node '%s' (op %s): input 1 (pads) has %zu entries, expected %zu (twice the rank of "
             "input 0 %zu)", node->name, opn, pads->n, 2 * ranks[0], ranks[0]);
    return -1;
  }
  return 0;
}

const om_family om_family_pad = {sizeof(om_pad_node), om_pad_create, om_pad_shapes, om_pad_run,
                                 om_int_inputs_set_constant, om_int_inputs_shape_input, NULL, om_pad_check_ranks};
