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
   * zero points 0. y of element type out_type (OM_T_UINT8, OM_T_INT8, OM_T_UINT16, OM_T_INT16). */
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

/* The range [*lo, *hi] of integer element type t (OM_T_UINT8 ... OM_T_INT16); 0, or -1 for another type. */
int om_qdq_range(int t, int32_t* lo, int32_t* hi);

#endif
