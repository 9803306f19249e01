/* node_reduce.h - a planned reduction run as a node's output 0, shared by the Reduce nodes (node_reduce.c) and
 * the global pooling nodes (node_pool.c), so that both give the same bits for the same reduction. */
#ifndef OM_NODE_REDUCE_H
#define OM_NODE_REDUCE_H

#include <stddef.h>
#include <stdint.h>

#include "node_family.h"

/* Reduce x (coalesced dims[0 .. c), mask[d] != 0: reduced; c <= OM_RED_MAX_RANK) by OM_RED_* red into
 * io->outs[0] with the node's type, path and mode, split over the outputs in fixed chunks with io's
 * parallel-for. 0, or -1 with a message naming node and op in io->err. */
int om_reduce_node_run(const om_node* node, const om_node_io* io, int red, size_t c, const int64_t* dims,
                       const uint8_t* mask, const void* x);

#endif
