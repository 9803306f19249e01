/* om_vcore.h - the vector building blocks of the exact f32 transcendentals, for one kernel path.
 *
 * Included by transcendental.inc once per path (OM_VB, OM_FN and om_vf/om_vi/om_vu from elementwise.inc are
 * set). Every lane is an f32 widened to double (exactly); the functions evaluate in double with GCC vector
 * extensions, one double lane per f32 lane (so a path's vectors of doubles are two registers wide), using
 * only IEEE + - * / and exact conversions: the same bits on every path. Table lookups are per-lane loads.
 *
 * Rounding test (om_tr_round): the double result y has a proven relative error bound eps (per function, per
 * lane where it depends on the input); the true value lies in [y - eps|y|, y + eps|y|] (eps is padded by
 * 2^-52 for the rounding of that interval's own end points). RN_f32 is monotone, so when both ends round to
 * the same f32 that f32 is the correctly rounded result; otherwise the lane takes the scalar double-double
 * fallback (om_dd.h). This holds for subnormal results and overflow too, since the conversion from double to
 * f32 rounds to nearest even with the full f32 format.
 */
#include "om_dd.h"

/* The double vectors are twice the path's register width; they only travel between static inline functions
 * of this translation unit, so the ABI note GCC gives for passing them by value does not apply. */
#pragma GCC diagnostic ignored "-Wpsabi"

/* A path's f32 vector is processed as two halves, each widened to one native vector of doubles (OM_TR_L
 * lanes; one lane on the scalar path): vectors wider than the target's registers would make GCC lower their
 * comparisons and selects lane by lane. */
#ifdef OM_TR_STATS /* tools (tr_bench.c, cr_verify.c) see every lane that takes the fallback */
void om_tr_on_fallback(float x);
void om_tr_on_second(float x); /* a fallback lane settled by a second double pass, not double-double */
#endif
#define OM_TR_L (OM_LANES(float) > 1 ? OM_LANES(float) / 2 : 1)
typedef double om_vd __attribute__((vector_size(OM_TR_L * 8)));
typedef int64_t om_vl __attribute__((vector_size(OM_TR_L * 8)));
typedef uint64_t om_vul __attribute__((vector_size(OM_TR_L * 8)));
typedef float om_vfh __attribute__((vector_size(OM_TR_L * 4)));
typedef int32_t om_vih __attribute__((vector_size(OM_TR_L * 4)));

#define OM_VD(c) ((om_vd){0} + (double)(c))
#define OM_VSELD(m, a, b) OM_SEL(om_vd, om_vl, m, a, b)
#define OM_VSELF(m, a, b) OM_SEL(om_vfh, om_vih, m, a, b)

#define om_vabs(x) ((om_vd)((om_vul)(x) & 0x7fffffffffffffffULL))
/* min/max of pure expressions (evaluated twice); the NaN-free operand order of each caller matters not. */
#define om_vmin(a, b) OM_VSELD((a) < (b), (a), (b))
#define om_vmax(a, b) OM_VSELD((a) > (b), (a), (b))
/* x with the sign of s (s >= 0 or s <= -0 by its sign bit). */
#define om_vcopysign(x, s) \
  ((om_vd)(((om_vul)(x) & 0x7fffffffffffffffULL) | ((om_vul)(s) & 0x8000000000000000ULL)))
/* rint(x) for |x| < 2^51, as a double and as an integer. */
static inline __attribute__((always_inline)) om_vd om_vrint(const om_vd* x, om_vl* k) {
  om_vd kd = *x + 0x1.8p52;
  *k = (om_vl)kd - (om_vl)((om_vd){0} + 0x1.8p52);
  return kd - 0x1.8p52;
}
#if OM_VB == 64 || OM_VB == 32
#include <immintrin.h>
#endif
/* The lanes a first pass could not settle: a bit mask on the 512 path (its compares give one; no round trip
 * through a vector), a vector of all-ones/zero lanes elsewhere. */
#if OM_VB == 64
typedef __mmask8 om_trmask;
#define OM_TR_NONE ((om_trmask)0)
#define OM_TR_LANE(m, l) (((m) >> (l)) & 1u)
#else
typedef om_vih om_trmask;
#define OM_TR_NONE ((om_trmask){0})
#define OM_TR_LANE(m, l) ((m)[l])
#endif
static inline __attribute__((always_inline)) int om_trmask_any(om_trmask m) {
#if OM_VB == 64
  return !_kortestz_mask8_u8(m, m);
#elif OM_VB == 32
  __m128i v;
  memcpy(&v, &m, 16);
  return !_mm_testz_si128(v, v);
#else
  uint64_t w = 0;
  memcpy(&w, &m, sizeof m);
  return w != 0;
#endif
}
/* Any lane set in a or in b? (512: one KORTESTB, so the masks never leave the mask registers.) */
static inline __attribute__((always_inline)) int om_trmask_any2(om_trmask a, om_trmask b) {
#if OM_VB == 64
  return !_kortestz_mask8_u8(a, b);
#else
  return om_trmask_any(a | b);
#endif
}
/* Per-lane table loads (exact; an AVX2/AVX-512 gather where the path has one). */
static inline __attribute__((always_inline)) om_vd om_vgather(const double* tab, const om_vl* idx) {
  om_vd r;
#if OM_VB == 64
  __m512i vi;
  memcpy(&vi, idx, 64);
  __m512d g = _mm512_i64gather_pd(vi, tab, 8);
  memcpy(&r, &g, 64);
#elif OM_VB == 32
  __m256i vi;
  memcpy(&vi, idx, 32);
  __m256d g = _mm256_i64gather_pd(tab, vi, 8);
  memcpy(&r, &g, 32);
#else
  for (size_t l = 0; l < OM_TR_L; l++) r[l] = tab[(*idx)[l]];
#endif
  return r;
}

/* e^t = hi + lo for |t| <= 700 (t exact):
 *   k = rint(t 64/ln2), r = (t - k C1) - k C2 (C1 + C2 = ln2/64 to 2^-96, k C1 exact, t - k C1 exact by
 *   Sterbenz), so |r| <= 0.005417 and r has an absolute error below 2^-60.5 (the one rounding of its last
 *   subtraction, plus < 2^-82 from C1 + C2 and k C2);
 *   p = r + r^2 q(r) ~= e^r - 1 (Sollya: relative error < 2^-61.4; evaluation error < 2^-53 |p| (last add)
 *   + 2^-59.9 |r|), absolute error of p < 2^-60.4;
 *   2^(j/64) = Thi + Tlo (error < 2^-106), j = k mod 64, S = 2^(k div 64);
 *   hi = S Thi (exact), lo = S (Tlo + Thi p): two roundings of at most 2^-53 * 2 * 0.0055 = 2^-59.5 each.
 * So |hi + lo - e^t| < 2^-57.7 e^t, and RN(hi + lo) has relative error < 2^-53 + 2^-57.7 < 2^-52.9.
 * e^t - 1 = (hi - 1) + lo: exactly p when k = 0 (relative error < 2^-52.9); otherwise |e^t - 1| > 0.0054
 * and the absolute error 2^-57.7 e^t, plus two roundings, gives a relative error below 2^-49.8. */
static inline __attribute__((always_inline)) void om_vexp_parts(const om_vd* tp, om_vd* hi, om_vd* lo) {
  om_vd t = *tp, tk = t * OM_INVLN2_64;
  om_vl k;
  om_vd kd = om_vrint(&tk, &k);
  om_vd r = (t - kd * OM_LN2_64_1) - kd * OM_LN2_64_2;
  const double* q = om_expm1_q;
  om_vd p = r + (r * r) * (q[0] + r * (q[1] + r * (q[2] + r * (q[3] + r * q[4]))));
  om_vl j2 = (k & 63) * 2, j2l = j2 + 1;
  om_vd th = om_vgather(om_exp_tab, &j2), tl = om_vgather(om_exp_tab, &j2l);
  om_vd s = (om_vd)(((k >> 6) + 1023) << 52);
  *hi = s * th;
  *lo = s * (tl + th * p);
}

/* erf(w) ~= w P(w^2) for |w| <= 0.5, w2 = w^2: Sollya relative error < 2^-56.0; Horner in double with
 * s = w2 <= 1/4 and alternating terms decreasing by > 4x: evaluation error < 1.3 * 2^-53 relative, and the
 * final product 2^-53: < 2^-51.7 in all (plus the error of w2 when w2 is rounded: |d log P / d log w2| < 0.1). */
static inline __attribute__((always_inline)) om_vd om_verf_small(const om_vd* w, const om_vd* w2) {
  const double* c = om_erf_p;
  om_vd p = OM_VD(c[9]);
  for (int i = 8; i >= 0; i--) p = c[i] + *w2 * p;
  return *w * p;
}

