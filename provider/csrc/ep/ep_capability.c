/* ep_capability.c - which nodes of a graph the execution provider claims: exactly those om_node_create accepts
 * (op, opset, input element types and attributes: the function the rewriter asks), each claimed alone so ORT's
 * own shape inference and memory planning stay in charge: for a registered kernel, or (dispatch=compile) as a
 * compiled node of its own. ORT calls this once per graph, subgraphs included (theirs before their parent's).
 * Strict mode (session option `strict`): every computing node (core/om_computing.c) it leaves is noted with the
 * reason om_ep_build gives, and session creation fails with one error listing them all (om_ep_strict_claim).
 * Knows nothing of math. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ep_capability.h"
#include "ep_attention_fuse.h"
#include "ep_const_fold.h"
#include "ep_fuse.h"
#include "ep_qdq.h"
#include "ort/ort_attrs.h"

/* ---- attributes of an OrtNode -------------------------------------------------------------------------------- */
typedef struct om_node_attr_ctx {
  const OrtApi* api;
  const OrtNode* node;
} om_node_attr_ctx;

/* The attribute `name` and its type; NULL when the node has none (older runtimes answer with an error status). */
static const OrtOpAttr* om_node_attr(const om_node_attr_ctx* c, const char* name, OrtOpAttrType* type) {
  const OrtOpAttr* attr = NULL;
  OrtStatus* st = c->api->Node_GetAttributeByName(c->node, name, &attr);
  if (st) {
    c->api->ReleaseStatus(st);
    return NULL;
  }
  if (!attr) return NULL;
  st = c->api->OpAttr_GetType(attr, type);
  if (st) {
    c->api->ReleaseStatus(st);
    *type = ORT_OP_ATTR_UNDEFINED;
  }
  return attr;
}

/* Attribute `name` when it has type `want`; NULL with *r = 1 when absent, or *r = -1 and "must be <what>" in err
 * when of another type. */
static const OrtOpAttr* om_na_typed(const om_node_attr_ctx* c, const char* name, OrtOpAttrType want, const char* what,
                                    int* r, char* err, size_t errlen) {
  OrtOpAttrType t;
  const OrtOpAttr* a = om_node_attr(c, name, &t);
  *r = 1;
  if (a && t != want) {
    snprintf(err, errlen, "attribute '%s' must be %s", name, what);
    *r = -1;
    return NULL;
  }
  return a;
}

/* A scalar attribute of type `want` (`what` names it in the message) into out (size bytes): 0, 1 when absent, -1
 * with a message in err when of another type or unreadable. */
static int om_na_scalar(const void* ctx, const char* name, OrtOpAttrType want, const char* what, void* out, size_t size,
                        char* err, size_t errlen) {
  const om_node_attr_ctx* c = ctx;
  int r;
  const OrtOpAttr* a = om_na_typed(c, name, want, what, &r, err, errlen);
  if (!a) return r;
  size_t got = 0;
  OrtStatus* st = c->api->ReadOpAttr(a, want, out, size, &got);
  if (!st) return 0;
  c->api->ReleaseStatus(st);
  snprintf(err, errlen, "attribute '%s' must be %s", name, what);
  return -1;
}
static int om_na_int(const void* ctx, const char* name, int64_t* out, char* err, size_t errlen) {
  return om_na_scalar(ctx, name, ORT_OP_ATTR_INT, "an integer", out, sizeof *out, err, errlen);
}
static int om_na_float(const void* ctx, const char* name, float* out, char* err, size_t errlen) {
  return om_na_scalar(ctx, name, ORT_OP_ATTR_FLOAT, "a float", out, sizeof *out, err, errlen);
}

