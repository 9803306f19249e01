/* ep_attention_fuse.h - the attention pattern MatMul -> [Div|Mul by a scalar] -> [Add mask] -> Softmax(last axis)
 * -> MatMul as one fused node (ep_attention_fuse.c, GetCapability's side; compiled by ep_compile_attention.c). */
#ifndef OM_EP_ATTENTION_FUSE_H
#define OM_EP_ATTENTION_FUSE_H

#include "ep.h"

/* Find the patterns among the n nodes of a graph (claim[i] as om_ep_fuse_chains reads it; opset: the graph's
 * default-domain opset) and hand each to ORT as one fused node; next[i] becomes OM_EP_FUSED for its members. */
OrtStatus* om_ep_fuse_attention(const om_ep* ep, const OrtNode* const* nodes, size_t n, const int* claim, int opset,
                                int* next, OrtEpGraphSupportInfo* info);

#endif
