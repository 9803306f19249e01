/* ep_compile.c - OrtEp::Compile: a QDQ group (ep_qdq.c) becomes its QLinear op's kernel; a group of constant
 * nodes (ep_const_fold.c) goes to ep_compile_fold.c, a fused chain of element-wise nodes (ep_fuse.c) to
 * ep_compile_chain.c, a fused attention pattern (ep_attention_fuse.c) to ep_compile_attention.c;
 * a node of its own is the execution provider's `dispatch=compile` alternative to its kernel registry: GetCapability
 * hands each claimed node to ORT as a fused node of its own (EpGraphSupportInfo_AddNodesToFuse), and Compile
 * turns each into an OrtNodeComputeInfo whose Compute runs the same om_kernel as a registered kernel. The
 * om_node is built from the OrtNode (attributes and input types as GetCapability read them); the constant inputs
 * of a structured node (MatMul's B) come from the graph's initializers. A fused node's inputs are the node's
 * distinct present inputs, so the kernel maps them back by name. Knows nothing of math. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "node/broadcast.h"
#include "ep_capability.h" /* om_ep_node_create, om_ep_graph_opset, om_ep_strict_refusal */
#include "ep_compile.h"
#include "ep_compile_attention.h"
#include "ep_compile_chain.h"
#include "ep_compile_fold.h"
#include "ep_qdq.h"
#include "ort/ort_kernel.h"

typedef struct om_ep_compiled {
  OrtNodeComputeInfo base; /* first member */
  om_kernel* kernel;       /* one node; or */
  om_ep_chain* chain;      /* a fused chain (ep_compile_chain.c); or */
  om_ep_attention* attn;   /* a fused attention pattern (ep_compile_attention.c); or */
  om_ep_folded* folded;    /* a group of constant nodes, computed at Compile (ep_compile_fold.c) */
} om_ep_compiled;

static OrtStatus* OM_ORT_CALL om_compiled_create_state(OrtNodeComputeInfo* this_ptr, OrtNodeComputeContext* cc,
                                                       void** state) {
  (void)cc;
  *state = this_ptr;
  return NULL;
}

static OrtStatus* OM_ORT_CALL om_compiled_compute(OrtNodeComputeInfo* this_ptr, void* state, OrtKernelContext* ctx) {
  (void)this_ptr;
  const om_ep_compiled* c = state;
  if (c->attn) return om_ep_attention_compute(c->attn, ctx);
  if (c->folded) return om_ep_fold_compute(c->folded, ctx);
  return c->chain ? om_ep_chain_compute(c->chain, ctx) : om_kernel_compute(c->kernel, ctx);
}

static void OM_ORT_CALL om_compiled_release_state(OrtNodeComputeInfo* this_ptr, void* state) {
  (void)this_ptr;
  (void)state; /* the kernel belongs to the compute info */
}

/* Names of a node's inputs (outputs: want_outputs) into names[0..n): NULL for an absent one. */
static OrtStatus* om_value_names(const OrtApi* api, const OrtNode* node, int want_outputs, const char** names,
                                 const OrtValueInfo** vs, size_t n) {
  OrtStatus* st = n == 0 ? NULL : want_outputs ? api->Node_GetOutputs(node, vs, n) : api->Node_GetInputs(node, vs, n);
  for (size_t i = 0; !st && i < n; i++) {
    names[i] = NULL;
    if (vs[i]) st = api->GetValueInfoName(vs[i], &names[i]);
  }
  return st;
}

static OrtStatus* om_count(const OrtApi* api, const OrtNode* node, int outputs, size_t* n) {
  OrtStatus* st = outputs ? api->Node_GetNumOutputs(node, n) : api->Node_GetNumInputs(node, n);
  if (!st && *n > 4096) return om_ep_error(api, ORT_FAIL, "a node with more than 4096 inputs or outputs");
  return st;
}

/* map[i]: the index in fused's inputs (outputs) of the node's input (output) i, -1 for an absent one. Inputs
 * must all be found; an output the fused node lacks (nobody reads it) maps to -1. */