static int om_na_string(const void* ctx, const char* name, char* out, size_t cap, char* err, size_t errlen) {
  const om_node_attr_ctx* c = ctx;
  int r;
  const OrtOpAttr* a = om_na_typed(c, name, ORT_OP_ATTR_STRING, "a string", &r, err, errlen);
  if (!a) return r;
  size_t got = 0;
  OrtStatus* st = c->api->ReadOpAttr(a, ORT_OP_ATTR_STRING, out, cap - 1, &got);
  if (st) {
    c->api->ReleaseStatus(st);
    snprintf(err, errlen, "attribute '%s' is too long", name);
    return -1;
  }
  out[got < cap ? got : cap - 1] = '\0';
  return 0;
}

static int om_na_ints(const void* ctx, const char* name, int64_t* out, size_t cap, size_t* n, char* err,
                      size_t errlen) {
  const om_node_attr_ctx* c = ctx;
  int r;
  const OrtOpAttr* a = om_na_typed(c, name, ORT_OP_ATTR_INTS, "a list of integers", &r, err, errlen);
  if (!a) return r;
  size_t got = 0;
  OrtStatus* st = c->api->ReadOpAttr(a, ORT_OP_ATTR_INTS, out, out ? cap * sizeof *out : 0, &got);
  if (st && !out) c->api->ReleaseStatus(st); /* asked for the length: ORT gives it with a "too small" status */
  else if (st) {
    c->api->ReleaseStatus(st);
    snprintf(err, errlen, "attribute '%s' has %zu entries, more than the %zu expected", name, got / sizeof *out,
             cap);
    return -1;
  }
  *n = got / sizeof *out;
  return 0;
}

static int om_na_floats(const void* ctx, const char* name, float* out, size_t cap, size_t* n, char* err,
                        size_t errlen) {
  const om_node_attr_ctx* c = ctx;
  int r;
  const OrtOpAttr* a = om_na_typed(c, name, ORT_OP_ATTR_FLOATS, "a list of floats", &r, err, errlen);
  if (!a) return r;
  float all[64];
  size_t got = 0;
  OrtStatus* st = c->api->ReadOpAttr(a, ORT_OP_ATTR_FLOATS, all, sizeof all, &got);
  if (st) {
    c->api->ReleaseStatus(st);
    snprintf(err, errlen, "attribute '%s' has %zu entries, more than %zu", name, got / sizeof *all,
             sizeof all / sizeof *all);
    return -1;
  }
  *n = got / sizeof *all;
  if (out) memcpy(out, all, (*n < cap ? *n : cap) * sizeof *out); /* the first cap entries; *n counts them all */
  return 0;
}

/* A list of strings: ReadOpAttr gives them one after another, each ended by a NUL. */
static int om_na_strings(const void* ctx, const char* name, char* out, size_t width, size_t cap, size_t* n,
                         char* err, size_t errlen) {
  const om_node_attr_ctx* c = ctx;
  int r;
  const OrtOpAttr* a = om_na_typed(c, name, ORT_OP_ATTR_STRINGS, "a list of strings", &r, err, errlen);
  if (!a) return r;
  if (!om_attrs_strings_readable()) { /* its kernel could not read the list: not served (ort_attrs.h) */
    *n = (size_t)-1;
    return 0;
  }
  char all[1024];
  size_t got = 0;
  OrtStatus* st = c->api->ReadOpAttr(a, ORT_OP_ATTR_STRINGS, all, sizeof all, &got);
  if (st) {
    c->api->ReleaseStatus(st);
    snprintf(err, errlen, "attribute '%s' is too long (%zu bytes)", name, got);
    return -1;
  }
  size_t k = 0;
  for (size_t at = 0; at < got; k++) {
    size_t len = 0;
    while (at + len < got && all[at + len]) len++;
    if (k < cap) {
      if (len >= width) {
        snprintf(err, errlen, "attribute '%s': entry %zu is too long (%zu bytes)", name, k, len);
        return -1;
      }
      memcpy(out + k * width, all + at, len);
      out[k * width + len] = '\0';
    }
    at += len + 1;
  }
  *n = k;
  return 0;
}

