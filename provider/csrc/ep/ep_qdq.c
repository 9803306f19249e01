/* ep_qdq.c - QDQ groups: a Conv, MatMul, Gemm, Add or Mul (default domain, float output) whose float data inputs
 * each come from a DequantizeLinear with no other consumer, and whose output goes only to a QuantizeLinear, with
 * constant scales and zero points as docs/quantized.md ("QDQ groups") lists, becomes our QLinearConv,
 * QLinearMatMul, com.microsoft QGemm, QLinearAdd or QLinearMul over the DequantizeLinear nodes' inputs and the
 * QuantizeLinear's scale and zero point. A MatMul whose output no QuantizeLinear reads (other readers, or a graph
 * output, but not one Add alone) becomes com.microsoft MatMulIntegerToFloat over the two DequantizeLinear nodes'
 * inputs, its float output the MatMul's (as ORT's MatMulReplaceWithQLinear writes it). GetCapability
 * (om_ep_qdq_groups, before the element-wise chains) claims each group as one fused node; Compile
 * (om_ep_qdq_compile) finds the same group among the fused node's nodes and wraps the QLinear op's om_node as a
 * kernel whose inputs are the fused node's, mapped by name. Both sides run the same matcher (om_qdq_match), and a
 * group is only formed where om_node_create accepts the QLinear node. Knows nothing of math: the group computes
 * exactly the QLinear op's documented steps. */
#include "ep_qdq.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/om_types.h" /* OM_T_* */
#include "ep_capability.h" /* om_ep_node_create_as, om_ep_attr_int, om_ep_value_type, om_ep_graph_opset */

/* At most 16 DequantizeLinear nodes (a Concat's inputs: our QLinearConcat takes at most 16 triples, its 50
 * inputs; a Concat of more has no group) and so 50 QLinear inputs. */
enum { OM_QDQ_MAX_IN = 50, OM_QDQ_MAX_DQ = 16 };

/* One group: the float op p, the DequantizeLinear of each data input, the QuantizeLinear, and the QLinear op's
 * row and inputs (NULL: absent, or where zero[k] is a type, a one-element zero point of 0 of that type the model
 * leaves out). */
typedef struct om_qdq_group {
  const OrtNode* p;
  const OrtNode* dq[OM_QDQ_MAX_DQ];
  size_t n_dq;
  const OrtNode* q;
  int row;
  size_t n_in;
  const OrtValueInfo* in[OM_QDQ_MAX_IN];
  int zero[OM_QDQ_MAX_IN];
} om_qdq_group;

/* The nodes a matcher looks among: DequantizeLinear nodes by their output's name, QuantizeLinear nodes by their
 * input 0's name (each sorted); whole: the whole graph (GetCapability), where consumers and graph outputs are
 * checked too. */
typedef struct om_named {
  const char* name;
  const OrtNode* node;
} om_named;

typedef struct om_qdq_scope {
  const om_ep* ep;
  om_named* dqs;
  size_t n_dqs;
  om_named* qs;
  size_t n_qs;
  int whole;
  int opset;
} om_qdq_scope;

static int om_named_cmp(const void* a, const void* b) {
  return strcmp(((const om_named*)a)->name, ((const om_named*)b)->name);
}

static const OrtNode* om_named_find(const om_named* table, size_t n, const char* name) {
  if (!name || !n) return NULL;
  om_named key = {name, NULL};
  const om_named* hit = bsearch(&key, table, n, sizeof *table, om_named_cmp);
  return hit ? hit->node : NULL;
}

static void om_st_drop(const OrtApi* api, OrtStatus* st) {
  if (st) api->ReleaseStatus(st);
}

/* Whether node is `op` of the default domain. */
static int om_is_op(const OrtApi* api, const OrtNode* node, const char* op) {
  const char *d = NULL, *o = NULL;
  OrtStatus* st = api->Node_GetDomain(node, &d);
  if (!st) st = api->Node_GetOperatorType(node, &o);
  om_st_drop(api, st);
  return !st && d && o && (!d[0] || strcmp(d, "ai.onnx") == 0) && strcmp(o, op) == 0;
}

