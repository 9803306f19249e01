/* window_pool.c - MaxPool and AveragePool over the windows of docs/pooling-norm.md.
 *
 * One output row (a plane, od, oh) at a time, its columns in blocks of OM_WP_BLOCK accumulators: for each real
 * (jd, jh) of the row, each jw, the interior columns (all taps real) as one loop over the columns (what the
 * compiler vectorises), then the border columns with their own real taps. Every accumulator receives its taps in
 * window order (jd, jh, jw increasing), so AveragePool's sum is the sequential sum of the contract whatever the
 * blocking; MaxPool's maximum does not depend on the order at all.
 *
 * MaxPool compares integer keys: a float's bits mapped to a signed integer whose order is the float order with
 * -0 below +0 (bits ^ (sign ? 0x7F..F : 0)), a NaN mapped to the type's largest key, so the key maximum is the
 * contract's maximum (NaN if any NaN; +0 above -0) and decodes back to the element's bits (a NaN to the canonical
 * quiet NaN). int8 and uint8 are their own keys. AveragePool adds in the accumulation type (f32 for f16 and f32,
 * f64 for f64), each step one IEEE operation, so one plain C build serves every kernel path; a NaN result is the
 * canonical quiet NaN.
 */
#include "window_pool.h"

#include <stdint.h>

#include "core/om_types.h"
#include "math/om_half.h"

#define OM_WP_BLOCK 256 /* output columns per block of accumulators */

int om_wpool_max_supported(int t) {
  return t == OM_T_FLOAT || t == OM_T_DOUBLE || t == OM_T_FLOAT16 || t == OM_T_INT8 || t == OM_T_UINT8;
}

int om_wpool_avg_supported(int t) { return t == OM_T_FLOAT || t == OM_T_DOUBLE || t == OM_T_FLOAT16; }

/* The real taps of output o on axis a: j in [*lo, *hi) (lo == hi: none). */
static void om_wp_taps(const om_wpool_geom* g, int a, size_t o, size_t* lo, size_t* hi) {
  int64_t start = (int64_t)(o * g->stride[a]) - (int64_t)g->pad_begin[a], dil = (int64_t)g->dilation[a];
  int64_t room = (int64_t)g->in[a] - start, l = start < 0 ? (-start + dil - 1) / dil : 0;
  int64_t h = room <= 0 ? 0 : (room + dil - 1) / dil;
  if (h > (int64_t)g->kernel[a]) h = (int64_t)g->kernel[a];
  if (l > h) l = h;
  *lo = (size_t)l;
  *hi = (size_t)h;
}

/* The taps of output o on axis a in the padded range (they are j = 0, 1, ...: the first tap is never before
 * -pad_begin). */
static size_t om_wp_padded(const om_wpool_geom* g, int a, size_t o) {
  int64_t start = (int64_t)(o * g->stride[a]) - (int64_t)g->pad_begin[a], dil = (int64_t)g->dilation[a];
  int64_t room = (int64_t)(g->in[a] + g->pad_end[a]) - start, n = room <= 0 ? 0 : (room + dil - 1) / dil;
  return n > (int64_t)g->kernel[a] ? g->kernel[a] : (size_t)n;
}

/* The columns [*lo, *hi) whose taps are all real (ow s >= pad_begin, ow s - pad_begin + (K - 1) d < W). */
static void om_wp_interior(const om_wpool_geom* g, size_t* lo, size_t* hi) {
  size_t s = g->stride[2], b = g->pad_begin[2], span = (g->kernel[2] - 1) * g->dilation[2];
  size_t l = (b + s - 1) / s, h = g->in[2] + b >= span + 1 ? (g->in[2] - 1 + b - span) / s + 1 : 0;
  if (h > g->out[2]) h = g->out[2];
  if (l > h) l = h;
  *lo = l;
  *hi = h;
}

/* Row r's plane and (od, oh), with the real taps of od and oh. */
typedef struct om_wp_row {
  size_t plane, od, oh, dlo, dhi, hlo, hhi;
} om_wp_row;

static om_wp_row om_wp_row_of(const om_wpool_geom* g, size_t r) {
  om_wp_row w;
  size_t per_plane = g->out[0] * g->out[1], rest = r % per_plane;
  w.plane = r / per_plane;
  w.od = rest / g->out[1];
  w.oh = rest % g->out[1];
  om_wp_taps(g, 0, w.od, &w.dlo, &w.dhi);
  om_wp_taps(g, 1, w.oh, &w.hlo, &w.hhi);
  return w;
}

