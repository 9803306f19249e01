/* om_fast_f32.h - FAST mode of the f32 Exp, Log, Tanh, Sigmoid, Erf, Gelu (none, tanh) kernels: evaluated in
 * f32 at the path's full lane count (16 lanes on the 512 path), range reduction and minimax polynomials with
 * binary32 coefficients (tools/gen/sollya/om_fast_consts.sollya -> om_fast_consts.h). No double-precision pass,
 * no rounding test, no scalar fallback. See docs/exact-transcendentals.md, "Fast mode", for the algorithms
 * and the exhaustively measured errors (a few ulp; exact mode is untouched and still correctly rounded).
 *
 * Included by transcendental.inc once per kernel path (om_vf/om_vi/om_vu, OM_FN and OM_VB set). The 512 and
 * 256 paths and AArch64's 128 path use FMA (om_fx_fma is one fused multiply-add there: VFMADD, FMLA); x86's 128
 * path and the one-lane path run the same body with a multiply and an add instead (and Dekker's product where an
 * exact product is needed), so those two agree bit for bit, AArch64's 128 path runs the 256 path's body (its
 * table lookups as per-lane selects of the same constants), and 512 and 256 agree except in Exp (the 512 path has its own table-based body) and in the
 * divisions of Tanh, Sigmoid and both Gelu forms, where the 512 path uses VRCP14PS with FMA corrections
 * instead of a division (docs/exact-transcendentals.md, "Fast mode"). Fast mode promises a bound in ulps, not
 * the same bits across paths.
 *
 * Special values: NaN -> NaN (the canonical NaN for Log's invalid inputs, a quiet NaN otherwise: fast mode keeps
 * what the hardware gives); +-inf and +-0 as exact mode (odd functions keep the sign of zero; Gelu(-inf) = -0,
 * Gelu(+inf) = +inf); overflow to +inf and gradual underflow (the last operation of Exp, Sigmoid's and both
 * Gelu's negative tails is the scaling by 2^k, so the one rounding into the subnormals comes last).
 */
#include "om_fast_consts.h"

#define OM_FX_AI static inline __attribute__((always_inline))
#define OM_FXV(c) ((om_vf){0} + (float)(c)) /* every lane c (not for -0) */
#define OM_FXI(c) ((om_vi){0} + (int32_t)(c))
#define OM_FXSEL(m, a, b) OM_SEL(om_vf, om_vi, m, a, b)
#define om_fx_abs(x) ((om_vf)((om_vu)(x) & 0x7fffffffu))
/* |a| with the sign of s */
#if OM_VB == 64
#define om_fx_copysign(a, s) \
  ((om_vf)_mm512_ternarylogic_epi32((__m512i)(a), (__m512i)(s), _mm512_set1_epi32(INT32_MIN), 0xd8))
#else
#define om_fx_copysign(a, s) ((om_vf)(((om_vu)(a) & 0x7fffffffu) | ((om_vu)(s) & 0x80000000u)))
#endif

#if OM_VB == 64 || OM_VB == 32 || (OM_VB == 16 && OM_ARCH_NEON)
#define OM_FX_FMA 1
#else
#define OM_FX_FMA 0
#endif
#if OM_VB == 16 && OM_ARCH_NEON /* FMLA: a*b + c rounded once, as VFMADD */
#define OM_FX_NEON_FMA(a, b, c) ((om_vf)vfmaq_f32((float32x4_t)(c), (float32x4_t)(a), (float32x4_t)(b)))
#endif

/* a*b + c: one fused operation on the FMA paths, a product and a sum (two roundings) on the others. */
OM_FX_AI om_vf om_fx_fma(om_vf a, om_vf b, om_vf c) {
#if OM_VB == 64
  return (om_vf)_mm512_fmadd_ps((__m512)a, (__m512)b, (__m512)c);
#elif OM_VB == 32
  return (om_vf)_mm256_fmadd_ps((__m256)a, (__m256)b, (__m256)c);
#elif OM_FX_FMA
  return OM_FX_NEON_FMA(a, b, c);
#else
  return a * b + c;
#endif
}

/* c - a*b, -(a*b) - c and a*b - c: one fused operation (FNMADD, FNMSUB, FMSUB) on the FMA paths, so that no
 * negation costs an operation of its own; a product and a sum elsewhere (the same values as om_fx_fma with a
 * negated operand: negation is exact). */
OM_FX_AI om_vf om_fx_fnma(om_vf a, om_vf b, om_vf c) {
#if OM_VB == 64
  return (om_vf)_mm512_fnmadd_ps((__m512)a, (__m512)b, (__m512)c);
#elif OM_VB == 32
  return (om_vf)_mm256_fnmadd_ps((__m256)a, (__m256)b, (__m256)c);
#elif OM_FX_FMA
  return (om_vf)vfmsq_f32((float32x4_t)c, (float32x4_t)a, (float32x4_t)b); /* FMLS: c - a*b, one rounding */
#else
  return c - a * b;
#endif
}
OM_FX_AI om_vf om_fx_fnms(om_vf a, om_vf b, om_vf c) {
#if OM_VB == 64
  return (om_vf)_mm512_fnmsub_ps((__m512)a, (__m512)b, (__m512)c);
#elif OM_VB == 32
  return (om_vf)_mm256_fnmsub_ps((__m256)a, (__m256)b, (__m256)c);
#elif OM_FX_FMA
  return (om_vf)vfmsq_f32(-(float32x4_t)c, (float32x4_t)a, (float32x4_t)b); /* -c - a*b, as VFNMSUB */
#else
  return -(a * b) - c;
#endif
}
OM_FX_AI om_vf om_fx_fms(om_vf a, om_vf b, om_vf c) {
#if OM_VB == 64
  return (om_vf)_mm512_fmsub_ps((__m512)a, (__m512)b, (__m512)c);
#elif OM_VB == 32
  return (om_vf)_mm256_fmsub_ps((__m256)a, (__m256)b, (__m256)c);
#elif OM_FX_FMA
  return OM_FX_NEON_FMA(a, b, -c);
#else
  return a * b - c;
#endif
}

