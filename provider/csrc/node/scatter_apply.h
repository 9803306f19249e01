/* scatter_apply.h - what ScatterElements and ScatterND (node_scatter.c) share: the reduction attribute's codes,
 * and the sequential application of the updates at checked element offsets (docs/data-movement.md). Knows nothing
 * of ORT.
 */
#ifndef OM_NODE_SCATTER_APPLY_H
#define OM_NODE_SCATTER_APPLY_H

#include <stddef.h>

/* om_attrs.scatter_reduction: the ONNX attribute `reduction` (-1: another string) */
enum { OM_SCATTER_NONE = 0, OM_SCATTER_ADD = 1, OM_SCATTER_MUL = 2, OM_SCATTER_MAX = 3, OM_SCATTER_MIN = 4 };

/* The name of a reduction code ("none" ... "min"). */
const char* om_scatter_reduction_name(int reduction);

/* Whether `reduction` is served on element type `type` (every stored type for none; every numeric type and
 * bfloat16, not bool, for the others). */
int om_scatter_reduction_serves(int reduction, int type);

/* For g = 0 .. runs - 1 in that order, then j = 0 .. run - 1: out[off[g] + j] = f(out[off[g] + j],
 * upd[g * run + j]) with f the reduction (none: the update; add, mul, max, min as docs/data-movement.md states
 * per type), elements of type `type`. One thread: the order is the contract. */
void om_scatter_apply(int type, int reduction, void* out, const void* upd, const size_t* off, size_t runs,
                      size_t run);

#endif
