/* ep_compile_fold.h - a group of constant nodes (ep_const_fold.c) as a compiled node (ep_compile_fold.c). */
#ifndef OM_EP_COMPILE_FOLD_H
#define OM_EP_COMPILE_FOLD_H

#include "ep.h"

typedef struct om_ep_folded om_ep_folded;

/* Whether `fused` is a constant group's node (ep_const_fold.c hands ORT those, and only those, without inputs). */
int om_ep_fold_is_group(const OrtApi* api, const OrtNode* fused);
/* Compute the group's nodes (`graph`'s) once, in an order where each comes after those it reads, and keep the
 * fused node's outputs. A member that fails keeps its error instead, which each run returns. */
OrtStatus* om_ep_fold_compile(const om_ep* ep, const OrtGraph* graph, const OrtNode* fused, om_ep_folded** out);
/* Hand the structured node `on` (of `node`) each input that is a value exactly one of the n groups (compiled in
 * the same Compile call: the same graph) kept under that name, of the same element type, as a constant input
 * (om_node_set_constant_input), as an initializer is: LSTM packs W and R once. */
OrtStatus* om_ep_fold_constant_inputs(const OrtApi* api, const om_ep_folded* const* folded, size_t n_folded,
                                      const OrtNode* node, om_node* on);
/* Copy the kept outputs into the outputs ORT gives, or return the kept error. */
OrtStatus* om_ep_fold_compute(const om_ep_folded* folded, OrtKernelContext* ctx);
void om_ep_fold_destroy(om_ep_folded* folded);
/* Groups (nodes: 0), or their member nodes (nodes: 1), computed at Compile since the library was loaded (the
 * test entry's proof that a group runs once a session). */
long long om_ep_fold_runs(int nodes);

#endif