/* A tensor attribute (ConstantOfShape's `value`): ORT's OrtValue of it (member 362), read by om_ort_tensor1. */
static int om_na_tensor1(const void* ctx, const char* name, int* type, int64_t* n, unsigned char* bytes, char* err,
                         size_t errlen) {
  const om_node_attr_ctx* c = ctx;
  int r;
  const OrtOpAttr* a = om_na_typed(c, name, ORT_OP_ATTR_TENSOR, "a tensor", &r, err, errlen);
  if (!a) return r;
  OrtValue* v = NULL;
  OrtStatus* st = c->api->OpAttr_GetTensorAttributeAsOrtValue(a, &v);
  if (st || !v) {
    snprintf(err, errlen, "attribute '%s': %s", name, st ? c->api->GetErrorMessage(st) : "no tensor");
    if (st) c->api->ReleaseStatus(st);
    return -1;
  }
  r = om_ort_tensor1(c->api, name, v, type, n, bytes, err, errlen);
  c->api->ReleaseValue(v);
  return r;
}

int om_ep_attr_int(const OrtApi* api, const OrtNode* node, const char* name, int64_t* out) {
  om_node_attr_ctx c = {api, node};
  char err[160];
  return om_na_int(&c, name, out, err, sizeof err);
}

int om_ep_attr_float(const OrtApi* api, const OrtNode* node, const char* name, float* out) {
  om_node_attr_ctx c = {api, node};
  char err[160];
  return om_na_float(&c, name, out, err, sizeof err);
}

/* ---- one node ------------------------------------------------------------------------------------------------ */
/* The tensor type of a node input or output (owned by v); NULL when absent, unknown or not a tensor. */
static const OrtTensorTypeAndShapeInfo* om_value_tensor(const OrtApi* api, const OrtValueInfo* v) {
  const OrtTypeInfo* ti = NULL; /* owned by v */
  OrtStatus* st = v ? api->GetValueInfoTypeInfo(v, &ti) : NULL;
  if (st || !ti) {
    if (st) api->ReleaseStatus(st);
    return NULL;
  }
  ONNXType ot = ONNX_TYPE_UNKNOWN;
  st = api->GetOnnxTypeFromTypeInfo(ti, &ot);
  if (st) api->ReleaseStatus(st);
  if (st || ot != ONNX_TYPE_TENSOR) return NULL;
  const OrtTensorTypeAndShapeInfo* tsi = NULL;
  st = api->CastTypeInfoToTensorInfo(ti, &tsi);
  if (st) {
    api->ReleaseStatus(st);
    return NULL;
  }
  return tsi;
}

int om_ep_value_type(const OrtApi* api, const OrtValueInfo* v) {
  if (!v) return 0;
  const OrtTensorTypeAndShapeInfo* tsi = om_value_tensor(api, v);
  if (!tsi) return -1;
  ONNXTensorElementDataType et = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
  OrtStatus* st = api->GetTensorElementType(tsi, &et);
  if (st) {
    api->ReleaseStatus(st);
    return -1;
  }
  return et == ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED ? -1 : (int)et;
}

/* v's declared dimensions (-1 for a symbolic one) into dims[0..cap), their count into *rank; -1 where v has no
 * tensor shape or more than cap dimensions. */
static int om_value_dims(const OrtApi* api, const OrtValueInfo* v, int64_t* dims, size_t cap, size_t* rank) {
  const OrtTensorTypeAndShapeInfo* tsi = om_value_tensor(api, v);
  *rank = 0;
  OrtStatus* st = tsi ? api->GetDimensionsCount(tsi, rank) : NULL;
  if (!st && tsi && *rank <= cap) st = api->GetDimensions(tsi, dims, *rank);
  int bad = !tsi || st || *rank > cap;
  if (st) api->ReleaseStatus(st);
  return bad ? -1 : 0;
}

