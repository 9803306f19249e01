/* node_topk.c - TopK: the k greatest (largest 1, the default) or least elements along `axis` (default -1) and
 * their int64 indices, best first (sorted 0 too: that order is one of those ONNX allows). k is the attribute `k`
 * before opset 10, the int64 input 1 (one element) from it. The total order (NaN, -0.0, ties by the lower
 * index): docs/shape-ops.md "TopK"; the selection: kernels/topk.c. Rows go in fixed chunks on the host's threads;
 * each row's answer is unique, so neither the chunks nor the threads change a bit.
 */
#include <stdio.h>
#include <stdlib.h>

#include "core/om_ops.h"
#include "int_input.h"
#include "kernels/topk.h"
#include "node_family.h"
#include "parallel.h"

/* Elements scanned per parallel chunk (at least one row). */
#define OM_TOPK_CHUNK ((size_t)1 << 15)

typedef struct om_topk_node {
  om_int_inputs ii; /* first: input 1 (K), or the attribute k in ii.v[1] (int_input.h) */
  int64_t axis;
  int largest;
} om_topk_node;

static int om_tk_bad_k(const om_node* node, int64_t k, char* err, size_t errlen) {
  if (k >= 0) return 0;
  snprintf(err, errlen, "node '%s' (op %s): k is %lld, must not be negative", node->name, om_op_row(node->op)->name,
           (long long)k);
  return -1;
}

static int om_tk_create(om_node* node, const om_attrs* a, char* err, size_t errlen) {
  om_topk_node* s = node->impl;
  const char* opn = om_op_row(node->op)->name;
  if (om_topk_supported(node->type) != 0) return om_family_no_kernel(node, err, errlen);
  if ((a->has_largest && a->largest != 0 && a->largest != 1) || (a->has_sorted && a->sorted != 0 && a->sorted != 1)) {
    snprintf(err, errlen, "node '%s' (op %s): attributes largest and sorted must be 0 or 1", node->name, opn);
    return -1;
  }
  if (node->n_inputs > 1 && node->input_types[1]) {
    if (a->has_topk_k) {
      snprintf(err, errlen, "node '%s' (op %s): k is given both as attribute and as input 1 (K)", node->name, opn);
      return -1;
    }
    om_int_input_declare(&s->ii, 1, "K", node->input_types[1]);
  } else {
    if (!a->has_topk_k || (node->opset >= 10)) {
      snprintf(err, errlen, "node '%s' (op %s): k is missing (the attribute k before opset 10, input 1 (K) from it)",
               node->name, opn);
      return -1;
    }
    if (om_tk_bad_k(node, a->topk_k, err, errlen) != 0) return -1;
    s->ii.v[1].known = 1;
    s->ii.v[1].n = 1;
    s->ii.v[1].v[0] = a->topk_k;
  }
  s->axis = a->has_axis ? a->axis : -1;
  s->largest = a->has_largest ? (int)a->largest : 1;
  node->out_types[0] = node->type;
  node->out_types[1] = OM_T_INT64;
  return 0;
}

/* A constant K: read once, checked now so that a negative one fails at session creation. */
static int om_tk_set_constant(om_node* node, size_t k, const void* data, const int64_t* shape, size_t rank, char* err,
                              size_t errlen) {
  if (om_int_inputs_set_constant(node, k, data, shape, rank, err, errlen) != 0) return -1;
  const om_int_list* l = &((om_topk_node*)node->impl)->ii.v[1];
  if (k != 1 || !l->known) return 0;
  if (l->n != 1) {
    snprintf(err, errlen, "node '%s' (op %s): input 1 (K) has %zu elements, must have one", node->name,
             om_op_row(node->op)->name, l->n);
    return -1;
  }
  return om_tk_bad_k(node, l->v[0], err, errlen);
}

