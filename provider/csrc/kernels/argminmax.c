/* argminmax.c - the index of the greatest or least element along one axis (argminmax.h). Per element type, two
 * scans: along a contiguous axis (inner 1) the extreme value first (float and double in vectors, the integer
 * loops vectorised by the compiler), then the first or last index holding it, or holding a NaN when there is one; across positions (inner > 1) the
 * best so far per position, replaced by the contract's rule. Both give the index the contract names. */
#include "argminmax.h"

#include <string.h>

#include "core/om_types.h"
#include "math/om_half.h"

/* `v` is better than the best so far `b`: docs/shape-ops.md (NaN wins over every number; the first or last). */
#define OM_AMM_BETTER(v, b, is_max, last, ISNAN)                                                               \
  ((last) ? (ISNAN(v) || (!ISNAN(b) && ((is_max) ? (v) >= (b) : (v) <= (b))))                                  \
          : (!ISNAN(b) && (ISNAN(v) || ((is_max) ? (v) > (b) : (v) < (b)))))

#define OM_AMM_NAN(v) ((v) != (v))
#define OM_AMM_NONAN(v) ((void)(v), 0)
#define OM_AMM_PLAIN(p) (p)
#define OM_AMM_F16(p) om_f16_to_f32(p)
#define OM_AMM_BF16(p) om_bf16_to_f32(p)

/* Vector scans of float and double rows (GCC vector extensions, 16 bytes: SSE2 / NEON, the base ISA): the
 * extreme value and whether a NaN is there, then the first or last index holding the value (or a NaN). Lane
 * order does not matter: the value is the row's extreme (ties are equal values), the index is found by
 * equality in index order. */
#define OM_AMM_VEC(S, T, IT, L)                                                                                \
  typedef T om_amm_v##S __attribute__((vector_size(16)));                                                     \
  typedef IT om_amm_m##S __attribute__((vector_size(16)));                                                    \
  static om_amm_v##S om_amm_load_##S(const T* p) {                                                            \
    om_amm_v##S v;                                                                                             \
    memcpy(&v, p, sizeof v);                                                                                   \
    return v;                                                                                                  \
  }                                                                                                            \
  static om_amm_v##S om_amm_pick_##S(om_amm_m##S k, om_amm_v##S a, om_amm_v##S b) {                           \
    return (om_amm_v##S)(((om_amm_m##S)a & k) | ((om_amm_m##S)b & ~k));                                       \
  }                                                                                                            \
  static om_amm_v##S om_amm_splat_##S(T t) {                                                                 \
    T lanes[L];                                                                                                \
    for (size_t i = 0; i < L; i++) lanes[i] = t;                                                               \
    om_amm_v##S v;                                                                                             \
    memcpy(&v, lanes, sizeof v);                                                                               \
    return v;                                                                                                  \
  }                                                                                                            \
  static int om_amm_any_##S(om_amm_m##S k) {                                                                  \
    uint64_t w[2];                                                                                             \
    memcpy(w, &k, sizeof w);                                                                                   \
    return (w[0] | w[1]) != 0;                                                                                 \
  }                                                                                                            \
  static T om_amm_extreme_##S(const T* x, size_t n, int is_max, int* nan) {                                   \
    om_amm_v##S m0 = om_amm_splat_##S(x[0]), m1 = m0, m2 = m0, m3 = m0;                                      \
    om_amm_m##S nn = {0};                                                                                      \
    size_t j = 0;                                                                                              \
    for (; j + 4 * L <= n; j += 4 * L) {                                                                       \
      om_amm_v##S v0 = om_amm_load_##S(x + j), v1 = om_amm_load_##S(x + j + L);                               \
      om_amm_v##S v2 = om_amm_load_##S(x + j + 2 * L), v3 = om_amm_load_##S(x + j + 3 * L);                   \
      nn |= (v0 != v0) | (v1 != v1) | (v2 != v2) | (v3 != v3);                                                 \
      if (is_max) {                                                                                            \
        m0 = om_amm_pick_##S(v0 > m0, v0, m0);                                                                 \
        m1 = om_amm_pick_##S(v1 > m1, v1, m1);                                                                 \
        m2 = om_amm_pick_##S(v2 > m2, v2, m2);                                                                 \
        m3 = om_amm_pick_##S(v3 > m3, v3, m3);                                                                 \
      } else {                                                                                                 \
        m0 = om_amm_pick_##S(v0 < m0, v0, m0);                                                                 \
        m1 = om_amm_pick_##S(v1 < m1, v1, m1);                                                                 \
        m2 = om_amm_pick_##S(v2 < m2, v2, m2);                                                                 \
        m3 = om_amm_pick_##S(v3 < m3, v3, m3);                                                                 \
      }                                                                                                        \
    }                                                                                                          \
    T m = x[0], lanes[4 * L];                                                                                  \
    memcpy(lanes, &m0, sizeof m0);                                                                             \
    memcpy(lanes + L, &m1, sizeof m1);                                                                         \
    memcpy(lanes + 2 * L, &m2, sizeof m2);                                                                     \
    memcpy(lanes + 3 * L, &m3, sizeof m3);                                                                     \
    int any = om_amm_any_##S(nn);                                                                              \
    for (size_t i = 0; i < 4 * L; i++) m = is_max ? (lanes[i] > m ? lanes[i] : m) : (lanes[i] < m ? lanes[i] : m); \
    for (; j < n; j++) {                                                                                       \
      any |= x[j] != x[j];                                                                                     \
      m = is_max ? (x[j] > m ? x[j] : m) : (x[j] < m ? x[j] : m);                                              \
    }                                                                                                          \
    *nan = any | (x[0] != x[0]);                                                                               \
    return m;                                                                                                  \
  }                                                                                                            \
  /* The first index of x[0 .. n) equal to m (a NaN when nan), n when none. */                                \
  static size_t om_amm_first_##S(const T* x, size_t n, T m, int nan) {                                        \
    om_amm_v##S mv = om_amm_splat_##S(m);                                                                      \
    size_t j = 0;                                                                                              \
    for (; j + L <= n; j += L) {                                                                               \
      om_amm_v##S v = om_amm_load_##S(x + j);                                                                  \
      if (om_amm_any_##S(nan ? v != v : v == mv)) break;                                                       \
    }                                                                                                          \
    for (; j < n; j++)                                                                                         \
      if (nan ? x[j] != x[j] : x[j] == m) return j;                                                            \
    return n;                                                                                                  \
  }