long long om_ep_value_count(const OrtApi* api, const OrtValueInfo* v) {
  size_t rank = 0;
  int64_t dims[16];
  if (om_value_dims(api, v, dims, 16, &rank) != 0) return -1;
  long long count = 1;
  for (size_t d = 0; d < rank; d++) {
    int64_t n = dims[d] < 0 ? 1 : dims[d] > (int64_t)1 << 40 ? (int64_t)1 << 40 : dims[d];
    count = n && count > ((long long)1 << 40) / n ? (long long)1 << 40 : count * n;
  }
  return count;
}

long long om_ep_value_static_count(const OrtApi* api, const OrtValueInfo* v) {
  size_t rank = 0;
  int64_t dims[OM_NODE_MAX_RANK];
  if (om_value_dims(api, v, dims, OM_NODE_MAX_RANK, &rank) != 0) return -1;
  long long count = 1;
  for (size_t d = 0; d < rank; d++) {
    if (dims[d] < 0) return -1;
    if (dims[d] > ((long long)1 << 40) || (dims[d] && count > ((long long)1 << 40) / dims[d])) return -1;
    count *= dims[d];
  }
  return count;
}

/* The rank the graph declares for a node input or output; 0 when it declares none (or the value is absent). */
static size_t om_value_rank(const OrtApi* api, const OrtValueInfo* v) {
  const OrtTensorTypeAndShapeInfo* tsi = om_value_tensor(api, v);
  size_t rank = 0;
  OrtStatus* st = tsi ? api->GetDimensionsCount(tsi, &rank) : NULL;
  if (st) {
    api->ReleaseStatus(st);
    rank = 0;
  }
  return rank;
}

/* The first of the n values vs whose declared rank is above OM_NODE_MAX_RANK (its index into *at, its rank
 * into *rank), 0 when none is. */
static int om_rank_above(const OrtApi* api, const OrtValueInfo* const* vs, size_t n, size_t* at, size_t* rank) {
  for (size_t i = 0; i < n; i++)
    if ((*rank = om_value_rank(api, vs[i])) > OM_NODE_MAX_RANK) {
      *at = i;
      return 1;
    }
  return 0;
}

/* 0 when no input (the n of ins) or output of `node` has a declared rank above OM_NODE_MAX_RANK, else -1 with err
 * saying which: its kernel would refuse every run where stock ORT runs it. */
static int om_ep_ranks_served(const OrtApi* api, const OrtNode* node, const OrtValueInfo* const* ins, size_t n,
                              const char* name, const char* op, char* err, size_t errlen) {
  size_t at = 0, rank = 0, m = 0;
  const char* what = "input";
  int above = om_rank_above(api, ins, n, &at, &rank);
  if (!above) {
    OrtStatus* st = api->Node_GetNumOutputs(node, &m);
    const OrtValueInfo* outs_s[8];
    const OrtValueInfo** outs = m <= 8 ? outs_s : malloc(m * sizeof *outs);
    if (!st && !outs) return 0; /* out of memory: left to run time, whose message names node, op and rank */
    if (!st && m) st = api->Node_GetOutputs(node, outs, m);
    if (st) api->ReleaseStatus(st);
    else above = om_rank_above(api, outs, m, &at, &rank);
    if (outs != outs_s) free((void*)outs);
    what = "output";
  }
  if (!above) return 0;
  snprintf(err, errlen, "node '%s' (op %s): %s %zu has rank %zu above %d", name, op, what, at, rank,
           OM_NODE_MAX_RANK);
  return -1;
}

/* Read `node`'s attributes as those of op-table row `row` (then edit(attrs, edit_ctx) when edit is not NULL) and
 * build its om_node over the n input types (n_outputs: attrs.n_outputs, 0 when unknown): 1 with *out set, 0 when
 * an attribute cannot be read (err says which), -1 when om_node_create refuses (err says why). */
