/* custom_ops.c - ONNX Runtime custom-op registration: RegisterCustomOps registers the `ai.onemodel` domain with
 * one OrtCustomOp per row of the op table (Pow once per base type, a structured op once per input-0 type) whose
 * schema callbacks read the row; its kernels are ort/kernel.c's om_kernel. A session that lists the ops it
 * needs (session config entry "onemodel.custom_ops") gets a domain of those only (custom_ops_subset.c).
 * Knows nothing of math.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/om_ops.h"
#include "custom_ops_subset.h"
#include "node/node_family.h"
#include "onemodel.h"
#include "ort_api.h"
#include "ort_attrs.h"
#include "ort_kernel.h"
#include "ort_status.h"

#define OM_DOMAIN "ai.onemodel"
#define OM_VARIADIC_ARITY 1000000 /* max_inputs at or above this is a variadic input */

typedef struct om_custom_op {
  OrtCustomOp base; /* first member: ORT passes &base back to us */
  int op;
  int fixed_type; /* 0, or the element type of input 0 and the output (Pow: one registration per base type) */
} om_custom_op;

static const OrtApi* om_once_api;

/* Whether the runtime that registered our ops has API version OM_ORT_API_SHAPE_REF_VERSION or newer, from
 * its version string ("1.24.0" and later): asking GetApi for a version the runtime lacks prints a message on
 * its standard error, so the string is read instead. Set by RegisterCustomOps. */
static int om_runtime_has_shape_ref;
static int om_version_has_shape_ref(const char* v) {
  unsigned major = 0, minor = 0;
  if (!v || sscanf(v, "%u.%u", &major, &minor) != 2) return 0;
  return major > 1 || (major == 1 && minor >= OM_ORT_API_SHAPE_REF_VERSION);
}

static const om_op_info* om_row_of(const OrtCustomOp* op) { return om_op_row(((const om_custom_op*)op)->op); }
static int om_is_variadic(const om_op_info* row) { return row->max_inputs >= OM_VARIADIC_ARITY; }
int om_ort_glue_shape_ref(void) { return om_runtime_has_shape_ref; }

/* ---- schema callbacks ------------------------------------------------------------------------------------ */
/* The row's key: its ONNX name for the default domain, "<domain>.<name>" for another (om_ops.def) */
static const char* OM_ORT_CALL om_get_name(const OrtCustomOp* op) { return om_row_of(op)->key; }
static const char* OM_ORT_CALL om_get_ep(const OrtCustomOp* op) {
  (void)op;
  return NULL; /* the CPU execution provider */
}
static size_t OM_ORT_CALL om_get_input_count(const OrtCustomOp* op) {
  const om_op_info* row = om_row_of(op);
  return om_is_variadic(row) ? 1 : (size_t)row->max_inputs;
}
static ONNXTensorElementDataType OM_ORT_CALL om_get_input_type(const OrtCustomOp* op, size_t i) {
  int fixed = ((const om_custom_op*)op)->fixed_type;
  if (i == 0 && fixed) return (ONNXTensorElementDataType)fixed;
  return ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED; /* checked, with a clear message, when the kernel is created */
}
/* a row with variadic outputs (OM_F_OUTN: Split) declares one, the variadic one */
static int om_outputs_variadic(const om_op_info* row) { return (row->flags & OM_F_OUTN) != 0; }
static size_t OM_ORT_CALL om_get_output_count(const OrtCustomOp* op) {
  const om_op_info* row = om_row_of(op);
  return om_outputs_variadic(row) ? 1 : (size_t)row->max_outputs;
}
/* Output types: bool for comparisons; a Pow registration's base type; otherwise undefined, which ORT infers
 * as the type of the last input (right for every other rule but Cast's, which has its own inference). */
static ONNXTensorElementDataType OM_ORT_CALL om_get_output_type(const OrtCustomOp* op, size_t i) {
  int fixed = ((const om_custom_op*)op)->fixed_type;
  if (fixed) return (ONNXTensorElementDataType)om_struct_output_type(((const om_custom_op*)op)->op, fixed, i);
  int rule = om_row_of(op)->output_rule;
  if (rule == OM_OUT_INT64) return ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64;
  return rule == OM_OUT_BOOL ? ONNX_TENSOR_ELEMENT_DATA_TYPE_BOOL : ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
}

