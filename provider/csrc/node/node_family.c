/* node_family.c - which family file serves each structured op of om_ops.def. */
#include "node_family.h"

#include <stdio.h>
#include <stdlib.h>

#include "core/om_ops.h"

const om_family* om_family_of(int op) {
  switch (op) {
    case OM_OP_MATMUL:
    case OM_OP_GEMM:
    case OM_OP_FUSED_MATMUL: return &om_family_matmul;
    case OM_OP_REDUCE_SUM:
    case OM_OP_REDUCE_MEAN:
    case OM_OP_REDUCE_MAX:
    case OM_OP_REDUCE_MIN:
    case OM_OP_REDUCE_PROD:
    case OM_OP_REDUCE_SUM_SQUARE:
    case OM_OP_REDUCE_L1:
    case OM_OP_REDUCE_L2:
    case OM_OP_REDUCE_LOG_SUM:
    case OM_OP_REDUCE_LOG_SUM_EXP: return &om_family_reduce;
    case OM_OP_SOFTMAX:
    case OM_OP_LOG_SOFTMAX: return &om_family_softmax;
    case OM_OP_HARDMAX: return &om_family_hardmax;
    case OM_OP_DROPOUT: return &om_family_dropout;
    case OM_OP_LAYER_NORMALIZATION:
    case OM_OP_SIMPLIFIED_LAYER_NORMALIZATION:
    case OM_OP_RMS_NORMALIZATION:
    case OM_OP_SKIP_LAYER_NORMALIZATION:
    case OM_OP_SKIP_SIMPLIFIED_LAYER_NORMALIZATION: return &om_family_layernorm;
    case OM_OP_CONV: return &om_family_conv;
    case OM_OP_GLOBAL_AVERAGE_POOL:
    case OM_OP_GLOBAL_MAX_POOL: return &om_family_global_pool;
    case OM_OP_MAX_POOL:
    case OM_OP_AVERAGE_POOL:
    case OM_OP_LP_POOL:
    case OM_OP_GLOBAL_LP_POOL: return &om_family_window_pool;
    case OM_OP_BATCH_NORMALIZATION: return &om_family_batchnorm;
    case OM_OP_RESHAPE:
    case OM_OP_UNSQUEEZE:
    case OM_OP_SQUEEZE:
    case OM_OP_FLATTEN:
    case OM_OP_IDENTITY: return &om_family_reshape;
    case OM_OP_SHAPE: return &om_family_shape;
    case OM_OP_SIZE: return &om_family_size;
    case OM_OP_TRANSPOSE: return &om_family_transpose;
    case OM_OP_CONCAT: return &om_family_concat;
    case OM_OP_GATHER: return &om_family_gather;
    case OM_OP_SLICE: return &om_family_slice;
    case OM_OP_EXPAND: return &om_family_expand;
    case OM_OP_MATMUL_INTEGER: return &om_family_matmul_integer;
    case OM_OP_RANGE: return &om_family_range;
    case OM_OP_TILE: return &om_family_tile;
    case OM_OP_CONSTANT_OF_SHAPE: return &om_family_constant_of_shape;
    case OM_OP_QUANTIZE_LINEAR:
    case OM_OP_DEQUANTIZE_LINEAR:
    case OM_OP_COM_QUANTIZE_LINEAR:
    case OM_OP_COM_DEQUANTIZE_LINEAR: return &om_family_qdq;
    case OM_OP_DYNAMIC_QUANTIZE_LINEAR: return &om_family_dynamic_quantize;
    case OM_OP_MATMUL_NBITS: return &om_family_matmul_nbits;
    case OM_OP_PAD: return &om_family_pad;
    case OM_OP_ARG_MAX:
    case OM_OP_ARG_MIN: return &om_family_argminmax;
    case OM_OP_TOP_K: return &om_family_topk;
    case OM_OP_SPLIT: return &om_family_split;
    case OM_OP_TRILU: return &om_family_trilu;
    case OM_OP_NON_ZERO: return &om_family_nonzero;
    case OM_OP_ONE_HOT: return &om_family_one_hot;
    case OM_OP_LP_NORMALIZATION: return &om_family_lp_norm;
    case OM_OP_SHRINK: return &om_family_shrink;
    case OM_OP_LRN: return &om_family_lrn;
    case OM_OP_EINSUM: return &om_family_einsum;
    case OM_OP_MEAN_VARIANCE_NORMALIZATION: return &om_family_mvn;
    case OM_OP_CUM_SUM: return &om_family_cumsum;
    case OM_OP_GROUP_QUERY_ATTENTION: return &om_family_gqa;
    case OM_OP_MULTI_HEAD_ATTENTION: return &om_family_mha;
    case OM_OP_COM_ATTENTION: return &om_family_attention;
    case OM_OP_ATTENTION: return &om_family_onnx_attention;
    case OM_OP_EMBED_LAYER_NORMALIZATION: return &om_family_embed_layernorm;
    case OM_OP_GATHER_BLOCK_QUANTIZED: return &om_family_gather_block_quantized;
    case OM_OP_DEPTH_TO_SPACE:
    case OM_OP_SPACE_TO_DEPTH: return &om_family_depth_space;
    case OM_OP_GATHER_ELEMENTS: return &om_family_gather_elements;
    case OM_OP_GATHER_ND: return &om_family_gather_nd;
    case OM_OP_SCATTER_ELEMENTS: case OM_OP_SCATTER_ND: return &om_family_scatter;
    case OM_OP_MATMUL_INTEGER_TO_FLOAT:
    case OM_OP_DYNAMIC_QUANTIZE_MATMUL:
    case OM_OP_QLINEAR_MATMUL: return &om_family_quant_matmul;
    case OM_OP_QGEMM: return &om_family_qgemm;
    case OM_OP_CONV_INTEGER:
    case OM_OP_QLINEAR_CONV: return &om_family_qconv;
    case OM_OP_INSTANCE_NORMALIZATION:
    case OM_OP_GROUP_NORMALIZATION: return &om_family_groupnorm;
    case OM_OP_CONV_TRANSPOSE: return &om_family_conv_transpose;
    case OM_OP_RESIZE:
    case OM_OP_UPSAMPLE: return &om_family_resize;
    case OM_OP_LSTM:
    case OM_OP_GRU:
    case OM_OP_RNN: return &om_family_rnn;
    case OM_OP_MS_GELU:
    case OM_OP_BIAS_GELU:
    case OM_OP_FAST_GELU:
    case OM_OP_QUICK_GELU: return &om_family_gelu;
    case OM_OP_BIAS_SOFTMAX: return &om_family_bias_softmax;
    case OM_OP_ROTARY_EMBEDDING:
    case OM_OP_MS_ROTARY_EMBEDDING: return &om_family_rotary;
    case OM_OP_QLINEAR_ADD:
    case OM_OP_QLINEAR_MUL: return &om_family_qlinear_binary;
    case OM_OP_QLINEAR_SIGMOID:
    case OM_OP_QLINEAR_LEAKY_RELU: return &om_family_qlinear_lut;
    case OM_OP_QLINEAR_GLOBAL_AVERAGE_POOL: return &om_family_qlinear_global_pool;
    case OM_OP_QLINEAR_AVERAGE_POOL: return &om_family_qlinear_avg_pool;
    case OM_OP_QLINEAR_CONCAT: return &om_family_qlinear_concat;
    case OM_OP_QLINEAR_SOFTMAX: return &om_family_qlinear_softmax;
    default: return NULL;
  }
}

