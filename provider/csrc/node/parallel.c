/* parallel.c - om_parallel_ieee (parallel.h). */
#include "parallel.h"

#include "isa/fpenv.h"

typedef struct om_ieee_task {
  void (*fn)(void*, size_t);
  void* ctx;
} om_ieee_task;

static void om_ieee_chunk(void* vtask, size_t i) {
  const om_ieee_task* t = vtask;
  om_fpenv saved = om_fpenv_enter();
  t->fn(t->ctx, i);
  om_fpenv_leave(saved);
}

void om_parallel_ieee(om_parallel_for_fn parallel_for, void* host_ctx, size_t total, void (*fn)(void*, size_t),
                      void* ctx) {
  om_ieee_task t = {fn, ctx};
  if (parallel_for && total > 1) parallel_for(host_ctx, om_ieee_chunk, total, &t);
  else
    for (size_t i = 0; i < total; i++) om_ieee_chunk(&t, i);
}

typedef struct om_ranges_job {
  om_range_fn fn;
  const void* args;
  size_t total, chunk;
  int failed;
} om_ranges_job;

static void om_ranges_chunk(void* vjob, size_t i) {
  om_ranges_job* j = vjob;
  size_t e, b = om_chunk_begin(i, j->chunk, j->total, &e);
  if (j->fn(j->args, b, e) != 0) __atomic_store_n(&j->failed, 1, __ATOMIC_RELAXED);
}

int om_parallel_ranges(om_parallel_for_fn parallel_for, void* host_ctx, size_t total, size_t chunk, om_range_fn fn,
                       const void* args) {
  om_ranges_job j = {fn, args, total, chunk ? chunk : 1, 0};
  om_parallel_ieee(parallel_for, host_ctx, (total + j.chunk - 1) / j.chunk, om_ranges_chunk, &j);
  return j.failed ? -1 : 0;
}
