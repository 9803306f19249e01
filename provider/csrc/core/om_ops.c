/* om_ops.c - the op table (om_ops.def) as data, for the node layer, the ORT glue and Python. */
#include "om_ops.h"

#include <string.h>

#define OM_OUTPUTS(FLAGS)                                                 \
  (((FLAGS) & OM_F_OUTN)   ? OM_NODE_MAX_OUTPUTS                          \
   : ((FLAGS) & OM_F_OUT4) ? 4                                            \
   : ((FLAGS) & OM_F_OUT3) ? 3                                            \
   : ((FLAGS) & OM_F_OUT2) ? 2                                            \
                           : 1)
#define OM_OP(ID, NAME, SINCE, MIN_IN, MAX_IN, T0, T1, OUT, FLAGS) \
  {NAME, SINCE, MIN_IN, MAX_IN, T0, T1, OUT, FLAGS, OM_OUTPUTS(FLAGS), "", NAME},
#define OM_OP_IN(DOMAIN, ID, NAME, SINCE, MIN_IN, MAX_IN, T0, T1, OUT, FLAGS) \
  {NAME, SINCE, MIN_IN, MAX_IN, T0, T1, OUT, FLAGS, OM_OUTPUTS(FLAGS), DOMAIN, DOMAIN "." NAME},
static const om_op_info om_ops[OM_OP_COUNT] = {
#include "om_ops.def"
};
#undef OM_OP
#undef OM_OP_IN

size_t om_op_count(void) { return OM_OP_COUNT; }

int om_op_get(size_t index, om_op_info* out) {
  if (index >= OM_OP_COUNT) return -1;
  *out = om_ops[index];
  return 0;
}

const om_op_info* om_op_row(int id) { return (id >= 0 && id < OM_OP_COUNT) ? &om_ops[id] : 0; }

int om_op_find(const char* key) {
  for (int i = 0; i < OM_OP_COUNT; i++)
    if (strcmp(om_ops[i].key, key) == 0) return i;
  return -1;
}

int om_op_find_in(const char* domain, const char* op_type) {
  if (strcmp(domain, "ai.onnx") == 0) domain = "";
  for (int i = 0; i < OM_OP_COUNT; i++)
    if (strcmp(om_ops[i].domain, domain) == 0 && strcmp(om_ops[i].name, op_type) == 0) return i;
  return -1;
}
