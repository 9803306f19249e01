/* ep_compile_attention.c - a fused attention pattern (ep_attention_fuse.c) as a compiled node: Compile finds
 * each member's role (the scores' MatMul, the Div or Mul, the Add, the Softmax, P x V's MatMul) by its op and
 * which member's output it reads, builds each member's om_node as GetCapability did (the MatMuls get their
 * constant inputs as a node of their own does), maps Q, K, the scale, the mask and V by name to the fused
 * node's inputs and makes node/attention_pattern.c's pattern; Compute hands it ORT's tensors, output and
 * parallel-for. Knows nothing of math. */
#include "ep_compile_attention.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ep_capability.h" /* om_ep_node_create, om_ep_graph_opset */
#include "ep_compile.h"    /* om_ep_constant_inputs */
#include "node/attention_pattern.h"
#include "ort/ort_kernel.h" /* om_kernel_parallel_for */

struct om_ep_attention {
  const OrtApi* api;
  om_attn_pattern* pattern;
  int in_at[OM_AP_INPUTS]; /* the fused node's input index of each pattern input, -1 absent */
};

enum { OM_AF_MAXN = 5, OM_AF_MAXI = 2 };

typedef struct om_af_member {
  const OrtNode* node;
  const char* op;
  const char* in[OM_AF_MAXI];
  size_t n_in;
  const char* out;
} om_af_member;

static OrtStatus* om_af_names(const OrtApi* api, const OrtNode* node, om_af_member* m) {
  const OrtValueInfo* vs[OM_AF_MAXI];
  const OrtValueInfo* o = NULL;
  size_t n_out = 0;
  m->node = node;
  m->out = NULL;
  OrtStatus* st = api->Node_GetOperatorType(node, &m->op);
  if (!st) st = api->Node_GetNumInputs(node, &m->n_in);
  if (!st) st = api->Node_GetNumOutputs(node, &n_out);
  if (!st && (m->n_in > OM_AF_MAXI || n_out != 1))
    return om_ep_error(api, ORT_FAIL, "a fused attention node has an unexpected member");
  if (!st) st = api->Node_GetInputs(node, vs, m->n_in);
  if (!st) st = api->Node_GetOutputs(node, &o, 1);
  for (size_t i = 0; !st && i < m->n_in; i++) {
    m->in[i] = NULL;
    if (vs[i]) st = api->GetValueInfoName(vs[i], &m->in[i]);
  }
  if (!st && o) st = api->GetValueInfoName(o, &m->out);
  return st;
}

static int om_af_eq(const char* a, const char* b) { return a && b && strcmp(a, b) == 0; }

int om_ep_is_attention(const OrtApi* api, const OrtGraph* graph) {
  size_t n = 0;
  const OrtNode* nodes[OM_AF_MAXN];
  OrtStatus* st = api->Graph_GetNumNodes(graph, &n);
  if (!st && (n < 3 || n > OM_AF_MAXN)) return 0;
  if (!st) st = api->Graph_GetNodes(graph, nodes, n);
  for (size_t i = 0; !st && i < n; i++) {
    const char* op = NULL;
    st = api->Node_GetOperatorType(nodes[i], &op);
    if (!st && om_af_eq(op, "Softmax")) return 1;
  }
  if (st) api->ReleaseStatus(st);
  return 0;
}

/* The member whose input reads value `name`, of op `op` (NULL: any), -1 when none. */
static int om_af_reader(const om_af_member* m, size_t n, const char* name, const char* op) {
  for (size_t i = 0; i < n; i++)
    for (size_t k = 0; k < m[i].n_in; k++)
      if (om_af_eq(m[i].in[k], name) && (!op || om_af_eq(m[i].op, op))) return (int)i;
  return -1;
}

