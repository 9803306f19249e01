/* ep_compile_fold.c - a group of constant nodes (ep_const_fold.c) as a compiled node: Compile computes each
 * member once, in an order where each comes after the members it reads, on the constant initializers' own bytes
 * (ValueInfo_GetInitializerValue) and the earlier members' outputs: om_node_create as GetCapability built it,
 * om_node_output_shapes, om_node_run_outputs with every output the node has, on the calling thread (no
 * parallel-for): the calls, and so the bits, of onemodel_ep.fold. It keeps the outputs of the fused node (those
 * read outside the group); Compute only copies them into the outputs ORT gives. A member that fails (its run, an
 * output over OM_EP_FOLD_MAX_BYTES, an input neither constant nor a member's) keeps the group unfolded: its error
 * is kept and each run returns it, as the unfolded node would fail at run time. Knows nothing of math. */
#include "ep_compile_fold.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ep_capability.h"  /* om_ep_node_create, om_ep_graph_opset, om_ep_value_type */
#include "ep_const_fold.h"  /* OM_EP_FOLD_MAX_BYTES, om_ep_fold_type */
#include "onemodel_test.h" /* om_test_ep_fold_runs */

typedef struct om_fold_value {
  char* name;
  int type;
  size_t rank;
  int64_t shape[OM_NODE_MAX_RANK];
  void* data; /* malloc'ed, at least one byte */
  size_t bytes;
} om_fold_value;

struct om_ep_folded {
  const OrtApi* api;
  om_fold_value* values; /* every member output computed */
  size_t n_values;
  long* out_value; /* per output of the fused node: its index in values */
  size_t n_out;
  char* error; /* the first member's failure, or NULL */
};

static long long om_fold_groups, om_fold_nodes;

long long om_ep_fold_runs(int nodes) {
  return __atomic_load_n(nodes ? &om_fold_nodes : &om_fold_groups, __ATOMIC_RELAXED);
}

#ifdef OM_TEST_ENTRIES /* built with ONEMODEL_TEST_ENTRIES=1 only (onemodel_test.h) */
long long om_test_ep_fold_runs(int nodes) { return om_ep_fold_runs(nodes); }
#endif

int om_ep_fold_is_group(const OrtApi* api, const OrtNode* fused) {
  size_t n = 1;
  OrtStatus* st = api->Node_GetNumInputs(fused, &n);
  if (st) {
    api->ReleaseStatus(st);
    return 0;
  }
  return n == 0;
}

static long om_fold_find(const om_ep_folded* f, const char* name) {
  for (size_t i = 0; name && i < f->n_values; i++)
    if (strcmp(f->values[i].name, name) == 0) return (long)i;
  return -1;
}

/* The value of input `v` of a member: a member output computed before (*ready 1), a constant initializer (*ready 1),
 * or not yet (*ready 0: a member not run yet makes it; -1: nothing does). */
typedef struct om_fold_in {
  const void* data;
  const int64_t* shape;
  size_t rank;
} om_fold_in;

static OrtStatus* om_fold_input(const om_ep_folded* f, const OrtValueInfo* v, om_fold_in* in, int* ready) {
  const OrtApi* api = f->api;
  static const int64_t rank0[1] = {0};
  *in = (om_fold_in){NULL, NULL, 0};
  *ready = 1;
  const char* name = NULL;
  OrtStatus* st = v ? api->GetValueInfoName(v, &name) : NULL;
  if (st || !v || !name || !name[0]) return st; /* absent */
  long at = om_fold_find(f, name);
  if (at >= 0) {
    const om_fold_value* x = &f->values[at];
    *in = (om_fold_in){x->data, x->rank ? x->shape : rank0, x->rank};
    return NULL;
  }
  bool is_const = false;
  const OrtValue* value = NULL;
  st = api->ValueInfo_IsConstantInitializer(v, &is_const);
  if (!st && is_const) st = api->ValueInfo_GetInitializerValue(v, &value);
  if (st || !value) {
    if (st) api->ReleaseStatus(st);
    *ready = 0;
    return NULL;
  }
  ONNXTensorElementDataType et;
  st = api->GetTensorElementTypeAndShapeDataReference(value, &et, &in->shape, &in->rank);
  void* p = NULL;
  if (!st) st = api->GetTensorMutableData((OrtValue*)value, &p);
  if (!st && !in->shape) in->shape = rank0;
  in->data = p;
  return st;
}

