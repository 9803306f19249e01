/* kernel.c - the kernel object om_kernel (ort_kernel.h) over an om_node: created from an OrtKernelInfo (node name,
 * input types, attributes, constant inputs, declared ranks and shapes checked early), computed on an
 * OrtKernelContext (input shapes read in place on API 24+ runtimes, ORT's parallel-for handed to the node).
 * Shared by the custom ops (custom_ops.c) and the execution provider (ep/). Knows nothing of math.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/om_ops.h"
#include "node/broadcast.h"
#include "node/node_family.h"
#include "node/node_run.h"
#include "onemodel.h"
#include "ort_api.h"
#include "ort_attrs.h"
#include "ort_kernel.h"
#include "ort_status.h"

struct om_kernel {
  const OrtApi* api;
  om_node* node;
  /* the runtime's GetTensorElementTypeAndShapeDataReference, or NULL where its API version is below 24 */
  OrtStatus*(OM_ORT_CALL* shape_ref)(const OrtValue*, ONNXTensorElementDataType*, const int64_t**, size_t*);
  /* A compiled node's (om_kernel_wrap): node input i is the context's input in_map[i] (-1: absent), node
   * output o its output out_map[o] (-1: not wanted); NULL: the same index. */
  int* in_map;
  int* out_map;
  size_t n_in, n_out;
};

/* OM_KERNEL_IN_ZERO's data (zero bits, wide enough for any element type) and its rank-0 shape */
static const int64_t om_kernel_zero[2] = {0, 0};
static const int64_t om_kernel_zero_dims[1] = {0};

static OrtStatus* om_error(const OrtApi* api, const char* msg) { return om_ort_error(api, ORT_INVALID_ARGUMENT, msg); }

/* ---- kernel creation ------------------------------------------------------------------------------------- */

static int om_info_input_type(const OrtApi* api, const OrtKernelInfo* info, size_t i, int* type) {
  OrtTypeInfo* ti = NULL;
  *type = 0;
  OrtStatus* st = api->KernelInfo_GetInputTypeInfo(info, i, &ti);
  if (st) {
    api->ReleaseStatus(st);
    return 0; /* an absent optional input has no type */
  }
  if (!ti) return 0;
  ONNXType ot = ONNX_TYPE_UNKNOWN;
  st = api->GetOnnxTypeFromTypeInfo(ti, &ot);
  if (st) api->ReleaseStatus(st);
  if (ot != ONNX_TYPE_TENSOR) {
    api->ReleaseTypeInfo(ti);
    return -1;
  }
  const OrtTensorTypeAndShapeInfo* tsi = NULL;
  st = api->CastTypeInfoToTensorInfo(ti, &tsi);
  if (!st && tsi) {
    ONNXTensorElementDataType et = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
    OrtStatus* st2 = api->GetTensorElementType(tsi, &et);
    if (st2) api->ReleaseStatus(st2);
    *type = (int)et;
  }
  if (st) api->ReleaseStatus(st);
  api->ReleaseTypeInfo(ti);
  return 0;
}

OrtStatus* om_kernel_constant_input(const OrtApi* api, om_node* node, size_t i, const OrtValue* v, OrtErrorCode code) {
  OrtTensorTypeAndShapeInfo* tsi = NULL;
  size_t rank = 0;
  int64_t dims[OM_MAX_RANK];
  void* p = NULL;
  char err[512];
  OrtStatus* st = api->GetTensorTypeAndShape(v, &tsi);
  if (!st) st = api->GetDimensionsCount(tsi, &rank);
  if (!st && om_node_rank_served(node, i, rank, err, sizeof err) != 0) st = om_ort_error(api, code, err);
  if (!st) st = api->GetDimensions(tsi, dims, rank);
  if (tsi) api->ReleaseTensorTypeAndShapeInfo(tsi);
  if (!st) st = api->GetTensorMutableData((OrtValue*)v, &p);
  if (!st && om_node_set_constant_input(node, i, p, dims, rank, err, sizeof err) != 0)
    st = om_ort_error(api, code, err);
  return st;
}

