/* om_ops.c - the op table (om_ops.def) as data, for the node layer, the ORT glue and Python. */
#include "om_ops.h"

#define OM_OP(ID, NAME, SINCE, MIN_IN, MAX_IN, T0, T1, OUT, FLAGS) {NAME, SINCE, MIN_IN, MAX_IN, T0, T1, OUT, FLAGS, ((FLAGS) & OM_F_OUT3) ? 3 : 1},
static const om_op_info om_ops[OM_OP_COUNT] = {
#include "om_ops.def"
};
#undef OM_OP

size_t om_op_count(void) { return OM_OP_COUNT; }

int om_op_get(size_t index, om_op_info* out) {
  if (index >= OM_OP_COUNT) return -1;
  *out = om_ops[index];
  return 0;
}

const om_op_info* om_op_row(int id) { return (id >= 0 && id < OM_OP_COUNT) ? &om_ops[id] : 0; }

int om_op_find(const char* name) {
  for (int i = 0; i < OM_OP_COUNT; i++) {
    const char *a = om_ops[i].name, *b = name;
    while (*a && *a == *b) a++, b++;
    if (*a == 0 && *b == 0) return i;
  }
  return -1;
}
