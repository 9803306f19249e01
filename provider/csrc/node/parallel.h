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

#endif