/* Hand every constant input (an initializer) to the node, which may prepare for it (MatMul packs B). */
static OrtStatus* om_constant_inputs(const OrtApi* api, const OrtKernelInfo* info, om_node* node, size_t n) {
  for (size_t i = 0; i < n; i++) {
    int is_const = 0;
    const OrtValue* v = NULL;
    OrtStatus* st = api->KernelInfoGetConstantInput_tensor(info, i, &is_const, &v);
    if (st) {
      api->ReleaseStatus(st);
      continue;
    }
    if (!is_const || !v) continue;
    if ((st = om_kernel_constant_input(api, node, i, v, ORT_INVALID_ARGUMENT)) != NULL) return st;
  }
  return NULL;
}

/* The rank of input i as the graph declares it: OM_RANK_UNKNOWN when it declares no shape (ORT then reports
 * rank 0, so a declared rank 0 counts as unknown too) or the input is absent. */
static size_t om_info_input_rank(const OrtApi* api, const OrtKernelInfo* info, size_t i) {
  OrtTypeInfo* ti = NULL;
  size_t rank = 0;
  OrtStatus* st = api->KernelInfo_GetInputTypeInfo(info, i, &ti);
  if (st) {
    api->ReleaseStatus(st);
    return OM_RANK_UNKNOWN;
  }
  if (!ti) return OM_RANK_UNKNOWN;
  const OrtTensorTypeAndShapeInfo* tsi = NULL;
  st = api->CastTypeInfoToTensorInfo(ti, &tsi);
  if (!st && tsi) st = api->GetDimensionsCount(tsi, &rank);
  else rank = 0;
  if (st) {
    api->ReleaseStatus(st);
    rank = 0;
  }
  api->ReleaseTypeInfo(ti);
  return rank == 0 ? OM_RANK_UNKNOWN : rank;
}

/* What a node can check before its first run from the input ranks the graph declares (a rank above
 * OM_NODE_MAX_RANK; a structured node's axis out of range). */
static OrtStatus* om_check_ranks(const OrtApi* api, const OrtKernelInfo* info, const om_node* node, size_t n) {
  size_t ranks_s[8];
  size_t* ranks = n <= 8 ? ranks_s : malloc(n * sizeof *ranks);
  if (!ranks) return om_error(api, "out of memory");
  for (size_t i = 0; i < n; i++) ranks[i] = om_info_input_rank(api, info, i);
  char err[512];
  int rc = om_node_check_ranks(node, n, ranks, err, sizeof err);
  if (ranks != ranks_s) free(ranks);
  return rc != 0 ? om_error(api, err) : NULL;
}

/* The static shape of input i (rank and every dimension known) into dims; 1 when it has one, 0 when absent
 * (an optional input left out), -1 when unknown or symbolic in any dimension, or of rank 0 (ORT reports an
 * undeclared shape as rank 0). */
static int om_info_input_shape(const OrtApi* api, const OrtKernelInfo* info, size_t i, int64_t* dims, size_t* rank) {
  OrtTypeInfo* ti = NULL;
  OrtStatus* st = api->KernelInfo_GetInputTypeInfo(info, i, &ti);
  if (st) {
    api->ReleaseStatus(st);
    return 0;
  }
  if (!ti) return 0;
  const OrtTensorTypeAndShapeInfo* tsi = NULL;
  int known = -1;
  st = api->CastTypeInfoToTensorInfo(ti, &tsi);
  if (!st && tsi && !(st = api->GetDimensionsCount(tsi, rank)) && *rank <= OM_MAX_RANK &&
      !(st = api->GetDimensions(tsi, dims, *rank))) {
    known = 1;
    for (size_t d = 0; d < *rank; d++)
      if (dims[d] < 0) known = -1;
  }
  if (st) api->ReleaseStatus(st);
  api->ReleaseTypeInfo(ti);
  return known == 1 && *rank == 0 ? -1 : known;
}

