/* qoutput.c - the float step after the exact int32 product (qoutput.h; docs/quantized-matmul.md). Blocks of
 * OM_QOUT_BLOCK elements go through a local buffer, so that the loops see no aliasing (acc and y may be one
 * buffer) and vectorise under the baseline target; each element's operations are the same in any lane. */
#include "qoutput.h"

#include <string.h>

#include "isa/isa.h"
#include "isa/target.h"

#define OM_QOUT_BLOCK 256

om_qout_requantize_fn om_qout_requantize_512, om_qout_requantize_256, om_qout_requantize_128;

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

/* The baseline build of the requantisation (qoutput_body.inc); the paths' builds: qoutput_<path>.c. */
#define OM_QOUT_SYM baseline
#include "qoutput_body.inc"

void om_qout_requantize(const int32_t* acc, size_t n, const float* m, size_t ms, int32_t zp, int y_signed,
                        void* y) {
  om_qout_requantize_baseline(acc, n, m, ms, zp, y_signed, y);
}

om_qout_requantize_fn* om_qout_requantize_of(int path) {
  switch (path) {
#if OM_ISA_X86
    case OM_PATH_512: return om_qout_requantize_512;
    case OM_PATH_256: return om_qout_requantize_256;
#endif
#if OM_ISA_X86 || OM_ISA_NEON
    case OM_PATH_128: return om_qout_requantize_128;
#endif
    default: return om_qout_requantize_baseline;
  }
}
