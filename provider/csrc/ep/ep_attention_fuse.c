/* ep_attention_fuse.c - which claimed nodes form a fused attention pattern (ep_attention_fuse.h; the run is
 * node/attention_pattern.c, compiled by ep_compile_attention.c).
 *
 * The pattern: S = MatMul(Q, K); optionally S = Div(S, c) or Mul(S, c) or Mul(c, S) with c of one element (every
 * declared dimension 1); optionally S = Add(S, mask) (either order); P = Softmax(S) along its last axis (the axis
 * attribute, or its default for the opset, against the declared rank); O = MatMul(P, V). Every member was built
 * by the EP (claim 1), each intermediate has exactly one consumer, the next member, and is not a graph output;
 * the element type is f32 or f16; Q, K and V are declared of rank 2 or more; the Div, Mul and Add outputs are
 * declared of the scores' shape (each dimension the same number or the same symbolic name: the scale and the
 * mask broadcast into the scores, never widen them), O of the scores' rank and batch dimensions. Anything else
 * is left to the chain pass (ep_fuse.c) and the single nodes. Knows nothing of math. */
#include "ep_attention_fuse.h"

#include <stdlib.h>
#include <string.h>

#include "ep_capability.h" /* om_ep_value_type, om_ep_value_count */
#include "ep_fuse.h"       /* om_ep_node_index, om_ep_sole_consumer, OM_EP_FUSED */

/* The op type of a default-domain node; "" for another domain or on failure. */
static const char* om_af_op(const OrtApi* api, const OrtNode* node) {
  const char *domain = NULL, *op = NULL;
  OrtStatus* st = api->Node_GetDomain(node, &domain);
  if (!st) st = api->Node_GetOperatorType(node, &op);
  if (st) {
    api->ReleaseStatus(st);
    return "";
  }
  return domain && domain[0] == 0 && op ? op : "";
}

/* A node's inputs (n of them, at most cap) and its first output; 0, or -1. */
static int om_af_io(const OrtApi* api, const OrtNode* node, const OrtValueInfo** in, size_t cap, size_t* n,
                    const OrtValueInfo** out) {
  size_t n_out = 0;
  OrtStatus* st = api->Node_GetNumInputs(node, n);
  if (!st) st = api->Node_GetNumOutputs(node, &n_out);
  if (!st && (*n > cap || n_out != 1)) return -1;
  if (!st) st = api->Node_GetInputs(node, in, *n);
  if (!st) st = api->Node_GetOutputs(node, out, 1);
  if (st) {
    api->ReleaseStatus(st);
    return -1;
  }
  return 0;
}

/* A value's declared shape: rank, dimensions (-1 symbolic) and symbolic names; 0, or -1 when undeclared. */
typedef struct om_af_shape {
  size_t rank;
  int64_t d[16];
  const char* sym[16];
} om_af_shape;

static int om_af_shape_of(const OrtApi* api, const OrtValueInfo* v, om_af_shape* s) {
  const OrtTypeInfo* ti = NULL;
  const OrtTensorTypeAndShapeInfo* tsi = NULL;
  OrtStatus* st = v ? api->GetValueInfoTypeInfo(v, &ti) : NULL;
  if (!st && ti) st = api->CastTypeInfoToTensorInfo(ti, &tsi);
  if (!st && tsi) st = api->GetDimensionsCount(tsi, &s->rank);
  if (!st && tsi && s->rank <= 16) st = api->GetDimensions(tsi, s->d, s->rank);
  if (!st && tsi && s->rank <= 16) st = api->GetSymbolicDimensions(tsi, s->sym, s->rank);
  if (st) {
    api->ReleaseStatus(st);
    return -1;
  }
  return tsi && s->rank <= 16 ? 0 : -1;
}

/* Dimension k of a and b are declared the same: the same number, or the same non-empty symbolic name. */
static int om_af_dim_same(const om_af_shape* a, size_t ka, const om_af_shape* b, size_t kb) {
  if (a->d[ka] >= 0 || b->d[kb] >= 0) return a->d[ka] == b->d[kb];
  return a->sym[ka] && b->sym[kb] && a->sym[ka][0] && strcmp(a->sym[ka], b->sym[kb]) == 0;
}

/* The first `count` dimensions of a and b are declared the same (and both have at least that many). */
static int om_af_dims_same(const om_af_shape* a, const om_af_shape* b, size_t count) {
  if (a->rank < count || b->rank < count) return 0;
  for (size_t k = 0; k < count; k++)
    if (!om_af_dim_same(a, k, b, k)) return 0;
  return 1;
}

/* A value declared with rank >= 2. */
static int om_af_matrix(const OrtApi* api, const OrtValueInfo* v) {
  om_af_shape s;
  return v && om_af_shape_of(api, v, &s) == 0 && s.rank >= 2;
}

/* A value declared with one element: every dimension the number 1. */
static int om_af_scalar(const OrtApi* api, const OrtValueInfo* v) {
  om_af_shape s;
  if (!v || om_af_shape_of(api, v, &s) != 0) return 0;
  for (size_t k = 0; k < s.rank; k++)
    if (s.d[k] != 1) return 0;
  return 1;
}

/* Values a and b are the same value (by name). */
static int om_af_same(const OrtApi* api, const OrtValueInfo* a, const OrtValueInfo* b) {
  const char *na = NULL, *nb = NULL;
  OrtStatus* st = a && b ? api->GetValueInfoName(a, &na) : NULL;
  if (!st && a && b) st = api->GetValueInfoName(b, &nb);
  if (st) {
    api->ReleaseStatus(st);
    return 0;
  }
  return na && nb && strcmp(na, nb) == 0;
}

