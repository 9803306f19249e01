/* topk.h - the k best elements of each row along one axis, in rank order (TopK; the total order, NaN, signed
 * zeros and ties included: docs/shape-ops.md "TopK"). Each element maps to a 64-bit rank key (better: greater),
 * ties broken by the lower index: a total order, so the k best and their order are one answer whatever the
 * selection does. Comparisons only, nothing is computed. Knows nothing of nodes or ORT.
 */
#ifndef OM_TOPK_H
#define OM_TOPK_H

#include <stddef.h>
#include <stdint.h>

/* One selection: element type `type` (om_types.h), the largest (largest) or smallest k of n >= k elements,
 * which lie `inner` elements apart. */
typedef struct om_topk {
  int type;
  int largest;
  size_t n, k, inner;
} om_topk;

/* One entry of the selection's scratch: an element's rank key and its index along the axis. */
typedef struct om_topk_entry {
  uint64_t key;
  int64_t idx;
} om_topk_entry;

/* The scratch entries om_topk_row needs for a row of n elements and k wanted. */
size_t om_topk_scratch(size_t n, size_t k);

/* 0 when the selection serves this element type, -1 otherwise. */
int om_topk_supported(int type);

/* The row starting at src (element j at src + j * inner elements): its k best into values (element r at
 * values + r * inner elements, copied bit for bit; values NULL: not wanted) and their indices (indices[r * inner]), best first.
 * heap: om_topk_scratch(n, k) entries of scratch. */
void om_topk_row(const om_topk* t, const void* src, void* values, int64_t* indices, om_topk_entry* heap);

#endif
