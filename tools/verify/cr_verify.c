/* c_tool: -DOM_TR_STATS -lmpfr -lgmp */
/* cr_verify.c - exhaustive check of the f32 transcendental kernels against MPFR, over all 2^32 inputs.
 *
 * Build and run through tools/verify/cr_verify.sh (it compiles this file together with the kernel sources,
 * provider/csrc/kernels/kernels_*.c and paths.c, with the library's own flags, so the code checked is the
 * code the library runs):
 *
 *   tools/verify/cr_verify.sh exp                    # all 2^32 inputs, 2 worker processes, paths scalar,512
 *   tools/verify/cr_verify.sh -j 4 -p scalar,256,128 tanh
 *   tools/verify/cr_verify.sh -r 0x3f800000 0x3f900000 log    # a bit range only (no state files)
 *   tools/verify/cr_verify.sh -r 0 0x100000000 -t 4099 erf     # every 4099th input: a quick scan
 *
 * Functions: exp log tanh sigmoid erf gelu_erf gelu_tanh sin cos softplus mish elu selu celu (-a ALPHA, -g GAMMA
 * set the last three's parameters, ONNX's defaults otherwise; tools/verify/cr_verify.sh also takes a
 * comma-separated list, run one after the other: sin,cos). Exact mode unless -f (fast mode: reports the
 * largest error in ulps, measured against the reference R below, instead of requiring correct rounding; the
 * count of results that are not correctly rounded is then indicative only: where R cannot settle the rounding
 * it takes RN_f32(R) instead of asking MPFR).
 *
 * Work is split in 256 shards of 2^24 consecutive bit patterns; a finished shard writes
 * <state dir>/<func>/shard_NNN (counts, first misrounded inputs, hardest cases), so an interrupted run
 * resumes where it stopped. A progress bar goes to stderr. The summary (stdout) gives the number of inputs
 * checked, of misrounded results, of path disagreements, of MPFR calls, and the hardest cases.
 *
 * Why the shortcut is sound. For every input the expected result is RN_f32(f(x)). A reference value R is
 * computed with the C library: glibc's double exp, log, tanh, erf, sin, cos (their documented maximal errors on
 * x86_64 are a few ulps of double, i.e. below 2^-50 relative; sin and cos reduce every argument exactly) and, for the compound functions, long double (64-bit
 * mantissa) formulas: sigmoid 1/(1 + expl(-x)), gelu_erf x/2 erfcl(-x/sqrt2), gelu_tanh x/(1 + expl(-v)) with
 * v = x (K1 + K3 x^2) (the identity x/2 (1 + tanh(v/2)) = x sigma(v)). Their errors (glibc's long double
 * functions are within a few ulps of 2^-64; the conditioning of the formulas is at most |v| <= 2^7 or
 * 2 w^2 <= 2^8) stay below 2^-50 relative. We allow 2^-40: the interval [R(1 - 2^-40), R(1 + 2^-40)]
 * (computed in long double, outward by much more than its own rounding) contains f(x). When both ends round to
 * the same f32, that f32 is RN_f32(f(x)) (rounding is monotone). Only when they differ (an input whose f(x)
 * lies within 2^-40 relative of an f32 rounding boundary: about 2^-15 of all inputs) is MPFR asked: f(x) at
 * 256 bits and again at 512 bits, each rounded to binary32 (24 bits, emin -148, emax 128, subnormalized);
 * the two must agree (else the input is reported as unsettled). References whose magnitude is below 2^-200
 * (where double exp or erfc underflow) are outside f32's reach and round to a signed zero.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <float.h>
#include <math.h>
#include <mpfr.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kernels/kernels.h"
#include "verify_common.h"

enum { F_EXP, F_LOG, F_TANH, F_SIGMOID, F_ERF, F_GELU_ERF, F_GELU_TANH, F_SIN, F_COS, F_SOFTPLUS, F_MISH,
       F_ELU, F_SELU, F_CELU, F_COUNT };
static const char* const fnames[F_COUNT] = {"exp", "log", "tanh", "sigmoid", "erf", "gelu_erf", "gelu_tanh",
                                             "sin", "cos", "softplus", "mish", "elu", "selu", "celu"};
static const int fkernel[F_COUNT] = {OM_K_EXP,     OM_K_LOG,      OM_K_TANH,     OM_K_SIGMOID,
                                     OM_K_ERF,     OM_K_GELU_ERF, OM_K_GELU_TANH, OM_K_SIN,
                                     OM_K_COS,     OM_K_SOFTPLUS, OM_K_MISH,      OM_K_ELU,
                                     OM_K_SELU,    OM_K_CELU};
/* Elu, Selu, Celu: binary kernels whose operand b is {alpha, gamma} (f32, broadcast); -a and -g set them. */
#define F_IS_ACT(f) ((f) >= F_ELU)
static float g_prm[2] = {0.0f, 1.05070102214813232421875f};
static int g_has_alpha, g_alpha_given;