OrtStatus* om_ep_attention_compile(const om_ep* ep, const OrtGraph* graph, const OrtNode* fused,
                                   om_ep_attention** out) {
  const OrtApi* api = ep->api;
  *out = NULL;
  size_t n = 0, n_ext = 0;
  const OrtNode* nodes[OM_AF_MAXN];
  om_af_member m[OM_AF_MAXN];
  OrtStatus* st = api->Graph_GetNumNodes(graph, &n);
  if (!st && (n < 3 || n > OM_AF_MAXN)) return om_ep_error(api, ORT_FAIL, "a fused attention holds 3 to 5 nodes");
  if (!st) st = api->Graph_GetNodes(graph, nodes, n);
  for (size_t i = 0; !st && i < n; i++) st = om_af_names(api, nodes[i], &m[i]);
  if (!st) st = api->Node_GetNumInputs(fused, &n_ext);
  if (st) return st;
  const OrtValueInfo** ev = calloc(n_ext ? n_ext : 1, sizeof *ev);
  const char** ext = calloc(n_ext ? n_ext : 1, sizeof *ext);
  if (!ev || !ext) st = om_ep_error(api, ORT_FAIL, "out of memory");
  if (!st && n_ext) st = api->Node_GetInputs(fused, ev, n_ext);
  for (size_t i = 0; !st && i < n_ext; i++)
    if (ev[i]) st = api->GetValueInfoName(ev[i], &ext[i]);
  /* roles: the Softmax; P x V reads its output; the scores' MatMul is the other MatMul; then along the chain */
  int sm = -1, qk = -1, pv = -1, sc = -1, mk = -1;
  for (size_t i = 0; i < n; i++)
    if (om_af_eq(m[i].op, "Softmax")) sm = (int)i;
  if (sm >= 0) pv = om_af_reader(m, n, m[sm].out, "MatMul");
  for (size_t i = 0; i < n; i++)
    if (om_af_eq(m[i].op, "MatMul") && (int)i != pv) qk = (int)i;
  int at = qk;
  while (!st && at >= 0 && at != sm) {
    int nx = om_af_reader(m, n, m[at].out, NULL);
    if (nx >= 0 && (om_af_eq(m[nx].op, "Div") || om_af_eq(m[nx].op, "Mul")) && sc < 0 && mk < 0)
      sc = nx;
    else if (nx >= 0 && om_af_eq(m[nx].op, "Add") && mk < 0)
      mk = nx;
    else if (nx != sm)
      nx = -1;
    at = nx;
  }
  if (!st && (sm < 0 || pv < 0 || qk < 0 || at != sm || (int)n != 3 + (sc >= 0) + (mk >= 0)))
    st = om_ep_error(api, ORT_FAIL, "a fused attention's nodes are not MatMul, [Div|Mul], [Add], Softmax, MatMul");
  om_ep_attention* a = st ? NULL : calloc(1, sizeof *a);
  if (!st && !a) st = om_ep_error(api, ORT_FAIL, "out of memory");
  om_attn_members mem = {0};
  const char* in_name[OM_AP_INPUTS] = {0};
  if (!st) {
    in_name[OM_AP_Q] = m[qk].in[0];
    in_name[OM_AP_K] = m[qk].in[1];
    in_name[OM_AP_V] = m[pv].in[1];
    int scores = qk;
    if (sc >= 0) {
      mem.scale_at = om_af_eq(m[sc].in[0], m[scores].out) ? 0 : 1;
      in_name[OM_AP_SCALE] = m[sc].in[1 - mem.scale_at];
      scores = sc;
    }
    if (mk >= 0) {
      mem.mask_at = om_af_eq(m[mk].in[0], m[scores].out) ? 0 : 1;
      in_name[OM_AP_MASK] = m[mk].in[1 - mem.mask_at];
    }
    for (int k = 0; k < OM_AP_INPUTS; k++) {
      a->in_at[k] = -1;
      for (size_t i = 0; in_name[k] && i < n_ext; i++)
        if (om_af_eq(ext[i], in_name[k])) a->in_at[k] = (int)i;
      if (in_name[k] && a->in_at[k] < 0)
        st = om_ep_error(api, ORT_FAIL, "fused attention: a member's input is not an input of the fused node");
    }
  }
  int opset = om_ep_graph_opset(api, graph);
  char err[512];
  om_node** slot[OM_AF_MAXN] = {&mem.qk, &mem.scale, &mem.mask, &mem.softmax, &mem.pv};
  int role[OM_AF_MAXN] = {qk, sc, mk, sm, pv};
  for (size_t r = 0; !st && r < OM_AF_MAXN; r++) {
    if (role[r] < 0) continue;
    *slot[r] = om_ep_node_create(ep, m[role[r]].node, opset, err, sizeof err);
    if (!*slot[r])
      st = om_ep_error(api, ORT_INVALID_ARGUMENT, err);
    else
      st = om_ep_constant_inputs(api, m[role[r]].node, *slot[r]);
  }
  free((void*)ev);
  free((void*)ext);
  if (!st) {
    a->pattern = om_attn_pattern_create(&mem, err, sizeof err); /* owns the members from here */
    if (!a->pattern) st = om_ep_error(api, ORT_FAIL, err);
  } else {
    for (size_t r = 0; r < OM_AF_MAXN; r++) om_node_destroy(*slot[r]);
  }
  if (st) {
    free(a);
    return st;
  }
  a->api = api;
  *out = a;
  return NULL;
}

OrtStatus* om_ep_attention_compute(const om_ep_attention* a, OrtKernelContext* ctx) {
  const OrtApi* api = a->api;
  const void* data[OM_AP_INPUTS] = {0};
  const int64_t* shapes[OM_AP_INPUTS] = {0};
  size_t ranks[OM_AP_INPUTS] = {0};
  OrtStatus* st = NULL;
  for (int k = 0; !st && k < OM_AP_INPUTS; k++)
    if (a->in_at[k] >= 0) st = om_ep_input_view(api, ctx, (size_t)a->in_at[k], &data[k], &shapes[k], &ranks[k]);
  if (st) return st;
  int64_t out_shape[OM_NODE_MAX_RANK];
  size_t out_rank = 0;
  char err[768];
  if (om_attn_pattern_output_shape(a->pattern, shapes, ranks, out_shape, &out_rank, err, sizeof err) != 0)
    return om_ep_error(api, ORT_INVALID_ARGUMENT, err);
  void* odata = NULL;
  st = om_ep_output0(api, ctx, out_shape, out_rank, &odata);
  if (st) return st;
  om_pf_host host = {api, ctx, NULL};
  if (om_attn_pattern_run(a->pattern, data, shapes, ranks, odata, om_kernel_parallel_for, &host, err, sizeof err) != 0)
    return om_ep_error(api, ORT_INVALID_ARGUMENT, err);
  return NULL;
}

void om_ep_attention_destroy(om_ep_attention* a) {
  if (!a) return;
  om_attn_pattern_destroy(a->pattern);
  free(a);
}
