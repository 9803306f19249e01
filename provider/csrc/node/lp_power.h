/* lp_power.h - LpPool's and GlobalLpPool's element steps around the window sums (docs/pooling-norm.md, "LpPool"):
 * |x|^p before, the p-th root after, for the types and p the window kernels do not take whole (float16, double;
 * float with p >= 3). float16 is widened to binary32 and every step runs in binary32; double in binary64. */
#ifndef OM_NODE_LP_POWER_H
#define OM_NODE_LP_POWER_H

#include <stddef.h>
#include <stdint.h>

#include "node_family.h"

/* The accumulation type of element type `type`: OM_T_DOUBLE for double, OM_T_FLOAT for float and float16. */
int om_lp_acc_type(int type);

/* t[i] = |x_i|^p in the accumulation type, x of node->type, for i in [0, n): p = 1 |x| (x widened), p = 2 x * x
 * (rounded once), p >= 3 Pow(|x|, p) (p converted to the accumulation type, nearest even; the library's exact
 * Pow: binary32 correctly rounded, binary64 om_pow_exact_f64). */
void om_lp_power(const om_node* node, int64_t p, const void* x, void* t, size_t n);

/* y_i from the window sums s_i (accumulation type) for i in [0, n): p = 1 s, p = 2 sqrt(s) (correctly rounded),
 * p >= 3 Pow(s, r) with r = 1 / p rounded once in the accumulation type (the same Pow); then float16 rounds
 * once to nearest even; a NaN y is the canonical quiet NaN (float16 0x7E00). */
void om_lp_root(const om_node* node, int64_t p, const void* s, void* y, size_t n);

#endif
