/* node_split.c - Split: input 0 cut along `axis` into the node's n outputs (docs/data-movement.md). The sizes
 * s[0 .. n) come from the `split` attribute (before opset 13) or input 1 (int64, 1-D, from 13; read once when
 * constant), from `num_outputs` (opset 18: ceil(D / n) each, the last smaller), or else D / n each. Output k,
 * for each row o of the dimensions before the axis, is the contiguous run of s[k] x inner elements at
 * (o x D + s[0] + ... + s[k-1]) x inner of the input: memcpy, nothing computed. Rows are copied in fixed blocks
 * (a count that depends on the shapes only) on the host's threads.
 */
#include <stdio.h>
#include <string.h>

#include "core/om_ops.h"
#include "int_input.h"
#include "node_family.h"
#include "parallel.h"

/* Bytes of the input a parallel block of rows copies, at least (one row at least). */
#define OM_SPLIT_BLOCK_BYTES ((size_t)1 << 18)

enum { OM_SPLIT_EVEN, OM_SPLIT_LIST, OM_SPLIT_CHUNKS };

typedef struct om_split_node {
  int64_t axis;
  int rule;       /* OM_SPLIT_*: where the sizes come from */
  int from_input; /* OM_SPLIT_LIST: input 1 gives them (absent in a call: OM_SPLIT_EVEN) */
  int known;      /* OM_SPLIT_LIST: s holds them (the attribute, or a constant input 1) */
  int64_t s[OM_MAX_OUTPUTS];
} om_split_node;

/* A list of n sizes into s: n entries, none negative; 0, or -1 with a message naming `what`. */
static int om_sp_take(const om_node* node, const char* what, const int64_t* v, size_t len, int64_t* s, char* err,
                      size_t errlen) {
  const char* opn = om_op_row(node->op)->name;
  if (len != node->n_outputs)
    OM_FAIL_MSG("node '%s' (op %s): %s has %zu entries, the node has %zu outputs", node->name, opn, what, len,
               node->n_outputs);
  for (size_t k = 0; k < len; k++) {
    if (v[k] < 0)
      OM_FAIL_MSG("node '%s' (op %s): %s[%zu] is %lld, negative", node->name, opn, what, k, (long long)v[k]);
    s[k] = v[k];
  }
  return 0;
}

static int om_sp_create(om_node* node, const om_attrs* a, char* err, size_t errlen) {
  om_split_node* sp = node->impl;
  const char* opn = om_op_row(node->op)->name;
  const int opset = node->opset, has_input = node->n_inputs > 1 && node->input_types[1] != 0;
  const int has_list = a->has_split && a->n_split > 0;
  if (has_list && opset >= 13)
    OM_FAIL_MSG("node '%s' (op %s): attribute split is an input from opset 13 (opset %d)", node->name, opn, opset);
  if (has_input && opset > 0 && opset < 13)
    OM_FAIL_MSG("node '%s' (op %s): input 1 (split) needs opset 13 or later (opset %d)", node->name, opn, opset);
  if (a->has_num_outputs && opset > 0 && opset < 18)
    OM_FAIL_MSG("node '%s' (op %s): attribute num_outputs needs opset 18 or later (opset %d)", node->name, opn,
               opset);
  if ((has_list || has_input) && a->has_num_outputs)
    OM_FAIL_MSG("node '%s' (op %s): split and num_outputs are both given; at most one may be", node->name, opn);
  if (has_list && has_input)
    OM_FAIL_MSG("node '%s' (op %s): split is both an attribute and input 1", node->name, opn);
  if (!has_input && !a->has_num_outputs && opset >= 18)
    OM_FAIL_MSG("node '%s' (op %s): neither split nor num_outputs is given; one is required from opset 18",
               node->name, opn);
  if (a->has_num_outputs && (a->num_outputs < 1 || a->num_outputs > OM_MAX_OUTPUTS))
    OM_FAIL_MSG("node '%s' (op %s): num_outputs is %lld, must be 1 to %d", node->name, opn, (long long)a->num_outputs,
               OM_MAX_OUTPUTS);
  size_t n = a->n_outputs;
  if (!n && has_list) n = a->n_split;
  if (!n && a->has_num_outputs) n = (size_t)a->num_outputs;
  if (!n) OM_FAIL_MSG("node '%s' (op %s): the number of outputs is not known", node->name, opn);
  if (a->has_num_outputs && (size_t)a->num_outputs != n)
    OM_FAIL_MSG("node '%s' (op %s): num_outputs is %lld, the node has %zu outputs", node->name, opn,
               (long long)a->num_outputs, n);
  node->n_outputs = n;
  for (size_t k = 0; k < n; k++) node->out_types[k] = node->type;
  sp->axis = a->has_axis ? a->axis : 0;
  sp->rule = (has_list || has_input) ? OM_SPLIT_LIST : a->has_num_outputs ? OM_SPLIT_CHUNKS : OM_SPLIT_EVEN;
  sp->from_input = has_input;
  if (has_list) {
    sp->known = 1;
    return om_sp_take(node, "split", a->split, a->n_split, sp->s, err, errlen);
  }
  return 0;
}

