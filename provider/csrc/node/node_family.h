/* node_family.h - the node record, and how node.c hands a structured op (OM_F_STRUCT in om_ops.def: MatMul,
 * Gemm, Softmax, LayerNormalization, the Reduce ops, Conv, the global pools, BatchNormalization, the
 * data-movement ops) to the file of its family.
 *
 * node.c does what every node shares (op table, opset, arity, element types, mode, kernel path) and then calls
 * the family's create; the family checks its attributes, sets the output types and keeps its state in impl.
 * Knows nothing of ORT.
 */
#ifndef OM_NODE_FAMILY_H
#define OM_NODE_FAMILY_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/kernels.h"
#include "onemodel.h"

#define OM_MAX_OUTPUTS OM_NODE_MAX_OUTPUTS

typedef struct om_family om_family;

/* One call's inputs and outputs, as the entries of onemodel.h receive them: what a family's shapes and run
 * read (shapes writes out_shapes and out_ranks; run only reads them). */
typedef struct om_node_io {
  size_t n_inputs;
  const void* const* data;
  const int64_t* const* shapes;
  const size_t* ranks;
  size_t n_outputs;
  void* const* outs;     /* run only */
  int64_t* out_shapes;   /* n_outputs x OM_MAX_RANK */
  size_t* out_ranks;
  om_parallel_for_fn parallel_for; /* run only */
  void* host_ctx;
  char* err;
  size_t errlen;
} om_node_io;

struct om_node {
  int op;
  int kind;
  int type;      /* element type of input 0 */
  int type1;     /* element type of input 1 (0 if none) */
  int out_type;  /* element type of output 0 */
  size_t n_inputs;
  unsigned kflags;
  int kernel;    /* index into the kind's table */
  int bound_inputs; /* Clip opset >= 11: bounds come from inputs 1 and 2 */
  int param_operand; /* BINARY: operand b is param[0] broadcast (LeakyRelu, ThresholdedRelu), not input 1 */
  const om_kernel_table* wide;
  const om_kernel_table* one;
  unsigned char param[2][8]; /* scalar parameters in the element type (alpha/beta, Clip bounds) */
  size_t chunk; /* elements per parallel chunk */
  char name[128];
  /* structured ops */
  int path;                        /* kernel path index */
  int mode;                        /* OM_MODE_EXACT or OM_MODE_FAST */
  int opset;                       /* the node's ONNX opset, 0 if unknown */
  size_t n_outputs;                /* the most outputs */
  int out_types[OM_MAX_OUTPUTS];
  const om_family* family;         /* NULL for element-wise nodes */
  void* impl;                      /* the family's state */
  const int* input_types;          /* during the family's create only: each input's element type (0: absent) */
};

struct om_family {
  /* The bytes of the family's state: node.c sets node->impl to that many zeroed bytes before create. */
  size_t state_size;
  /* Check the attributes (node's op, opset, n_inputs and types are set, impl is state_size zeroed bytes); set
   * node->out_types (and n_outputs, which node.c sets to the row's max_outputs) and the state in node->impl.
   * 0, or -1 with a message naming node, op and problem. */
  int (*create)(om_node* node, const om_attrs* attrs, char* err, size_t errlen);
  /* The output shapes from io's inputs (data may be NULL where the shapes depend on no input's data) into
   * io->out_shapes (OM_MAX_RANK per output) and io->out_ranks; 0, or -1 with a message in io->err. */
  int (*shapes)(const om_node* node, const om_node_io* io);
  /* Compute io's outputs (io->outs[o] NULL: not wanted) of the shapes `shapes` gave, splitting the work with
   * io->parallel_for (om_parallel_ieee). 0, or -1 with a message in io->err. */
  int (*run)(const om_node* node, const om_node_io* io);
  /* May be NULL: constant inputs are then read at run time like any other. */
  int (*set_constant)(om_node* node, size_t k, const void* data, const int64_t* shape, size_t rank, char* err,
                      size_t errlen);
  /* May be NULL: no output shape depends on input data. */
  int (*shape_input)(const om_node* node, size_t k);
  /* May be NULL: impl needs no more than free(). */
  void (*destroy)(om_node* node);
  /* May be NULL. At creation, the input ranks the graph declares (OM_RANK_UNKNOWN where it does not), after
   * the constant inputs: 0, or -1 with a message for what no input of these ranks can run (an axis out of
   * range), so that the error comes at session creation rather than at the first run. */
  int (*check_ranks)(const om_node* node, size_t n_inputs, const size_t* ranks, char* err, size_t errlen);
};

#define OM_RANK_UNKNOWN ((size_t)-1)
/* 0 when input k's rank (OM_RANK_UNKNOWN: not known yet) is at most OM_NODE_MAX_RANK, else -1 with a message
 * naming node, op, input and rank; om_node_ranks_served asks it of every input. Every entry of onemodel.h that
 * takes input shapes asks first. */
