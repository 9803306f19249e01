/* pow_f32.h - the vector first pass of Pow with an f32 base and an f32 exponent, for one kernel path.
 *
 * Included by kernels/pow.inc once per path, after om_vcore.h (its lane types om_vd/om_vl/om_vfh/om_vih, the
 * select, rint and gather helpers; nothing in it is changed). One double lane per f32 lane, IEEE + - * / and
 * exact conversions only (-ffp-contract=off): the same bits on every path. See docs/exact-transcendentals.md,
 * "Pow", for the argument in full; in short, for x > 0 finite, x != 1, y finite and nonzero:
 *
 *   log2: u = bits(double x); tmp = u - bits(0.70703125); k = tmp >> 52 (arithmetic), i = 8 bits of tmp under
 *         the exponent, z = x 2^-k in [0.70703125, 1.4140625) (exact, also for subnormal f32 x, normal in
 *         double). invc_i has 20 significant bits, so z invc_i (24 x 20 bits) is exact and r = z invc_i - 1 is
 *         exact (Sterbenz); |r| <= 2^-8 (tools/gen/gen_pow_consts.py). logc_i = RN(-log2 invc_i); invc = 1, logc = 0
 *         on the two subintervals around 1. P(r) = degree-7 Taylor polynomial of log2(1 + r): truncation
 *         < 2^-58.9 |log2(1+r)|; Horner with c0 rounded, the sum c0 + r q and the product r (...) rounded:
 *         |P - log2(1+r)| <= 3.03 * 2^-53 |P| < 1.5625 * 2^-52 |P|.
 *         w = logc + P (one rounding): |w - log2 z| <= 2^-53 |logc| + 1.5625 * 2^-52 |P| + 2^-53 |w|.
 *   t:    tk = y k is exact (24 + 8 bits), tw = RN(y w), t = RN(tk + tw), so
 *         |t - y log2 x| <= Et = |y| (2^-53 |logc| + 1.5625 * 2^-52 |P| + 2^-53 |w|) + 2^-53 (|tw| + |t|),
 *         computed per lane (times 1.01 for the roundings of its own evaluation).
 *         Et < 2^-44 |t| always: for k != 0, |log2 x| >= 1/2 >= |w|, |logc|, so |y| <= 2 |t|; for k = 0,
 *         |logc| <= 1.51 |log2 z| (tools/gen/gen_pow_consts.py).
 *   range: t - Et > 128: x^y > 2^128, RN = inf; t + Et < -150: x^y < 2^-150, RN = 0 (the midpoint 2^-150
 *         itself rounds to the even 0). Others are evaluated with t clamped to [-160, 130].
 *   exp2: j = rint(64 t), r2 = t - j/64 exact, |r2| <= 1/128; 2^r2 - 1 = p(r2), degree-6 Taylor (truncation
 *         < 2^-64), evaluation error < 3 * 2^-53 |p| <= 2^-58.9; 2^(j/64) = Thi + Tlo (2^-106);
 *         hi = 2^(j>>6) Thi exact, lo = 2^(j>>6) (Tlo + Thi p) (two roundings of <= 2^-60.5 relative):
 *         |hi + lo - 2^t| < 2^-58.1 2^t; v = RN(hi + lo): |v - 2^t| < 2^-52.95 2^t.
 *   total: |v - x^y| <= eps |v| with eps = 0.71 Et + 1.1 * 2^-53 (ln2 * 1.01 * (1 + 2^-30) < 0.71; the
 *         relative errors compose with room to spare), then the om_tr_round-style test: both ends of
 *         v (1 -+ (eps + 2^-52)) round to the same f32, or the lane takes the scalar fallback.
 *
 * Fast mode: the same without the test and without Tlo: |RN_f32(v) - x^y| < 0.5 ulp + (0.71 Et + 2^-51.9) x^y,
 * and 0.71 Et < 2^-36 since |t| <= 151 for finite nonzero results.
 *
 * y = 2 needs no rule of its own: RN_f32(x^2) is the spec's x * x (one rounding of the exact square).
 *
 * Negative x: |x|^y with the sign of x when y is an odd integer; NaN when y is not an integer. Lanes whose
 * result needs no arithmetic (y = 0 or x = 1: 1; NaN: canonical NaN; certain overflow/underflow) are settled
 * here; x = +-0, +-inf and y = +-inf go to the scalar om_pow_exact_f32 in both modes (*fix).
 */