/* Input 1 (split) read into s: a 1-D list of n sizes; an empty list sets *empty (the even split, as stock ORT
 * takes it). */
static int om_sp_read(const om_node* node, const void* data, const int64_t* shape, size_t rank, int64_t* s,
                      int* empty, char* err, size_t errlen) {
  const char* opn = om_op_row(node->op)->name;
  if (rank != 1)
    OM_FAIL_MSG("node '%s' (op %s): input 1 (split) must be 1-D, it has rank %zu", node->name, opn, rank);
  size_t len = (size_t)shape[0];
  *empty = len == 0;
  if (*empty) return 0;
  if (len != node->n_outputs)
    OM_FAIL_MSG("node '%s' (op %s): input 1 (split) has %zu entries, the node has %zu outputs", node->name, opn, len,
               node->n_outputs);
  int64_t v[OM_MAX_OUTPUTS];
  memcpy(v, data, len * sizeof(int64_t));
  return om_sp_take(node, "input 1 (split)", v, len, s, err, errlen);
}

static int om_sp_set_constant(om_node* node, size_t k, const void* data, const int64_t* shape, size_t rank,
                              char* err, size_t errlen) {
  om_split_node* sp = node->impl;
  if (k != 1 || !sp->from_input) return 0;
  int empty = 0;
  if (om_sp_read(node, data, shape, rank, sp->s, &empty, err, errlen) != 0) return -1;
  sp->known = 1;
  if (empty) sp->rule = OM_SPLIT_EVEN;
  return 0;
}

static int om_sp_shape_input(const om_node* node, size_t k) {
  const om_split_node* sp = node->impl;
  return k == 1 && sp->from_input && !sp->known;
}

static int om_sp_check_ranks(const om_node* node, size_t n_inputs, const size_t* ranks, char* err, size_t errlen) {
  return om_axis_check_input0(node, ((const om_split_node*)node->impl)->axis, n_inputs, ranks, err, errlen);
}

/* The sizes s[0 .. n) for the call io, whose input 0 has D on the axis: 0, or -1 with a message in io->err. */
static int om_sp_sizes(const om_node* node, const om_node_io* io, int64_t D, int64_t* s) {
  const om_split_node* sp = node->impl;
  const char* opn = om_op_row(node->op)->name;
  char* err = io->err;
  size_t errlen = io->errlen, n = node->n_outputs;
  int rule = sp->rule;
  if (rule == OM_SPLIT_LIST && sp->known) memcpy(s, sp->s, n * sizeof *s);
  else if (rule == OM_SPLIT_LIST && io->shapes[1]) {
    int empty = 0;
    if (om_sp_read(node, io->data[1], io->shapes[1], io->ranks[1], s, &empty, err, errlen) != 0) return -1;
    if (empty) rule = OM_SPLIT_EVEN;
  } else if (rule == OM_SPLIT_LIST) {
    rule = OM_SPLIT_EVEN; /* input 1 absent in this call */
  }
  if (rule == OM_SPLIT_EVEN) {
    if (D % (int64_t)n != 0)
      OM_FAIL_MSG("node '%s' (op %s): dimension %lld on the axis does not split evenly into %zu outputs", node->name,
                 opn, (long long)D, n);
    for (size_t k = 0; k < n; k++) s[k] = D / (int64_t)n;
    return 0;
  }
  if (rule == OM_SPLIT_CHUNKS) {
    int64_t m = (int64_t)n, c = D / m + (D % m != 0);
    int64_t last = (m - 1 > 0 && c > INT64_MAX / (m - 1)) ? -1 : D - c * (m - 1);
    if (last < 1)
      OM_FAIL_MSG("node '%s' (op %s): dimension %lld on the axis cannot be cut into num_outputs = %lld chunks of "
                 "%lld with a last one of at least 1", node->name, opn, (long long)D, (long long)m, (long long)c);
    for (size_t k = 0; k + 1 < n; k++) s[k] = c;
    s[n - 1] = last;
    return 0;
  }
  int64_t left = D;
  for (size_t k = 0; k < n; k++) {
    if (s[k] > left) left = -1;
    if (left < 0) break;
    left -= s[k];
  }
  if (left != 0)
    OM_FAIL_MSG("node '%s' (op %s): the sizes in split do not add up to dimension %lld on the axis", node->name, opn,
               (long long)D);
  return 0;
}