int om_struct_output_type(int op, int type0, size_t k) {
  switch (op) {
    case OM_OP_LAYER_NORMALIZATION: /* Mean, InvStdDev: stash_type 1 */
    case OM_OP_SIMPLIFIED_LAYER_NORMALIZATION: return k > 0 ? OM_T_FLOAT : type0; /* inv_std_var */
    case OM_OP_SKIP_LAYER_NORMALIZATION:
    case OM_OP_SKIP_SIMPLIFIED_LAYER_NORMALIZATION: return k == 1 || k == 2 ? OM_T_FLOAT : type0; /* mean, inv_std_var */
    case OM_OP_MATMUL_INTEGER:
    case OM_OP_CONV_INTEGER: return OM_T_INT32;
    case OM_OP_QUANTIZE_LINEAR: /* undefined: ORT takes the type of the rewriter's last input, an empty y */
    case OM_OP_DEQUANTIZE_LINEAR:
    case OM_OP_COM_QUANTIZE_LINEAR:
    case OM_OP_COM_DEQUANTIZE_LINEAR: return OM_T_UNDEFINED;
    case OM_OP_DYNAMIC_QUANTIZE_LINEAR: return k == 1 ? OM_T_FLOAT : OM_T_UINT8;
    case OM_OP_MAX_POOL: return k == 1 ? OM_T_INT64 : type0; /* Indices */
    case OM_OP_TOP_K: return k == 1 ? OM_T_INT64 : type0;    /* Indices */
    case OM_OP_DROPOUT: return k == 1 ? OM_T_BOOL : type0; /* mask */
    case OM_OP_MATMUL_INTEGER_TO_FLOAT: return OM_T_FLOAT;
    case OM_OP_QLINEAR_MATMUL: return OM_T_UNDEFINED; /* ORT takes the last input's: y_zero_point, y's type */
    case OM_OP_QGEMM: return OM_T_UNDEFINED; /* the last input's: the rewriter's witness of Y's type */
    case OM_OP_QLINEAR_CONCAT: return OM_T_UNDEFINED; /* ORT takes the last input's: an X_zero_point, Y's type */
    case OM_OP_ONE_HOT: return OM_T_UNDEFINED;        /* ORT takes the last input's: values, y's type */
    case OM_OP_CONSTANT_OF_SHAPE: return OM_T_UNDEFINED; /* the last input's: the rewriter's witness of `value`'s type */
    case OM_OP_QLINEAR_CONV: return OM_T_UNDEFINED; /* the last input's: the rewriter's witness of y's type */
    case OM_OP_EMBED_LAYER_NORMALIZATION: return k == 1 ? OM_T_INT32 : OM_T_FLOAT; /* mask_index */
    case OM_OP_GATHER_BLOCK_QUANTIZED: return OM_T_UNDEFINED; /* the last input's: the scales or the witness */
    default: return om_op_row(op)->output_rule == OM_OUT_INT64 ? OM_T_INT64 : type0; /* Shape, Size */
  }
}