/* Name of input (outputs: output) k of node, NULL when absent or past the end; its value info into *v. */
static const char* om_io_name(const OrtApi* api, const OrtNode* node, int outputs, size_t k, const OrtValueInfo** v) {
  size_t n = 0;
  const OrtValueInfo* vs[OM_QDQ_MAX_IN + 1];
  *v = NULL;
  OrtStatus* st = outputs ? api->Node_GetNumOutputs(node, &n) : api->Node_GetNumInputs(node, &n);
  if (!st && (k >= n || n > OM_QDQ_MAX_IN + 1)) return NULL;
  if (!st) st = outputs ? api->Node_GetOutputs(node, vs, n) : api->Node_GetInputs(node, vs, n);
  const char* name = NULL;
  if (!st && vs[k]) st = api->GetValueInfoName(vs[k], &name);
  om_st_drop(api, st);
  if (st || !name || !name[0]) return NULL;
  *v = vs[k];
  return name;
}

/* The scope's two tables from the n nodes. */
static OrtStatus* om_qdq_scope_init(om_qdq_scope* s, const om_ep* ep, const OrtNode* const* nodes, size_t n,
                                    int whole, int opset) {
  const OrtApi* api = ep->api;
  *s = (om_qdq_scope){ep, malloc((n + 1) * sizeof(om_named)), 0, malloc((n + 1) * sizeof(om_named)), 0, whole,
                      opset};
  if (!s->dqs || !s->qs) return om_ep_error(api, ORT_FAIL, "out of memory");
  for (size_t i = 0; i < n; i++) {
    const OrtValueInfo* v = NULL;
    const char* name;
    if (om_is_op(api, nodes[i], "DequantizeLinear") && (name = om_io_name(api, nodes[i], 1, 0, &v)) != NULL)
      s->dqs[s->n_dqs++] = (om_named){name, nodes[i]};
    else if (om_is_op(api, nodes[i], "QuantizeLinear") && (name = om_io_name(api, nodes[i], 0, 0, &v)) != NULL)
      s->qs[s->n_qs++] = (om_named){name, nodes[i]};
  }
  qsort(s->dqs, s->n_dqs, sizeof *s->dqs, om_named_cmp);
  qsort(s->qs, s->n_qs, sizeof *s->qs, om_named_cmp);
  return NULL;
}

static void om_qdq_scope_free(om_qdq_scope* s) {
  free(s->dqs);
  free(s->qs);
}

/* Whole graph: whether value v is a graph output or has other consumers than exactly one. */
static int om_not_sole(const OrtApi* api, const OrtValueInfo* v) {
  bool graph_out = true;
  size_t k = 0;
  OrtStatus* st = api->ValueInfo_IsGraphOutput(v, &graph_out);
  if (!st && !graph_out) st = api->ValueInfo_GetValueNumConsumers(v, &k);
  om_st_drop(api, st);
  return st || graph_out || k != 1;
}

/* Whole graph: whether value v's one reader is an Add of the default domain and v no graph output (the MatMul
 * ORT's level-1 MatMulAddFusion makes a Gemm above ORT_DISABLE_ALL: no float-output group, at any level). */
static int om_read_by_add_only(const OrtApi* api, const OrtValueInfo* v) {
  if (om_not_sole(api, v)) return 0;
  const OrtNode* reader = NULL;
  int64_t at = 0;
  OrtStatus* st = api->ValueInfo_GetValueConsumers(v, &reader, &at, 1);
  om_st_drop(api, st);
  return !st && reader && om_is_op(api, reader, "Add");
}

/* A constant initializer's element type, element count, dims (up to 8) and data; NULL when v is absent or not a
 * constant initializer. */
typedef struct om_const {
  const void* data;
  int type;
  size_t count;
  size_t rank;
  int64_t dims[8];
} om_const;