/* min(c, x) and max(c, x) for a constant c, x passed through when it is NaN: MINPS/MAXPS return their second
 * operand when either is NaN (one operation, where a compare and a blend are two); elsewhere the same as
 * a select. */
OM_FX_AI om_vf om_fx_min(om_vf c, om_vf x) {
#if OM_VB == 64
  return (om_vf)_mm512_min_ps((__m512)c, (__m512)x);
#elif OM_VB == 32
  return (om_vf)_mm256_min_ps((__m256)c, (__m256)x);
#else
  return OM_FXSEL(c < x, c, x);
#endif
}
OM_FX_AI om_vf om_fx_max(om_vf c, om_vf x) {
#if OM_VB == 64
  return (om_vf)_mm512_max_ps((__m512)c, (__m512)x);
#elif OM_VB == 32
  return (om_vf)_mm256_max_ps((__m256)c, (__m256)x);
#else
  return OM_FXSEL(c > x, c, x);
#endif
}

/* h + l = a*b exactly (|a|, |b| < 2^100, no underflow that matters here): FMA (l = a*b - h by FMSUB, no
 * negation of its own), or Dekker's product. */
OM_FX_AI void om_fx_twoprod(om_vf a, om_vf b, om_vf* h, om_vf* l) {
  *h = a * b;
#if OM_FX_FMA
  *l = om_fx_fms(a, b, *h);
#else
  om_vf ca = a * 4097.0f, ah = ca - (ca - a), al = a - ah;
  om_vf cb = b * 4097.0f, bh = cb - (cb - b), bl = b - bh;
  *l = (((ah * bh - *h) + ah * bl) + al * bh) + al * bl;
#endif
}

/* s + e = a + b exactly (Knuth's TwoSum). */
OM_FX_AI void om_fx_twosum(om_vf a, om_vf b, om_vf* s, om_vf* e) {
  *s = a + b;
  om_vf bb = *s - a;
  *e = (a - (*s - bb)) + (b - bb);
}

/* a/d for finite a and d in [2^-100, 2^100]: a division, or on the 512 path the 14-bit reciprocal estimate
 * with one Newton step (relative error about 2^-27) and one correction of the quotient (q + (a - q d) r,
 * the residual exact by FMA): within a hair of the rounded quotient, in a quarter of the time. */
OM_FX_AI om_vf om_fx_div(om_vf a, om_vf d) {
#if OM_VB == 64
  om_vf r = (om_vf)_mm512_rcp14_ps((__m512)d);
  r = om_fx_fma(r, om_fx_fnma(d, r, OM_FXV(1.0f)), r);
  om_vf q = a * r;
  return om_fx_fma(om_fx_fnma(q, d, a), r, q);
#else
  return a / d;
#endif
}

/* a/d as om_fx_div, one operation less on the 512 path: the 14-bit estimate r, q = a r and one correction
 * q + (a - q d) r (the residual by FMA), which squares the estimate's error: within 0.5 ulp + 2^-28 relative. */
OM_FX_AI om_vf om_fx_div1(om_vf a, om_vf d) {
#if OM_VB == 64
  om_vf r = (om_vf)_mm512_rcp14_ps((__m512)d);
  om_vf q = a * r;
  return om_fx_fma(om_fx_fnma(q, d, a), r, q);
#else
  return a / d;
#endif
}

/* (nh + nl)/(dh + dl) for |nl| <= 2^-23 |nh|, |dl| <= 2^-23 |dh|, dh in [1, 2]: q = nh/dh (as om_fx_div on the
 * 512 path), then one correction with the exact residual nh - q dh (FMA, or Dekker's product) and the low
 * parts: within about half an ulp of the quotient of the two double-length operands. */
OM_FX_AI om_vf om_fx_div2(om_vf nh, om_vf nl, om_vf dh, om_vf dl) {
#if OM_VB == 64
  om_vf r = (om_vf)_mm512_rcp14_ps((__m512)dh);
  r = om_fx_fma(r, om_fx_fnma(dh, r, OM_FXV(1.0f)), r);
  om_vf q = nh * r;
  om_vf res = om_fx_fnma(q, dh, nh) + om_fx_fnma(q, dl, nl);
  return om_fx_fma(res, r, q);
#else
  om_vf q = nh / dh, ph, pl;
  om_fx_twoprod(q, dh, &ph, &pl);
  om_vf res = ((nh - ph) - pl) + (nl - q * dl);
  return q + res / dh;
#endif
}

