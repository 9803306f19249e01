/* om_mp.c - multi-precision fixed point (om_mp.h) for the Ziv fallback of the binary64 Sigmoid and Tanh.
 *
 * Only integer arithmetic (uint64 limbs, unsigned __int128 products) until the final rounding, which is exact
 * (om_mp_round_interval): the same bits everywhere. Units: u = 2^-F, F = 64 (n - 1) fraction bits.
 *
 * e^y = 2^k e^r (om_mp_exp_parts), for a double 2^-54 <= y <= 1100 and F >= 128 (y has 53 significant bits, its
 * lowest at or above 2^-106, so y is exact in fixed point: Y).
 *  ln2: L = 2 sum_j 1/((2j+1) 3^(2j+1)) (2 atanh(1/3)) at F' = F + 64 bits: t_j = floor(2^F' / (3 9^j)) is an
 *   exact floor (a floor of a floor by integers), each term floor(t_j / (2j+1)) falls short by < 2, the tail after
 *   the last nonzero t_j is < 1/8; J <= F'/3.17 + 1 terms: 2 (2J + 1) < 2^13 units of 2^-F', so after dropping the
 *   guard limb L <= ln2 < L + 2u.
 *  k = floor(fl(y fl(1/ln2))) - 1, at least 0: the product is within 2^-52 relative, below 2^-41 absolute for
 *   y <= 1100, so k <= floor(y/ln2) (k ln2 <= y: r >= 0) and k >= floor(y/ln2) - 2 (r < 3 ln2 < 2.08, E < 8).
 *  r = Y - k L is exact given L: r_true <= r < r_true + 2k u. (k L <= k ln2 <= y, so no underflow.)
 *  E = sum_{m>=0} t_m, t_0 = 1, t_1 = r, t_m = floor(floor(t_{m-1} r) / m): the deficit e_m of t_m against
 *   r^m/m! obeys e_m <= e_{m-1} r/m + 2, e_1 = 0; with r/m < 1.04 (m = 2) and < 0.7 (m >= 3), e_m < 7 for all m.
 *   The sum stops at the first zero t_M with M >= 5: r^M/M! < 7 u and the tail is below 7 (r/6)/(1 - r/6) < 4 u.
 *   So |E - e^r| < 7M + 4 u, and e^r - e^r_true < e^r (2k u) < 16k u: the returned bound is 7M + 4 + 16k units.
 *   S1 = E - 1 is the same sum without t_0 (exact), the same bound on |S1 - (e^r_true - 1)|.
 * The quotients (sigmoid_f64.c, tanh_f64.c) divide by a denominator D >= 1 a numerator N with N_true/D_true <= 1:
 *   |N/D - N_true/D_true| <= |N - N_true|/D + (N_true/D_true) |D - D_true|/D <= e_N + e_D units, and the
 *   truncated division adds < 1 unit.
 * om_mp_round_interval then rounds Q - err and Q + err (exact integers) exactly to binary64 (53 bits, or the
 *   subnormal grid 2^-1074, nearest even): RN is monotone, so if both ends give one double, so does the true value.
 * The Ziv loop (F = 128, 256, ..., 4096) ends: for a double x != 0, e^x is transcendental (Lindemann-Weierstrass),
 * so sigma(x) and tanh(x), rational in e^x, are never a double nor the midpoint of two doubles, and the interval
 * shrinks like 2^-F. No bound on the precision needed is proven here: F = 4096 not settling an input is counted
 * (om_mp_cap_hits; the tests check it stays 0) and the nearest double to Q is returned.
 */
#include "om_mp.h"

#include <string.h>

#include "om_dd_core.h"

typedef unsigned __int128 om_u128;

