/* ep_fuse.c - which claimed nodes the EP fuses (GetCapability's side of its fused chains; the run is
 * node/elementwise_chain.c, compiled by ep_compile_chain.c).
 *
 * A node is chainable when the EP built its om_node, its op-table row is element-wise (no OM_F_STRUCT), a
 * BatchNormalization, or a producer (Conv, ConvTranspose, Gemm, MatMul, FusedMatMul: om_chain_is_producer),
 * it has one output and at most OM_CHAIN_MAX_INPUTS inputs. A chainable node links to the next when its output
 * is not a graph output and every consumer of it is that one node, itself chainable and not a producer (a
 * producer only heads a chain, and only when its output is not declared smaller than OM_FUSE_PRODUCER_MIN
 * elements, symbolic dimensions as 1; a node with two such links in takes the first). A maximal run of links is a chain; one of two or more nodes (cut after every
 * OM_CHAIN_MAX_MEMBERS) becomes one fused node. Each intermediate value then lives only inside its fused node,
 * so fusing changes what is computed nowhere. Nodes already in a fused attention pattern (next[i] == OM_EP_FUSED,
 * ep_attention_fuse.c) join no chain. Knows nothing of math. */
#include "ep_fuse.h"

#include <stdlib.h>
#include <string.h>

#include "core/om_ops.h"           /* OM_OP_BATCH_NORMALIZATION */
#include "ep_capability.h"          /* om_ep_value_count */
#include "node/elementwise_chain.h" /* OM_CHAIN_MAX_MEMBERS, OM_CHAIN_MAX_INPUTS, om_chain_is_producer */

static int om_node_at_cmp(const void* a, const void* b) {
  uintptr_t x = (uintptr_t)((const om_node_at*)a)->node, y = (uintptr_t)((const om_node_at*)b)->node;
  return x < y ? -1 : x > y;
}

om_node_at* om_ep_node_index(const OrtNode* const* nodes, size_t n) {
  om_node_at* sorted = malloc((n ? n : 1) * sizeof *sorted);
  if (!sorted) return NULL;
  for (size_t i = 0; i < n; i++) sorted[i] = (om_node_at){nodes[i], i};
  qsort(sorted, n, sizeof *sorted, om_node_at_cmp);
  return sorted;
}

enum { OM_LINK_NONE, OM_LINK_MEMBER, OM_LINK_HEAD }; /* om_ep_chainable: not, anywhere, only first */

static int om_ep_chainable(const OrtApi* api, const OrtNode* node) {
  const char *domain = NULL, *op = NULL;
  size_t n_in = 0, n_out = 0;
  OrtStatus* st = api->Node_GetDomain(node, &domain);
  if (!st) st = api->Node_GetOperatorType(node, &op);
  if (!st) st = api->Node_GetNumInputs(node, &n_in);
  if (!st) st = api->Node_GetNumOutputs(node, &n_out);
  if (st) {
    api->ReleaseStatus(st);
    return 0;
  }
  int row = domain && op ? om_op_find_in(domain, op) : -1;
  if (row < 0 || n_out != 1 || n_in > OM_CHAIN_MAX_INPUTS) return OM_LINK_NONE;
  if (om_chain_is_producer(row)) return OM_LINK_HEAD;
  return !(om_op_row(row)->flags & OM_F_STRUCT) || row == OM_OP_BATCH_NORMALIZATION ? OM_LINK_MEMBER : OM_LINK_NONE;
}