/* 1/d to about 2^-23 relative (d as in om_fx_div): a division, or the estimate with one Newton step. */
OM_FX_AI om_vf om_fx_recip(om_vf d) {
#if OM_VB == 64
  om_vf r = (om_vf)_mm512_rcp14_ps((__m512)d);
  return om_fx_fma(r, om_fx_fnma(d, r, OM_FXV(1.0f)), r);
#else
  return 1.0f / d;
#endif
}

/* Horner: c[0] + v (c[1] + v (... + v c[n-1])) */
OM_FX_AI om_vf om_fx_poly(om_vf v, const float* c, int n) {
  om_vf p = OM_FXV(c[n - 1]);
  for (int i = n - 2; i >= 0; i--) p = om_fx_fma(p, v, OM_FXV(c[i]));
  return p;
}

/* e^(th + tl) = (p + pl) 2^k for |th| <= 150, |tl| <= 2^-20 |th| (tl used when withlo): k = rint(th/ln2),
 * r = th - k LN2_HI (exact) - k LN2_LO + tl, |r| <= 0.3467, e^r ~= 1 + s with s = r + r^2 q(r);
 * p = RN(1 + s) in [0.70, 1.42] and pl = (1 - p) + s (exact, |s| < 1: Fast2Sum), the part of 1 + s that p
 * lost. Callers that want more than p (a product with p) use p + pl; *sp = s when sp is given. */
OM_FX_AI om_vf om_fx_exp_core(om_vf th, om_vf tl, int withlo, om_vf* kfp, om_vf* pl, om_vf* sp) {
  const om_vf magic = OM_FXV(0x1.8p23f);
  om_vf kf = om_fx_fma(th, OM_FXV(OM_FX_INVLN2), magic) - magic;
  *kfp = kf;
  om_vf r = om_fx_fnma(kf, OM_FXV(OM_FX_LN2_HI), th);
  r = om_fx_fnma(kf, OM_FXV(OM_FX_LN2_LO), r);
  if (withlo) r = r + tl;
  om_vf q = om_fx_poly(r, om_fx_expq, 5);
  om_vf s = om_fx_fma(r * r, q, r);
  om_vf p = s + 1.0f;
  if (sp) *sp = s;
  if (pl) *pl = (1.0f - p) + s;
  return p;
}

/* e^r ~= p = 1 + r + r^2 q(r) (|r| <= 0.3467, q = om_fx_expq): with FMA as 1 + r (1 + r q(r)), the constant 1
 * folded into the Horner chain (two FMA; measured more accurate than rounding s = r + r^2 q first); without
 * FMA as 1 + (r + r^2 q(r)) (folding there costs about 0.2 ulp). */
OM_FX_AI om_vf om_fx_exp_p(om_vf r) {
  om_vf q = om_fx_poly(r, om_fx_expq, 5);
#if OM_FX_FMA
  return om_fx_fma(r, om_fx_fma(r, q, OM_FXV(1.0f)), OM_FXV(1.0f));
#else
  return (r * r * q + r) + 1.0f;
#endif
}

/* y 2^k for an integral kf = k, -252 <= k <= 254 (any value in NaN lanes): as two exact power-of-two factors,
 * y 2^k1 exact for y in the normal range, so the only rounding (into the subnormals, or to inf) is the last
 * product; on the 512 path VSCALEFPS, which rounds y 2^k once: the same result. */
OM_FX_AI om_vf om_fx_ldexp(om_vf y, om_vf kf) {
#if OM_VB == 64
  return (om_vf)_mm512_scalef_ps((__m512)y, (__m512)kf);
#else
  const om_vf magic = OM_FXV(0x1.8p23f);
  om_vi k = (om_vi)(kf + magic) - (om_vi)magic;
  om_vi k1 = k >> 1, k2 = k - k1;
  om_vf s1 = (om_vf)((om_vu)(k1 + 127) << 23), s2 = (om_vf)((om_vu)(k2 + 127) << 23);
  return (y * s1) * s2;
#endif
}

/* The polynomial of g(w) = e^(w^2) erfc(w), w = |x|/sqrt2 <= 10.26: big lanes (w >= 2) B(u), u = 1/w^2, where
 * g(w) = sqrt2 B(u)/w; small lanes (|x| < 0.75) C(|x|); the others A(v), v = w - 1.25. One Horner loop on
 * t = u, |x| or v, coefficients chosen per lane: on the 256 path one VPERMPS per coefficient from
 * om_fx_erfc_abc[i] = {A[i], B[i], C[i], 0...} with the lane's index 0, 1 or 2 (loads: exact, the same values
 * as the selects of the 128 and scalar paths). The 512 path does not use it: om_fx_gelu_erf takes (a/2) g there
 * from a 16-piece table (om_fx_tab16). */
