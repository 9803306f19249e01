/* qdq_f8.c - QuantizeLinear / DequantizeLinear to and from the float8 types (qdq.h): per element one IEEE binary32
 * division (or multiplication) and math/om_f8.h's exact bit-level conversion. One scalar body for every kernel
 * path: no step combines two elements, and the conversion is integer arithmetic. docs/quantized.md, "float8". */
#include "math/om_f8.h"
#include "qdq.h"

void om_qdq_quantize_f8(const float* x, size_t n, const float* s, size_t ps, int t, int saturate, uint8_t* y) {
  const om_f8_fmt f = om_f8_fmt_of(t);
  for (size_t i = 0; i < n; i++) y[i] = om_f32_to_f8(x[i] / s[i * ps], f, saturate);
}

void om_qdq_f8_table(int t, float wide[256]) {
  const om_f8_fmt f = om_f8_fmt_of(t);
  for (unsigned c = 0; c < 256; c++) wide[c] = om_f8_to_f32((uint8_t)c, f);
}

void om_qdq_dequantize_f8(const uint8_t* x, const float wide[256], size_t n, const float* s, size_t ps, float* y) {
  const float qnan = om_f32_from_bits(0x7fc00000u);
  for (size_t i = 0; i < n; i++) {
    const float v = wide[x[i]] * s[i * ps];
    y[i] = v != v ? qnan : v;
  }
}
