/* node_gather_elements.c - GatherElements (opset 11): output[i] = data[i with its `axis` coordinate replaced by
 * indices[i]] for every index i of indices (same rank as data; other dimensions at most data's), an index counting
 * from the end when negative (docs/data-movement.md). The output's rows (its last dimension) are copied in fixed
 * chunks on the host's threads, each index checked before it is used: one out of range stops the run with an error
 * naming the first such index in indices' order. Nothing is computed on the elements.
 */
#include <stdio.h>
#include <string.h>

#include "core/om_ops.h"
#include "index_input.h"
#include "int_input.h"
#include "movement.h"
#include "node_family.h"
#include "parallel.h"

/* Output elements a parallel chunk of rows writes, at least (one row at least). */
#define OM_GE_CHUNK_ELEMENTS ((size_t)1 << 15)

typedef struct om_gather_elements_node {
  int64_t axis;
  int int32_indices; /* indices int32 (else int64) */
} om_gather_elements_node;

static int om_ge_create(om_node* node, const om_attrs* a, char* err, size_t errlen) {
  (void)err; /* cannot fail: the op table has checked the index type */
  (void)errlen;
  *(om_gather_elements_node*)node->impl = (om_gather_elements_node){a->has_axis ? a->axis : 0,
                                                                    node->input_types[1] == OM_T_INT32};
  return 0;
}

static int om_ge_ranks(const om_node* node, size_t r, size_t q, char* err, size_t errlen) {
  const char* opn = om_op_row(node->op)->name;
  int64_t axis;
  if (r == 0) OM_FAIL_MSG("node '%s' (op %s): input 0 (data) has rank 0; %s needs rank 1 or more", node->name, opn, opn);
  if (q != OM_RANK_UNKNOWN && q != r)
    OM_FAIL_MSG("node '%s' (op %s): input 1 (indices) has rank %zu, input 0 (data) rank %zu; they must be equal",
                node->name, opn, q, r);
  return om_axis_in_range(node, ((const om_gather_elements_node*)node->impl)->axis, r, "axis", &axis, err, errlen);
}

static int om_ge_check_ranks(const om_node* node, size_t n_inputs, const size_t* ranks, char* err, size_t errlen) {
  if (n_inputs < 2 || ranks[0] == OM_RANK_UNKNOWN) return 0;
  return om_ge_ranks(node, ranks[0], ranks[1], err, errlen);
}

static int om_ge_shapes(const om_node* node, const om_node_io* io) {
  size_t r = io->ranks[0];
  if (om_ge_ranks(node, r, io->ranks[1], io->err, io->errlen) != 0) return -1;
  const om_gather_elements_node* g = node->impl;
  size_t axis = (size_t)(g->axis < 0 ? g->axis + (int64_t)r : g->axis);
  for (size_t d = 0; d < r; d++)
    if (d != axis && io->shapes[1][d] > io->shapes[0][d]) {
      snprintf(io->err, io->errlen, "node '%s' (op %s): input 1 (indices) has %lld along dimension %zu, more than "
               "input 0 (data)'s %lld", node->name, om_op_row(node->op)->name, (long long)io->shapes[1][d], d,
               (long long)io->shapes[0][d]);
      return -1;
    }
  memcpy(io->out_shapes, io->shapes[1], r * sizeof(int64_t));
  io->out_ranks[0] = r;
  return 0;
}

typedef struct om_ge_task {
  const char* data;
  const void* idx;
  char* out;
  size_t r, axis, esz, len; /* rank, axis, element bytes, row length (indices' last dimension) */
  int int32_indices;
  int64_t size;                    /* data's dimension `axis` */
  const int64_t* ishape;           /* indices' shape */
  int64_t dstride[OM_MAX_RANK];    /* data's element strides */
} om_ge_task;

/* One output row, checking each index as it goes: out[j] = data[base + j + v'(j) * as] for j < len (step 1), or
 * data[base + v'(j)] when the axis is the last dimension (step 0), v' the index counted from 0; 1 at the first
 * index out of range. */
