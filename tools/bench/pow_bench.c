/* c_tool: -DOM_TR_STATS -DOM_POW_STATS */
/* pow_bench.c - single-thread throughput of f32 Pow (om_pow_run, f32 base and exponent, no broadcast), per
 * kernel path and mode, at 64K and 1M elements. Run: tools/c_tool.py pow_bench. Inputs: x uniform in (0, 10],
 * y uniform in [-4, 4] (seeded). Reports G elements/s (best of 7 runs). With -DOM_POW_BENCH_OLD (tools/bench/pow_bench_old.sh REV) it links
 * against an older pow.c whose om_pow_run has no table arguments (the "before" figures). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "kernels/kernels.h"
#include "core/om_types.h"
#include "kernels/pow.h"

void om_tr_on_fallback(float x) { (void)x; }
void om_tr_on_second(float x) { (void)x; }
void om_pow_on_fallback(float x, float y);
void om_pow_on_fallback(float x, float y) { (void)x, (void)y; }
void om_pow_on_undecided(float x, float y);
void om_pow_on_undecided(float x, float y) { (void)x, (void)y; }
void om_pow_on_general(float x, float y, double hi, double lo);
void om_pow_on_general(float x, float y, double hi, double lo) { (void)x, (void)y, (void)hi, (void)lo; }

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts); /* CPU time: the 2 cores are shared, wall time is noisy */
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#ifdef OM_POW_BENCH_OLD
void om_powold_run(int, int, int, const void*, const void*, void*, size_t, unsigned);
#define RUN(ex, x, y, o, n, p) om_powold_run(OM_T_FLOAT, OM_T_FLOAT, ex, x, y, o, n, 0u)
#else
#define RUN(ex, x, y, o, n, p) \
  om_pow_run(OM_T_FLOAT, OM_T_FLOAT, ex, x, y, o, n, 0u, om_path_table(p), om_path_table(OM_PATH_SCALAR))
#endif

int main(void) {
  const size_t N = 1u << 20;
  float* x = malloc(N * 4);
  float* y = malloc(N * 4);
  float* o = malloc(N * 4);
  srand(1);
  for (size_t i = 0; i < N; i++) {
    x[i] = (float)(10.0 * ((rand() + 1.0) / ((double)RAND_MAX + 1.0)));
    y[i] = (float)(8.0 * (rand() / (double)RAND_MAX) - 4.0);
  }
  printf("%-7s %8s %10s %10s  (G elements/s, one thread)\n", "path", "n", "exact", "fast");
  const size_t sizes[2] = {1u << 16, 1u << 20};
  for (int p = 0; p < OM_PATH_COUNT; p++) {
    if (!om_path_available(p)) continue;
    for (int s = 0; s < 2; s++) {
      size_t n = sizes[s];
      double rate[2];
      for (int ex = 1; ex >= 0; ex--) {
        double best = 1e30;
        int reps = (int)((1u << 22) / n);
        if (reps < 1) reps = 1;
        for (int r = 0; r < 7; r++) {
          double t0 = now();
          for (int k = 0; k < reps; k++) RUN(ex, x, y, o, n, p);
          double dt = (now() - t0) / reps;
          if (dt < best) best = dt;
#ifdef OM_POW_BENCH_OLD
          if (ex) break; /* the old exact code is slow */
#endif
        }
        rate[ex] = (double)n / best * 1e-9;
      }
#ifdef OM_POW_BENCH_OLD
      printf("%-7s %8zu %10.3f %10.3f\n", "old", n, rate[1], rate[0]);
#else
      printf("%-7s %8zu %10.3f %10.3f\n", om_path_name(p), n, rate[1], rate[0]);
#endif
    }
#ifdef OM_POW_BENCH_OLD
    break;
#endif
  }
  return 0;
}