/* The input row (pd, ph) of tap (jd, jh) of row w, as an offset into its plane. */
static size_t om_wp_in_row(const om_wpool_geom* g, const om_wp_row* w, size_t jd, size_t jh) {
  size_t pd = w->od * g->stride[0] + jd * g->dilation[0] - g->pad_begin[0];
  size_t ph = w->oh * g->stride[1] + jh * g->dilation[1] - g->pad_begin[1];
  return (pd * g->in[1] + ph) * g->in[2];
}

/* The rows loop of both pools, for element type T and accumulator type AT: INIT the accumulators' start,
 * ACC(acc, v) takes the element v, FINISH(w, ow, acc) writes yr[ow]. */
#define OM_WP_ROWS(NAME, T, AT, INIT, ACC, FINISH, ...)                                                          \
  static void NAME(const om_wpool_geom* g, const T* x, T* y, size_t r0, size_t r1, ##__VA_ARGS__) {             \
    size_t W = g->in[2], OW = g->out[2], s = g->stride[2], dil = g->dilation[2], K = g->kernel[2];              \
    size_t b = g->pad_begin[2], plane_in = g->in[0] * g->in[1] * W, ilo, ihi;                                   \
    om_wp_interior(g, &ilo, &ihi);                                                                              \
    AT acc[OM_WP_BLOCK];                                                                                        \
    for (size_t r = r0; r < r1; r++) {                                                                          \
      om_wp_row w = om_wp_row_of(g, r);                                                                         \
      const T* xp = x + w.plane * plane_in;                                                                     \
      T* yr = y + r * OW;                                                                                       \
      for (size_t o0 = 0; o0 < OW; o0 += OM_WP_BLOCK) {                                                         \
        size_t o1 = OW - o0 < OM_WP_BLOCK ? OW : o0 + OM_WP_BLOCK;                                              \
        size_t a0 = ilo < o0 ? o0 : ilo > o1 ? o1 : ilo, a1 = ihi < a0 ? a0 : ihi > o1 ? o1 : ihi;              \
        size_t border[2][2] = {{o0, a0}, {a1, o1}}; /* the columns before and after the interior */           \
        AT* ac = acc - o0;                                                                                      \
        for (size_t ow = o0; ow < o1; ow++) ac[ow] = INIT;                                                      \
        for (size_t jd = w.dlo; jd < w.dhi; jd++)                                                               \
          for (size_t jh = w.hlo; jh < w.hhi; jh++) {                                                           \
            const T* row = xp + om_wp_in_row(g, &w, jd, jh);                                                    \
            for (size_t jw = 0; jw < K; jw++) /* a0 s >= b: the interior's taps are in the row */              \
              for (size_t ow = a0; ow < a1; ow++) ACC(ac[ow], row[ow * s + jw * dil - b]);                      \
            for (int q = 0; q < 2; q++)                                                                         \
              for (size_t ow = border[q][0]; ow < border[q][1]; ow++) {                                         \
                size_t wlo, whi;                                                                                \
                om_wp_taps(g, 2, ow, &wlo, &whi);                                                               \
                for (size_t jw = wlo; jw < whi; jw++) ACC(ac[ow], row[ow * s + jw * dil - b]);                  \
              }                                                                                                 \
          }                                                                                                     \
        for (size_t ow = o0; ow < o1; ow++) FINISH(w, ow, ac[ow]);                                              \
      }                                                                                                         \
    }                                                                                                           \
  }

/* ---- MaxPool ------------------------------------------------------------------------------------------------ */
static inline int16_t om_wp_key16(uint16_t v) {
  int16_t k = (int16_t)v;
  return (v & 0x7FFFu) > 0x7C00u ? INT16_MAX : (int16_t)(k ^ ((k >> 15) & 0x7FFF));
}
static inline uint16_t om_wp_bits16(int16_t k) {
  return k == INT16_MAX ? 0x7E00u : (uint16_t)(k ^ ((k >> 15) & 0x7FFF));
}
static inline int32_t om_wp_key32(uint32_t v) {
  int32_t k = (int32_t)v;
  return (v & 0x7FFFFFFFu) > 0x7F800000u ? INT32_MAX : k ^ ((k >> 31) & 0x7FFFFFFF);
}
static inline uint32_t om_wp_bits32(int32_t k) {
  return k == INT32_MAX ? 0x7FC00000u : (uint32_t)(k ^ ((k >> 31) & 0x7FFFFFFF));
}
static inline int64_t om_wp_key64(uint64_t v) {
  int64_t k = (int64_t)v;
  return (v & 0x7FFFFFFFFFFFFFFFu) > 0x7FF0000000000000u ? INT64_MAX : k ^ ((k >> 63) & 0x7FFFFFFFFFFFFFFF);
}
static inline uint64_t om_wp_bits64(int64_t k) {
  return k == INT64_MAX ? 0x7FF8000000000000u : (uint64_t)(k ^ ((k >> 63) & 0x7FFFFFFFFFFFFFFF));
}
static inline int8_t om_wp_keyi8(int8_t v) { return v; }
static inline uint8_t om_wp_keyu8(uint8_t v) { return v; }

