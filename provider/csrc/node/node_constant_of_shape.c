/* node_constant_of_shape.c - ConstantOfShape (opset 9 on): an output of the shape input 0 gives (int64, 1-D; an
 * empty list: a scalar), every element the one element of the tensor attribute `value` (float +0.0 when absent),
 * of that element's type: float, double, float16, bfloat16 (opset 20 on), int8 ... int64, uint8 ... uint64 or
 * bool. No arithmetic: the element's bytes are copied as the attribute stores them (NaN payloads and -0.0 kept),
 * in fixed chunks of 65,536 output elements (the last one short), each filled by doubling copies up to a 4 KiB
 * block, then by copies of that block. Input 1, when given, is the rewriter's empty witness of the output type
 * (docs/data-movement.md).
 */
#include <stdio.h>
#include <string.h>

#include "core/om_ops.h"
#include "int_input.h"
#include "node_family.h"
#include "parallel.h"

#define OM_COS_CHUNK ((size_t)1 << 16) /* output elements per parallel chunk */
#define OM_COS_BLOCK ((size_t)4096) /* bytes of the block a chunk is filled from; every element size divides it */
#define OM_COS_MAX_BYTES ((uint64_t)1 << 62) /* an output of this many bytes or more is refused */

typedef struct om_cos_node {
  om_int_inputs ii;         /* first: input 0, the shape (int_input.h) */
  size_t esz;               /* bytes of an output element */
  unsigned char value[8];   /* the element's bytes */
} om_cos_node;

static int om_cos_create(om_node* node, const om_attrs* a, char* err, size_t errlen) {
  om_cos_node* c = node->impl;
  const char* op = om_op_row(node->op)->name;
  int type = OM_T_FLOAT; /* `value` absent: float +0.0, zeroed bytes */
  if (a->has_value) {
    if (a->value_n != 1)
      OM_FAIL_MSG("node '%s' (op %s): attribute 'value' must have exactly one element, it has %lld", node->name, op,
                  (long long)a->value_n);
    type = a->value_type;
    if (type <= 0 || type >= 32 || !(OM_TS_STORED & OM_TB(type)))
      OM_FAIL_MSG("node '%s' (op %s): unsupported element type %s for attribute 'value' (supported: every numeric "
                  "type, bool and bfloat16)", node->name, op, type > 0 ? om_type_name(type) : "unknown");
    if (type == OM_T_BFLOAT16 && node->opset > 0 && node->opset < 20)
      OM_FAIL_MSG("node '%s' (op %s): element type bfloat16 of attribute 'value' needs opset 20 or later (opset %d)",
                  node->name, op, node->opset);
    memcpy(c->value, a->value_bytes, om_type_size(type));
  }
  int witness = node->n_inputs > 1 ? node->input_types[1] : 0;
  if (witness && witness != type)
    OM_FAIL_MSG("node '%s' (op %s): input 1 (the output type's witness) has element type %s, attribute 'value' has %s",
                node->name, op, om_type_name(witness), om_type_name(type));
  c->esz = om_type_size(type);
  node->out_types[0] = type;
  return om_int_inputs_create_one(node, 0, "shape", err, errlen);
}

/* The output shape from the shape list `shape`: 0 with out_shape written, or -1 with a message for a negative
 * dimension or an output of OM_COS_MAX_BYTES or more. */
