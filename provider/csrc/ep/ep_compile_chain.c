/* ep_compile_chain.c - a fused chain (ep_fuse.c) as a compiled node: Compile orders the members (each after the
 * members whose outputs it reads), builds each member's om_node as GetCapability did (a structured member, the
 * producer or a BatchNormalization, gets its constant inputs as a node of its own does), maps its inputs by name to
 * the fused node's inputs or an earlier member's output, and makes node/elementwise_chain.c's chain; Compute
 * hands it ORT's input tensors, output and parallel-for. Knows nothing of math. */
#include "ep_compile_chain.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ep_capability.h" /* om_ep_node_create, om_ep_graph_opset, om_ep_value_type */
#include "ep_compile.h"    /* om_ep_constant_inputs */
#include "node/elementwise_chain.h"
#include "ort/ort_kernel.h" /* om_kernel_parallel_for */

struct om_ep_chain {
  const OrtApi* api;
  om_chain* chain;
  size_t n_in;
};

enum { OM_MAXN = OM_CHAIN_MAX_MEMBERS, OM_MAXI = OM_CHAIN_MAX_INPUTS, OM_MAXE = OM_MAXN * OM_MAXI };

/* Names of a node's inputs (outputs), NULL for an absent one, and (when types) their element types. */
static OrtStatus* om_names(const OrtApi* api, const OrtNode* node, int outputs, const char** names, int* types,
                           size_t cap, size_t* n) {
  OrtStatus* st = outputs ? api->Node_GetNumOutputs(node, n) : api->Node_GetNumInputs(node, n);
  if (!st && *n > cap) return om_ep_error(api, ORT_FAIL, "a fused chain's node has too many inputs or outputs");
  const OrtValueInfo* vs[OM_MAXE];
  if (!st && *n) st = outputs ? api->Node_GetOutputs(node, vs, *n) : api->Node_GetInputs(node, vs, *n);
  for (size_t i = 0; !st && i < *n; i++) {
    names[i] = NULL;
    if (vs[i]) st = api->GetValueInfoName(vs[i], &names[i]);
    if (types) types[i] = om_ep_value_type(api, vs[i]);
  }
  return st;
}

static int om_find(const char* const* names, size_t n, const char* name) {
  for (size_t i = 0; name && i < n; i++)
    if (names[i] && strcmp(names[i], name) == 0) return (int)i;
  return -1;
}