#define NSHARDS 256u
#define SHARD_SIZE (1u << 24)
#define BLOCK 4096u
#define KEEP 8 /* first misrounded inputs and hardest cases kept per shard */

static int g_func;
static int g_fast;

/* ---- references ----------------------------------------------------------------------------------------- */
static const long double K1L = 1.5957691216057307117597842397375L; /* 2 sqrt(2/pi) */

static long double ref_filter(float xf) {
  double x = xf;
  long double xl = xf;
  if (isinf(xf) && (g_func == F_GELU_ERF || g_func == F_GELU_TANH))
    return xf > 0 ? xl : -0.0L; /* the limits of x Phi(x): the formulas below give inf * 0 there */
  if (isinf(xf) && g_func == F_MISH) return xf > 0 ? xl : -0.0L; /* the limits; the formula: -inf * 0 */
  switch (g_func) {
    case F_EXP: return exp(x);
    case F_LOG: return log(x);
    case F_TANH: return tanh(x);
    case F_ERF: return erf(x);
    case F_SIN: return sin(x); /* NaN for +-inf */
    case F_COS: return cos(x);
    case F_SIGMOID: return 1.0L / (1.0L + expl(-xl));
    case F_GELU_ERF: return 0.5L * xl * erfcl(-xl * 0.70710678118654752440084436210484903L);
    case F_GELU_TANH: {
      long double v = xl * (K1L + K1L * 0.044715L * xl * xl);
      return xl / (1.0L + expl(-v));
    }
    case F_SOFTPLUS: return xl > 0 ? xl + log1pl(expl(-xl)) : log1pl(expl(xl));
    case F_MISH: return xl * tanhl(log1pl(expl(xl)));
    case F_ELU: return xl >= 0 ? xl : (long double)g_prm[0] * expm1l(xl);
    case F_SELU:
      return xl > 0 ? (long double)g_prm[1] * xl : xl == 0 ? 0.0L : (long double)g_prm[1] * g_prm[0] * expm1l(xl);
    case F_CELU: return xl > 0 ? xl : xl == 0 ? 0.0L : (long double)g_prm[0] * expm1l(xl / g_prm[0]);
  }
  return NAN;
}

static double g_last_dist; /* set by ref_mpfr_prec: see boundary distance below */

/* f(x) at precision prec, rounded to binary32. Also sets g_last_dist: the distance from that value of f(x) to
 * the nearest f32 rounding boundary (midpoint of two adjacent f32), in units of their spacing. */