static int om_cos_dims(const om_node* node, const om_int_list* shape, int64_t* out_shape, char* err, size_t errlen) {
  const om_cos_node* c = node->impl;
  const char* op = om_op_row(node->op)->name;
  int empty = 0; /* an empty dimension anywhere: no bytes, however long the others */
  for (size_t d = 0; d < shape->n; d++) {
    if (shape->v[d] < 0)
      OM_FAIL_MSG("node '%s' (op %s): input 0 (shape) has a negative dimension %lld at index %zu", node->name, op,
                  (long long)shape->v[d], d);
    out_shape[d] = shape->v[d];
    empty |= shape->v[d] == 0;
  }
  uint64_t bytes = c->esz;
  for (size_t d = 0; d < shape->n && !empty; d++) {
    uint64_t n = (uint64_t)shape->v[d];
    if (bytes > OM_COS_MAX_BYTES / n) {
      char text[256];
      om_shape_text(shape->v, shape->n, text, sizeof text);
      OM_FAIL_MSG("node '%s' (op %s): output shape %s of %s needs 2^62 bytes or more", node->name, op, text,
                  om_type_name(node->out_types[0]));
    }
    bytes *= n;
  }
  return 0;
}

static int om_cos_shapes(const om_node* node, const om_node_io* io) {
  om_int_list buf;
  const om_int_list* shape = om_int_inputs_get(node, io, 0, &buf);
  if (!shape) return -1;
  if (om_cos_dims(node, shape, io->out_shapes, io->err, io->errlen) != 0) return -1;
  io->out_ranks[0] = shape->n;
  return 0;
}

/* A constant shape: read once (int_input.h), and checked at creation rather than at the first run. */
static int om_cos_set_constant(om_node* node, size_t k, const void* data, const int64_t* shape, size_t rank, char* err,
                               size_t errlen) {
  if (om_int_inputs_set_constant(node, k, data, shape, rank, err, errlen) != 0) return -1;
  const om_cos_node* c = node->impl;
  int64_t dims[OM_MAX_RANK];
  return k == 0 && c->ii.v[0].known ? om_cos_dims(node, &c->ii.v[0], dims, err, errlen) : 0;
}

/* The shape input's declared rank must be 1. */
static int om_cos_check_ranks(const om_node* node, size_t n_inputs, const size_t* ranks, char* err, size_t errlen) {
  if (n_inputs > 0 && ranks[0] != OM_RANK_UNKNOWN && ranks[0] != 1)
    OM_FAIL_MSG("node '%s' (op %s): input 0 (shape) must be 1-D, it has rank %zu", node->name,
                om_op_row(node->op)->name, ranks[0]);
  return 0;
}

typedef struct om_cos_job {
  unsigned char* out;
  size_t esz;
  const unsigned char* value;
} om_cos_job;

/* Elements [begin, end): the element once, then the bytes written so far copied after themselves, doubling, up
 * to OM_COS_BLOCK bytes; then that first block (in L1) copied after itself until the range is full: every byte
 * is written once and read back only from the block (doubling all the way read half the range back). */
static int om_cos_fill(const void* args, size_t begin, size_t end) {
  const om_cos_job* j = args;
  unsigned char* dst = j->out + begin * j->esz;
  size_t total = (end - begin) * j->esz, done = j->esz;
  size_t block = total < OM_COS_BLOCK ? total : OM_COS_BLOCK; /* a whole number of elements: esz divides it */
  memcpy(dst, j->value, j->esz);
  while (done < block) {
    size_t n = done < block - done ? done : block - done;
    memcpy(dst + done, dst, n);
    done += n;
  }
  for (; done < total; done += block) memcpy(dst + done, dst, block < total - done ? block : total - done);
  return 0;
}

static int om_cos_run(const om_node* node, const om_node_io* io) {
  const om_cos_node* c = node->impl;
  size_t n = om_shape_count(io->out_shapes, io->out_ranks[0]);
  if (!io->outs[0] || n == 0) return 0;
  om_cos_job j = {io->outs[0], c->esz, c->value};
  return om_parallel_ranges(io->parallel_for, io->host_ctx, n, OM_COS_CHUNK, om_cos_fill, &j);
}

const om_family om_family_constant_of_shape = {sizeof(om_cos_node), om_cos_create,       om_cos_shapes,
                                               om_cos_run,          om_cos_set_constant, om_int_inputs_shape_input,
                                               NULL,                om_cos_check_ranks};