#if OM_VB != 64
OM_FX_AI om_vf om_fx_erfc_poly(om_vi big, om_vi small, om_vf t) {
#if OM_VB == 32
  __m256i ix = (__m256i)((big & 1) | (small & 2));
  om_vf p = (om_vf)_mm256_permutevar8x32_ps(_mm256_load_ps(om_fx_erfc_abc[10]), ix);
  for (int i = 9; i >= 0; i--)
    p = om_fx_fma(p, t, (om_vf)_mm256_permutevar8x32_ps(_mm256_load_ps(om_fx_erfc_abc[i]), ix));
  return p;
#else
#define OM_FX_ABC(i) OM_FXSEL(big, OM_FXV(om_fx_erfc_b[i]), OM_FXSEL(small, OM_FXV(om_fx_erfc_c[i]), OM_FXV(om_fx_erfc_a[i])))
  om_vf p = OM_FX_ABC(10);
  for (int i = 9; i >= 0; i--) p = om_fx_fma(p, t, OM_FX_ABC(i));
#undef OM_FX_ABC
  return p;
#endif
}
#endif

#if OM_VB == 64
/* A 16-piece table of degree 6 on the 512 path (om_fast_consts.sollya: om_fx_gelu_h, om_fx_tanh_h,
 * om_fx_erf_h): P(a) for a >= 0 (or NaN), one VPERMPS per coefficient. The slot is the low 4 bits of
 * bits(RN(a + 1)) >> 21 (VPERMPS reads only those): binades [1, 2) to [8, 16) of a + 1 in quarters, pieces of
 * a of width 1/4 on [0, 1) up to width 2 on [7, 15); row 7 holds each piece's start S, and the polynomial runs
 * in d = a - S, exact (S <= a <= 2S, or S = 0; where a + 1 rounds up to the next piece's start, d is a tiny
 * negative, still exact). Piece 0 has no constant term (the tables fit f(a)/a there), so P keeps its relative
 * accuracy down to a = 0. With lead, piece 0 holds f(a)/a - 1 and row 8 a factor 1 (0 for the other pieces):
 * the last step is fma(p, d, c0 + 1 d), so P = a + a Q(a) keeps the leading a exact (one permute and one FMA
 * more; Erf, whose f'(0) = 2/sqrt(pi) is no binary32 number: rounding it cost up to 2.3 ulp near the binade
 * edges of small results). */
OM_FX_AI om_vf om_fx_tab16(om_vf a, const float tab[][16], int lead) {
  __m512i ix = _mm512_srli_epi32(_mm512_castps_si512((__m512)(a + 1.0f)), 21);
#define OM_FX_TAB(i) ((om_vf)_mm512_permutexvar_ps(ix, _mm512_load_ps(tab[i])))
  om_vf d = a - OM_FX_TAB(7);
  om_vf p = OM_FX_TAB(6);
  for (int i = 5; i >= 1; i--) p = om_fx_fma(p, d, OM_FX_TAB(i));
  p = om_fx_fma(p, d, lead ? om_fx_fma(OM_FX_TAB(8), d, OM_FX_TAB(0)) : OM_FX_TAB(0));
#undef OM_FX_TAB
  return p;
}
/* An odd function f that rounds to 1 before amax (Tanh: 11, Erf: 4, each a piece's start from which the table
 * holds the constant 1: |x| >= amax, the infinities too, gives 1 exactly): f(a) = om_fx_tab16(a) for
 * a = min(|x|, amax) (MINPS passes a NaN, which then runs through the table with any slot), and the sign of x
 * put back by one VPTERNLOGD (f(+-0) = +-0). */
OM_FX_AI om_vf om_fx_odd16(om_vf x, float amax, const float tab[][16], int lead) {
  return om_fx_copysign(om_fx_tab16(om_fx_min(OM_FXV(amax), om_fx_abs(x)), tab, lead), x);
}
#endif

/* ---- the functions ------------------------------------------------------------------------------------- */

/* Exp: x clamped to [-104, 89] (e^-104 < 2^-150 rounds to +0, e^89 > 2^128 to +inf) by MAXPS/MINPS (a NaN
 * passes), then
 * - 512 path: k = rint(32 x/ln2) from u = x (1/ln2) + 1.5 2^18 (one FMA: u's low 5 bits are k mod 32 and
 *   u - 1.5 2^18 = k/32 exactly), r = x - (k/32) LN2_HI (exact: |k| < 2^13, LN2_HI 16 bits) - (k/32) LN2_LO,
 *   |r| <= 0.010835; T = RN(2^(j/32)), j = k mod 32, by one VPERMT2PS from om_fx_exp2_32 (each within 0.498
 *   ulp); e^x = (T + T r (1 + r q32(r))) 2^floor(k/32), q32 of degree 1 (relative error 2^-31.7), the last
 *   step one FMA and VSCALEFPS (which floors k/32 itself). 12 vector operations where the other form has 13;
 *   the table's rounding makes it the less accurate one (exhaustive maximum 1.0125 ulp against 0.9511).
 * - other paths: k = rint(x/ln2), r = x - k LN2_HI (exact) - k LN2_LO, e^x = p 2^k with p = om_fx_exp_p(r).
 * (VRANGEPS would clamp in one operation, but it returns the constant for a NaN input.) */
