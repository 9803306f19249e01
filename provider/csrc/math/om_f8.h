/* om_f8.h - scalar f32 <-> the four ONNX float8 types (FLOAT8E4M3FN, FLOAT8E4M3FNUZ, FLOAT8E5M2, FLOAT8E5M2FNUZ):
 * exact widening, and one rounding to nearest even back with ONNX's saturate rules. Bit-based (integer operations
 * only), so the same on every path. docs/quantized.md ("float8") states the rules these implement. */
#ifndef OM_F8_H
#define OM_F8_H

#include <stdint.h>

#include "om_bits.h"

/* One float8 format: m mantissa bits, exponent bias, the greatest finite code (sign clear), uz: no negative zero,
 * no infinity, one NaN 0x80; inf: has infinities (E5M2: 0x7c), else a NaN 0x7f (E4M3FN). */
typedef struct om_f8_fmt {
  uint32_t m, bias, max_code, uz, inf;
} om_f8_fmt;

/* ONNX type ids 17 ... 20 in that order. */
static inline om_f8_fmt om_f8_fmt_of(int onnx_type) {
  static const om_f8_fmt f[4] = {{3, 7, 0x7e, 0, 0}, {3, 8, 0x7f, 1, 0}, {2, 15, 0x7b, 0, 1}, {2, 16, 0x7f, 1, 0}};
  return f[(onnx_type - 17) & 3];
}

/* The NaN code of sign bit s (0 or 0x80): 0x7f with the sign, or the UZ types' 0x80; also the code of an
 * overflow without saturation but for E5M2, whose overflow is an infinity. */
static inline uint8_t om_f8_nan(om_f8_fmt f, uint32_t s) { return (uint8_t)(f.uz ? 0x80u : (s | 0x7fu)); }

/* f32 -> float8, nearest even on the exact value (one rounding). saturate: a magnitude that rounds past the
 * greatest finite value, and an infinity, give the greatest finite value of x's sign; without: E5M2 gives the
 * infinity of x's sign, the others NaN. NaN gives NaN (FN types: 0x7f with x's sign; UZ: 0x80). The UZ types
 * have no -0: a result of zero magnitude is 0x00. */
static inline uint8_t om_f32_to_f8(float x, om_f8_fmt f, int saturate) {
  const uint32_t u = om_f32_bits(x), s = (u >> 24) & 0x80u, a = u & 0x7fffffffu;
  if (a > 0x7f800000u) return om_f8_nan(f, s);
  const uint32_t sz = f.uz ? 0u : s; /* the sign a result of zero magnitude keeps */
  uint32_t code;
  if (a == 0x7f800000u) {
    code = f.max_code + 1; /* past the greatest: an overflow */
  } else if (a < 0x00800000u) {
    return (uint8_t)sz; /* zero, or an f32 subnormal: below 2^-126, under half the least float8 subnormal */
  } else {
    const int32_t e = (int32_t)(a >> 23) - 127, emin = 1 - (int32_t)f.bias;
    const uint32_t sig = (a & 0x7fffffu) | 0x800000u; /* 24 bits: value sig * 2^(e - 23) */
    if (e > 17) {
      code = f.max_code + 1; /* past 2^17 > 57344 * 2: an overflow for every format */
    } else {
      /* keep sig >> shift: the significand at the float8's spacing (its normals' or, below emin, its subnormals') */
      const int32_t shift = 23 - (int32_t)f.m + (e < emin ? emin - e : 0);
      if (shift > 25) return (uint8_t)sz; /* below half the least subnormal */
      uint32_t q = sig >> shift;
      const uint32_t rem = sig & ((1u << shift) - 1u), half = 1u << (shift - 1);
      if (rem > half || (rem == half && (q & 1u))) q++;
      /* normal: the exponent field e - emin + 1 over the m fraction bits (q carries the implicit bit, a carry
       * out of the fraction moves into the exponent); subnormal: q itself (q = 2^m is the least normal) */
      code = e >= emin ? ((uint32_t)(e - emin) << f.m) + q : q;
      if (code == 0) return (uint8_t)sz;
    }
  }
  if (code > f.max_code) {
    if (saturate) return (uint8_t)(s | f.max_code);
    return f.inf ? (uint8_t)(s | 0x7cu) : om_f8_nan(f, s);
  }
  return (uint8_t)(s | code);
}

/* float8 -> f32, exact. NaN codes give the canonical quiet NaN 0x7fc00000; E5M2's 0x7c / 0xfc are +-inf; UZ's
 * 0x80 is its NaN. */
static inline float om_f8_to_f32(uint8_t c, om_f8_fmt f) {
  const uint32_t s = (uint32_t)(c & 0x80u) << 24, a = c & 0x7fu;
  if (f.uz ? c == 0x80u : (f.inf ? a > 0x7cu : a == 0x7fu)) return om_f32_from_bits(0x7fc00000u);
  if (f.inf && a == 0x7cu) return om_f32_from_bits(s | 0x7f800000u);
  const uint32_t ef = a >> f.m, mf = a & ((1u << f.m) - 1u);
  if (ef) return om_f32_from_bits(s | ((ef + 127u - f.bias) << 23) | (mf << (23 - f.m)));
  /* subnormal mf * 2^(1 - bias - m): mf (at most 7) normalised into an f32 normal */
  if (!mf) return om_f32_from_bits(s);
  uint32_t e = 1u - f.bias - f.m + 127u, m = mf;
  while (!(m & (1u << f.m))) {
    m <<= 1;
    e--;
  }
  /* now m = 1.xxx at m bits of fraction: value m * 2^(e - 127 - ...) */
  return om_f32_from_bits(s | ((e + f.m) << 23) | ((m & ((1u << f.m) - 1u)) << (23 - f.m)));
}

#endif
