/* cast.c - conversions between stored types.
 *
 * Rules (spec, "Cast"): float -> float rounds to nearest even once (overflow to infinity); float -> integer
 * truncates toward zero, saturates at the target's range, NaN gives 0; float -> bool is x != 0 (NaN true,
 * -0 false); integer -> integer wraps modulo 2^n; integer -> float rounds to nearest even once, u64 read as
 * unsigned; bool -> any is 0 or 1. NaN results are the target's canonical quiet NaN.
 *
 * Every conversion is one exactly specified rounding, computed with IEEE operations and integer arithmetic
 * only, so it gives the same bits on every machine; none depends on the kernel path.
 */
#include "cast.h"

#include <string.h>

#include "math/om_half.h"
#include "core/om_types.h"

#define OM_CAST_CHUNK 256

int om_cast_supported(int from, int to) {
  return from >= 0 && from < 32 && to >= 0 && to < 32 && (OM_TS_STORED & OM_TB(from)) && (OM_TS_STORED & OM_TB(to));
}

static double om_pow2(int k) { /* 2^k for -1022 <= k <= 1023 */
  uint64_t u = (uint64_t)(k + 1023) << 52;
  double d;
  memcpy(&d, &u, sizeof d);
  return d;
}

uint16_t om_double_to_small(double d, int mbits, int ebits) {
  uint64_t u;
  memcpy(&u, &d, sizeof u);
  uint16_t sign = (uint16_t)((u >> 63) << 15);
  uint16_t inf = (uint16_t)(((1u << ebits) - 1u) << mbits);
  if (d != d) return (uint16_t)(inf | (1u << (mbits - 1)));
  u &= ~((uint64_t)1 << 63);
  double a;
  memcpy(&a, &u, sizeof a);
  int bias = (1 << (ebits - 1)) - 1, emin = 1 - bias;
  /* At or above max + half an ulp the nearest-even result is infinity. */
  double threshold = (2.0 - om_pow2(-(mbits + 1))) * om_pow2(bias);
  if (a >= threshold) return (uint16_t)(sign | inf);
  int e = (int)((u >> 52) & 0x7ff) - 1023;
  if (e < emin) e = emin;
  /* a / 2^(e - mbits) is exact (a power-of-two scaling that stays normal) and below 2^(mbits+1); adding and
   * subtracting 2^52 rounds it to an integer, half to even. */
  double q = a / om_pow2(e - mbits);
  q = (q + 0x1p52) - 0x1p52;
  uint64_t n = (uint64_t)q;
  /* n counts quanta of 2^(e - mbits): the encoding is ((e - emin) << mbits) + n, which covers subnormals
   * (e == emin, n < 2^mbits), the carry into the next binade (n == 2^(mbits+1)) and normals alike. */
  return (uint16_t)(sign | (uint16_t)((((uint64_t)(e - emin)) << mbits) + n));
}

/* Integer -> bfloat16 with one rounding: magnitudes of more than 24 bits are first rounded to odd at 24 bits
 * (exact in float, and 24 >= 8 + 2 bits makes the following nearest-even rounding the correct one). */
static uint16_t om_int_to_bf16(uint64_t mag, int negative) {
  float f;
  if (mag < (1ull << 24)) {
    f = (float)mag;
  } else {
    int bits = 64 - __builtin_clzll(mag);
    int s = bits - 24;
    uint64_t t = (mag >> s) | ((mag & ((1ull << s) - 1)) != 0);
    f = (float)t * (float)om_pow2(s); /* exact: t < 2^24, s <= 40 */
  }
  uint16_t b = om_f32_to_bf16(f);
  return negative ? (uint16_t)(b | 0x8000) : b;
}

static double om_canon_nan_d(double d) {
  if (d != d) {
    uint64_t u = 0x7ff8000000000000ull;
    memcpy(&d, &u, sizeof d);
  }
  return d;
}

/* ---- loads into the wide intermediate -------------------------------------------------------------------- */
static int om_is_floaty(int t) {
  return t == OM_T_FLOAT || t == OM_T_DOUBLE || t == OM_T_FLOAT16 || t == OM_T_BFLOAT16;
}

