/* ep_compile.h - compiled nodes, dispatch=compile (ep_compile.c): OrtEp::Compile and
 * ReleaseNodeComputeInfos. */
#ifndef OM_EP_COMPILE_H
#define OM_EP_COMPILE_H

#include "ep.h"

OrtStatus* OM_ORT_CALL om_ep_compile(OrtEp* this_ptr, const OrtGraph** graphs, const OrtNode** fused_nodes,
                                     size_t count, OrtNodeComputeInfo** infos, OrtNode** ep_context_nodes);
/* Hand a structured node (an OM_F_STRUCT row) its constant inputs (initializers), as the registry path's
 * om_kernel_create does (MatMul, Gemm and Conv pack their weights once); nothing for an element-wise node. */
OrtStatus* om_ep_constant_inputs(const OrtApi* api, const OrtNode* node, om_node* on);
/* Whether `node`'s op-table row is structured (OM_F_STRUCT: it may take constant inputs). */
int om_ep_node_structured(const OrtApi* api, const OrtNode* node);
/* Input `index` of a compiled node's run: its data, shape and rank (a rank-0 input's shape a one-element array);
 * an absent input leaves *data, *shape and *rank as they were. */
OrtStatus* om_ep_input_view(const OrtApi* api, OrtKernelContext* ctx, size_t index, const void** data,
                            const int64_t** shape, size_t* rank);
/* Output 0 of a compiled node's run, made with `shape`, and its data. */
OrtStatus* om_ep_output0(const OrtApi* api, OrtKernelContext* ctx, const int64_t* shape, size_t rank, void** data);
void OM_ORT_CALL om_ep_release_compute_infos(OrtEp* this_ptr, OrtNodeComputeInfo** infos, size_t count);

#endif