int om_node_rank_served(const om_node* node, size_t k, size_t rank, char* err, size_t errlen) {
  if (rank == OM_RANK_UNKNOWN || rank <= OM_NODE_MAX_RANK) return 0;
  snprintf(err, errlen, "node '%s' (op %s): input %zu has rank %zu above %d, the highest OneModel EP serves",
           node->name, om_op_row(node->op)->name, k, rank, OM_NODE_MAX_RANK);
  return -1;
}

int om_node_ranks_served(const om_node* node, size_t n_inputs, const size_t* ranks, char* err, size_t errlen) {
  for (size_t k = 0; k < n_inputs; k++)
    if (om_node_rank_served(node, k, ranks[k], err, errlen) != 0) return -1;
  return 0;
}

int om_node_check_ranks(const om_node* node, size_t n_inputs, const size_t* ranks, char* err, size_t errlen) {
  if (om_node_ranks_served(node, n_inputs, ranks, err, errlen) != 0) return -1;
  if (!node->family || !node->family->check_ranks) return 0;
  return node->family->check_ranks(node, n_inputs, ranks, err, errlen);
}

int om_op_semantics_split(int op) {
  if (op == OM_OP_GROUP_NORMALIZATION) return 21; /* scale and bias per channel instead of per group */
  if (op == OM_OP_RESIZE) return 11; /* inputs X, scales before; X, roi, scales, sizes and the modes from */
  if (op == OM_OP_ONE_HOT) return 11; /* a negative index: no match before, counted from depth from */
  return op == OM_OP_SOFTMAX || op == OM_OP_LOG_SOFTMAX || op == OM_OP_HARDMAX ? 13 : 0;
}

int om_family_no_kernel(const om_node* node, char* err, size_t errlen) {
  snprintf(err, errlen, "node '%s' (op %s): no kernel for element type %s", node->name, om_op_row(node->op)->name,
           om_type_name(node->type));
  return -1;
}

void om_shape_text(const int64_t* s, size_t r, char* buf, size_t len) {
  size_t used = (size_t)snprintf(buf, len, "[");
  for (size_t d = 0; d < r && used < len; d++)
    used += (size_t)snprintf(buf + used, len - used, "%s%lld", d ? ", " : "", (long long)s[d]);
  if (used < len) snprintf(buf + used, len - used, "]");
}
