/* reduce.c - the entries of reduce.h: work ranges into pieces, 16-bit and integer types, the general walk.
 *
 * f32 and f64 pieces go straight to the path's kernels (reduce_body.inc). f16 and bf16 pieces are converted
 * exactly to f32 in bounded blocks (at most OM_RED_BLOCK elements, at least one row), computed by the f32
 * kernels and rounded once to the 16-bit type. Integer reductions are plain loops in the input type (wrapping
 * unsigned arithmetic for sums and products, so any order gives the same result).
 */
#include "reduce.h"

#include <stdlib.h>
#include <string.h>

#include "kernels/cast.h"
#include "kernels/kernels.h"
#include "isa/isa.h"
#include "math/om_half.h"
#include "core/om_types.h"
#include "onemodel.h"

#define OM_RED_BLOCK ((size_t)1 << 16)

const om_red_path* om_red_path_get(int path) {
  const om_isa_path* p = om_isa_path_get(path);
  return p ? p->reduce : om_isa_path_get(OM_PATH_SCALAR)->reduce;
}

static const char* const om_red_names[OM_RED_COUNT] = {
    "ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd",
    "ReduceSumSquare", "ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp"};

int om_reduce_op_from_name(const char* name) {
  for (int k = 0; k < OM_RED_COUNT; k++)
    if (name && strcmp(name, om_red_names[k]) == 0) return k;
  return -1;
}

static int om_red_is_16(int type) { return type == OM_T_FLOAT16 || type == OM_T_BFLOAT16; }
static int om_red_is_float(int type) { return type == OM_T_FLOAT || type == OM_T_DOUBLE || om_red_is_16(type); }
static int om_red_is_int(int type) { return (OM_TS_INT & OM_TB(type)) != 0; }

int om_reduce_supported(int op, int type) {
  if (op < 0 || op >= OM_RED_COUNT || type < 0 || type >= 32) return 0;
  if (om_red_is_float(type)) return 1;
  if (om_red_is_int(type))
    return op == OM_RED_SUM || op == OM_RED_MEAN || op == OM_RED_MAX || op == OM_RED_MIN || op == OM_RED_PROD ||
           op == OM_RED_SUMSQUARE || op == OM_RED_L1;
  return 0;
}
int om_softmax_supported(int type) { return type >= 0 && type < 32 && om_red_is_float(type); }
int om_layernorm_supported(int type) { return type >= 0 && type < 32 && om_red_is_float(type); }

/* ---- 16-bit conversions: exact widening, one rounding (ties to even) back ------------------------------- */

/* n 16-bit values of `type` to f32 (to_f32), or n f32 to `type` (reduce.h). */
void om_red_cvt16(int path, int type, int to_f32, const void* src, void* dst, size_t n) {
  if (type == OM_T_BFLOAT16) {
    const uint16_t* s16 = src;
    const float* sf = src;
    uint16_t* d16 = dst;
    float* df = dst;
    if (to_f32)
      for (size_t i = 0; i < n; i++) df[i] = om_bf16_to_f32(s16[i]);
    else
      for (size_t i = 0; i < n; i++) d16[i] = om_f32_to_bf16(sf[i]);
    return;
  }
  int from = to_f32 ? OM_T_FLOAT16 : OM_T_FLOAT, to = to_f32 ? OM_T_FLOAT : OM_T_FLOAT16;
  om_un_fn vec = om_path_table(path)->cast[from][to];
  size_t d = vec ? vec(src, dst, n, OM_FL_EXACT) : 0, in_size = to_f32 ? 2 : 4, out_size = to_f32 ? 4 : 2;
  om_cast((const char*)src + d * in_size, from, (char*)dst + d * out_size, to, n - d);
}
static void om_red_to_f32(int path, int type, const void* src, float* dst, size_t n) {
  om_red_cvt16(path, type, 1, src, dst, n);
}
static void om_red_from_f32(int path, int type, const float* src, void* dst, size_t n) {
  om_red_cvt16(path, type, 0, src, dst, n);
}

/* ---- integer reductions ------------------------------------------------------------------------------------ */