static char* om_fold_strdup(const char* s) {
  size_t len = strlen(s) + 1;
  char* copy = malloc(len);
  if (copy) memcpy(copy, s, len);
  return copy;
}

/* Keep the failure `msg` (the first) and stop computing. */
static void om_fold_fail(om_ep_folded* f, const char* msg) {
  if (!f->error) f->error = om_fold_strdup(msg ? msg : "constant group failed");
}

/* Run member `node` when its inputs are ready: 1 run (or failed: f->error), 0 not ready yet. */
static int om_fold_run(const om_ep* ep, om_ep_folded* f, const OrtNode* node, int opset) {
  const OrtApi* api = ep->api;
  size_t n = 0, m = 0;
  OrtStatus* st = api->Node_GetNumInputs(node, &n);
  if (!st) st = api->Node_GetNumOutputs(node, &m);
  const OrtValueInfo** vs = st ? NULL : calloc(n + m + 1, sizeof *vs);
  om_fold_in* ins = st ? NULL : calloc(n + 1, sizeof *ins);
  const void** data = st ? NULL : calloc(n + 1, sizeof *data);
  const int64_t** shapes = st ? NULL : calloc(n + 1, sizeof *shapes);
  size_t* ranks = st ? NULL : calloc(n + 1, sizeof *ranks);
  int64_t* out_shapes = st ? NULL : calloc((m + 1) * OM_NODE_MAX_RANK, sizeof *out_shapes);
  size_t* out_ranks = st ? NULL : calloc(m + 1, sizeof *out_ranks);
  void** outs = st ? NULL : calloc(m + 1, sizeof *outs);
  char err[768] = "";
  int done = 1;
  om_node* on = NULL;
  if (!st && (!vs || !ins || !data || !shapes || !ranks || !out_shapes || !out_ranks || !outs))
    snprintf(err, sizeof err, "out of memory");
  if (!st && !err[0] && n) st = api->Node_GetInputs(node, vs, n);
  if (!st && !err[0] && m) st = api->Node_GetOutputs(node, vs + n, m);
  for (size_t i = 0; !st && !err[0] && done && i < n; i++) {
    int ready = 1;
    st = om_fold_input(f, vs[i], &ins[i], &ready);
    done = ready;
    data[i] = ins[i].data;
    shapes[i] = ins[i].shape;
    ranks[i] = ins[i].rank;
  }
  while (vs && m > 0 && !vs[n + m - 1]) m--; /* trailing absent outputs: not asked for, as GetCapability built it */
  if (!st && !err[0] && done) {
    on = om_ep_node_create(ep, node, opset, err, sizeof err);
    if (on && om_node_output_shapes(on, n, data, shapes, ranks, m, out_shapes, out_ranks, err, sizeof err) != 0)
      err[0] = err[0] ? err[0] : '?';
  }
  for (size_t k = 0; !st && !err[0] && done && k < m; k++) {
    size_t count = 1, size = om_type_size(om_node_output_type_at(on, k));
    for (size_t d = 0; d < out_ranks[k]; d++) count *= (size_t)out_shapes[k * OM_NODE_MAX_RANK + d];
    if (!om_ep_fold_type(om_node_output_type_at(on, k)) || size == 0 ||
        count > (size_t)OM_EP_FOLD_MAX_BYTES / size)
      snprintf(err, sizeof err, "constant group: output %zu of a node is over %lld bytes or of a type not kept", k,
               OM_EP_FOLD_MAX_BYTES);
    else if (!(outs[k] = malloc(count > 0 ? count * size : 1)))
      snprintf(err, sizeof err, "out of memory");
  }
  if (!st && !err[0] && done &&
      om_node_run_outputs(on, n, data, shapes, ranks, m, outs, out_shapes, out_ranks, NULL, NULL, err, sizeof err) !=
          0)
    err[0] = err[0] ? err[0] : '?';
  /* keep the named outputs */
  for (size_t k = 0; !st && !err[0] && done && k < m; k++) {
    const char* name = NULL;
    if (vs[n + k]) st = api->GetValueInfoName(vs[n + k], &name);
    if (st || !name || !name[0]) continue;
    om_fold_value* grown = realloc(f->values, (f->n_values + 1) * sizeof *grown);
    char* copy = om_fold_strdup(name);
    if (grown) f->values = grown;
    if (!grown || !copy) {
      free(copy);
      snprintf(err, sizeof err, "out of memory");
      break;
    }
    om_fold_value* x = &f->values[f->n_values++];
    size_t count = 1, size = om_type_size(om_node_output_type_at(on, k));
    for (size_t d = 0; d < out_ranks[k]; d++) count *= (size_t)out_shapes[k * OM_NODE_MAX_RANK + d];
    x->name = copy;
    x->type = om_node_output_type_at(on, k);
    x->rank = out_ranks[k];
    memcpy(x->shape, out_shapes + k * OM_NODE_MAX_RANK, out_ranks[k] * sizeof *x->shape);
    x->data = outs[k];
    x->bytes = count * size;
    outs[k] = NULL; /* now the value's */
  }
  if (st) {
    snprintf(err, sizeof err, "constant group: %s", api->GetErrorMessage(st));
    api->ReleaseStatus(st);
  }
  if (err[0]) om_fold_fail(f, err);
  for (size_t k = 0; outs && k < m; k++) free(outs[k]);
  om_node_destroy(on);
  free((void*)vs);
  free(ins);
  free((void*)data);
  free((void*)shapes);
  free(ranks);
  free(out_shapes);
  free(out_ranks);
  free(outs);
  return done || err[0];
}

