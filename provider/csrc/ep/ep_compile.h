/* ep_compile.h - compiled nodes, dispatch=compile (ep_compile.c): OrtEp::Compile and
 * ReleaseNodeComputeInfos. */
#ifndef OM_EP_COMPILE_H
#define OM_EP_COMPILE_H

#include "ep.h"

OrtStatus* OM_ORT_CALL om_ep_compile(OrtEp* this_ptr, const OrtGraph** graphs, const OrtNode** fused_nodes,
                                     size_t count, OrtNodeComputeInfo** infos, OrtNode** ep_context_nodes);
void OM_ORT_CALL om_ep_release_compute_infos(OrtEp* this_ptr, OrtNodeComputeInfo** infos, size_t count);

#endif