#define OM_RED_INT(TN, T, U, SGN, TMIN, TMAX)                                                                 \
  static void om_red_int_##TN(int op, size_t outer, size_t n, size_t inner, size_t w, const T* x, size_t xs, \
                              T* y, size_t ys) {                                                             \
    U acc[256];                                                                                              \
    for (size_t o = 0; o < outer; o++)                                                                       \
      for (size_t j0 = 0; j0 < w; j0 += 256) {                                                               \
        size_t k = w - j0 < 256 ? w - j0 : 256;                                                              \
        const T* xb = x + o * xs + j0;                                                                       \
        U init = op == OM_RED_PROD ? (U)1 : op == OM_RED_MAX ? (U)(TMIN) : op == OM_RED_MIN ? (U)(TMAX) : (U)0; \
        for (size_t c = 0; c < k; c++) acc[c] = init;                                                        \
        for (size_t r = 0; r < n; r++) {                                                                     \
          const T* xr = xb + r * inner;                                                                      \
          switch (op) {                                                                                      \
            case OM_RED_SUM:                                                                                 \
            case OM_RED_MEAN:                                                                                \
              for (size_t c = 0; c < k; c++) acc[c] += (U)xr[c];                                             \
              break;                                                                                         \
            case OM_RED_PROD:                                                                                \
              for (size_t c = 0; c < k; c++) acc[c] *= (U)xr[c];                                             \
              break;                                                                                         \
            case OM_RED_SUMSQUARE:                                                                           \
              for (size_t c = 0; c < k; c++) acc[c] += (U)xr[c] * (U)xr[c];                                  \
              break;                                                                                         \
            case OM_RED_L1:                                                                                  \
              for (size_t c = 0; c < k; c++) acc[c] += (SGN && ((U)xr[c] >> (sizeof(U) * 8 - 1))) ? (U)0 - (U)xr[c] : (U)xr[c]; \
              break;                                                                                         \
            case OM_RED_MAX:                                                                                 \
              for (size_t c = 0; c < k; c++) acc[c] = xr[c] > (T)acc[c] ? (U)xr[c] : acc[c];                 \
              break;                                                                                         \
            default:                                                                                         \
              for (size_t c = 0; c < k; c++) acc[c] = xr[c] < (T)acc[c] ? (U)xr[c] : acc[c];                 \
              break;                                                                                         \
          }                                                                                                  \
        }                                                                                                    \
        for (size_t c = 0; c < k; c++) {                                                                     \
          T v = (T)acc[c];                                                                                   \
          if (op == OM_RED_MEAN) {                                                                           \
            if (n == 0) v = 0;                                                                               \
            else if (SGN) v = (T)((int64_t)v / (int64_t)n);                                                  \
            else v = (T)((uint64_t)v / (uint64_t)n);                                                         \
          }                                                                                                  \
          y[o * ys + j0 + c] = v;                                                                            \
        }                                                                                                    \
      }                                                                                                      \
  }
OM_RED_INT(i8, int8_t, uint8_t, 1, INT8_MIN, INT8_MAX)
OM_RED_INT(i16, int16_t, uint16_t, 1, INT16_MIN, INT16_MAX)
OM_RED_INT(i32, int32_t, uint32_t, 1, INT32_MIN, INT32_MAX)
OM_RED_INT(i64, int64_t, uint64_t, 1, INT64_MIN, INT64_MAX)
OM_RED_INT(u8, uint8_t, uint8_t, 0, 0, UINT8_MAX)
OM_RED_INT(u16, uint16_t, uint16_t, 0, 0, UINT16_MAX)
OM_RED_INT(u32, uint32_t, uint32_t, 0, 0, UINT32_MAX)
OM_RED_INT(u64, uint64_t, uint64_t, 0, 0, UINT64_MAX)

/* ---- pieces: `outer` rows of x (row o at x + o * xs), w adjacent inner positions ---------------------------- */

