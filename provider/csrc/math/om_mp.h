/* om_mp.h - nonnegative multi-precision fixed point for the Ziv fallback of the binary64 Sigmoid and Tanh
 * (sigmoid_f64.c, tanh_f64.c; the argument is in om_mp.c's head comment).
 *
 * A number of n limbs (2 <= n <= OM_MP_LIMBS) is l[0..n-1], little-endian uint64 limbs of an integer A; its value
 * is A / 2^F with F = 64 (n - 1) fraction bits: one integer limb on top. A unit ("ulp") is 2^-F. Every operation
 * either is exact or truncates (rounds toward zero), by less than one unit unless stated.
 */
#ifndef OM_MP_H
#define OM_MP_H

#include <stdint.h>

#define OM_MP_MAX_BITS 4096                        /* the largest F the Ziv loop reaches */
#define OM_MP_LIMBS (OM_MP_MAX_BITS / 64 + 2)      /* fraction limbs, the integer limb, ln2's guard limb */

typedef struct om_mp {
  uint64_t l[OM_MP_LIMBS];
} om_mp;

/* e^y = 2^k E for 2^-54 <= y <= 1100 (y a double, exact in F >= 128 fraction bits): k >= 0 an integer, E = e^r,
 * r = y - k ln2 in [0, 3 ln2) (so 1 <= E < 8), and S1 = E - 1 summed without its leading 1 (no cancellation for
 * small r). Returns the bound in units on |E - e^r| (the same bound holds for S1). */
uint64_t om_mp_exp_parts(double y, int n, om_mp* e, om_mp* s1, int* k);

/* q = floor(A / B * 2^F) (the quotient a / b, truncated), b >= 1. q's integer limb must fit: a / b < 2^64. */
void om_mp_div(om_mp* q, const om_mp* a, const om_mp* b, int n);
void om_mp_add(om_mp* r, const om_mp* a, const om_mp* b, int n);
void om_mp_sub(om_mp* r, const om_mp* a, const om_mp* b, int n); /* a >= b */
void om_mp_set_pow2(om_mp* r, int e, int n);                       /* r = 2^e, -F <= e < 64 */

/* The Ziv rounding test: if every value in [(Q - err), (Q + err)] * 2^(scale - F) rounds (to nearest even, on
 * the binary64 grid with its subnormals) to one double, store it in *out and return 1; else 0. *best: RN(Q 2^..). */
int om_mp_round_interval(const om_mp* q, uint64_t err, int scale, int n, double* out, double* best);

/* The precisions of the Ziv loop: F = 128, 256, ..., OM_MP_MAX_BITS, i.e. n = F / 64 + 1. */
#define OM_MP_FIRST_LIMBS 3
/* Called when F = OM_MP_MAX_BITS did not settle an input (never seen; counted for the tests). */
void om_mp_note_cap(void);
long long om_mp_cap_hits(void);

/* The fallbacks themselves (x not NaN, inside the ranges their callers pass them; see the .c files), starting at
 * F = 64 (n0 - 1) bits (OM_MP_FIRST_LIMBS in the functions): the test entry (f64_act_test_entry.c) calls them
 * directly, on inputs the first pass would settle and from every precision of the loop, to test them widely. */
double om_f64_sigmoid_mp(double x, int n0);
double om_f64_tanh_mp(double x, int n0);
/* The double-double pass and what follows it (the fast pass of om_f64_fast.h skipped), for the same inputs as the
 * functions' first pass (Sigmoid -745.2 <= x <= 37.5 with |x| >= 2^-54, Tanh 2^-27 <= |x| <= 19.1). */
double om_f64_sigmoid_dd(double x);
double om_f64_tanh_dd(double x);

#endif
