/* softmax_bench.c - time of the Softmax/LogSoftmax kernel (om_softmax) alone, for A/B comparisons of the
 * kernel without ORT's per-call cost (tools/c_tool.py softmax_bench builds it from the working tree).
 *
 *   softmax_bench TOTAL N [PATH [LOG [CHUNK]]]
 *
 * f32 rows of N elements, TOTAL elements, x uniform in [-4, 4); PATH 0-3 (512, 256, 128, one-lane); LOG 1 for
 * LogSoftmax; CHUNK > 0 calls om_softmax over ranges of CHUNK / N rows, as the node's chunks do. Prints the
 * best of 7 timings (each a mean over enough calls for about 0.2 G elements) in ns per element, and an FNV
 * digest of the output's bits (the same on every path and kernel version that keeps the order).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/om_types.h"
#include "onemodel.h"
#include "reduce/reduce.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: softmax_bench TOTAL N [PATH [LOG [CHUNK]]]\n");
    return 2;
  }
  size_t total = strtoull(argv[1], NULL, 0), n = strtoull(argv[2], NULL, 0);
  int path = argc > 3 ? atoi(argv[3]) : 0, lg = argc > 4 ? atoi(argv[4]) : 0;
  size_t chunk = argc > 5 ? strtoull(argv[5], NULL, 0) : 0;
  if (n == 0 || total < n) return 2;
  size_t rows = total / n;
  total = rows * n;
  float* x = malloc(total * sizeof(float));
  float* y = malloc(total * sizeof(float));
  if (!x || !y) return 1;
  uint64_t s = 1;
  for (size_t i = 0; i < total; i++) {
    s = s * 6364136223846793005u + 1442695040888963407u;
    x[i] = (float)(s >> 40) * 0x1p-21f - 4.0f;
  }
  size_t per = chunk ? (chunk / n ? chunk / n : 1) : rows;
  int reps = (int)(2e8 / (double)total);
  if (reps < 3) reps = 3;
  double best = 1e30;
  for (int t = 0; t < 7; t++) {
    double t0 = now();
    for (int r = 0; r < reps; r++)
      for (size_t b = 0; b < rows; b += per)
        if (om_softmax(path, OM_T_FLOAT, OM_MODE_EXACT, lg, rows, n, 1, b, b + per < rows ? b + per : rows, x,
                       y) != 0)
          return 1;
    double d = (now() - t0) / reps;
    if (d < best) best = d;
  }
  uint64_t h = 14695981039346656037u;
  for (size_t i = 0; i < total; i++) {
    uint32_t u;
    memcpy(&u, &y[i], 4);
    h = (h ^ u) * 1099511628211u;
  }
  printf("total %zu n %zu path %d log %d chunk %zu: %.3f ns/element, %.2f us/call, digest %016llx\n", total, n, path,
         lg, chunk, best / (double)total * 1e9, best * 1e6, (unsigned long long)h);
  free(x);
  free(y);
  return 0;
}