OrtStatus* om_ep_fold_compile(const om_ep* ep, const OrtGraph* graph, const OrtNode* fused, om_ep_folded** out) {
  const OrtApi* api = ep->api;
  *out = NULL;
  size_t n = 0, n_out = 0;
  OrtStatus* st = api->Graph_GetNumNodes(graph, &n);
  if (!st) st = api->Node_GetNumOutputs(fused, &n_out);
  if (st) return st;
  om_ep_folded* f = calloc(1, sizeof *f);
  const OrtNode** nodes = calloc(n + 1, sizeof *nodes);
  char* ran = calloc(n + 1, 1);
  const OrtValueInfo** outs = calloc(n_out + 1, sizeof *outs);
  if (f) f->out_value = calloc(n_out + 1, sizeof *f->out_value);
  if (!f || !nodes || !ran || !outs || !f->out_value) st = om_ep_error(api, ORT_FAIL, "out of memory");
  if (!st) {
    f->api = api;
    f->n_out = n_out;
    st = n ? api->Graph_GetNodes(graph, nodes, n) : NULL;
  }
  int opset = st ? 0 : om_ep_graph_opset(api, graph);
  for (size_t placed = 0; !st && !f->error && placed < n;) {
    size_t before = placed;
    for (size_t i = 0; i < n && !f->error; i++)
      if (!ran[i] && om_fold_run(ep, f, nodes[i], opset)) {
        ran[i] = 1;
        placed++;
      }
    if (placed == before) om_fold_fail(f, "constant group: a node's input is neither constant nor computed in it");
  }
  if (!st && n_out) st = api->Node_GetOutputs(fused, outs, n_out);
  for (size_t k = 0; !st && k < n_out; k++) {
    const char* name = NULL;
    f->out_value[k] = -1;
    if (outs[k]) st = api->GetValueInfoName(outs[k], &name);
    if (!st && !f->error && (f->out_value[k] = om_fold_find(f, name)) < 0)
      om_fold_fail(f, "constant group: an output of the fused node is no node's");
  }
  free((void*)nodes);
  free(ran);
  free((void*)outs);
  if (st) {
    om_ep_fold_destroy(f);
    return st;
  }
  __atomic_fetch_add(&om_fold_groups, 1, __ATOMIC_RELAXED);
  __atomic_fetch_add(&om_fold_nodes, (long long)n, __ATOMIC_RELAXED);
  *out = f;
  return NULL;
}