/* A structured node whose input shapes are all known when the session is created is checked then (operands
 * that do not fit: MatMul's inner dimensions, LayerNormalization's Scale), not at its first run. Nodes whose output shapes depend on input data
 * (a Reduce op's axes) are left to run time. */
static OrtStatus* om_static_shapes_check(const OrtApi* api, const OrtKernelInfo* info, const om_node* node,
                                         size_t n) {
  enum { CAP = 8 };
  if (n > CAP) return NULL;
  int64_t dims[CAP][OM_MAX_RANK];
  const int64_t* shapes[CAP];
  size_t ranks[CAP];
  const void* data[CAP];
  for (size_t i = 0; i < n; i++) {
    if (om_node_input_shapes_output(node, i)) return NULL;
    ranks[i] = 0;
    data[i] = NULL;
    int known = om_info_input_shape(api, info, i, dims[i], &ranks[i]);
    if (known < 0) return NULL;
    shapes[i] = known ? dims[i] : NULL;
  }
  int64_t out_shapes[OM_MAX_RANK];
  size_t out_rank = 0;
  char err[512];
  if (om_node_output_shapes(node, n, data, shapes, ranks, 1, out_shapes, &out_rank, err, sizeof err) != 0)
    return om_error(api, err);
  return NULL;
}

OrtStatus* om_kernel_create(const OrtApi* api, const OrtKernelInfo* info, int op, unsigned attr_flags,
                            const om_attrs* preset, int shape_ref, om_kernel** out) {
  const om_op_info* row = om_op_row(op);
  *out = NULL;
  char name[128] = "";
  size_t size = sizeof name;
  OrtStatus* st = api->KernelInfo_GetNodeName(info, name, &size);
  if (st) {
    api->ReleaseStatus(st);
    snprintf(name, sizeof name, "(unnamed)");
  }
  char err[512], msg[700];
  size_t n = 0;
  st = api->KernelInfo_GetInputCount(info, &n);
  if (st) return st;
  if (n > 4096) {
    snprintf(msg, sizeof msg, "node '%s' (op %s): %zu inputs is more than supported (4096)", name, row->name, n);
    return om_error(api, msg);
  }
  int types_small[8];
  int* types = n <= 8 ? types_small : malloc(n * sizeof(int));
  if (!types) return om_error(api, "out of memory");
  for (size_t i = 0; i < n; i++) {
    if (om_info_input_type(api, info, i, &types[i]) != 0) {
      snprintf(msg, sizeof msg, "node '%s' (op %s): input %zu is not a tensor", name, row->name, i);
      if (types != types_small) free(types);
      return om_error(api, msg);
    }
  }
  om_attrs attrs;
  if (preset) attrs = *preset;
  else om_attrs_defaults(&attrs);
  om_kernel_info_ctx kctx = {api, info};
  om_attr_source src = om_kernel_info_attrs(&kctx);
  if (om_attrs_read(&src, row, attr_flags, &attrs, err, sizeof err) != 0) {
    snprintf(msg, sizeof msg, "node '%s' (op %s): %s", name, row->name, err);
    if (types != types_small) free(types);
    return om_error(api, msg);
  }
  size_t n_outputs = 0; /* the outputs the node has (Split's count), trailing absent ones ("") not counted */
  st = api->KernelInfo_GetOutputCount(info, &n_outputs);
  if (st) api->ReleaseStatus(st);
  else {
    while (n_outputs > 0) {
      size_t len = 0;
      st = api->KernelInfo_GetOutputName(info, n_outputs - 1, NULL, &len);
      if (st) api->ReleaseStatus(st);
      if (st || len > 1) break; /* the name's size counts its NUL: 1 is "" */
      n_outputs--;
    }
    attrs.n_outputs = n_outputs;
  }
  om_node* node = om_node_create(name, row->key, n, types, &attrs, err, sizeof err);
  if (types != types_small) free(types);
  if (!node) return om_error(api, err);
  const int structured = (row->flags & OM_F_STRUCT) != 0;
  if ((structured && (st = om_constant_inputs(api, info, node, n)) != NULL) ||
      (st = om_check_ranks(api, info, node, n)) != NULL ||
      (structured && (st = om_static_shapes_check(api, info, node, n)) != NULL)) {
    om_node_destroy(node);
    return st;
  }
  om_kernel* k = malloc(sizeof *k);
  if (!k) {
    om_node_destroy(node);
    return om_error(api, "out of memory");
  }
  *k = (om_kernel){api, node, shape_ref ? api->GetTensorElementTypeAndShapeDataReference : NULL, NULL, NULL, 0, 0};
  *out = k;
  return NULL;
}

