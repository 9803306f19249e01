/* ep_fuse.h - chains of element-wise nodes fused into one node each (ep_fuse.c, GetCapability's side). */
#ifndef OM_EP_FUSE_H
#define OM_EP_FUSE_H

#include "ep.h"

/* next[i] for a node handed to ORT inside a fused chain. */
#define OM_EP_FUSED (-2)

/* Find the chains among the n nodes of a graph (claim[i]: 1 built, 0 claimed for its error, -1 left) and hand
 * each of two or more members to ORT as one fused node (EpGraphSupportInfo_AddNodesToFuse); next[i] becomes
 * OM_EP_FUSED for each member. */
OrtStatus* om_ep_fuse_chains(const om_ep* ep, const OrtNode* const* nodes, size_t n, const int* claim, int* next,
                             OrtEpGraphSupportInfo* info);

#endif
