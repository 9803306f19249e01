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
/* FMA paths (512, 256). Ordinary inputs: -11.875 <= x <= +inf and |x| >= 2^-60 (results between 2^-104 and
 * FLT_MAX in magnitude, or +inf: below, z = +inf makes n = +inf and y = +inf, which the rounding test passes
 * or sends to the fallback, both +inf; with no upper bound the 512 path's input test is one compare shorter,
 * Gelu none 1.5% faster at 64K, tools/bench/ab_kernels.sh, and its outputs are those of the FLT_MAX bound on every
 * f32 input, exact and fast, 512 and 256 paths, tools/bench/ab_kernels.sh bits); other lanes (NaN, -inf, tiny or very
 * negative x) send the whole vector (then the half vector, OM_TR_KERNEL_FMA) to om_gelu_erf_v above.
 * One formula for both signs, with C = erfc(u/sqrt2) <= 1 (no cancellation anywhere):
 *   x Phi(x) = x C/2 = -|x|/2 C (x < 0),  x - |x|/2 C (x > 0),  i.e.  y = max(x, 0) - |x| C/2.
 * u = min(|x|, 11.875) (exact, an f32; one VRANGEPD on the 512 path, om_vabs_min), and u stands for |x| in y
 * too: y = max(x, 0) - u C/2. For x > 11.875 this computes x - 11.875 erfc(11.875/sqrt2)/2 instead of x Phi(x) =
 * x - x erfc(x/sqrt2)/2: they differ by less than x erfc(8.39) < 2^-104 x (relative, negligible below).
 * C = e^t P(u)/Q(u), t = -u^2/2, P/Q ~= G(u) = e^(u^2/2) erfc(u/sqrt2) (a rational function: no table):
 *   e^t by om_vexp16's reduction done on w = u^2 = -2t (exact), with the 1.5 2^52 shifter and the scale from
 *   the bits of ke (om_vexp16_sc_bits) on both paths (the 512 path's VSCALEFPD made this kernel 1% slower,
 *   tools/bench/ab_kernels.sh): ke = fma(w, -RN(16/ln2)/2, 1.5 2^52) rounds the same product as fma(t, RN(16/ln2),
 *   1.5 2^52), so the same k, and kq = ke - 1.5 2^52 = k; r2 = fms(kq, -2 HI, w) = -2 k HI - w =
 *   2 r' with r' = t - k HI om_vexp16's exact reduced argument (for k != 0, |t| >= 0.0216 means u >= 0.2, u a
 *   multiple of 2^-26, t of 2^-53, k HI of 2^-57, and |t - k HI| < 2^-5: at most 52 bits), so r2 is exact too;
 *   r' differs from t - k ln2/16 by |k| (ln2/16 - HI) < 1628 2^-59.25 < 2^-48.58 (|t| <= 70.5), which is 21.4
 *   in units of 2^-53 (relative, on e^t); -70.5 <= t <= 0 keeps sc normal. Pe = 1 + p(r') as one Horner chain in
 *   r2 (the coefficients 1, 1/2, q_j/2^(j+2) of om_expm1_q16s: the same polynomial, scaled exactly): within
 *   2^-45.65 (Sollya, absolute) + 1.06 2^-53 of e^r' (166.2 + 1.1 units); sc = T_j 2^(k >> 4) within 2^-53.
 *   P/Q: om_gelu_rp (-P/2) and om_gelu_rq, degree 6 and 7, from tools/gen/sollya/om_tr_consts.sollya (Q fitted by
 *   tools/gen/sollya/gelu_rational_fit.py): relative error against G < 2^-40.71875 (OM_GELU_RAT_LOG2ERR, supnorm,
 *   rigorous, rounded up) < 4977.7 units. Every coefficient is positive and u >= 0, so each Horner step in FMA
 *   adds two nonnegative terms and rounds once: P~ within (1 + 2^-53)^6 - 1 < 6.01 units of P, Q~ within 7.01 of Q.
 *   ep = RN(RN(sc P~) Pe): two more roundings. ep/Q~ = -C~/2 with C~ within 4977.7 + 21.4 + 167.3 + 1 + 2 + 6.01
 *   + 7.01 = 5182.4 units (and their products, below 0.1 unit) of C, relative.
 * y = n/d with d = Q~ and n = fma(u, ep, RN(max(x, 0) Q~)):
 *   x < 0: n = RN(u ep) (max(x, 0) = +0, u = |x|), one rounding: y* = -|x| C~/2 within 1 unit.
 *   x > 0: n = RN(A - B), A = RN(x Q~), B = u C~ Q~/2 <= A/2 (1 + 2^-40) since u <= x and C~ <= 1 + 2^-40
 *     (C <= 1), so A <= 2.001 (A - B): RN(x Q~) and the fma give < 3.01 units of n; y* = x - u C~/2 moves by
 *     at most (u C/2)/(x - u C/2) <= 1 times the error of C~.
 *   The division as n/d (OM_TR_KERNEL_FMA_QUOT: a half vector alone by VDIVPD, 1 unit; a whole vector by
 *   om_vdiv_pair, 4.01 units; finite x Q~ <= 2^128 Q(11.875) < 2^144 and d0 d1 < 2^32, every product a normal double).
 * Total below 5182.4 + 3.01 + 4.01 < 5190 units < 2^-40.65; rounding test T = 8192 (needs < 0.7 T = 5734.4
 * units). About twice the fallback lanes of T = 4096, still below 2^-17 of the lanes (tools/verify/cr_verify.sh). */
