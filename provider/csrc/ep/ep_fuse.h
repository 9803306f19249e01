/* ep_fuse.h - chains of element-wise nodes fused into one node each (ep_fuse.c, GetCapability's side). */
#ifndef OM_EP_FUSE_H
#define OM_EP_FUSE_H

#include "ep.h"

/* next[i] for a node handed to ORT inside a fused chain. */
#define OM_EP_FUSED (-2)

/* A node and its index in the graph's node list; om_ep_node_index: the list sorted by node (malloc'd, NULL when
 * out of memory), for om_ep_sole_consumer. */
typedef struct om_node_at {
  const OrtNode* node;
  size_t i;
} om_node_at;
om_node_at* om_ep_node_index(const OrtNode* const* nodes, size_t n);

/* The index of the one node that consumes node's only (first) output, when it is not a graph output; -1
 * otherwise. */
long om_ep_sole_consumer(const OrtApi* api, const OrtNode* node, const om_node_at* sorted, size_t n);

/* Find the chains among the n nodes of a graph (claim[i]: 1 built, 0 claimed for its error, -1 left; next[i]
 * OM_EP_FUSED: already fused, left alone) and hand
 * each of two or more members to ORT as one fused node (EpGraphSupportInfo_AddNodesToFuse); next[i] becomes
 * OM_EP_FUSED for each member. */
OrtStatus* om_ep_fuse_chains(const om_ep* ep, const OrtNode* const* nodes, size_t n, const int* claim, int* next,
                             OrtEpGraphSupportInfo* info);

#endif
