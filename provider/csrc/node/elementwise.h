/* elementwise.h - the element-wise family (elementwise.c): what node.c calls for a node of no structured family
 * (node_family.h). Knows nothing of ORT. */
#ifndef OM_NODE_ELEMENTWISE_H
#define OM_NODE_ELEMENTWISE_H

#include <stddef.h>
#include <stdint.h>

#include "onemodel.h"

/* Bind node (its op, types, opset, mode and path set by om_node_create) to its kernels: check its attributes,
 * set its parameters, kind, output type and chunk size. 0, or -1 with a message naming node, op and problem. */
int om_elementwise_create(om_node* node, const om_attrs* attrs, const int* input_types, char* err, size_t errlen);
/* om_node_output_shape for an element-wise node: NumPy broadcasting of the inputs that shape the output. */
int om_elementwise_output_shape(const om_node* node, size_t n_inputs, const int64_t* const* shapes,
                                const size_t* ranks, int64_t* out_shape, size_t* out_rank, char* err, size_t errlen);
/* om_node_run_shaped for an element-wise node whose output shape the caller has derived. */
int om_elementwise_run(const om_node* node, size_t n_inputs, const void* const* data, const int64_t* const* shapes,
                       const size_t* ranks, void* out, const int64_t* out_shape, size_t out_rank,
                       om_parallel_for_fn parallel_for, void* host_ctx, char* err, size_t errlen);
/* 0 when every input the node reads has data, else -1 with a message naming node, op and input. */
int om_elementwise_inputs_present(const om_node* node, size_t n_inputs, const void* const* data, char* err,
                                  size_t errlen);
/* One tile of a fused chain (elementwise_chain.c): the node's output over `len` elements as a one-dimensional
 * problem, on this thread, in the caller's floating-point environment. Each input is either of shape [len]
 * (ranks 1) or a single value (rank 0); the element arithmetic is the node's own, element by element, so every
 * element gets the bits om_elementwise_run gives it. */
void om_elementwise_run_tile(const om_node* node, size_t n_inputs, const void* const* data,
                             const int64_t* const* shapes, const size_t* ranks, void* out, size_t len);

#endif
