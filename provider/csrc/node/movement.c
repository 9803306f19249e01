/* movement.c - the strided copy of the data-movement families (movement.h). */
#include "movement.h"

#include "kernels/copy_strided.h"
#include "parallel.h"

/* Output elements per parallel chunk. */
#define OM_MOVE_CHUNK ((size_t)1 << 16)

void om_row_major_strides(const int64_t* dims, size_t rank, int64_t* stride) {
  int64_t s = 1;
  for (size_t d = rank; d-- > 0;) {
    stride[d] = s;
    s *= dims[d];
  }
}

typedef struct om_move_task {
  om_copy_plan plan;
  void* dst;
  const void* src;
  size_t count;
} om_move_task;

/* Output elements [b, e) (om_parallel_ranges). */
static int om_move_range(const void* args, size_t b, size_t e) {
  const om_move_task* t = args;
  om_copy_run(&t->plan, t->dst, t->src, b, e);
  return 0;
}

void om_movement_copy(const om_node* node, const om_node_io* io, const void* src, const int64_t* stride) {
  om_movement_copy_walk(node, io, src, io->out_ranks[0], io->out_shapes, stride);
}

void om_movement_copy_walk(const om_node* node, const om_node_io* io, const void* src, size_t rank,
                           const int64_t* dims, const int64_t* stride) {
  om_movement_copy_into(node, io, io->outs[0], src, rank, dims, stride);
}

void om_movement_copy_into(const om_node* node, const om_node_io* io, void* dst, const void* src, size_t rank,
                           const int64_t* dims, const int64_t* stride) {
  om_move_task t;
  t.count = om_shape_count(dims, rank);
  if (!t.count) return;
  om_copy_plan_make(&t.plan, om_type_size(node->type), rank, dims, stride);
  t.dst = dst;
  t.src = src;
  (void)om_parallel_ranges(io->parallel_for, io->host_ctx, t.count, OM_MOVE_CHUNK, om_move_range, &t); /* never fails */
}