OM_FX_AI om_vf om_fx_exp(om_vf x) {
  om_vf t = om_fx_min(OM_FXV(89.0f), om_fx_max(OM_FXV(-104.0f), x)); /* NaN passes */
#if OM_VB == 64
  const om_vf magic = OM_FXV(0x1.8p18f);
  om_vf u = om_fx_fma(t, OM_FXV(OM_FX_INVLN2), magic); /* 1.5 2^18 + k/32: the low 5 bits hold k mod 32 */
  om_vf kq = u - magic;
  om_vf r = om_fx_fnma(kq, OM_FXV(OM_FX_LN2_HI), t);
  r = om_fx_fnma(kq, OM_FXV(OM_FX_LN2_LO), r);
  om_vf T = (om_vf)_mm512_permutex2var_ps(_mm512_load_ps(om_fx_exp2_32), (__m512i)u, _mm512_load_ps(om_fx_exp2_32 + 16));
  om_vf b = om_fx_fma(om_fx_fma(OM_FXV(om_fx_expq32[1]), r, OM_FXV(om_fx_expq32[0])), r, OM_FXV(1.0f));
  return om_fx_ldexp(om_fx_fma(T * r, b, T), kq);
#else
  const om_vf magic = OM_FXV(0x1.8p23f);
  om_vf kf = om_fx_fma(t, OM_FXV(OM_FX_INVLN2), magic) - magic;
  om_vf r = om_fx_fnma(kf, OM_FXV(OM_FX_LN2_HI), t);
  r = om_fx_fnma(kf, OM_FXV(OM_FX_LN2_LO), r);
  return om_fx_ldexp(om_fx_exp_p(r), kf);
#endif
}

/* Log: x = 2^k m, m in [2/3, 4/3) (bits of x minus those of 2/3; subnormals scaled by 2^23 first),
 * f = m - 1 exact, log x = k LN2_HI + (k LN2_LO + f + f^2 q(f)). */
OM_FX_AI om_vf om_fx_log(om_vf x) {
  om_vi sub = (om_vi)(x < OM_FXV(0x1p-126f));
  om_vf xs = OM_FXSEL(sub, x * 0x1p23f, x);
  /* bit arithmetic unsigned (negative x would overflow a signed difference; those lanes are replaced below);
   * k from the arithmetic shift of the same bits */
  om_vu ix = (om_vu)xs;
  om_vu tmp = ix - 0x3f2aaaabu;
  om_vi k = ((om_vi)tmp >> 23) - (sub & 23);
  om_vf f = (om_vf)(ix - (tmp & ~0x7fffffu)) - 1.0f;
  om_vf p = om_fx_fma(f * f, om_fx_poly(f, om_fx_logq, 9), f);
  om_vf kf = __builtin_convertvector(k, om_vf);
  om_vf y = om_fx_fma(kf, OM_FXV(OM_FX_LN2_HI), om_fx_fma(kf, OM_FXV(OM_FX_LN2_LO), p));
  om_vf inf = OM_FXV(__builtin_inff());
  om_vi sp = ~(om_vi)(x > OM_FXV(0.0f)) | (om_vi)(x == inf);
  om_vf sv = OM_FXSEL(x == OM_FXV(0.0f), -inf, OM_FXSEL(x == inf, inf, (om_vf)OM_FXI(0x7fc00000)));
  return OM_FXSEL(sp, sv, y);
}

/* Tanh: sign(x) (1 - E)/(1 + E) = -sign(x) em/(1 + E), em = E - 1, E = e^(-2a) = 2^k (1 + s), a = min(|x|, 10)
 * (tanh rounds to 1 from 9.01 on). s = r + r^2 q(r) ~= e^r - 1 to a small RELATIVE error, so
 * em = (2^k - 1) + 2^k s (2^k - 1 exact for k >= -24, one rounding by FMA) keeps its relative accuracy for small
 * |x| (k = 0: r = -2a exactly, em = s down to the subnormals) and no small-|x| polynomial is needed.
 * The reduction works on h = r/2 (exact: a power-of-two factor): from -a = -|x| (one OR), k = rint(-a (2/ln2)),
 * h = -a - k LN2_HI/2 (exact) - k LN2_LO/2, s/2 = h + h^2 Q(h) with Q(h) = 2 q(2h) (q's coefficients times
 * powers of two: the same values as s, halved), em = 2^(k+1) (s/2) + (2^(k+1)/2 - 1) and 2 + em = 1 + E =
 * 2^(k+1) (s/2) + (2^(k+1)/2 + 1), each rounded once (2 + RN(em) would add em's rounding: half an ulp more
 * near |x| = 4.5). The quotient by om_fx_div1; its sign is dropped by the copysign (a bit select). */
OM_FX_AI om_vf om_fx_tanh(om_vf x) {
#if OM_VB == 64 /* 512 path: no exponential, no division (om_fx_odd16) */
  return om_fx_odd16(x, 11.0f, om_fx_tanh_h, 0);
#else
  const om_vf magic = OM_FXV(0x1.8p23f);
  om_vf na = om_fx_max(OM_FXV(-10.0f), (om_vf)((om_vu)x | 0x80000000u)); /* -min(|x|, 10); NaN passes */
  om_vf kf = om_fx_fma(na, OM_FXV(2.0f * OM_FX_INVLN2), magic) - magic;
  om_vf h = om_fx_fnma(kf, OM_FXV(0.5f * OM_FX_LN2_HI), na);
  h = om_fx_fnma(kf, OM_FXV(0.5f * OM_FX_LN2_LO), h);
  om_vf Q = OM_FXV(om_fx_expq[4] * 0x1p5f);
  Q = om_fx_fma(Q, h, OM_FXV(om_fx_expq[3] * 0x1p4f));
  Q = om_fx_fma(Q, h, OM_FXV(om_fx_expq[2] * 0x1p3f));
  Q = om_fx_fma(Q, h, OM_FXV(om_fx_expq[1] * 0x1p2f));
  Q = om_fx_fma(Q, h, OM_FXV(om_fx_expq[0] * 0x1p1f));
  om_vf s2 = om_fx_fma(h * h, Q, h);
  om_vf t2 = om_fx_ldexp(OM_FXV(2.0f), kf);
  om_vf em = om_fx_fma(t2, s2, om_fx_fms(t2, OM_FXV(0.5f), OM_FXV(1.0f)));
  om_vf ep = om_fx_fma(t2, s2, om_fx_fma(t2, OM_FXV(0.5f), OM_FXV(1.0f)));
  return om_fx_copysign(om_fx_div1(em, ep), x);
#endif
}