static int om_const_read(const OrtApi* api, const OrtValueInfo* v, om_const* c) {
  memset(c, 0, sizeof *c);
  bool is_const = false;
  const OrtValue* value = NULL;
  OrtTensorTypeAndShapeInfo* info = NULL;
  OrtStatus* st = v ? api->ValueInfo_IsConstantInitializer(v, &is_const) : NULL;
  if (!v || st || !is_const) {
    om_st_drop(api, st);
    return 0;
  }
  st = api->ValueInfo_GetInitializerValue(v, &value);
  if (!st && value) st = api->GetTensorTypeAndShape(value, &info);
  ONNXTensorElementDataType et = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
  if (!st && info) st = api->GetTensorElementType(info, &et);
  if (!st && info) st = api->GetTensorShapeElementCount(info, &c->count);
  if (!st && info) st = api->GetDimensionsCount(info, &c->rank);
  if (!st && info && c->rank <= 8) st = api->GetDimensions(info, c->dims, c->rank);
  void* p = NULL;
  if (!st && value && c->rank <= 8) st = api->GetTensorMutableData((OrtValue*)value, &p);
  if (info) api->ReleaseTensorTypeAndShapeInfo(info);
  om_st_drop(api, st);
  if (st || !p || c->rank > 8) return 0;
  c->data = p;
  c->type = (int)et;
  return 1;
}

/* An int attribute that must be absent or one of `ok` (a -1 ends it): 1 when it is. */
static int om_attr_in(const OrtApi* api, const OrtNode* node, const char* name, const int64_t* ok) {
  int64_t v = 0;
  int r = om_ep_attr_int(api, node, name, &v);
  if (r == 1) return 1;
  for (size_t i = 0; r == 0 && ok[i] != -1; i++)
    if (v == ok[i]) return 1;
  return 0;
}

enum { OM_ROLE_DATA, OM_ROLE_WEIGHT, OM_ROLE_BIAS }; /* a DQ's role: per-tensor data, a weight, an int32 bias */

/* One DequantizeLinear of the group: its x, scale and zero point (x_scale/zero point NULL: absent) into in[0..3)
 * and its constant scale into *scale. *axis: the axis the scale runs along (per-channel), or -1 (per-tensor). */
static int om_qdq_dq(const om_qdq_scope* s, const OrtNode* dq, int role, const OrtValueInfo** in, om_const* scale,
                     om_const* zp, int64_t* axis) {
  const OrtApi* api = s->ep->api;
  size_t n = 0;
  const OrtValueInfo* vs[3] = {NULL, NULL, NULL};
  OrtStatus* st = api->Node_GetNumInputs(dq, &n);
  if (!st && (n < 2 || n > 3)) return 0;
  if (!st) st = api->Node_GetInputs(dq, vs, n);
  om_st_drop(api, st);
  if (st || !vs[0] || !vs[1]) return 0;
  const int64_t zero[] = {0, -1}, zero_or_float[] = {0, OM_T_FLOAT, -1};
  if (!om_attr_in(api, dq, "block_size", zero) || !om_attr_in(api, dq, "output_dtype", zero_or_float)) return 0;
  const OrtValueInfo* out = NULL;
  if (!om_io_name(api, dq, 1, 0, &out) || om_ep_value_type(api, out) != OM_T_FLOAT) return 0;
  if (s->whole && om_not_sole(api, out)) return 0;
  int xt = om_ep_value_type(api, vs[0]);
  if (role == OM_ROLE_BIAS ? xt != OM_T_INT32 : xt != OM_T_INT8 && xt != OM_T_UINT8) return 0;
  if (!om_const_read(api, vs[1], scale) || scale->type != OM_T_FLOAT || scale->count < 1) return 0;
  if (n == 3 && vs[2] && (!om_const_read(api, vs[2], zp) || zp->type != xt || zp->count != scale->count)) return 0;
  if (role == OM_ROLE_BIAS && n == 3 && vs[2])
    for (size_t i = 0; i < zp->count; i++)
      if (((const int32_t*)zp->data)[i] != 0) return 0;
  *axis = -1;
  if (scale->count > 1 || scale->rank > 0) { /* a 1-D scale: per axis, unless of one element */
    int64_t a = 1;
    if (om_ep_attr_int(api, dq, "axis", &a) < 0) return 0;
    om_const x;
    size_t rank = om_const_read(api, vs[0], &x) ? x.rank : 0;
    if (rank == 0 && scale->count > 1) return 0; /* per axis of a tensor whose shape is not known here */
    if (a < 0) a += (int64_t)rank;
    if (scale->count > 1 && (a < 0 || a >= (int64_t)rank || x.dims[a] != (int64_t)scale->count)) return 0;
    if (scale->count > 1) *axis = a;
    if (role == OM_ROLE_DATA && scale->count > 1) return 0;
  }
  in[0] = vs[0];
  in[1] = vs[1];
  in[2] = n == 3 ? vs[2] : NULL;
  return 1;
}

