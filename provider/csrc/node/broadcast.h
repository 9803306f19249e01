/* broadcast.h - NumPy broadcasting of up to OM_MAX_OPERANDS operands onto a contiguous output.
 *
 * A plan drops the output's size-1 dimensions, merges neighbours that every operand walks contiguously (or
 * not at all), and leaves an innermost dimension that each operand reads either element by element (stride 1)
 * or as one repeated element (stride 0). Walking any flat range [start, end) of the output then yields runs
 * that a kernel can take whole. Knows nothing of ORT or of element types beyond their size.
 */
#ifndef OM_BROADCAST_H
#define OM_BROADCAST_H

#include <stddef.h>
#include <stdint.h>

#include "onemodel.h"

#define OM_MAX_RANK OM_NODE_MAX_RANK
#define OM_MAX_OPERANDS 3

typedef struct om_plan {
  size_t rank;                                 /* merged rank, >= 1 */
  size_t n_operands;
  int64_t dims[OM_MAX_RANK];                   /* merged output dimensions */
  int64_t stride[OM_MAX_OPERANDS][OM_MAX_RANK]; /* element strides of each operand in each merged dimension */
} om_plan;

/* Output shape of broadcasting `n` shapes; returns 0, or -1 with a message naming the clash. */
int om_broadcast_shape(size_t n, const int64_t* const* shapes, const size_t* ranks, int64_t* out_shape,
                       size_t* out_rank, char* err, size_t errlen);

/* Plan the walk of `n` operands (each broadcastable to out_shape) over the output. */
void om_plan_make(om_plan* plan, size_t n, const int64_t* const* shapes, const size_t* ranks,
                  const int64_t* out_shape, size_t out_rank);

/* One run: `len` outputs starting at flat index `pos`; operand k starts at element offset off[k] and is a
 * single repeated element when bit k of bcast is set. */
typedef void (*om_run_fn)(void* ctx, const int64_t* off, unsigned bcast, size_t pos, size_t len);

/* Walk the flat output range [start, end) in runs. */
void om_plan_walk(const om_plan* plan, size_t start, size_t end, om_run_fn run, void* ctx);

#endif
