/* om_ops.h - ids of the rows of om_ops.def. */
#ifndef OM_OPS_H
#define OM_OPS_H

#include "om_types.h"
#include "onemodel.h"

#define OM_OP(ID, NAME, SINCE, MIN_IN, MAX_IN, T0, T1, OUT, FLAGS) OM_OP_##ID,
#define OM_OP_IN(DOMAIN, ID, NAME, SINCE, MIN_IN, MAX_IN, T0, T1, OUT, FLAGS) OM_OP_##ID,
enum {
#include "om_ops.def"
  OM_OP_COUNT
};
#undef OM_OP
#undef OM_OP_IN

const om_op_info* om_op_row(int id);
int om_op_find(const char* key); /* by the row's key (om_op_info.key); -1 when not in the table */
/* By an ONNX node's domain ("" and "ai.onnx" are the default domain) and op type; -1 when not in the table. */
int om_op_find_in(const char* domain, const char* op_type);

#endif
