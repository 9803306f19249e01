/* qoutput.c - the float step after the exact int32 product (qoutput.h; docs/quantized-matmul.md). Blocks of
 * OM_QOUT_BLOCK elements go through a local buffer, so that the loops see no aliasing (acc and y may be one
 * buffer) and vectorise under the baseline target; each element's operations are the same in any lane. */
#include "qoutput.h"

#include <string.h>

#define OM_QOUT_BLOCK 256

void om_qout_multipliers(float a_scale, const float* b_scale, size_t bs, const float* y_scale, size_t n, float* m) {
  for (size_t j = 0; j < n; j++) {
    float p = a_scale * b_scale[j * bs]; /* one binary32 rounding (FLT_EVAL_METHOD 0) */
    m[j] = y_scale ? p / *y_scale : p;
  }
}

static float om_qout_canonical(float v) {
  if (v == v) return v;
  const uint32_t qnan = 0x7FC00000u;
  memcpy(&v, &qnan, sizeof v);
  return v;
}

void om_qout_to_float(const int32_t* acc, size_t n, const float* m, size_t ms, const float* bias, size_t bs,
                      float* y) {
  float tmp[OM_QOUT_BLOCK];
  for (size_t j0 = 0; j0 < n; j0 += OM_QOUT_BLOCK) {
    size_t len = n - j0 < OM_QOUT_BLOCK ? n - j0 : OM_QOUT_BLOCK;
    const int32_t* a = acc + j0;
    if (ms) {
      const float* mm = m + j0;
      for (size_t j = 0; j < len; j++) tmp[j] = (float)a[j] * mm[j];
    } else {
      const float m0 = m[0];
      for (size_t j = 0; j < len; j++) tmp[j] = (float)a[j] * m0;
    }
    if (bias && bs) {
      const float* b = bias + j0;
      for (size_t j = 0; j < len; j++) tmp[j] = tmp[j] + b[j];
    } else if (bias) {
      const float b0 = bias[0];
      for (size_t j = 0; j < len; j++) tmp[j] = tmp[j] + b0;
    }
    int nan = 0;
    for (size_t j = 0; j < len; j++) nan |= tmp[j] != tmp[j];
    if (nan)
      for (size_t j = 0; j < len; j++) tmp[j] = om_qout_canonical(tmp[j]);
    memcpy(y + j0, tmp, len * sizeof *tmp);
  }
}

void om_qout_requantize(const int32_t* acc, size_t n, const float* m, size_t ms, int32_t zp, int y_signed,
                        void* y) {
  const int32_t qmin = y_signed ? -128 : 0, qmax = y_signed ? 127 : 255;
  const float lo = (float)(qmin - zp), hi = (float)(qmax - zp);
  const float magic = 12582912.0f; /* 1.5 * 2^23: (c + magic) - magic rounds |c| < 2^22 half to even */
  float tmp[OM_QOUT_BLOCK];
  for (size_t j0 = 0; j0 < n; j0 += OM_QOUT_BLOCK) {
    size_t len = n - j0 < OM_QOUT_BLOCK ? n - j0 : OM_QOUT_BLOCK;
    const int32_t* a = acc + j0;
    const float* mm = m + j0 * ms;
#define OM_QOUT_STEP(M_)                                                            \
  for (size_t j = 0; j < len; j++) {                                                \
    float v = (float)a[j] * (M_);                                                   \
    float c = v >= lo ? v : lo; /* a NaN v gives lo */                              \
    c = c <= hi ? c : hi;                                                           \
    tmp[j] = (c + magic) - magic;                                                   \
  }
    if (ms == 1) OM_QOUT_STEP(mm[j]) /* the loops the compiler vectorises: one multiplier, or one a column */
    else if (ms == 0) OM_QOUT_STEP(mm[0])
    else OM_QOUT_STEP(mm[j * ms])
#undef OM_QOUT_STEP
    if (y_signed) {
      int8_t* out = (int8_t*)y + j0;
      for (size_t j = 0; j < len; j++) out[j] = (int8_t)((int32_t)tmp[j] + zp);
    } else {
      uint8_t* out = (uint8_t*)y + j0;
      for (size_t j = 0; j < len; j++) out[j] = (uint8_t)((int32_t)tmp[j] + zp);
    }
  }
}