/* g(w) = e^(w^2) erfc(w) for 0.5 <= w <= 10.5: piece i = rint(4 (w - 0.625)) in [0, 39], d = w - m_i exact
 * (Sterbenz) with |d| <= 0.125, polynomial of degree 10 (Sollya relative error < 2^-53.25 on every piece);
 * Horner with |c1 d| < 0.15 c0 and faster decreasing terms: evaluation error < 1.4 * 2^-53 relative.
 * Total < 2^-51.9. */
static inline __attribute__((always_inline)) om_vd om_verfc_g(const om_vd* wp) {
  om_vd w = *wp;
  om_vd id = om_vmin(om_vmax((w - 0.625) * 4.0 + 0x1.8p52, OM_VD(0x1.8p52)), OM_VD(0x1.8p52 + 39));
  om_vl i = (om_vl)id - (om_vl)OM_VD(0x1.8p52);
  om_vd m = 0.625 + 0.25 * (id - 0x1.8p52);
  om_vd d = w - m;
  om_vl base = i * 11;
  om_vl ij = base + 10;
  om_vd p = om_vgather(om_erfc_g, &ij);
  for (int j = 9; j >= 0; j--) {
    ij = base + j;
    p = om_vgather(om_erfc_g, &ij) + d * p;
  }
  return p;
}

/* ---- FMA first passes (512 and 256 paths only) -----------------------------------------------------------
 * Correct rounding does not depend on how a lane's first pass is computed, only on its proven error bound and
 * a sound rounding test; the fallback is the same on every path. So the paths with FMA (512: AVX-512F, 256:
 * AVX2+FMA, both checked by paths.c) run their own, faster first pass for the ordinary inputs of Exp, Log,
 * Tanh, Sigmoid, Erf, Gelu none and Gelu tanh (each with its bound in its file's comment, verified exhaustively),
 * and a whole vector with any unusual input (NaN, infinities, results near the subnormal or overflow range) takes
 * the general first pass above, unchanged (OM_TR_KERNEL_FMA: the test runs once per whole vector, on its f32
 * lanes). FMA comes from intrinsics (the build keeps -ffp-contract=off). */
#if OM_VB == 64 || OM_VB == 32
#define OM_TR_FMA 1
typedef uint32_t om_vuh __attribute__((vector_size(OM_TR_L * 4)));
/* The fused forms, one rounding each: om_fma a*b + c; om_fnma c - a*b and om_fms a*b - c (the same values as
 * om_fma(-a, b, c) and om_fma(a, b, -c), without a negation). */
#if OM_VB == 64
#define OM_VD_FUSED(NAME, OP)                                                            \
  static inline __attribute__((always_inline)) om_vd NAME(om_vd a, om_vd b, om_vd c) {   \
    return (om_vd)_mm512_##OP##_pd((__m512d)a, (__m512d)b, (__m512d)c);                  \
  }
#else
#define OM_VD_FUSED(NAME, OP)                                                            \
  static inline __attribute__((always_inline)) om_vd NAME(om_vd a, om_vd b, om_vd c) {   \
    return (om_vd)_mm256_##OP##_pd((__m256d)a, (__m256d)b, (__m256d)c);                  \
  }
#endif
OM_VD_FUSED(om_fma, fmadd)
OM_VD_FUSED(om_fnma, fnmadd)
OM_VD_FUSED(om_fms, fmsub)
/* c[0] + c[1] v + ... + c[n-1] v^(n-1) by Horner in fma: p = c[n-1], then p = fma(p, v, c[i]) for i = n-2 down
 * to 0 (the loop unrolls; n is a constant at every call). */
static inline __attribute__((always_inline)) om_vd om_vpoly(om_vd v, const double* c, int n) {
  om_vd p = OM_VD(c[n - 1]);
  for (int i = n - 2; i >= 0; i--) p = om_fma(p, v, OM_VD(c[i]));
  return p;
}
/* tab[idx & 15] per lane (exact): one two-register permute on the 512 path, a gather on the 256 path. */
static inline __attribute__((always_inline)) om_vd om_vtab16(const double* tab, om_vul idx) {
#if OM_VB == 64
  return (om_vd)_mm512_permutex2var_pd(_mm512_load_pd(tab), (__m512i)idx, _mm512_load_pd(tab + 8));
#else
  return (om_vd)_mm256_i64gather_pd(tab, (__m256i)(idx & 15), 8);
#endif
}
/* min(a, c) and max(a, c) per lane, one MINPD/MAXPD each (a NaN lane would give c; the callers' range checks
 * keep NaN out). */
static inline __attribute__((always_inline)) om_vd om_vminpd(om_vd a, double c) {
#if OM_VB == 64
  return (om_vd)_mm512_min_pd((__m512d)a, _mm512_set1_pd(c));
#else
  return (om_vd)_mm256_min_pd((__m256d)a, _mm256_set1_pd(c));
#endif
}
static inline __attribute__((always_inline)) om_vd om_vmaxpd(om_vd a, double c) {
#if OM_VB == 64
  return (om_vd)_mm512_max_pd((__m512d)a, _mm512_set1_pd(c));
#else
  return (om_vd)_mm256_max_pd((__m256d)a, _mm256_set1_pd(c));
#endif
}
/* The f32 half vector widened to doubles (exact), in one instruction. */
static inline __attribute__((always_inline)) om_vd om_vwiden(om_vfh x) {
#if OM_VB == 64
  return (om_vd)_mm512_cvtps_pd((__m256)x);
#else
  return (om_vd)_mm256_cvtps_pd((__m128)x);
#endif
}
/* All lanes of m (an om_vih mask from a comparison) set? */
static inline __attribute__((always_inline)) int om_tr_all(om_vih m) {
#if OM_VB == 64
  return _mm256_movemask_ps((__m256)m) == 0xff;
#else
  return _mm_movemask_ps((__m128)m) == 0xf;
#endif
}

/* e^t ~= sc (1 + p), sc = T_j 2^(k >> 4) with T_j = RN(2^(j/16)), j = k & 15, for |t| <= 700 (t exact):
 *   k = rint(t 16/ln2): ks = fma(t, RN(16/ln2) OM_EXP16_KQ, OM_EXP16_SH) rounds t RN(16/ln2) once to an integer
 *   (below), so
 *   |t - k ln2/16| <= ln2/32 (1 + 2^-40) < 0.02167 (RN(16/ln2) is off by < 2^-52.4 relative and
 *   |t| 16/ln2 < 2^14).
 *   r = fma(-k, LN2_16_HI, t), exact (k = 0: t; else |t| >= 0.0216 is an f32 multiple of 2^-29, k HI a
 *   multiple of 2^-57, and their difference is below 2^-5 in magnitude, so it has at most 52 significant
 *   bits). r differs from t - k ln2/16 by |k| (ln2/16 - HI) < |k| 2^-59.25 (HI = RN(ln2/16), LO < 2^-59.25),
 *   which the caller adds to its bound (relative, in e^t): 2^-48.3 for |t| <= 87.3 (|k| <= 2015), 2^-47.8
 *   for |t| <= 120.
 *   p = fma(r^2, q(r), r), q of degree 3 by Horner in FMA (om_expm1_q16s): Sollya absolute error < 2^-45.65;
 *   with the evaluation (final rounding 2^-53 |p| < 2^-58.5, r^2 q part < 2^-64): |(1 + p) - e^r| < 2^-45.64,
 *   i.e. < 2^-45.61 relative to e^r at the computed r.
 *   sc = T_j 2^(k >> 4) from om_vexp16_sc (below), exact while the exponent stays normal (|k >> 4| <= 1021);
 *   sc = 2^(k/16) (1 + d_T), |d_T| <= 2^-53.
 * e^t = fma(sc, p, sc): om_vexp16 (Exp, Gelu tanh), or om_vexp16_reduce then om_vexp16_e where a loop pipelines
 * the two steps (Sigmoid); Gelu none does its own variant of the reduction (see its file).
 * Flag OM_EXP16_NEG: e^-t, with the same operations on -t (the negation folded into the two fma:
 * fma(t, -c, s) and fms(kq, -HI, t) = fma(kq, -HI, -t) exactly), so the same values as for -t without it. */