static int om_ep_read_create(const om_ep* ep, const OrtNode* node, int row, int opset, size_t n, const int* types,
                             size_t n_outputs, om_ep_attrs_edit edit, const void* edit_ctx, om_node** out, char* err,
                             size_t errlen) {
  const OrtApi* api = ep->api;
  const char* name = NULL;
  OrtStatus* st = api->Node_GetName(node, &name);
  if (st) api->ReleaseStatus(st);
  if (st || !name) name = "";
  om_attrs attrs;
  om_attrs_defaults(&attrs);
  attrs.mode = ep->mode;
  attrs.path = ep->path;
  attrs.onnx_opset = opset;
  attrs.n_outputs = n_outputs;
  om_node_attr_ctx actx = {api, node};
  om_attr_source src = {&actx,         om_na_int,    om_na_float,    om_na_string,
                        om_na_ints,    om_na_floats, om_na_strings,  om_na_tensor1};
  char why[512];
  if (om_attrs_read(&src, om_op_row(row), 0, &attrs, why, sizeof why) != 0) {
    snprintf(err, errlen, "node '%s' (op %s): %s", name, om_op_row(row)->name, why);
    return 0;
  }
  if (edit) edit(&attrs, edit_ctx);
  *out = om_node_create(name, om_op_row(row)->key, n, types, &attrs, err, errlen);
  return *out ? 1 : -1;
}

om_node* om_ep_node_create_as(const om_ep* ep, const OrtNode* node, int row, int opset, size_t n, const int* types,
                              om_ep_attrs_edit edit, const void* edit_ctx, char* err, size_t errlen) {
  om_node* out = NULL;
  err[0] = '\0';
  if (om_op_row(row)->domain[0]) opset = 1; /* a com.microsoft row: version 1 of its domain */
  if (om_ep_read_create(ep, node, row, opset, n, types, 1, edit, edit_ctx, &out, err, errlen) <= 0 && !err[0])
    snprintf(err, errlen, "node not served");
  return out;
}

/* Build the om_node of `node`: 1 with *out set (the EP claims it); 0 when its attributes cannot be read (wrong
 * type, bad value), err naming node, op and attribute (claimed too: creating its kernel then fails with that
 * message instead of the node silently running on stock ORT); -1 when the EP leaves it to the next provider
 * (err says why where om_node_create did). */
static int om_ep_build(const om_ep* ep, const OrtNode* node, int opset, om_node** out, char* err, size_t errlen) {
  const OrtApi* api = ep->api;
  *out = NULL;
  err[0] = '\0';
  const char *domain = NULL, *op = NULL, *name = NULL;
  OrtStatus* st = api->Node_GetDomain(node, &domain);
  if (!st) st = api->Node_GetOperatorType(node, &op);
  if (!st) st = api->Node_GetName(node, &name);
  if (st) {
    api->ReleaseStatus(st);
    return -1;
  }
  if (!domain || !op) return -1;
  int row = om_op_find_in(domain, op);
  if (row < 0) {
    snprintf(err, errlen, "node '%s' (op %s): not an operator of OneModel EP", name ? name : "", op);
    return -1;
  }
  /* the graph's opset is the default domain's; a row of another domain (com.microsoft) reads the node's own
   * since-version, the opset of its domain that defines it */
  if (om_op_row(row)->domain[0]) opset = 0;
  if (opset <= 0) {
    int since = 0;
    st = api->Node_GetSinceVersion(node, &since);
    if (st) api->ReleaseStatus(st);
    else opset = since;
  }
  size_t n = 0;
  st = api->Node_GetNumInputs(node, &n);
  if (st) {
    api->ReleaseStatus(st);
    return -1;
  }
  if (n > 4096) return -1;
  const OrtValueInfo* vs_small[8];
  int types_small[8];
  const OrtValueInfo** vs = n <= 8 ? vs_small : malloc(n * sizeof *vs);
  int* types = n <= 8 ? types_small : malloc(n * sizeof *types);
  int result = -1;
  if (!vs || !types) goto done;
  st = n ? api->Node_GetInputs(node, vs, n) : NULL;
  if (st) {
    api->ReleaseStatus(st);
    goto done;
  }
  for (size_t i = 0; i < n; i++)
    if ((types[i] = om_ep_value_type(api, vs[i])) < 0) {
      snprintf(err, errlen, "node '%s' (op %s): input %zu has no known tensor element type", name ? name : "", op,
               i);
      goto done;
    }
  if (om_ep_ranks_served(api, node, vs, n, name ? name : "", op, err, errlen) != 0) goto done;
  size_t n_outputs = 0; /* the outputs the node has (Split's count), trailing absent ones (NULL) not counted */
  st = api->Node_GetNumOutputs(node, &n_outputs);
  if (st) {
    api->ReleaseStatus(st);
    n_outputs = 0;
  } else {
    const OrtValueInfo* outs_small[8];
    const OrtValueInfo** outs = n_outputs <= 8 ? outs_small : malloc(n_outputs * sizeof *outs);
    st = outs && n_outputs ? api->Node_GetOutputs(node, outs, n_outputs) : NULL;
    if (st) api->ReleaseStatus(st);
    else if (outs)
      while (n_outputs > 0 && !outs[n_outputs - 1]) n_outputs--;
    if (outs != outs_small) free(outs);
  }
  result = om_ep_read_create(ep, node, row, opset, n, types, n_outputs, NULL, NULL, out, err, errlen);
done:
  if (vs != vs_small) free((void*)vs);
  if (types != types_small) free(types);
  return result;
}