/* Cast written with one input: the output has the input's shape and the element type named by `to`. (ORT's
 * custom-op inference cannot express an unknown rank, so an input of unknown shape is stamped as a scalar
 * and ORT falls back to a lenient merge with a warning. The rewriter therefore writes Cast with a second
 * input, an empty tensor of the target type, from which ORT infers the output type itself; then this
 * function leaves the output alone.) */
static OrtStatus* OM_ORT_CALL om_infer_cast(const OrtCustomOp* op, OrtShapeInferContext* ctx) {
  (void)op;
  const OrtApi* api = om_once_api;
  size_t n_in = 0;
  OrtStatus* st = api->ShapeInferContext_GetInputCount(ctx, &n_in);
  if (st) return st;
  if (n_in >= 2) return NULL;
  const OrtOpAttr* attr = NULL;
  st = api->ShapeInferContext_GetAttribute(ctx, "to", &attr);
  if (st || !attr) {
    if (st) api->ReleaseStatus(st);
    return NULL; /* kernel creation reports the missing attribute */
  }
  int64_t to = 0;
  size_t got = 0;
  st = api->ReadOpAttr(attr, ORT_OP_ATTR_INT, &to, sizeof to, &got);
  if (st) {
    api->ReleaseStatus(st);
    return NULL;
  }
  OrtTensorTypeAndShapeInfo* in = NULL; /* owned by ctx */
  st = api->ShapeInferContext_GetInputTypeShape(ctx, 0, &in);
  if (st) return st;
  size_t rank = 0;
  OrtTensorTypeAndShapeInfo* out = NULL;
  int64_t dims_s[8];
  const char* syms_s[8];
  int64_t* dims = dims_s;
  const char** syms = syms_s;
  if (!(st = api->GetDimensionsCount(in, &rank)) && rank > 8) {
    dims = malloc(rank * sizeof *dims);
    syms = malloc(rank * sizeof *syms);
    if (!dims || !syms) st = om_ort_error(api, ORT_INVALID_ARGUMENT, "out of memory");
  }
  if (!st) st = api->GetDimensions(in, dims, rank);
  if (!st) st = api->GetSymbolicDimensions(in, syms, rank);
  if (!st) st = api->CreateTensorTypeAndShapeInfo(&out);
  if (!st) st = api->SetTensorElementType(out, (ONNXTensorElementDataType)to);
  if (!st) st = api->SetDimensions(out, dims, rank);
  if (!st) st = api->SetSymbolicDimensions(out, syms, rank);
  if (!st) st = api->ShapeInferContext_SetOutputTypeShape(ctx, 0, out);
  if (out) api->ReleaseTensorTypeAndShapeInfo(out);
  /* `in` belongs to the context (ORT keeps it in a unique_ptr): not ours to release. */
  if (dims != dims_s) free(dims);
  if (syms != syms_s) free((void*)syms);
  return st;
}
static OrtCustomOpInputOutputCharacteristic OM_ORT_CALL om_get_input_char(const OrtCustomOp* op, size_t i) {
  const om_op_info* row = om_row_of(op);
  if (om_is_variadic(row)) return INPUT_OUTPUT_VARIADIC;
  return i < (size_t)row->min_inputs ? INPUT_OUTPUT_REQUIRED : INPUT_OUTPUT_OPTIONAL;
}
/* ORT infers an output of undefined type from the inputs only when exactly one input is untyped; for ops with
 * several inputs the output is declared optional, which lifts that check, and ORT then takes the type of the
 * last input (all our inputs share the output type where the rule is OM_OUT_SAME). */
static OrtCustomOpInputOutputCharacteristic OM_ORT_CALL om_get_output_char(const OrtCustomOp* op, size_t i) {
  const om_op_info* row = om_row_of(op);
  if (om_outputs_variadic(row)) return INPUT_OUTPUT_VARIADIC;
  if (i > 0) return INPUT_OUTPUT_OPTIONAL; /* LayerNormalization's Mean and InvStdDev */
  if (row->output_rule != OM_OUT_BOOL && !om_is_variadic(row) && row->max_inputs > 1) return INPUT_OUTPUT_OPTIONAL;
  return INPUT_OUTPUT_REQUIRED;
}
static OrtMemType OM_ORT_CALL om_get_mem_type(const OrtCustomOp* op, size_t i) {
  (void)op;
  (void)i;
  return OrtMemTypeDefault;
}
static int OM_ORT_CALL om_get_variadic_min(const OrtCustomOp* op) { return om_row_of(op)->min_inputs; }
/* Getters whose answer is the same for every op: homogeneous variadic inputs and outputs, at least one
 * output, every op from version 1 of our domain. */