#define OM_LOOP(EXPR)                      \
  do {                                     \
    for (size_t i = 0; i < n; i++) EXPR;   \
  } while (0)

static void om_load_double(const void* in, int from, double* buf, size_t n) {
  switch (from) {
    case OM_T_FLOAT: OM_LOOP(buf[i] = (double)((const float*)in)[i]); break;
    case OM_T_DOUBLE: OM_LOOP(buf[i] = ((const double*)in)[i]); break;
    case OM_T_FLOAT16: OM_LOOP(buf[i] = om_f16_to_f64(((const uint16_t*)in)[i])); break;
    default: OM_LOOP(buf[i] = (double)om_bf16_to_f32(((const uint16_t*)in)[i])); break; /* bfloat16 */
  }
}

static void om_load_int(const void* in, int from, int64_t* buf, size_t n) {
  switch (from) {
    case OM_T_INT8: OM_LOOP(buf[i] = ((const int8_t*)in)[i]); break;
    case OM_T_INT16: OM_LOOP(buf[i] = ((const int16_t*)in)[i]); break;
    case OM_T_INT32: OM_LOOP(buf[i] = ((const int32_t*)in)[i]); break;
    case OM_T_INT64: OM_LOOP(buf[i] = ((const int64_t*)in)[i]); break;
    case OM_T_UINT8: OM_LOOP(buf[i] = ((const uint8_t*)in)[i]); break;
    case OM_T_UINT16: OM_LOOP(buf[i] = ((const uint16_t*)in)[i]); break;
    case OM_T_UINT32: OM_LOOP(buf[i] = ((const uint32_t*)in)[i]); break;
    case OM_T_UINT64: OM_LOOP(buf[i] = (int64_t)((const uint64_t*)in)[i]); break; /* bits; read as unsigned */
    default: OM_LOOP(buf[i] = ((const uint8_t*)in)[i] != 0); break;                /* bool */
  }
}

/* ---- stores from the intermediate ------------------------------------------------------------------------ */
/* Saturating truncation of a double to a signed integer of `bits` bits. */
static int64_t om_sat_signed(double d, int bits) {
  if (d != d) return 0;
  double hi = om_pow2(bits - 1);
  if (d >= hi) return (int64_t)((~0ull) >> (65 - bits));
  if (d <= -hi) return -(int64_t)((~0ull) >> (65 - bits)) - 1;
  return (int64_t)d;
}
static uint64_t om_sat_unsigned(double d, int bits) {
  if (!(d > 0)) return 0; /* negatives truncate to 0 or saturate to 0; NaN gives 0 */
  if (d >= om_pow2(bits)) return (~0ull) >> (64 - bits);
  return (uint64_t)d;
}
static float om_to_float_canon(double d) {
  float f = (float)d;
  if (f != f) {
    uint32_t q = 0x7fc00000u;
    memcpy(&f, &q, sizeof f);
  }
  return f;
}

