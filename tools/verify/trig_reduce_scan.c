/* c_tool: standalone -O2 -lmpfr -lgmp */
/* trig_reduce_scan.c - the smallest reduced argument of Sin and Cos over all f32 inputs, and a check of the
 * exact reduction (math/om_dd_trig.h, om_trig_reduce) against MPFR.
 *
 *   tools/c_tool.py trig_reduce_scan            # every positive f32 >= 0.78 (about 1.08e9 inputs), then MPFR samples
 *
 * For each x it computes x 2/pi = k + t (|t| <= 1/2) with om_trig_reduce and reports the ten smallest |t|
 * (quarter turns; |x - k pi/2| = |t| pi/2) with their x. Every one of those, and 2^20 inputs spread over every
 * exponent, are checked against MPFR: x 2/pi at 2000 bits (enough for |x| < 2^128), t and k mod 4 from it; the
 * double-double t must be within 2^-100 |t| of MPFR's (the bound om_dd_trig.h uses is 3 2^-105 |t| + 2^-136).
 * Negative x reduce as -(reduction of |x|), which the check also covers on the samples.
 */
#include <math.h>
#include <mpfr.h>
#include <stdio.h>
#include <stdlib.h>

#include "math/om_dd_trig.h"

#define KEEP 10
static double best_t[KEEP];
static uint32_t best_x[KEEP];

static void keep(uint32_t b, double at) {
  int w = 0;
  for (int i = 1; i < KEEP; i++)
    if (best_t[i] > best_t[w]) w = i;
  if (at < best_t[w]) best_t[w] = at, best_x[w] = b;
}

/* 1 when om_trig_reduce(x) agrees with MPFR; prints the relative error of t into *rel. */
static int check(float xf, double* rel) {
  mpfr_t x, y, c, f;
  mpfr_inits2(2000, x, y, c, f, (mpfr_ptr)0);
  mpfr_set_flt(x, xf, MPFR_RNDN);
  mpfr_const_pi(c, MPFR_RNDN);
  mpfr_ui_div(c, 2, c, MPFR_RNDN);
  mpfr_mul(y, x, c, MPFR_RNDN); /* x 2/pi */
  mpfr_rint(f, y, MPFR_RNDN);   /* k (ties cannot occur: x 2/pi is irrational for x != 0) */
  long k4 = 0;
  {
    mpfr_t m;
    mpfr_init2(m, 2000);
    mpfr_div_2ui(m, f, 2, MPFR_RNDN);
    mpfr_floor(m, m);
    mpfr_mul_2ui(m, m, 2, MPFR_RNDN);
    mpfr_sub(m, f, m, MPFR_RNDN);
    k4 = mpfr_get_si(m, MPFR_RNDN);
    mpfr_clear(m);
  }
  mpfr_sub(y, y, f, MPFR_RNDN); /* t */
  om_dd t;
  int q = om_trig_reduce((double)xf, &t);
  mpfr_set_d(c, t.hi, MPFR_RNDN);
  mpfr_add_d(c, c, t.lo, MPFR_RNDN);
  mpfr_sub(c, c, y, MPFR_RNDN);
  mpfr_div(c, c, y, MPFR_RNDN);
  *rel = fabs(mpfr_get_d(c, MPFR_RNDN));
  mpfr_clears(x, y, c, f, (mpfr_ptr)0);
  return q == (int)k4 && *rel < 0x1p-100;
}

int main(void) {
  for (int i = 0; i < KEEP; i++) best_t[i] = 1.0;
  const uint32_t lo = 0x3f47ae15u; /* 0.78f, rounded up: the reduction's domain starts at 0.78 */
  for (uint32_t b = lo; b < 0x7f800000u; b++) {
    om_dd t;
    (void)om_trig_reduce((double)om_f32_from_bits(b), &t);
    keep(b, fabs(t.hi));
  }
  int bad = 0;
  double worst = 0;
  for (int i = 0; i < KEEP; i++) /* smallest first */
    for (int j = i + 1; j < KEEP; j++)
      if (best_t[j] < best_t[i]) {
        double td = best_t[i];
        uint32_t tx = best_x[i];
        best_t[i] = best_t[j], best_x[i] = best_x[j], best_t[j] = td, best_x[j] = tx;
      }
  printf("smallest |t| (quarter turns) over all f32 |x| >= 0.78:\n");
  for (int i = 0; i < KEEP; i++) {
    double rel;
    int ok = check(om_f32_from_bits(best_x[i]), &rel);
    bad += !ok;
    if (rel > worst) worst = rel;
    printf("  x = %a (0x%08x): |t| = %a = 2^%.2f, MPFR %s (rel. error 2^%.1f)\n", (double)om_f32_from_bits(best_x[i]),
           best_x[i], best_t[i], log2(best_t[i]), ok ? "agrees" : "DIFFERS", log2(rel));
  }
  uint64_t s = 12345;
  for (int i = 0; i < (1 << 20); i++) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    uint32_t b = (uint32_t)(s >> 32);
    if ((b & 0x7fffffffu) < lo || (b & 0x7fffffffu) >= 0x7f800000u) continue;
    double rel;
    if (!check(om_f32_from_bits(b), &rel)) {
      if (bad < 10) printf("  DIFFERS at 0x%08x (rel. error 2^%.1f)\n", b, log2(rel));
      bad++;
    }
    if (rel > worst) worst = rel;
  }
  printf("MPFR check of the samples and the smallest: %d differ; largest relative error of t 2^%.1f\n", bad,
         log2(worst));
  return bad != 0;
}