#define OM_GE_ROW(T, IT)                                                          \
  do {                                                                            \
    const T* src = (const T*)t->data + base;                                      \
    const IT* ix = (const IT*)t->idx + g * t->len;                                \
    T* dst = (T*)t->out + g * t->len;                                             \
    const uint64_t span = 2 * (uint64_t)t->size;                                  \
    const uint64_t size = (uint64_t)t->size;                                      \
    if (step) { /* v < -size or v >= size: (uint64_t)v + size >= span */          \
      for (size_t j = 0; j < t->len; j++) {                                       \
        int64_t v = ix[j];                                                        \
        if ((uint64_t)v + size >= span) return 1;                                 \
        dst[j] = src[(int64_t)j + (v < 0 ? v + t->size : v) * as];                \
      }                                                                           \
    } else {                                                                      \
      size_t j = 0;                                                               \
      for (; j + 4 <= t->len; j += 4) { /* four checks, one branch */             \
        int64_t v0 = ix[j], v1 = ix[j + 1], v2 = ix[j + 2], v3 = ix[j + 3];       \
        if (((uint64_t)v0 + size >= span) | ((uint64_t)v1 + size >= span) |       \
            ((uint64_t)v2 + size >= span) | ((uint64_t)v3 + size >= span))        \
          return 1;                                                               \
        dst[j] = src[v0 < 0 ? v0 + t->size : v0];                                 \
        dst[j + 1] = src[v1 < 0 ? v1 + t->size : v1];                             \
        dst[j + 2] = src[v2 < 0 ? v2 + t->size : v2];                             \
        dst[j + 3] = src[v3 < 0 ? v3 + t->size : v3];                             \
      }                                                                           \
      for (; j < t->len; j++) {                                                   \
        int64_t v = ix[j];                                                        \
        if ((uint64_t)v + size >= span) return 1;                                 \
        dst[j] = src[v < 0 ? v + t->size : v];                                    \
      }                                                                           \
    }                                                                             \
  } while (0)

#define OM_GE_ROW_T(T)                                  \
  do {                                                  \
    if (t->int32_indices) OM_GE_ROW(T, int32_t);  \
    else OM_GE_ROW(T, int64_t);                         \
  } while (0)

/* Output rows [begin, end): 0, or 1 when an index is out of range (the message is made after the run). */
static int om_ge_rows(const void* args, size_t begin, size_t end) {
  const om_ge_task* t = args;
  const int64_t as = t->dstride[t->axis], step = t->axis == t->r - 1 ? 0 : 1;
  for (size_t g = begin; g < end; g++) {
    int64_t base = 0; /* the row's data offset, the axis coordinate 0 */
    size_t rest = g;
    for (size_t d = t->r - 1; d-- > 0;) {
      size_t i = rest % (size_t)t->ishape[d];
      rest /= (size_t)t->ishape[d];
      if (d != t->axis) base += (int64_t)i * t->dstride[d];
    }
    OM_BY_ELEMENT_SIZE(t->esz, OM_GE_ROW_T);
  }
  return 0;
}

static int om_ge_run(const om_node* node, const om_node_io* io) {
  const om_gather_elements_node* g = node->impl;
  size_t r = io->ranks[0], n = om_shape_count(io->shapes[1], r);
  om_ge_task t = {io->data[0], io->data[1], io->outs[0], r, 0, om_type_size(node->type), (size_t)io->shapes[1][r - 1],
                  g->int32_indices, 0, io->shapes[1], {0}};
  t.axis = (size_t)(g->axis < 0 ? g->axis + (int64_t)r : g->axis);
  t.size = io->shapes[0][t.axis];
  if (!n) return 0;
  int bad = !io->outs[0]; /* no output wanted: only the check */
  if (!bad) {
    om_row_major_strides(io->shapes[0], r, t.dstride);
    size_t chunk = t.len >= OM_GE_CHUNK_ELEMENTS ? 1 : OM_GE_CHUNK_ELEMENTS / t.len;
    bad = om_parallel_ranges(io->parallel_for, io->host_ctx, n / t.len, chunk, om_ge_rows, &t) != 0;
  }
  /* an index out of range somewhere: the first one in indices' order names the error */
  if (bad && om_indices_check(node, node->type1, io->data[1], n, t.size, "axis", t.axis, io->err, io->errlen) != 0)
    return -1;
  return 0;
}

const om_family om_family_gather_elements = {sizeof(om_gather_elements_node), om_ge_create, om_ge_shapes, om_ge_run,
                                             NULL, NULL, NULL, om_ge_check_ranks};
