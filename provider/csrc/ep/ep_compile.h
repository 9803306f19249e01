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
void OM_ORT_CALL om_ep_release_compute_infos(OrtEp* this_ptr, OrtNodeComputeInfo** infos, size_t count);

#endif