static void om_mp_zero(om_mp* r, int n) { memset(r->l, 0, sizeof(uint64_t) * (size_t)n); }
static int om_mp_is_zero(const om_mp* a, int n) {
  for (int i = 0; i < n; i++)
    if (a->l[i]) return 0;
  return 1;
}
static int om_mp_cmp(const om_mp* a, const om_mp* b, int n) {
  for (int i = n - 1; i >= 0; i--)
    if (a->l[i] != b->l[i]) return a->l[i] > b->l[i] ? 1 : -1;
  return 0;
}
void om_mp_add(om_mp* r, const om_mp* a, const om_mp* b, int n) {
  uint64_t c = 0;
  for (int i = 0; i < n; i++) {
    om_u128 s = (om_u128)a->l[i] + b->l[i] + c;
    r->l[i] = (uint64_t)s;
    c = (uint64_t)(s >> 64);
  }
}
void om_mp_sub(om_mp* r, const om_mp* a, const om_mp* b, int n) {
  uint64_t br = 0;
  for (int i = 0; i < n; i++) {
    uint64_t ai = a->l[i], bi = b->l[i];
    uint64_t d = ai - bi - br;
    br = (ai < bi) || (ai == bi && br) ? 1 : 0;
    r->l[i] = d;
  }
}
static void om_mp_add_u(om_mp* r, uint64_t v, int n) {
  for (int i = 0; i < n && v; i++) {
    uint64_t s = r->l[i] + v;
    v = s < v ? 1 : 0;
    r->l[i] = s;
  }
}
static void om_mp_sub_u(om_mp* r, uint64_t v, int n) { /* r >= v */
  for (int i = 0; i < n && v; i++) {
    uint64_t d = r->l[i] - v;
    v = r->l[i] < v ? 1 : 0;
    r->l[i] = d;
  }
}
void om_mp_set_pow2(om_mp* r, int e, int n) {
  om_mp_zero(r, n);
  int b = e + 64 * (n - 1);
  r->l[b / 64] = (uint64_t)1 << (b % 64);
}
/* r = floor(a / d), exact floor. */
static void om_mp_div_u(om_mp* r, const om_mp* a, uint64_t d, int n) {
  uint64_t rem = 0;
  for (int i = n - 1; i >= 0; i--) {
    om_u128 cur = ((om_u128)rem << 64) | a->l[i];
    r->l[i] = (uint64_t)(cur / d);
    rem = (uint64_t)(cur % d);
  }
}
static void om_mp_mul_u(om_mp* r, const om_mp* a, uint64_t m, int n) { /* exact: the product must fit */
  uint64_t c = 0;
  for (int i = 0; i < n; i++) {
    om_u128 p = (om_u128)a->l[i] * m + c;
    r->l[i] = (uint64_t)p;
    c = (uint64_t)(p >> 64);
  }
}
/* r = floor(A B / 2^F): the fixed-point product, truncated (< 1 unit); the product must be below 2^64. */
static void om_mp_mul(om_mp* r, const om_mp* a, const om_mp* b, int n) {
  uint64_t t[2 * OM_MP_LIMBS];
  memset(t, 0, sizeof(uint64_t) * (size_t)(2 * n));
  for (int i = 0; i < n; i++) {
    uint64_t c = 0, ai = a->l[i];
    if (!ai) continue;
    for (int j = 0; j < n; j++) {
      om_u128 p = (om_u128)ai * b->l[j] + t[i + j] + c;
      t[i + j] = (uint64_t)p;
      c = (uint64_t)(p >> 64);
    }
    t[i + n] = c;
  }
  for (int i = 0; i < n; i++) r->l[i] = t[i + n - 1];
}
void om_mp_div(om_mp* q, const om_mp* a, const om_mp* b, int n) {
  om_mp rem = *a;
  uint64_t qi = 0;
  while (om_mp_cmp(&rem, b, n) >= 0) {
    om_mp_sub(&rem, &rem, b, n);
    qi++;
  }
  om_mp_zero(q, n);
  q->l[n - 1] = qi;
  for (int i = 64 * (n - 1) - 1; i >= 0; i--) {
    for (int j = n - 1; j > 0; j--) rem.l[j] = (rem.l[j] << 1) | (rem.l[j - 1] >> 63); /* rem < b: 2 rem fits */
    rem.l[0] <<= 1;
    if (om_mp_cmp(&rem, b, n) >= 0) {
      om_mp_sub(&rem, &rem, b, n);
      q->l[i / 64] |= (uint64_t)1 << (i % 64);
    }
  }
}

/* y (a double, 2^-54 <= y < 2^11) in fixed point: exact for F >= 128. */
static void om_mp_set_double(om_mp* r, double y, int n) {
  uint64_t b;
  memcpy(&b, &y, 8);
  int ex = (int)((b >> 52) & 0x7ff) - 1075; /* y = m 2^ex, y normal */
  uint64_t m = (b & 0xfffffffffffffull) | 0x10000000000000ull;
  int s = ex + 64 * (n - 1);
  om_mp_zero(r, n);
  r->l[s / 64] |= m << (s % 64);
  if (s % 64 > 11) r->l[s / 64 + 1] |= m >> (64 - s % 64);
}

