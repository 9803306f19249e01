/* ep_compile_chain.h - a fused chain of element-wise nodes as a compiled node (ep_compile_chain.c). */
#ifndef OM_EP_COMPILE_CHAIN_H
#define OM_EP_COMPILE_CHAIN_H

#include "ep.h"

typedef struct om_ep_chain om_ep_chain;

/* The chain of `graph`'s nodes (two or more, ep_fuse.c's), whose inputs are `fused`'s, mapped by name. */
OrtStatus* om_ep_chain_compile(const om_ep* ep, const OrtGraph* graph, const OrtNode* fused, om_ep_chain** out);
OrtStatus* om_ep_chain_compute(const om_ep_chain* chain, OrtKernelContext* ctx);
void om_ep_chain_destroy(om_ep_chain* chain);

#endif