/* 1 when the EP claims `node` with an om_node built, 0 when it claims it for its error, -1 when it leaves it
 * (err then says why). */
static int om_ep_claims(const om_ep* ep, const OrtNode* node, int opset, char* err, size_t errlen) {
  om_node* probe = NULL;
  int r = om_ep_build(ep, node, opset, &probe, err, errlen);
  om_node_destroy(probe);
  if (r < 0 && !err[0]) snprintf(err, errlen, "not served by OneModel EP");
  return r;
}

om_node* om_ep_node_create(const om_ep* ep, const OrtNode* node, int opset, char* err, size_t errlen) {
  om_node* out = NULL;
  if (om_ep_build(ep, node, opset, &out, err, errlen) < 0 && !err[0]) snprintf(err, errlen, "node not served");
  return out;
}

int om_ep_graph_opset(const OrtApi* api, const OrtGraph* graph) {
  size_t n = 0;
  OrtStatus* st = api->Graph_GetNumOperatorSets(graph, &n);
  if (st) {
    api->ReleaseStatus(st);
    return 0;
  }
  if (n == 0 || n > 1024) return 0;
  const char** domains = malloc(n * sizeof *domains);
  int64_t* versions = malloc(n * sizeof *versions);
  int opset = 0;
  if (domains && versions) {
    st = api->Graph_GetOperatorSets(graph, domains, versions, n);
    if (st) api->ReleaseStatus(st);
    else
      for (size_t i = 0; i < n; i++)
        if (domains[i] && (!domains[i][0] || strcmp(domains[i], "ai.onnx") == 0) && versions[i] > 0 &&
            versions[i] < 100000)
          opset = (int)versions[i];
  }
  free(domains);
  free(versions);
  return opset;
}

/* ---- strict mode --------------------------------------------------------------------------------------------- */
/* Whether `node` computes (om_op_computes, from its domain, op type and input element types). */
static int om_ep_node_computes(const OrtApi* api, const OrtNode* node, const char* domain, const char* op) {
  size_t n = 0;
  const OrtValueInfo* vs[8];
  int types[8];
  OrtStatus* st = api->Node_GetNumInputs(node, &n);
  if (!st && n > 8) n = 0; /* only Range's types matter, and it has three inputs */
  if (!st && n) st = api->Node_GetInputs(node, vs, n);
  if (st) {
    api->ReleaseStatus(st);
    n = 0;
  }
  for (size_t i = 0; i < n; i++) types[i] = om_ep_value_type(api, vs[i]);
  return om_op_computes(domain, op, n, types);
}