static void om_mp_ln2(om_mp* l, int n) { /* L <= ln2 < L + 2u */
  int n1 = n + 1;
  om_mp t, term, sum;
  om_mp_zero(&t, n1);
  om_mp_zero(&sum, n1);
  t.l[n] = 1;
  om_mp_div_u(&t, &t, 3, n1);
  for (uint64_t j = 0; !om_mp_is_zero(&t, n1); j++) {
    om_mp_div_u(&term, &t, 2 * j + 1, n1);
    om_mp_add(&sum, &sum, &term, n1);
    om_mp_div_u(&t, &t, 9, n1);
  }
  om_mp_add(&sum, &sum, &sum, n1);
  for (int i = 0; i < n; i++) l->l[i] = sum.l[i + 1];
}

uint64_t om_mp_exp_parts(double y, int n, om_mp* e, om_mp* s1, int* kp) {
  om_mp L, Y, r, t;
  om_mp_ln2(&L, n);
  int k = (int)(y * 1.4426950408889634) - 1;
  if (k < 0) k = 0;
  om_mp_set_double(&Y, y, n);
  om_mp_mul_u(&t, &L, (uint64_t)k, n);
  om_mp_sub(&r, &Y, &t, n); /* k L <= y (head comment) */
  *s1 = r;
  t = r;
  uint64_t m = 2;
  for (;; m++) {
    om_mp_mul(&t, &t, &r, n);
    om_mp_div_u(&t, &t, m, n);
    if (om_mp_is_zero(&t, n) && m >= 5) break;
    om_mp_add(s1, s1, &t, n);
  }
  *e = *s1;
  e->l[n - 1] += 1; /* E = 1 + S1 */
  *kp = k;
  return 7 * m + 4 + 16 * (uint64_t)k;
}

/* Bit i of a (0 beyond the top), the highest set bit (-1 for zero), whether any bit below i is set. */
static int om_mp_top(const om_mp* a, int n) {
  for (int i = n - 1; i >= 0; i--)
    if (a->l[i]) return 64 * i + 63 - __builtin_clzll(a->l[i]);
  return -1;
}
static int om_mp_bit(const om_mp* a, int i, int n) {
  if (i < 0 || i >= 64 * n) return 0;
  return (int)((a->l[i / 64] >> (i % 64)) & 1);
}
static int om_mp_any_below(const om_mp* a, int i) {
  if (i <= 0) return 0;
  for (int j = 0; j < i / 64; j++)
    if (a->l[j]) return 1;
  return i % 64 ? (a->l[i / 64] & (((uint64_t)1 << (i % 64)) - 1)) != 0 : 0;
}
/* RN(A 2^s) on the binary64 grid (53 bits, subnormals down to 2^-1074), exactly; A 2^s < 2^1000. */
static double om_mp_to_double(const om_mp* a, int s, int n) {
  int h = om_mp_top(a, n);
  if (h < 0) return 0.0;
  int cut = h - 52;
  if (cut < -1074 - s) cut = -1074 - s; /* the subnormal grid */
  uint64_t m;
  int e;
  if (cut <= 0) { /* every bit kept: h < 53 */
    m = a->l[0];
    e = s;
  } else {
    int w = cut / 64, b = cut % 64;
    m = a->l[w] >> b;
    if (b && w + 1 < n) m |= a->l[w + 1] << (64 - b);
    if (h - cut + 1 < 64) m &= ((uint64_t)1 << (h - cut + 1)) - 1;
    if (om_mp_bit(a, cut - 1, n) && (om_mp_any_below(a, cut - 1) || (m & 1))) m++;
    e = s + cut;
  }
  double v = (double)m; /* m <= 2^53: exact */
  /* Every partial product m 2^(e') with e >= e' >= ... lies between the result and m: representable, exact. */
  while (e < -1000) {
    v *= 0x1p-1000;
    e += 1000;
  }
  while (e > 1000) {
    v *= 0x1p1000;
    e -= 1000;
  }
  return v * om_pow2(e);
}

int om_mp_round_interval(const om_mp* q, uint64_t err, int scale, int n, double* out, double* best) {
  int s = scale - 64 * (n - 1);
  *best = om_mp_to_double(q, s, n);
  om_mp lo = *q, hi = *q;
  om_mp_add_u(&hi, err, n);
  om_mp one;
  om_mp_zero(&one, n);
  one.l[0] = err;
  if (om_mp_cmp(q, &one, n) < 0) return 0;
  om_mp_sub_u(&lo, err, n);
  double a = om_mp_to_double(&lo, s, n), b = om_mp_to_double(&hi, s, n);
  if (a != b) return 0;
  *out = a;
  return 1;
}

static long long om_mp_caps;
void om_mp_note_cap(void) { __atomic_fetch_add(&om_mp_caps, 1, __ATOMIC_RELAXED); }
long long om_mp_cap_hits(void) { return __atomic_load_n(&om_mp_caps, __ATOMIC_RELAXED); }