#define OM_WP_MAXOP(acc, v, KEY) \
  do {                           \
    __typeof__(acc) k_ = KEY(v); \
    if (k_ > (acc)) (acc) = k_;  \
  } while (0)

#define OM_WP_ACC_F16(acc, v) OM_WP_MAXOP(acc, v, om_wp_key16)
#define OM_WP_ACC_F32(acc, v) OM_WP_MAXOP(acc, v, om_wp_key32)
#define OM_WP_ACC_F64(acc, v) OM_WP_MAXOP(acc, v, om_wp_key64)
#define OM_WP_ACC_I8(acc, v) OM_WP_MAXOP(acc, v, om_wp_keyi8)
#define OM_WP_ACC_U8(acc, v) OM_WP_MAXOP(acc, v, om_wp_keyu8)
#define OM_WP_FIN_F16(w, ow, acc) yr[ow] = om_wp_bits16(acc)
#define OM_WP_FIN_F32(w, ow, acc) yr[ow] = om_wp_bits32(acc)
#define OM_WP_FIN_F64(w, ow, acc) yr[ow] = om_wp_bits64(acc)
#define OM_WP_FIN_INT(w, ow, acc) yr[ow] = (acc)

/* -inf's keys (an empty window), the integer types' least values */
OM_WP_ROWS(om_wp_max_f16, uint16_t, int16_t, om_wp_key16(0xFC00u), OM_WP_ACC_F16, OM_WP_FIN_F16)
OM_WP_ROWS(om_wp_max_f32, uint32_t, int32_t, om_wp_key32(0xFF800000u), OM_WP_ACC_F32, OM_WP_FIN_F32)
OM_WP_ROWS(om_wp_max_f64, uint64_t, int64_t, om_wp_key64(0xFFF0000000000000u), OM_WP_ACC_F64, OM_WP_FIN_F64)
OM_WP_ROWS(om_wp_max_i8, int8_t, int8_t, INT8_MIN, OM_WP_ACC_I8, OM_WP_FIN_INT)
OM_WP_ROWS(om_wp_max_u8, uint8_t, uint8_t, 0, OM_WP_ACC_U8, OM_WP_FIN_INT)

/* Indices: per output element, the first real tap in window order whose key is the maximum (the strict `>` keeps
 * the first), its flat index; -1 for a window without real taps. */
#define OM_WP_ARGMAX(NAME, T, KT, KEY)                                                                          \
  static void NAME(const om_wpool_geom* g, const T* x, int64_t* idx, int col_major, size_t r0, size_t r1) {      \
    size_t D = g->in[0], H = g->in[1], W = g->in[2], OW = g->out[2], plane_in = D * H * W;                     \
    for (size_t r = r0; r < r1; r++) {                                                                          \
      om_wp_row w = om_wp_row_of(g, r);                                                                         \
      const T* xp = x + w.plane * plane_in;                                                                     \
      for (size_t ow = 0; ow < OW; ow++) {                                                                      \
        size_t wlo, whi;                                                                                        \
        om_wp_taps(g, 2, ow, &wlo, &whi);                                                                       \
        int64_t best_at = -1;                                                                                   \
        KT best = 0;                                                                                            \
        for (size_t jd = w.dlo; jd < w.dhi; jd++)                                                               \
          for (size_t jh = w.hlo; jh < w.hhi; jh++) {                                                           \
            size_t pd = w.od * g->stride[0] + jd * g->dilation[0] - g->pad_begin[0];                            \
            size_t ph = w.oh * g->stride[1] + jh * g->dilation[1] - g->pad_begin[1];                            \
            for (size_t jw = wlo; jw < whi; jw++) {                                                             \
              size_t pw = ow * g->stride[2] + jw * g->dilation[2] - g->pad_begin[2];                            \
              KT k = KEY(xp[(pd * H + ph) * W + pw]);                                                           \
              if (best_at < 0 || k > best) {                                                                    \
                best = k;                                                                                       \
                best_at = (int64_t)(col_major ? pd + ph * D + pw * D * H : (pd * H + ph) * W + pw);             \
              }                                                                                                 \
            }                                                                                                   \
          }                                                                                                     \
        idx[r * OW + ow] = best_at < 0 ? -1 : (int64_t)(w.plane * plane_in) + best_at;                         \
      }                                                                                                         \
    }                                                                                                           \
  }