static float ref_mpfr_prec(float xf, mpfr_prec_t prec) {
  mpfr_t x, y, t, u;
  mpfr_inits2(prec, x, y, t, u, (mpfr_ptr)0);
  mpfr_set_flt(x, xf, MPFR_RNDN);
  switch (g_func) {
    case F_EXP: mpfr_exp(y, x, MPFR_RNDN); break;
    case F_LOG: mpfr_log(y, x, MPFR_RNDN); break;
    case F_TANH: mpfr_tanh(y, x, MPFR_RNDN); break;
    case F_ERF: mpfr_erf(y, x, MPFR_RNDN); break;
    case F_SIN: mpfr_sin(y, x, MPFR_RNDN); break;
    case F_COS: mpfr_cos(y, x, MPFR_RNDN); break;
    case F_SIGMOID: /* 1 / (1 + e^-x) */
      mpfr_neg(t, x, MPFR_RNDN);
      mpfr_exp(t, t, MPFR_RNDN);
      mpfr_add_ui(t, t, 1, MPFR_RNDN);
      mpfr_ui_div(y, 1, t, MPFR_RNDN);
      break;
    case F_GELU_ERF: /* x/2 erfc(-x/sqrt2) */
      mpfr_sqrt_ui(t, 2, MPFR_RNDN);
      mpfr_div(t, x, t, MPFR_RNDN);
      mpfr_neg(t, t, MPFR_RNDN);
      mpfr_erfc(t, t, MPFR_RNDN);
      mpfr_mul(y, t, x, MPFR_RNDN);
      mpfr_div_2ui(y, y, 1, MPFR_RNDN);
      break;
    case F_GELU_TANH: /* x sigma(v), v = 2 sqrt(2/pi) (x + 0.044715 x^3) = 2u, i.e. x/2 (1 + tanh u) */
      mpfr_const_pi(t, MPFR_RNDN);
      mpfr_ui_div(t, 2, t, MPFR_RNDN);
      mpfr_sqrt(t, t, MPFR_RNDN);
      mpfr_mul_2ui(t, t, 1, MPFR_RNDN); /* t = 2 sqrt(2/pi) */
      mpfr_set_str(u, "0.044715", 10, MPFR_RNDN);
      mpfr_mul(u, u, x, MPFR_RNDN);
      mpfr_mul(u, u, x, MPFR_RNDN);
      mpfr_mul(u, u, x, MPFR_RNDN);
      mpfr_add(u, u, x, MPFR_RNDN);
      mpfr_mul(u, u, t, MPFR_RNDN); /* v */
      mpfr_neg(u, u, MPFR_RNDN);
      mpfr_exp(u, u, MPFR_RNDN);
      mpfr_add_ui(u, u, 1, MPFR_RNDN);
      mpfr_div(y, x, u, MPFR_RNDN);
      break;
    case F_SOFTPLUS: /* max(x, 0) + log1p(e^-|x|): no overflow of e^x */
      mpfr_abs(t, x, MPFR_RNDN);
      mpfr_neg(t, t, MPFR_RNDN);
      mpfr_exp(t, t, MPFR_RNDN);
      mpfr_log1p(t, t, MPFR_RNDN);
      if (mpfr_sgn(x) > 0) mpfr_add(y, t, x, MPFR_RNDN);
      else mpfr_set(y, t, MPFR_RNDN);
      break;
    case F_MISH: /* x tanh(log1p(e^x)) */
      mpfr_exp(t, x, MPFR_RNDN);
      mpfr_log1p(t, t, MPFR_RNDN);
      mpfr_tanh(t, t, MPFR_RNDN);
      mpfr_mul(y, t, x, MPFR_RNDN);
      break;
    case F_ELU: /* x >= 0: x; else alpha expm1(x) */
    case F_SELU: /* x > 0: gamma x; else gamma alpha expm1(x) */
    case F_CELU: /* x > 0: x; else alpha expm1(x / alpha) */
      if (mpfr_sgn(x) > 0 || (g_func == F_ELU && mpfr_sgn(x) == 0)) {
        mpfr_mul_d(y, x, g_func == F_SELU ? (double)g_prm[1] : 1.0, MPFR_RNDN);
        break;
      }
      mpfr_set(t, x, MPFR_RNDN);
      if (g_func == F_CELU) mpfr_div_d(t, x, (double)g_prm[0], MPFR_RNDN);
      mpfr_expm1(t, t, MPFR_RNDN);
      mpfr_mul_d(y, t, (double)g_prm[0], MPFR_RNDN);
      if (g_func == F_SELU) mpfr_mul_d(y, y, (double)g_prm[1], MPFR_RNDN);
      break;
  }
  float f = mpfr_round_f32(y); /* RN_f32, subnormals and overflow included */
  g_last_dist = 1.0;
  if (isfinite(f) && mpfr_number_p(y)) {
    mpfr_set_flt(t, f, MPFR_RNDN);
    int above = mpfr_cmp(y, t) > 0;
    float g = nextafterf(f, above ? INFINITY : -INFINITY);
    if (isfinite(g) && !mpfr_equal_p(y, t)) {
      mpfr_set_flt(u, g, MPFR_RNDN);
      mpfr_sub(u, u, t, MPFR_RNDN); /* spacing (exact) */
      mpfr_abs(u, u, MPFR_RNDN);
      mpfr_sub(t, y, t, MPFR_RNDN);
      mpfr_abs(t, t, MPFR_RNDN);
      mpfr_div(t, t, u, MPFR_RNDN); /* |y - f| / spacing, in [0, 1/2] */
      mpfr_ui_sub(t, 1, t, MPFR_RNDN);
      mpfr_sub_d(t, t, 0.5, MPFR_RNDN); /* 1/2 - |y - f|/spacing */
      g_last_dist = mpfr_get_d(t, MPFR_RNDN);
      if (g_last_dist > 0.5) g_last_dist = 1.0 - g_last_dist;
    }
  }
  mpfr_clears(x, y, t, u, (mpfr_ptr)0);
  return f;
}