OrtStatus* om_kernel_wrap(const OrtApi* api, om_node* node, int shape_ref, const int* in_map, size_t n_in,
                          const int* out_map, size_t n_out, om_kernel** out) {
  *out = NULL;
  om_kernel* k = calloc(1, sizeof *k);
  int* maps = calloc(n_in + n_out + 1, sizeof(int));
  if (!k || !maps) {
    free(k);
    free(maps);
    om_node_destroy(node);
    return om_error(api, "out of memory");
  }
  for (size_t i = 0; i < n_in; i++) maps[i] = in_map[i];
  for (size_t o = 0; o < n_out; o++) maps[n_in + o] = out_map[o];
  *k = (om_kernel){api, node, shape_ref ? api->GetTensorElementTypeAndShapeDataReference : NULL, maps, maps + n_in,
                   n_in, n_out};
  *out = k;
  return NULL;
}

void OM_ORT_CALL om_kernel_destroy(void* kernel) {
  om_kernel* k = kernel;
  if (!k) return;
  om_node_destroy(k->node);
  free(k->in_map); /* one block with out_map */
  free(k);
}

/* ---- compute --------------------------------------------------------------------------------------------- */
void om_kernel_parallel_for(void* host, void (*fn)(void*, size_t), size_t total, void* fn_ctx) {
  om_pf_host* h = host;
  OrtStatus* st = h->api->KernelContext_ParallelFor(h->ctx, fn, total, 0, fn_ctx);
  if (st) { /* no thread pool: run here */
    h->api->ReleaseStatus(st);
    for (size_t i = 0; i < total; i++) fn(fn_ctx, i);
  }
}

#define OM_CHECK(expr)            \
  do {                            \
    OrtStatus* s_ = (expr);       \
    if (s_) {                     \
      status = s_;                \
      goto done;                  \
    }                             \
  } while (0)

/* The shape of input v: on API 24+ runtimes ORT's own dims (valid while v lives, nothing allocated); else a copy
 * through an OrtTensorTypeAndShapeInfo, into small (8 dims) when given and large enough, or malloc'd (the caller
 * frees what is not small). */
static const int64_t om_rank0_dims[1] = {0}; /* the shape of a rank-0 input: no dimension is read */

static OrtStatus* om_input_shape(const om_kernel* k, const OrtValue* v, int64_t* small, const int64_t** dims,
                                 size_t* rank) {
  const OrtApi* api = k->api;
  if (k->shape_ref) {
    ONNXTensorElementDataType et;
    OrtStatus* st = k->shape_ref(v, &et, dims, rank);
    if (st) return st;
    if (!*dims && *rank > 0) return om_error(api, "ORT returned no shape for an input");
    /* A present input's shape is never NULL, not even at rank 0 (where ORT gives no dims pointer): to the node,
     * a NULL shape means an absent input. */
    if (!*dims) *dims = om_rank0_dims;
    return NULL;
  }
  OrtTensorTypeAndShapeInfo* tsi = NULL;
  OrtStatus* st = api->GetTensorTypeAndShape(v, &tsi);
  if (st) return st;
  st = api->GetDimensionsCount(tsi, rank); /* a rank above OM_NODE_MAX_RANK: the node's entries refuse it */
  int64_t* d = NULL;
  if (!st) {
    d = (small && *rank <= 8) ? small : malloc((*rank ? *rank : 1) * sizeof(int64_t));
    st = d ? api->GetDimensions(tsi, d, *rank) : om_error(api, "out of memory");
  }
  api->ReleaseTensorTypeAndShapeInfo(tsi);
  if (st && d && d != small) free(d);
  *dims = st ? NULL : d;
  return st;
}