#define OM_EXP16_NEG 1
/* The shifter of the reductions (om_vexp16_reduce, om_vexp2x16_reduce, Gelu none's): ks = fma(t, c OM_EXP16_KQ,
 * OM_EXP16_SH) and kq = ks - OM_EXP16_SH = k OM_EXP16_KQ, exact, for k = rint(t c), c = RN(16/ln2) (or RN(32/ln2)).
 *   256 path: the 1.5 2^52 shifter, kq = k. The scale comes from the bits of ks (om_vexp16_sc below).
 *   512 path: the 1.5 2^48 shifter, whose ulp is 2^-4: ks rounds t c/16 to a multiple of 1/16, which is t c
 *   rounded to an integer divided by 16 (a power of two commutes with the rounding, ties included: the last bit's
 *   parity is k's), so the same k, and kq = k/16 exactly (|k| < 2^47); the low 4 bits of ks are k & 15 (those
 *   of 1.5 2^48 are zero), the permute's index. The products kq (HI/OM_EXP16_KQ) equal k HI exactly, so r is
 *   the same double on both paths. */
#if OM_VB == 64
#define OM_EXP16_SH 0x1.8p48
#define OM_EXP16_KQ 0x1p-4
#else
#define OM_EXP16_SH 0x1.8p52
#define OM_EXP16_KQ 1.0
#endif
/* sc = T_j 2^(k >> 4) (tab = om_exp16_t), or 2 T_j 2^(k >> 4) (tab = om_exp16_t2), j = k & 15, from ks and kq
 * above, exact while the exponent stays normal (|k >> 4| <= 1021):
 *   512 path: VSCALEFPD(tab[j], kq) = tab[j] 2^floor(k/16): one operation where the 256 path's shift and add
 *   take two (tools/bench/port_bench.c: VPSLLQ and VPADDQ each occupy a vector port like an FMA).
 *   256 path (om_vexp16_sc_bits, for a ks from the 1.5 2^52 shifter on any path): bits(om_exp16_adj[j]) +
 *   (bits(ks) << 48) = bits(T_j) + (k >> 4) << 52 (the shifter's bits vanish in the shift; om_exp16_adj[j] =
 *   T_j's bits minus j << 48); for 2 T_j the caller's shifter is 1.5 2^52 + 16, whose 16 adds 1 << 52 (one to
 *   the exponent) and leaves j = k & 15 unchanged (OM_EXP2X16_SH). */
static inline __attribute__((always_inline)) om_vd om_vexp16_sc_bits(om_vd ks) {
  om_vul kb = (om_vul)ks;
  return (om_vd)((om_vul)om_vtab16(om_exp16_adj, kb) + (kb << 48));
}
static inline __attribute__((always_inline)) om_vd om_vexp16_sc(om_vd ks, om_vd kq, const double* tab) {
#if OM_VB == 64
  return (om_vd)_mm512_scalef_pd((__m512d)om_vtab16(tab, (om_vul)ks), (__m512d)kq);
#else
  (void)kq, (void)tab;
  return om_vexp16_sc_bits(ks);
#endif
}
/* In two steps, for a loop that pipelines them: the reduction (r and sc), then p and e^t. */
static inline __attribute__((always_inline)) void om_vexp16_reduce(om_vd t, int flags, om_vd* r, om_vd* sc) {
  const int neg = flags & OM_EXP16_NEG;
  om_vd ks = om_fma(t, OM_VD((neg ? -OM_INVLN2_16 : OM_INVLN2_16) * OM_EXP16_KQ), OM_VD(OM_EXP16_SH));
  om_vd kq = ks - OM_EXP16_SH; /* k OM_EXP16_KQ, exact */
  const double hq = -OM_LN2_16_HI / OM_EXP16_KQ;
  *r = neg ? om_fms(kq, OM_VD(hq), t) : om_fma(kq, OM_VD(hq), t);
  *sc = om_vexp16_sc(ks, kq, om_exp16_t);
}
static inline __attribute__((always_inline)) om_vd om_vexp16_p(om_vd r) {
  return om_fma(r * r, om_vpoly(r, om_expm1_q16s, 4), r);
}
static inline __attribute__((always_inline)) om_vd om_vexp16_e(om_vd r, om_vd sc) {
  return om_fma(sc, om_vexp16_p(r), sc);
}
static inline __attribute__((always_inline)) om_vd om_vexp16(om_vd t, int flags) {
  om_vd r, sc;
  om_vexp16_reduce(t, flags, &r, &sc);
  return om_vexp16_e(r, sc);
}

/* e^(2a) ~= sc2 (1 + 2 ph)/2 for |a| <= 9.5 (a an f32), Tanh's reduction: the one of om_vexp16 for t = 2a, done
 * on a itself (so no doubling), and with the factor 2 of 2 ph folded into sc2 = 2 sc (om_vexp2x16_reduce gives r
 * and sc2, om_vexp2x16_ph gives ph):
 *   k = rint(a 32/ln2): ks = fma(a, RN(32/ln2) OM_EXP16_KQ, OM_EXP2X16_SH) (RN(32/ln2) = 2 RN(16/ln2)), the
 *   shifter of om_vexp16_sc (1.5 2^52 + 16 on the 256 path), |k| <= 439;
 *   r = fma(-k, HI/2, a) with HI = OM_LN2_16_HI, exact: k = 0 gives a; else |a| >= 0.0108 is an f32 multiple
 *   of 2^-30, k HI/2 a multiple of 2^-58, and |r| < 2^-6, so r has at most 52 significant bits. |r| <= ln2/64
 *   (1 + 2^-40) < 0.010831 and r differs from a - k ln2/32 by |k| (ln2/32 - HI/2) < |k| 2^-60.25.
 *   ph = fma(r^2, q(r), r) ~= (e^(2r) - 1)/2, q of degree 4 (om_expm1h_q32): Sollya relative error
 *   < 2^OM_EXPM1H_Q32_LOG2ERR (-49.45). q by Estrin's scheme, for a shorter chain than Horner's (Tanh's loop
 *   is held back by its chain, see OM_TR_KERNEL_FMA_GEN): qa = RN(q0 + q1 r) in [0.9927, 1.0073] (within
 *   2^-53), qc = RN(q2 + RN(q3 + q4 r) r) below 0.335 (within 2^-55 + 2^-56 |r|), q = RN(qa + qc r^2) with
 *   |qc r^2| < 3.93e-5 (within 2^-53 plus qa's error, the rest below 0.0001 2^-53): q within 2.02 2^-53
 *   relative, r^2 q within 3.03 2^-53 (r^2 rounded once) with |r^2 q| < 0.011 |ph|, and the fma rounds once:
 *   ph is within 2^-49.45 + 2^-53 + 2^-57.9 < 2^-49.3 relative of (e^(2r) - 1)/2 at the computed r.
 *   sc2 = 2 T_j 2^(k >> 4) from om_vexp16_sc with om_exp16_t2; T_j = RN(2^(j/16)), within 2^-53. The caller
 *   forms e^(2a) - 1 = fma(sc2, ph, sc2/2 - 1) (see tanh_f32.h). */
#if OM_VB == 64
#define OM_EXP2X16_SH OM_EXP16_SH
#else
#define OM_EXP2X16_SH (0x1.8p52 + 16.0)
#endif
/* In two steps, for a loop that pipelines them (tanh_f32.h): the reduction (r and sc2), then the polynomial. */
static inline __attribute__((always_inline)) void om_vexp2x16_reduce(om_vd a, om_vd* r, om_vd* sc2) {
  om_vd ks = om_fma(a, OM_VD(2.0 * OM_INVLN2_16 * OM_EXP16_KQ), OM_VD(OM_EXP2X16_SH));
  om_vd kq = ks - OM_EXP2X16_SH; /* k OM_EXP16_KQ, exact */
  *r = om_fma(kq, OM_VD(-0.5 * OM_LN2_16_HI / OM_EXP16_KQ), a);
  *sc2 = om_vexp16_sc(ks, kq, om_exp16_t2);
}
/* ph = fma(r^2, q(r), r) for q's n coefficients (n = 4 or 5): qa = q0 + q1 r, qc = q2 + q3 r (+ q4 r^2) by
 * Horner (om_vpoly), q = qa + qc r^2. */
static inline __attribute__((always_inline)) om_vd om_vexp2x16_ph_q(om_vd r, const double* q, int n) {
  om_vd r2 = r * r;
  om_vd qa = om_fma(r, OM_VD(q[1]), OM_VD(q[0]));
  om_vd qc = om_vpoly(r, q + 2, n - 2);
  return om_fma(r2, om_fma(qc, r2, qa), r);
}
static inline __attribute__((always_inline)) om_vd om_vexp2x16_ph(om_vd r) {
  return om_vexp2x16_ph_q(r, om_expm1h_q32, 5);
}
/* The same with q of degree 3 (om_expm1h_q32_3, Sollya relative error < 2^OM_EXPM1H_Q32_3_LOG2ERR (-40.12)), one FMA
 * fewer: qa as above, qc = RN(q2 + q3 r) below 0.335 (within 2^-55 + 2^-56 |r|), and the rest as above: ph within
 * 2^-40.12 + 2^-53 + 2^-57.9 < 2^-40.11 relative of (e^(2r) - 1)/2 at the computed r (Tanh's first pass). */