/* The input index that is value `v` (0 or 1 of two inputs), -1 when neither or both. */
static int om_af_input_at(const OrtApi* api, const OrtValueInfo* const* in, size_t n, const OrtValueInfo* v) {
  if (n != 2) return -1;
  int a = om_af_same(api, in[0], v), b = om_af_same(api, in[1], v);
  return a == b ? -1 : a ? 0 : 1;
}

/* Softmax's axis (the attribute, else the opset's default) is the last of `rank`. */
static int om_af_last_axis(const OrtApi* api, const OrtNode* node, int opset, size_t rank) {
  int64_t axis = opset > 0 && opset < 13 ? 1 : -1;
  const OrtOpAttr* attr = NULL;
  OrtStatus* st = api->Node_GetAttributeByName(node, "axis", &attr);
  if (st) { /* absent: the default */
    api->ReleaseStatus(st);
    attr = NULL;
  }
  if (attr) {
    size_t size = 0;
    st = api->ReadOpAttr(attr, ORT_OP_ATTR_INT, &axis, sizeof axis, &size);
    if (st) {
      api->ReleaseStatus(st);
      return 0;
    }
  }
  return rank >= 1 && (axis == -1 || axis == (int64_t)rank - 1);
}

/* The pattern headed by node h: its members into group (in graph order of the pattern) and their count; 0 when h
 * heads none. */
static size_t om_af_match(const OrtApi* api, const OrtNode* const* nodes, size_t n, const om_node_at* sorted,
                          const int* claim, const int* next, int opset, size_t h, size_t* at) {
  enum { CAP = 4 };
  const OrtValueInfo *in[CAP], *out = NULL, *s_out = NULL;
  size_t n_in = 0, g = 0;
  if (claim[h] != 1 || next[h] == OM_EP_FUSED || strcmp(om_af_op(api, nodes[h]), "MatMul") != 0) return 0;
  if (om_af_io(api, nodes[h], in, CAP, &n_in, &out) != 0 || n_in != 2) return 0;
  int type = om_ep_value_type(api, out);
  if ((type != ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT && type != ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16) ||
      !om_af_matrix(api, in[0]) || !om_af_matrix(api, in[1]))
    return 0;
  om_af_shape s, o;
  if (om_af_shape_of(api, out, &s) != 0 || s.rank < 2) return 0;
  at[g++] = h;
  s_out = out;
  long i = (long)h;
  int stage = 0; /* 0: the scores; 1: scaled; 2: masked */
  for (;;) {
    long j = om_ep_sole_consumer(api, nodes[i], sorted, n);
    if (j < 0 || claim[j] != 1 || next[j] == OM_EP_FUSED) return 0;
    const char* op = om_af_op(api, nodes[j]);
    if (om_af_io(api, nodes[j], in, CAP, &n_in, &out) != 0 || om_ep_value_type(api, out) != type) return 0;
    int k = om_af_input_at(api, in, n_in, s_out);
    if (stage == 0 && (strcmp(op, "Div") == 0 || strcmp(op, "Mul") == 0)) {
      if (k < 0 || (op[0] == 'D' && k != 0) || !om_af_scalar(api, in[1 - k])) return 0;
      stage = 1;
    } else if (stage < 2 && strcmp(op, "Add") == 0) {
      if (k < 0) return 0;
      stage = 2;
    } else if (strcmp(op, "Softmax") == 0) {
      if (n_in != 1 || !om_af_same(api, in[0], s_out) || !om_af_last_axis(api, nodes[j], opset, s.rank)) return 0;
      at[g++] = (size_t)j;
      long v = om_ep_sole_consumer(api, nodes[j], sorted, n);
      if (v < 0 || claim[v] != 1 || next[v] == OM_EP_FUSED || strcmp(om_af_op(api, nodes[v]), "MatMul") != 0) return 0;
      const OrtValueInfo* p_out = out;
      if (om_af_io(api, nodes[v], in, CAP, &n_in, &out) != 0 || om_af_input_at(api, in, n_in, p_out) != 0 ||
          om_ep_value_type(api, out) != type || !om_af_matrix(api, in[1]))
        return 0;
      if (om_af_shape_of(api, out, &o) != 0 || o.rank != s.rank || !om_af_dims_same(&o, &s, s.rank - 2)) return 0;
      at[g++] = (size_t)v;
      return g;
    } else {
      return 0;
    }
    if (om_af_shape_of(api, out, &o) != 0 || o.rank != s.rank || !om_af_dims_same(&o, &s, s.rank)) return 0;
    at[g++] = (size_t)j;
    s_out = out;
    i = j;
  }
}

OrtStatus* om_ep_fuse_attention(const om_ep* ep, const OrtNode* const* nodes, size_t n, const int* claim, int opset,
                                int* next, OrtEpGraphSupportInfo* info) {
  const OrtApi* api = ep->api;
  om_node_at* sorted = om_ep_node_index(nodes, n);
  OrtStatus* st = sorted ? NULL : om_ep_error(api, ORT_FAIL, "out of memory");
  for (size_t h = 0; !st && h < n; h++) {
    size_t at[5];
    size_t g = om_af_match(api, nodes, n, sorted, claim, next, opset, h, at);
    if (g < 3) continue;
    const OrtNode* group[5];
    for (size_t k = 0; k < g; k++) group[k] = nodes[at[k]];
    st = ep->ep_api->EpGraphSupportInfo_AddNodesToFuse(info, group, g, NULL);
    for (size_t k = 0; !st && k < g; k++) next[at[k]] = OM_EP_FUSED;
  }
  free(sorted);
  return st;
}
