/* argminmax.h - the index of the greatest or least element along one axis (ArgMax, ArgMin; the rule per output
 * element, NaN and ties included: docs/shape-ops.md). Comparisons only, nothing is computed: the result does not
 * depend on how the work is split. Knows nothing of nodes or ORT.
 */
#ifndef OM_ARGMINMAX_H
#define OM_ARGMINMAX_H

#include <stddef.h>
#include <stdint.h>

/* The scan: of element type `type` (om_types.h), the greatest (is_max) or least element, its first index or, with
 * last, its last; n >= 1 elements along the axis, which is `inner` elements apart. */
typedef struct om_argminmax {
  int type;
  int is_max;
  int last;
  size_t n, inner;
} om_argminmax;

/* 0 when the scan serves this element type, -1 otherwise. */
int om_argminmax_supported(int type);

/* out[i - i0] for the positions i in [i0, i1) of the inner axis of one outer block at src (n * inner elements):
 * the index along the axis. */
void om_argminmax_run(const om_argminmax* a, const void* src, size_t i0, size_t i1, int64_t* out);

#endif
