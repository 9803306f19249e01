/* copy_strided.h - copies of whole elements (1, 2, 4 or 8 bytes) from a strided source into a contiguous
 * destination: the one kernel of the data-movement ops (Transpose, Slice, Expand). The bits of each element are
 * moved as they are (NaN payloads included); nothing is computed. Knows nothing of nodes, shapes' meaning or ORT.
 */
#ifndef OM_COPY_STRIDED_H
#define OM_COPY_STRIDED_H

#include <stddef.h>
#include <stdint.h>

#define OM_COPY_MAX_RANK 64

/* A walk of a source tensor in the row-major order of dims: element i of the destination is the source
 * element at sum(index[d] * stride[d]) (strides in elements; 0 repeats an element, negative walks back). */
typedef struct om_copy_plan {
  size_t esz;                       /* bytes per element: 1, 2, 4 or 8 */
  size_t rank;                      /* merged rank, >= 1 */
  int64_t dims[OM_COPY_MAX_RANK];   /* merged dimensions, each >= 1 (or one 0: nothing to copy) */
  int64_t stride[OM_COPY_MAX_RANK]; /* source strides in elements */
} om_copy_plan;

/* Plan the walk of dims[0 .. rank) (rank <= OM_COPY_MAX_RANK) with the source's element strides: size-1
 * dimensions dropped, neighbours the source walks as one merged. */
void om_copy_plan_make(om_copy_plan* plan, size_t esz, size_t rank, const int64_t* dims, const int64_t* stride);

/* Destination elements [begin, end) (flat indices in the walk's order) from src: dst + begin * esz onwards. */
void om_copy_run(const om_copy_plan* plan, void* dst, const void* src, size_t begin, size_t end);

#endif