#include "pow_f32_consts.h"

#define OM_PVD_BITS(c) ((om_vd)((om_vul){0} + (uint64_t)(c)))

/* The log2 reduction for x > 0 finite (as a double): x = 2^k z, z in [0.70703125, 1.4140625), and the table
 * entries invc_i, logc_i. tmp = bits(x) - bits(0.70703125), biased by 1024 in the exponent field so that it
 * stays positive and logical shifts do (AVX2 and SSE have no 64-bit arithmetic shift): kb = k + 1024. */
static inline __attribute__((always_inline)) void om_pow_reduce(om_vd ax, om_vd* z, om_vd* kd, om_vd* invc,
                                                                om_vd* logc) {
  om_vul u = (om_vul)ax;
  om_vul tmp = u - 0x3FE6A00000000000ULL + (1024ULL << 52);
  om_vl i = (om_vl)((tmp >> 44) & 255u);
  om_vul kb = tmp >> 52;
  *z = (om_vd)(u - (kb << 52) + (1024ULL << 52));
  *kd = (om_vd)(kb + 0x4338000000000000ULL) - (0x1.8p52 + 1024.0); /* k, exactly */
  *invc = om_vgather(om_pow_invc, &i);
  *logc = om_vgather(om_pow_logc, &i);
}

/* E_t, the per-lane bound on |t - y log2 x| (see above), times 1.01 for its own roundings. */
static inline __attribute__((always_inline)) om_vd om_pow_et(om_vd y, om_vd logc, om_vd p, om_vd w, om_vd tw,
                                                             om_vd t) {
  return (om_vabs(y) * (om_vabs(logc) * 0x1p-53 + om_vabs(p) * 0x1.9p-52 + om_vabs(w) * 0x1p-53) +
          (om_vabs(tw) + om_vabs(t)) * 0x1p-53) *
         1.01;
}

/* 2^(floor(j / 64)) from its bits (j + 1023*64 > 0 for the clamped t). */
static inline __attribute__((always_inline)) om_vd om_pow_scale(om_vl j) {
  return (om_vd)(((om_vul)(j + 1023 * 64) >> 6) << 52);
}

/* The rounding test: the lanes where v (1 -+ (eps + 2^-52)), v > 0, round to different f32 values. */
static inline __attribute__((always_inline)) om_vih om_pow_unsettled(om_vd v, om_vd eps) {
  om_vd d = v * (eps + 0x1p-52);
  om_vfh a = __builtin_convertvector(v - d, om_vfh), b = __builtin_convertvector(v + d, om_vfh);
  return (om_vih)(a != b);
}

/* Returns the f32 results of one half vector; *fix gets the lanes the scalar om_pow_exact_f32 must redo: the
 * special inputs above and, in exact mode, the lanes the rounding test cannot settle. */