int om_node_rank_served(const om_node* node, size_t k, size_t rank, char* err, size_t errlen);
int om_node_ranks_served(const om_node* node, size_t n_inputs, const size_t* ranks, char* err, size_t errlen);
/* At creation, from the ranks the graph declares: om_node_ranks_served, then the family's check_ranks (none for
 * element-wise nodes). */
int om_node_check_ranks(const om_node* node, size_t n_inputs, const size_t* ranks, char* err, size_t errlen);

/* The family of a structured op id (om_ops.h), NULL for an element-wise op. */
const om_family* om_family_of(int op);
/* The element type of output k of structured op `op` whose input 0 has type type0 (the ORT glue registers each
 * structured op once per input-0 type with these output types). */
int om_struct_output_type(int op, int type0, size_t k);
/* The first opset from which op means something else than before (Softmax, LogSoftmax, Hardmax: 13, one axis instead
 * of the input coerced to 2-D), 0 when one reading serves every opset: a host that cannot tell om_node_create the
 * node's opset (the execution provider's kernel registry) registers the ranges below and from it apart. */
int om_op_semantics_split(int op);
/* The row view [outer, n, inner] of an input of shape dims[rank] for an op along `axis` (negative: from the
 * end): from opset 13 one axis (n = dims[axis]); before (coerce_2d) the input coerced to 2-D at axis (n the
 * product of dims[axis:], inner 1). 0, or -1 with a message naming node, op and axis (node_softmax.c; Softmax,
 * LogSoftmax, Hardmax). */
int om_row_view(const om_node* node, int coerce_2d, int64_t axis, const int64_t* dims, size_t rank, size_t* outer,
                size_t* n, size_t* inner, char* err, size_t errlen);
extern const om_family om_family_matmul;    /* node_matmul.c: MatMul, Gemm, com.microsoft FusedMatMul */
extern const om_family om_family_reduce;    /* node_reduce.c: ReduceSum ... ReduceLogSumExp */
extern const om_family om_family_softmax;   /* node_softmax.c: Softmax, LogSoftmax */
extern const om_family om_family_hardmax;   /* node_hardmax.c: Hardmax */
extern const om_family om_family_dropout;   /* node_dropout.c: Dropout (inference) */
extern const om_family om_family_layernorm; /* node_layernorm.c: LayerNormalization and the RMS, skip forms */
extern const om_family om_family_conv;      /* node_conv.c, node_conv_shape.c: Conv */
extern const om_family om_family_global_pool; /* node_pool.c: GlobalAveragePool, GlobalMaxPool */
extern const om_family om_family_window_pool; /* node_window_pool.c: MaxPool, AveragePool, LpPool, GlobalLpPool */
extern const om_family om_family_batchnorm;   /* node_batchnorm.c: BatchNormalization (inference) */
/* BatchNormalization as a member of a fused chain (elementwise_chain.c): ch[3c..3c+2] = channel c's mean, factor
 * s = scale / sqrt(var + eps) and bias, as doubles (om_batchnorm_value, om_batchnorm_factor); then elements
 * [pos, pos + len) of Y for X of `channels` channels of `inner` elements each (x, y: those len elements), each
 * plane's run through om_batchnorm_plane: the node's own steps, so its bits. */
void om_batchnorm_node_channels(const om_node* node, size_t channels, const void* scale, const void* bias,
                                const void* mean, const void* var, double* ch);
void om_batchnorm_node_span(const om_node* node, const double* ch, size_t channels, size_t inner, size_t pos,
                            const void* x, void* y, size_t len);
extern const om_family om_family_reshape;   /* node_reshape.c: Reshape, Unsqueeze, Squeeze, Flatten, Identity */
extern const om_family om_family_shape;     /* node_shape.c: Shape */
extern const om_family om_family_size;      /* node_shape.c: Size */
extern const om_family om_family_transpose; /* node_transpose.c: Transpose */
extern const om_family om_family_concat;    /* node_concat.c: Concat */
extern const om_family om_family_gather;    /* node_gather.c: Gather */
extern const om_family om_family_slice;     /* node_slice.c: Slice */
extern const om_family om_family_expand;    /* node_expand.c: Expand */
extern const om_family om_family_matmul_integer; /* node_matmul_integer.c: MatMulInteger */
extern const om_family om_family_range;     /* node_range.c: Range */
extern const om_family om_family_tile;      /* node_tile.c: Tile */
extern const om_family om_family_constant_of_shape; /* node_constant_of_shape.c: ConstantOfShape */
extern const om_family om_family_qdq;       /* node_quantize.c: QuantizeLinear, DequantizeLinear (both domains) */
extern const om_family om_family_dynamic_quantize; /* node_dynamic_quantize.c: DynamicQuantizeLinear */
extern const om_family om_family_matmul_nbits; /* node_matmul_nbits.c: com.microsoft MatMulNBits */
extern const om_family om_family_pad;       /* node_pad.c: Pad */
extern const om_family om_family_argminmax; /* node_argminmax.c: ArgMax, ArgMin */
extern const om_family om_family_topk;      /* node_topk.c: TopK */
extern const om_family om_family_split;     /* node_split.c: Split */
extern const om_family om_family_trilu;     /* node_trilu.c: Trilu */
extern const om_family om_family_gqa;       /* node_gqa.c: com.microsoft GroupQueryAttention */
extern const om_family om_family_mha;       /* node_mha.c: com.microsoft MultiHeadAttention */
extern const om_family om_family_attention; /* node_attention.c: com.microsoft Attention */
extern const om_family om_family_onnx_attention; /* node_onnx_attention.c: ONNX Attention (opset 23 on) */
extern const om_family om_family_embed_layernorm; /* node_embed_layernorm.c: com.microsoft
                                                 * EmbedLayerNormalization */
