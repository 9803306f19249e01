/* lp_power.c - LpPool's element steps (lp_power.h): plain loops, one IEEE operation at a time, and the library's
 * Pow (kernels/pow.h) through the node's kernel tables in exact mode, so every path gives the same bits. */
#include "lp_power.h"

#include "kernels/pow.h"
#include "math/om_bits.h"
#include "math/om_half.h"

#define OM_LP_BLOCK 1024 /* elements per Pow call */

int om_lp_acc_type(int type) { return type == OM_T_DOUBLE ? OM_T_DOUBLE : OM_T_FLOAT; }

void om_lp_power(const om_node* node, int64_t p, const void* x, void* t, size_t n) {
  if (node->type == OM_T_DOUBLE) {
    const double* xd = x;
    double* td = t;
    double e = (double)p;
    if (p >= 3) {
      double a[OM_LP_BLOCK];
      for (size_t i0 = 0; i0 < n; i0 += OM_LP_BLOCK) {
        size_t m = n - i0 < OM_LP_BLOCK ? n - i0 : OM_LP_BLOCK;
        for (size_t i = 0; i < m; i++) a[i] = __builtin_fabs(xd[i0 + i]);
        om_pow_run(OM_T_DOUBLE, OM_T_DOUBLE, 1, a, &e, td + i0, m, 2u, node->wide, node->one);
      }
    } else
      for (size_t i = 0; i < n; i++) td[i] = p == 1 ? __builtin_fabs(xd[i]) : xd[i] * xd[i];
    return;
  }
  float* tf = t;
  float a[OM_LP_BLOCK], e = (float)p;
  for (size_t i0 = 0; i0 < n; i0 += OM_LP_BLOCK) {
    size_t m = n - i0 < OM_LP_BLOCK ? n - i0 : OM_LP_BLOCK;
    if (node->type == OM_T_FLOAT16)
      for (size_t i = 0; i < m; i++) a[i] = om_f16_to_f32(((const uint16_t*)x)[i0 + i]);
    else
      for (size_t i = 0; i < m; i++) a[i] = ((const float*)x)[i0 + i];
    if (p == 2)
      for (size_t i = 0; i < m; i++) tf[i0 + i] = a[i] * a[i];
    else if (p == 1)
      for (size_t i = 0; i < m; i++) tf[i0 + i] = __builtin_fabsf(a[i]);
    else {
      for (size_t i = 0; i < m; i++) a[i] = __builtin_fabsf(a[i]);
      om_pow_run(OM_T_FLOAT, OM_T_FLOAT, 1, a, &e, tf + i0, m, 2u, node->wide, node->one);
    }
  }
}

void om_lp_root(const om_node* node, int64_t p, const void* s, void* y, size_t n) {
  if (node->type == OM_T_DOUBLE) {
    const double* sd = s;
    double* yd = y;
    double r = 1.0 / (double)p;
    if (p >= 3) om_pow_run(OM_T_DOUBLE, OM_T_DOUBLE, 1, sd, &r, yd, n, 2u, node->wide, node->one);
    else
      for (size_t i = 0; i < n; i++) yd[i] = p == 1 ? sd[i] : __builtin_sqrt(sd[i]);
    for (size_t i = 0; i < n; i++)
      if (yd[i] != yd[i]) yd[i] = om_f64_from_bits(0x7FF8000000000000ull);
    return;
  }
  const float* sf = s;
  float b[OM_LP_BLOCK], r = 1.0f / (float)p;
  for (size_t i0 = 0; i0 < n; i0 += OM_LP_BLOCK) {
    size_t m = n - i0 < OM_LP_BLOCK ? n - i0 : OM_LP_BLOCK;
    if (p >= 3) om_pow_run(OM_T_FLOAT, OM_T_FLOAT, 1, sf + i0, &r, b, m, 2u, node->wide, node->one);
    else
      for (size_t i = 0; i < m; i++) b[i] = p == 1 ? sf[i0 + i] : __builtin_sqrtf(sf[i0 + i]);
    if (node->type == OM_T_FLOAT16)
      for (size_t i = 0; i < m; i++) ((uint16_t*)y)[i0 + i] = b[i] != b[i] ? (uint16_t)0x7E00u : om_f32_to_f16(b[i]);
    else
      for (size_t i = 0; i < m; i++) ((float*)y)[i0 + i] = b[i] != b[i] ? om_f32_from_bits(0x7FC00000u) : b[i];
  }
}
