/* movement.h - what the data-movement families (node_transpose.c, node_slice.c, node_expand.c,
 * node_tile.c) share: a strided copy of input 0 into output 0 split into fixed chunks on the host's threads,
 * and the element strides of a row-major shape. Knows nothing of ORT.
 */
#ifndef OM_NODE_MOVEMENT_H
#define OM_NODE_MOVEMENT_H

#include <stddef.h>
#include <stdint.h>

#include "node_family.h"

/* M(T) with T the unsigned integer type of esz bytes (1, 2, 4, else 8): the element-by-element copies of the
 * data-movement families (DepthToSpace, SpaceToDepth, GatherElements), one loop per element size. */
#define OM_BY_ELEMENT_SIZE(esz, M) \
  do {                             \
    switch (esz) {                 \
      case 1: M(uint8_t); break;   \
      case 2: M(uint16_t); break;  \
      case 4: M(uint32_t); break;  \
      default: M(uint64_t); break; \
    }                              \
  } while (0)

/* The row-major element strides of dims[0 .. rank) into stride. */
void om_row_major_strides(const int64_t* dims, size_t rank, int64_t* stride);

/* Output 0 (shape io->out_shapes, rank io->out_ranks[0]) from src, whose element at output index i is at
 * sum(i[d] * stride[d]) elements from src. */
void om_movement_copy(const om_node* node, const om_node_io* io, const void* src, const int64_t* stride);

/* The same over a walk of its own: output 0, in row-major order, is the walk of dims[0 .. rank) (rank at most
 * OM_MAX_RANK, the element count that of output 0) over src with these element strides. */
void om_movement_copy_walk(const om_node* node, const om_node_io* io, const void* src, size_t rank,
                           const int64_t* dims, const int64_t* stride);

/* The same walk into dst (contiguous, node->type's elements) instead of output 0 (Einsum's operands laid out for
 * the matrix product). */
void om_movement_copy_into(const om_node* node, const om_node_io* io, void* dst, const void* src, size_t rank,
                           const int64_t* dims, const int64_t* stride);

#endif