static OrtStatus* om_io_map(const OrtApi* api, const OrtNode* node, const OrtNode* fused, int outputs, int** map,
                            size_t* n_out) {
  size_t n = 0, m = 0;
  OrtStatus* st = om_count(api, node, outputs, &n);
  if (!st) st = om_count(api, fused, outputs, &m);
  if (st) return st;
  const char** names = calloc(n + m + 1, sizeof *names);
  const OrtValueInfo** vs = calloc(n + m + 1, sizeof *vs);
  *map = calloc(n + 1, sizeof **map);
  if (!names || !vs || !*map) st = om_ep_error(api, ORT_FAIL, "out of memory");
  if (!st) st = om_value_names(api, node, outputs, names, vs, n);
  if (!st) st = om_value_names(api, fused, outputs, names + n, vs + n, m);
  for (size_t i = 0; !st && i < n; i++) {
    (*map)[i] = -1;
    if (!names[i] || !names[i][0]) continue;
    for (size_t j = 0; j < m; j++)
      if (names[n + j] && strcmp(names[i], names[n + j]) == 0) {
        (*map)[i] = (int)j;
        break;
      }
    if ((*map)[i] < 0 && !outputs) {
      char msg[400];
      snprintf(msg, sizeof msg, "compiled node has no input '%s'", names[i]);
      st = om_ep_error(api, ORT_FAIL, msg);
    }
  }
  free(names);
  free((void*)vs);
  if (st) {
    free(*map);
    *map = NULL;
  }
  *n_out = n;
  return st;
}

/* Hand the node its constant inputs (initializers), as the registry path's om_kernel_create does. */
static OrtStatus* om_constant_inputs(const OrtApi* api, const OrtNode* node, om_node* on) {
  size_t n = 0;
  OrtStatus* st = om_count(api, node, 0, &n);
  if (st || n == 0) return st;
  const OrtValueInfo** vs = calloc(n, sizeof *vs);
  if (!vs) return om_ep_error(api, ORT_FAIL, "out of memory");
  st = api->Node_GetInputs(node, vs, n);
  for (size_t i = 0; !st && i < n; i++) {
    bool is_const = false;
    if (!vs[i]) continue;
    const OrtValue* v = NULL;
    st = api->ValueInfo_IsConstantInitializer(vs[i], &is_const);
    if (!st && is_const) st = api->ValueInfo_GetInitializerValue(vs[i], &v);
    if (st) { /* not a constant this runtime can hand out: the node reads it per run */
      api->ReleaseStatus(st);
      st = NULL;
    }
    if (v) st = om_kernel_constant_input(api, on, i, v, ORT_FAIL);
  }
  free((void*)vs);
  return st;
}

OrtStatus* om_ep_input_view(const OrtApi* api, OrtKernelContext* ctx, size_t index, const void** data,
                            const int64_t** shape, size_t* rank) {
  static const int64_t rank0[1] = {0};
  const OrtValue* v = NULL;
  OrtStatus* st = api->KernelContext_GetInput(ctx, index, &v);
  if (st || !v) return st;
  ONNXTensorElementDataType et;
  st = api->GetTensorElementTypeAndShapeDataReference(v, &et, shape, rank);
  if (!st && !*shape) *shape = rank0; /* a present rank-0 input */
  void* p = NULL;
  if (!st) st = api->GetTensorMutableData((OrtValue*)v, &p);
  *data = p;
  return st;
}

OrtStatus* om_ep_output0(const OrtApi* api, OrtKernelContext* ctx, const int64_t* shape, size_t rank, void** data) {
  OrtValue* out = NULL;
  *data = NULL;
  OrtStatus* st = api->KernelContext_GetOutput(ctx, 0, shape, rank, &out);
  if (!st) st = api->GetTensorMutableData(out, data);
  return st;
}

int om_ep_node_structured(const OrtApi* api, const OrtNode* node) {
  const char *op = NULL, *domain = NULL;
  OrtStatus* st = api->Node_GetOperatorType(node, &op);
  if (!st) st = api->Node_GetDomain(node, &domain);
  if (st) api->ReleaseStatus(st);
  int row = st || !domain || !op ? -1 : om_op_find_in(domain, op);
  return row >= 0 && (om_op_row(row)->flags & OM_F_STRUCT);
}

OrtStatus* om_ep_constant_inputs(const OrtApi* api, const OrtNode* node, om_node* on) {
  return om_ep_node_structured(api, node) ? om_constant_inputs(api, node, on) : NULL;
}

/* folded[0..n_folded): the constant groups of the same Compile call, whose kept values a structured node may take
 * as constant inputs (ep_compile_fold.c). */