/* Sigmoid: e^-x = 2^-k e^r (k = rint(x/ln2), x clamped to [-104, 20]: sigmoid rounds to 1 from 17.33 on and
 * to +0 below -103.98), r = k LN2_HI - x (FMSUB, exact) + k LN2_LO, p = 1 + r + r^2 q(r) ~= e^r; then
 * sigmoid = 1/(1 + 2^-k p) = 2^k/(2^k + p) = (1/d) 2^k, d = 2^k + p (in [0.70, 2^29 + 2]): one formula for
 * both signs (no cancellation: every term positive, the relative error of p reaches the result damped by
 * p/d <= 1), no |x| and no select; the scaling by 2^k is the last operation (gradual underflow). 1/d: a
 * division, or on the 512 path the 14-bit estimate with one Newton step (om_fx_recip). */
OM_FX_AI om_vf om_fx_sigmoid(om_vf x) {
  const om_vf magic = OM_FXV(0x1.8p23f);
  om_vf xc = om_fx_min(OM_FXV(20.0f), om_fx_max(OM_FXV(-104.0f), x)); /* NaN passes */
  om_vf kf = om_fx_fma(xc, OM_FXV(OM_FX_INVLN2), magic) - magic;
  om_vf r = om_fx_fms(kf, OM_FXV(OM_FX_LN2_HI), xc);
  r = om_fx_fma(kf, OM_FXV(OM_FX_LN2_LO), r);
  om_vf p = om_fx_fma(r * r, om_fx_poly(r, om_fx_expq, 5), r) + 1.0f;
  om_vf d = om_fx_ldexp(OM_FXV(1.0f), kf) + p;
  return om_fx_ldexp(om_fx_recip(d), kf);
}

/* Erf: |x| < 0.9: x + x q(x^2); else sign(x) (1 - e^(-x^2) G(|x| - 2.45)), |x| clamped to 4 (erf rounds to
 * +-1 from 3.92 on), G minimizing the absolute error of erfc (om_fast_consts.h). x^2 as h = RN(x^2) (also the
 * small branch's x^2): the low part l it drops (|l| <= 2^-24 x^2) changes e^(-x^2) by a relative |l|, which
 * times erfc(|x|) stays below 2^-26.6 absolute (about 0.16 ulp of erf at most, near |x| = 1).
 * e^(-h) = 2^k (1 + s): k = rint(h (-1/ln2)), r = -(k LN2_HI) - h (FNMSUB, exact) - k LN2_LO, s as in
 * om_fx_exp_core; erfc = (G + s G) 2^k (one FMA, no rounded 1 + s). */
OM_FX_AI om_vf om_fx_erf(om_vf x) {
#if OM_VB == 64 /* 512 path: no exponential (om_fx_odd16) */
  return om_fx_odd16(x, 4.0f, om_fx_erf_h, 1);
#else
  const om_vf magic = OM_FXV(0x1.8p23f);
  om_vf ac = om_fx_min(OM_FXV(4.0f), om_fx_abs(x)); /* NaN passes */
  om_vf h = ac * ac;
  om_vf ys = om_fx_fma(x, om_fx_poly(h, om_fx_erfq, 6), x);
  om_vf kf = om_fx_fma(h, OM_FXV(-OM_FX_INVLN2), magic) - magic;
  om_vf r = om_fx_fnms(kf, OM_FXV(OM_FX_LN2_HI), h);
  r = om_fx_fnma(kf, OM_FXV(OM_FX_LN2_LO), r);
  om_vf s = om_fx_fma(r * r, om_fx_poly(r, om_fx_expq, 5), r);
  om_vf G = om_fx_poly(ac - 2.45f, om_fx_erfc_g, 9);
  om_vf ec = om_fx_ldexp(om_fx_fma(s, G, G), kf);
  om_vf yb = om_fx_copysign(1.0f - ec, x);
  return OM_FXSEL(ac < OM_FXV(0.9f), ys, yb);
#endif
}

