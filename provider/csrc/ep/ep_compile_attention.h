/* ep_compile_attention.h - a fused attention pattern (ep_attention_fuse.c) as a compiled node
 * (ep_compile_attention.c). */
#ifndef OM_EP_COMPILE_ATTENTION_H
#define OM_EP_COMPILE_ATTENTION_H

#include "ep.h"

typedef struct om_ep_attention om_ep_attention;

/* 1 when `graph` (a fused node's) is an attention pattern: it holds a Softmax (no fused chain does). */
int om_ep_is_attention(const OrtApi* api, const OrtGraph* graph);
/* The pattern of `graph`'s nodes, whose inputs are `fused`'s, mapped by name. */
OrtStatus* om_ep_attention_compile(const om_ep* ep, const OrtGraph* graph, const OrtNode* fused,
                                   om_ep_attention** out);
OrtStatus* om_ep_attention_compute(const om_ep_attention* a, OrtKernelContext* ctx);
void om_ep_attention_destroy(om_ep_attention* a);

#endif
