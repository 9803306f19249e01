/* topk.c - the k best elements of a row (topk.h). Rank keys: the element's bits mapped so that unsigned order
 * is numeric order (floating point: -0.0 as +0.0, every NaN one key above every number; integers: the sign bit
 * flipped), complemented for the smallest; a NaN keeps the top key for both (docs/shape-ops.md). The selection
 * is a binary heap of the k best so far, worst at the root: elements come in index order, so one replaces the
 * root only when its key is strictly greater. The heap is then emptied worst first into the outputs' last
 * places. O(n log k) comparisons per row.
 */
#include "topk.h"

#include <string.h>

#include "core/om_types.h"

#define OM_TOPK_NAN_KEY UINT64_MAX

/* The order key of sign-magnitude floating-point bits b of `bits` width (sign bit s), NaN excluded: -0 as +0. */
static inline uint64_t om_topk_float_key(uint64_t b, uint64_t s) {
  if (b == s) b = 0;                   /* -0.0 */
  return (b & s) ? (s - 1) - (b & (s - 1)) /* negatives: below s, greater magnitude lower */
                 : b | s;               /* positives and +0: s and up */
}

/* The rank key of element j (largest: greater key for greater value; smallest: for smaller value). */
static inline uint64_t om_topk_key(int type, int largest, const void* src, size_t off) {
  uint64_t k, top; /* top: the greatest key of a number of this type */
  switch (type) {
    case OM_T_FLOAT: {
      uint32_t b;
      memcpy(&b, (const char*)src + off * 4, 4);
      if ((b & 0x7fffffffu) > 0x7f800000u) return OM_TOPK_NAN_KEY;
      k = om_topk_float_key(b, 0x80000000u);
      top = 0xffffffffu;
      break;
    }
    case OM_T_DOUBLE: {
      uint64_t b;
      memcpy(&b, (const char*)src + off * 8, 8);
      if ((b & 0x7fffffffffffffffu) > 0x7ff0000000000000u) return OM_TOPK_NAN_KEY;
      k = om_topk_float_key(b, 0x8000000000000000u);
      top = UINT64_MAX - 1; /* keys of numbers stay below the NaN key: +inf is 0xfff0... */
      return largest ? k : top - k;
    }
    case OM_T_FLOAT16:
    case OM_T_BFLOAT16: {
      uint16_t b;
      memcpy(&b, (const char*)src + off * 2, 2);
      if ((b & 0x7fffu) > (type == OM_T_FLOAT16 ? 0x7c00u : 0x7f80u)) return OM_TOPK_NAN_KEY;
      k = om_topk_float_key(b, 0x8000u);
      top = 0xffffu;
      break;
    }
#define OM_TOPK_INT(ID, T, U, FLIP)                 \
  case ID: {                                      \
    T v;                                          \
    memcpy(&v, (const char*)src + off * sizeof v, sizeof v); \
    k = (uint64_t)(U)v ^ (FLIP);                  \
    top = (U)-1;                                  \
    break;                                        \
  }
      OM_TOPK_INT(OM_T_INT8, int8_t, uint8_t, 0x80u)
      OM_TOPK_INT(OM_T_UINT8, uint8_t, uint8_t, 0)
      OM_TOPK_INT(OM_T_INT16, int16_t, uint16_t, 0x8000u)
      OM_TOPK_INT(OM_T_UINT16, uint16_t, uint16_t, 0)
      OM_TOPK_INT(OM_T_INT32, int32_t, uint32_t, 0x80000000u)
      OM_TOPK_INT(OM_T_UINT32, uint32_t, uint32_t, 0)
      OM_TOPK_INT(OM_T_INT64, int64_t, uint64_t, 0x8000000000000000u)
      OM_TOPK_INT(OM_T_UINT64, uint64_t, uint64_t, 0)
    default: return 0;
  }
  return largest ? k : top - k;
}

int om_topk_supported(int type) {
  switch (type) {
    case OM_T_FLOAT: case OM_T_DOUBLE: case OM_T_FLOAT16: case OM_T_BFLOAT16:
    case OM_T_INT8: case OM_T_UINT8: case OM_T_INT16: case OM_T_UINT16:
    case OM_T_INT32: case OM_T_UINT32: case OM_T_INT64: case OM_T_UINT64: return 0;
    default: return -1;
  }
}

/* a ranks below b (is worse): the lower key, or the same key and the higher index. */
static inline int om_topk_worse(const om_topk_entry* a, const om_topk_entry* b) {
  return a->key < b->key || (a->key == b->key && a->idx > b->idx);
}

/* Restore the heap (worst at the root) of m entries below position i. */
static void om_topk_sift(om_topk_entry* h, size_t i, size_t m) {
  om_topk_entry e = h[i];
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= m) break;
    if (c + 1 < m && om_topk_worse(&h[c + 1], &h[c])) c++;
    if (!om_topk_worse(&h[c], &e)) break;
    h[i] = h[c];
    i = c;
  }
  h[i] = e;
}

void om_topk_row(const om_topk* t, const void* src, void* values, int64_t* indices, om_topk_entry* heap) {
  const size_t n = t->n, k = t->k, inner = t->inner, esz = om_type_size(t->type);
  const int type = t->type, largest = t->largest;
  if (k == 0) return;
  for (size_t j = 0; j < k; j++) heap[j] = (om_topk_entry){om_topk_key(type, largest, src, j * inner), (int64_t)j};
  for (size_t i = k / 2; i-- > 0;) om_topk_sift(heap, i, k);
  uint64_t root = heap[0].key;
  for (size_t j = k; j < n; j++) {
    uint64_t key = om_topk_key(type, largest, src, j * inner);
    if (key <= root) continue; /* equal keys: the later index ranks lower */
    heap[0] = (om_topk_entry){key, (int64_t)j};
    om_topk_sift(heap, 0, k);
    root = heap[0].key;
  }
  for (size_t m = k; m-- > 0;) { /* the worst of m entries goes to place m */
    int64_t idx = heap[0].idx;
    if (values) memcpy((char*)values + m * inner * esz, (const char*)src + (size_t)idx * inner * esz, esz);
    indices[m * inner] = idx;
    heap[0] = heap[m];
    om_topk_sift(heap, 0, m);
  }
}