/* A structured node: several outputs, shapes that may depend on an input's data (a Reduce op's axes). The
 * output shapes and buffers of up to SMALL outputs live on the stack, more (Split's) in one allocation. */
static OrtStatus* om_compute_outputs(om_kernel* k, OrtKernelContext* ctx, size_t n, const void* const* data,
                                     const int64_t* const* shapes, const size_t* ranks) {
  enum { SMALL = 4 };
  const OrtApi* api = k->api;
  size_t n_out = k->n_out;
  OrtStatus* st = k->out_map ? NULL : api->KernelContext_GetOutputCount(ctx, &n_out);
  if (st) return st;
  /* Outputs past the node's own count are trailing absent ones ("": creation counted only the others) */
  if (n_out > om_node_output_count(k->node)) n_out = om_node_output_count(k->node);
  if (n_out == 0 || n_out > OM_MAX_OUTPUTS) return om_error(api, "unexpected number of outputs");
  int64_t out_shapes_s[SMALL * OM_MAX_RANK];
  size_t out_ranks_s[SMALL];
  void* outs_s[SMALL];
  int64_t* out_shapes = out_shapes_s;
  size_t* out_ranks = out_ranks_s;
  void** outs = outs_s;
  void* heap = NULL;
  if (n_out > SMALL) {
    heap = malloc(n_out * (OM_MAX_RANK * sizeof(int64_t) + sizeof(size_t) + sizeof(void*)));
    if (!heap) return om_error(api, "out of memory");
    out_shapes = heap;
    out_ranks = (size_t*)(out_shapes + n_out * OM_MAX_RANK);
    outs = (void**)(out_ranks + n_out);
  }
  for (size_t o = 0; o < n_out; o++) outs[o] = NULL;
  char err[512];
  if (om_node_output_shapes(k->node, n, data, shapes, ranks, n_out, out_shapes, out_ranks, err, sizeof err) != 0) {
    st = om_error(api, err);
    goto done;
  }
  for (size_t o = 0; o < n_out; o++) {
    OrtValue* out = NULL;
    int co = k->out_map ? k->out_map[o] : (int)o;
    st = co < 0 ? NULL
                : api->KernelContext_GetOutput(ctx, (size_t)co, out_shapes + o * OM_MAX_RANK, out_ranks[o], &out);
    if (st) goto done;
    if (!out) continue; /* an optional output the node does not produce */
    st = api->GetTensorMutableData(out, &outs[o]);
    if (st) goto done;
    if (!outs[o] && om_shape_count(out_shapes + o * OM_MAX_RANK, out_ranks[o]) > 0) {
      st = om_error(api, "ORT returned no output buffer");
      goto done;
    }
    if (!outs[o]) outs[o] = out; /* a zero-size output: never written, but requested */
  }
  om_pf_host host = {api, ctx, NULL};
  if (om_node_run_outputs(k->node, n, data, shapes, ranks, n_out, outs, out_shapes, out_ranks, om_kernel_parallel_for, &host,
                          err, sizeof err) != 0)
    st = om_error(api, err);
done:
  free(heap);
  return st;
}