static inline __attribute__((always_inline)) om_vd om_vexp2x16_ph3(om_vd r) {
  return om_vexp2x16_ph_q(r, om_expm1h_q32_3, 4);
}
/* bits(v) & c in every lane; on the 512 path with c as a broadcast memory operand (a load, not a vector-port
 * operation to rebuild it when the kernel's constants do not all fit in registers). */
static inline __attribute__((always_inline)) om_vul om_vand_bcst(om_vd v, const uint64_t* c) {
#if OM_VB == 64
  __m512i r;
  __asm__("vpandq %[c]%{1to8%}, %[v], %[r]" : [r] "=v"(r) : [v] "v"(v), [c] "m"(*c));
  return (om_vul)r;
#else
  return (om_vul)v & *c;
#endif
}
/* min(|w|, c) per lane for c > 0 and w not NaN (VRANGEPD, like MINPD, drops a NaN): one VRANGEPD (min of the
 * magnitudes, sign cleared) on the 512 path, ANDPD and MINPD on the 256 path. */
static inline __attribute__((always_inline)) om_vd om_vabs_min(om_vd w, double c) {
#if OM_VB == 64
  return (om_vd)_mm512_range_pd((__m512d)w, _mm512_set1_pd(c), 0xa); /* [1:0] = 2: min magnitude; [3:2] = 2: +0 sign */
#else
  return om_vminpd(om_vabs(w), c);
#endif
}
/* Ordinary-input tests of the FMA first passes: every lane x has lo <= x <= hi and |x| >= tiny (NaN fails; tiny = 0
 * skips that compare, and so does hi = inf on the 512 path, where NaN already fails lo <= x; lo = -inf,
 * tiny = 2^-126, hi = inf is the class test "no NaN, zero or subnormal", one VFPCLASSPS on the 512 path). The
 * constants are f32 values, so the test is the same as in double.
 * om_ord_range tests the whole vector at p (16 f32 lanes on the 512 path, 8 on the 256 path) at once: compares
 * chained through the mask registers and one KORTESTW, or compares, ANDs and one VTESTPS; om_ordh_range tests
 * one half vector (the kernel's second chance for a whole vector that fails). */
#define OM_ORD_IS_CLASS(lo, tiny, hi) ((lo) == -__builtin_inff() && (tiny) == 0x1p-126f && (hi) == __builtin_inff())
static inline __attribute__((always_inline)) int om_ord_range(const float* p, float lo, float tiny, float hi) {
#if OM_VB == 64
  __m512 x = _mm512_loadu_ps(p);
  if (OM_ORD_IS_CLASS(lo, tiny, hi)) return _mm512_fpclass_ps_mask(x, 0xa7) == 0; /* QNaN, +-0, subnormal, SNaN */
  __mmask16 k = _mm512_cmp_ps_mask(x, _mm512_set1_ps(lo), _CMP_GE_OQ);
  if (hi != __builtin_inff()) k = _mm512_mask_cmp_ps_mask(k, x, _mm512_set1_ps(hi), _CMP_LE_OQ);
  if (tiny > 0.0f) k = _mm512_mask_cmp_ps_mask(k, _mm512_abs_ps(x), _mm512_set1_ps(tiny), _CMP_GE_OQ);
  return _kortestc_mask16_u8(k, k);
#else
  __m256 x = _mm256_loadu_ps(p);
  __m256 m = _mm256_and_ps(_mm256_cmp_ps(x, _mm256_set1_ps(lo), _CMP_GE_OQ),
                           _mm256_cmp_ps(x, _mm256_set1_ps(hi), _CMP_LE_OQ));
  if (tiny > 0.0f) {
    __m256 ax = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), x);
    m = _mm256_and_ps(m, _mm256_cmp_ps(ax, _mm256_set1_ps(tiny), _CMP_GE_OQ));
  }
  return _mm256_testc_ps(m, _mm256_castsi256_ps(_mm256_set1_epi32(-1)));
#endif
}
static inline __attribute__((always_inline)) int om_ordh_range(om_vfh x, float lo, float tiny, float hi) {
#if OM_VB == 64
  if (OM_ORD_IS_CLASS(lo, tiny, hi)) return _mm256_fpclass_ps_mask((__m256)x, 0xa7) == 0;
#endif
  om_vfh ax = (om_vfh)((om_vih)x & 0x7fffffff);
  om_vih m = (om_vih)(x >= lo) & (om_vih)(x <= hi);
  if (tiny > 0.0f) m &= (om_vih)(ax >= tiny);
  return om_tr_all(m);
}
/* t - rint(t) per lane (exact; ties to even, as the 1.5 2^52 shifter rounds): one VREDUCEPD on the 512 path;
 * on the 256 path t - (ks - 1.5 2^52) from the caller's shifted ks = t + 1.5 2^52. */
static inline __attribute__((always_inline)) om_vd om_vfrac_rint(om_vd t, om_vd ks) {
#if OM_VB == 64
  (void)ks;
  return (om_vd)_mm512_reduce_pd((__m512d)t, 0x0);
#else
  return t - (ks - 0x1.8p52);
#endif
}
/* clamp(w, -c, c) per lane for c > 0 (w not NaN): one VRANGEPD (min of the magnitudes, sign of w) on the 512
 * path, MINPD and MAXPD on the 256 path. */
static inline __attribute__((always_inline)) om_vd om_vclamp_sym(om_vd w, double c) {
#if OM_VB == 64
  return (om_vd)_mm512_range_pd((__m512d)w, _mm512_set1_pd(c), 0x2); /* [1:0] = 2: min magnitude; [3:2] = 0: sign of w */
#else
  return om_vmaxpd(om_vminpd(w, c), -c);
#endif
}

/* n0/d0 and n1/d1 (two half vectors; d0, d1 > 0 and every product below a normal double) with one division:
 * w = RN(1/RN(d0 d1)), y0 = RN(RN(n0 d1) w), y1 = RN(RN(n1 d0) w). Four roundings, each within 2^-53 relative
 * (the first enters through 1/p): y0 = (n0/d0)(1 + eta) with |eta| < 4.01 2^-53, and the same for y1
 * (3.01 2^-53 where a numerator is exactly 1). The division itself is VDIVPD, the IEEE one; the divider is a
 * unit of its own that takes about 16 cycles per VDIVPD of 8 lanes here (tools/bench/port_bench.c), so one division
 * per 16 lanes instead of two halves its load. Split for the pipelined loop (OM_TR_KERNEL_FMA_QUOT): the start
 * (products and the division) of one vector, the end (two products) PIPE vectors later. */
static inline __attribute__((always_inline)) void om_vdiv_pair_start(om_vd n0, om_vd d0, om_vd n1, om_vd d1,
                                                                     om_vd* p0, om_vd* p1, om_vd* w) {
  *w = 1.0 / (d0 * d1);
  *p0 = n0 * d1;
  *p1 = n1 * d0;
}
/* The same for n0 = n1 = 1 (y0 = 1/d0, y1 = 1/d1): the products n0 d1 and n1 d0 are d1 and d0 themselves, so the
 * end's factors are those (the same bits: RN(1 d1) = d1; 3.01 2^-53). */
static inline __attribute__((always_inline)) void om_vdiv_pair_start_unit(om_vd d0, om_vd d1, om_vd* p0, om_vd* p1,
                                                                          om_vd* w) {
  *w = 1.0 / (d0 * d1);
  *p0 = d1;
  *p1 = d0;
}
static inline __attribute__((always_inline)) void om_vdiv_pair_end(om_vd p0, om_vd p1, om_vd w, om_vd* y0, om_vd* y1) {
  *y0 = p0 * w;
  *y1 = p1 * w;
}

