/* qoutput.h - the float step after an exact int32 matrix product (docs/quantized-matmul.md): one row of acc
 * scaled to float (MatMulIntegerToFloat, DynamicQuantizeMatMul) or requantised to 8 bits (QLinearMatMul). Each
 * output element is a fixed sequence of IEEE binary32 operations on its own acc and its column's parameters, so
 * one plain C body serves every kernel path (no step combines two elements: the vector width cannot change a
 * bit). The caller runs them under the IEEE default environment (om_parallel_ieee). Knows nothing of shapes or ORT.
 */
#ifndef OM_QUANT_QOUTPUT_H
#define OM_QUANT_QOUTPUT_H

#include <stddef.h>
#include <stdint.h>

/* The multipliers: m[j] = fl32(a_scale * b_scale[j * bs]) for j < n, then, when y_scale is not NULL,
 * m[j] = fl32(m[j] / *y_scale). bs 0: one b_scale for every column. */
void om_qout_multipliers(float a_scale, const float* b_scale, size_t bs, const float* y_scale, size_t n, float* m);

/* y[j] = fl32(fl32(acc[j]) * m[j * ms]) (+ bias[j * bs] in one more binary32 addition when bias is not NULL),
 * a NaN written as 0x7FC00000, for j < n. y may be the same memory as acc (in place). */
void om_qout_to_float(const int32_t* acc, size_t n, const float* m, size_t ms, const float* bias, size_t bs,
                      float* y);

/* y[j] = saturate(round_half_even(fl32(fl32(acc[j]) * m[j * ms])) + zp) for j < n, y int8 when y_signed else
 * uint8 (the clamp before the rounding: a NaN gives the least value). */
void om_qout_requantize(const int32_t* acc, size_t n, const float* m, size_t ms, int32_t zp, int y_signed,
                        void* y);
/* The same function built for kernel path `path` (isa/isa.h; the baseline build when out of range): the same
 * bits, the path's vector width. */
typedef void om_qout_requantize_fn(const int32_t* acc, size_t n, const float* m, size_t ms, int32_t zp, int y_signed,
                                   void* y);
om_qout_requantize_fn* om_qout_requantize_of(int path);

#endif
