/* gelu_erf_f32.h - Gelu approximate="none": x/2 erfc(-x/sqrt2) = x Phi(x), f32, correctly rounded in exact
 * mode (included per kernel path by transcendental.inc).
 *
 * xc = max(x, -14.5) (Gelu x rounds to -0 for x < -14.41: |Gelu x| < phi(x) < 2^-151); w = |xc| / sqrt2 in
 * double (two roundings, relative error < 2^-52); w^2 = xc^2/2 exactly.
 * w < 0.5: Phi = 1/2 + erf(+-w)/2, erf from om_verf_small (< 2^-51.7, plus < 2^-52 from w, |w erf'/erf| <= 1);
 *   for x < 0, 1/2 - erf(w)/2 >= 0.24 carries the error of erf times 0.26/0.24: Phi within < 2^-50.5.
 * w >= 0.5 (w clamped to 10.3, where Phi(-14.5) underflows and 1 - Phi(14.5) vanishes): the tail is taken
 *   through erfc, never 1 + erf: erfc w = e^(-w^2) g(w) with the exact -w^2 (< 2^-52.9) and g at the rounded
 *   w (< 2^-51.9, plus < 2^-52 since |w g'/g| <= 1): < 2^-50.3; Phi = erfc(w)/2 for x < 0 (same bound),
 *   1 - erfc(w)/2 for x >= 0 (erfc(w)/2 <= 0.31 <= Phi/2: < 2^-51).
 * y = x Phi: one more rounding. Bound < 2^-49.9; rounding test eps = 2^-49.5.
 * Fallback om_fb_gelu_erf: erf series / erfc continued fraction in double-double.
 * Specials: NaN -> canonical NaN; -inf -> -0 (clamped, then underflows with its sign); +inf -> +inf
 * (Phi = 1); -0 -> -0 (x Phi with Phi = 1/2).
 */
static inline __attribute__((always_inline)) om_vfh om_gelu_erf_v(om_vfh xf, int exact, om_trmask* bad) {
  om_vd x = __builtin_convertvector(xf, om_vd);
  om_vih nan = (om_vih)(xf != xf);
  om_vd xc = om_vmax(x, OM_VD(-14.5));
  xc = OM_VSELD(x != x, OM_VD(0.0), xc);
  om_vd w = om_vmin(om_vabs(xc) * OM_SQRT1_2_hi, OM_VD(10.3));
  om_vd w2 = om_vmin(xc * xc * 0.5, OM_VD(10.3 * 10.3));
  om_vl neg = (om_vl)(xc < 0);
  om_vd ww = w * w;
  om_vd es = om_verf_small(&w, &ww);
  om_vd phis = 0.5 + 0.5 * OM_VSELD(neg, -es, es);
  om_vd hi, lo;
  om_vd t = -w2;
  om_vexp_parts(&t, &hi, &lo);
  om_vd wg = om_vmax(w, OM_VD(0.5));
  om_vd ec = (hi + lo) * om_verfc_g(&wg);
  om_vd phib = OM_VSELD(neg, 0.5 * ec, 1.0 - 0.5 * ec);
  om_vd y = xc * OM_VSELD((om_vl)(w < 0.5), phis, phib);
  om_vd eps = OM_VD(0x1.6a09e667f3bcdp-50);
  return om_tr_round(&y, &eps, nan, OM_QNAN_F, exact, bad);
}
#ifdef OM_TR_FMA
/* FMA paths (512, 256). Ordinary inputs: -11.875 <= x <= FLT_MAX and |x| >= 2^-60 (results between 2^-104 and
 * FLT_MAX in magnitude: normal f32); other lanes (NaN, infinities, tiny or very negative x) send the whole vector
 * (then the half vector, OM_TR_KERNEL_FMA) to om_gelu_erf_v above.
 * One formula for both signs, with C = erfc(u/sqrt2) <= 1 (no cancellation anywhere):
 *   x Phi(x) = x C/2 = -|x|/2 C (x < 0),  x - |x|/2 C (x > 0),  so  y = fma(|x|, -C~/2, max(x, 0)).
 * u = min(|x|, 11.875) (exact, an f32). For x > 11.875 this computes x (1 - erfc(11.875/sqrt2)/2) instead of
 * x Phi(x): they differ by less than x erfc(8.39)/2 < 2^-105 x (relative, negligible below).
 * C = e^t G(u), t = -u^2/2, G(u) = e^(u^2/2) erfc(u/sqrt2):
 *   t is exact (u^2 has 48 bits). e^t by om_vexp16's reduction done on w = u^2 = -2t (exact): ks = fma(w,
 *   -RN(16/ln2)/2, 1.5 2^52) rounds the same product as fma(t, RN(16/ln2), 1.5 2^52), so the same k;
 *   r2 = fms(-k, 2 HI, w) = 2 r' with r' = t - k HI om_vexp16's exact reduced argument (for k != 0, |t| >= 0.0216
 *   means u >= 0.2, u a multiple of 2^-26, t of 2^-53, k HI of 2^-57, and |t - k HI| < 2^-5: at most 52 bits),
 *   so r2 is exact too; r' differs from t - k ln2/16 by |k| (ln2/16 - HI) < 1628 2^-59.25 < 2^-48.58
 *   (|t| <= 70.5); -70.5 <= t <= 0 keeps sc normal. P = 1 + p(r') as one Horner chain in r2 (the coefficients
 *   1, 1/2, q_j/2^(j+2) of om_expm1_q16s: the same polynomial, scaled exactly), so no r^2 and no 1 + p: within
 *   2^-45.65 (Sollya, absolute) + 1.06 2^-53 (the last fma rounds once near 1; the earlier steps are scaled by
 *   |r2| < 0.0434) of e^r', i.e. < 2^-45.62 + 1.1 2^-53 relative; sc = T_j 2^(k >> 4) within 2^-53; E G~ as
 *   RN(RN(sc G~) P): two more roundings. In units of 2^-53 the exponential side gives 166.2 + 1.1 + 1 + 2
 *   (it was 173.7 + 1 with fma(sc, p, sc) and one product).
 *   G from 16 pieces by the bits of v = u + 4 (exponent and 3 mantissa bits; om_vtab16 takes the low 4 bits
 *   of bits(v) >> 49): slots 8..15 are u in [0, 4) by halves, slots 0..7 u in [4, 12) by units. d = v - v0,
 *   v0 = v with its 49 low bits cleared (the piece's left end plus 4): exact (Sterbenz), and d = u - a_s
 *   exactly when v is, i.e. for u >= 2^-27; below, d = RN(u + 4) - 4 is within 2^-51 of u, which moves G by
 *   less than 0.8 2^-51 relative (|G'/G| <= 0.8 on [0, 1/2]). -G/2 of degree 9 in d by Horner in FMA
 *   (om_gelu16_c, Sollya, fitted on d in [0, width]; the scaling by -1/2 is exact): polynomial relative error
 *   < 2^-41.765 (OM_GELU16_LOG2ERR, supnorm, rigorous; the worst piece is u in [0, 1/2]), evaluation
 *   < 2^-51.234 (OM_GELU16_EVAL_LOG2ERR: sum_j |c_j| h^j ((1 + 2^-53)^(j+1) - 1) / min G, per piece).
 *   In units of 2^-53: 170.3 + 21.4 (E and its roundings) + 2409.3 (polynomial) + 3.4 (evaluation) + 3.2 (d for
 *   tiny u) and their products: -C~/2 within 2608 2^-53 of -C/2, relative.
 * y: for x < 0 one rounding of |x| (-C~/2); for x > 0, |x|/2 C <= x/2 <= x - |x|/2 C = y*, so the error of C~
 * is at most 2608 2^-53 y* and the fma adds 2^-53. Total below 2609 2^-53 < 2^-41.65; rounding test
 * T = 4096 (needs < 2^-41; at most 2^-16 of the lanes take the fallback). */
