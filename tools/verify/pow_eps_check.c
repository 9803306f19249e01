/* c_tool: -lmpfr -lgmp */
/* pow_eps_check.c - checks the error bound of the f32 Pow first pass (math/pow_f32.inc) against MPFR: for each
 * pair it takes the double v the first pass computes and its per-lane bound eps (through the OM_POW_DEBUG hook,
 * scalar path instantiated here) and measures |v - x^y| / (eps v) with x^y from MPFR at 200 bits. The bound
 * is sound on the sample when the largest ratio is below 1. Run: tools/c_tool.py [-DOM_EPS_512] pow_eps_check [pairs]
 * [seed] (-DOM_EPS_512: the 512 path's FMA first pass om_pow_v_fma instead, for its ordinary lanes; others take om_pow_v).
 * Pairs: as tools/verify/pow_verify.c kinds 0-2 (random bases over all binades with exponents aimed at every result
 * magnitude, random exponents over binades, bases next to 1 with large exponents), positive bases. */
#define _GNU_SOURCE
#include <math.h>
#include <mpfr.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double g_v, g_eps;
static int g_settled;
static int g_fma; /* the last evaluation was the FMA pass's (-p 512) */
#define OM_POW_DEBUG(x, y, v, eps, settled) \
  (g_v = (v)[0], g_eps = (eps)[0], g_settled = (int)(settled)[0], g_fma = 0)
#define OM_POW_DEBUG_FMA(x, y, v, eps) (g_v = (v)[0], g_eps = (eps)[0], g_settled = 0, g_fma = 1)
#ifdef OM_EPS_512 /* tools/c_tool.py -DOM_EPS_512 pow_eps_check: the 512 path's FMA first pass (om_pow_v_fma) */
#pragma GCC target("avx512f,avx512bw,avx512dq,avx512vl,avx2,fma,bmi2,f16c,prfchw")
#define OM_VB 64
#else
#define OM_VB 0
#endif
#define OM_FN(name) om_eps_##name
#include "kernels/elementwise.inc"
#include "verify_common.h"

int main(int argc, char** argv) {
  uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 0) : 1000000, seed = argc > 2 ? strtoull(argv[2], NULL, 0) : 1;
  uint64_t s = seed * 0x2545f4914f6cdd1dull;
  mpfr_t mx, my, r, q;
  mpfr_inits2(200, mx, my, r, q, (mpfr_ptr)0);
  double worst = 0, worst_log_eps = 0;
  float wx = 0, wy = 0;
  uint64_t checked = 0, checked_fma = 0;
  double worst_fma = 0;
  for (uint64_t i = 0; i < n; i++) {
    uint64_t a = splitmix(&s), b = splitmix(&s), c = splitmix(&s);
    int kind = (int)(a % 3);
    double t = -155.0 + (double)(b >> 11) * 0x1p-53 * 287.0;
    float x, y;
    if (kind == 1) {
      x = om_f32_from_bits((uint32_t)(1 + (c >> 33) % 0x7f7fffffu));
      y = ldexpf(1.0f + (float)((b >> 40) & 0x7fffff) * 0x1p-23f, (int)((b >> 20) % 41) - 30);
      if (b & 1) y = -y;
    } else {
      if (kind == 2) {
        int k = (int)((c >> 5) % 24);
        uint32_t d = (uint32_t)((c >> 32) & ((1u << k) - 1u)) + 1u;
        x = om_f32_from_bits((c & 1) ? 0x3f800000u + d : 0x3f800000u - d);
      } else {
        x = om_f32_from_bits((uint32_t)(1 + (c >> 33) % 0x7f7fffffu));
      }
      y = (float)(t / log2((double)x));
      if (x == 1.0f) y = (float)t;
    }
    om_vfh xv, yv;
    om_vih fix = {0};
    for (size_t l = 0; l < OM_TR_L; l++) xv[l] = x, yv[l] = y;
#ifdef OM_EPS_512
    (void)om_pow_v_fma(xv, yv, 1, &fix);
#else
    (void)om_pow_v(xv, yv, 1, &fix);
#endif
    if (g_settled || !(g_v > 0) || isinf(g_v)) continue;
    mpfr_set_flt(mx, x, MPFR_RNDN);
    mpfr_set_flt(my, y, MPFR_RNDN);
    mpfr_pow(r, mx, my, MPFR_RNDN);
    mpfr_set_d(q, g_v, MPFR_RNDN);
    mpfr_sub(q, q, r, MPFR_RNDN);
    mpfr_div(q, q, r, MPFR_RNDN);
    double rel = fabs(mpfr_get_d(q, MPFR_RNDN));
    double ratio = rel / g_eps;
    checked++;
    checked_fma += (uint64_t)g_fma;
    if (g_fma && ratio > worst_fma) worst_fma = ratio;
    if (ratio > worst) {
      worst = ratio;
      worst_log_eps = log2(g_eps);
      wx = x;
      wy = y;
    }
  }
  printf("pow_eps_check: %llu pairs evaluated by the first pass (seed %llu); largest |v - x^y| / (eps v) = %.4f"
         " (x = %a, y = %a, eps = 2^%.2f)%s\n",
         (unsigned long long)checked, (unsigned long long)seed, worst, wx, wy, worst_log_eps,
         worst < 1 ? "" : "  BOUND VIOLATED");
#ifdef OM_EPS_512
  printf("  of which %llu by the FMA pass (om_pow_v_fma), largest ratio there %.4f\n", (unsigned long long)checked_fma,
         worst_fma);
#endif
  mpfr_clears(mx, my, r, q, (mpfr_ptr)0);
  return worst < 1 ? 0 : 1;
}
