/* c_tool: standalone -mavx512f */
/* fma_peak.c - the FMA peak of one core, the ceiling for docs/gemm.md (not the library's code):
 *
 *   tools/c_tool.py fma_peak
 *
 * 24 independent chains of 512-bit f32 FMAs (more than latency x ports on current cores), 200 short runs of
 * 200,000 rounds each, the best run reported as GFLOP/s (2 flops per lane per FMA): short runs so that on a
 * shared machine the best one ran without being preempted.
 */
#define _POSIX_C_SOURCE 200809L
#include <immintrin.h>
#include <stdio.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(void) {
  __m512 acc[24];
  const __m512 x = _mm512_set1_ps(1.0000001f), y = _mm512_set1_ps(0.9999999f);
  for (int i = 0; i < 24; i++) acc[i] = _mm512_set1_ps((float)i);
  const long rounds = 200000;
  double best = 0;
  for (int r = 0; r < 200; r++) {
    double t = now();
    for (long k = 0; k < rounds; k++) {
#pragma GCC unroll 24
      for (int i = 0; i < 24; i++) acc[i] = _mm512_fmadd_ps(acc[i], x, y);
    }
    t = now() - t;
    double gf = (double)rounds * 24 * 16 * 2 / t / 1e9;
    if (gf > best) best = gf;
  }
  float s = 0;
  for (int i = 0; i < 24; i++) s += _mm512_reduce_add_ps(acc[i]);
  printf("one core, 512-bit f32 FMA: %.1f GFLOP/s (checksum %g)\n", best, (double)s);
  return 0;
}