static int om_red_piece(int path, int op, int type, int exact, size_t outer, size_t n, size_t inner, size_t w,
                        const char* x, size_t xs, char* y, size_t ys) {
  const om_red_path* k = om_red_path_get(path);
  switch (type) {
    case OM_T_FLOAT:
      k->reduce_f32(op, exact, outer, n, inner, w, (const float*)(const void*)x, xs, (float*)(void*)y, ys);
      return 0;
    case OM_T_DOUBLE:
      k->reduce_f64(op, exact, outer, n, inner, w, (const double*)(const void*)x, xs, (double*)(void*)y, ys);
      return 0;
#define OM_RED_INT_CASE(ID, TN, T) \
  case ID: om_red_int_##TN(op, outer, n, inner, w, (const T*)(const void*)x, xs, (T*)(void*)y, ys); return 0;
      OM_RED_INT_CASE(OM_T_INT8, i8, int8_t)
      OM_RED_INT_CASE(OM_T_INT16, i16, int16_t)
      OM_RED_INT_CASE(OM_T_INT32, i32, int32_t)
      OM_RED_INT_CASE(OM_T_INT64, i64, int64_t)
      OM_RED_INT_CASE(OM_T_UINT8, u8, uint8_t)
      OM_RED_INT_CASE(OM_T_UINT16, u16, uint16_t)
      OM_RED_INT_CASE(OM_T_UINT32, u32, uint32_t)
      OM_RED_INT_CASE(OM_T_UINT64, u64, uint64_t)
#undef OM_RED_INT_CASE
    default: break;
  }
  /* f16, bf16: blocks of g rows (inner = 1) or of g inner positions, converted to a compact f32 buffer */
  size_t g = OM_RED_BLOCK / (n ? n : 1) ? OM_RED_BLOCK / (n ? n : 1) : 1;
  float* buf = malloc((g * n + g) * sizeof(float) + 64);
  if (!buf) return -1;
  float* res = buf + g * n;
  if (inner == 1) { /* rows of n contiguous elements, xs = n, ys = 1 */
    for (size_t o0 = 0; o0 < outer; o0 += g) {
      size_t c = outer - o0 < g ? outer - o0 : g;
      om_red_to_f32(path, type, x + o0 * n * 2, buf, c * n);
      k->reduce_f32(op, exact, c, n, 1, 1, buf, n, res, 1);
      om_red_from_f32(path, type, res, y + o0 * 2, c);
    }
  } else {
    for (size_t o = 0; o < outer; o++)
      for (size_t j0 = 0; j0 < w; j0 += g) {
        size_t c = w - j0 < g ? w - j0 : g;
        for (size_t r = 0; r < n; r++) om_red_to_f32(path, type, x + (o * xs + r * inner + j0) * 2, buf + r * c, c);
        k->reduce_f32(op, exact, 1, n, c, c, buf, n * c, res, c);
        om_red_from_f32(path, type, res, y + (o * ys + j0) * 2, c);
      }
  }
  free(buf);
  return 0;
}

/* The pieces of units [begin, end) of an [outer, inner] grid (unit u = o * inner + j), first to last: at the start
 * of a row with at least one whole row left, the cnt whole rows that fit (w = inner); otherwise cnt = 1 and the
 * w positions from j to the row's end or to `end`. om_reduce and om_softmax cut their ranges so. */
typedef struct om_red_walk {
  size_t u, end, inner;
} om_red_walk;

static int om_red_walk_next(om_red_walk* it, size_t* o, size_t* j, size_t* cnt, size_t* w) {
  size_t u = it->u, end = it->end, inner = it->inner;
  if (u >= end) return 0;
  *o = u / inner;
  *j = u % inner;
  *cnt = 1;
  if (*j == 0 && end - u >= inner) {
    *cnt = (end - u) / inner;
    *w = inner;
  } else {
    *w = inner - *j < end - u ? inner - *j : end - u;
  }
  it->u = u + *cnt * *w;
  return 1;
}

int om_reduce(int path, int op, int type, int mode, size_t outer, size_t n, size_t inner, size_t begin, size_t end,
              const void* x, void* y) {
  if (!om_reduce_supported(op, type) || path < 0 || path >= OM_PATH_COUNT) return -1;
  size_t units = outer * inner, esz = om_type_size(type);
  if (end > units) end = units;
  int exact = mode == OM_MODE_EXACT;
  om_red_walk it = {begin, end, inner};
  size_t o, j, cnt, w;
  while (om_red_walk_next(&it, &o, &j, &cnt, &w))
    if (om_red_piece(path, op, type, exact, cnt, n, inner, w, (const char*)x + (o * n * inner + j) * esz, n * inner,
                     (char*)y + (o * inner + j) * esz, inner) != 0)
      return -1;
  return 0;
}

