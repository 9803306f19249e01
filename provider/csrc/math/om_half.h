/* om_half.h - scalar IEEE binary16 (f16) and bfloat16 (bf16) <-> f32 and f64: exact widening, one rounding to
 * nearest even back. Bit-based (integer operations and exact conversions only), so the same on every path. The
 * callers' NaN rules differ and each function names its own. Used by the reductions (reduce/reduce.c), GEMM
 * (gemm/gemm_body.inc), Cast (cast.c), the 16-bit transcendental tables (tr16.c) and node/elementwise.c. */
#ifndef OM_HALF_H
#define OM_HALF_H

#include <stdint.h>

#include "om_bits.h"

/* bf16 -> f32: the high half of the float (exact; a NaN keeps its bits). */
static inline float om_bf16_to_f32(uint16_t b) {
  return om_f32_from_bits((uint32_t)b << 16);
}

/* f32 -> bf16, nearest even (overflow to infinity); every NaN gives the canonical 0x7fc0. */
static inline uint16_t om_f32_to_bf16(float f) {
  uint32_t u = om_f32_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return 0x7fc0;
  return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

/* f16 -> f32, exact; a NaN keeps its sign, quiet bit and payload (shifted to the top of the f32 payload). */
static inline float om_f16_to_f32(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu, x;
  if (e == 31) x = sign | 0x7f800000u | (m << 13);
  else if (e) x = sign | ((e + 112u) << 23) | (m << 13);
  else if (!m) x = sign;
  else { /* subnormal m * 2^-24: normalise */
    uint32_t s = 0;
    while (!(m & 0x400u)) { m <<= 1; s++; }
    x = sign | ((113u - s) << 23) | ((m & 0x3ffu) << 13);
  }
  return om_f32_from_bits(x);
}

/* f16 -> f64, exact; a NaN gives the quiet NaN of its sign with no payload (0x7ff8... or 0xfff8...). */
static inline double om_f16_to_f64(uint16_t h) {
  if ((h & 0x7fffu) > 0x7c00u) {
    return om_f64_from_bits((h & 0x8000u) ? 0xfff8000000000000ull : 0x7ff8000000000000ull);
  }
  return (double)om_f16_to_f32(h);
}

/* f32 -> f16, nearest even (overflow to infinity); a NaN keeps its sign and the top 9 payload bits and gets the
 * quiet bit (a caller that wants the canonical NaN passes one). */
static inline uint16_t om_f32_to_f16(float f) {
  uint32_t x = om_f32_bits(f);
  uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
  uint32_t ax = x & 0x7fffffffu;
  if (ax > 0x7f800000u) return (uint16_t)(sign | 0x7e00u | ((ax >> 13) & 0x3ffu)); /* NaN */
  if (ax >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u); /* >= 65520 (the midpoint above 65504): inf */
  if (ax >= 0x38800000u) {                                  /* a normal half */
    uint32_t m = ax - 0x38000000u;
    return (uint16_t)(sign | ((m + 0xfffu + ((m >> 13) & 1u)) >> 13));
  }
  if (ax < 0x33000000u) return sign; /* below 2^-25: rounds to zero */
  uint32_t e = ax >> 23, mant = (ax & 0x7fffffu) | 0x800000u, sh = 126u - e; /* units of 2^-24 */
  uint32_t r = mant >> sh, rem = mant & ((1u << sh) - 1u), half = 1u << (sh - 1u);
  if (rem > half || (rem == half && (r & 1u))) r++;
  return (uint16_t)(sign | r);
}

#endif