/* Whether every bias scale bias[c] is, bit for bit, fl32(x * w[c]) (each one-element list broadcast). */
static int om_bias_scale_ok(const om_const* x, const om_const* w, const om_const* bias) {
  size_t n = w->count > bias->count ? w->count : bias->count;
  if ((w->count != 1 && w->count != n) || (bias->count != 1 && bias->count != n) || x->count != 1) return 0;
  const float* xs = x->data;
  const float* ws = w->data;
  const float* bs = bias->data;
  for (size_t c = 0; c < n; c++) {
    float want = xs[0] * ws[w->count == 1 ? 0 : c];
    float got = bs[bias->count == 1 ? 0 : c];
    if (memcmp(&want, &got, sizeof want) != 0) return 0;
  }
  return 1;
}

/* The float ops a group may have at its centre: the QLinear op's row, P's data inputs (0: variadic, Concat) and
 * optional ones after them (a bias), how the QLinear op lays out its inputs, and the row of the op a group with
 * no QuantizeLinear after P becomes (0: none; MatMul: com.microsoft MatMulIntegerToFloat, its float output P's). */
enum { OM_QL_BINARY, OM_QL_UNARY, OM_QL_CONCAT };
typedef struct om_qdq_kind {
  const char* op;
  int row;
  size_t n_data, n_opt;
  int layout;
  int row_float;
} om_qdq_kind;

static const om_qdq_kind om_qdq_kinds[] = {
    {"Conv", OM_OP_QLINEAR_CONV, 2, 1, OM_QL_BINARY, 0},
    {"Gemm", OM_OP_QGEMM, 2, 1, OM_QL_BINARY, 0},
    {"MatMul", OM_OP_QLINEAR_MATMUL, 2, 0, OM_QL_BINARY, OM_OP_MATMUL_INTEGER_TO_FLOAT},
    {"Add", OM_OP_QLINEAR_ADD, 2, 0, OM_QL_BINARY, 0},
    {"Mul", OM_OP_QLINEAR_MUL, 2, 0, OM_QL_BINARY, 0},
    {"Sigmoid", OM_OP_QLINEAR_SIGMOID, 1, 0, OM_QL_UNARY, 0},
    {"LeakyRelu", OM_OP_QLINEAR_LEAKY_RELU, 1, 0, OM_QL_UNARY, 0},
    {"AveragePool", OM_OP_QLINEAR_AVERAGE_POOL, 1, 0, OM_QL_UNARY, 0},
    {"GlobalAveragePool", OM_OP_QLINEAR_GLOBAL_AVERAGE_POOL, 1, 0, OM_QL_UNARY, 0},
    {"Softmax", OM_OP_QLINEAR_SOFTMAX, 1, 0, OM_QL_UNARY, 0},
    {"Concat", OM_OP_QLINEAR_CONCAT, 0, 0, OM_QL_CONCAT, 0},
};