OM_AMM_VEC(f, float, int32_t, 4)
OM_AMM_VEC(d, double, int64_t, 2)

#define OM_AMM_SCALAR_EXTREME(NAME, T, C, LOAD, ISNAN)                                                          \
  static C NAME##_extreme(const T* x, size_t n, int is_max, int* nan) {                                       \
    C m = LOAD(x[0]);                                                                                          \
    int any = 0;                                                                                               \
    if (is_max)                                                                                                \
      for (size_t j = 0; j < n; j++) {                                                                         \
        C v = LOAD(x[j]);                                                                                      \
        any |= ISNAN(v);                                                                                       \
        m = v > m ? v : m;                                                                                     \
      }                                                                                                        \
    else                                                                                                       \
      for (size_t j = 0; j < n; j++) {                                                                         \
        C v = LOAD(x[j]);                                                                                      \
        any |= ISNAN(v);                                                                                       \
        m = v < m ? v : m;                                                                                     \
      }                                                                                                        \
    *nan = any;                                                                                                \
    return m;                                                                                                  \
  }

/* NAME over element type T, compared as C (LOAD converts); EXTREME: the extreme value and NaN flag of a row;
 * FIRST: the first index holding a value (or NaN) from a start, or NULL for the scalar search. */
#define OM_AMM_DEFINE(NAME, T, C, LOAD, ISNAN, EXTREME, FIRST)                                                  \
  static int64_t NAME##_contig(const T* x, size_t n, int is_max, int last) {                                   \
    int nan = 0;                                                                                               \
    C m = EXTREME(x, n, is_max, &nan);                                                                         \
    if (last) {                                                                                                \
      for (size_t j = n; j-- > 0;) {                                                                           \
        C v = LOAD(x[j]);                                                                                      \
        if (nan ? ISNAN(v) : v == m) return (int64_t)j;                                                        \
      }                                                                                                        \
    } else {                                                                                                   \
      size_t (*first)(const T*, size_t, C, int) = FIRST;                                                       \
      if (first) return (int64_t)first(x, n, m, nan);                                                          \
      for (size_t j = 0; j < n; j++) {                                                                         \
        C v = LOAD(x[j]);                                                                                      \
        if (nan ? ISNAN(v) : v == m) return (int64_t)j;                                                        \
      }                                                                                                        \
    }                                                                                                          \
    return 0; /* not reached: m is one of the elements */                                                     \
  }                                                                                                            \
  static void NAME(const om_argminmax* a, const void* src, size_t i0, size_t i1, int64_t* out) {              \
    const T* x = src;                                                                                          \
    const size_t n = a->n, inner = a->inner;                                                                   \
    const int is_max = a->is_max, last = a->last;                                                              \
    if (inner == 1) {                                                                                          \
      out[0] = NAME##_contig(x, n, is_max, last);                                                              \
      return;                                                                                                  \
    }                                                                                                          \
    enum { BLOCK = 256 };                                                                                      \
    C best[BLOCK];                                                                                             \
    for (size_t b0 = i0; b0 < i1; b0 += BLOCK) {                                                               \
      size_t w = i1 - b0 < BLOCK ? i1 - b0 : BLOCK;                                                            \
      int64_t* o = out + (b0 - i0);                                                                            \
      for (size_t i = 0; i < w; i++) {                                                                         \
        best[i] = LOAD(x[b0 + i]);                                                                             \
        o[i] = 0;                                                                                              \
      }                                                                                                        \
      for (size_t j = 1; j < n; j++) {                                                                         \
        const T* row = x + j * inner + b0;                                                                     \
        for (size_t i = 0; i < w; i++) {                                                                       \
          C v = LOAD(row[i]);                                                                                  \
          if (OM_AMM_BETTER(v, best[i], is_max, last, ISNAN)) {                                                \
            best[i] = v;                                                                                       \
            o[i] = (int64_t)j;                                                                                 \
          }                                                                                                    \
        }                                                                                                      \
      }                                                                                                        \
    }                                                                                                          \
  }

