/* argminmax.c - the index of the greatest or least element along one axis (argminmax.h). Per element type, two
 * scans: along a contiguous axis (inner 1) the extreme value first (a loop that compiles to vector min/max),
 * then the first or last index holding it, or holding a NaN when there is one; across positions (inner > 1) the
 * best so far per position, replaced by the contract's rule. Both give the index the contract names. */
#include "argminmax.h"

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

#define OM_AMM_DEFINE(NAME, T, C, LOAD, ISNAN)                                                                  \
  static int64_t NAME##_contig(const T* x, size_t n, int is_max, int last) {                                   \
    C m = LOAD(x[0]);                                                                                          \
    int nan = 0;                                                                                               \
    if (is_max)                                                                                                \
      for (size_t j = 0; j < n; j++) {                                                                         \
        C v = LOAD(x[j]);                                                                                      \
        nan |= ISNAN(v);                                                                                       \
        m = v > m ? v : m;                                                                                     \
      }                                                                                                        \
    else                                                                                                       \
      for (size_t j = 0; j < n; j++) {                                                                         \
        C v = LOAD(x[j]);                                                                                      \
        nan |= ISNAN(v);                                                                                       \
        m = v < m ? v : m;                                                                                     \
      }                                                                                                        \
    if (last) {                                                                                                \
      for (size_t j = n; j-- > 0;) {                                                                           \
        C v = LOAD(x[j]);                                                                                      \
        if (nan ? ISNAN(v) : v == m) return (int64_t)j;                                                        \
      }                                                                                                        \
    } else {                                                                                                   \
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

OM_AMM_DEFINE(om_amm_f32, float, float, OM_AMM_PLAIN, OM_AMM_NAN)
OM_AMM_DEFINE(om_amm_f64, double, double, OM_AMM_PLAIN, OM_AMM_NAN)
OM_AMM_DEFINE(om_amm_f16, uint16_t, float, OM_AMM_F16, OM_AMM_NAN)
OM_AMM_DEFINE(om_amm_bf16, uint16_t, float, OM_AMM_BF16, OM_AMM_NAN)
/* The integer types: (element type id, C type, suffix), each compared as itself. */
#define OM_AMM_INTS(X)                                                                                          \
  X(OM_T_INT8, int8_t, i8) X(OM_T_UINT8, uint8_t, u8) X(OM_T_INT16, int16_t, i16) X(OM_T_UINT16, uint16_t, u16) \
  X(OM_T_INT32, int32_t, i32) X(OM_T_UINT32, uint32_t, u32) X(OM_T_INT64, int64_t, i64)                        \
  X(OM_T_UINT64, uint64_t, u64)
#define OM_AMM_INT_DEFINE(ID, T, S) OM_AMM_DEFINE(om_amm_##S, T, T, OM_AMM_PLAIN, OM_AMM_NONAN)
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