/* The QLinear op's attributes beyond those read from P under the same names (om_ep_node_create_as's edit):
 * QLinearSoftmax's opset (the model's default-domain opset) and axis when P has none (Softmax's default for that
 * opset: 1 below 13, -1 from 13); channels_last = 0 for the pools; AveragePool's dilations dropped when all 1
 * (QLinearAveragePool has none, and refuses them otherwise: no group). */
typedef struct om_qdq_edit_ctx {
  int row;
  int opset;
} om_qdq_edit_ctx;

static void om_qdq_edit(om_attrs* a, const void* ctx) {
  const om_qdq_edit_ctx* c = ctx;
  if (c->row == OM_OP_QLINEAR_SOFTMAX) {
    a->softmax_opset = c->opset;
    a->has_softmax_opset = 1;
    if (!a->has_axis) a->axis = c->opset < 13 ? 1 : -1;
    a->has_axis = 1;
  } else if (c->row == OM_OP_QLINEAR_AVERAGE_POOL || c->row == OM_OP_QLINEAR_GLOBAL_AVERAGE_POOL) {
    a->channels_last = 0;
    a->has_channels_last = 1;
    int ones = 1;
    for (size_t i = 0; i < a->n_dilations; i++) ones &= a->dilations[i] == 1;
    if (ones) a->has_dilations = 0, a->n_dilations = 0; /* else QLinearAveragePool refuses them: no group */
  }
}

/* Input k of the QLinear op: v, or (v NULL) a zero point of `zero_type` the model leaves out (0: absent). */
static void om_qdq_put(om_qdq_group* g, const OrtValueInfo* v, int zero_type) {
  g->zero[g->n_in] = v ? 0 : zero_type;
  g->in[g->n_in++] = v;
}

static int om_qdq_create(const om_qdq_scope* s, const om_qdq_group* g, om_node** on);

