/* qdq.h - the element kernels of QuantizeLinear, DequantizeLinear and DynamicQuantizeLinear (docs/quantized.md):
 * runs of elements that share a scale and zero point, or take one each. Every step is one IEEE binary32 operation
 * (or exact integer arithmetic), so each path's body (qdq_body.inc, per path in qdq_<path>.c) gives the same bits.
 * The caller runs them under the IEEE default environment (om_parallel_ieee). Knows nothing of shapes or ORT.
 */
#ifndef OM_QUANT_QDQ_H
#define OM_QUANT_QDQ_H

#include <stddef.h>
#include <stdint.h>

typedef struct om_qdq_kern {
  /* y[i] = QuantizeLinear(x[i], s[i * ps], z[i * ps]) for i < n, ps 0 (one scale and zero point) or 1; z NULL:
   * zero points 0. y of element type out_type (OM_T_UINT8, OM_T_INT8, OM_T_UINT16, OM_T_INT16; OM_T_UINT4 and
   * OM_T_INT4 write one byte an element, uint8 / int8, in their range: om_qdq_pack4 packs them). */
  void (*quantize)(const float* x, size_t n, const float* s, const int32_t* z, size_t ps, int out_type, void* y);
  /* y[i] = DequantizeLinear(x[i], s[i * ps], z[i * ps]) for x of element type in_type (OM_T_UINT8, OM_T_INT8,
   * OM_T_UINT16, OM_T_INT16, OM_T_INT32); z NULL: zero points 0. */
  void (*dequantize)(const void* x, int in_type, size_t n, const float* s, const int32_t* z, size_t ps, float* y);
  /* The least and greatest non-NaN element of x[0, n) folded into *mn and *mx (left as they are when every
   * element is NaN; start them at +inf and -inf). */
  void (*minmax)(const float* x, size_t n, float* mn, float* mx);
} om_qdq_kern;

/* The kernels of kernel path `path` (isa/isa.h); the scalar ones when out of range. */
const om_qdq_kern* om_qdq_kern_of(int path);

/* The range [*lo, *hi] of integer element type t (OM_T_UINT8 ... OM_T_INT16, OM_T_UINT4, OM_T_INT4); 0, or -1 for
 * another type. */
int om_qdq_range(int t, int32_t* lo, int32_t* hi);

/* The 4-bit types (ONNX: element k in byte k / 2, the low four bits for even k; an odd count's last byte has
 * its high four bits 0). pack4: the low four bits of v[0, n) into out[0, (n + 1) / 2). unpack4: elements
 * [first, first + n) of p as one byte each, int4 sign-extended (is_signed), uint4 zero-extended. */
void om_qdq_pack4(const uint8_t* v, size_t n, uint8_t* out);
void om_qdq_unpack4(const uint8_t* p, size_t first, size_t n, int is_signed, uint8_t* out);

/* float8 (math/om_f8.h; path-independent, qdq_f8.c): y[i] = float8(x[i] / s[i * ps]) of element type t
 * (OM_T_FLOAT8*), nearest even, saturate as ONNX's; wide: the exact f32 of each code of type t (om_f8_to_f32);
 * y[i] = wide[x[i]] * s[i * ps], a NaN made canonical. */
void om_qdq_quantize_f8(const float* x, size_t n, const float* s, size_t ps, int t, int saturate, uint8_t* y);
void om_qdq_f8_table(int t, float wide[256]);
void om_qdq_dequantize_f8(const uint8_t* x, const float wide[256], size_t n, const float* s, size_t ps, float* y);

#endif