/* The axis in [0, rank) into *axis and k into *k: 0, or -1 with a message in io->err. */
static int om_tk_params(const om_node* node, const om_node_io* io, int64_t* axis, int64_t* k) {
  const om_topk_node* s = node->impl;
  const char* opn = om_op_row(node->op)->name;
  if (om_axis_in_range(node, s->axis, io->ranks[0], "axis", axis, io->err, io->errlen) != 0) return -1;
  om_int_list buf;
  const om_int_list* l = om_int_inputs_get(node, io, 1, &buf);
  if (!l) return -1;
  if (!l->known || l->n != 1) {
    snprintf(io->err, io->errlen, "node '%s' (op %s): input 1 (K) must have one element", node->name, opn);
    return -1;
  }
  *k = l->v[0];
  if (om_tk_bad_k(node, *k, io->err, io->errlen) != 0) return -1;
  if (*k > io->shapes[0][*axis]) {
    snprintf(io->err, io->errlen, "node '%s' (op %s): k is %lld, above the %lld elements along axis %lld", node->name,
             opn, (long long)*k, (long long)io->shapes[0][*axis], (long long)*axis);
    return -1;
  }
  return 0;
}

static int om_tk_shapes(const om_node* node, const om_node_io* io) {
  int64_t axis, k;
  if (om_tk_params(node, io, &axis, &k) != 0) return -1;
  size_t r = io->ranks[0];
  for (size_t o = 0; o < 2; o++) {
    for (size_t d = 0; d < r; d++) io->out_shapes[o * OM_MAX_RANK + d] = (int64_t)d == axis ? k : io->shapes[0][d];
    io->out_ranks[o] = r;
  }
  return 0;
}

typedef struct om_topk_task {
  om_topk sel;
  size_t outer; /* rows: outer * sel.inner, row q = (o, i) */
  const char* src;
  char* values;
  int64_t* indices;
} om_topk_task;

/* Rows [begin, end): row q is outer block q / inner, position q % inner. */
static int om_tk_rows(const void* vt, size_t begin, size_t end) {
  const om_topk_task* t = vt;
  const om_topk* s = &t->sel;
  size_t esz = om_type_size(s->type);
  om_topk_entry* heap = malloc(om_topk_scratch(s->n, s->k) * sizeof *heap);
  if (!heap) return -1;
  for (size_t q = begin; q < end; q++) {
    size_t o = q / s->inner, i = q % s->inner;
    size_t in_off = o * s->n * s->inner + i, out_off = o * s->k * s->inner + i;
    om_topk_row(s, t->src + in_off * esz, t->values ? t->values + out_off * esz : NULL, t->indices + out_off, heap);
  }
  free(heap);
  return 0;
}

static int om_tk_run(const om_node* node, const om_node_io* io) {
  const om_topk_node* s = node->impl;
  int64_t axis, k;
  if (om_tk_params(node, io, &axis, &k) != 0) return -1;
  om_topk_task t;
  t.sel.type = node->type;
  t.sel.largest = s->largest;
  t.sel.n = (size_t)io->shapes[0][axis];
  t.sel.k = (size_t)k;
  t.outer = om_shape_count(io->shapes[0], (size_t)axis);
  t.sel.inner = om_shape_count(io->shapes[0] + axis + 1, io->ranks[0] - (size_t)axis - 1);
  size_t rows = t.outer * t.sel.inner;
  if (!rows || !k || (!io->outs[0] && !io->outs[1])) return 0;
  t.src = io->data[0];
  t.values = io->outs[0];
  int64_t* scratch = NULL;
  t.indices = io->outs[1];
  if (!t.indices) { /* the indices are wanted by the selection even when the graph drops them */
    scratch = malloc(rows * t.sel.k * sizeof *scratch);
    if (!scratch) goto oom;
    t.indices = scratch;
  }
  size_t per = OM_TOPK_CHUNK / t.sel.n;
  int rc = om_parallel_ranges(io->parallel_for, io->host_ctx, rows, per ? per : 1, om_tk_rows, &t);
  free(scratch);
  if (rc == 0) return 0;
oom:
  snprintf(io->err, io->errlen, "node '%s' (op %s): out of memory", node->name, om_op_row(node->op)->name);
  return -1;
}

/* At creation: the axis against a declared rank. */
static int om_tk_check_ranks(const om_node* node, size_t n_inputs, const size_t* ranks, char* err, size_t errlen) {
  return om_axis_check_input0(node, ((const om_topk_node*)node->impl)->axis, n_inputs, ranks, err, errlen);
}

const om_family om_family_topk = {sizeof(om_topk_node), om_tk_create,       om_tk_shapes,
                                  om_tk_run,            om_tk_set_constant, om_int_inputs_shape_input,
                                  NULL,                 om_tk_check_ranks};