/* ---- per shard ------------------------------------------------------------------------------------------ */
typedef struct {
  uint64_t inputs, misrounded, path_mismatch, mpfr_calls, unsettled;
  double max_ulp; /* fast mode */
  uint32_t max_ulp_input;
  int nbad;
  uint32_t bad_in[KEEP], bad_got[KEEP], bad_want[KEEP];
  int nhard;
  uint32_t hard_in[KEEP], hard_out[KEEP];
  double hard_dist[KEEP]; /* |f(x) - nearest rounding boundary| / ulp, from the 512-bit value */
  uint64_t fallbacks; /* lanes of the first path that took the kernel's scalar fallback */
  uint64_t seconds;   /* of those, the lanes a second double pass settled (no double-double) */
  int nfb;
  uint32_t fb_in[KEEP];
} shard_result;

/* Built with -DOM_TR_STATS: the kernels report each lane that takes the double-double fallback. */
static shard_result* g_cur;
static int g_count_fb;
void om_tr_on_fallback(float x) {
  if (!g_count_fb || !g_cur) return;
  g_cur->fallbacks++;
  uint32_t b;
  memcpy(&b, &x, 4);
  if (g_cur->nfb < KEEP) g_cur->fb_in[g_cur->nfb++] = b;
}

void om_tr_on_second(float x) {
  (void)x;
  if (g_count_fb && g_cur) g_cur->seconds++;
}

static int g_paths[OM_PATH_COUNT], g_npaths;
static volatile uint64_t* g_progress; /* shared: inputs done per worker */

/* ulp error of got against the exact value (for fast mode), from the long double reference */
static double ulp_err(float got, long double ref) {
  if (isnan(got) && isnan((double)ref)) return 0;
  if (isinf(got) || isinf((double)ref)) return (got == (float)ref) ? 0 : 1e9;
  long double a = fabsl(ref);
  int e;
  frexpl(a, &e); /* a in [2^(e-1), 2^e) */
  int ue = e - 24;
  if (ue < -149) ue = -149;
  return (double)(fabsl((long double)got - ref) / ldexpl(1.0L, ue));
}

static void add_hard(shard_result* s, uint32_t in, uint32_t out, double d) {
  if (s->nhard < KEEP) {
    s->hard_in[s->nhard] = in;
    s->hard_out[s->nhard] = out;
    s->hard_dist[s->nhard++] = d;
    return;
  }
  int w = 0;
  for (int i = 1; i < KEEP; i++)
    if (s->hard_dist[i] > s->hard_dist[w]) w = i;
  if (d < s->hard_dist[w]) {
    s->hard_in[w] = in;
    s->hard_out[w] = out;
    s->hard_dist[w] = d;
  }
}

static uint64_t g_stride = 1;