#define OM_CONSTANT_GETTER(name, value)                    \
  static int OM_ORT_CALL name(const OrtCustomOp* op) {     \
    (void)op;                                              \
    return value;                                          \
  }
OM_CONSTANT_GETTER(om_get_variadic_homog, 1)
OM_CONSTANT_GETTER(om_get_variadic_out_min, 1)
OM_CONSTANT_GETTER(om_get_variadic_out_homog, 1)
OM_CONSTANT_GETTER(om_get_start_version, 1)
static size_t OM_ORT_CALL om_may_inplace(int** input_index, int** output_index) {
  *input_index = malloc(sizeof(int));
  *output_index = malloc(sizeof(int));
  if (!*input_index || !*output_index) {
    free(*input_index);
    free(*output_index);
    *input_index = *output_index = NULL;
    return 0;
  }
  (*input_index)[0] = 0;
  (*output_index)[0] = 0;
  return 1;
}
static void OM_ORT_CALL om_release_inplace(int* input_index, int* output_index) {
  free(input_index);
  free(output_index);
}

static OrtStatus* OM_ORT_CALL om_create_kernel(const OrtCustomOp* op, const OrtApi* api, const OrtKernelInfo* info,
                                               void** kernel) {
  om_kernel* k = NULL;
  OrtStatus* st = om_kernel_create(api, info, ((const om_custom_op*)op)->op, OM_ATTRS_ONEMODEL, NULL,
                                   om_runtime_has_shape_ref, &k);
  *kernel = k;
  return st;
}

/* ---- registration ---------------------------------------------------------------------------------------- */
/* One registration per row; Pow first gets one per base type, so ORT infers its output type from input 0
 * (ORT picks the first registration whose input types match), then the untyped one that reports
 * unsupported types by name. */
/* A structured op (OM_F_STRUCT) gets one registration per input-0 type with that type fixed, and its output
 * types from om_struct_output_type, so ORT never guesses them from a last input (a Reduce op's int64 axes). */
static const int om_pow_bases[] = {OM_T_FLOAT, OM_T_DOUBLE, OM_T_INT32, OM_T_INT64};
#define OM_N_POW_BASES (sizeof om_pow_bases / sizeof om_pow_bases[0])
#define OM_N_CUSTOM_OPS_MAX (OM_OP_COUNT * 33 + OM_N_POW_BASES)
static om_custom_op om_custom_ops[OM_N_CUSTOM_OPS_MAX];
static size_t om_n_custom_ops;

static void om_init_ops(void) {
  size_t n = 0;
  for (size_t b = 0; b < OM_N_POW_BASES; b++) {
    om_custom_ops[n].op = OM_OP_POW;
    om_custom_ops[n++].fixed_type = om_pow_bases[b];
  }
  for (int i = 0; i < OM_OP_COUNT; i++) {
    if (!(om_op_row(i)->flags & OM_F_STRUCT)) continue;
    for (int t = 1; t < 32; t++)
      if (om_op_row(i)->input0_types & OM_TB(t)) {
        om_custom_ops[n].op = i;
        om_custom_ops[n++].fixed_type = t;
      }
  }
  for (int i = 0; i < OM_OP_COUNT; i++) {
    om_custom_ops[n].op = i;
    om_custom_ops[n++].fixed_type = 0;
  }
  om_n_custom_ops = n;
  for (size_t j = 0; j < om_n_custom_ops; j++) {
    int i = om_custom_ops[j].op;
    OrtCustomOp* c = &om_custom_ops[j].base;
    memset(c, 0, sizeof *c);
    c->version = OM_ORT_API_VERSION;
    c->GetName = om_get_name;
    c->GetExecutionProviderType = om_get_ep;
    c->GetInputType = om_get_input_type;
    c->GetInputTypeCount = om_get_input_count;
    c->GetOutputType = om_get_output_type;
    c->GetOutputTypeCount = om_get_output_count;
    c->KernelDestroy = om_kernel_destroy;
    c->GetInputCharacteristic = om_get_input_char;
    c->GetOutputCharacteristic = om_get_output_char;
    c->GetInputMemoryType = om_get_mem_type;
    c->GetVariadicInputMinArity = om_get_variadic_min;
    c->GetVariadicInputHomogeneity = om_get_variadic_homog;
    c->GetVariadicOutputMinArity = om_get_variadic_out_min;
    c->GetVariadicOutputHomogeneity = om_get_variadic_out_homog;
    c->CreateKernelV2 = om_create_kernel;
    c->KernelComputeV2 = om_kernel_compute;
    c->GetStartVersion = om_get_start_version;
    if (om_op_row(i)->output_rule == OM_OUT_TO) c->InferOutputShapeFn = om_infer_cast;
    if (om_op_row(i)->flags & OM_F_INPLACE) {
      c->GetMayInplace = om_may_inplace;
      c->ReleaseMayInplace = om_release_inplace;
    }
  }
}

