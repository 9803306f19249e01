/* c_tool: -DOM_TR_STATS -DOM_POW_STATS -lmpfr -lgmp */
/* pow_verify.c - checks f32 Pow (exact mode: correctly rounded; fast mode: error in ulps) on a large
 * deterministic random sample of (x, y) pairs against MPFR, on every kernel path, and collects the hardest
 * cases (pairs whose x^y lies closest to a rounding boundary, among those the first pass sends to the fallback).
 *
 * Build and run through tools/c_tool.py pow_verify (compiles this file with all the library's C sources and flags):
 *
 *   tools/c_tool.py pow_verify -n 100000000 -j 2              # 10^8 pairs, 2 worker processes, all paths, exact
 *   tools/c_tool.py pow_verify -n 10000000 -f                  # fast mode: largest error in ulps
 *   tools/c_tool.py pow_verify -n 50000000 -H hard.txt -s 5    # seed 5, write the 64 hardest pairs to hard.txt
 *   tools/c_tool.py pow_verify -k 2 -n 1000000                 # pairs of kind 2 only (see below)
 *   tools/c_tool.py pow_verify -a -n 1000000                   # the scalar fallback's own relative error (MPFR)
 *   tools/c_tool.py pow_verify -y 0x1.555556p-2                # exhaustive in x: all 2^31 - 2^23 - 1 positive finite x, y = 1/3
 *
 * Sample (pair i, splitmix64 of (seed, i)), one of five kinds:
 *   0: x a random positive finite f32 bit pattern, y = RN_f32(t / log2 x) with t uniform in [-155, 132]
 *      (results over the whole f32 range, subnormal and overflow edges included);
 *   1: x random positive bits, y random bits with exponent in [-30, 10], random sign;
 *   2: x = 1 +- a random integer below 2^k ulps (k random in [0, 23]), y = RN_f32(t / log2 x) (large |y|);
 *   3: x random bits (either sign), y an integer in [-64, 64] or n/2, n/4 (exact and midpoint candidates);
 *   4: x = m 2^e with m an integer below 2^12, y an integer in [-20, 20] or n/2^j: exact powers and midpoints.
 *
 * Reference. R = glibc's double pow(x, y) (x, y exact in double; glibc documents < 1 ulp of double, i.e.
 * relative error < 2^-52, for results in double's normal range). When both ends of R (1 -+ 2^-40) round to the
 * same f32, that is RN_f32(x^y) (rounding is monotone); results below 2^-1000 or above 2^1000 are 0 or inf in
 * f32 either way. Otherwise MPFR: mpfr_pow at 256 bits, rounded to binary32 (emin -148, emax 128,
 * subnormalized), which is the correctly rounded result unless x^y lies within 2^-250 of a boundary, i.e. is
 * one (an exact case, then MPFR's pow at 24 bits, which is correctly rounded, decides).
 * Specials and NaN: the spec's rules (Pow(x, 0) = 1 and Pow(1, y) = 1 for NaN too; else NaN in, canonical NaN
 * out) are checked as well.
 */
#define _GNU_SOURCE
#include <math.h>
#include <mpfr.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kernels/kernels.h"
#include "kernels/pow.h"
#include "verify_common.h"

void om_tr_on_fallback(float x) { (void)x; }
void om_tr_on_second(float x) { (void)x; }

#define KEEP 64
typedef struct {
  uint32_t x, y;
  double dist; /* |x^y - boundary| / spacing (ulps of the boundary's neighbours) */
} hard_t;
typedef struct {
  uint64_t checked, mis[OM_PATH_COUNT], disagree, mpfr_calls, fallbacks, exact_cases, undecided;
  double maxulp[OM_PATH_COUNT], maxrel;
  uint32_t maxrel_xy[2];
  uint32_t first_bad[4][2];
  int nbad_kept;
  hard_t hard[KEEP];
  int nhard;
} stats_t;

