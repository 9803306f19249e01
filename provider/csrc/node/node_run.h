/* node_run.h - the library's own entry to a node's computation, for the ORT glue (not part of onemodel.h's
 * interface). */
#ifndef OM_NODE_RUN_H
#define OM_NODE_RUN_H

#include "onemodel.h"

/* om_node_run for a caller that has just derived out_shape and out_rank itself with om_node_output_shape from
 * the same node, shapes and ranks (ort/kernel.c's compute): the same checks of the inputs' data and the same
 * computation, without deriving the output shape a second time to compare it with the buffer's. */
int om_node_run_shaped(const om_node* node, size_t n_inputs, const void* const* data, const int64_t* const* shapes,
                       const size_t* ranks, void* out, const int64_t* out_shape, size_t out_rank,
                       om_parallel_for_fn parallel_for, void* host_ctx, char* err, size_t errlen);

#endif