/* Strict mode: note `node`, left to another provider, when it computes, as "node 'NAME' (op DOMAIN:OP): why"
 * (why: err without om_ep_build's "node '...' (op ...): " prefix). A line noted before (ORT may ask again about
 * the same graph) is not repeated. */
static OrtStatus* om_ep_strict_note(om_ep* ep, const OrtNode* node, const char* err) {
  const OrtApi* api = ep->api;
  const char *domain = NULL, *op = NULL, *name = NULL;
  OrtStatus* st = api->Node_GetDomain(node, &domain);
  if (!st) st = api->Node_GetOperatorType(node, &op);
  if (!st) st = api->Node_GetName(node, &name);
  if (st) return st;
  domain = domain && domain[0] ? domain : "ai.onnx";
  op = op ? op : "";
  name = name ? name : "";
  if (!om_ep_node_computes(api, node, domain, op)) return NULL;
  char prefix[400], line[1200];
  snprintf(prefix, sizeof prefix, "node '%s' (op %s): ", name, op);
  const char* why = strncmp(err, prefix, strlen(prefix)) == 0 ? err + strlen(prefix) : err;
  snprintf(line, sizeof line, "\n  node '%s' (op %s:%s): %s", name, domain, op, why);
  size_t had = ep->strict_lines ? strlen(ep->strict_lines) : 0;
  if (had && strstr(ep->strict_lines, line)) return NULL;
  char* grown = realloc(ep->strict_lines, had + strlen(line) + 1);
  if (!grown) return om_ep_error(api, ORT_FAIL, "out of memory");
  memcpy(grown + had, line, strlen(line) + 1);
  ep->strict_lines = grown;
  return NULL;
}

/* Strict mode, once the main graph is done: the error naming every node noted (subgraphs included), then none
 * kept; NULL before (a subgraph's compiled nodes compile as usual) or when none was noted. */
OrtStatus* om_ep_strict_refusal(om_ep* ep) {
  if (!ep->strict_due || !ep->strict_lines) return NULL;
  size_t count = 0;
  for (const char* p = ep->strict_lines; (p = strchr(p, '\n')) != NULL; p++) count++;
  size_t len = strlen(ep->strict_lines) + 200;
  char* msg = malloc(len);
  OrtStatus* st = NULL;
  if (msg) {
    snprintf(msg, len, "strict mode: %zu computing node(s) would run outside %s:%s", count, OM_EP_NAME,
             ep->strict_lines);
    st = om_ep_error(ep->api, ORT_FAIL, msg);
    free(msg);
  } else {
    st = om_ep_error(ep->api, ORT_FAIL, "strict mode: computing nodes would run outside " OM_EP_NAME);
  }
  free(ep->strict_lines);
  ep->strict_lines = NULL;
  return st;
}

/* Whether `graph` is the model's main graph (not an If/Loop/Scan body). */
static int om_ep_main_graph(const OrtApi* api, const OrtGraph* graph) {
  const OrtNode* parent = NULL;
  OrtStatus* st = api->Graph_GetParentNode(graph, &parent);
  if (st) {
    api->ReleaseStatus(st);
    return 1;
  }
  return parent == NULL;
}

/* Strict mode's carrier of the refusal: ORT only logs an error of GetCapability and goes on, but fails the session
 * on an error of Compile. So the main graph's first refused node (else its first node outside control flow, else
 * its first) is claimed as a compiled node, whose Compile returns the refusal (ep_compile.c), and nothing else. */
static OrtStatus* om_ep_strict_claim(om_ep* ep, const OrtNode* const* nodes, const int* claim, size_t n,
                                     OrtEpGraphSupportInfo* info) {
  ep->strict_due = 1;
  size_t pick = n;
  for (size_t i = 0; i < n && pick == n; i++)
    if (claim[i] < 0) pick = i;
  for (size_t i = 0; i < n && pick == n; i++) {
    const char* op = NULL;
    OrtStatus* st = ep->api->Node_GetOperatorType(nodes[i], &op);
    if (st) return st;
    int kind = -1;
    for (size_t k = 0; op && om_noncomputing_op(k, NULL); k++)
      if (strcmp(om_noncomputing_op(k, &kind), op) == 0) break;
    if (kind != OM_NONCOMPUTING_CONTROL) pick = i;
  }
  return ep->ep_api->EpGraphSupportInfo_AddNodesToFuse(info, &nodes[pick < n ? pick : 0], 1, NULL);
}

