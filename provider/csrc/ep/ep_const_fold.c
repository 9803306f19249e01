/* ep_const_fold.c - which claimed nodes the EP computes once, at session creation (GetCapability's side; the
 * computing is ep_compile_fold.c's). The contract is docs/constant-folding.md's, as far as the OrtGraph API lets a
 * plugin EP see it:
 *
 * A node is constant when the EP built its om_node (claim 1), it has at least one present input, each present
 * input is a constant initializer (ValueInfo_IsConstantInitializer: an initializer that is not a graph input, a
 * Constant node ORT made an initializer of, or, in a subgraph, one of an outer scope where ORT says so) or an
 * output of a constant node, none of its outputs is an output of its graph, and each present output has a fully
 * declared shape (ORT's shape inference), an element type of one or more bytes an element (om_ep_fold_type) and
 * at most OM_EP_FOLD_MAX_BYTES bytes. The constant nodes connected by their values form a group; each group one
 * of whose values something outside it reads becomes one fused node with no inputs (constant initializers
 * dropped: the group reads them at Compile). A structured node (OM_F_STRUCT) the EP claims that reads a group's
 * value (Reshape's family excepted: its kernel aliases its input) is marked OM_EP_FOLD_READER: claimed as a
 * compiled node of its own, it gets the value as a constant input at Compile. Run before the element-wise chains,
 * which then skip both. Knows nothing of math. */
#include "ep_const_fold.h"

#include <stdlib.h>

#include "core/om_types.h"   /* om_type_size */
#include "ep_capability.h" /* om_ep_value_type, om_ep_value_static_count */
#include "node/node_family.h" /* om_family_of, om_family_reshape */

typedef struct om_node_at {
  const OrtNode* node;
  size_t i;
} om_node_at;

static int om_node_at_cmp(const void* a, const void* b) {
  uintptr_t x = (uintptr_t)((const om_node_at*)a)->node, y = (uintptr_t)((const om_node_at*)b)->node;
  return x < y ? -1 : x > y;
}

/* The index of `node` among the graph's nodes, -1 when it is not one (a node of another graph). */
static long om_index_of(const OrtNode* node, const om_node_at* sorted, size_t n) {
  om_node_at key = {node, 0};
  const om_node_at* hit = node ? bsearch(&key, sorted, n, sizeof *sorted, om_node_at_cmp) : NULL;
  return hit ? (long)hit->i : -1;
}

int om_ep_fold_type(int type) {
  switch (type) {
    case 1: case 2: case 3: case 4: case 5: case 6: case 7: case 9: case 10: case 11: case 12: case 13: /* bytes */
    case 16: case 17: case 18: case 19: case 20: /* bfloat16 and the float8 types */
      return 1;
    default: /* strings, complex, the 4-bit types, unknown */
      return 0;
  }
}

/* A node's inputs or outputs (ORT's value infos, NULL for an absent one) into a malloc'ed array. */
static OrtStatus* om_values(const OrtApi* api, const OrtNode* node, int outputs, const OrtValueInfo*** vs, size_t* n) {
  *vs = NULL;
  OrtStatus* st = outputs ? api->Node_GetNumOutputs(node, n) : api->Node_GetNumInputs(node, n);
  if (st) return st;
  *vs = calloc(*n + 1, sizeof **vs);
  if (!*vs) return om_ep_error(api, ORT_FAIL, "out of memory");
  if (*n) st = outputs ? api->Node_GetOutputs(node, *vs, *n) : api->Node_GetInputs(node, *vs, *n);
  return st;
}

/* -1 when node may not be folded whatever its inputs; else the count of its present inputs that are not constant
 * initializers (each must then be an output of a constant node). */