/* Rounding test on the bits of y, for a y whose magnitude is in [2^-126, 2^128) (a normal f32 result or the
 * overflow threshold's neighbourhood; the callers route other lanes to the general first pass) and whose
 * relative error eps is below T 2^-53 (1 - 2^-49) (T a power of two, 2 <= T <= 2^27; each caller's file gives its
 * bound, all below 0.7 T 2^-53): the f32 rounding boundaries of y's binade are the doubles whose 29 low mantissa bits are
 * 2^28 (the overflow threshold 2^128 (1 - 2^-25) among them), the nearest ones outside it are 2^27 double ulps
 * away, and for the true value v, |v - y| <= eps |v| < T 2^-53 (1 - 2^-49) 2^(E+1) (1 + 2^-40) < T ulp(y) for y
 * in [2^E, 2^(E+1)). So if the low 29 bits are at least T away from 2^28, no boundary lies between y and v
 * (nor on v) and RN_f32(y) = RN_f32(v). Flagged: the lanes whose low 29 bits lie in [2^28 - T, 2^28 + T), a
 * superset of the others, found in two operations: (low + 2^28 + T) mod 2^29 = (low - (2^28 - T)) mod 2^29 is
 * below 2T exactly when bits log2(2T) to 28 of bits(y) + 2^28 + T are all zero (a carry out of bit 28 changes
 * only the bits above, which the mask leaves out).
 * Fast mode: RN_f32(y). */
/* The test's two constants for T: the offset 2^28 + T and the mask of bits log2(2T) to 28. */
#define OM_TR_TEST_OFF(T) ((1ULL << 28) + (T))
#define OM_TR_TEST_MSK(T) ((1ULL << 29) - 2ULL * (T))
#if OM_VB == 64
void om_tr_round_bits_bad_t(void) __attribute__((error("om_tr_round_bits_mem: T must be 32, 128, 512, 4096, 8192 or 32768")));
/* The memory operands of the mem = 1 forms (om_tr_round_bits_as, om_tr_any_test2), one entry per T: the
 * values are below 2^29, so a 64-bit entry's first dword is the same value for the 32-bit lanes' broadcast. */
static const uint64_t om_tr_test_off[] = {OM_TR_TEST_OFF(32),   OM_TR_TEST_OFF(128),  OM_TR_TEST_OFF(512),
                                          OM_TR_TEST_OFF(4096), OM_TR_TEST_OFF(8192), OM_TR_TEST_OFF(32768)};
static const uint64_t om_tr_test_msk[] = {OM_TR_TEST_MSK(32),   OM_TR_TEST_MSK(128),  OM_TR_TEST_MSK(512),
                                          OM_TR_TEST_MSK(4096), OM_TR_TEST_MSK(8192), OM_TR_TEST_MSK(32768)};
static inline __attribute__((always_inline)) int om_tr_test_index(unsigned t) {
  if (!(t == 32 || t == 128 || t == 512 || t == 4096 || t == 8192 || t == 32768)) om_tr_round_bits_bad_t(); /* a build error */
  return t == 32 ? 0 : t == 128 ? 1 : t == 512 ? 2 : t == 4096 ? 3 : t == 8192 ? 4 : 5;
}
#endif
/* mem = 0: the two constants held in registers (the asm keeps GCC from rebuilding them in every iteration);
 * mem = 1 (512 path; the kernels whose tables or coefficients fill the registers: Log, Erf, Gelu none; and
 * Sigmoid, 1-3% faster so by tools/bench/ab_kernels.sh): both as broadcast memory operands, a load each and no
 * vector-port operation, where GCC would otherwise rebuild them from general registers in every iteration. Same
 * flags either way. */
static inline __attribute__((always_inline)) om_vfh om_tr_round_bits_as(om_vd y, unsigned t, int mem, int exact,
                                                                        om_trmask* bad) {
  om_vfh r = __builtin_convertvector(y, om_vfh);
  if (exact) {
#if OM_VB == 64
    if (mem) {
      const int ti = om_tr_test_index(t);
      __m512i s;
      __asm__("vpaddq %[o]%{1to8%}, %[y], %[s]\n\tvptestnmq %[m]%{1to8%}, %[s], %[k]"
              : [s] "=&v"(s), [k] "=k"(*bad)
              : [y] "v"(y), [o] "m"(om_tr_test_off[ti]), [m] "m"(om_tr_test_msk[ti]));
    } else {
      __m512i off = _mm512_set1_epi64((long long)OM_TR_TEST_OFF(t));
      __m512i msk = _mm512_set1_epi64((long long)OM_TR_TEST_MSK(t));
      __asm__("" : "+v"(off), "+v"(msk));
      *bad = _mm512_testn_epi64_mask(_mm512_add_epi64((__m512i)y, off), msk);
    }
#else
    (void)mem;
    om_vl m = (om_vl)((((om_vul)y + OM_TR_TEST_OFF(t)) & OM_TR_TEST_MSK(t)) == 0);
    *bad = __builtin_convertvector(m, om_vih);
#endif
  }
  return r;
}
static inline __attribute__((always_inline)) om_vfh om_tr_round_bits(om_vd y, unsigned t, int exact, om_trmask* bad) {
  return om_tr_round_bits_as(y, t, 0, exact, bad);
}
static inline __attribute__((always_inline)) om_vfh om_tr_round_bits_mem(om_vd y, unsigned t, int exact, om_trmask* bad) {
  return om_tr_round_bits_as(y, t, 1, exact, bad);
}
#endif

/* The last step of every kernel: y the double result with relative error bound eps (per lane), sp the lanes
 * whose result sv is already settled (specials). Returns RN_f32(y) in every lane (sv in sp lanes); in exact
 * mode *bad gets the lanes where the rounding test (see the file comment) cannot vouch for RN_f32(y), which the
 * kernel loop then recomputes with the scalar fallback (om_tr_fix). In fast mode the test is skipped: RN_f32(y),
 * at most half an ulp plus the tiny eps off. */
static inline __attribute__((always_inline)) om_vfh om_tr_round(const om_vd* yp, const om_vd* epsp, om_vih sp,
                                                                om_vfh sv, int exact, om_trmask* bad) {
  om_vd y = *yp, eps = *epsp;
  om_vfh r = __builtin_convertvector(y, om_vfh);
  if (exact) {
    om_vd e = om_vabs(y) * (eps + 0x1p-52);
    om_vfh a = __builtin_convertvector(y - e, om_vfh), b = __builtin_convertvector(y + e, om_vfh);
    om_vih m = (om_vih)(a != b) & ~sp; /* -0 == +0: the sign of a result is that of y (relative error < 1) */
#if OM_VB == 64
    __m256i mv;
    memcpy(&mv, &m, 32);
    *bad = (om_trmask)_mm256_movepi32_mask(mv);
#else
    *bad = m;
#endif
  }
  return OM_VSELF(sp, sv, r);
}

/* Any lane set in a vector of lane flags (pow.inc's)? */
static inline __attribute__((always_inline)) int om_tr_any(const om_vih* bad) {
#if OM_VB == 64
  __m256i v;
  memcpy(&v, bad, 32);
  return _mm256_movepi32_mask(v) != 0;
#else
  return om_trmask_any(*bad); /* om_trmask is the lane vector on these paths */
#endif
}

/* The kernel of a unary f32 transcendental: whole vectors of the path (one lane on the scalar path), each as
 * two half vectors of OM_TR_L lanes; VFN(x, exact, &bad) gives a half vector's results and, in exact mode, the
 * lanes the rounding test could not settle. The loop has no call in it (a call would evict every constant
 * from the registers): it only notes the offsets of the whole vectors with such lanes in either half (one test
 * of the two halves' flags together), for up to OM_TR_CHUNK elements; NAME_fix then recomputes each half of
 * a noted vector (the same operations, so the same bad lanes) and replaces its flagged lanes with the scalar
 * fallback FB. Exact mode only: fast mode never reaches this kernel
 * (transcendental.inc registers NAME_fx, which sends it to the f32 kernels of om_fast_f32.h). */
#define OM_TR_CHUNK 512
#define OM_TR_HALF(VFN, OFF, BAD)                              \
  {                                                            \
    om_vfh x_, r_;                                             \
    OM_LOAD(x_, a + i + (OFF));                                \
    r_ = VFN(x_, 1, &(BAD));                                   \
    OM_STORE(o + i + (OFF), r_);                               \
  }
/* Note the whole vector at offset OFF as the next candidate for the fix (kept only if nfix is then advanced):
 * its offset, and where output and input overlap a copy of its input lanes, taken before its own stores. */
#define OM_TR_NOTE(OFF)                                                                          \
  do {                                                                                           \
    fix[nfix] = (uint32_t)(OFF);                                                                 \
    if (alias_) memcpy(xin[nfix], a + (OFF), sizeof xin[0]);                                     \
  } while (0)