/* ---- plans: any set of axes ---------------------------------------------------------------------------------- */

int om_reduce_plan_make(size_t rank, const int64_t* dims, const uint8_t* mask, om_reduce_plan* p) {
  if (rank > OM_RED_MAX_RANK) return -1;
  memset(p, 0, sizeof *p);
  size_t kept = 1, red = 1;
  int zero = 0;
  for (size_t d = 0; d < rank; d++) {
    size_t e = (size_t)dims[d];
    if (e == 0) zero = 1;
    if (mask[d]) red *= e;
    else kept *= e;
  }
  p->units = kept;
  p->n_reduced = red;
  /* drop size-1 dimensions, merge neighbours of the same kind */
  size_t r = 0;
  for (size_t d = 0; d < rank && !zero; d++) {
    size_t e = (size_t)dims[d];
    uint8_t m = mask[d] ? 1 : 0;
    if (e == 1) continue;
    if (r && p->reduced[r - 1] == m) p->dims[r - 1] *= e;
    else {
      p->dims[r] = e;
      p->reduced[r] = m;
      r++;
    }
  }
  p->rank = r;
  /* [K] R [K]: the [outer, n, inner] form */
  size_t first = 0, nr = 0;
  for (size_t d = 0; d < r; d++)
    if (p->reduced[d]) nr++;
  while (first < r && !p->reduced[first]) first++;
  if (zero || nr <= 1) {
    p->general = 0;
    p->outer = 1;
    p->n = red;
    p->inner = 1;
    if (!zero && nr == 1) {
      for (size_t d = 0; d < first; d++) p->outer *= p->dims[d];
      for (size_t d = first + 1; d < r; d++) p->inner *= p->dims[d];
    } else {
      p->outer = kept; /* nothing reduced, or a zero-size dimension: no element is read */
    }
    return 0;
  }
  p->general = 1;
  return 0;
}

/* The general walk: for each output, its reduced elements gathered in row-major order of the reduced axes into
 * a buffer of rows, then the contiguous kernel. */
int om_reduce_plan_run(const om_reduce_plan* p, int path, int op, int type, int mode, size_t begin, size_t end,
                       const void* x, void* y) {
  if (!p->general) return om_reduce(path, op, type, mode, p->outer, p->n, p->inner, begin, end, x, y);
  if (!om_reduce_supported(op, type)) return -1;
  size_t esz = om_type_size(type), n = p->n_reduced;
  size_t stride[OM_RED_MAX_RANK], kd[OM_RED_MAX_RANK], rd[OM_RED_MAX_RANK], nk = 0, nrd = 0;
  size_t s = 1;
  for (size_t d = p->rank; d-- > 0;) {
    stride[d] = s;
    s *= p->dims[d];
  }
  for (size_t d = 0; d < p->rank; d++) {
    if (p->reduced[d]) rd[nrd++] = d;
    else kd[nk++] = d;
  }
  /* the last reduced axis is a contiguous run when it is the last axis */
  size_t run = rd[nrd - 1] == p->rank - 1 ? p->dims[p->rank - 1] : 1;
  size_t g = OM_RED_BLOCK / n ? OM_RED_BLOCK / n : 1;
  if (end > p->units) end = p->units;
  char* buf = malloc(g * n * esz + 64);
  if (!buf) return -1;
  for (size_t u0 = begin; u0 < end; u0 += g) {
    size_t cnt = end - u0 < g ? end - u0 : g;
    char* b = buf;
    for (size_t u = u0; u < u0 + cnt; u++) {
      size_t base = 0, q = u;
      for (size_t t = nk; t-- > 0;) {
        size_t d = kd[t];
        base += (q % p->dims[d]) * stride[d];
        q /= p->dims[d];
      }
      size_t idx[OM_RED_MAX_RANK] = {0};
      for (size_t i = 0; i < n; i += run) {
        size_t off = base;
        for (size_t t = 0; t < nrd; t++) off += idx[t] * stride[rd[t]];
        memcpy(b, (const char*)x + off * esz, run * esz);
        b += run * esz;
        /* odometer over the reduced axes (the last one by `run`) */
        for (size_t t = nrd; t-- > 0;) {
          idx[t] += t == nrd - 1 ? run : 1;
          if (idx[t] < p->dims[rd[t]]) break;
          idx[t] = 0;
        }
      }
    }
    if (om_reduce(path, op, type, mode, cnt, n, 1, 0, cnt, buf, (char*)y + u0 * esz) != 0) {
      free(buf);
      return -1;
    }
  }
  free(buf);
  return 0;
}