/* The value `name` that exactly one of the n groups kept, NULL when none or several did (or that one failed). */
static const om_fold_value* om_fold_lookup(const om_ep_folded* const* folded, size_t n, const char* name) {
  const om_fold_value* hit = NULL;
  for (size_t g = 0; name && g < n; g++) {
    long at = folded[g] ? om_fold_find(folded[g], name) : -1;
    if (at < 0) continue;
    if (hit || folded[g]->error) return NULL;
    hit = &folded[g]->values[at];
  }
  return hit;
}

OrtStatus* om_ep_fold_constant_inputs(const OrtApi* api, const om_ep_folded* const* folded, size_t n_folded,
                                      const OrtNode* node, om_node* on) {
  size_t n = 0;
  OrtStatus* st = n_folded ? api->Node_GetNumInputs(node, &n) : NULL;
  if (st || n == 0) return st;
  const OrtValueInfo** vs = calloc(n, sizeof *vs);
  if (!vs) return om_ep_error(api, ORT_FAIL, "out of memory");
  st = api->Node_GetInputs(node, vs, n);
  for (size_t i = 0; !st && i < n; i++) {
    const char* name = NULL;
    bool is_const = false;
    if (!vs[i]) continue;
    st = api->GetValueInfoName(vs[i], &name);
    if (!st) st = api->ValueInfo_IsConstantInitializer(vs[i], &is_const);
    const om_fold_value* x = st || is_const ? NULL : om_fold_lookup(folded, n_folded, name);
    size_t count = 1;
    for (size_t d = 0; x && d < x->rank; d++) count *= (size_t)x->shape[d];
    /* not a kept value, or (its type or declared size differ) not this one: read at each run as before */
    if (!x || om_ep_value_type(api, vs[i]) != x->type || om_ep_value_static_count(api, vs[i]) != (long long)count)
      continue;
    char err[512];
    if (om_node_set_constant_input(on, i, x->data, x->shape, x->rank, err, sizeof err) != 0)
      st = om_ep_error(api, ORT_INVALID_ARGUMENT, err);
  }
  free((void*)vs);
  return st;
}

OrtStatus* om_ep_fold_compute(const om_ep_folded* f, OrtKernelContext* ctx) {
  const OrtApi* api = f->api;
  if (f->error) return om_ep_error(api, ORT_INVALID_ARGUMENT, f->error);
  OrtStatus* st = NULL;
  for (size_t k = 0; !st && k < f->n_out; k++) {
    if (f->out_value[k] < 0) continue;
    const om_fold_value* x = &f->values[f->out_value[k]];
    OrtValue* o = NULL;
    void* p = NULL;
    st = api->KernelContext_GetOutput(ctx, k, x->shape, x->rank, &o);
    if (!st && o && x->bytes) st = api->GetTensorMutableData(o, &p);
    if (!st && p) memcpy(p, x->data, x->bytes);
  }
  return st;
}

void om_ep_fold_destroy(om_ep_folded* f) {
  if (!f) return;
  for (size_t i = 0; i < f->n_values; i++) {
    free(f->values[i].name);
    free(f->values[i].data);
  }
  free(f->values);
  free(f->out_value);
  free(f->error);
  free(f);
}
