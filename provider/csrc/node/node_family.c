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
    default: return NULL;
  }
}

int om_struct_output_type(int op, int type0, size_t k) {
  if (op == OM_OP_LAYER_NORMALIZATION && k > 0) return OM_T_FLOAT; /* Mean, InvStdDev: stash_type 1 */
  return type0;
}

int om_node_check_ranks(const om_node* node, size_t n_inputs, const size_t* ranks, char* err, size_t errlen) {
  if (!node->family || !node->family->check_ranks) return 0;
  return node->family->check_ranks(node, n_inputs, ranks, err, errlen);
}

int om_op_semantics_split(int op) {
  return op == OM_OP_SOFTMAX || op == OM_OP_LOG_SOFTMAX ? 13 : 0;
}

int om_family_no_kernel(const om_node* node, char* err, size_t errlen) {
  snprintf(err, errlen, "node '%s' (op %s): no kernel for element type %s", node->name, om_op_row(node->op)->name,
           om_type_name(node->type));
  return -1;
}