long om_ep_sole_consumer(const OrtApi* api, const OrtNode* node, const om_node_at* sorted, size_t n) {
  const OrtValueInfo* out = NULL;
  OrtStatus* st = api->Node_GetOutputs(node, &out, 1);
  bool graph_out = true;
  size_t k = 0;
  if (!st && out) st = api->ValueInfo_IsGraphOutput(out, &graph_out);
  if (!st && out && !graph_out) st = api->ValueInfo_GetValueNumConsumers(out, &k);
  long at = -1;
  if (!st && out && !graph_out && k >= 1 && k <= 64) {
    const OrtNode* who[64];
    int64_t idx[64];
    st = api->ValueInfo_GetValueConsumers(out, who, idx, k);
    for (size_t c = 0; !st && c < k; c++) {
      om_node_at key = {who[c], 0};
      const om_node_at* hit = who[c] ? bsearch(&key, sorted, n, sizeof *sorted, om_node_at_cmp) : NULL;
      if (!hit || (at >= 0 && (size_t)at != hit->i)) {
        at = -1;
        break;
      }
      at = (long)hit->i;
    }
  }
  if (st) {
    api->ReleaseStatus(st);
    return -1;
  }
  return at;
}

/* A producer whose output the graph declares of fewer than OM_FUSE_PRODUCER_MIN elements, every symbolic
 * dimension (a batch) taken as 1, heads no chain: for such a tensor a fused node's per-run cost exceeds what
 * fusing saves (mobilenet_v3_small_half's 8 to 3,072 element convolutions: fused over unfused 1.06-1.08 with
 * them, 1.01-1.03 without; docs/architecture.md). Speed only: fused or not, the bits are the same. */
#define OM_FUSE_PRODUCER_MIN 4096

static int om_ep_small_output(const OrtApi* api, const OrtNode* node) {
  const OrtValueInfo* out = NULL;
  OrtStatus* st = api->Node_GetOutputs(node, &out, 1);
  if (st) {
    api->ReleaseStatus(st);
    return 0;
  }
  long long count = om_ep_value_count(api, out);
  return count >= 0 && count < OM_FUSE_PRODUCER_MIN;
}

OrtStatus* om_ep_fuse_chains(const om_ep* ep, const OrtNode* const* nodes, size_t n, const int* claim, int* next,
                             OrtEpGraphSupportInfo* info) {
  const OrtApi* api = ep->api;
  om_node_at* sorted = om_ep_node_index(nodes, n);
  char* ok = malloc(n);
  char* has_prev = calloc(n, 1);
  OrtStatus* st = sorted && ok && has_prev ? NULL : om_ep_error(api, ORT_FAIL, "out of memory");
  for (size_t i = 0; !st && i < n; i++) {
    int taken = next[i] == OM_EP_FUSED; /* a member of a fused attention pattern (ep_attention_fuse.c) */
    ok[i] = (char)(claim[i] == 1 && !taken ? om_ep_chainable(api, nodes[i]) : OM_LINK_NONE);
    if (!taken) next[i] = -1;
  }
  for (size_t i = 0; !st && i < n; i++) {
    if (!ok[i]) continue;
    long j = om_ep_sole_consumer(api, nodes[i], sorted, n);
    if (j < 0 || (size_t)j == i || ok[j] != OM_LINK_MEMBER || has_prev[j]) continue;
    if (ok[i] == OM_LINK_HEAD && om_ep_small_output(api, nodes[i])) continue;
    next[i] = (int)j;
    has_prev[j] = 1;
  }
  for (size_t h = 0; !st && h < n; h++) {
    if (!ok[h] || has_prev[h] || next[h] < 0) continue; /* h heads a chain of two or more */
    const OrtNode* group[OM_CHAIN_MAX_MEMBERS];
    size_t at[OM_CHAIN_MAX_MEMBERS];
    long i = (long)h;
    while (!st && i >= 0) {
      size_t g = 0;
      for (; i >= 0 && g < OM_CHAIN_MAX_MEMBERS; i = next[i] >= 0 ? next[i] : -1) {
        group[g] = nodes[i];
        at[g++] = (size_t)i;
      }
      if (g < 2) break; /* a last piece of one node: claimed alone */
      st = ep->ep_api->EpGraphSupportInfo_AddNodesToFuse(info, group, g, NULL);
      for (size_t k = 0; !st && k < g; k++) next[at[k]] = OM_EP_FUSED;
    }
  }
  free(sorted);
  free(ok);
  free(has_prev);
  return st;
}