/* Inputs start, start + g_stride, ... (count of them). */
static void check_range(uint64_t start, uint64_t count, shard_result* s, int worker) {
  static float in[BLOCK], out[OM_PATH_COUNT][BLOCK];
  for (uint64_t b = 0; b < count; b += BLOCK) {
    size_t n = (size_t)((count - b) < BLOCK ? (count - b) : BLOCK);
    for (size_t i = 0; i < n; i++) in[i] = om_f32_from_bits((uint32_t)(start + (b + i) * g_stride));
    g_cur = s;
    for (int p = 0; p < g_npaths; p++) {
      g_count_fb = p == 0;
      const om_kernel_table* t = om_path_table(g_paths[p]);
      if (F_IS_ACT(g_func)) {
        om_bin_fn fb = t->bin[fkernel[g_func]][OM_T_FLOAT];
        unsigned fl = g_fast ? 0u : OM_FL_EXACT;
        size_t done = fb(in, g_prm, out[p], n, 2u, fl);
        if (done < n)
          om_path_table(OM_PATH_SCALAR)->bin[fkernel[g_func]][OM_T_FLOAT](in + done, g_prm, out[p] + done, n - done, 2u, fl);
        continue;
      }
      om_un_fn fn = t->un[fkernel[g_func]][OM_T_FLOAT];
      size_t done = fn(in, out[p], n, g_fast ? 0u : OM_FL_EXACT);
      if (done < n) om_path_table(OM_PATH_SCALAR)->un[fkernel[g_func]][OM_T_FLOAT](in + done, out[p] + done, n - done,
                                                                                   g_fast ? 0u : OM_FL_EXACT);
    }
    for (size_t i = 0; i < n; i++) {
      uint32_t x = om_f32_bits(in[i]);
      float xf = in[i];
      uint32_t got = om_f32_bits(out[0][i]);
      for (int p = 1; p < g_npaths; p++)
        if (om_f32_bits(out[p][i]) != got) s->path_mismatch++;
      s->inputs++;
      long double r = ref_filter(xf);
      if (g_fast) {
        double e = ulp_err(out[0][i], r);
        if (isnan((double)r) != isnan(out[0][i])) e = 1e9;
        if (e > s->max_ulp) {
          s->max_ulp = e;
          s->max_ulp_input = x;
        }
      }
      uint32_t want;
      if (isnan((double)r)) {
        want = 0x7fc00000u;
      } else if (isinf((double)r)) {
        want = om_f32_bits((float)r);
      } else if (fabsl(r) < 0x1p-200L) {
        want = om_f32_bits(signbit(r) ? -0.0f : 0.0f);
      } else {
        long double lo = r - r * 0x1p-40L, hi = r + r * 0x1p-40L;
        float flo = (float)lo, fhi = (float)hi;
        if (om_f32_bits(flo) == om_f32_bits(fhi)) {
          want = om_f32_bits(flo);
        } else if (g_fast) { /* fast mode: the error in ulps is what counts; no MPFR for the count below */
          want = om_f32_bits((float)r);
        } else {
          s->mpfr_calls++;
          float a = ref_mpfr_prec(xf, 256), c = ref_mpfr_prec(xf, 512);
          if (om_f32_bits(a) != om_f32_bits(c)) s->unsettled++;
          want = om_f32_bits(c);
          add_hard(s, x, want, g_last_dist);
        }
      }
      if (got != want) {
        if (s->nbad < KEEP) {
          s->bad_in[s->nbad] = x;
          s->bad_got[s->nbad] = got;
          s->bad_want[s->nbad++] = want;
        }
        s->misrounded++;
      }
    }
    if (g_progress) g_progress[worker] += n;
  }
}

/* ---- state files -------------------------------------------------------------------------------------- */
static char g_dir[1024];

static void shard_path(char* buf, size_t len, unsigned shard) { snprintf(buf, len, "%s/shard_%03u", g_dir, shard); }

static int load_shard(unsigned shard, shard_result* s) {
  char p[1200];
  shard_path(p, sizeof p, shard);
  FILE* f = fopen(p, "rb");
  if (!f) return 0;
  size_t ok = fread(s, sizeof *s, 1, f);
  fclose(f);
  return ok == 1;
}

static void save_shard(unsigned shard, const shard_result* s) {
  char p[1200], tmp[1300];
  shard_path(p, sizeof p, shard);
  snprintf(tmp, sizeof tmp, "%s.tmp%d", p, (int)getpid());
  FILE* f = fopen(tmp, "wb");
  if (!f) {
    perror(tmp);
    exit(2);
  }
  fwrite(s, sizeof *s, 1, f);
  fclose(f);
  rename(tmp, p);
}

