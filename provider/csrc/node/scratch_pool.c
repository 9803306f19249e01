/* scratch_pool.c - scratch blocks kept between runs (scratch_pool.h). */
#include "scratch_pool.h"

#include <stdlib.h>

void* om_scratch_take(om_scratch_pool* pool, size_t bytes) {
  for (int i = 0; i < OM_SCRATCH_POOL; i++) {
    void* p = __atomic_exchange_n(&pool->slot[i], NULL, __ATOMIC_ACQ_REL);
    if (p && *(size_t*)p >= bytes) return p;
    free(p);
  }
  void* p = aligned_alloc(OM_SCRATCH_HEAD,
                          (OM_SCRATCH_HEAD + bytes + OM_SCRATCH_HEAD - 1) / OM_SCRATCH_HEAD * OM_SCRATCH_HEAD);
  if (p) *(size_t*)p = bytes;
  return p;
}

void om_scratch_give(om_scratch_pool* pool, void* p) {
  for (int i = 0; p && i < OM_SCRATCH_POOL; i++) {
    void* empty = NULL;
    if (__atomic_compare_exchange_n(&pool->slot[i], &empty, p, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) return;
  }
  free(p);
}

void om_scratch_pool_free(om_scratch_pool* pool) {
  for (int i = 0; i < OM_SCRATCH_POOL; i++) free(pool->slot[i]);
}