/* ---- Softmax ------------------------------------------------------------------------------------------------- */

static int om_softmax_piece(int path, int type, int exact, int lg, size_t outer, size_t n, size_t inner, size_t w,
                            const char* x, char* y) {
  const om_red_path* k = om_red_path_get(path);
  if (type == OM_T_FLOAT) {
    k->softmax_f32(lg, exact, outer, n, inner, w, (const float*)(const void*)x, (float*)(void*)y);
    return 0;
  }
  if (type == OM_T_DOUBLE) {
    k->softmax_f64(lg, exact, outer, n, inner, w, (const double*)(const void*)x, (double*)(void*)y);
    return 0;
  }
  size_t g = OM_RED_BLOCK / n ? OM_RED_BLOCK / n : 1;
  float* buf = malloc(2 * g * n * sizeof(float) + 64);
  if (!buf) return -1;
  float* out = buf + g * n;
  if (inner == 1) { /* rows of n contiguous elements */
    for (size_t o0 = 0; o0 < outer; o0 += g) {
      size_t c = outer - o0 < g ? outer - o0 : g;
      om_red_to_f32(path, type, x + o0 * n * 2, buf, c * n);
      k->softmax_f32(lg, exact, c, n, 1, 1, buf, out);
      om_red_from_f32(path, type, out, y + o0 * n * 2, c * n);
    }
  } else {
    for (size_t o = 0; o < outer; o++)
      for (size_t j0 = 0; j0 < w; j0 += g) {
        size_t c = w - j0 < g ? w - j0 : g;
        const char* xb = x + (o * n * inner + j0) * 2;
        char* yb = y + (o * n * inner + j0) * 2;
        for (size_t r = 0; r < n; r++) om_red_to_f32(path, type, xb + r * inner * 2, buf + r * c, c);
        k->softmax_f32(lg, exact, 1, n, c, c, buf, out);
        for (size_t r = 0; r < n; r++) om_red_from_f32(path, type, out + r * c, yb + r * inner * 2, c);
      }
  }
  free(buf);
  return 0;
}

int om_softmax(int path, int type, int mode, int log, size_t outer, size_t n, size_t inner, size_t begin, size_t end,
               const void* x, void* y) {
  if (!om_softmax_supported(type) || path < 0 || path >= OM_PATH_COUNT) return -1;
  size_t units = outer * inner, esz = om_type_size(type);
  if (end > units) end = units;
  if (n == 0) return 0;
  int exact = mode == OM_MODE_EXACT;
  om_red_walk it = {begin, end, inner};
  size_t o, j, cnt, w;
  while (om_red_walk_next(&it, &o, &j, &cnt, &w)) {
    size_t off = (o * n * inner + j) * esz;
    /* a piece of `cnt` whole [n, inner] slabs, or w < inner positions of one slab */
    if (om_softmax_piece(path, type, exact, log != 0, cnt, n, inner, w, (const char*)x + off, (char*)y + off) != 0)
      return -1;
  }
  return 0;
}

/* ---- LayerNormalization -------------------------------------------------------------------------------------- */