static stats_t* g_st;
static int g_fast;
static int g_kind = -1; /* -k: one kind of pair only */
static int g_fixed; /* -y: every positive finite x (exhaustive) with this one y */
static float g_y;

static void gen_pair(uint64_t seed, uint64_t i, float* xo, float* yo) {
  if (g_fixed) { /* pair i: x = the (i+1)-th positive float */
    *xo = om_f32_from_bits((uint32_t)(i + 1));
    *yo = g_y;
    return;
  }
  uint64_t s = seed * 0x2545f4914f6cdd1dull + i * 0x9e3779b97f4a7c15ull;
  uint64_t a = splitmix(&s), b = splitmix(&s), c = splitmix(&s);
  int kind = g_kind >= 0 ? g_kind : (int)(a % 5);
  float x, y;
  double t = -155.0 + (double)(b >> 11) * 0x1p-53 * 287.0;
  switch (kind) {
    case 0:
    default:
      x = om_f32_from_bits((uint32_t)(1 + (c >> 33) % 0x7f7fffffu));
      y = (float)(t / log2((double)x));
      if (x == 1.0f) y = (float)t;
      break;
    case 1: {
      x = om_f32_from_bits((uint32_t)(1 + (c >> 33) % 0x7f7fffffu));
      int e = (int)((b >> 20) % 41) - 30;
      y = ldexpf(1.0f + (float)((b >> 40) & 0x7fffff) * 0x1p-23f, e);
      if (b & 1) y = -y;
      break;
    }
    case 2: {
      int k = (int)((c >> 5) % 24);
      uint32_t d = (uint32_t)((c >> 32) & ((1u << k) - 1u)) + 1u;
      x = om_f32_from_bits((c & 1) ? 0x3f800000u + d : 0x3f800000u - d);
      y = (float)(t / log2((double)x));
      break;
    }
    case 3: {
      x = om_f32_from_bits((uint32_t)(1 + (c >> 33) % 0x7f7fffffu));
      if (c & 1) x = -x;
      int n = (int)((b >> 20) % 129) - 64;
      int j = (int)((b >> 40) % 3);
      y = ldexpf((float)n, -j);
      break;
    }
    case 4: {
      int m = (int)((c >> 20) % 4096) + 1;
      int e = (int)((c >> 40) % 60) - 30;
      x = ldexpf((float)m, e);
      int pick = (int)((b >> 30) % 3);
      if (pick == 0) x = x * x; /* squares: half-integer exponents can be exact */
      if (pick == 1) x = x * x * x * x;
      int n = (int)((b >> 20) % 41) - 20;
      int j = (int)((b >> 50) % 3);
      y = ldexpf((float)n, -j);
      break;
    }
  }
  *xo = x;
  *yo = y;
}

/* RN_f32 of x^y with MPFR at prec bits; *dist gets the distance of that value to the nearest rounding boundary
 * in units of the f32 spacing there (0 when it is one). */
static float mpfr_ref(float x, float y, mpfr_prec_t prec, double* dist) {
  mpfr_t mx, my, r, q;
  mpfr_inits2(prec, mx, my, r, q, (mpfr_ptr)0);
  mpfr_set_flt(mx, x, MPFR_RNDN);
  mpfr_set_flt(my, y, MPFR_RNDN);
  mpfr_pow(r, mx, my, MPFR_RNDN);
  float out = mpfr_round_f32(r);
  *dist = 1.0;
  if (dist && mpfr_regular_p(r) && isfinite(out) && out != 0.0f) {
    /* spacing: ulp of |out| in f32 (subnormal ulp 2^-149); boundary nearest to r: out +- spacing/2 */
    float ao = fabsf(out);
    int e;
    frexpf(ao, &e);
    int ue = e - 24 < -149 ? -149 : e - 24;
    mpfr_set(q, r, MPFR_RNDN);
    mpfr_abs(q, q, MPFR_RNDN);
    mpfr_sub_d(q, q, (double)ao, MPFR_RNDN); /* r - out */
    mpfr_mul_2si(q, q, -ue, MPFR_RNDN);       /* in ulps: in [-1/2, 1/2] */
    double d = fabs(mpfr_get_d(q, MPFR_RNDN));
    *dist = 0.5 - d;
  }
  mpfr_clears(mx, my, r, q, (mpfr_ptr)0);
  return out;
}

