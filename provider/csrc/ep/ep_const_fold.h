/* ep_const_fold.h - groups of constant nodes, each computed once at session creation (ep_const_fold.c,
 * GetCapability's side; the computing is ep_compile_fold.c's). */
#ifndef OM_EP_CONST_FOLD_H
#define OM_EP_CONST_FOLD_H

#include "ep.h"

/* claim[i] of a node handed to ORT inside a constant group. */
#define OM_EP_FOLDED 2
/* claim[i] of a structured node (OM_F_STRUCT) reading a group's value: claimed as a compiled node of its own,
 * whose Compile hands it that value as a constant input (ep_compile_fold.c, om_ep_fold_constant_inputs). */
#define OM_EP_FOLD_READER 3
/* The largest output (bytes) a folded node may have, as onemodel_ep.fold.FOLD_MAX_BYTES. */
#define OM_EP_FOLD_MAX_BYTES ((long long)4 << 20)

/* Find the groups of constant nodes among the n nodes of a graph (claim[i]: 1 built, 0 claimed for its error, -1
 * left) and hand each to ORT as one fused node without inputs (EpGraphSupportInfo_AddNodesToFuse, constant
 * initializers dropped); claim[i] becomes OM_EP_FOLDED for each member, OM_EP_FOLD_READER for each structured
 * claimed node reading a member's value. */
OrtStatus* om_ep_fold_groups(const om_ep* ep, const OrtNode* const* nodes, size_t n, int* claim,
                             OrtEpGraphSupportInfo* info);
/* Whether the element type `type` (ONNX's) is one a folded output may have: a type of one or more bytes an
 * element (not the packed 4-bit types, not strings). */
int om_ep_fold_type(int type);

#endif
