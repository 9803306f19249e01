/* ort_kernel.h - one ORT kernel over an om_node: created from an OrtKernelInfo, computed on an OrtKernelContext.
 * Shared by the custom-op path (custom_ops.c) and the execution-provider path (ep_kernels.c), so both read the same
 * attributes and run the same per-call code. Knows nothing of math. */
#ifndef OM_ORT_KERNEL_H
#define OM_ORT_KERNEL_H

#include "onemodel.h"
#include "ort_api.h"

typedef struct om_kernel om_kernel;

/* A kernel for row `op` of the op table: the node's name and input types from info, its attributes read as
 * om_attrs_read(attr_flags) does over `preset` (NULL: the defaults), and shape_ref nonzero to read input shapes
 * through GetTensorElementTypeAndShapeDataReference (API 24+). Returns NULL status and *out, or an error naming
 * the node, the op and the problem. */
OrtStatus* om_kernel_create(const OrtApi* api, const OrtKernelInfo* info, int op, unsigned attr_flags,
                            const om_attrs* preset, int shape_ref, om_kernel** out);
/* A kernel over `node` (owned from here on, destroyed on error too) whose inputs and outputs ORT passes in
 * another order: node input i is the context's input in_map[i] (-1: absent; OM_KERNEL_IN_ZERO: a one-element
 * zero of rank 0 the kernel feeds itself, a zero point the model leaves out, ep_qdq.c), node output o the
 * context's output out_map[o] (-1: not wanted). The execution provider's compiled nodes (ep_compile.c). */
#define OM_KERNEL_IN_ZERO (-2)
OrtStatus* om_kernel_wrap(const OrtApi* api, om_node* node, int shape_ref, const int* in_map, size_t n_in,
                          const int* out_map, size_t n_out, om_kernel** out);
/* Hand node input i, the constant tensor v (an initializer), to the node (om_node_set_constant_input), which may
 * prepare for it (MatMul packs B). Errors are statuses of `code` naming the problem. */
OrtStatus* om_kernel_constant_input(const OrtApi* api, om_node* node, size_t i, const OrtValue* v, OrtErrorCode code);
OrtStatus* OM_ORT_CALL om_kernel_compute(void* kernel, OrtKernelContext* ctx);

/* The host of om_kernel_parallel_for: ORT's KernelContext_ParallelFor on ctx (here, in order, where it fails). */
typedef struct om_pf_host {
  const OrtApi* api;
  const OrtKernelContext* ctx;
  OrtStatus* status;
} om_pf_host;
void om_kernel_parallel_for(void* host, void (*fn)(void*, size_t), size_t total, void* fn_ctx);
void OM_ORT_CALL om_kernel_destroy(void* kernel);

#endif