static int is_nan_bits(uint32_t u) { return (u & 0x7fffffffu) > 0x7f800000u; }

/* the expected result; *mp set when MPFR was needed */
static float expect(float x, float y, int* mp) {
  *mp = 0;
  if (y == 0.0f || x == 1.0f) return 1.0f;
  if (x != x || y != y) return om_f32_from_bits(0x7fc00000u);
  double R = pow((double)x, (double)y);
  if (R != R) return om_f32_from_bits(0x7fc00000u);
  double aR = fabs(R);
  if (aR == 0.0 || aR < 0x1p-1000 || aR > 0x1p1000 || isinf(R)) return (float)R;
  float a = (float)(R - aR * 0x1p-40), b = (float)(R + aR * 0x1p-40);
  if (a == b) return a;
  *mp = 1;
  double d;
  float r = mpfr_ref(x, y, 256, &d);
  if (d < 0x1p-200) { /* an exact case: decide with MPFR's correctly rounded pow at 24 bits */
    mpfr_t mx, my, f;
    mpfr_inits2(24, mx, my, f, (mpfr_ptr)0);
    mpfr_set_flt(mx, x, MPFR_RNDN);
    mpfr_set_flt(my, y, MPFR_RNDN);
    mpfr_exp_t emin = mpfr_get_emin(), emax = mpfr_get_emax();
    mpfr_set_emin(-148);
    mpfr_set_emax(128);
    int inex = mpfr_pow(f, mx, my, MPFR_RNDN);
    inex = mpfr_check_range(f, inex, MPFR_RNDN);
    mpfr_subnormalize(f, inex, MPFR_RNDN);
    r = mpfr_get_flt(f, MPFR_RNDN);
    mpfr_set_emin(emin);
    mpfr_set_emax(emax);
    mpfr_clears(mx, my, f, (mpfr_ptr)0);
  }
  return r;
}

/* fallback hook (pow.inc under OM_TR_STATS): lanes the first pass could not settle */
static float* g_fb_x;
static float* g_fb_y;
static size_t g_nfb, g_capfb;
void om_pow_on_fallback(float x, float y);
void om_pow_on_fallback(float x, float y) {
  if (g_nfb < g_capfb) {
    g_fb_x[g_nfb] = x;
    g_fb_y[g_nfb] = y;
    g_nfb++;
  }
}

static uint64_t g_undecided;
void om_pow_on_undecided(float x, float y);
void om_pow_on_undecided(float x, float y) {
  g_undecided++;
  fprintf(stderr, "undecided: x = %a, y = %a\n", x, y);
}

/* -a: the relative error of the fallback's double-double value hi + lo (scaled) against MPFR at 300 bits */
static int g_acc;
static double g_maxrel;
static uint32_t g_maxrel_xy[2];
void om_pow_on_general(float x, float y, double hi, double lo);
void om_pow_on_general(float x, float y, double hi, double lo) {
  if (!g_acc) return;
  mpfr_t mx, my, r, v;
  mpfr_inits2(300, mx, my, r, v, (mpfr_ptr)0);
  mpfr_set_flt(mx, fabsf(x), MPFR_RNDN);
  mpfr_set_flt(my, y, MPFR_RNDN);
  mpfr_pow(r, mx, my, MPFR_RNDN);
  mpfr_set_d(v, hi, MPFR_RNDN);
  mpfr_add_d(v, v, lo, MPFR_RNDN);
  mpfr_sub(v, v, r, MPFR_RNDN);
  mpfr_div(v, v, r, MPFR_RNDN);
  double e = fabs(mpfr_get_d(v, MPFR_RNDN));
  if (e > g_maxrel) {
    g_maxrel = e;
    g_maxrel_xy[0] = om_f32_bits(x);
    g_maxrel_xy[1] = om_f32_bits(y);
  }
  mpfr_clears(mx, my, r, v, (mpfr_ptr)0);
}