static int om_sp_shapes(const om_node* node, const om_node_io* io) {
  const om_split_node* sp = node->impl;
  size_t r = io->ranks[0];
  int64_t a, s[OM_MAX_OUTPUTS];
  if (om_axis_in_range(node, sp->axis, r, "axis", &a, io->err, io->errlen) != 0) return -1;
  if (om_sp_sizes(node, io, io->shapes[0][a], s) != 0) return -1;
  for (size_t o = 0; o < io->n_outputs; o++) {
    memcpy(io->out_shapes + o * OM_MAX_RANK, io->shapes[0], r * sizeof(int64_t));
    io->out_shapes[o * OM_MAX_RANK + a] = s[o];
    io->out_ranks[o] = r;
  }
  return 0;
}

typedef struct om_split_task {
  const char* src;
  char* const* outs;
  size_t n_outs;
  const size_t* at;    /* bytes into an input row where output k's piece starts */
  const size_t* bytes; /* bytes of output k's piece in a row (0: not written) */
  size_t row;          /* bytes of an input row */
  size_t rows, block;  /* rows, and rows per block */
} om_split_task;

static void om_split_block(void* vt, size_t i) {
  const om_split_task* t = vt;
  size_t end, b = om_chunk_begin(i, t->block, t->rows, &end);
  for (size_t k = 0; k < t->n_outs; k++) {
    size_t len = t->bytes[k];
    if (!len) continue;
    for (size_t o = b; o < end; o++) memcpy(t->outs[k] + o * len, t->src + o * t->row + t->at[k], len);
  }
}

static int om_sp_run(const om_node* node, const om_node_io* io) {
  const om_split_node* sp = node->impl;
  size_t r = io->ranks[0], esz = om_type_size(node->type);
  int64_t a, s[OM_MAX_OUTPUTS];
  if (om_axis_in_range(node, sp->axis, r, "axis", &a, io->err, io->errlen) != 0) return -1;
  if (om_sp_sizes(node, io, io->shapes[0][a], s) != 0) return -1;
  size_t rows = om_shape_count(io->shapes[0], (size_t)a);
  size_t inner = om_shape_count(io->shapes[0] + a + 1, r - (size_t)a - 1) * esz;
  size_t at[OM_MAX_OUTPUTS], bytes[OM_MAX_OUTPUTS], pos = 0;
  for (size_t k = 0; k < io->n_outputs; k++) {
    at[k] = pos;
    bytes[k] = io->outs[k] ? (size_t)s[k] * inner : 0; /* a zero-size output is never written */
    pos += (size_t)s[k] * inner;
  }
  size_t row = (size_t)io->shapes[0][a] * inner;
  if (!rows || !row) return 0;
  size_t block = row >= OM_SPLIT_BLOCK_BYTES ? 1 : OM_SPLIT_BLOCK_BYTES / row;
  om_split_task t = {io->data[0], (char* const*)io->outs, io->n_outputs, at, bytes, row, rows, block};
  om_parallel_ieee(io->parallel_for, io->host_ctx, (rows + block - 1) / block, om_split_block, &t);
  return 0;
}

const om_family om_family_split = {sizeof(om_split_node), om_sp_create,       om_sp_shapes,      om_sp_run,
                                   om_sp_set_constant,    om_sp_shape_input, NULL,              om_sp_check_ranks};
