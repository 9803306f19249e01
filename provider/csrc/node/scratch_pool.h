/* scratch_pool.h - scratch blocks a node keeps between runs (a block is taken by one task at a time: atomic
 * exchanges), so that a run touches memory it already owns instead of fresh pages (a malloc of 128 KiB or more
 * is a fresh mapping, page faults included, on every run); as many blocks as ran at once, at most
 * OM_SCRATCH_POOL. Used by node_qconv.c and node_conv_transpose.c. */
#ifndef OM_NODE_SCRATCH_POOL_H
#define OM_NODE_SCRATCH_POOL_H

#include <stddef.h>

enum { OM_SCRATCH_POOL = 16, OM_SCRATCH_HEAD = 64 /* bytes before a block's data: its size */ };
typedef struct om_scratch_pool {
  void* slot[OM_SCRATCH_POOL];
} om_scratch_pool;

/* A block of at least `bytes` bytes, its data 64-byte aligned at the result + OM_SCRATCH_HEAD; NULL on out of
 * memory. */
void* om_scratch_take(om_scratch_pool* pool, size_t bytes);
/* Gives a block taken from the pool back (NULL: nothing); freed when every slot is full. */
void om_scratch_give(om_scratch_pool* pool, void* block);
/* Frees the pool's blocks (the node's destroy). */
void om_scratch_pool_free(om_scratch_pool* pool);

#endif