/* Gelu none, x Phi(x), one formula for every x: with a = min(|x|, 14.5) (where the negative side underflows),
 * y = a erfc(a/sqrt2)/2 = (a/2) g(w) e^(-a^2/2), Gelu = max(x, -0) - y (x < 0: -y; x >= 0: x - y, no
 * cancellation: y <= x/2). e^(-a^2/2) = 2^k (1 + s): a^2/2 = hh + ll exactly ((a/2) a, FMA or Dekker),
 * k = rint(hh (-1/ln2)), r = -(k LN2_HI) - hh (FNMSUB, exact) - k LN2_LO - ll, s as in om_fx_exp_core.
 * g(w) = e^(w^2) erfc(w) (om_fx_erfc_poly): C(a) for a < 0.75, A(w - 1.25) (w - 1.25 from a with sqrt(1/2)
 * as hi + lo) below w = 2, B(u) above, u = 1/w^2 = 1/hh, where (a/2) g(w) = B(u) exactly in terms of B, so no
 * 1/w is rounded. y = (m + m s) 2^k with m = (a/2) C or (a/2) A or B (one FMA; m p + m pl without FMA, as
 * om_fx_exp_core's p + pl): the scaling by 2^k last (gradual
 * underflow down to x ~= -14.4). The sign of zero: max(x, -0) is -0 for x <= -0, and -0 - (+0) = -0.
 * The 512 path takes m = (a/2) g(w) = H(a) from 16 pieces of degree 6 instead (om_fx_gelu_h, one VPERMPS per
 * coefficient, no 1/hh, no selects, no product by a/2): the slot comes from the bits of RN(a + 1) (binades
 * [1, 2) to [8, 16) in quarters: pieces of a of width 1/4 on [0, 1) up to width 2 on [7, 15)), the polynomial
 * runs in d = a - S (S the piece's start, exact), and piece 0 has no constant term, so H keeps its relative
 * accuracy down to a = 0 (Sollya's fits: relative error below 2^-24.69 with the binary32 coefficients), and
 * a = VRANGEPS(x, 14.5) (min(|x|, 14.5) in one operation; it gives 14.5 for a NaN, which the last
 * max(x, -0) passes on as NaN anyway). */
OM_FX_AI om_vf om_fx_gelu_erf(om_vf x) {
  const om_vf magic = OM_FXV(0x1.8p23f);
  const om_vf nzero = (om_vf)((om_vu){0} + 0x80000000u);
#if OM_VB == 64 /* VRANGEPS: min(|x|, 14.5) in one operation; a NaN gives 14.5 here, but passes the last max */
  om_vf ac = (om_vf)_mm512_range_ps((__m512)x, _mm512_set1_ps(14.5f), 0x0a);
#else
  om_vf ac = om_fx_min(OM_FXV(14.5f), om_fx_abs(x)); /* NaN passes */
#endif
  om_vf ah = 0.5f * ac;
  om_vf hh, ll;
  om_fx_twoprod(ah, ac, &hh, &ll);
  om_vf kf = om_fx_fma(hh, OM_FXV(-OM_FX_INVLN2), magic) - magic;
  om_vf r = om_fx_fnms(kf, OM_FXV(OM_FX_LN2_HI), hh);
  r = om_fx_fnma(kf, OM_FXV(OM_FX_LN2_LO), r) - ll;
  om_vf s = om_fx_fma(r * r, om_fx_poly(r, om_fx_expq, 5), r);
#if OM_VB == 64
  om_vf m = om_fx_tab16(ac, om_fx_gelu_h, 0); /* H(a) = (a/2) g(a/sqrt2) */
#else
  om_vf v = om_fx_fma(ac, OM_FXV(OM_FX_SQRT1_2_LO), om_fx_fma(ac, OM_FXV(OM_FX_SQRT1_2_HI), OM_FXV(-1.25f)));
  om_vi big = (om_vi)(ac >= OM_FXV(2.828427f)), small = (om_vi)(ac < OM_FXV(0.75f));
  om_vf u = om_fx_recip(om_fx_max(OM_FXV(1.0f), hh)); /* hh >= 4 in the big lanes; no 1/0 in the others */
  om_vf P = om_fx_erfc_poly(big, small, OM_FXSEL(big, u, OM_FXSEL(small, ac, v)));
  om_vf m = OM_FXSEL(big, OM_FXV(1.0f), ah) * P;
#endif
#if OM_FX_FMA
  om_vf y = om_fx_ldexp(om_fx_fma(m, s, m), kf);
#else /* m (1 + s) as m p + m pl (p = RN(1 + s), pl = (1 - p) + s): m s + m rounds m s first, about 1 ulp worse */
  om_vf p = s + 1.0f, pl = (1.0f - p) + s;
  om_vf y = om_fx_ldexp(m * p + m * pl, kf);
#endif
  return om_fx_max(nzero, x) - y;
}

/* Gelu tanh, x sigmoid(u), u = x (K1 + K3 x^2) = 2 sqrt(2/pi) (x + 0.044715 x^3), computed as uh + ul (about
 * 44 bits: |u| reaches 142 and e^u needs it to 2^-25 absolute); x clamped to [-12, 12] (u(-12) < -142: the
 * result underflows). e = e^-|u| = (p + pl) 2^k: x >= 0: x/(1 + e); x < 0: (x (p + pl)/(1 + e)) 2^k. */
