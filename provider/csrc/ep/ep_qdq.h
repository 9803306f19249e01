/* ep_qdq.h - QDQ groups (DequantizeLinear nodes -> Conv/MatMul/Gemm/Add/Mul/... -> QuantizeLinear, and
 * DequantizeLinear nodes -> MatMul with no QuantizeLinear after it), each claimed as one fused node and compiled
 * as our QLinear op or MatMulIntegerToFloat (ep_qdq.c; the conditions: docs/quantized.md, "QDQ groups"). */
#ifndef OM_EP_QDQ_H
#define OM_EP_QDQ_H

#include "ep.h"
#include "ort/ort_kernel.h"

/* GetCapability's side: find the groups among the n nodes of a graph (claim[i] as ep_capability.c's), hand each
 * to ORT as one fused node (EpGraphSupportInfo_AddNodesToFuse) and set claim[i] to OM_EP_QDQ_GROUPED for each
 * member, so that no chain or single claim takes it again. */
#define OM_EP_QDQ_GROUPED (-2)
OrtStatus* om_ep_qdq_groups(const om_ep* ep, const OrtNode* const* nodes, size_t n, int opset, int* claim,
                            OrtEpGraphSupportInfo* info);

/* Compile's side: when `graph` (a fused node's nodes) is a QDQ group, *out is the kernel of its QLinear op over
 * `fused`'s inputs; *out stays NULL when it is not one (a fused chain). */
OrtStatus* om_ep_qdq_compile(const om_ep* ep, const OrtGraph* graph, const OrtNode* fused, om_kernel** out);

#endif