static long om_fold_pending(const OrtApi* api, const OrtNode* node) {
  const OrtValueInfo** vs = NULL;
  size_t n = 0, present = 0;
  long pending = 0;
  OrtStatus* st = om_values(api, node, 0, &vs, &n);
  for (size_t i = 0; !st && i < n; i++) {
    if (!vs[i]) continue;
    const char* name = NULL;
    st = api->GetValueInfoName(vs[i], &name);
    if (st || !name || !name[0]) continue;
    present++;
    bool is_const = false;
    st = api->ValueInfo_IsConstantInitializer(vs[i], &is_const);
    if (!st && !is_const) pending++;
  }
  free((void*)vs);
  vs = NULL;
  if (!st && present == 0) pending = -1;
  if (!st && pending >= 0) st = om_values(api, node, 1, &vs, &n);
  for (size_t k = 0; !st && pending >= 0 && k < n; k++) {
    if (!vs[k]) continue;
    bool graph_out = true;
    st = api->ValueInfo_IsGraphOutput(vs[k], &graph_out);
    int type = om_ep_value_type(api, vs[k]);
    long long count = om_ep_value_static_count(api, vs[k]);
    size_t size = om_ep_fold_type(type) ? om_type_size(type) : 0;
    if (st || graph_out || size == 0 || count < 0 || count > OM_EP_FOLD_MAX_BYTES / (long long)size)
      pending = -1;
  }
  free((void*)vs);
  if (st) {
    api->ReleaseStatus(st);
    return -1;
  }
  return pending;
}

/* The nodes that read `v` (each entry one input slot; implicit uses by a subgraph: index < 0). */
static OrtStatus* om_consumers(const OrtApi* api, const OrtValueInfo* v, const OrtNode*** who, int64_t** idx,
                               size_t* k) {
  *who = NULL;
  *idx = NULL;
  OrtStatus* st = api->ValueInfo_GetValueNumConsumers(v, k);
  if (st || *k == 0) return st;
  *who = calloc(*k, sizeof **who);
  *idx = calloc(*k, sizeof **idx);
  if (!*who || !*idx) return om_ep_error(api, ORT_FAIL, "out of memory");
  return api->ValueInfo_GetValueConsumers(v, *who, *idx, *k);
}

static size_t om_root(size_t* parent, size_t i) {
  while (parent[i] != i) i = parent[i] = parent[parent[i]];
  return i;
}

typedef struct om_fold_work {
  const OrtApi* api;
  const OrtNode* const* nodes;
  const int* claim;
  const om_node_at* sorted;
  long* pending;  /* per node: om_fold_pending, counted down; -1 not foldable */
  char* folded;   /* per node: constant */
  char* external; /* per node: a value of it is read outside its group (or by a node not yet constant) */
  char* reader;   /* per node: a structured claimed node, not constant, that reads a constant node's value */
  size_t* parent; /* union-find of the groups */
  size_t* queue;
  size_t n, head, tail;
} om_fold_work;

/* Called once for each use of one of node i's values: j the reading node's index (-1 when it is not one of the
 * graph's nodes), slot its input index (< 0: an implicit use by a subgraph). */
typedef void (*om_fold_use_fn)(om_fold_work* w, size_t i, long j, int64_t slot);

/* Calls `use` for each use of each of node i's present outputs. */
static OrtStatus* om_fold_each_use(om_fold_work* w, size_t i, om_fold_use_fn use) {
  const OrtValueInfo** outs = NULL;
  size_t m = 0;
  OrtStatus* st = om_values(w->api, w->nodes[i], 1, &outs, &m);
  for (size_t k = 0; !st && k < m; k++) {
    if (!outs[k]) continue;
    const OrtNode** who = NULL;
    int64_t* idx = NULL;
    size_t c = 0;
    st = om_consumers(w->api, outs[k], &who, &idx, &c);
    for (size_t e = 0; !st && e < c; e++) use(w, i, om_index_of(who[e], w->sorted, w->n), idx[e]);
    free((void*)who);
    free(idx);
  }
  free((void*)outs);
  return st;
}

/* Node i is constant: count down the inputs pending in its readers, queue those that become constant. */
static void om_fold_spread(om_fold_work* w, size_t i, long j, int64_t slot) {
  (void)i;
  if (j < 0 || slot < 0 || w->pending[j] <= 0) return;
  if (--w->pending[j] == 0) w->queue[w->tail++] = (size_t)j;
}

/* Whether a claimed node reading a constant node's value should take it as a constant input: a structured row,
 * but not Reshape's family, whose registered kernel hands ORT input 0's buffer as its output (no copy), which a
 * compiled node cannot. */