static void keep_hard(stats_t* st, float x, float y, double d) {
  if (st->nhard < KEEP) {
    st->hard[st->nhard++] = (hard_t){om_f32_bits(x), om_f32_bits(y), d};
    return;
  }
  int w = 0;
  for (int k = 1; k < KEEP; k++)
    if (st->hard[k].dist > st->hard[w].dist) w = k;
  if (d < st->hard[w].dist) st->hard[w] = (hard_t){om_f32_bits(x), om_f32_bits(y), d};
}

static double ulp_err(float got, float want, float x, float y) {
  if (om_f32_bits(got) == om_f32_bits(want)) return 0.0;
  if (is_nan_bits(om_f32_bits(want)) || is_nan_bits(om_f32_bits(got))) return 1e9;
  double R = pow((double)x, (double)y);
  double aR = fabs(R);
  if (isinf(got) && aR > 0x1p127) return 0.5 + (aR >= 0x1p128 ? 0 : (0x1p128 - aR) / 0x1p104); /* rough */
  int e;
  frexp(aR, &e);
  int ue = e - 24 < -149 ? -149 : e - 24;
  return fabs((double)got - R) / ldexp(1.0, ue);
}

static void worker(int w, int nw, uint64_t n, uint64_t seed, const int* paths, int np, int hunt) {
  stats_t* st = &g_st[w];
  enum { B = 4096 };
  float* x = malloc(B * 4);
  float* y = malloc(B * 4);
  float* o[OM_PATH_COUNT];
  for (int p = 0; p < np; p++) o[p] = malloc(B * 4);
  g_capfb = B;
  g_fb_x = malloc(B * 4);
  g_fb_y = malloc(B * 4);
  uint64_t lo = n * (uint64_t)w / (uint64_t)nw, hi = n * (uint64_t)(w + 1) / (uint64_t)nw;
  const unsigned fl = g_fast ? 0u : OM_FL_EXACT;
  if (g_acc) { /* the scalar fallback on every pair, its error measured by the hook; no kernel runs */
    for (uint64_t s = lo; s < hi; s++) {
      float xx, yy;
      gen_pair(seed, s, &xx, &yy);
      (void)om_pow_exact_f32(xx, yy);
      st->checked++;
    }
    st->maxrel = g_maxrel;
    st->maxrel_xy[0] = g_maxrel_xy[0];
    st->maxrel_xy[1] = g_maxrel_xy[1];
    return;
  }
  for (uint64_t s = lo; s < hi; s += B) {
    size_t m = hi - s < B ? (size_t)(hi - s) : B;
    for (size_t i = 0; i < m; i++) gen_pair(seed, s + i, &x[i], &y[i]);
    for (int p = 0; p < np; p++) {
      const om_kernel_table* t = om_path_table(paths[p]);
      const om_kernel_table* one = om_path_table(OM_PATH_SCALAR);
      if (p == 0) g_nfb = 0;
      size_t done = t->pow_f32(x, y, o[p], m, fl);
      if (done < m) one->pow_f32(x + done, y + done, o[p] + done, m - done, fl);
      if (p == 0) {
        st->fallbacks += g_nfb;
        if (hunt)
          for (size_t k = 0; k < g_nfb; k++) {
            double d;
            mpfr_ref(g_fb_x[k], g_fb_y[k], 200, &d);
            if (d < 0x1p-150) st->exact_cases++;
            else if (d < 0.5) keep_hard(st, g_fb_x[k], g_fb_y[k], d); /* 0.5: a float itself; 1: special */
          }
      }
    }
    for (size_t i = 0; i < m; i++) {
      int mp;
      float want = expect(x[i], y[i], &mp);
      st->mpfr_calls += (uint64_t)mp;
      st->checked++;
      uint32_t wb = om_f32_bits(want);
      for (int p = 0; p < np; p++) {
        uint32_t gb = om_f32_bits(o[p][i]);
        if (g_fast) {
          double e = ulp_err(o[p][i], want, x[i], y[i]);
          if (e > st->maxulp[paths[p]]) st->maxulp[paths[p]] = e;
          if (e > 1.0) st->mis[paths[p]]++;
        } else if (gb != wb && !(is_nan_bits(gb) && is_nan_bits(wb) && gb == 0x7fc00000u)) {
          st->mis[paths[p]]++;
          if (st->nbad_kept < 4) {
            st->first_bad[st->nbad_kept][0] = om_f32_bits(x[i]);
            st->first_bad[st->nbad_kept][1] = om_f32_bits(y[i]);
            st->nbad_kept++;
          }
        }
        if (p > 0 && gb != om_f32_bits(o[0][i]) && !g_fast) st->disagree++;
      }
    }
  }
  st->undecided = g_undecided;
}