/* Whether p heads a QDQ group (g filled; *on the QLinear op's om_node when on is not NULL): 1, else 0. */
static int om_qdq_match(const om_qdq_scope* s, const OrtNode* p, om_qdq_group* g, om_node** on) {
  const OrtApi* api = s->ep->api;
  memset(g, 0, sizeof *g);
  g->p = p;
  const om_qdq_kind* kind = NULL;
  for (size_t i = 0; !kind && i < sizeof om_qdq_kinds / sizeof om_qdq_kinds[0]; i++)
    if (om_is_op(api, p, om_qdq_kinds[i].op)) kind = &om_qdq_kinds[i];
  if (!kind) return 0;
  g->row = kind->row;
  size_t n_p = 0, n_out = 0;
  OrtStatus* st = api->Node_GetNumInputs(p, &n_p);
  if (!st) st = api->Node_GetNumOutputs(p, &n_out);
  om_st_drop(api, st);
  size_t n_data = kind->n_data ? kind->n_data : n_p; /* Concat: each input */
  if (st || n_out != 1 || n_p < n_data || n_p > n_data + kind->n_opt || n_p < 1 || n_p > OM_QDQ_MAX_DQ) return 0;
  const OrtValueInfo* pout = NULL;
  const char* pout_name = om_io_name(api, p, 1, 0, &pout);
  if (!pout_name || om_ep_value_type(api, pout) != OM_T_FLOAT) return 0;
  /* the QuantizeLinear after p; none (no QuantizeLinear reads p's output): the float form, where p has one */
  const OrtNode* q = om_named_find(s->qs, s->n_qs, pout_name);
  if (!q && !kind->row_float) return 0;
  if (q && s->whole && om_not_sole(api, pout)) return 0;
  if (!q && s->whole && om_read_by_add_only(api, pout)) return 0;
  if (!q) g->row = kind->row_float;
  /* the DequantizeLinear of each input */
  om_const scale[OM_QDQ_MAX_DQ], zp[OM_QDQ_MAX_DQ];
  int64_t axis[OM_QDQ_MAX_DQ];
  int xt[OM_QDQ_MAX_DQ];
  const OrtValueInfo* dq_in[OM_QDQ_MAX_DQ][3];
  for (size_t k = 0; k < n_p; k++) {
    const OrtValueInfo* v = NULL;
    const char* name = om_io_name(api, p, 0, k, &v);
    if (!name && k >= n_data) break; /* an absent optional bias */
    const OrtNode* dq = om_named_find(s->dqs, s->n_dqs, name);
    if (!dq) return 0;
    for (size_t j = 0; j < g->n_dq; j++)
      if (g->dq[j] == dq) return 0; /* one DequantizeLinear read twice (Add(x, x)) */
    int role = k >= n_data ? OM_ROLE_BIAS
               : k == 1 && kind->layout == OM_QL_BINARY && g->row != OM_OP_QLINEAR_ADD && g->row != OM_OP_QLINEAR_MUL
                   ? OM_ROLE_WEIGHT
                   : OM_ROLE_DATA;
    if (!om_qdq_dq(s, dq, role, dq_in[k], &scale[k], &zp[k], &axis[k])) return 0;
    xt[k] = om_ep_value_type(api, dq_in[k][0]);
    g->dq[g->n_dq++] = dq;
  }
  if (!q && xt[0] == OM_T_INT8 && xt[1] != OM_T_INT8) return 0; /* the float form: int8 A with int8 B only */
  /* per-channel weights where the QLinear op reads them so, attributes it accepts, the bias's scale */
  int64_t trans_a = 0, trans_b = 0;
  float alpha = 1.0f, beta = 1.0f;
  if (g->row == OM_OP_QGEMM) {
    if (om_ep_attr_int(api, p, "transA", &trans_a) < 0 || om_ep_attr_int(api, p, "transB", &trans_b) < 0 ||
        om_ep_attr_float(api, p, "alpha", &alpha) < 0 || om_ep_attr_float(api, p, "beta", &beta) < 0)
      return 0;
    if (trans_a != 0) return 0;
    if (g->n_dq == 3 && (alpha != 1.0f || beta != 1.0f)) return 0; /* QGemm scales C with the product */
  }
  if (kind->layout == OM_QL_BINARY && axis[1] >= 0) {
    int64_t want = g->row == OM_OP_QLINEAR_CONV ? 0 : g->row == OM_OP_QGEMM ? (trans_b ? 0 : 1) : 1;
    om_const w;
    if (!om_const_read(api, dq_in[1][0], &w) || axis[1] != want ||
        (g->row != OM_OP_QLINEAR_CONV && w.rank != 2))
      return 0;
  }
  if (kind->layout == OM_QL_BINARY && g->n_dq == 3) {
    if (axis[0] >= 0 || !om_bias_scale_ok(&scale[0], &scale[1], &scale[2])) return 0;
    om_const b;
    if (scale[2].count > 1 && (!om_const_read(api, dq_in[2][0], &b) || b.rank != 1)) return 0;
  }
  if (!q) { /* MatMulIntegerToFloat: a, b, a_scale, b_scale, a_zp, b_zp (absent zero points stay absent: 0) */
    for (size_t j = 0; j < 3; j++)
      for (size_t k = 0; k < 2; k++) om_qdq_put(g, dq_in[k][j], 0);
    return om_qdq_create(s, g, on);
  }
  /* the QuantizeLinear after p: its scale, and its zero point or (absent) the type of its output */
  size_t n_q = 0;
  const OrtValueInfo* qv[3] = {NULL, NULL, NULL};
  st = api->Node_GetNumInputs(q, &n_q);
  if (!st && (n_q < 2 || n_q > 3)) return 0;
  if (!st) st = api->Node_GetInputs(q, qv, n_q);
  om_st_drop(api, st);
  om_const ys, yz;
  if (st || !qv[1] || !om_const_read(api, qv[1], &ys) || ys.type != OM_T_FLOAT || ys.count != 1) return 0;
  int yt = 0;
  if (qv[2]) {
    if (!om_const_read(api, qv[2], &yz) || yz.count != 1) return 0;
    yt = yz.type;
  } else {
    const OrtValueInfo* qout = NULL;
    if (!om_io_name(api, q, 1, 0, &qout)) return 0;
    yt = om_ep_value_type(api, qout);
  }
  if (yt != OM_T_INT8 && yt != OM_T_UINT8) return 0;
  const int64_t zero[] = {0, -1}, one[] = {1, -1}, y_type[] = {0, yt, -1};
  if (!om_attr_in(api, q, "block_size", zero) || !om_attr_in(api, q, "saturate", one) ||
      !om_attr_in(api, q, "output_dtype", y_type))
    return 0;
  if (kind->layout != OM_QL_BINARY) /* one 8-bit type: every x and y */
    for (size_t k = 0; k < g->n_dq; k++)
      if (xt[k] != yt) return 0;
  g->q = q;
  /* the QLinear op's inputs (docs/quantized.md, "QDQ groups"); an absent zero point a zero of x's (y's) type */
  if (kind->layout == OM_QL_CONCAT) {
    om_qdq_put(g, qv[1], 0);
    om_qdq_put(g, qv[2], yt);
  }
  size_t n_x = kind->layout == OM_QL_BINARY ? 2 : g->n_dq;
  for (size_t k = 0; k < n_x; k++)
    for (size_t j = 0; j < 3; j++) om_qdq_put(g, dq_in[k][j], j == 2 ? xt[k] : 0);
  if (g->row == OM_OP_QGEMM) om_qdq_put(g, g->n_dq == 3 ? dq_in[2][0] : NULL, 0);
  if (kind->layout != OM_QL_CONCAT) {
    om_qdq_put(g, qv[1], 0);
    om_qdq_put(g, qv[2], yt);
  }
  if (g->row == OM_OP_QLINEAR_CONV && g->n_dq == 3) om_qdq_put(g, dq_in[2][0], 0);
  return om_qdq_create(s, g, on);
}

