/* om_computing.c - which nodes compute: the one definition strict mode holds a session to, read by the execution
 * provider's GetCapability (ep/ep_capability.c) and, through om_noncomputing_op and om_op_computes, by Python
 * (onemodel_ep/computing.py).
 *
 * A node computes when its output values come from arithmetic on its inputs. Every node does, except the
 * data-movement and shape ops of ONNX's default domain below (input elements copied, selected, reordered or
 * repeated; constants from attributes; shapes, sizes and indices), the control-flow ops (their outputs are their
 * bodies' values, whose nodes are judged one by one), and Range over integer inputs only (exact sums). */
#include <string.h>

#include "core/om_types.h"
#include "onemodel.h"

typedef struct om_noncomputing {
  const char* op;
  int kind; /* OM_NONCOMPUTING_* */
} om_noncomputing;

static const om_noncomputing om_noncomputing_ops[] = {
    {"Concat", OM_NONCOMPUTING_DATA},        {"Constant", OM_NONCOMPUTING_DATA},
    {"ConstantOfShape", OM_NONCOMPUTING_DATA}, {"DepthToSpace", OM_NONCOMPUTING_DATA},
    {"Expand", OM_NONCOMPUTING_DATA},        {"Flatten", OM_NONCOMPUTING_DATA},
    {"Gather", OM_NONCOMPUTING_DATA},        {"GatherElements", OM_NONCOMPUTING_DATA},
    {"GatherND", OM_NONCOMPUTING_DATA},      {"Identity", OM_NONCOMPUTING_DATA},
    {"NonZero", OM_NONCOMPUTING_DATA},       {"OneHot", OM_NONCOMPUTING_DATA},
    {"Pad", OM_NONCOMPUTING_DATA},           {"Reshape", OM_NONCOMPUTING_DATA},
    {"SequenceAt", OM_NONCOMPUTING_DATA},    {"SequenceConstruct", OM_NONCOMPUTING_DATA},
    {"SequenceEmpty", OM_NONCOMPUTING_DATA}, {"SequenceErase", OM_NONCOMPUTING_DATA},
    {"SequenceInsert", OM_NONCOMPUTING_DATA}, {"SequenceLength", OM_NONCOMPUTING_DATA},
    {"Shape", OM_NONCOMPUTING_DATA},         {"Size", OM_NONCOMPUTING_DATA},
    {"Slice", OM_NONCOMPUTING_DATA},         {"SpaceToDepth", OM_NONCOMPUTING_DATA},
    {"Split", OM_NONCOMPUTING_DATA},         {"Squeeze", OM_NONCOMPUTING_DATA},
    {"Tile", OM_NONCOMPUTING_DATA},          {"Transpose", OM_NONCOMPUTING_DATA},
    {"Trilu", OM_NONCOMPUTING_DATA},         {"Unsqueeze", OM_NONCOMPUTING_DATA},
    {"If", OM_NONCOMPUTING_CONTROL},         {"Loop", OM_NONCOMPUTING_CONTROL},
    {"Scan", OM_NONCOMPUTING_CONTROL},       {"Range", OM_NONCOMPUTING_INTEGER},
};

const char* om_noncomputing_op(size_t index, int* kind) {
  if (index >= sizeof om_noncomputing_ops / sizeof om_noncomputing_ops[0]) return NULL;
  if (kind) *kind = om_noncomputing_ops[index].kind;
  return om_noncomputing_ops[index].op;
}

static int om_integer_type(int t) { return t > 0 && t < 32 && ((OM_TS_SINT | OM_TS_UINT) & OM_TB(t)); }

int om_op_computes(const char* domain, const char* op, size_t n_inputs, const int* input_types) {
  if (!op || (domain && domain[0] && strcmp(domain, "ai.onnx") != 0)) return 1;
  for (size_t i = 0; i < sizeof om_noncomputing_ops / sizeof om_noncomputing_ops[0]; i++) {
    if (strcmp(om_noncomputing_ops[i].op, op) != 0) continue;
    if (om_noncomputing_ops[i].kind != OM_NONCOMPUTING_INTEGER) return 0;
    if (n_inputs == 0 || !input_types) return 1; /* types unknown: it may compute */
    for (size_t k = 0; k < n_inputs; k++)
      if (!om_integer_type(input_types[k])) return 1;
    return 0;
  }
  return 1;
}
