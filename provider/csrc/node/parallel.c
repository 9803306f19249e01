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