/* Whether om_node_create accepts g's QLinear (or float-output) node over g's inputs: 1 (*on the node when on is
 * not NULL), else 0. */
static int om_qdq_create(const om_qdq_scope* s, const om_qdq_group* g, om_node** on) {
  const OrtApi* api = s->ep->api;
  const OrtNode* p = g->p;
  int types[OM_QDQ_MAX_IN];
  for (size_t k = 0; k < g->n_in; k++) types[k] = g->in[k] ? om_ep_value_type(api, g->in[k]) : g->zero[k];
  char err[512];
  const om_qdq_edit_ctx edit = {g->row, s->opset};
  om_node* made = om_ep_node_create_as(s->ep, p, g->row, s->opset, g->n_in, types, om_qdq_edit, &edit, err, sizeof err);
  if (!made) return 0;
  if (on) *on = made;
  else om_node_destroy(made);
  return 1;
}

OrtStatus* om_ep_qdq_groups(const om_ep* ep, const OrtNode* const* nodes, size_t n, int opset, int* claim,
                            OrtEpGraphSupportInfo* info) {
  om_qdq_scope s;
  OrtStatus* st = om_qdq_scope_init(&s, ep, nodes, n, 1, opset);
  for (size_t i = 0; !st && s.n_dqs && i < n; i++) { /* a float-output group has no QuantizeLinear */
    om_qdq_group g;
    if (!om_qdq_match(&s, nodes[i], &g, NULL)) continue;
    const OrtNode* members[OM_QDQ_MAX_DQ + 2];
    size_t m = 0;
    for (size_t k = 0; k < g.n_dq; k++) members[m++] = g.dq[k];
    members[m++] = g.p;
    if (g.q) members[m++] = g.q;
    st = ep->ep_api->EpGraphSupportInfo_AddNodesToFuse(info, members, m, NULL);
    for (size_t j = 0; !st && j < n; j++)
      for (size_t k = 0; k < m; k++)
        if (nodes[j] == members[k]) claim[j] = OM_EP_QDQ_GROUPED;
  }
  om_qdq_scope_free(&s);
  return st;
}

