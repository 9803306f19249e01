/* c_tool: -DOM_TR_STATS */
/* tr_bench.c - single-thread throughput of the f32 transcendental kernels, per path and mode, on 1M floats.
 * Run: tools/c_tool.py tr_bench [op# [N [median]]]  (compiles with the library's flags; N floats, default 1M, best of
 * max(5, 2^26/N) calls, or with "median" their median: on a VM whose speed varies from call to call the best
 * is an outlier, the median what a run of calls gets). Inputs: uniform in [-lim, lim] per function
 * (lim = 10; log: (0, 100]). Reports elements per second. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/kernels.h"
#include "tr_bench_common.h"

static unsigned long long om_tr_fallbacks, om_tr_seconds;
void om_tr_on_fallback(float x) {
  (void)x;
  om_tr_fallbacks++;
}
void om_tr_on_second(float x) {
  (void)x;
  om_tr_seconds++;
}

int main(int argc, char** argv) {
  const size_t N = argc > 2 ? (size_t)strtoull(argv[2], 0, 0) : (size_t)1 << 20;
  const int reps = N < ((size_t)1 << 26) / 5 ? (int)(((size_t)1 << 26) / N) : 5;
  float* in = malloc(N * 4);
  float* out = malloc(N * 4);
  int only = argc > 1 ? atoi(argv[1]) : -1;
  const int median = argc > 3 && strcmp(argv[3], "median") == 0;
  double* ts = malloc((size_t)reps * sizeof *ts);
  srand(1);
  printf("%-9s %-7s %12s %12s  (G elements/s, one thread, %zu floats, %s of %d calls)\n", "op", "path", "exact", "fast", N,
         median ? "median" : "best", reps);
  for (int f = 0; f < TB_OPS; f++) {
    if (only >= 0 && only != f) continue;
    tb_inputs(in, N, f);
    for (int p = 0; p < OM_PATH_COUNT; p++) {
      if (!om_path_available(p)) continue;
      double rate[2];
      for (int m = 0; m < 2; m++) {
        unsigned fl = m == 0 ? OM_FL_EXACT : 0;
        for (int rep = 0; rep < reps; rep++) {
          double t0 = tb_now();
          tb_run(om_path_table, f, p, in, out, N, fl);
          ts[rep] = tb_now() - t0;
        }
        qsort(ts, (size_t)reps, sizeof *ts, tb_cmp_double);
        rate[m] = N / ts[median ? reps / 2 : 0] / 1e9;
      }
      printf("%-9s %-7s %12.3f %12.3f   fallback lanes per call: %.1f (double-double %.1f)\n", tb_names[f],
             om_path_name(p), rate[0], rate[1], (double)om_tr_fallbacks / reps,
             (double)(om_tr_fallbacks - om_tr_seconds) / reps); /* exact-mode calls only: fast mode has none */
      om_tr_fallbacks = om_tr_seconds = 0;
    }
  }
  return 0;
}
