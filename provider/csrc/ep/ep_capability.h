/* ep_capability.h - which nodes the EP claims (ep_capability.c): OrtEp::GetCapability and the node
 * building it shares with ep_compile.c. */
#ifndef OM_EP_CAPABILITY_H
#define OM_EP_CAPABILITY_H

#include "ep.h"

OrtStatus* OM_ORT_CALL om_ep_get_capability(OrtEp* this_ptr, const OrtGraph* graph, OrtEpGraphSupportInfo* info);
/* The om_node for `node` as GetCapability sees it (opset: the graph's default-domain opset, 0 for the node's
 * since-version): NULL with a message naming node, op and problem in err. */
om_node* om_ep_node_create(const om_ep* ep, const OrtNode* node, int opset, char* err, size_t errlen);
/* An edit of the attributes read from a node before its om_node is built (om_ep_node_create_as). */
typedef void (*om_ep_attrs_edit)(om_attrs* attrs, const void* ctx);
/* The om_node of op-table row `row` (a QDQ group's QLinear op, ep_qdq.c) over the n input types, with `node`'s
 * attributes read as that row's, then edit(attrs, edit_ctx) when edit is not NULL, and one output (opset: the
 * graph's default-domain opset; a com.microsoft row reads version 1): NULL with a message in err. */
om_node* om_ep_node_create_as(const om_ep* ep, const OrtNode* node, int row, int opset, size_t n, const int* types,
                              om_ep_attrs_edit edit, const void* edit_ctx, char* err, size_t errlen);
/* An int (a float) attribute of node into *out: 0, 1 when absent, -1 when of another type. */
int om_ep_attr_int(const OrtApi* api, const OrtNode* node, const char* name, int64_t* out);
int om_ep_attr_float(const OrtApi* api, const OrtNode* node, const char* name, float* out);
/* Strict mode: the error naming each computing node GetCapability left, every graph's; NULL when none. */
OrtStatus* om_ep_strict_refusal(om_ep* ep);
int om_ep_graph_opset(const OrtApi* api, const OrtGraph* graph);
/* Element type of a node input: 0 for an absent optional input, -1 when unknown or not a tensor. */
int om_ep_value_type(const OrtApi* api, const OrtValueInfo* v);
/* Elements of a node input or output as the graph declares its shape, each symbolic dimension taken as 1
 * (capped at 2^40); -1 when the shape is undeclared or the value absent (a rank-0 value: 1). */
long long om_ep_value_count(const OrtApi* api, const OrtValueInfo* v);

/* Elements of a node input or output when the graph declares its whole shape (no symbolic or unknown dimension,
 * rank at most OM_NODE_MAX_RANK, at most 2^40 elements); -1 otherwise. */
long long om_ep_value_static_count(const OrtApi* api, const OrtValueInfo* v);

#endif