/* The kernel function around its loop: chunks of up to OM_TR_CHUNK elements, each noting the whole vectors
 * with a flagged lane (OM_TR_NOTE before the vector's stores: its offset in fix[nfix]; then nfix += flagged),
 * then NAME_fix redoing the noted vectors once the chunk's stores are all done. ORT may run these nodes in place
 * (GetMayInplace): when the output overlaps the input, the chunk's stores have overwritten the inputs by the
 * time the fix runs, so OM_TR_NOTE also copies the vector's input lanes to xin[nfix] and the fix reads that
 * copy (tests/kernels/test_transcendentals.py, test_in_place_matches_out_of_place; out of place the copy is skipped:
 * it cost Exp 3%). Between OM_TR_LOOP_OPEN and OM_TR_LOOP_CLOSE comes the chunk's loop over i (up to end). */
#define OM_TR_LOOP_OPEN(NAME)                                                                    \
  static size_t OM_FN(NAME)(const void* pa, void* po, size_t n, unsigned fl) {                   \
    const float* a = (const float*)pa;                                                           \
    float* o = (float*)po;                                                                       \
    size_t i = 0;                                                                                \
    uint32_t fix[OM_TR_CHUNK / OM_LANES(float) + 1];                                             \
    float xin[OM_TR_CHUNK / OM_LANES(float) + 1][OM_LANES(float)];                               \
    unsigned nfix = 0;                                                                           \
    const int alias_ = (uintptr_t)a < (uintptr_t)(o + n) && (uintptr_t)o < (uintptr_t)(a + n);  \
    (void)fl; /* exact mode (see above) */                                                       \
    while (i + OM_LANES(float) <= n) {                                                           \
      size_t end = n - i > OM_TR_CHUNK ? i + OM_TR_CHUNK : n;                                    \
      nfix = 0;
#define OM_TR_LOOP_CLOSE(NAME)                                                                   \
      for (unsigned k = 0; k < nfix; k++) OM_FN(NAME##_fix)(alias_ ? xin[k] : a + fix[k], o + fix[k]); \
    }                                                                                            \
    return i;                                                                                    \
  }
/* The loop of OM_TR_KERNEL: STEP computes the whole vector at i (its results stored) and sets any_ when a lane
 * is flagged. */
#define OM_TR_KERNEL_LOOP(NAME, STEP)                                                            \
  OM_TR_LOOP_OPEN(NAME)                                                                          \
  for (; i + OM_LANES(float) <= end; i += OM_LANES(float)) {                                     \
    int any_;                                                                                    \
    OM_PREFETCH_STREAM_SLOW(a + i, o + i);                                                       \
    OM_TR_NOTE(i);                                                                               \
    STEP                                                                                         \
    nfix += (unsigned)any_;                                                                      \
  }                                                                                              \
  OM_TR_LOOP_CLOSE(NAME)
/* The fix functions' last step for the half vector at ah (output oh): each lane the first pass flagged in bad
 * takes the double-double fallback FB. */
#define OM_TR_FALLBACK_LANES(FB, bad, ah, oh)                                                    \
  for (size_t l = 0; l < OM_TR_L; l++)                                                           \
    if (OM_TR_LANE(bad, l)) OM_TR_ON_FALLBACK((ah)[l]), (oh)[l] = FB((double)(ah)[l])
#define OM_TR_KERNEL(NAME, VFN, FB)                                                              \
  static __attribute__((noinline, cold)) void OM_FN(NAME##_fix)(const float* a, float* o) {      \
    for (size_t h = 0; h < OM_LANES(float) / OM_TR_L; h++) {                                     \
      const float* ah = a + h * OM_TR_L;                                                         \
      om_vfh x, r;                                                                               \
      om_trmask bad = OM_TR_NONE;                                                                \
      OM_LOAD(x, ah);                                                                            \
      r = VFN(x, 1, &bad);                                                                       \
      (void)r;                                                                                   \
      OM_TR_FALLBACK_LANES(FB, bad, ah, o + h * OM_TR_L);                                        \
    }                                                                                            \
  }                                                                                              \
  OM_TR_KERNEL_LOOP(NAME, {                                                                      \
    om_trmask bad0 = OM_TR_NONE;                                                                 \
    om_trmask bad1 = OM_TR_NONE;                                                                 \
    OM_TR_HALF(VFN, 0, bad0)                                                                     \
    if (OM_LANES(float) > 1) OM_TR_HALF(VFN, OM_TR_L, bad1)                                      \
    any_ = om_trmask_any2(bad0, bad1); /* one test of both halves' flags */                     \
  })

#ifdef OM_TR_FMA
/* The rounding test (om_tr_round_bits) of two half vectors' results at once: any lane of y0 or y1 flagged? Its
 * predicate reads only the low 29 bits of each double (the offset and the mask are below 2^29; a carry out of
 * bit 31 changes no masked bit), so on the 512 path the low dwords of both halves' 16 doubles are gathered into
 * one vector by one VPERMT2D and tested with one VPADDD and one VPTESTNMD on 16 lanes (three operations where
 * two tests of 8 lanes and their KORTESTB took five). The lanes flagged are the same as om_tr_round_bits's. */
static inline __attribute__((always_inline)) int om_tr_any_test2(om_vd y0, om_vd y1, unsigned t, int mem) {
#if OM_VB == 64
  const __m512i idx = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
  __m512i lo = _mm512_permutex2var_epi32((__m512i)y0, idx, (__m512i)y1);
  __mmask16 k;
  if (mem) {
    const int ti = om_tr_test_index(t);
    __m512i s;
    __asm__("vpaddd %[o]%{1to16%}, %[y], %[s]\n\tvptestnmd %[m]%{1to16%}, %[s], %[k]" /* the entries' first dwords */
            : [s] "=&v"(s), [k] "=k"(k)
            : [y] "v"(lo), [o] "m"(om_tr_test_off[ti]), [m] "m"(om_tr_test_msk[ti]));
  } else {
    __m512i off = _mm512_set1_epi32((int)OM_TR_TEST_OFF(t));
    __m512i msk = _mm512_set1_epi32((int)OM_TR_TEST_MSK(t));
    __asm__("" : "+v"(off), "+v"(msk));
    k = _mm512_testn_epi32_mask(_mm512_add_epi32(lo, off), msk);
  }
  return !_kortestz_mask16_u8(k, k);
#else
  om_trmask b0 = OM_TR_NONE, b1 = OM_TR_NONE;
  (void)om_tr_round_bits_as(y0, t, mem, 1, &b0);
  (void)om_tr_round_bits_as(y1, t, mem, 1, &b1);
  return om_trmask_any2(b0, b1);
#endif
}
#endif
/* The kernel of the FMA paths: VY is the FMA first pass (its double result y, before the rounding test with T
 * and MEM, see om_tr_round_bits_as), valid for the ordinary inputs LO <= x <= HI with |x| >= TINY
 * (om_ord_range); VGEN is the general first pass, valid for all inputs. The input test runs once per whole
 * vector. A whole vector that passes it takes NAME_start on both halves at once, then NAME_mid and NAME_finish,
 * and one rounding test of both (om_tr_any_test2); a whole vector that fails it is tested again by halves, and a half
 * that passes takes VY, one that fails VGEN. Every pass gives the correctly rounded result in every lane it
 * does not flag, so the choice changes no result. NAME_fix gets the whole vector, takes the same decisions and
 * recomputes with the same operations and per-half tests, so it sees the same flagged lanes.
 *
 * The loop is software-pipelined (PIPE 0 to 4). A whole vector goes through four stages: NAME_start,
 * NAME_startb, NAME_mid (for the _QUOT kernels the pair division: its product, the VDIVPD and two products)
 * and NAME_finish (the last products, the conversions, stores and the rounding test). PIPE 1 and 2 run the
 * first three on vector j and the finish on vector j - PIPE; PIPE 3 runs start and startb on j, mid on j - 1
 * and finish on j - 2; PIPE 4 runs start on j, startb on j - 1, mid on j - 2 and finish on j - 3. A stage
 * thus waits in no scheduler queue for the end of the long dependency chain of the stages before it, which
 * the other vectors' work covers: a chain ending in a division or in five dependent products ran at the same
 * lower speed, so the chain's length, not the operation count, was what held these loops back. A vector that
 * fails the input test first finishes the pending ones. Each kernel's PIPE is the fastest of those tried on
 * this machine (tools/c_tool.py tr_bench OP 65536, binaries alternated): 4 for Tanh (3 was 6% slower; 2 on the 256
 * path) and Sigmoid (3 no faster than 2, 4 5% faster; 2 on the 256 path, where 4 was 9% slower), each with the
 * reduction of its exponential in the start and the polynomial in the startb, and Gelu tanh (6% faster than
 * 3), with v in the start and the whole exponential in the startb; 3 for Gelu none (4, with either its P and e^t or its Q in the start, no faster); 2 for Log and
 * Erf; 1 for Exp. */
#define OM_TR_FAST(VY, T, MEM, X, BAD) om_tr_round_bits_as(VY(X), T, MEM, 1, BAD)
#define OM_TR_HALF_ORD(VY, T, MEM, VGEN, OFF, BAD, LO, TINY, HI)                                    \
  {                                                                                                 \
    om_vfh x_, r_;                                                                                  \
    OM_LOAD(x_, a + i + (OFF));                                                                     \
    r_ = om_ordh_range(x_, LO, TINY, HI) ? OM_TR_FAST(VY, T, MEM, x_, &(BAD)) : VGEN(x_, 1, &(BAD)); \
    OM_STORE(o + i + (OFF), r_);                                                                    \
  }
/* Hand the pipeline slot S (its flag, offset and first three state vectors: all a vector carries after its mid)
 * on to slot D; a move into slot r, before the mid, copies the fourth itself. */
#define OM_TR_PIPE_MOVE(DEND, DI, DS, SEND, SI, SS) \
  do {                                              \
    DEND = SEND;                                    \
    DI = SI;                                        \
    DS##0 = SS##0;                                  \
    DS##1 = SS##1;                                  \
    DS##2 = SS##2;                                  \
  } while (0)
/* Finish the pending whole vector at offset PI from its carried state S0, S1, S2: results, stores, test. */
#define OM_TR_PIPE_FINISH(NAME, PI, S0, S1, S2, T, MEM)                                             \
  do {                                                                                              \
    om_vd y0_, y1_;                                                                                 \
    NAME##_finish(S0, S1, S2, &y0_, &y1_);                                                          \
    om_vfh r0_ = __builtin_convertvector(y0_, om_vfh), r1_ = __builtin_convertvector(y1_, om_vfh);    \
    OM_TR_NOTE(PI);                                                                                 \
    OM_STORE(o + (PI), r0_);                                                                        \
    OM_STORE(o + (PI) + OM_TR_L, r1_);                                                              \
    nfix += (unsigned)om_tr_any_test2(y0_, y1_, T, MEM);                                            \
  } while (0)
/* Finish every pending vector, oldest first (slot q, then r, then p), each through its remaining stages. */
#define OM_TR_PIPE_DRAIN(NAME, T, MEM, PIPE)                                \
  do {                                                                      \
    if (qend) OM_TR_PIPE_FINISH(NAME, qi, qs0, qs1, qs2, T, MEM);           \
    if (rend) {                                                             \
      NAME##_mid(&rs0, &rs1, &rs2, &rs3);                                   \
      OM_TR_PIPE_FINISH(NAME, ri, rs0, rs1, rs2, T, MEM);                   \
    }                                                                       \
    if (pend) {                                                             \
      if ((PIPE) >= 4) NAME##_startb(&ps0, &ps1, &ps2, &ps3);               \
      if ((PIPE) >= 3) NAME##_mid(&ps0, &ps1, &ps2, &ps3);                  \
      OM_TR_PIPE_FINISH(NAME, pi, ps0, ps1, ps2, T, MEM);                   \
    }                                                                       \
    pend = qend = rend = 0;                                                 \
  } while (0)
#define OM_TR_KERNEL_FMA_GEN(NAME, LO, TINY, HI, VY, T, MEM, VGEN, FB, PIPE)                          \
  static __attribute__((noinline, cold)) void OM_FN(NAME##_fix)(const float* a, float* o) {           \
    om_vfh x_[2];                                                                                   \
    OM_LOAD(x_[0], a);                                                                              \
    OM_LOAD(x_[1], a + OM_TR_L);                                                                    \
    if (om_ord_range(a, LO, TINY, HI)) {                                                            \
      om_vd s_[4], y_[2];                                                                           \
      NAME##_start(x_[0], x_[1], &s_[0], &s_[1], &s_[2], &s_[3]);                                   \
      NAME##_startb(&s_[0], &s_[1], &s_[2], &s_[3]);                                                \
      NAME##_mid(&s_[0], &s_[1], &s_[2], &s_[3]);                                                   \
      NAME##_finish(s_[0], s_[1], s_[2], &y_[0], &y_[1]);                                           \
      for (size_t h = 0; h < 2; h++) {                                                              \
        om_trmask bad = OM_TR_NONE;                                                                 \
        (void)om_tr_round_bits_as(y_[h], T, MEM, 1, &bad);                                          \
        OM_TR_FALLBACK_LANES(FB, bad, a + h * OM_TR_L, o + h * OM_TR_L);                            \
      }                                                                                             \
      return;                                                                                       \
    }                                                                                               \
    for (size_t h = 0; h < 2; h++) {                                                                \
      om_trmask bad = OM_TR_NONE;                                                                   \
      om_vfh r = om_ordh_range(x_[h], LO, TINY, HI) ? OM_TR_FAST(VY, T, MEM, x_[h], &bad)           \
                                                    : VGEN(x_[h], 1, &bad);                         \
      (void)r;                                                                                      \
      OM_TR_FALLBACK_LANES(FB, bad, a + h * OM_TR_L, o + h * OM_TR_L);                              \
    }                                                                                               \
  }                                                                                                 \
  OM_TR_LOOP_OPEN(NAME)                                                                             \
      size_t pi = 0, qi = 0;                                                                        \
      int pend = 0, qend = 0;                                                                       \
      size_t ri = 0;                                                                                \
      int rend = 0;                                                                                 \
      om_vd ps0 = OM_VD(0.0), ps1 = OM_VD(0.0), ps2 = OM_VD(0.0), ps3 = OM_VD(0.0); /* started */  \
      om_vd rs0 = OM_VD(0.0), rs1 = OM_VD(0.0), rs2 = OM_VD(0.0), rs3 = OM_VD(0.0); /* PIPE 4 */   \
      om_vd qs0 = OM_VD(0.0), qs1 = OM_VD(0.0), qs2 = OM_VD(0.0);                   /* to finish */\
      for (; i + OM_LANES(float) <= end; i += OM_LANES(float)) {                                    \
        OM_PREFETCH_STREAM_SLOW(a + i, o + i);                                                      \
        if (__builtin_expect(om_ord_range(a + i, LO, TINY, HI), 1)) {                               \
          om_vfh x0_, x1_;                                                                          \
          om_vd s0_, s1_, s2_, s3_;                                                                 \
          OM_LOAD(x0_, a + i);                                                                      \
          OM_LOAD(x1_, a + i + OM_TR_L);                                                            \
          NAME##_start(x0_, x1_, &s0_, &s1_, &s2_, &s3_);                                           \
          if ((PIPE) < 4) NAME##_startb(&s0_, &s1_, &s2_, &s3_);                                    \
          if ((PIPE) < 3) NAME##_mid(&s0_, &s1_, &s2_, &s3_);                                       \
          if (!(PIPE)) {                                                                            \
            OM_TR_PIPE_FINISH(NAME, i, s0_, s1_, s2_, T, MEM);                                      \
            continue;                                                                               \
          }                                                                                         \
          if ((PIPE) >= 4) { /* three vectors in flight: finish q, mid r (to q), startb p (to r) */ \
            if (qend) OM_TR_PIPE_FINISH(NAME, qi, qs0, qs1, qs2, T, MEM);                           \
            if (rend) NAME##_mid(&rs0, &rs1, &rs2, &rs3);                                           \
            OM_TR_PIPE_MOVE(qend, qi, qs, rend, ri, rs);                                            \
            if (pend) NAME##_startb(&ps0, &ps1, &ps2, &ps3);                                        \
            OM_TR_PIPE_MOVE(rend, ri, rs, pend, pi, ps);                                            \
            rs3 = ps3;                                                                              \
          } else if ((PIPE) >= 2) { /* two in flight: finish q, (PIPE 3: mid) p to q */             \
            if (qend) OM_TR_PIPE_FINISH(NAME, qi, qs0, qs1, qs2, T, MEM);                           \
            if ((PIPE) >= 3 && pend) NAME##_mid(&ps0, &ps1, &ps2, &ps3);                            \
            OM_TR_PIPE_MOVE(qend, qi, qs, pend, pi, ps);                                            \
          } else if (pend) {                                                                        \
            OM_TR_PIPE_FINISH(NAME, pi, ps0, ps1, ps2, T, MEM);                                     \
          }                                                                                         \
          pend = 1;                                                                                 \
          pi = i;                                                                                   \
          ps0 = s0_;                                                                                \
          ps1 = s1_;                                                                                \
          ps2 = s2_;                                                                                \
          ps3 = s3_;                                                                                \
        } else {                                                                                    \
          om_trmask bad0 = OM_TR_NONE;                                                              \
          om_trmask bad1 = OM_TR_NONE;                                                              \
          OM_TR_PIPE_DRAIN(NAME, T, MEM, PIPE);                                                     \
          OM_TR_NOTE(i);                                                                            \
          OM_TR_HALF_ORD(VY, T, MEM, VGEN, 0, bad0, LO, TINY, HI)                                   \
          OM_TR_HALF_ORD(VY, T, MEM, VGEN, OM_TR_L, bad1, LO, TINY, HI)                             \
          nfix += (unsigned)om_trmask_any2(bad0, bad1);                                             \
        }                                                                                           \
      }                                                                                             \
      OM_TR_PIPE_DRAIN(NAME, T, MEM, PIPE);                                                         \
  OM_TR_LOOP_CLOSE(NAME)
/* A kernel whose whole vectors take VY on each half: the start is all of it, the mid and the finish only hand it
 * on. */
#define OM_TR_KERNEL_FMA(NAME, LO, TINY, HI, VY, T, MEM, VGEN, FB, PIPE)                              \
  static inline __attribute__((always_inline)) void NAME##_start(om_vfh x0, om_vfh x1, om_vd* s0, om_vd* s1, \
                                                                 om_vd* s2, om_vd* s3) {           \
    *s0 = VY(x0);                                                                                   \
    *s1 = VY(x1);                                                                                   \
    *s2 = OM_VD(0.0);                                                                               \
    *s3 = OM_VD(0.0);                                                                               \
  }                                                                                                 \
  static inline __attribute__((always_inline)) void NAME##_mid(om_vd* s0, om_vd* s1, om_vd* s2, om_vd* s3) { \
    (void)s0, (void)s1, (void)s2, (void)s3;                                                         \
  }                                                                                                 \
  static inline __attribute__((always_inline)) void NAME##_startb(om_vd* s0, om_vd* s1, om_vd* s2, om_vd* s3) { \
    (void)s0, (void)s1, (void)s2, (void)s3;                                                         \
  }                                                                                                 \
  static inline __attribute__((always_inline)) void NAME##_finish(om_vd s0, om_vd s1, om_vd s2, om_vd* y0,  \
                                                                  om_vd* y1) {                     \
    (void)s2;                                                                                       \
    *y0 = s0;                                                                                       \
    *y1 = s1;                                                                                       \
  }                                                                                                 \
  OM_TR_KERNEL_FMA_GEN(NAME, LO, TINY, HI, VY, T, MEM, VGEN, FB, PIPE)