OrtStatus* OM_ORT_CALL om_kernel_compute(void* kernel, OrtKernelContext* ctx) {
  om_kernel* k = kernel;
  const OrtApi* api = k->api;
  OrtStatus* status = NULL;
  size_t n = k->n_in;
  OrtStatus* st = k->in_map ? NULL : api->KernelContext_GetInputCount(ctx, &n);
  if (st) return st;
  enum { SMALL = 4 };
  const void* data_s[SMALL];
  const int64_t* shapes_s[SMALL];
  size_t ranks_s[SMALL];
  int64_t dims_s[SMALL][8];
  const void** data = data_s;
  const int64_t** shapes = shapes_s;
  size_t* ranks = ranks_s;
  void* heap = NULL;
  if (n > SMALL) {
    heap = calloc(n, sizeof(void*) + sizeof(int64_t*) + sizeof(size_t));
    if (!heap) return om_error(api, "out of memory");
    data = heap;
    shapes = (const int64_t**)(data + n);
    ranks = (size_t*)(shapes + n);
  }
  for (size_t i = 0; i < n; i++) {
    data[i] = NULL;
    shapes[i] = NULL;
    ranks[i] = 0;
  }
  for (size_t i = 0; i < n; i++) {
    if (om_node_input_type_only(k->node, i)) continue; /* a type carrier: its shape and data are not used */
    const OrtValue* v = NULL;
    int ci = k->in_map ? k->in_map[i] : (int)i;
    if (ci == OM_KERNEL_IN_ZERO) { /* a one-element zero the kernel feeds itself (rank 0) */
      data[i] = om_kernel_zero;
      shapes[i] = om_kernel_zero_dims;
      continue;
    }
    if (ci < 0) continue; /* absent optional input (a compiled node has no input for it) */
    OM_CHECK(api->KernelContext_GetInput(ctx, (size_t)ci, &v));
    if (!v) continue; /* absent optional input */
    const int64_t* dims = NULL;
    size_t rank = 0;
    OM_CHECK(om_input_shape(k, v, i < SMALL ? dims_s[i] : NULL, &dims, &rank));
    shapes[i] = dims;
    ranks[i] = rank;
    void* p = NULL;
    OM_CHECK(api->GetTensorMutableData((OrtValue*)v, &p));
    data[i] = p;
  }
  if (k->node->family) { /* a structured node */
    status = om_compute_outputs(k, ctx, n, data, (const int64_t* const*)shapes, ranks);
    goto done;
  }
  {
    int64_t out_shape[OM_MAX_RANK];
    size_t out_rank = 0;
    char err[512];
    if (om_node_output_shape(k->node, n, (const int64_t* const*)shapes, ranks, out_shape, &out_rank, err,
                             sizeof err) != 0) {
      status = om_error(api, err);
      goto done;
    }
    OrtValue* out = NULL;
    if (k->out_map && k->out_map[0] < 0) goto done; /* a compiled node whose output nobody reads */
    OM_CHECK(api->KernelContext_GetOutput(ctx, k->out_map ? (size_t)k->out_map[0] : 0, out_shape, out_rank, &out));
    void* odata = NULL;
    OM_CHECK(api->GetTensorMutableData(out, &odata));
    size_t total = 1;
    for (size_t d = 0; d < out_rank; d++) total *= (size_t)out_shape[d];
    if (total > 0 && !odata) {
      status = om_error(api, "ORT returned no output buffer");
      goto done;
    }
    om_pf_host host = {api, ctx, NULL};
    if (om_node_run_shaped(k->node, n, data, (const int64_t* const*)shapes, ranks, odata, out_shape, out_rank,
                           om_kernel_parallel_for, &host, err, sizeof err) != 0)
      status = om_error(api, err);
  }
done:
  if (!k->shape_ref) /* the legacy path's copies: those that did not fit in dims_s */
    for (size_t i = 0; i < n; i++)
      if (shapes[i] && shapes[i] != om_kernel_zero_dims && !(i < SMALL && shapes[i] == dims_s[i]))
        free((void*)shapes[i]);
  free(heap);
  return status;
}

