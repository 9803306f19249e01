/* node_family.c - which family file serves each structured op of om_ops.def. */
#include "node_family.h"

#include <stdio.h>
#include <stdlib.h>

#include "core/om_ops.h"

const om_family* om_family_of(int op) {
  switch (op) {
    case OM_OP_MATMUL:
    case OM_OP_GEMM: return &om_family_matmul;
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
    case OM_OP_LAYER_NORMALIZATION: return &om_family_layernorm;
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
    case OM_OP_RANGE: return &om_family_range;
    case OM_OP_TILE: return &om_family_tile;
    default: return NULL;
  }
}

int om_struct_output_type(int op, int type0, size_t k) {
  if (op == OM_OP_LAYER_NORMALIZATION && k > 0) return OM_T_FLOAT; /* Mean, InvStdDev: stash_type 1 */
  if (om_op_row(op)->output_rule == OM_OUT_INT64) return OM_T_INT64;  /* Shape, Size */
  return type0;
}

int om_node_check_ranks(const om_node* node, size_t n_inputs, const size_t* ranks, char* err, size_t errlen) {
  if (!node->family || !node->family->check_ranks) return 0;
  return node->family->check_ranks(node, n_inputs, ranks, err, errlen);
}

int om_op_semantics_split(int op) {
  return op == OM_OP_SOFTMAX || op == OM_OP_LOG_SOFTMAX ? 13 : 0;
}

void* om_family_state(om_node* node, size_t size, char* err, size_t errlen) {
  void* impl = calloc(1, size);
  if (!impl) {
    snprintf(err, errlen, "node '%s' (op %s): out of memory", node->name, om_op_row(node->op)->name);
    return NULL;
  }
  node->impl = impl;
  return impl;
}
