/* resize_filter.c - Resize's filter taps (resize.h; the contract: docs/resize.md, "cubic" and "antialias"): the
 * weights of mode cubic (Keys' kernel on the 4 nearest input indices) and of antialias (linear or cubic,
 * the kernel stretched by 1 / scale when downsampling, normalised by its sum), and the row kernels that sum
 * taps. Every weight is binary32 arithmetic in the order written below (stock ORT's expressions), so it depends
 * only on the axis's lengths, scale and attributes; one scalar body serves every kernel path. */
#include "resize.h"

/* Taps wider than this are refused (the node's run-time error): 2^20 input elements per output element. */
#define OM_RS_MAX_WINDOW ((size_t)1 << 20)

static float om_rs_ceil_f(float x) {
  float t = om_resize_floor(x);
  return t < x ? t + 1.0f : t;
}

/* The antialias kernel's half width and argument scale along an axis of scale s (docs/resize.md). */
static void om_rs_support(int cubic, float s, float* support, float* inv) {
  float scale = 1.0f / s;
  float half = (cubic ? 4.0f : 2.0f) * 0.5f;
  *support = scale >= 1.0f ? half * scale : half;
  *inv = scale >= 1.0f ? 1.0f / scale : 1.0f;
}

size_t om_resize_filter_width(int cubic, int antialias, float s) {
  if (!antialias) return 4;
  float support, inv;
  om_rs_support(cubic, s, &support, &inv);
  if (!(support <= (float)(OM_RS_MAX_WINDOW / 2 - 1))) return 0; /* NaN and infinity too */
  return (size_t)om_rs_ceil_f(support) * 2 + 1;
}

/* The antialias kernels (stock ORT's and Pillow's expressions). */
static float om_rs_aa_kernel(int cubic, float a, float x) {
  if (x < 0.0f) x = -x;
  if (!cubic) return x < 1.0f ? 1.0f - x : 0.0f;
  if (x < 1.0f) return ((a + 2.0f) * x - (a + 3.0f)) * x * x + 1.0f;
  if (x < 2.0f) return (((x - 5.0f) * x + 8.0f) * x - 4.0f) * a;
  return 0.0f;
}

/* Writes the taps of w[0 .. n) at input indices idx[0 .. n) to f's row i, those of weight exactly 0 left out. */
static void om_rs_emit(const om_resize_filter* f, int64_t i, const int64_t* idx, const float* w, size_t n) {
  size_t row = (size_t)i * f->k;
  uint32_t m = 0;
  for (size_t t = 0; t < n; t++) {
    if (w[t] == 0.0f) continue;
    f->idx[row + m] = idx[t];
    f->w[row + m] = w[t];
    m++;
  }
  f->n[i] = m;
}

static int64_t om_rs_clamp(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : v > hi ? hi : v; }

/* Mode cubic without antialias: the 4 taps floor(xs) - 1 .. floor(xs) + 2 (docs/resize.md). */
static void om_rs_cubic(int exclude, float a, float xs, int64_t len, const om_resize_filter* f, int64_t i) {
  float n = om_resize_floor(xs), s = xs - n;
  float p = s + 1.0f, q = 1.0f - s, r = 2.0f - s;
  float c[4];
  c[0] = ((a * p - 5.0f * a) * p + 8.0f * a) * p - 4.0f * a;
  c[1] = ((a + 2.0f) * s - (a + 3.0f)) * s * s + 1.0f;
  c[2] = ((a + 2.0f) * q - (a + 3.0f)) * q * q + 1.0f;
  c[3] = ((a * r - 5.0f * a) * r + 8.0f * a) * r - 4.0f * a;
  int64_t idx[4], first = (int64_t)n - 1;
  float sum = 0.0f;
  for (int t = 0; t < 4; t++) {
    int64_t v = first + t;
    if (exclude && (v < 0 || v >= len)) c[t] = 0.0f;
    sum += c[t];
    idx[t] = om_rs_clamp(v, 0, len - 1);
  }
  if (exclude)
    for (int t = 0; t < 4; t++) c[t] = c[t] / sum;
  om_rs_emit(f, i, idx, c, 4);
}