OrtStatus* om_ep_chain_compile(const om_ep* ep, const OrtGraph* graph, const OrtNode* fused, om_ep_chain** out) {
  const OrtApi* api = ep->api;
  *out = NULL;
  size_t n = 0, n_ext = 0, n_fout = 0;
  OrtStatus* st = api->Graph_GetNumNodes(graph, &n);
  if (st) return st;
  if (n < 2 || n > OM_MAXN) return om_ep_error(api, ORT_FAIL, "a fused chain must hold 2 to 16 nodes");
  const OrtNode* nodes[OM_MAXN];
  const char* ext[OM_MAXE]; /* the fused node's inputs: at most every member input */
  int ext_types[OM_MAXE];
  const char* fout[OM_MAXE];
  st = api->Graph_GetNodes(graph, nodes, n);
  if (!st) st = om_names(api, fused, 0, ext, ext_types, OM_MAXE, &n_ext);
  if (!st) st = om_names(api, fused, 1, fout, NULL, OM_MAXE, &n_fout);
  if (st) return st;
  /* each member's input and output names */
  const char* in_names[OM_MAXN][OM_MAXI];
  const char* out_name[OM_MAXN];
  size_t n_in[OM_MAXN];
  for (size_t m = 0; !st && m < n; m++) {
    size_t one = 0;
    st = om_names(api, nodes[m], 0, in_names[m], NULL, OM_MAXI, &n_in[m]);
    if (!st) st = om_names(api, nodes[m], 1, &out_name[m], NULL, 1, &one);
    if (!st && one != 1) st = om_ep_error(api, ORT_FAIL, "a fused chain's node must have one output");
  }
  if (st) return st;
  /* members in an order where each comes after those it reads */
  size_t order[OM_MAXN], placed = 0;
  char done[OM_MAXN] = {0};
  while (placed < n) {
    size_t before = placed;
    for (size_t m = 0; m < n; m++) {
      if (done[m]) continue;
      int ready = 1;
      for (size_t k = 0; ready && k < n_in[m]; k++)
        for (size_t p = 0; p < n; p++)
          if (p != m && !done[p] && in_names[m][k] && out_name[p] && strcmp(in_names[m][k], out_name[p]) == 0)
            ready = 0;
      if (ready) {
        done[m] = 1;
        order[placed++] = m;
      }
    }
    if (placed == before) return om_ep_error(api, ORT_FAIL, "a fused chain's nodes form a cycle");
  }
  const char* last = out_name[order[n - 1]];
  if (n_fout != 1 || !fout[0] || !last || strcmp(fout[0], last) != 0)
    return om_ep_error(api, ORT_FAIL, "a fused chain must have one output, its last node's");
  om_node* members[OM_MAXN];
  om_chain_src srcs_s[OM_MAXN][OM_MAXI];
  const om_chain_src* srcs[OM_MAXN];
  size_t n_inputs[OM_MAXN];
  int opset = om_ep_graph_opset(api, graph);
  char err[512];
  size_t built = 0;
  for (size_t i = 0; !st && i < n; i++) {
    size_t m = order[i];
    members[i] = om_ep_node_create(ep, nodes[m], opset, err, sizeof err);
    if (!members[i]) {
      st = om_ep_error(api, ORT_INVALID_ARGUMENT, err);
      break;
    }
    built++;
    st = om_ep_constant_inputs(api, nodes[m], members[i]); /* a producer's weights, packed once */
    if (st) break;
    n_inputs[i] = n_in[m];
    srcs[i] = srcs_s[i];
    for (size_t k = 0; k < n_in[m]; k++) {
      om_chain_src s = {-1, -1};
      for (size_t p = 0; p < i && in_names[m][k]; p++)
        if (out_name[order[p]] && strcmp(in_names[m][k], out_name[order[p]]) == 0) s.member = (int)p;
      if (s.member < 0 && in_names[m][k] && in_names[m][k][0]) {
        s.index = om_find(ext, n_ext, in_names[m][k]);
        if (s.index < 0) {
          snprintf(err, sizeof err, "fused chain: node input '%s' is not an input of the fused node", in_names[m][k]);
          st = om_ep_error(api, ORT_FAIL, err);
        }
      }
      srcs_s[i][k] = s;
    }
  }
  if (st) {
    for (size_t i = 0; i < built; i++) om_node_destroy(members[i]);
    return st;
  }
  om_ep_chain* c = calloc(1, sizeof *c);
  om_chain* chain = c ? om_chain_create(members, n_inputs, srcs, n, ext_types, n_ext, err, sizeof err) : NULL;
  if (!c) {
    for (size_t i = 0; i < n; i++) om_node_destroy(members[i]);
    return om_ep_error(api, ORT_FAIL, "out of memory");
  }
  if (!chain) {
    free(c);
    return om_ep_error(api, ORT_INVALID_ARGUMENT, err);
  }
  *c = (om_ep_chain){api, chain, n_ext};
  *out = c;
  return NULL;
}

OrtStatus* om_ep_chain_compute(const om_ep_chain* c, OrtKernelContext* ctx) {
  const OrtApi* api = c->api;
  const void* data[OM_MAXE] = {0};
  const int64_t* shapes[OM_MAXE] = {0};
  size_t ranks[OM_MAXE] = {0};
  OrtStatus* st = NULL;
  for (size_t i = 0; !st && i < c->n_in; i++) st = om_ep_input_view(api, ctx, i, &data[i], &shapes[i], &ranks[i]);
  if (st) return st;
  int64_t out_shape[OM_NODE_MAX_RANK];
  size_t out_rank = 0;
  char err[768];
  if (om_chain_output_shape(c->chain, shapes, ranks, out_shape, &out_rank, err, sizeof err) != 0)
    return om_ep_error(api, ORT_INVALID_ARGUMENT, err);
  void* odata = NULL;
  st = om_ep_output0(api, ctx, out_shape, out_rank, &odata);
  if (st) return st;
  om_pf_host host = {api, ctx, NULL};
  if (om_chain_run(c->chain, data, shapes, ranks, odata, om_kernel_parallel_for, &host, err, sizeof err) != 0)
    return om_ep_error(api, ORT_INVALID_ARGUMENT, err);
  return NULL;
}

void om_ep_chain_destroy(om_ep_chain* chain) {
  if (!chain) return;
  om_chain_destroy(chain->chain);
  free(chain);
}
