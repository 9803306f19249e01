/* resize.c - the arithmetic of Resize and Upsample (resize.h; the contract: docs/resize.md). */
#include "resize.h"

#include <string.h>

#include "onemodel.h"

/* The names of the string attributes, each list in its enum's order from 1 (resize.h). */
static const char* const om_rs_modes[] = {"nearest", "linear", "cubic", NULL};
static const char* const om_rs_coords[] = {"half_pixel",   "half_pixel_symmetric", "pytorch_half_pixel",
                                           "align_corners", "asymmetric",          "tf_half_pixel_for_nn",
                                           "tf_crop_and_resize", NULL};
static const char* const om_rs_nearest[] = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil", NULL};
static const char* const om_rs_aspect[] = {"stretch", "not_larger", "not_smaller", NULL};

int om_resize_attr_code(const char* attr, const char* value) {
  const char* const* names = strcmp(attr, "mode") == 0 ? om_rs_modes
                             : strcmp(attr, "coordinate_transformation_mode") == 0 ? om_rs_coords
                             : strcmp(attr, "nearest_mode") == 0 ? om_rs_nearest
                             : strcmp(attr, "keep_aspect_ratio_policy") == 0 ? om_rs_aspect
                                                                             : NULL;
  if (!names) return 0;
  for (int q = 0; names[q]; q++)
    if (strcmp(value, names[q]) == 0) return q + 1;
  return -1;
}

/* floor and ceil of a binary32 below 2^24 in magnitude, exactly, without libm. */
float om_resize_floor(float x) {
  float t = (float)(int64_t)x; /* toward zero, exact */
  return t > x ? t - 1.0f : t;
}
static float om_rs_ceil(float x) {
  float t = (float)(int64_t)x;
  return t < x ? t + 1.0f : t;
}

float om_resize_source(int coord, int64_t i, int64_t len_in, int64_t len_out, float s) {
  const float x = (float)i, lf = (float)len_in, lo = (float)len_out;
  switch (coord) {
    case OM_RESIZE_HALF_PIXEL_SYMMETRIC: {
      float adj = lo / (s * lf);
      float off = (lf / 2.0f) * (1.0f - adj);
      /* the rest in binary64, rounded once to binary32 at the end (as stock ORT) */
      return (float)(((double)off + ((double)x + 0.5) / (double)s) - 0.5);
    }
    case OM_RESIZE_PYTORCH_HALF_PIXEL: return len_out > 1 ? ((x + 0.5f) / s) - 0.5f : 0.0f;
    case OM_RESIZE_ALIGN_CORNERS: return len_out == 1 ? 0.0f : (x * (float)(len_in - 1)) / (float)(len_out - 1);
    case OM_RESIZE_ASYMMETRIC: return x / s;
    default: return ((x + 0.5f) / s) - 0.5f; /* half_pixel */
  }
}

int64_t om_resize_nearest(int nearest, float xs, float s, int64_t len_in) {
  if (!(xs > 0.0f)) return 0; /* NaN too (it cannot occur for a node's finite positive scales) */
  if (xs >= (float)(len_in - 1)) return len_in - 1;
  float n = om_resize_floor(xs), r = xs - n, q;
  switch (nearest) {
    case OM_RESIZE_ROUND_PREFER_CEIL: q = r >= 0.5f ? n + 1.0f : n; break;
    case OM_RESIZE_FLOOR: q = n; break;
    case OM_RESIZE_CEIL: q = om_rs_ceil(xs); break;
    case OM_RESIZE_SIMPLE: q = s < 1.0f ? om_rs_ceil(xs) : n; break; /* xs > 0: trunc is floor */
    default: q = r > 0.5f ? n + 1.0f : n; break; /* round_prefer_floor */
  }
  int64_t k = (int64_t)q;
  return k < 0 ? 0 : k > len_in - 1 ? len_in - 1 : k;
}

void om_resize_linear_tap(float xs, int64_t len_in, om_resize_tap* tap) {
  float hi = (float)(len_in - 1);
  float xc = xs > 0.0f ? xs : 0.0f; /* NaN too */
  xc = xc > hi ? hi : xc;
  float n = om_resize_floor(xc), t = xc - n;
  tap->i0 = (int64_t)n;
  tap->i1 = tap->i0 + 1 < len_in ? tap->i0 + 1 : len_in - 1;
  tap->w0 = 1.0f - t;
  tap->w1 = t;
  tap->one = t == 0.0f;
}

void om_resize_gather(void* dst, const void* src, const int64_t* off, size_t n, size_t esz) {
  switch (esz) {
    case 1: {
      uint8_t* d = dst;
      const uint8_t* s = src;
      for (size_t j = 0; j < n; j++) d[j] = s[off[j]];
      break;
    }
    case 2: {
      uint16_t* d = dst;
      const uint16_t* s = src;
      for (size_t j = 0; j < n; j++) d[j] = s[off[j]];
      break;
    }
    case 4: {
      uint32_t* d = dst;
      const uint32_t* s = src;
      for (size_t j = 0; j < n; j++) d[j] = s[off[j]];
      break;
    }
    default: {
      uint64_t* d = dst;
      const uint64_t* s = src;
      for (size_t j = 0; j < n; j++) d[j] = s[off[j]];
      break;
    }
  }
}

void om_resize_linear_row_f32(float* dst, const float* src, const om_resize_tap* taps, size_t n) {
  for (size_t j = 0; j < n; j++) {
    const om_resize_tap* t = &taps[j];
    float a = src[t->i0];
    if (t->one) {
      dst[j] = a;
      continue;
    }
    float v = a * t->w0 + src[t->i1] * t->w1;
    dst[j] = v != v ? __builtin_nanf("") : v; /* a NaN result: the canonical NaN (docs/resize.md) */
  }
}

void om_resize_blend_f32(float* dst, const float* a, float w0, const float* b, float w1, size_t n) {
  for (size_t j = 0; j < n; j++) {
    float v = a[j] * w0 + b[j] * w1;
    dst[j] = v != v ? __builtin_nanf("") : v; /* a NaN result: the canonical NaN (docs/resize.md) */
  }
}