OM_AMM_DEFINE(om_amm_f32, float, float, OM_AMM_PLAIN, OM_AMM_NAN, om_amm_extreme_f, om_amm_first_f)
OM_AMM_DEFINE(om_amm_f64, double, double, OM_AMM_PLAIN, OM_AMM_NAN, om_amm_extreme_d, om_amm_first_d)
OM_AMM_SCALAR_EXTREME(om_amm_f16, uint16_t, float, OM_AMM_F16, OM_AMM_NAN)
OM_AMM_DEFINE(om_amm_f16, uint16_t, float, OM_AMM_F16, OM_AMM_NAN, om_amm_f16_extreme, NULL)
OM_AMM_SCALAR_EXTREME(om_amm_bf16, uint16_t, float, OM_AMM_BF16, OM_AMM_NAN)
OM_AMM_DEFINE(om_amm_bf16, uint16_t, float, OM_AMM_BF16, OM_AMM_NAN, om_amm_bf16_extreme, NULL)
/* The integer types: (element type id, C type, suffix), each compared as itself. */
#define OM_AMM_INTS(X)                                                                                          \
  X(OM_T_INT8, int8_t, i8) X(OM_T_UINT8, uint8_t, u8) X(OM_T_INT16, int16_t, i16) X(OM_T_UINT16, uint16_t, u16) \
  X(OM_T_INT32, int32_t, i32) X(OM_T_UINT32, uint32_t, u32) X(OM_T_INT64, int64_t, i64)                        \
  X(OM_T_UINT64, uint64_t, u64)
#define OM_AMM_INT_DEFINE(ID, T, S)                                         \
  OM_AMM_SCALAR_EXTREME(om_amm_##S, T, T, OM_AMM_PLAIN, OM_AMM_NONAN) \
  OM_AMM_DEFINE(om_amm_##S, T, T, OM_AMM_PLAIN, OM_AMM_NONAN, om_amm_##S##_extreme, NULL)
OM_AMM_INTS(OM_AMM_INT_DEFINE)

typedef void (*om_amm_fn)(const om_argminmax*, const void*, size_t, size_t, int64_t*);

static om_amm_fn om_amm_of(int type) {
  switch (type) {
    case OM_T_FLOAT: return om_amm_f32;
    case OM_T_DOUBLE: return om_amm_f64;
    case OM_T_FLOAT16: return om_amm_f16;
    case OM_T_BFLOAT16: return om_amm_bf16;
#define OM_AMM_INT_CASE(ID, T, S) \
  case ID: return om_amm_##S;
    OM_AMM_INTS(OM_AMM_INT_CASE)
    default: return 0;
  }
}

int om_argminmax_supported(int type) { return om_amm_of(type) ? 0 : -1; }

void om_argminmax_run(const om_argminmax* a, const void* src, size_t i0, size_t i1, int64_t* out) {
  om_amm_of(a->type)(a, src, i0, i1, out);
}