static inline __attribute__((always_inline)) om_vfh om_pow_v(om_vfh xf, om_vfh yf, int exact, om_vih* fix) {
  om_vd x = __builtin_convertvector(xf, om_vd), y = __builtin_convertvector(yf, om_vd);
  om_vd ax = om_vabs(x), ay = om_vabs(y);
  om_vl one = (om_vl)(y == 0.0) | (om_vl)(x == 1.0);
  om_vl nan = ((om_vl)(x != x) | (om_vl)(y != y)) & ~one;
  om_vl sc = ((om_vl)(ax == 0.0) | (om_vl)(ax == __builtin_inf()) | (om_vl)(ay == __builtin_inf())) & ~one & ~nan;
  /* y an integer (|y| >= 2^24: even), odd */
  om_vd ac = om_vmin(ay, OM_VD(0x1p25));
  om_vl yi;
  om_vd yr = om_vrint(&ac, &yi);
  om_vl isint = (om_vl)(yr == ac);
  om_vl neg = (om_vl)(x < 0.0);
  om_vl sgn = neg & isint & (om_vl)(ac < 0x1p24) & -(yi & 1);
  om_vl nonint = neg & ~isint & ~one & ~nan & ~sc; /* NaN */
  om_vl skip = one | nan | sc | nonint;
  ax = OM_VSELD(skip, OM_VD(2.0), ax);
  y = OM_VSELD(skip, OM_VD(1.0), y);

  /* log2 x = k + logc + P(r) */
  om_vd z, kd, invc, logc;
  om_pow_reduce(ax, &z, &kd, &invc, &logc);
  om_vd r = z * invc - 1.0;
  const double* c = om_pow_log2c;
  om_vd q = c[1] + r * (c[2] + r * (c[3] + r * (c[4] + r * (c[5] + r * c[6]))));
  om_vd p = r * (c[0] + r * q);
  om_vd w = logc + p;
  om_vd tw = y * w;
  om_vd t = y * kd + tw;

  om_vd et = OM_VD(0);
  om_vl ovf, unf;
  if (exact) {
    et = om_pow_et(y, logc, p, w, tw, t);
    ovf = (om_vl)(t - et > 128.0);
    unf = (om_vl)(t + et < -150.0);
  } else {
    ovf = (om_vl)(t > 128.0);
    unf = (om_vl)(t < -150.0);
  }
  om_vd te = om_vmin(om_vmax(t, OM_VD(-160.0)), OM_VD(130.0));

  /* 2^te */
  om_vd t64 = te * 64.0;
  om_vl j;
  om_vd jd = om_vrint(&t64, &j);
  om_vd r2 = te - jd * 0x1p-6;
  const double* e = om_pow_exp2c;
  om_vd p2 = r2 * (e[0] + r2 * (e[1] + r2 * (e[2] + r2 * (e[3] + r2 * (e[4] + r2 * e[5])))));
  om_vl j2 = (j & 63) * 2, j2l = j2 + 1;
  om_vd th = om_vgather(om_pow_exp2t, &j2), tl = OM_VD(0);
  if (exact) tl = om_vgather(om_pow_exp2t, &j2l); /* fast mode: Thi alone (2^-53), one gather less */
  om_vd s = om_pow_scale(j);
  om_vd v = s * th + s * (tl + th * p2);

  om_vl settled = skip | ovf | unf;
  om_vl redo = sc;
  if (exact) {
    om_vd eps = et * 0.71 + 1.1 * 0x1p-53;
#ifdef OM_POW_DEBUG /* tools/verify/pow_eps_check.c: v and its bound eps per lane, before the test */
    OM_POW_DEBUG(x, y, v, eps, settled);
#endif
    om_vl bad = __builtin_convertvector(om_pow_unsettled(v, eps), om_vl);
    redo |= bad & ~settled;
  }
  v = OM_VSELD(ovf, OM_VD(__builtin_inf()), v);
  v = OM_VSELD(unf, OM_VD(0.0), v);
  v = (om_vd)((om_vul)v ^ ((om_vul)sgn & 0x8000000000000000ULL));
  v = OM_VSELD(nan | nonint, OM_PVD_BITS(0x7ff8000000000000ULL), v);
  v = OM_VSELD(one, OM_VD(1.0), v);
  *fix = __builtin_convertvector(redo, om_vih);
  return __builtin_convertvector(v, om_vfh);
}