static void om_store_from_double(const double* buf, void* out, int to, size_t n) {
  switch (to) {
    case OM_T_FLOAT: OM_LOOP(((float*)out)[i] = om_to_float_canon(buf[i])); break;
    case OM_T_DOUBLE: OM_LOOP(((double*)out)[i] = om_canon_nan_d(buf[i])); break;
    case OM_T_FLOAT16: OM_LOOP(((uint16_t*)out)[i] = om_double_to_small(buf[i], 10, 5)); break;
    case OM_T_BFLOAT16: OM_LOOP(((uint16_t*)out)[i] = om_double_to_small(buf[i], 7, 8)); break;
    case OM_T_BOOL: OM_LOOP(((uint8_t*)out)[i] = buf[i] != 0); break;
    case OM_T_INT8: OM_LOOP(((int8_t*)out)[i] = (int8_t)om_sat_signed(buf[i], 8)); break;
    case OM_T_INT16: OM_LOOP(((int16_t*)out)[i] = (int16_t)om_sat_signed(buf[i], 16)); break;
    case OM_T_INT32: OM_LOOP(((int32_t*)out)[i] = (int32_t)om_sat_signed(buf[i], 32)); break;
    case OM_T_INT64: OM_LOOP(((int64_t*)out)[i] = om_sat_signed(buf[i], 64)); break;
    case OM_T_UINT8: OM_LOOP(((uint8_t*)out)[i] = (uint8_t)om_sat_unsigned(buf[i], 8)); break;
    case OM_T_UINT16: OM_LOOP(((uint16_t*)out)[i] = (uint16_t)om_sat_unsigned(buf[i], 16)); break;
    case OM_T_UINT32: OM_LOOP(((uint32_t*)out)[i] = (uint32_t)om_sat_unsigned(buf[i], 32)); break;
    default: OM_LOOP(((uint64_t*)out)[i] = om_sat_unsigned(buf[i], 64)); break;
  }
}

/* Integer -> float16: rounding to float first is exact or harmless, since any integer of more than 24 bits is
 * >= 65520 and overflows half to infinity either way. */
static uint16_t om_int_to_half(int64_t v, int from_u64) {
  float f = from_u64 ? (float)(uint64_t)v : (float)v;
  return om_double_to_small((double)f, 10, 5);
}
static uint16_t om_int_to_bf16_signed(int64_t v, int from_u64) {
  uint64_t u = (uint64_t)v;
  int neg = !from_u64 && v < 0;
  return om_int_to_bf16(neg ? 0 - u : u, neg);
}

static void om_store_from_int(const int64_t* buf, int from_u64, void* out, int to, size_t n) {
  switch (to) {
    case OM_T_FLOAT:
      if (from_u64) OM_LOOP(((float*)out)[i] = (float)(uint64_t)buf[i]);
      else OM_LOOP(((float*)out)[i] = (float)buf[i]);
      break;
    case OM_T_DOUBLE:
      if (from_u64) OM_LOOP(((double*)out)[i] = (double)(uint64_t)buf[i]);
      else OM_LOOP(((double*)out)[i] = (double)buf[i]);
      break;
    case OM_T_FLOAT16: OM_LOOP(((uint16_t*)out)[i] = om_int_to_half(buf[i], from_u64)); break;
    case OM_T_BFLOAT16: OM_LOOP(((uint16_t*)out)[i] = om_int_to_bf16_signed(buf[i], from_u64)); break;
    case OM_T_BOOL: OM_LOOP(((uint8_t*)out)[i] = buf[i] != 0); break;
    case OM_T_INT8: case OM_T_UINT8: OM_LOOP(((uint8_t*)out)[i] = (uint8_t)(uint64_t)buf[i]); break;
    case OM_T_INT16: case OM_T_UINT16: OM_LOOP(((uint16_t*)out)[i] = (uint16_t)(uint64_t)buf[i]); break;
    case OM_T_INT32: case OM_T_UINT32: OM_LOOP(((uint32_t*)out)[i] = (uint32_t)(uint64_t)buf[i]); break;
    default: OM_LOOP(((uint64_t*)out)[i] = (uint64_t)buf[i]); break;
  }
}

void om_cast(const void* in, int from, void* out, int to, size_t n) {
  size_t isz = om_type_size(from), osz = om_type_size(to);
  for (size_t s = 0; s < n; s += OM_CAST_CHUNK) {
    size_t m = n - s < OM_CAST_CHUNK ? n - s : OM_CAST_CHUNK;
    const char* src = (const char*)in + s * isz;
    char* dst = (char*)out + s * osz;
    if (om_is_floaty(from)) {
      double buf[OM_CAST_CHUNK];
      om_load_double(src, from, buf, m);
      om_store_from_double(buf, dst, to, m);
    } else {
      int64_t buf[OM_CAST_CHUNK];
      om_load_int(src, from, buf, m);
      om_store_from_int(buf, from == OM_T_UINT64, dst, to, m);
    }
  }
}
