/* onemodel.h - the library's own C API: the op table, kernel paths, and ORT-independent nodes.
 *
 * Python reads this file as its cffi declarations (preprocessor lines and comments are stripped, om_attrs' fields
 * expanded from core/om_attrs.def by provider/build_ffi.py), and the ORT
 * glue (ort/custom_ops.c, ort/kernel.c) is a thin layer over the same functions, so tests that call kernels
 * directly exercise the code ORT runs.
 */
#ifndef OM_ONEMODEL_H
#define OM_ONEMODEL_H

#include <stddef.h>
#include <stdint.h>

#include "core/om_exec.h" /* OM_MODE_EXACT/FAST, om_parallel_for_fn */

/* Output element-type rules and op flags of the op table (om_ops.def). */
enum { OM_OUT_SAME = 0, OM_OUT_BOOL = 1, OM_OUT_TO = 2, OM_OUT_LIKE1 = 3, OM_OUT_INT64 = 4, OM_OUT_INT32 = 5,
       OM_OUT_NODE = 6, /* the node's family decides (QuantizeLinear: the zero point's or output_dtype's type) */
       OM_OUT_VALUE = 7 /* the element type of the tensor attribute `value` (ConstantOfShape; float when absent) */ };
enum { OM_F_INPLACE = 1, OM_F_FMOD = 2, OM_F_MODES = 4, OM_F_STRUCT = 8, OM_F_OUT3 = 16, OM_F_OUT2 = 32, OM_F_OUT4 = 64,
       OM_F_OUTN = 128 };
/* The highest rank of an input (and so of an output) that a node serves: a node given a higher one refuses with a
 * message naming node, op, input and rank; hosts leave nodes whose declared ranks are higher to stock ORT. */
enum { OM_NODE_MAX_RANK = 64 };
/* The most outputs a node (a row with OM_F_OUTN: Split) serves; hosts leave nodes with more to stock ORT. */
enum { OM_NODE_MAX_OUTPUTS = 256 };