#ifdef OM_TR_FMA
/* FMA paths (512, 256), both modes: the same algorithm for the ordinary lanes, with the multiply-add pairs
 * fused and none of the special-input selects. Ordinary: 0 < x <= FLT_MAX (f32 bits 1 to 0x7f7fffff, the
 * subnormal bases included), y finite, and |t| <= 120 for the computed t (results in [2^-120.1, 2^120.1],
 * normal f32 values, far from overflow); a half vector with any other lane takes om_pow_v above.
 * Why the bounds above still hold: every step is the general pass's step, on the same values, with some of its
 * roundings removed. r = fma(z, invc, -1) is exact either way (z invc is exact); t = fma(y, k, tw) = RN(y k + tw)
 * with y k exact is RN(tk + tw); r2 = fma(j, -1/64, te) is exact either way; s (a power of two, in the normal
 * range here) scales exactly, so v = fma(s, fma(Thi, p2, Tlo), s Thi) = RN(s Thi + s RN(Tlo + Thi p2)).
 * The polynomial steps P(r) (Horner) and p2 were bounded with a relative rounding |d| <= 2^-53 for every
 * product and every sum; a fused multiply-add is the case d = 0 for its product, so those bounds cover it.
 * The per-lane Et and eps are computed by the same expressions (with their 1.01 margin) and the rounding test
 * is the same. Verification: tools/c_tool.py pow_verify (all paths against MPFR) and tools/c_tool.py pow_eps_check. */
static inline __attribute__((always_inline)) om_vfh om_pow_v_fma(om_vfh xf, om_vfh yf, int exact, om_vih* fix) {
  om_vuh xb = (om_vuh)xf, yb = (om_vuh)yf & 0x7fffffffu;
  om_vih ord = (om_vih)(xb - 1u <= 0x7f7ffffeu) & (om_vih)(yb < 0x7f800000u);
  if (__builtin_expect(!om_tr_all(ord), 0)) return om_pow_v(xf, yf, exact, fix);
  om_vd x = om_vwiden(xf), y = om_vwiden(yf);
  om_vd z, kd, invc, logc;
  om_pow_reduce(x, &z, &kd, &invc, &logc);
  om_vd r = om_fma(z, invc, OM_VD(-1.0));
  const double* c = om_pow_log2c;
  om_vd p = r * om_fma(r, om_vpoly(r, c + 1, 6), OM_VD(c[0]));
  om_vd w = logc + p;
  om_vd tw = y * w;
  om_vd t = om_fma(y, kd, tw);
  if (__builtin_expect(!om_tr_all(__builtin_convertvector((om_vl)(om_vabs(t) <= 120.0), om_vih)), 0))
    return om_pow_v(xf, yf, exact, fix);
  om_vd t64 = t * 64.0;
  om_vl j;
  om_vd jd = om_vrint(&t64, &j);
  om_vd r2 = om_fma(jd, OM_VD(-0x1p-6), t);
  om_vd p2 = r2 * om_vpoly(r2, om_pow_exp2c, 6);
  om_vl j2 = (j & 63) * 2, j2l = j2 + 1;
  om_vd th = om_vgather(om_pow_exp2t, &j2), tl = OM_VD(0);
  if (exact) tl = om_vgather(om_pow_exp2t, &j2l); /* fast mode: Thi alone, as in om_pow_v */
  om_vd s = om_pow_scale(j);
  om_vd v = om_fma(s, om_fma(th, p2, tl), s * th);
  if (exact) {
    om_vd et = om_pow_et(y, logc, p, w, tw, t);
    om_vd eps = et * 0.71 + 1.1 * 0x1p-53;
#ifdef OM_POW_DEBUG_FMA /* tools/verify/pow_eps_check.c -p 512: v and its bound eps per lane, before the test */
    OM_POW_DEBUG_FMA(x, y, v, eps);
#endif
    *fix = om_pow_unsettled(v, eps);
  }
  return __builtin_convertvector(v, om_vfh);
}
#define OM_POW_V(xv, yv, ex, fix) om_pow_v_fma(xv, yv, ex, fix)
#else
#define OM_POW_V(xv, yv, ex, fix) om_pow_v(xv, yv, ex, fix)
#endif
