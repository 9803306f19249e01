/* topk.c - the k best elements of a row (topk.h). Rank keys: the element's bits mapped so that unsigned order
 * is numeric order (floating point: -0.0 as +0.0, every NaN one key above every number; integers: the sign bit
 * flipped), reversed for the smallest; a NaN keeps the top key for both (docs/shape-ops.md). The selection is a
 * binary heap of the k best so far, worst at the root: elements come in index order, so one replaces the root
 * only when its key is strictly greater. The heap is then emptied worst first into the outputs' last places.
 * O(n log k) comparisons per row; a row of which k is a large share is instead ranked whole by a radix sort
 * on the keys (stable, so ties stay in index order). One row loop per element type.
 */
#include "topk.h"

#include <string.h>

#include "core/om_types.h"

#define OM_TOPK_NAN_KEY UINT64_MAX

/* A row is ranked whole (radix sort) rather than through a heap of k when k is a quarter of it or more and
 * above 64 (measured: docs/shape-ops.md). Either way the answer is the same. */
static int om_topk_sorts(size_t n, size_t k) { return k > 64 && 4 * k >= n; }

/* The order key of sign-magnitude floating-point bits b (sign bit s), NaN excluded: -0 as +0; negatives below
 * s (greater magnitude lower), +0 and positives from s up. */
static inline uint64_t om_topk_float_key(uint64_t b, uint64_t s) {
  b &= (uint64_t)0 - (b != s);                  /* -0.0 as +0.0 */
  uint64_t neg = (uint64_t)0 - ((b & s) != 0);  /* all ones for a negative: no branch on the sign */
  return b ^ ((neg & (2 * s - 1)) | s);         /* negative: (2s - 1) - b = (s - 1) - magnitude; else b | s */
}

/* Per element type: the key of the element at p for largest (flip 0) or for smallest (flip the width's
 * all-ones mask: key ^ mask is mask - key, the order reversed, every number's key at most the mask); a NaN's
 * key is UINT64_MAX either way, above every number's (double: +inf's key is 0xfff0..., -inf's flipped the
 * same). */
static inline uint64_t om_topk_key_f32(const void* p, uint64_t flip) {
  uint32_t b;
  memcpy(&b, p, 4);
  return (b & 0x7fffffffu) > 0x7f800000u ? OM_TOPK_NAN_KEY : om_topk_float_key(b, 0x80000000u) ^ flip;
}
static inline uint64_t om_topk_key_f64(const void* p, uint64_t flip) {
  uint64_t b;
  memcpy(&b, p, 8);
  return (b & 0x7fffffffffffffffu) > 0x7ff0000000000000u ? OM_TOPK_NAN_KEY
                                                          : om_topk_float_key(b, 0x8000000000000000u) ^ flip;
}
static inline uint64_t om_topk_key_f16(const void* p, uint64_t flip) {
  uint16_t b;
  memcpy(&b, p, 2);
  return (b & 0x7fffu) > 0x7c00u ? OM_TOPK_NAN_KEY : om_topk_float_key(b, 0x8000u) ^ flip;
}
static inline uint64_t om_topk_key_bf16(const void* p, uint64_t flip) {
  uint16_t b;
  memcpy(&b, p, 2);
  return (b & 0x7fffu) > 0x7f80u ? OM_TOPK_NAN_KEY : om_topk_float_key(b, 0x8000u) ^ flip;
}
/* Integers: the value's bits, the sign bit flipped for the signed types, as unsigned. */
#define OM_TOPK_INT_KEY(S, T, U, SIGN)                                    \
  static inline uint64_t om_topk_key_##S(const void* p, uint64_t flip) { \
    T v;                                                                  \
    memcpy(&v, p, sizeof v);                                              \
    return ((uint64_t)(U)v ^ (SIGN)) ^ flip;                              \
  }
OM_TOPK_INT_KEY(i8, int8_t, uint8_t, 0x80u)
OM_TOPK_INT_KEY(u8, uint8_t, uint8_t, 0)
OM_TOPK_INT_KEY(i16, int16_t, uint16_t, 0x8000u)
OM_TOPK_INT_KEY(u16, uint16_t, uint16_t, 0)
OM_TOPK_INT_KEY(i32, int32_t, uint32_t, 0x80000000u)
OM_TOPK_INT_KEY(u32, uint32_t, uint32_t, 0)
OM_TOPK_INT_KEY(i64, int64_t, uint64_t, 0x8000000000000000u)
OM_TOPK_INT_KEY(u64, uint64_t, uint64_t, 0)

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

/* Empty the heap of k entries worst first: the worst of m + 1 entries goes to place m. */
static void om_topk_drain(om_topk_entry* heap, size_t k, const char* x, size_t stride, size_t esz, void* values,
                          int64_t* indices, size_t inner) {
  for (size_t m = k; m-- > 0;) {
    int64_t idx = heap[0].idx;
    if (values) memcpy((char*)values + m * inner * esz, x + (size_t)idx * stride, esz);
    indices[m * inner] = idx;
    heap[0] = heap[m];
    om_topk_sift(heap, 0, m);
  }
}