static inline __attribute__((always_inline)) om_vd om_gelu_erf_y_fma(om_vfh xf) {
  om_vd x = om_vwiden(xf);
  om_vd xa = om_vabs(x);
  om_vd u = om_vminpd(xa, 11.875);
  om_vd z = om_vmaxpd(x, 0.0);
  om_vd v = u + 4.0;
  om_vul ks = (om_vul)v >> 49;
  static const uint64_t hi15 = 0xfffe000000000000ULL; /* sign, exponent and 3 mantissa bits */
  om_vd d = v - (om_vd)om_vand_bcst(v, &hi15);
  const double* c = om_gelu16_c;
  om_vd g = om_vtab16(c + 16 * 9, ks);
  for (int j = 8; j >= 0; j--) g = om_fma(g, d, om_vtab16(c + 16 * j, ks));
  const double* q = om_expm1_q16s;
  const double pc[6] = {1.0, 0.5, q[0] * 0x1p-2, q[1] * 0x1p-3, q[2] * 0x1p-4, q[3] * 0x1p-5};
  om_vd w = u * u;
  om_vd ke = om_fma(w, OM_VD(-0.5 * OM_INVLN2_16), OM_VD(0x1.8p52));
  om_vd kn = 0x1.8p52 - ke; /* -k, exact */
  om_vd r2 = om_fms(kn, OM_VD(2.0 * OM_LN2_16_HI), w);
  om_vd ec = (om_vexp16_scale(ke) * g) * om_vpoly(r2, pc, 6);
  return om_fma(xa, ec, z); /* rounding test T = 4096, constants from memory */
}
OM_TR_KERNEL_FMA(gelu_erf_f32, -11.875f, 0x1p-60f, 0x1.fffffep127f, om_gelu_erf_y_fma, 4096, 1, om_gelu_erf_v, om_fb_gelu_erf, 0)
#else
OM_TR_KERNEL(gelu_erf_f32, om_gelu_erf_v, om_fb_gelu_erf)
#endif