OrtStatus* om_ep_qdq_compile(const om_ep* ep, const OrtGraph* graph, const OrtNode* fused, om_kernel** out) {
  const OrtApi* api = ep->api;
  *out = NULL;
  size_t n = 0;
  OrtStatus* st = api->Graph_GetNumNodes(graph, &n);
  if (st || n < 2 || n > OM_QDQ_MAX_DQ + 2) return st;
  const OrtNode* nodes[OM_QDQ_MAX_DQ + 2];
  st = api->Graph_GetNodes(graph, nodes, n);
  if (st) return st;
  om_qdq_scope s;
  st = om_qdq_scope_init(&s, ep, nodes, n, 0, om_ep_graph_opset(api, graph));
  om_qdq_group g;
  om_node* on = NULL;
  size_t p = n;
  for (size_t i = 0; !st && i < n && p == n; i++)
    if (om_qdq_match(&s, nodes[i], &g, &on)) p = i;
  om_qdq_scope_free(&s);
  if (st || p == n) return st; /* not a QDQ group: a fused chain */
  if (!g.q && g.n_dq + 1 != n) { /* DequantizeLinear -> MatMul inside a larger fused node: not a group */
    om_node_destroy(on);
    return NULL;
  }
  if (g.n_dq + 1 + (g.q != NULL) != n) {
    om_node_destroy(on);
    return om_ep_error(api, ORT_FAIL, "a QDQ group's fused node holds other nodes");
  }
  /* the QLinear op's inputs among the fused node's, by name; its constant ones handed over once */
  size_t n_f = 0;
  const OrtValueInfo* fv[OM_QDQ_MAX_IN * 2];
  st = api->Node_GetNumInputs(fused, &n_f);
  if (!st && n_f > OM_QDQ_MAX_IN * 2) st = om_ep_error(api, ORT_FAIL, "a QDQ group with too many inputs");
  if (!st) st = api->Node_GetInputs(fused, fv, n_f);
  int in_map[OM_QDQ_MAX_IN], out_map[1] = {0};
  for (size_t k = 0; !st && k < g.n_in; k++) {
    in_map[k] = -1;
    if (!g.in[k] && g.zero[k]) { /* a zero point the model leaves out: a zero the kernel feeds itself */
      static const int64_t zeros[2] = {0, 0};
      char err[512];
      in_map[k] = OM_KERNEL_IN_ZERO;
      if (om_node_set_constant_input(on, k, zeros, NULL, 0, err, sizeof err) != 0)
        st = om_ep_error(api, ORT_FAIL, err);
      continue;
    }
    const char* name = NULL;
    if (g.in[k]) st = api->GetValueInfoName(g.in[k], &name);
    for (size_t j = 0; !st && name && j < n_f; j++) {
      const char* fname = NULL;
      if (fv[j]) st = api->GetValueInfoName(fv[j], &fname);
      if (!st && fname && strcmp(fname, name) == 0) {
        in_map[k] = (int)j;
        break;
      }
    }
    if (!st && name && in_map[k] < 0) {
      char msg[400];
      snprintf(msg, sizeof msg, "QDQ group: '%s' is not an input of the fused node", name);
      st = om_ep_error(api, ORT_FAIL, msg);
    }
    om_const c;
    if (!st && g.in[k] && om_const_read(api, g.in[k], &c)) {
      const OrtValue* v = NULL;
      st = api->ValueInfo_GetInitializerValue(g.in[k], &v);
      if (!st && v) st = om_kernel_constant_input(api, on, k, v, ORT_FAIL);
    }
  }
  if (st) {
    om_node_destroy(on);
    return st;
  }
  return om_kernel_wrap(api, on, 1, in_map, g.n_in, out_map, 1, out);
}
