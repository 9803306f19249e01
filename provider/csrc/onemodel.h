/* onemodel.h - the library's own C API: the op table, kernel paths, and ORT-independent nodes.
 *
 * Python reads this file as its cffi declarations (preprocessor lines and comments are stripped), and the ORT
 * glue (ort/custom_ops.c, ort/kernel.c) is a thin layer over the same functions, so tests that call kernels
 * directly exercise the code ORT runs.
 */
#ifndef OM_ONEMODEL_H
#define OM_ONEMODEL_H

#include <stddef.h>
#include <stdint.h>

#include "core/om_exec.h" /* OM_MODE_EXACT/FAST, om_parallel_for_fn */

/* Output element-type rules and op flags of the op table (om_ops.def). */
enum { OM_OUT_SAME = 0, OM_OUT_BOOL = 1, OM_OUT_TO = 2, OM_OUT_LIKE1 = 3, OM_OUT_INT64 = 4, OM_OUT_INT32 = 5 };
enum { OM_F_INPLACE = 1, OM_F_FMOD = 2, OM_F_MODES = 4, OM_F_STRUCT = 8, OM_F_OUT3 = 16, OM_F_OUT2 = 32, OM_F_OUT4 = 64 };
/* The highest rank of an input (and so of an output) that a node serves: a node given a higher one refuses with a
 * message naming node, op, input and rank; hosts leave nodes whose declared ranks are higher to stock ORT. */
enum { OM_NODE_MAX_RANK = 64 };

typedef struct om_op_info {
  const char* name;
  int since_opset;
  int min_inputs;
  int max_inputs;
  uint32_t input0_types;
  uint32_t other_types;
  int output_rule;
  uint32_t flags;
  int max_outputs; /* 1, or 2, 3, 4 for OM_F_OUT2, OM_F_OUT3, OM_F_OUT4 (the optional outputs after output 0) */
  const char* domain; /* the operator's domain: "" (ONNX's default), or "com.microsoft" (OM_OP_IN rows) */
  const char* key;    /* the row's unique name: `name` in the default domain, "<domain>.<name>" otherwise; the op
                       * om_node_create takes, and the op type of the rewritten node in our domain ai.onemodel */
} om_op_info;

size_t om_op_count(void);
int om_op_get(size_t index, om_op_info* out);

int om_path_count(void);
const char* om_path_name(int path);
int om_path_available(int path);
int om_path_best(void);
const char* om_type_name(int type);
size_t om_type_size(int type);

/* Node attributes, as read from the ONNX node (the ORT glue) or given by a caller (tests). */
typedef struct om_attrs {
  int mode;          /* OM_MODE_EXACT or OM_MODE_FAST */
  int path;          /* kernel path index, or -1 for the widest this CPU has */
  int onnx_opset;    /* opset of the node's domain in its model (the default domain's, or com.microsoft's for
                      * an OM_OP_IN row of that domain), 0 if unknown */
  int64_t fmod;      /* Mod */
  int has_fmod;
  int approximate;   /* Gelu: 0 "none", 1 "tanh" */
  int64_t to;        /* Cast: target element type */
  int has_to;
  float alpha;       /* LeakyRelu, HardSigmoid, ThresholdedRelu, Elu, Selu, Celu */
  int has_alpha;
  float beta;        /* HardSigmoid */
  int has_beta;
  float min;         /* Clip before opset 11 */
  int has_min;
  float max;
  int has_max;
  /* the structured ops (MatMul, Gemm, Softmax, LayerNormalization, Reduce*, Gather, Concat, Flatten) */
  int64_t trans_a, trans_b; /* Gemm */
  int has_trans_a, has_trans_b;
  int64_t axis;             /* Softmax, LogSoftmax, LayerNormalization */
  int has_axis;
  float epsilon;            /* LayerNormalization */
  int has_epsilon;
  int64_t stash_type;       /* LayerNormalization */
  int has_stash_type;
  int64_t keepdims;         /* Reduce* */
  int has_keepdims;
  int64_t noop_with_empty_axes;
  int has_noop_with_empty_axes;
  int64_t axes[128];        /* Reduce* before the axes input, Squeeze, Unsqueeze, Slice: the attribute's distinct
                               values, in their first order */
  size_t n_axes;
  size_t n_axes_listed;     /* the attribute's entries as given, repeats included */
  int has_axes;
  /* the data-movement ops */
  int64_t perm[64];         /* Transpose */
  size_t n_perm;
  int has_perm;
  int64_t starts[64];       /* Slice before opset 10 */
  size_t n_starts;
  int has_starts;
  int64_t ends[64];
  size_t n_ends;
  int has_ends;
  int64_t allowzero;        /* Reshape */
  int has_allowzero;
  int64_t start;            /* Shape */
  int has_start;
  int64_t end;
  int has_end;
  float gamma;       /* Selu */
  int has_gamma;
  int64_t detect_positive; /* IsInf */
  int has_detect_positive;
  int64_t detect_negative;
  int has_detect_negative;
  /* Conv: lists of one entry per spatial axis (pads: the begins, then the ends) */
  int64_t group;
  int has_group;
  int auto_pad;             /* 0 NOTSET, 1 SAME_UPPER, 2 SAME_LOWER, 3 VALID */
  int64_t kernel_shape[8];
  size_t n_kernel_shape;
  int has_kernel_shape;
  int64_t strides[8];
  size_t n_strides;
  int has_strides;
  int64_t dilations[8];
  size_t n_dilations;
  int has_dilations;
  int64_t pads[16];
  size_t n_pads;
  int has_pads;
  int64_t ceil_mode;       /* MaxPool, AveragePool */
  int has_ceil_mode;
  int64_t storage_order;   /* MaxPool */
  int has_storage_order;
  int64_t count_include_pad; /* AveragePool */
  int has_count_include_pad;
  int64_t training_mode;   /* BatchNormalization (opset 14 on) */
  int has_training_mode;
} om_attrs;