static int om_fold_reader_kind(const OrtApi* api, const OrtNode* node) {
  const char *op = NULL, *domain = NULL;
  OrtStatus* st = api->Node_GetOperatorType(node, &op);
  if (!st) st = api->Node_GetDomain(node, &domain);
  if (st) api->ReleaseStatus(st);
  int row = st || !domain || !op ? -1 : om_op_find_in(domain, op);
  return row >= 0 && (om_op_row(row)->flags & OM_F_STRUCT) && om_family_of(row) != &om_family_reshape;
}

/* After the constant nodes are known, for constant node i: join it to the constant nodes reading it, and note
 * when a non-constant node, a subgraph or another graph reads one of its values. */
static void om_fold_join(om_fold_work* w, size_t i, long j, int64_t slot) {
  if (j < 0 || slot < 0 || !w->folded[j]) w->external[i] = 1;
  if (j >= 0 && slot >= 0 && !w->folded[j] && w->claim[j] == 1 && om_fold_reader_kind(w->api, w->nodes[j]))
    w->reader[j] = 1;
  if (j >= 0 && slot >= 0 && w->folded[j]) w->parent[om_root(w->parent, (size_t)j)] = om_root(w->parent, i);
}

OrtStatus* om_ep_fold_groups(const om_ep* ep, const OrtNode* const* nodes, size_t n, int* claim,
                             OrtEpGraphSupportInfo* info) {
  const OrtApi* api = ep->api;
  om_node_at* sorted = malloc(n * sizeof *sorted);
  om_fold_work w = {api, nodes, claim, sorted, calloc(n, sizeof(long)), calloc(n, 1), calloc(n, 1), calloc(n, 1),
                    calloc(n, sizeof(size_t)), calloc(n, sizeof(size_t)), n, 0, 0};
  const OrtNode** group = calloc(n, sizeof *group);
  OrtStatus* st = sorted && w.pending && w.folded && w.external && w.reader && w.parent && w.queue && group
                      ? NULL
                      : om_ep_error(api, ORT_FAIL, "out of memory");
  for (size_t i = 0; !st && i < n; i++) {
    sorted[i] = (om_node_at){nodes[i], i};
    w.parent[i] = i;
    w.pending[i] = claim[i] == 1 ? om_fold_pending(api, nodes[i]) : -1;
    if (w.pending[i] == 0) w.queue[w.tail++] = i;
  }
  if (!st) qsort(sorted, n, sizeof *sorted, om_node_at_cmp);
  while (!st && w.head < w.tail) {
    size_t i = w.queue[w.head++];
    w.folded[i] = 1;
    st = om_fold_each_use(&w, i, om_fold_spread);
  }
  for (size_t i = 0; !st && i < n; i++)
    if (w.folded[i]) st = om_fold_each_use(&w, i, om_fold_join);
  /* one fused node per group (members in graph order) one of whose values is read outside it */
  for (size_t r = 0; !st && r < n; r++) {
    if (!w.folded[r] || om_root(w.parent, r) != r) continue;
    size_t g = 0;
    int read_outside = 0;
    for (size_t i = 0; i < n; i++)
      if (w.folded[i] && om_root(w.parent, i) == r) {
        group[g++] = nodes[i];
        read_outside |= w.external[i];
      }
    if (!read_outside) continue; /* nothing reads it: its nodes are claimed as usual */
    struct {
      uint32_t ort_version_supported;
      bool drop_constant_initializers;
    } options = {OM_EP_ORT_VERSION, true}; /* OrtNodeFusionOptions (API 23) */
    st = ep->ep_api->EpGraphSupportInfo_AddNodesToFuse(info, group, g, &options);
    for (size_t i = 0; !st && i < n; i++)
      if (w.folded[i] && om_root(w.parent, i) == r) claim[i] = OM_EP_FOLDED;
  }
  for (size_t j = 0; !st && j < n; j++) /* every group with a reader outside it was handed over above */
    if (w.reader[j] && claim[j] == 1) claim[j] = OM_EP_FOLD_READER;
  free(sorted);
  free(w.reader);
  free(w.pending);
  free(w.folded);
  free(w.external);
  free(w.parent);
  free(w.queue);
  free((void*)group);
  return st;
}
