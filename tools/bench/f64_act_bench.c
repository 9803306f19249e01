/* c_tool: -DOM_F64_ACT_STATS -lm */
/* f64_act_bench.c - time per call of the correctly rounded binary64 Sigmoid and Tanh (math/om_f64_act.h), one
 * thread, and how often each leaves its fast pass and reaches the multi-precision fallback.
 *
 *   tools/c_tool.py f64_act_bench [RUNS [COUNT]]
 *
 * Two input sets per function, 65,536 seeded doubles each: "normal" (standard normal times 2, as the double LSTM's
 * gates see them in docs/recurrent.md) and "uniform" (Sigmoid U(-40, 40), Tanh U(-20, 20)). Each run calls the
 * function once on every input of the set, 8 times over; the ns per call printed is the median of RUNS runs (default
 * 7). Then COUNT inputs (default 2^24) per function and set, drawn afresh, are counted for fallbacks
 * (OM_F64_ACT_STATS: the library's om_f64_act_on_stage hook, defined here): stage 1 past the fast pass (to the
 * double-double pass; for Sigmoid x < -600 straight to the Ziv fallback), stage 2 the Ziv fallback.
 * libm only makes the inputs. */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "math/om_f64_act.h"

static long long stages[2][3];
void om_f64_act_on_stage(int fn, int stage) { stages[fn][stage]++; }

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static double uniform01(void) { /* xorshift64*, 53 bits in (0, 1) */
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return ((double)((rng_state * 0x2545F4914F6CDD1Dull) >> 11) + 0.5) * 0x1p-53;
}
static double draw(int fn, int set) {
  if (set == 0) return 2.0 * sqrt(-2.0 * log(uniform01())) * cos(6.283185307179586 * uniform01());
  return fn == 0 ? 80.0 * uniform01() - 40.0 : 40.0 * uniform01() - 20.0;
}
static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
static int cmp(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

#define N 65536
#define REPS 8

int main(int argc, char** argv) {
  int runs = argc > 1 ? atoi(argv[1]) : 7;
  long long count = argc > 2 ? atoll(argv[2]) : (1ll << 24);
  if (runs < 1 || runs > 101 || count < 0) return 2;
  static double x[N];
  static const char* fname[2] = {"sigmoid", "tanh"};
  static const char* sname[2] = {"normal", "uniform"};
  volatile double sink = 0.0;
  for (int fn = 0; fn < 2; fn++)
    for (int set = 0; set < 2; set++) {
      for (int i = 0; i < N; i++) x[i] = draw(fn, set);
      double t[101];
      for (int r = 0; r < runs; r++) {
        double s = 0.0, t0 = now();
        for (int k = 0; k < REPS; k++)
          for (int i = 0; i < N; i++) s += fn == 0 ? om_f64_sigmoid(x[i]) : om_f64_tanh(x[i]);
        t[r] = (now() - t0) * 1e9 / ((double)N * REPS);
        sink += s;
      }
      qsort(t, (size_t)runs, sizeof t[0], cmp);
      long long before1 = stages[fn][1], before = stages[fn][2];
      for (long long i = 0; i < count; i++) {
        double v = draw(fn, set);
        sink += fn == 0 ? om_f64_sigmoid(v) : om_f64_tanh(v);
      }
      printf("%s %s: %.1f ns/call (median of %d runs; min %.1f, max %.1f); of %lld: past the fast pass %lld, "
             "Ziv %lld\n",
             fname[fn], sname[set], t[runs / 2], runs, t[0], t[runs - 1], count, stages[fn][1] - before1,
             stages[fn][2] - before);
    }
  return sink == 12345.0;
}