static inline __attribute__((always_inline)) void om_gelu_erf_nd(om_vfh xf, const double* rp, int np, const double* rq,
                                                                  int nq, om_vd* n, om_vd* d) {
  om_vd x = om_vwiden(xf);
  om_vd u = om_vabs_min(x, 11.875);
  om_vd z = om_vmaxpd(x, 0.0);
  om_vd p = om_vpoly(u, rp, np);
  om_vd q = om_vpoly(u, rq, nq);
  const double* e = om_expm1_q16s;
  const double pc[6] = {1.0, 0.5, e[0] * 0x1p-2, e[1] * 0x1p-3, e[2] * 0x1p-4, e[3] * 0x1p-5};
  om_vd w = u * u;
  om_vd ke = om_fma(w, OM_VD(-0.5 * OM_INVLN2_16), OM_VD(0x1.8p52));
  om_vd kq = ke - 0x1.8p52; /* k, exact */
  om_vd r2 = om_fms(kq, OM_VD(-2.0 * OM_LN2_16_HI), w);
  om_vd ep = (om_vexp16_sc_bits(ke) * p) * om_vpoly(r2, pc, 6);
  *n = om_fma(u, ep, z * q);
  *d = q;
}
static inline __attribute__((always_inline)) void om_gelu_erf_q_fma(om_vfh xf, om_vd* n, om_vd* d) {
  om_gelu_erf_nd(xf, om_gelu_rp, 7, om_gelu_rq, 8, n, d); /* y = n/d: rounding test T = 8192 */
}
/* Second chance (the FMA paths' fallback, OM_TR_SECOND_CHANCE): a lane that the first pass's test flags (about
 * 2^-15 of them on uniform inputs) is computed again by the same formula with P/Q of degrees 7 and 8
 * (om_gelu_rp2, om_gelu_rq2: < 2^-47.234375 against G, OM_GELU_RAT2_LOG2ERR) and one VDIVPD: C~ within 54.5 (P/Q; the generated
 * bound, in units of 2^-53) + 21.4 + 167.3 + 1 + 2 (e^t and its roundings, as above) + 7.01 + 8.01 (Horner)
 * = 261.3, n within 3.01 (x > 0) or 1 unit, the division 1: < 266 units < 2^-44.9, rounding test T = 512
 * (needs < 0.7 T = 358.4). A lane it cannot settle either (about one in 16 of them) takes the double-double
 * om_fb_gelu_erf, 0.3 to 6 us a lane: on uniform inputs on [-10, 10] those made about 9% of a call's time with
 * T = 8192 and no second chance (perf, tools/bench/profile_node.py Gelu 1M exact). Other lanes (x outside the first
 * pass's range) go straight to om_fb_gelu_erf. */
static inline __attribute__((always_inline)) om_vd om_gelu_erf_y2_fma(om_vfh xf) {
  om_vd n, d;
  om_gelu_erf_nd(xf, om_gelu_rp2, 8, om_gelu_rq2, 9, &n, &d);
  return n / d; /* rounding test T = 512 */
}
OM_TR_SECOND_CHANCE(om_fb_gelu_erf_fma, -11.875f, 0x1p-60f, 0x1.fffffep127f, om_gelu_erf_y2_fma, 512,
                    om_fb_gelu_erf)
OM_TR_KERNEL_FMA_QUOT(gelu_erf_f32, -11.875f, 0x1p-60f, __builtin_inff(), om_gelu_erf_q_fma, 8192, 1, om_gelu_erf_v,
                      om_fb_gelu_erf_fma, 3)
#else
OM_TR_KERNEL(gelu_erf_f32, om_gelu_erf_v, om_fb_gelu_erf)
#endif