/* A kernel whose first pass ends in one division, y = n/d with d > 0 (Tanh, Sigmoid, Gelu tanh, Gelu none), in two
 * steps: VQA(x, &u, &v) gives two vectors of a half vector's state and VQB(u, v, &n, &d) its n and d (the start
 * runs VQA on both halves, the startb VQB, so PIPE 4 runs them on different vectors). A half vector alone
 * divides (NAME_yq: VDIVPD, RN(n/d)); a whole vector divides once for both halves (om_vdiv_pair_start in the
 * mid, the two products in the finish): two divisions per 16 lanes, and their latency at the end of the chain,
 * held these kernels back. OM_TR_KERNEL_FMA_QUOT is the one-step form: VQ(x, &n, &d), the startb only hands
 * n and d on. */
#define OM_TR_KERNEL_FMA_QUOT2(NAME, LO, TINY, HI, VQA, VQB, T, MEM, VGEN, FB, PIPE) \
  OM_TR_KERNEL_FMA_QUOT2_N(NAME, LO, TINY, HI, VQA, VQB, 0, T, MEM, VGEN, FB, PIPE)
/* y = 1/d (Sigmoid; VQB's n must be 1): the mid divides by om_vdiv_pair_start_unit, without the products n0 d1 and
 * n1 d0, which the compiler could not fold (n passes through the loop's slots, which start at 0): two products
 * fewer per 16 lanes, the same bits. */