/* Sort the n entries of a by key, greatest first, equal keys in index order (the entries come in index
 * order): a stable least-significant-digit radix sort on the complemented key, one byte a pass, a pass skipped
 * when every entry has the same byte there. tmp: n more entries. Returns the array holding the result. */
static om_topk_entry* om_topk_radix(om_topk_entry* a, om_topk_entry* tmp, size_t n) {
  for (unsigned shift = 0; shift < 64; shift += 8) {
    size_t count[256] = {0};
    for (size_t i = 0; i < n; i++) count[(uint8_t)(~a[i].key >> shift)]++;
    if (count[(uint8_t)(~a[0].key >> shift)] == n) continue;
    size_t pos = 0;
    for (size_t b = 0; b < 256; b++) {
      size_t c = count[b];
      count[b] = pos;
      pos += c;
    }
    for (size_t i = 0; i < n; i++) tmp[count[(uint8_t)(~a[i].key >> shift)]++] = a[i];
    om_topk_entry* t = a;
    a = tmp;
    tmp = t;
  }
  return a;
}

/* Write the first k of the ranked entries e to the outputs. */
static void om_topk_write(const om_topk_entry* e, size_t k, const char* x, size_t stride, size_t esz, void* values,
                          int64_t* indices, size_t inner) {
  for (size_t m = 0; m < k; m++) {
    if (values) memcpy((char*)values + m * inner * esz, x + (size_t)e[m].idx * stride, esz);
    indices[m * inner] = e[m].idx;
  }
}

/* The selection of one row for one element type (key function om_topk_key_S, element size ESZ). */
#define OM_TOPK_ROW(ID, S, ESZ)                                                                                 \
  static void om_topk_row_##S(const om_topk* t, const void* src, void* values, int64_t* indices,              \
                              om_topk_entry* heap) {                                                          \
    const size_t n = t->n, k = t->k, stride = t->inner * (ESZ);                                               \
    const uint64_t flip = t->largest ? 0 : (ESZ) == 8 ? UINT64_MAX : ((uint64_t)1 << (8 * (ESZ) % 64)) - 1;   \
    const char* x = src;                                                                                      \
    if (om_topk_sorts(n, k)) { /* a large share of the row: rank it all */                                    \
      for (size_t j = 0; j < n; j++) heap[j] = (om_topk_entry){om_topk_key_##S(x + j * stride, flip), (int64_t)j}; \
      om_topk_write(om_topk_radix(heap, heap + n, n), k, x, stride, ESZ, values, indices, t->inner);          \
      return;                                                                                                 \
    }                                                                                                         \
    for (size_t j = 0; j < k; j++) heap[j] = (om_topk_entry){om_topk_key_##S(x + j * stride, flip), (int64_t)j}; \
    for (size_t i = k / 2; i-- > 0;) om_topk_sift(heap, i, k);                                                \
    uint64_t root = heap[0].key;                                                                              \
    for (size_t j = k; j < n; j++) {                                                                          \
      uint64_t key = om_topk_key_##S(x + j * stride, flip);                                                   \
      if (key <= root) continue; /* equal keys: the later index ranks lower */                                \
      heap[0] = (om_topk_entry){key, (int64_t)j};                                                             \
      om_topk_sift(heap, 0, k);                                                                               \
      root = heap[0].key;                                                                                     \
    }                                                                                                         \
    om_topk_drain(heap, k, x, stride, ESZ, values, indices, t->inner);                                        \
  }

/* (element type id, suffix, size) of every type served. */
#define OM_TOPK_TYPES(X)                                                                                      \
  X(OM_T_FLOAT, f32, 4) X(OM_T_DOUBLE, f64, 8) X(OM_T_FLOAT16, f16, 2) X(OM_T_BFLOAT16, bf16, 2)              \
  X(OM_T_INT8, i8, 1) X(OM_T_UINT8, u8, 1) X(OM_T_INT16, i16, 2) X(OM_T_UINT16, u16, 2)                       \
  X(OM_T_INT32, i32, 4) X(OM_T_UINT32, u32, 4) X(OM_T_INT64, i64, 8) X(OM_T_UINT64, u64, 8)
OM_TOPK_TYPES(OM_TOPK_ROW)

typedef void (*om_topk_fn)(const om_topk*, const void*, void*, int64_t*, om_topk_entry*);

static om_topk_fn om_topk_of(int type) {
  switch (type) {
#define OM_TOPK_CASE(ID, S, ESZ) \
  case ID: return om_topk_row_##S;
    OM_TOPK_TYPES(OM_TOPK_CASE)
    default: return 0;
  }
}

size_t om_topk_scratch(size_t n, size_t k) { return om_topk_sorts(n, k) ? 2 * n : k; }

int om_topk_supported(int type) { return om_topk_of(type) ? 0 : -1; }

void om_topk_row(const om_topk* t, const void* src, void* values, int64_t* indices, om_topk_entry* heap) {
  if (t->k) om_topk_of(t->type)(t, src, values, indices, heap);
}