OM_WP_ARGMAX(om_wp_arg_f16, uint16_t, int16_t, om_wp_key16)
OM_WP_ARGMAX(om_wp_arg_f32, uint32_t, int32_t, om_wp_key32)
OM_WP_ARGMAX(om_wp_arg_f64, uint64_t, int64_t, om_wp_key64)
OM_WP_ARGMAX(om_wp_arg_i8, int8_t, int8_t, om_wp_keyi8)
OM_WP_ARGMAX(om_wp_arg_u8, uint8_t, uint8_t, om_wp_keyu8)

void om_wpool_max_rows(int t, const om_wpool_geom* g, const void* x, void* y, int64_t* idx, int col_major,
                       size_t r0, size_t r1) {
  switch (t) {
    case OM_T_FLOAT16:
      if (y) om_wp_max_f16(g, x, y, r0, r1);
      if (idx) om_wp_arg_f16(g, x, idx, col_major, r0, r1);
      break;
    case OM_T_FLOAT:
      if (y) om_wp_max_f32(g, x, y, r0, r1);
      if (idx) om_wp_arg_f32(g, x, idx, col_major, r0, r1);
      break;
    case OM_T_DOUBLE:
      if (y) om_wp_max_f64(g, x, y, r0, r1);
      if (idx) om_wp_arg_f64(g, x, idx, col_major, r0, r1);
      break;
    case OM_T_INT8:
      if (y) om_wp_max_i8(g, x, y, r0, r1);
      if (idx) om_wp_arg_i8(g, x, idx, col_major, r0, r1);
      break;
    default:
      if (y) om_wp_max_u8(g, x, y, r0, r1);
      if (idx) om_wp_arg_u8(g, x, idx, col_major, r0, r1);
      break;
  }
}

/* ---- AveragePool -------------------------------------------------------------------------------------------- */
/* The divisor of column ow of row w: the product of the three axes' counts. */
static size_t om_wp_count(const om_wpool_geom* g, const om_wp_row* w, size_t ow, int cip) {
  if (cip) return om_wp_padded(g, 0, w->od) * om_wp_padded(g, 1, w->oh) * om_wp_padded(g, 2, ow);
  size_t wlo, whi;
  om_wp_taps(g, 2, ow, &wlo, &whi);
  return (w->dhi - w->dlo) * (w->hhi - w->hlo) * (whi - wlo);
}

#define OM_WP_ADD(acc, v) (acc) = (acc) + (v)
#define OM_WP_ADD_F16(acc, v) (acc) = (acc) + om_f16_to_f32(v)
#define OM_WP_FIN_AVG(w, ow, acc)                                 \
  do {                                                            \
    __typeof__(acc) q_ = (acc) / (__typeof__(acc))om_wp_count(g, &(w), ow, cip); \
    yr[ow] = q_ != q_ ? (__typeof__(acc))__builtin_nan("") : q_;  \
  } while (0)
#define OM_WP_FIN_AVG16(w, ow, acc)                                            \
  do {                                                                         \
    float q_ = (acc) / (float)om_wp_count(g, &(w), ow, cip);                   \
    yr[ow] = q_ != q_ ? (uint16_t)0x7E00u : om_f32_to_f16(q_);                 \
  } while (0)

OM_WP_ROWS(om_wp_avg_f32, float, float, 0.0f, OM_WP_ADD, OM_WP_FIN_AVG, int cip)
OM_WP_ROWS(om_wp_avg_f64, double, double, 0.0, OM_WP_ADD, OM_WP_FIN_AVG, int cip)
OM_WP_ROWS(om_wp_avg_f16, uint16_t, float, 0.0f, OM_WP_ADD_F16, OM_WP_FIN_AVG16, int cip)

void om_wpool_avg_rows(int t, const om_wpool_geom* g, int count_include_pad, const void* x, void* y, size_t r0,
                       size_t r1) {
  if (t == OM_T_FLOAT) om_wp_avg_f32(g, x, y, r0, r1, count_include_pad);
  else if (t == OM_T_DOUBLE) om_wp_avg_f64(g, x, y, r0, r1, count_include_pad);
  else om_wp_avg_f16(g, x, y, r0, r1, count_include_pad);
}