#define OM_TR_KERNEL_FMA_RECIP2(NAME, LO, TINY, HI, VQA, VQB, T, MEM, VGEN, FB, PIPE) \
  OM_TR_KERNEL_FMA_QUOT2_N(NAME, LO, TINY, HI, VQA, VQB, 1, T, MEM, VGEN, FB, PIPE)
#define OM_TR_KERNEL_FMA_QUOT2_N(NAME, LO, TINY, HI, VQA, VQB, UNIT, T, MEM, VGEN, FB, PIPE)          \
  static inline __attribute__((always_inline)) om_vd NAME##_yq(om_vfh x) {                          \
    om_vd n, d, u, v;                                                                               \
    VQA(x, &u, &v);                                                                                 \
    VQB(u, v, &n, &d);                                                                              \
    return n / d;                                                                                   \
  }                                                                                                 \
  static inline __attribute__((always_inline)) void NAME##_start(om_vfh x0, om_vfh x1, om_vd* s0, om_vd* s1, \
                                                                 om_vd* s2, om_vd* s3) {           \
    VQA(x0, s0, s1);                                                                                \
    VQA(x1, s2, s3);                                                                                \
  }                                                                                                 \
  static inline __attribute__((always_inline)) void NAME##_startb(om_vd* s0, om_vd* s1, om_vd* s2, om_vd* s3) { \
    VQB(*s0, *s1, s0, s1);                                                                          \
    VQB(*s2, *s3, s2, s3);                                                                          \
  }                                                                                                 \
  static inline __attribute__((always_inline)) void NAME##_mid(om_vd* s0, om_vd* s1, om_vd* s2, om_vd* s3) { \
    om_vd n0 = *s0, d0 = *s1, n1 = *s2, d1 = *s3;                                                   \
    if (UNIT)                                                                                       \
      om_vdiv_pair_start_unit(d0, d1, s0, s1, s2);                                                  \
    else                                                                                            \
      om_vdiv_pair_start(n0, d0, n1, d1, s0, s1, s2);                                               \
  }                                                                                                 \
  static inline __attribute__((always_inline)) void NAME##_finish(om_vd s0, om_vd s1, om_vd s2, om_vd* y0,  \
                                                                  om_vd* y1) {                     \
    om_vdiv_pair_end(s0, s1, s2, y0, y1);                                                           \
  }                                                                                                 \
  OM_TR_KERNEL_FMA_GEN(NAME, LO, TINY, HI, NAME##_yq, T, MEM, VGEN, FB, PIPE)
static inline __attribute__((always_inline)) void om_tr_quot_pass(om_vd n, om_vd d, om_vd* n_out, om_vd* d_out) {
  *n_out = n;
  *d_out = d;
}
#define OM_TR_KERNEL_FMA_QUOT(NAME, LO, TINY, HI, VQ, T, MEM, VGEN, FB, PIPE) \
  OM_TR_KERNEL_FMA_QUOT2(NAME, LO, TINY, HI, VQ, om_tr_quot_pass, T, MEM, VGEN, FB, PIPE)

#ifdef OM_TR_STATS
#define OM_TR_ON_FALLBACK(x) om_tr_on_fallback(x)
#define OM_TR_ON_SECOND(x) om_tr_on_second(x)
#else
#define OM_TR_ON_FALLBACK(x) (void)0
#define OM_TR_ON_SECOND(x) (void)0
#endif

#ifdef OM_TR_FMA
/* A fallback NAME(x) for the FMA paths that gives a flagged lane a second chance in double before the
 * double-double FB: for x in the first pass's ordinary range (LO <= x <= HI, |x| >= TINY, the kernel's own
 * limits), Y2 (a more accurate first pass of the same form, on a vector of copies of x) and its rounding test
 * with T2; a lane that passes gets RN_f32 of Y2's lane 0, any other lane FB(x). Each caller's file proves Y2's
 * bound below 0.7 T2 2^-53. */
#define OM_TR_SECOND_CHANCE(NAME, LO, TINY, HI, Y2, T2, FB)                                        \
  static float NAME(double x) {                                                                    \
    float xf = (float)x;                                                                           \
    if (xf >= (LO) && xf <= (HI) && (xf >= (TINY) || xf <= -(TINY))) {                            \
      om_trmask bad = OM_TR_NONE;                                                                  \
      om_vfh r = om_tr_round_bits_as(Y2((om_vfh){0} + xf), T2, 0, 1, &bad);                        \
      if (!OM_TR_LANE(bad, 0)) {                                                                   \
        OM_TR_ON_SECOND(xf);                                                                       \
        return r[0];                                                                               \
      }                                                                                            \
    }                                                                                              \
    return FB(x);                                                                                  \
  }
#endif

#define OM_QNAN_F ((om_vfh)((om_vih){0} + 0x7fc00000))
