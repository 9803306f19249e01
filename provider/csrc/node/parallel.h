/* parallel.h - the parallel-for every node family splits its work with: fixed chunks on the host's threads,
 * each under the IEEE default floating-point environment. Knows nothing of ORT. */
#ifndef OM_NODE_PARALLEL_H
#define OM_NODE_PARALLEL_H

#include <stddef.h>

#include "core/om_exec.h"

/* Run fn(ctx, i) for i in [0, total) through the host's parallel-for (or here when it is NULL or total is 1),
 * each call under the IEEE default floating-point environment (round to nearest even, no flush-to-zero), the
 * caller's restored afterwards. */
void om_parallel_ieee(om_parallel_for_fn parallel_for, void* host_ctx, size_t total, void (*fn)(void*, size_t),
                      void* ctx);

/* The first index of chunk i when [0, total) is split into chunks of `chunk`; *end the end of the chunk (the
 * last one may be short). */
static inline size_t om_chunk_begin(size_t i, size_t chunk, size_t total, size_t* end) {
  size_t begin = i * chunk;
  *end = begin + chunk < total ? begin + chunk : total;
  return begin;
}

/* A range of units [begin, end) of a job's work: 0, or nonzero when it failed (out of memory). */
typedef int (*om_range_fn)(const void* args, size_t begin, size_t end);

/* Split [0, total) into fixed chunks of `chunk` units (at least 1; the last may be short) and run fn(args, begin,
 * end) on each through om_parallel_ieee. 0, or -1 when any chunk failed. The chunks depend only on total and
 * chunk, never on the threads. */
int om_parallel_ranges(om_parallel_for_fn parallel_for, void* host_ctx, size_t total, size_t chunk, om_range_fn fn,
                       const void* args);

#endif
