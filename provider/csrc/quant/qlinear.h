/* qlinear.h - the element kernels of com.microsoft QLinearAdd and QLinearMul (docs/quantized-elementwise.md),
 * and the 256-entry lookup that QLinearSigmoid, QLinearLeakyRelu and QLinearConcat run. Each output element is
 * a fixed sequence of exact integer steps and IEEE binary32 operations on its own operands, so every path's
 * body (qlinear_body.inc, per path in qlinear_<path>.c) gives the same bits. The caller runs them under the
 * IEEE default environment (om_parallel_ieee). Knows nothing of shapes or ORT.
 */
#ifndef OM_QUANT_QLINEAR_H
#define OM_QUANT_QLINEAR_H

#include <stddef.h>
#include <stdint.h>

/* The parameters of one QLinearAdd / QLinearMul node, from its scales and zero points:
 *   Add: ra = fl(a_scale / c_scale), rb = fl(b_scale / c_scale)
 *   Mul: ra = fl(fl(a_scale * b_scale) / c_scale), rb unused
 * za, zb, zc the zero points (0 where absent). */
typedef struct om_qlin_bin {
  float ra, rb;
  int32_t za, zb, zc;
} om_qlin_bin;

typedef struct om_qlin_kern {
  /* c[i] = sat(rne(clamp(fl(fl(fl(a - za) * ra) + fl(fl(b - zb) * rb)))) + zc) for i < n, a[i * sa] and
   * b[i * sb] (sa, sb: 1 element by element, 0 one repeated element); int8 when is_signed, else uint8. */
  void (*add)(const void* a, size_t sa, const void* b, size_t sb, size_t n, const om_qlin_bin* p, int is_signed,
              void* c);
  /* c[i] = sat(rne(clamp(fl(fl((a - za) * (b - zb)) * ra))) + zc), the integer product exact. */
  void (*mul)(const void* a, size_t sa, const void* b, size_t sb, size_t n, const om_qlin_bin* p, int is_signed,
              void* c);
} om_qlin_kern;

/* The kernels of kernel path `path` (isa/isa.h); the scalar ones when out of range. */
const om_qlin_kern* om_qlin_kern_of(int path);

/* y[i] = table[x[i]'s byte] for i < n (8-bit x and y). */
void om_qlin_lookup(const uint8_t* x, size_t n, const uint8_t table[256], uint8_t* y);

#endif