static void mkdirs(const char* path) {
  char buf[1024];
  snprintf(buf, sizeof buf, "%s", path);
  for (char* q = buf + 1; *q; q++)
    if (*q == '/') {
      *q = 0;
      mkdir(buf, 0755);
      *q = '/';
    }
  mkdir(buf, 0755);
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int HARD_PRINT = 64; /* -k */
static uint32_t g_hin[NSHARDS * KEEP], g_hout[NSHARDS * KEEP];
static double g_hdist[NSHARDS * KEEP];
static int g_nh;
static uint32_t g_fbin[NSHARDS * KEEP];
static int g_nfb;
static void collect_hard(const shard_result* s) {
  for (int i = 0; i < s->nfb && g_nfb < (int)(NSHARDS * KEEP); i++) g_fbin[g_nfb++] = s->fb_in[i];
  for (int i = 0; i < s->nhard && g_nh < (int)(NSHARDS * KEEP); i++, g_nh++) {
    g_hin[g_nh] = s->hard_in[i];
    g_hout[g_nh] = s->hard_out[i];
    g_hdist[g_nh] = s->hard_dist[i];
  }
}

static void print_summary(const shard_result* tot, int nshards_done, double secs, uint64_t range_inputs) {
  printf("function %s, mode %s, paths", fnames[g_func], g_fast ? "fast" : "exact");
  for (int p = 0; p < g_npaths; p++) printf(" %s", om_path_name(g_paths[p]));
  printf("\n");
  if (range_inputs)
    printf("inputs checked: %llu (bit range)\n", (unsigned long long)tot->inputs);
  else
    printf("shards complete: %d/%u, inputs checked: %llu of 4294967296\n", nshards_done, NSHARDS,
           (unsigned long long)tot->inputs);
  printf("path disagreements: %llu\n", (unsigned long long)tot->path_mismatch);
  if (g_fast)
    printf("max error: %.4f ulp at input 0x%08x (%a)\n", tot->max_ulp, tot->max_ulp_input,
           (double)om_f32_from_bits(tot->max_ulp_input));
  {
    printf("misrounded%s: %llu\n", g_fast ? " (fast mode: not correctly rounded)" : "",
           (unsigned long long)tot->misrounded);
    printf("MPFR calls: %llu, unsettled at 256 vs 512 bits: %llu\n", (unsigned long long)tot->mpfr_calls,
           (unsigned long long)tot->unsettled);
    printf("lanes that took the double-double fallback (path %s): %llu\n", om_path_name(g_paths[0]),
           (unsigned long long)(tot->fallbacks - tot->seconds));
    if (tot->seconds)
      printf("lanes flagged by the first pass and settled by a second double pass (path %s): %llu\n",
             om_path_name(g_paths[0]), (unsigned long long)tot->seconds);
    for (int i = 0; i < g_nfb && i < HARD_PRINT; i++)
      printf("  FALLBACK %s 0x%08x (x=%a)\n", fnames[g_func], g_fbin[i], (double)om_f32_from_bits(g_fbin[i]));
    for (int i = 0; i < tot->nbad; i++)
      printf("  MISROUNDED x=0x%08x (%a): got 0x%08x (%a) want 0x%08x (%a)\n", tot->bad_in[i],
             (double)om_f32_from_bits(tot->bad_in[i]), tot->bad_got[i], (double)om_f32_from_bits(tot->bad_got[i]), tot->bad_want[i],
             (double)om_f32_from_bits(tot->bad_want[i]));
    printf("hardest cases (distance of f(x) from the nearest rounding boundary, in ulps of the result):\n");
    if (!g_nh) collect_hard(tot);
    for (int k = 0; k < g_nh && k < HARD_PRINT; k++) { /* selection of the smallest distances */
      int m = k;
      for (int j = k + 1; j < g_nh; j++)
        if (g_hdist[j] < g_hdist[m]) m = j;
      uint32_t ti = g_hin[k], to = g_hout[k];
      double td = g_hdist[k];
      g_hin[k] = g_hin[m], g_hout[k] = g_hout[m], g_hdist[k] = g_hdist[m];
      g_hin[m] = ti, g_hout[m] = to, g_hdist[m] = td;
      printf("  HARD %s 0x%08x 0x%08x %.3e  (x=%a)\n", fnames[g_func], g_hin[k], g_hout[k], g_hdist[k],
             (double)om_f32_from_bits(g_hin[k]));
    }
  }
  printf("wall time this run: %.1f s\n", secs);
}

static void merge(shard_result* tot, const shard_result* s) {
  tot->inputs += s->inputs;
  tot->misrounded += s->misrounded;
  tot->path_mismatch += s->path_mismatch;
  tot->mpfr_calls += s->mpfr_calls;
  tot->unsettled += s->unsettled;
  tot->fallbacks += s->fallbacks;
  tot->seconds += s->seconds;
  for (int i = 0; i < s->nfb && tot->nfb < KEEP; i++) tot->fb_in[tot->nfb++] = s->fb_in[i];
  if (s->max_ulp > tot->max_ulp) {
    tot->max_ulp = s->max_ulp;
    tot->max_ulp_input = s->max_ulp_input;
  }
  for (int i = 0; i < s->nbad && tot->nbad < KEEP; i++) {
    tot->bad_in[tot->nbad] = s->bad_in[i];
    tot->bad_got[tot->nbad] = s->bad_got[i];
    tot->bad_want[tot->nbad++] = s->bad_want[i];
  }
  for (int i = 0; i < s->nhard; i++) add_hard(tot, s->hard_in[i], s->hard_out[i], s->hard_dist[i]);
}

static void usage(void) {
  fprintf(stderr,
          "usage: cr_verify [-j jobs] [-p paths] [-s statedir] [-f] [-r lo hi] [-t stride] [-k hardest] [-a alpha]\n"
          "                 [-g gamma] FUNC\n"
          "  FUNC: exp log tanh sigmoid erf gelu_erf gelu_tanh sin cos softplus mish elu selu celu\n"
          "  -a, -g: Elu/Selu/Celu parameters (default: ONNX's; a state directory name carries them)\n");
  exit(2);
}

int main(int argc, char** argv) {
  int jobs = 2;
  const char* paths = "scalar,512";
  const char* state = "tools/cr_state";
  uint64_t rlo = 0, rhi = 0;
  int ranged = 0;
  int a = 1;
  for (; a < argc && argv[a][0] == '-'; a++) {
    if (!strcmp(argv[a], "-j") && a + 1 < argc) jobs = atoi(argv[++a]);
    else if (!strcmp(argv[a], "-p") && a + 1 < argc) paths = argv[++a];
    else if (!strcmp(argv[a], "-s") && a + 1 < argc) state = argv[++a];
    else if (!strcmp(argv[a], "-f")) g_fast = 1;
    else if (!strcmp(argv[a], "-k") && a + 1 < argc) HARD_PRINT = atoi(argv[++a]);
    else if (!strcmp(argv[a], "-a") && a + 1 < argc) g_prm[0] = strtof(argv[++a], 0), g_has_alpha = g_alpha_given = 1;
    else if (!strcmp(argv[a], "-g") && a + 1 < argc) g_prm[1] = strtof(argv[++a], 0), g_has_alpha = 1;
    else if (!strcmp(argv[a], "-t") && a + 1 < argc) g_stride = strtoull(argv[++a], 0, 0);
    else if (!strcmp(argv[a], "-r") && a + 2 < argc) {
      rlo = strtoull(argv[++a], 0, 0);
      rhi = strtoull(argv[++a], 0, 0);
      ranged = 1;
    } else usage();
  }
  if (a != argc - 1) usage();
  g_func = -1;
  for (int f = 0; f < F_COUNT; f++)
    if (!strcmp(argv[a], fnames[f])) g_func = f;
  if (g_func < 0) usage();
  if (F_IS_ACT(g_func) && !g_alpha_given) g_prm[0] = g_func == F_SELU ? 1.67326319217681884765625f : 1.0f;
  char pbuf[256];
  snprintf(pbuf, sizeof pbuf, "%s", paths);
  for (char* tok = strtok(pbuf, ","); tok; tok = strtok(0, ",")) {
    int p = om_path_from_name(tok);
    if (p < 0) usage();
    if (!om_path_available(p)) {
      fprintf(stderr, "path %s not available on this CPU, skipped\n", tok);
      continue;
    }
    g_paths[g_npaths++] = p;
  }
  if (!g_npaths) usage();
  double t0 = now();

  if (ranged) {
    shard_result s, tot;
    memset(&tot, 0, sizeof tot);
    if (g_stride < 1) g_stride = 1;
    uint64_t count = (rhi - rlo + g_stride - 1) / g_stride, piece = (count + NSHARDS - 1) / NSHARDS;
    for (uint64_t k = 0; k < count; k += piece) { /* in pieces, each keeping its hardest cases */
      memset(&s, 0, sizeof s);
      check_range(rlo + k * g_stride, count - k < piece ? count - k : piece, &s, 0);
      merge(&tot, &s);
      collect_hard(&s);
    }
    print_summary(&tot, 0, now() - t0, rhi - rlo);
    return (!g_fast && tot.misrounded) || tot.path_mismatch || tot.unsettled ? 1 : 0;
  }

  char pathlist[256] = "";
  for (int p = 0; p < g_npaths; p++) {
    strcat(pathlist, "_");
    strcat(pathlist, om_path_name(g_paths[p]));
  }
  char prmtag[64] = "";
  if (g_has_alpha) snprintf(prmtag, sizeof prmtag, "_a%a_g%a", (double)g_prm[0], (double)g_prm[1]);
  snprintf(g_dir, sizeof g_dir, "%s/%s%s_%s%s", state, fnames[g_func], prmtag, g_fast ? "fast" : "exact", pathlist);
  mkdirs(g_dir);

  unsigned todo[NSHARDS], ntodo = 0;
  uint64_t already = 0;
  for (unsigned sh = 0; sh < NSHARDS; sh++) {
    shard_result s;
    if (load_shard(sh, &s)) already += s.inputs;
    else todo[ntodo++] = sh;
  }
  g_progress = mmap(0, 64 * sizeof(uint64_t), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (jobs < 1) jobs = 1;
  if (jobs > 64) jobs = 64;
  pid_t pids[64];
  for (int w = 0; w < jobs; w++) {
    pids[w] = fork();
    if (pids[w] == 0) {
      for (unsigned i = (unsigned)w; i < ntodo; i += (unsigned)jobs) {
        shard_result s;
        memset(&s, 0, sizeof s);
        check_range((uint64_t)todo[i] * SHARD_SIZE, SHARD_SIZE, &s, w);
        save_shard(todo[i], &s);
      }
      _exit(0);
    }
  }
  uint64_t total_todo = (uint64_t)ntodo * SHARD_SIZE;
  int alive = jobs;
  while (alive > 0) {
    int st;
    pid_t r = waitpid(-1, &st, WNOHANG);
    if (r > 0) {
      alive--;
      continue;
    }
    uint64_t d = 0;
    for (int w = 0; w < jobs; w++) d += g_progress[w];
    double el = now() - t0, frac = total_todo ? (double)d / (double)total_todo : 1.0;
    int bar = (int)(frac * 40);
    fprintf(stderr, "\r%s [%.*s%*s] %5.1f%%  %.1f M/s  eta %.0f s   ", fnames[g_func], bar,
            "########################################", 40 - bar, "", 100 * frac, d / el / 1e6,
            frac > 0 ? el / frac - el : 0.0);
    usleep(500000);
  }
  fprintf(stderr, "\n");
  shard_result tot;
  memset(&tot, 0, sizeof tot);
  int done = 0;
  for (unsigned sh = 0; sh < NSHARDS; sh++) {
    shard_result s;
    if (load_shard(sh, &s)) {
      merge(&tot, &s);
      collect_hard(&s);
      done++;
    }
  }
  (void)already;
  print_summary(&tot, done, now() - t0, 0);
  return ((!g_fast && tot.misrounded) || tot.path_mismatch || tot.unsettled || done != (int)NSHARDS) ? 1 : 0;
}
