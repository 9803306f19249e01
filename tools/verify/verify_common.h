/* verify_common.h - small pieces shared by the verifiers (tools/verify/cr_verify.c, tools/verify/pow_verify.c,
 * tools/verify/pow_eps_check.c): the sample generator and the rounding of an MPFR value to binary32; f32 bit views are
 * the library's om_f32_bits / om_f32_from_bits (math/om_dd_core.h). Header-only, static functions; include
 * after <mpfr.h>. */
#ifndef OM_VERIFY_COMMON_H
#define OM_VERIFY_COMMON_H

#include "math/om_dd_core.h"

/* splitmix64: the next 64 random bits of the stream with state *s (reproducible per seed). */
static inline uint64_t splitmix(uint64_t* s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* RN_f32(y): y rounded once to binary32 with its exponent range and subnormals (24 bits, emin -148,
 * emax 128), overflow to +-inf. MPFR's exponent range is restored afterwards. */
static inline float mpfr_round_f32(mpfr_srcptr y) {
  mpfr_exp_t emin = mpfr_get_emin(), emax = mpfr_get_emax();
  mpfr_t r;
  mpfr_init2(r, 24);
  mpfr_set_emin(-148);
  mpfr_set_emax(128);
  int inex = mpfr_set(r, y, MPFR_RNDN);
  inex = mpfr_check_range(r, inex, MPFR_RNDN);
  mpfr_subnormalize(r, inex, MPFR_RNDN);
  float f = mpfr_get_flt(r, MPFR_RNDN);
  mpfr_set_emin(emin);
  mpfr_set_emax(emax);
  mpfr_clear(r);
  return f;
}

#endif