/* antialias: the kernel over the window around xs + 0.5, the taps outside the input folded onto the edge
 * (exclude 0) or dropped (exclude 1), then normalised by the sum (docs/resize.md). */
static void om_rs_antialias(int cubic, int exclude, float a, float xs, float s, int64_t len,
                            const om_resize_filter* f, int64_t i) {
  float support, inv;
  om_rs_support(cubic, s, &support, &inv);
  int64_t window = (int64_t)f->k;
  float center = 0.5f + xs;
  int64_t lo = (int64_t)om_resize_floor(center - support + 0.5f);
  int64_t hi = (int64_t)om_resize_floor(center + support + 0.5f);
  hi = lo + om_rs_clamp(hi - lo, 0, window);
  int64_t lo_cut = om_rs_clamp(lo, 0, len), hi_cut = om_rs_clamp(hi, 0, len);
  if (exclude) {
    lo = lo_cut;
    hi = hi_cut;
  }
  /* f's row i as scratch: weights at w, their indices at idx */
  size_t row = (size_t)i * f->k;
  float* w = f->w + row;
  int64_t* idx = f->idx + row;
  int64_t count = hi - lo;
  float total = 0.0f;
  for (int64_t x = 0; x < count; x++) {
    w[x] = om_rs_aa_kernel(cubic, a, ((float)(lo + x) - center + 0.5f) * inv);
    total += w[x];
  }
  int64_t taps = hi_cut - lo_cut;
  if (!exclude && taps > 0) {
    int64_t neg = om_rs_clamp(-lo, 0, count - 1), over = om_rs_clamp(hi - len, 0, count - 1);
    for (int64_t x = 0; x < neg; x++) w[neg] += w[x];
    for (int64_t x = count - over; x < count; x++) w[count - over - 1] += w[x];
    for (int64_t x = 0; neg > 0 && x < taps; x++) w[x] = w[x + neg];
  }
  float scale = total == 0.0f ? 1.0f : 1.0f / total;
  for (int64_t x = 0; x < taps; x++) {
    w[x] = w[x] * scale;
    idx[x] = lo_cut + x;
  }
  om_rs_emit(f, i, idx, w, taps > 0 ? (size_t)taps : 0); /* in place: it only moves entries down */
}

void om_resize_filter_taps(int cubic, int antialias, int exclude, float a, float xs, float s, int64_t len_in,
                           const om_resize_filter* f, int64_t i) {
  if (antialias) om_rs_antialias(cubic, exclude, a, xs, s, len_in, f, i);
  else om_rs_cubic(exclude, a, xs, len_in, f, i);
}

void om_resize_filter_row_f32(float* dst, const float* src, const om_resize_filter* f, size_t n) {
  for (size_t j = 0; j < n; j++) {
    const int64_t* idx = f->idx + j * f->k;
    const float* w = f->w + j * f->k;
    uint32_t m = f->n[j];
    if (m == 0) {
      dst[j] = 0.0f;
      continue;
    }
    if (m == 1 && w[0] == 1.0f) { /* the element itself, bits kept */
      dst[j] = src[idx[0]];
      continue;
    }
    float v = src[idx[0]] * w[0];
    for (uint32_t t = 1; t < m; t++) v = v + src[idx[t]] * w[t];
    dst[j] = v != v ? __builtin_nanf("") : v; /* a NaN result: the canonical NaN (docs/resize.md) */
  }
}

void om_resize_accumulate_f32(float* dst, const float* v, float w, int first, size_t n) {
  if (first)
    for (size_t j = 0; j < n; j++) dst[j] = v[j] * w;
  else
    for (size_t j = 0; j < n; j++) dst[j] = dst[j] + v[j] * w;
}

void om_resize_canonical_nan_f32(float* x, size_t n) {
  for (size_t j = 0; j < n; j++)
    if (x[j] != x[j]) x[j] = __builtin_nanf("");
}