/* One domain for the whole process, created on first use and shared by every session. */
static OrtCustomOpDomain* om_domain;

#if defined(_WIN32)
static int om_once_done;
#define OM_ONCE(fn) (om_once_done ? 0 : (om_once_done = 1, fn(), 0))
#else
#include <pthread.h>
static pthread_once_t om_once = PTHREAD_ONCE_INIT;
#define OM_ONCE(fn) pthread_once(&om_once, fn)
#endif
static OrtStatus* om_once_status;

static void om_build_domain(void) {
  const OrtApi* api = om_once_api;
  om_init_ops();
  OrtStatus* st = api->CreateCustomOpDomain(OM_DOMAIN, &om_domain);
  if (st) {
    om_once_status = st;
    om_domain = NULL;
    return;
  }
  for (size_t i = 0; i < om_n_custom_ops; i++) {
    st = api->CustomOpDomain_Add(om_domain, &om_custom_ops[i].base);
    if (st) {
      om_once_status = st;
      return;
    }
  }
}

static const OrtCustomOp* om_entry(size_t j, int* op) {
  *op = om_custom_ops[j].op;
  return &om_custom_ops[j].base;
}

/* The session's domain: the ops its "onemodel.custom_ops" entry lists (custom_ops_subset.c), or without that
 * entry (or with OM_SUBSET_CACHE_MAX distinct lists already seen) every op. */
OM_EXPORT OrtStatus* OM_ORT_CALL RegisterCustomOps(OrtSessionOptions* options, const OrtApiBase* api_base) {
  if (!api_base) return NULL;
  const OrtApi* api = api_base->GetApi(OM_ORT_API_VERSION);
  if (!api) {
    /* CreateStatus is member 0 of every API version, so an older runtime can still hear why. */
    const OrtApi* old = api_base->GetApi(1);
    char msg[256];
    snprintf(msg, sizeof msg,
             "OneModel EP needs ONNX Runtime with C API version %u or newer (ONNX Runtime 1.21+); this runtime is %s",
             OM_ORT_API_VERSION, api_base->GetVersionString ? api_base->GetVersionString() : "older");
    return old ? old->CreateStatus(ORT_FAIL, msg) : NULL;
  }
  om_once_api = api;
  const char* legacy = getenv("ONEMODEL_LEGACY_SHAPES"); /* tests: the path of runtimes before API 24 */
  om_runtime_has_shape_ref = !(legacy && *legacy && strcmp(legacy, "0") != 0) &&
                             om_version_has_shape_ref(api_base->GetVersionString ? api_base->GetVersionString() : NULL);
  om_attrs_set_runtime(api_base->GetVersionString ? api_base->GetVersionString() : NULL);
  OM_ONCE(om_build_domain);
  if (!om_domain) {
    if (om_once_status) return api->CreateStatus(ORT_FAIL, api->GetErrorMessage(om_once_status));
    return api->CreateStatus(ORT_FAIL, "OneModel EP: could not create the ai.onemodel domain");
  }
  OrtCustomOpDomain* subset = NULL;
  OrtStatus* st = om_custom_ops_subset(api, options, OM_DOMAIN, om_n_custom_ops, om_entry, &subset);
  if (st) return st;
  return api->AddCustomOpDomain(options, subset ? subset : om_domain);
}