static OrtStatus* om_compile_one(const om_ep* ep, const OrtGraph* graph, const OrtNode* fused,
                                 const om_ep_folded* const* folded, size_t n_folded, om_kernel** out) {
  const OrtApi* api = ep->api;
  size_t n = 0;
  OrtStatus* st = api->Graph_GetNumNodes(graph, &n);
  if (st) return st;
  if (n != 1) return om_ep_error(api, ORT_FAIL, "a compiled node of one op must hold exactly one node");
  const OrtNode* node = NULL;
  st = api->Graph_GetNodes(graph, &node, 1);
  if (st) return st;
  char err[512];
  om_node* on = om_ep_node_create(ep, node, om_ep_graph_opset(api, graph), err, sizeof err);
  if (!on) return om_ep_error(api, ORT_INVALID_ARGUMENT, err);
  st = om_ep_constant_inputs(api, node, on);
  if (!st && om_ep_node_structured(api, node)) st = om_ep_fold_constant_inputs(api, folded, n_folded, node, on);
  int *in_map = NULL, *out_map = NULL;
  size_t n_in = 0, n_out = 0;
  if (!st) st = om_io_map(api, node, fused, 0, &in_map, &n_in);
  if (!st) st = om_io_map(api, node, fused, 1, &out_map, &n_out);
  if (st) om_node_destroy(on);
  else st = om_kernel_wrap(api, on, 1, in_map, n_in, out_map, n_out, out);
  free(in_map);
  free(out_map);
  return st;
}

void OM_ORT_CALL om_ep_release_compute_infos(OrtEp* this_ptr, OrtNodeComputeInfo** infos, size_t count) {
  (void)this_ptr;
  for (size_t i = 0; infos && i < count; i++) {
    om_ep_compiled* c = (om_ep_compiled*)infos[i];
    if (!c) continue;
    om_kernel_destroy(c->kernel);
    om_ep_chain_destroy(c->chain);
    om_ep_attention_destroy(c->attn);
    om_ep_fold_destroy(c->folded);
    free(c);
  }
}

OrtStatus* OM_ORT_CALL om_ep_compile(OrtEp* this_ptr, const OrtGraph** graphs, const OrtNode** fused_nodes,
                                     size_t count, OrtNodeComputeInfo** infos, OrtNode** ep_context_nodes) {
  (void)ep_context_nodes; /* no EPContext models: the nodes are compiled anew at each session */
  const om_ep* ep = (const om_ep*)this_ptr;
  for (size_t i = 0; i < count; i++) infos[i] = NULL;
  OrtStatus* st = om_ep_strict_refusal((om_ep*)this_ptr); /* strict mode's refusal (ep_capability.c) */
  if (st) return st;
  /* the constant groups first (ep_compile_fold.c): a structured node of the same call may take their values */
  const om_ep_folded** folded = calloc(count + 1, sizeof *folded);
  size_t n_folded = 0;
  if (!folded) st = om_ep_error(ep->api, ORT_FAIL, "out of memory");
  for (size_t t = 0; !st && t < 2 * count; t++) { /* the groups, then the others */
    size_t i = t % count;
    int group = om_ep_fold_is_group(ep->api, fused_nodes[i]);
    if (group != (t < count)) continue;
    om_ep_compiled* c = calloc(1, sizeof *c);
    if (!c) {
      st = om_ep_error(ep->api, ORT_FAIL, "out of memory");
      break;
    }
    size_t members = 0;
    st = ep->api->Graph_GetNumNodes(graphs[i], &members);
    if (!st && group) {
      st = om_ep_fold_compile(ep, graphs[i], fused_nodes[i], &c->folded);
      if (!st) folded[n_folded++] = c->folded;
    } else if (!st) {
      /* a QDQ group first (DequantizeLinear -> Softmax -> QuantizeLinear holds a Softmax, as attention does) */
      if (members > 1) st = om_ep_qdq_compile(ep, graphs[i], fused_nodes[i], &c->kernel);
      if (!st && !c->kernel && members > 1 && om_ep_is_attention(ep->api, graphs[i]))
        st = om_ep_attention_compile(ep, graphs[i], fused_nodes[i], &c->attn);
      else if (!st && !c->kernel)
        st = members > 1 ? om_ep_chain_compile(ep, graphs[i], fused_nodes[i], &c->chain)
                         : om_compile_one(ep, graphs[i], fused_nodes[i], folded, n_folded, &c->kernel);
    }
    if (st) {
      free(c);
      break;
    }
    c->base.ort_version_supported = OM_EP_ORT_VERSION;
    c->base.CreateState = om_compiled_create_state;
    c->base.Compute = om_compiled_compute;
    c->base.ReleaseState = om_compiled_release_state;
    infos[i] = &c->base;
  }
  free((void*)folded);
  if (st) {
    om_ep_release_compute_infos(this_ptr, infos, count);
    for (size_t i = 0; i < count; i++) infos[i] = NULL;
  }
  return st;
}