int main(int argc, char** argv) {
  uint64_t n = 1000000, seed = 1;
  int nw = 2, hunt = 0;
  const char* hard_out = NULL;
  for (int a = 1; a < argc; a++) {
    if (!strcmp(argv[a], "-n") && a + 1 < argc) n = strtoull(argv[++a], NULL, 0);
    else if (!strcmp(argv[a], "-j") && a + 1 < argc) nw = atoi(argv[++a]);
    else if (!strcmp(argv[a], "-s") && a + 1 < argc) seed = strtoull(argv[++a], NULL, 0);
    else if (!strcmp(argv[a], "-f")) g_fast = 1;
    else if (!strcmp(argv[a], "-k") && a + 1 < argc) g_kind = atoi(argv[++a]);
    else if (!strcmp(argv[a], "-a")) g_acc = 1;
    else if (!strcmp(argv[a], "-y") && a + 1 < argc) g_fixed = 1, g_y = strtof(argv[++a], NULL), n = 0x7f7fffffu;
    else if (!strcmp(argv[a], "-H") && a + 1 < argc) hard_out = argv[++a], hunt = 1;
    else {
      fprintf(stderr, "usage: pow_verify [-n pairs] [-j workers] [-s seed] [-f] [-a] [-k kind] [-y Y] [-H hardfile]\n");
      return 2;
    }
  }
  int paths[OM_PATH_COUNT], np = 0;
  for (int p = 0; p < OM_PATH_COUNT; p++)
    if (om_path_available(p)) paths[np++] = p;
  g_st = mmap(NULL, sizeof(stats_t) * (size_t)nw, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  memset(g_st, 0, sizeof(stats_t) * (size_t)nw);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (int w = 0; w < nw; w++)
    if (fork() == 0) {
      worker(w, nw, n, seed, paths, np, hunt);
      _exit(0);
    }
  for (int w = 0; w < nw; w++) wait(NULL);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  stats_t tot = {0};
  for (int w = 0; w < nw; w++) {
    stats_t* s = &g_st[w];
    tot.checked += s->checked;
    tot.disagree += s->disagree;
    tot.mpfr_calls += s->mpfr_calls;
    tot.fallbacks += s->fallbacks;
    tot.exact_cases += s->exact_cases;
    tot.undecided += s->undecided;
    if (s->maxrel > tot.maxrel) {
      tot.maxrel = s->maxrel;
      tot.maxrel_xy[0] = s->maxrel_xy[0];
      tot.maxrel_xy[1] = s->maxrel_xy[1];
    }
    for (int p = 0; p < OM_PATH_COUNT; p++) {
      tot.mis[p] += s->mis[p];
      if (s->maxulp[p] > tot.maxulp[p]) tot.maxulp[p] = s->maxulp[p];
    }
    for (int k = 0; k < s->nbad_kept && tot.nbad_kept < 4; k++) {
      tot.first_bad[tot.nbad_kept][0] = s->first_bad[k][0];
      tot.first_bad[tot.nbad_kept][1] = s->first_bad[k][1];
      tot.nbad_kept++;
    }
    for (int k = 0; k < s->nhard; k++) keep_hard(&tot, om_f32_from_bits(s->hard[k].x), om_f32_from_bits(s->hard[k].y), s->hard[k].dist);
  }
  if (g_fixed) printf("pow_verify: every positive finite x with y = %a\n", g_y);
  printf("pow_verify: %s mode, %llu pairs (seed %llu), %d workers, %.1f s\n", g_fast ? "fast" : "exact",
         (unsigned long long)tot.checked, (unsigned long long)seed, nw,
         (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));
  if (g_acc) {
    printf("  scalar fallback on every pair: largest relative error of its double-double value 2^%.2f"
           " (x = %a, y = %a)\n", log2(tot.maxrel), om_f32_from_bits(tot.maxrel_xy[0]), om_f32_from_bits(tot.maxrel_xy[1]));
    return 0;
  }
  printf("  MPFR calls %llu, first-pass fallbacks (path %s) %llu, fallback results within 2^-90 of a boundary %llu\n",
         (unsigned long long)tot.mpfr_calls, om_path_name(paths[0]), (unsigned long long)tot.fallbacks,
         (unsigned long long)tot.undecided);
  for (int p = 0; p < np; p++) {
    if (g_fast)
      printf("  path %-6s: max error %.6f ulp, %llu results beyond 1 ulp\n", om_path_name(paths[p]),
             tot.maxulp[paths[p]], (unsigned long long)tot.mis[paths[p]]);
    else
      printf("  path %-6s: %llu misrounded\n", om_path_name(paths[p]), (unsigned long long)tot.mis[paths[p]]);
  }
  if (!g_fast) printf("  results differing between paths: %llu\n", (unsigned long long)tot.disagree);
  for (int k = 0; k < tot.nbad_kept; k++)
    printf("  misrounded: x = %a (0x%08x), y = %a (0x%08x)\n", om_f32_from_bits(tot.first_bad[k][0]), tot.first_bad[k][0],
           om_f32_from_bits(tot.first_bad[k][1]), tot.first_bad[k][1]);
  if (hunt) {
    printf("  exact cases among the fallbacks: %llu\n", (unsigned long long)tot.exact_cases);
    FILE* f = fopen(hard_out, "w");
    for (int a = 0; a < tot.nhard; a++)
      for (int b = a + 1; b < tot.nhard; b++)
        if (tot.hard[b].dist < tot.hard[a].dist) {
          hard_t h = tot.hard[a];
          tot.hard[a] = tot.hard[b];
          tot.hard[b] = h;
        }
    for (int k = 0; k < tot.nhard; k++) {
      if (f) fprintf(f, "0x%08x 0x%08x %.3e\n", tot.hard[k].x, tot.hard[k].y, tot.hard[k].dist);
      if (k < 5) printf("  hard: x = %a, y = %a, distance to a boundary %.3e ulp (2^%.1f)\n", om_f32_from_bits(tot.hard[k].x),
                        om_f32_from_bits(tot.hard[k].y), tot.hard[k].dist, log2(tot.hard[k].dist));
    }
    if (f) fclose(f);
  }
  uint64_t bad = tot.disagree;
  for (int p = 0; p < OM_PATH_COUNT; p++) bad += g_fast ? 0 : tot.mis[p];
  return bad ? 1 : 0;
}
