/* qdq_f8.c - QuantizeLinear / DequantizeLinear to and from the float8 types (qdq.h): per element one IEEE binary32
 * division (or multiplication) and math/om_f8.h's exact bit-level conversion. One scalar body for every kernel
 * path: no step combines two elements, and the conversion is integer arithmetic. docs/quantized.md, "float8". */
#include "math/om_f8.h"
#include "qdq.h"

void om_qdq_quantize_f8(const float* x, size_t n, const float* s, size_t ps, int t, int saturate, uint8_t* y) {
  const om_f8_fmt f = om_f8_fmt_of(t);
  for (size_t i = 0; i < n; i++) y[i] = om_f32_to_f8(x[i] / s[i * ps], f, saturate);
}

void om_qdq_dequantize_f8(const uint8_t* x, int t, size_t n, const float* s, size_t ps, float* y) {
  const om_f8_fmt f = om_f8_fmt_of(t);
  for (size_t i = 0; i < n; i++) {
    const float v = om_f8_to_f32(x[i], f) * s[i * ps];
    y[i] = v != v ? om_f32_from_bits(0x7fc00000u) : v;
  }
}