OM_FX_AI om_vf om_fx_gelu_tanh(om_vf x) {
  om_vf xc = OM_FXSEL(x < OM_FXV(-12.0f), OM_FXV(-12.0f), x);
  xc = OM_FXSEL(xc > OM_FXV(12.0f), OM_FXV(12.0f), xc);
  om_vf s2h, s2l, ph, pl, sh, sl, uh, ul, el;
  om_fx_twoprod(xc, xc, &s2h, &s2l);
  om_fx_twoprod(OM_FXV(OM_FX_K3_HI), s2h, &ph, &pl);
  pl = om_fx_fma(OM_FXV(OM_FX_K3_HI), s2l, om_fx_fma(OM_FXV(OM_FX_K3_LO), s2h, pl));
  om_fx_twosum(OM_FXV(OM_FX_K1_HI), ph, &sh, &sl);
  sl = sl + (pl + OM_FX_K1_LO);
  om_fx_twoprod(xc, sh, &uh, &ul);
  ul = om_fx_fma(xc, sl, ul);
  om_vi neg = (om_vi)(uh < OM_FXV(0.0f));
  om_vf k;
  om_vf p = om_fx_exp_core(-om_fx_abs(uh), OM_FXSEL(neg, ul, -ul), 1, &k, &el, 0);
  om_vf e = om_fx_ldexp(p, k);
  om_vf q = om_fx_div(OM_FXSEL(neg, om_fx_fma(xc, p, xc * el), xc), e + 1.0f);
  /* the sign of x, also for x = -0 (om_fx_div's correction step may turn -0 into +0) */
  return OM_FXSEL(x > OM_FXV(12.0f), x, om_fx_copysign(OM_FXSEL(neg, om_fx_ldexp(q, k), q), x));
}

/* The fast kernel of a unary f32 function: whole vectors, then the tail (fewer than a vector's lanes) padded
 * with zeros through one more vector, so every element of a path takes the same operations. PAIRS = 1 takes
 * the whole vectors two at a time first (Exp: measured about 3% faster on the 512 path; Tanh and Gelu none
 * were not faster so): the same operations per element, so the same bits. PF is the loop's prefetch: the
 * slow kernels take OM_PREFETCH_STREAM_SLOW (lanes.h); Exp, several times faster than the others, the near
 * prefetch alone (with the far one it was slower at 64K, 1M and 16M: 12.8-12.9 against 12.6-12.7 us,
 * 382-389 against 374-377 us, 9.0-9.3 against 8.7-8.8 ms a call, one thread, two block-alternated rounds). */
#define OM_FX_KERNEL(NAME, VFN, PAIRS, PF)                                         \
  static size_t OM_FN(NAME##_fast)(const float* a, float* o, size_t n) {       \
    size_t i = 0;                                                              \
    if (PAIRS)                                                                 \
      for (; i + 2 * OM_LANES(float) <= n; i += 2 * OM_LANES(float)) {         \
        om_vf x0, x1, r0, r1;                                                  \
        PF(a + i, o + i);                                                      \
        PF(a + i + OM_LANES(float), o + i + OM_LANES(float));                  \
        OM_LOAD(x0, a + i);                                                    \
        OM_LOAD(x1, a + i + OM_LANES(float));                                  \
        r0 = VFN(x0);                                                          \
        r1 = VFN(x1);                                                          \
        OM_STORE(o + i, r0);                                                   \
        OM_STORE(o + i + OM_LANES(float), r1);                                 \
      }                                                                        \
    for (; i + OM_LANES(float) <= n; i += OM_LANES(float)) {                   \
      om_vf x, r;                                                              \
      PF(a + i, o + i);                                                        \
      OM_LOAD(x, a + i);                                                       \
      r = VFN(x);                                                              \
      OM_STORE(o + i, r);                                                      \
    }                                                                          \
    if (i < n) {                                                               \
      om_vf x = {0}, r;                                                        \
      memcpy(&x, a + i, (n - i) * sizeof(float));                              \
      r = VFN(x);                                                              \
      memcpy(o + i, &r, (n - i) * sizeof(float));                              \
    }                                                                          \
    return n;                                                                  \
  }
OM_FX_KERNEL(exp_f32, om_fx_exp, 1, OM_PREFETCH_STREAM)
OM_FX_KERNEL(log_f32, om_fx_log, 0, OM_PREFETCH_STREAM_SLOW)
OM_FX_KERNEL(tanh_f32, om_fx_tanh, 0, OM_PREFETCH_STREAM_SLOW)
OM_FX_KERNEL(sigmoid_f32, om_fx_sigmoid, 0, OM_PREFETCH_STREAM_SLOW)
OM_FX_KERNEL(erf_f32, om_fx_erf, 0, OM_PREFETCH_STREAM_SLOW)
OM_FX_KERNEL(gelu_erf_f32, om_fx_gelu_erf, 0, OM_PREFETCH_STREAM_SLOW)
OM_FX_KERNEL(gelu_tanh_f32, om_fx_gelu_tanh, 0, OM_PREFETCH_STREAM_SLOW)

/* The registered kernel: exact mode (OM_FL_EXACT) goes to the exact kernel NAME, fast mode to NAME_fast. */
#define OM_FX_DISPATCH(NAME)                                                           \
  static size_t OM_FN(NAME##_fx)(const void* pa, void* po, size_t n, unsigned fl) {   \
    if (fl & OM_FL_EXACT) return OM_FN(NAME)(pa, po, n, fl);                          \
    return OM_FN(NAME##_fast)((const float*)pa, (float*)po, n);                       \
  }