extern const om_family om_family_gather_block_quantized; /* node_gather_block_quantized.c: com.microsoft
                                                        * GatherBlockQuantized */
extern const om_family om_family_depth_space; /* node_depth_space.c: DepthToSpace, SpaceToDepth */
extern const om_family om_family_gather_elements; /* node_gather_elements.c: GatherElements */
extern const om_family om_family_gather_nd; /* node_gather_nd.c: GatherND */
extern const om_family om_family_scatter; /* node_scatter.c: ScatterElements, ScatterND */
extern const om_family om_family_quant_matmul; /* node_quant_matmul.c: MatMulIntegerToFloat, DynamicQuantizeMatMul,
                                                * QLinearMatMul */
extern const om_family om_family_qgemm; /* node_qgemm.c: com.microsoft QGemm */
extern const om_family om_family_qconv;     /* node_qconv.c: ConvInteger, QLinearConv */
extern const om_family om_family_groupnorm; /* node_groupnorm.c: InstanceNormalization, GroupNormalization */
extern const om_family om_family_conv_transpose; /* node_conv_transpose.c: ConvTranspose */
extern const om_family om_family_resize;    /* node_resize.c: Resize, Upsample */
extern const om_family om_family_rnn;       /* node_rnn.c: LSTM, GRU */
extern const om_family om_family_rotary;    /* node_rotary.c: RotaryEmbedding (ONNX, com.microsoft) */
extern const om_family om_family_gelu;      /* node_gelu.c: com.microsoft Gelu, BiasGelu, FastGelu, QuickGelu */
extern const om_family om_family_bias_softmax; /* node_bias_softmax.c: com.microsoft BiasSoftmax */
/* the QOperator nodes (docs/quantized-elementwise.md) */
extern const om_family om_family_qlinear_binary; /* node_qlinear_binary.c: com.microsoft QLinearAdd, QLinearMul */
extern const om_family om_family_qlinear_lut; /* node_qlinear_lut.c: com.microsoft QLinearSigmoid, QLinearLeakyRelu */
extern const om_family om_family_qlinear_softmax; /* node_qlinear_softmax.c: com.microsoft QLinearSoftmax */
extern const om_family om_family_qlinear_global_pool; /* node_qlinear_pool.c: com.microsoft QLinearGlobalAveragePool */
extern const om_family om_family_qlinear_avg_pool; /* node_qlinear_avg_pool.c: com.microsoft QLinearAveragePool */
extern const om_family om_family_qlinear_concat; /* node_qlinear_concat.c: com.microsoft QLinearConcat */
extern const om_family om_family_nonzero;   /* node_nonzero.c: NonZero */
extern const om_family om_family_one_hot;   /* node_one_hot.c: OneHot */
extern const om_family om_family_lp_norm;   /* node_lp_norm.c: LpNormalization */
extern const om_family om_family_mvn;       /* node_mvn.c: MeanVarianceNormalization */
extern const om_family om_family_cumsum;    /* node_cumsum.c: CumSum */
extern const om_family om_family_shrink;    /* node_shrink.c: Shrink */
extern const om_family om_family_lrn;       /* node_lrn.c: LRN */
extern const om_family om_family_einsum;    /* node_einsum.c: Einsum */

/* A family's create, for an element type it has no kernel for: the message naming node, op and type in err;
 * returns -1. */
int om_family_no_kernel(const om_node* node, char* err, size_t errlen);

/* Shapes: the element count of a shape (0 when a dimension is 0). */
size_t om_shape_count(const int64_t* shape, size_t rank);
/* Shapes: "[d0, d1, ...]" into buf (len bytes, cut short when too long), for error messages. */
void om_shape_text(const int64_t* shape, size_t rank, char* buf, size_t len);

/* snprintf into the enclosing function's err / errlen, then return -1 from it. */
#define OM_FAIL_MSG(...)                \
  do {                                  \
    snprintf(err, errlen, __VA_ARGS__); \
    return -1;                          \
  } while (0)

#endif