typedef struct om_op_info {
  const char* name;
  int since_opset;
  int min_inputs;
  int max_inputs;
  uint32_t input0_types;
  uint32_t other_types;
  int output_rule;
  uint32_t flags;
  int max_outputs; /* 1, or 2, 3, 4 for OM_F_OUT2, OM_F_OUT3, OM_F_OUT4 (the optional outputs after output 0),
                    * OM_NODE_MAX_OUTPUTS for OM_F_OUTN (variadic outputs) */
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

/* Which nodes compute (core/om_computing.c; strict mode, docs/architecture.md): the ops of ONNX's default domain
 * that never compute, one an index from 0 (NULL past the last), with their kind; and whether a node of `op` in
 * `domain` ("" or "ai.onnx": the default one) with those input element types (n_inputs 0: unknown) computes. */
enum { OM_NONCOMPUTING_DATA = 0, OM_NONCOMPUTING_CONTROL = 1, OM_NONCOMPUTING_INTEGER = 2 };
const char* om_noncomputing_op(size_t index, int* kind);
int om_op_computes(const char* domain, const char* op, size_t n_inputs, const int* input_types);

/* Node attributes, as read from the ONNX node (the ORT glue) or given by a caller (tests). */
typedef struct om_attrs {
  int mode;          /* OM_MODE_EXACT or OM_MODE_FAST */
  int path;          /* kernel path index, or -1 for the widest this CPU has */
  int onnx_opset;    /* opset of the node's domain in its model (the default domain's, or com.microsoft's for
                      * an OM_OP_IN row of that domain), 0 if unknown */
  int approximate;   /* Gelu: 0 "none", 1 "tanh" */
  int auto_pad;      /* Conv: 0 NOTSET, 1 SAME_UPPER, 2 SAME_LOWER, 3 VALID */
  int pad_mode;      /* Pad's `mode`: 0 constant, 1 reflect, 2 edge, 3 wrap, -1 another string */
  int has_pad_mode;
  int depth_mode;    /* DepthToSpace's `mode`: 0 "DCR", 1 "CRD", -1 another string */
  int has_depth_mode;
  int scatter_reduction; /* ScatterElements, ScatterND `reduction`: 0 none, 1 add, 2 mul, 3 max, 4 min, -1 another */
  int has_scatter_reduction;
  /* Resize's and Upsample's string attributes (docs/resize.md), each 0 when absent, else the code
   * om_resize_attr_code gives its value (-1: a value not among its names) */
  int resize_mode;      /* mode: 1 nearest, 2 linear, 3 cubic */
  int resize_coord;     /* coordinate_transformation_mode: 1 half_pixel ... 7 tf_crop_and_resize */
  int resize_nearest;   /* nearest_mode: 1 round_prefer_floor, 2 round_prefer_ceil, 3 floor, 4 ceil */
  int resize_aspect;    /* keep_aspect_ratio_policy: 1 stretch, 2 not_larger, 3 not_smaller */
  int rnn_direction;   /* LSTM, GRU: 0 forward, 1 reverse, 2 bidirectional */
  /* RNN, LSTM, GRU: `activations` as om_rnn_activation_code's codes (-1: a name not among them), n_rnn_acts the
   * entries listed (0: absent; entries past the 8th are counted, not kept; (size_t)-1: given, but this ONNX
   * Runtime cannot read it, so the node is not served); `activation_alpha` and `activation_beta` likewise */
  int rnn_acts[8];
  size_t n_rnn_acts;
  float rnn_act_alpha[8];
  size_t n_rnn_act_alpha;
  float rnn_act_beta[8];
  size_t n_rnn_act_beta;
  char equation[256]; /* Einsum: its equation (NUL-terminated) when has_equation */
  int has_equation;
  size_t n_outputs; /* the outputs the node has in its graph, 0 if unknown (hosts set it) */
  /* the tensor attribute `value` (ConstantOfShape): has_value 1 when given; value_type its element type (0: one the
   * host cannot read, refused), value_n its element count, value_bytes its first element's bytes (when value_n >= 1
   * and the element is at most 8 bytes; little-endian, as the tensor stores it) */
  int has_value;
  int value_type;
  int64_t value_n;
  unsigned char value_bytes[8];
  /* the numeric attributes, one row of core/om_attrs.def each: the value and has_<field> (1: given) */
#define OM_ATTR_INT(field, name, scope) int64_t field; int has_##field;
#define OM_ATTR_FLOAT(field, name, scope) float field; int has_##field;
#define OM_ATTR_INTS(field, name, cap, scope) int64_t field[cap]; size_t n_##field; int has_##field;
#define OM_ATTR_AXES(field, name, cap, scope) OM_ATTR_INTS(field, name, cap, scope) size_t n_##field##_listed;
#include "core/om_attrs.def"
#undef OM_ATTR_INT
#undef OM_ATTR_FLOAT
#undef OM_ATTR_INTS
#undef OM_ATTR_AXES
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

/* Resize's string attribute `attr` (mode, coordinate_transformation_mode, nearest_mode, keep_aspect_ratio_policy)
 * of value `value`: its code in om_attrs (1, 2, ...), -1 for a value not among the attribute's names, 0 for
 * another attribute (resize/resize.c). */
int om_resize_attr_code(const char* attr, const char* value);
/* An activation name of RNN, LSTM and GRU (any case) as its code (rnn/rnn_act.h), -1 when it is none. */
int om_rnn_activation_code(const char* name);

/* How the ORT glue reads input shapes in kernels created from now on: 1 through the runtime's own dims
 * (GetTensorElementTypeAndShapeDataReference, ORT API 24+), 0 through a copy (older runtimes, or the
 * environment variable ONEMODEL_LEGACY_SHAPES set to anything but 0 when the ops were registered). Set by the
 * last RegisterCustomOps in this process; 0 before any. */
int om_ort_glue_shape_ref(void);

#endif