typedef struct om_node om_node;

/* Create a node for `op` (a row's key: "Add", "com.microsoft.SkipLayerNormalization") with the given input element types (0 for an absent optional input). Returns NULL
 * and a message naming node, op and type in err when the node is not supported. */
om_node* om_node_create(const char* node_name, const char* op, size_t n_inputs, const int* input_types,
                        const om_attrs* attrs, char* err, size_t errlen);
void om_node_destroy(om_node* node);
int om_node_output_type(const om_node* node);
/* 1 when input k only carries a type (Cast's and CastLike's second input): the host need not read its shape or
 * data, and may pass NULL for both. */
int om_node_input_type_only(const om_node* node, size_t k);
/* Output shape from input shapes (NULL shape: absent input; a present input of rank 0 still has a non-NULL shape
 * pointer, to an empty shape). Returns 0, or -1 with a message. */
int om_node_output_shape(const om_node* node, size_t n_inputs, const int64_t* const* shapes, const size_t* ranks,
                         int64_t* out_shape, size_t* out_rank, char* err, size_t errlen);


/* Compute the node's output (already allocated with the shape from om_node_output_shape). */
int om_node_run(const om_node* node, size_t n_inputs, const void* const* data, const int64_t* const* shapes,
                const size_t* ranks, void* out, const int64_t* out_shape, size_t out_rank,
                om_parallel_for_fn parallel_for, void* host_ctx, char* err, size_t errlen);

/* ---- every node, multi-output and structured ones included --------------------------------------------
 * The element-wise calls above serve nodes with one output; these serve every node. Shapes of outputs are
 * written into out_shapes[k * OM_NODE_MAX_RANK .. k * OM_NODE_MAX_RANK + rank). */
size_t om_node_output_count(const om_node* node); /* the most outputs the node can have */
int om_node_output_type_at(const om_node* node, size_t k);
/* 1 when the output shapes depend on input k's data (a Reduce op's axes input): the host passes its data to
 * om_node_output_shapes. */
int om_node_input_shapes_output(const om_node* node, size_t k);
int om_node_output_shapes(const om_node* node, size_t n_inputs, const void* const* data,
                          const int64_t* const* shapes, const size_t* ranks, size_t n_outputs, int64_t* out_shapes,
                          size_t* out_ranks, char* err, size_t errlen);
/* Compute the outputs (outs[k] NULL: output k not wanted), allocated with the shapes om_node_output_shapes
 * gave for the same inputs. */
int om_node_run_outputs(const om_node* node, size_t n_inputs, const void* const* data, const int64_t* const* shapes,
                        const size_t* ranks, size_t n_outputs, void* const* outs, const int64_t* out_shapes,
                        const size_t* out_ranks, om_parallel_for_fn parallel_for, void* host_ctx, char* err,
                        size_t errlen);
/* Input k is a constant (an initializer) with this value for the node's lifetime: the node may prepare for it
 * (MatMul packs a constant B once). The data need not outlive the call. Returns 0, or -1 with a message. */
int om_node_set_constant_input(om_node* node, size_t k, const void* data, const int64_t* shape, size_t rank,
                               char* err, size_t errlen);

/* How the ORT glue reads input shapes in kernels created from now on: 1 through the runtime's own dims
 * (GetTensorElementTypeAndShapeDataReference, ORT API 24+), 0 through a copy (older runtimes, or the
 * environment variable ONEMODEL_LEGACY_SHAPES set to anything but 0 when the ops were registered). Set by the
 * last RegisterCustomOps in this process; 0 before any. */
int om_ort_glue_shape_ref(void);

#endif
