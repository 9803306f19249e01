/* node_family.c - which family file serves each structured op of om_ops.def. */
#include "node_family.h"
#include "om_ops.h"

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
    default: return NULL;
  }
}

int om_struct_output_type(int op, int type0, size_t k) {
  (void)op;
  (void)k;
  return type0;
}

int om_node_check_ranks(const om_node* node, size_t n_inputs, const size_t* ranks, char* err, size_t errlen) {
  if (!node->family || !node->family->check_ranks) return 0;
  return node->family->check_ranks(node, n_inputs, ranks, err, errlen);
}