OrtStatus* OM_ORT_CALL om_ep_get_capability(OrtEp* this_ptr, const OrtGraph* graph, OrtEpGraphSupportInfo* info) {
  om_ep* ep = (om_ep*)this_ptr;
  const OrtApi* api = ep->api;
  size_t n = 0;
  OrtStatus* st = api->Graph_GetNumNodes(graph, &n);
  if (st || n == 0) return st;
  const OrtNode** nodes = malloc(n * sizeof *nodes);
  int* claim = malloc(n * sizeof *claim);
  int* next = malloc(n * sizeof *next);
  if (!nodes || !claim || !next) {
    free(nodes);
    free(claim);
    free(next);
    return om_ep_error(api, ORT_FAIL, "out of memory");
  }
  st = api->Graph_GetNodes(graph, nodes, n);
  int opset = st ? 0 : om_ep_graph_opset(api, graph);
  char why[512];
  for (size_t i = 0; !st && i < n; i++) {
    claim[i] = om_ep_claims(ep, nodes[i], opset, why, sizeof why);
    next[i] = -1;
    if (claim[i] >= 0 && !ep->compile) { /* served through a registered kernel: is there one for its opset? */
      const OrtKernelDef* def = NULL;
      st = ep->ep_api->EpGraphSupportInfo_LookUpKernel(info, nodes[i], &def);
      if (!st && !def) {
        claim[i] = -1;
        snprintf(why, sizeof why, "no kernel of OneModel EP is registered for this node's opset and types");
      }
    }
    if (!st && claim[i] < 0 && ep->strict) st = om_ep_strict_note(ep, nodes[i], why);
  }
  if (!st && ep->strict_lines && om_ep_main_graph(api, graph)) {
    st = om_ep_strict_claim(ep, nodes, claim, n, info);
  } else {
    /* QDQ groups of the main graph (as the rewrite forms them: docs/quantized.md), each one fused node run as
     * our QLinear op (ep_qdq.c): whatever `fuse` says, since a group's bits are the QLinear op's; their
     * members are claimed there and join no other fusion. Then groups of constant nodes, each one fused node
     * computed once (ep_const_fold.c); then attention patterns (ep_attention_fuse.c), then chains of
     * element-wise nodes (ep_fuse.c) among the rest, each one fused node; their members are claimed there */
    if (!st && ep->qdq_groups && om_ep_main_graph(api, graph)) st = om_ep_qdq_groups(ep, nodes, n, opset, claim, info);
    if (!st && ep->fold) st = om_ep_fold_groups(ep, nodes, n, claim, info);
    if (!st && ep->fuse) st = om_ep_fuse_attention(ep, nodes, n, claim, opset, next, info);
    if (!st && ep->fuse) st = om_ep_fuse_chains(ep, nodes, n, claim, next, info);
    for (size_t i = 0; !st && i < n; i++) {
      if (claim[i] < 0 || claim[i] == OM_EP_FOLDED || next[i] == OM_EP_FUSED) continue;
      /* one compiled node per claimed node: ORT still plans its inputs and outputs; a reader of a constant group
       * is one too, taking the group's values as constant inputs (ep_compile_fold.c) */
      if (ep->compile || claim[i] == OM_EP_FOLD_READER)
        st = ep->ep_api->EpGraphSupportInfo_AddNodesToFuse(info, &nodes[i], 1, NULL);
      else
        st = ep->ep_api->EpGraphSupportInfo_AddSingleNode(info, nodes[i]);
    }
  }
  free(nodes);
  free(claim);
  free(next);
  return st;
}
