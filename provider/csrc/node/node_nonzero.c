/* node_nonzero.c - NonZero (opsets 9, 13): the coordinates of input 0's nonzero elements, an int64 tensor of shape
 * [rank, count] whose column j holds the j-th nonzero element's index along each axis, elements in row-major
 * order (docs/data-movement.md). A rank-0 input reads as shape [1] (output [1, count], as stock ONNX Runtime and
 * NumPy's nonzero). Every stored type: an element is nonzero when its bits are not all zero, the sign bit left
 * out for the float types (so -0.0 is zero and NaN is not); nothing is computed on the elements.
 *
 * The output's length depends on the data: shapes counts on one thread; run splits the elements into fixed
 * blocks, counts each block, takes the running sum of the counts in block order and writes each block's
 * coordinates from its offset, the blocks on the host's threads.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/om_ops.h"
#include "node_family.h"
#include "parallel.h"

/* Elements per parallel block. */
#define OM_NZ_BLOCK ((size_t)1 << 16)

static int om_nz_create(om_node* node, const om_attrs* a, char* err, size_t errlen) {
  (void)a;
  (void)err;
  (void)errlen;
  node->out_types[0] = OM_T_INT64;
  return 0;
}

/* The mask of an element's bits that make it nonzero, by element size: the sign bit out for the float types. */
static uint64_t om_nz_mask(int type) {
  switch (type) {
    case OM_T_FLOAT16: case OM_T_BFLOAT16: return 0x7fffu;
    case OM_T_FLOAT: return 0x7fffffffu;
    case OM_T_DOUBLE: return 0x7fffffffffffffffu;
    default: return ~(uint64_t)0;
  }
}

typedef struct om_nz_scan {
  const unsigned char* x;
  size_t esz;
  uint64_t mask;
} om_nz_scan;

static int om_nz_is(const om_nz_scan* s, size_t i) {
  uint64_t v = 0;
  switch (s->esz) {
    case 1: v = s->x[i]; break;
    case 2: { uint16_t h; memcpy(&h, s->x + 2 * i, 2); v = h; break; }
    case 4: { uint32_t w; memcpy(&w, s->x + 4 * i, 4); v = w; break; }
    default: memcpy(&v, s->x + 8 * i, 8); break;
  }
  return (v & s->mask) != 0;
}

static size_t om_nz_count_range(const om_nz_scan* s, size_t begin, size_t end) {
  size_t c = 0;
  for (size_t i = begin; i < end; i++) c += (size_t)om_nz_is(s, i);
  return c;
}

static om_nz_scan om_nz_scan_of(const om_node* node, const void* x) {
  int t = node->type;
  om_nz_scan s = {x, om_type_size(t), om_nz_mask(t)};
  return s;
}

static int om_nz_shapes(const om_node* node, const om_node_io* io) {
  if (!io->data || !io->data[0]) {
    snprintf(io->err, io->errlen, "node '%s' (op %s): the output shape needs input 0's data", node->name,
             om_op_row(node->op)->name);
    return -1;
  }
  size_t r = io->ranks[0], n = om_shape_count(io->shapes[0], r);
  om_nz_scan s = om_nz_scan_of(node, io->data[0]);
  io->out_shapes[0] = r ? (int64_t)r : 1;
  io->out_shapes[1] = (int64_t)om_nz_count_range(&s, 0, n);
  io->out_ranks[0] = 2;
  return 0;
}

typedef struct om_nz_task {
  om_nz_scan s;
  const int64_t* shape;
  size_t rank, n, count;
  size_t* offset; /* per block: its first output column, then (write) unchanged */
  int64_t* y;
} om_nz_task;

static void om_nz_count_block(void* vt, size_t b) {
  om_nz_task* t = vt;
  size_t end, g = om_chunk_begin(b, OM_NZ_BLOCK, t->n, &end);
  t->offset[b] = om_nz_count_range(&t->s, g, end);
}

static void om_nz_write_block(void* vt, size_t b) {
  const om_nz_task* t = vt;
  size_t end, g = om_chunk_begin(b, OM_NZ_BLOCK, t->n, &end);
  size_t r = t->rank, col = t->offset[b];
  int64_t idx[OM_NODE_MAX_RANK];
  size_t rest = g; /* the block's first element's coordinates */
  for (size_t d = r; d-- > 0;) {
    idx[d] = (int64_t)(rest % (size_t)t->shape[d]);
    rest /= (size_t)t->shape[d];
  }
  for (size_t i = g; i < end; i++) {
    if (om_nz_is(&t->s, i)) {
      for (size_t d = 0; d < r; d++) t->y[d * t->count + col] = idx[d];
      col++;
    }
    for (size_t d = r; d-- > 0;) { /* the next element's coordinates */
      if (++idx[d] < t->shape[d]) break;
      idx[d] = 0;
    }
  }
}

static int om_nz_run(const om_node* node, const om_node_io* io) {
  size_t r = io->ranks[0];
  static const int64_t one = 1;
  om_nz_task t = {om_nz_scan_of(node, io->data[0]), r ? io->shapes[0] : &one, r ? r : 1, 0, 0, NULL, io->outs[0]};
  t.n = om_shape_count(t.shape, t.rank);
  t.count = (size_t)io->out_shapes[1];
  if (!t.count || !t.y) return 0;
  size_t blocks = (t.n + OM_NZ_BLOCK - 1) / OM_NZ_BLOCK;
  t.offset = malloc(blocks * sizeof *t.offset);
  if (!t.offset) {
    snprintf(io->err, io->errlen, "node '%s' (op %s): out of memory", node->name, om_op_row(node->op)->name);
    return -1;
  }
  om_parallel_ieee(io->parallel_for, io->host_ctx, blocks, om_nz_count_block, &t);
  size_t sum = 0;
  for (size_t b = 0; b < blocks; b++) { /* counts to offsets, in block order */
    size_t c = t.offset[b];
    t.offset[b] = sum;
    sum += c;
  }
  int ok = sum == t.count; /* the data changed between shapes and run: no partial answer */
  if (ok) om_parallel_ieee(io->parallel_for, io->host_ctx, blocks, om_nz_write_block, &t);
  free(t.offset);
  if (ok) return 0;
  snprintf(io->err, io->errlen, "node '%s' (op %s): input 0 changed between the output shape and the run",
           node->name, om_op_row(node->op)->name);
  return -1;
}

static int om_nz_shape_input(const om_node* node, size_t k) {
  (void)node;
  return k == 0;
}

const om_family om_family_nonzero = {0, om_nz_create, om_nz_shapes, om_nz_run, NULL, om_nz_shape_input, NULL, NULL};
