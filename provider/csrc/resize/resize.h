/* resize.h - the arithmetic of Resize and Upsample (docs/resize.md): the source coordinate of an output index,
 * the nearest source index, the two taps of linear interpolation, and the row kernels the node runs (a gather
 * of elements, a 1-D linear interpolation along a row, a blend of two rows). Every operation is one binary32
 * operation in the order docs/resize.md states, so one scalar body serves every kernel path. Knows nothing of
 * shapes beyond one axis, nor of ORT.
 */
#ifndef OM_RESIZE_H
#define OM_RESIZE_H

#include <stddef.h>
#include <stdint.h>

/* coordinate_transformation_mode, in the order of om_resize_attr_code's names (onemodel.h), from 1 */
enum {
  OM_RESIZE_HALF_PIXEL = 1,
  OM_RESIZE_HALF_PIXEL_SYMMETRIC,
  OM_RESIZE_PYTORCH_HALF_PIXEL,
  OM_RESIZE_ALIGN_CORNERS,
  OM_RESIZE_ASYMMETRIC,
  OM_RESIZE_TF_HALF_PIXEL_FOR_NN,
  OM_RESIZE_TF_CROP_AND_RESIZE
};
/* nearest_mode, likewise, and SIMPLE: opset 10 and Upsample (s < 1 ? ceil : trunc) */
enum { OM_RESIZE_ROUND_PREFER_FLOOR = 1, OM_RESIZE_ROUND_PREFER_CEIL, OM_RESIZE_FLOOR, OM_RESIZE_CEIL,
       OM_RESIZE_SIMPLE };
/* mode */
enum { OM_RESIZE_NEAREST = 1, OM_RESIZE_LINEAR, OM_RESIZE_CUBIC };
/* keep_aspect_ratio_policy */
enum { OM_RESIZE_STRETCH = 1, OM_RESIZE_NOT_LARGER, OM_RESIZE_NOT_SMALLER };

/* The longest axis (input or output) the binary32 coordinates serve exactly: 2^24. */
#define OM_RESIZE_MAX_LEN ((int64_t)1 << 24)

/* The source coordinate xs of output index i along an axis of input length len_in, output length len_out and
 * scale s, for coordinate mode `coord` (one of the first five above). */
float om_resize_source(int coord, int64_t i, int64_t len_in, int64_t len_out, float s);

/* The nearest source index of xs for nearest mode `nearest`, clamped to [0, len_in - 1]. */
int64_t om_resize_nearest(int nearest, float xs, float s, int64_t len_in);

/* One output index's linear taps along an axis: i0 alone (one != 0: t was 0), or i0 * w0 + i1 * w1. */
typedef struct om_resize_tap {
  int64_t i0, i1;
  float w0, w1;
  int one;
} om_resize_tap;

void om_resize_linear_tap(float xs, int64_t len_in, om_resize_tap* tap);

/* floor of a binary32 below 2^24 in magnitude, exactly, without libm. */
float om_resize_floor(float x);

/* The filter taps of one axis (mode cubic, or antialias): output index i takes n[i] taps (at most k), the
 * input index idx[i * k + t] with weight w[i * k + t], summed in t's order (docs/resize.md). */
typedef struct om_resize_filter {
  size_t k;
  int64_t* idx;
  float* w;
  uint32_t* n;
} om_resize_filter;

/* The most taps one output index takes along an axis of scale s: 4 for cubic, the antialias window
 * (2 * ceil(support) + 1) for antialias. */
size_t om_resize_filter_width(int cubic, int antialias, float s);

/* The taps of output index i (source coordinate xs) along an axis of input length len_in (> 0) and scale s,
 * into f's row i: mode cubic (cubic != 0, coefficient a) or linear, antialias or not (not: cubic only),
 * exclude_outside. */
void om_resize_filter_taps(int cubic, int antialias, int exclude, float a, float xs, float s, int64_t len_in,
                           const om_resize_filter* f, int64_t i);

/* dst[j] = the taps of f's row j over src, for j < n (docs/resize.md: one step of the filter). */
void om_resize_filter_row_f32(float* dst, const float* src, const om_resize_filter* f, size_t n);

/* dst[j] = v[j] * w (first) or dst[j] + v[j] * w, for j < n. */
void om_resize_accumulate_f32(float* dst, const float* v, float w, int first, size_t n);

/* Every NaN of x[0 .. n) written as the canonical NaN 0x7fc00000. */
void om_resize_canonical_nan_f32(float* x, size_t n);

/* dst[j] = src[off[j]] for j < n, elements of esz bytes (1, 2, 4 or 8). */
void om_resize_gather(void* dst, const void* src, const int64_t* off, size_t n, size_t esz);

/* dst[j] = src[t.i0] when t.one, else src[t.i0] * t.w0 + src[t.i1] * t.w1 (t = taps[j]), for j < n. */
void om_resize_linear_row_f32(float* dst, const float* src, const om_resize_tap* taps, size_t n);

/* dst[j] = a[j] * w0 + b[j] * w1 for j < n (dst may be a). */
void om_resize_blend_f32(float* dst, const float* a, float w0, const float* b, float w1, size_t n);

#endif