int om_layernorm(int path, int type, int mode, int rms, size_t n, size_t begin, size_t end, const void* x,
                 const void* scale, const void* bias, double epsilon, void* y, void* mean, void* inv_std) {
  if (!om_layernorm_supported(type) || path < 0 || path >= OM_PATH_COUNT || !scale) return -1;
  if (begin >= end) return 0;
  const om_red_path* k = om_red_path_get(path);
  int exact = mode == OM_MODE_EXACT;
  size_t esz = om_type_size(type);
  float eps = (float)epsilon; /* the f32 attribute; f64 widens it exactly */
  if (type == OM_T_DOUBLE) {
    k->layernorm_f64(exact, rms, end - begin, n, (const double*)x + begin * n, scale, bias, (double)eps,
                     (double*)y + begin * n, mean ? (double*)mean + begin : NULL,
                     inv_std ? (double*)inv_std + begin : NULL);
    return 0;
  }
  if (type == OM_T_FLOAT) {
    k->layernorm_f32(exact, rms, end - begin, n, (const float*)x + begin * n, scale, bias, eps, (float*)y + begin * n,
                     mean ? (float*)mean + begin : NULL, inv_std ? (float*)inv_std + begin : NULL);
    return 0;
  }
  size_t g = OM_RED_BLOCK / (n ? n : 1) ? OM_RED_BLOCK / (n ? n : 1) : 1;
  float* buf = malloc((2 * g * n + 2 * n) * sizeof(float) + 64);
  if (!buf) return -1;
  float *out = buf + g * n, *sc = out + g * n, *bi = sc + n;
  om_red_to_f32(path, type, scale, sc, n);
  if (bias) om_red_to_f32(path, type, bias, bi, n);
  for (size_t r0 = begin; r0 < end; r0 += g) {
    size_t c = end - r0 < g ? end - r0 : g;
    om_red_to_f32(path, type, (const char*)x + r0 * n * esz, buf, c * n);
    k->layernorm_f32(exact, rms, c, n, buf, sc, bias ? bi : NULL, eps, out, mean ? (float*)mean + r0 : NULL,
                     inv_std ? (float*)inv_std + r0 : NULL);
    om_red_from_f32(path, type, out, (char*)y + r0 * n * esz, c * n);
  }
  free(buf);
  return 0;
}

int om_moments(int path, int type, size_t n, size_t begin, size_t end, const void* x, void* mean, void* var) {
  if (!om_layernorm_supported(type) || path < 0 || path >= OM_PATH_COUNT) return -1;
  if (begin >= end) return 0;
  const om_red_path* k = om_red_path_get(path);
  size_t esz = om_type_size(type);
  if (type == OM_T_DOUBLE) {
    k->moments_f64(end - begin, n, (const double*)x + begin * n, (double*)mean + begin, (double*)var + begin);
    return 0;
  }
  if (type == OM_T_FLOAT) {
    k->moments_f32(end - begin, n, (const float*)x + begin * n, (float*)mean + begin, (float*)var + begin);
    return 0;
  }
  float* buf = malloc((n ? n : 1) * sizeof(float));
  if (!buf) return -1;
  for (size_t r = begin; r < end; r++) { /* a 16-bit row widened exactly, then the f32 kernel */
    om_red_to_f32(path, type, (const char*)x + r * n * esz, buf, n);
    k->moments_f32(1, n, buf, (float*)mean + r, (float*)var + r);
  }
  free(buf);
  return 0;
}

int om_skip_add(int type, int mode, size_t n, size_t begin, size_t end, const void* x, const void* skip,
                size_t skip_rows, const void* bias, void* s) {
  if (type != OM_T_FLOAT || skip_rows == 0) return -1;
  const uint32_t qnan = 0x7FC00000u;
  const float *xf = x, *kf = skip, *bf = bias;
  float* sf = s;
  for (size_t r = begin; r < end; r++) {
    const float *xr = xf + r * n, *kr = kf + (r % skip_rows) * n;
    float* sr = sf + r * n;
    if (bf)
      for (size_t i = 0; i < n; i++) sr[i] = (xr[i] + kr[i]) + bf[i];
    else
      for (size_t i = 0; i < n; i++) sr[i] = xr[i] + kr[i];
    if (mode == OM_MODE_EXACT)
      for (size_t i = 0; i < n; i++)
        if (sr[i] != sr[i]) memcpy(&sr[i], &qnan, 4);
  }
  return 0;
}
