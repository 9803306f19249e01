/* c_tool: standalone -O2 -mavx512f -mavx512vl -mavx512dq */
/* loop_bench.c - bare-loop micro-benchmarks behind two claims in docs/performance.md (not the library's code):
 *
 *   tools/c_tool.py loop_bench
 *
 * 1. "warm-up": a 32K-float square-root loop on 512-bit and on 256-bit vectors, and an add loop, each timed
 *    right after the core has spun on scalar code for 0, 20, 100, 500 or 2000 us (median of 200): after a gap
 *    the 512-bit VSQRTPS loop runs slower, the 256-bit one does not.
 * 2. "clip": min(max(x, lo), hi) over 64K floats in L2 in five forms (SSE and AVX MAXPS/MINPS, AVX-512
 *    MAXPS/MINPS with the NaN canonicalisation, AVX-512 compare-and-select as the library's generic body
 *    compiles, AVX MAXPS/MINPS with the canonicalisation), best of 3000: the form hardly matters.
 */
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}
typedef void (*loop_fn)(const float*, float*, size_t);

__attribute__((noinline)) static void sqrt512(const float* a, float* o, size_t n) {
  for (size_t i = 0; i < n; i += 16) _mm512_storeu_ps(o + i, _mm512_sqrt_ps(_mm512_loadu_ps(a + i)));
}
__attribute__((noinline)) static void sqrt256(const float* a, float* o, size_t n) {
  for (size_t i = 0; i < n; i += 8) _mm256_storeu_ps(o + i, _mm256_sqrt_ps(_mm256_loadu_ps(a + i)));
}
__attribute__((noinline)) static void add512(const float* a, float* o, size_t n) {
  for (size_t i = 0; i < n; i += 16) {
    __m512 x = _mm512_loadu_ps(a + i);
    _mm512_storeu_ps(o + i, _mm512_add_ps(x, x));
  }
}

#define CLIP_ARGS const float *a, float *o, size_t n
__attribute__((noinline)) static void clip_sse(CLIP_ARGS) {
  __m128 l = _mm_set1_ps(-1.f), h = _mm_set1_ps(1.f);
  for (size_t i = 0; i < n; i += 4) _mm_storeu_ps(o + i, _mm_min_ps(h, _mm_max_ps(l, _mm_loadu_ps(a + i))));
}
__attribute__((noinline)) static void clip_avx(CLIP_ARGS) {
  __m256 l = _mm256_set1_ps(-1.f), h = _mm256_set1_ps(1.f);
  for (size_t i = 0; i < n; i += 8)
    _mm256_storeu_ps(o + i, _mm256_min_ps(h, _mm256_max_ps(l, _mm256_loadu_ps(a + i))));
}
__attribute__((noinline)) static void clip_avx_canon(CLIP_ARGS) {
  __m256 l = _mm256_set1_ps(-1.f), h = _mm256_set1_ps(1.f), q = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fc00000));
  for (size_t i = 0; i < n; i += 8) {
    __m256 r = _mm256_min_ps(h, _mm256_max_ps(l, _mm256_loadu_ps(a + i)));
    _mm256_storeu_ps(o + i, _mm256_blendv_ps(r, q, _mm256_cmp_ps(r, r, _CMP_UNORD_Q)));
  }
}
__attribute__((noinline)) static void clip_512_maxmin(CLIP_ARGS) {
  __m512 l = _mm512_set1_ps(-1.f), h = _mm512_set1_ps(1.f), q = _mm512_castsi512_ps(_mm512_set1_epi32(0x7fc00000));
  for (size_t i = 0; i < n; i += 16) {
    __m512 r = _mm512_min_ps(h, _mm512_max_ps(l, _mm512_loadu_ps(a + i)));
    _mm512_storeu_ps(o + i, _mm512_mask_mov_ps(r, _mm512_cmp_ps_mask(r, r, _CMP_UNORD_Q), q));
  }
}
__attribute__((noinline)) static void clip_512_select(CLIP_ARGS) {
  __m512 l = _mm512_set1_ps(-1.f), h = _mm512_set1_ps(1.f), q = _mm512_castsi512_ps(_mm512_set1_epi32(0x7fc00000));
  for (size_t i = 0; i < n; i += 16) {
    __m512 x = _mm512_loadu_ps(a + i);
    __m512 r = _mm512_mask_mov_ps(x, _mm512_cmp_ps_mask(x, l, _CMP_LT_OQ), l);
    r = _mm512_mask_mov_ps(r, _mm512_cmp_ps_mask(r, h, _CMP_GT_OQ), h);
    _mm512_storeu_ps(o + i, _mm512_mask_mov_ps(r, _mm512_cmp_ps_mask(r, r, _CMP_UNORD_Q), q));
  }
}

static void spin(double us) {
  double end = now() + us * 1e-6;
  volatile unsigned x = 0;
  while (now() < end) {
    x++;
    _mm_pause();
  }
}
static int cmp_double(const void* p, const void* q) {
  double a = *(const double*)p, b = *(const double*)q;
  return (a > b) - (a < b);
}

int main(void) {
  size_t n = 1 << 16;
  float* a = aligned_alloc(4096, n * sizeof(float));
  float* o = aligned_alloc(4096, n * sizeof(float));
  if (!a || !o) return 1;
  for (size_t i = 0; i < n; i++) a[i] = 1.0f + (float)(i % 200) * 0.1f - 10.0f * (float)(i % 3 == 0);

  loop_fn warm[3] = {sqrt512, sqrt256, add512};
  const char* warm_names[3] = {"sqrt512", "sqrt256", "add512"};
  const double gaps[5] = {0, 20, 100, 500, 2000};
  printf("warm-up: median us for 32K floats after a scalar spin of the given length\n");
  for (int g = 0; g < 5; g++) {
    printf("  gap %6.0f us:", gaps[g]);
    for (int k = 0; k < 3; k++) {
      double ts[200];
      for (int j = 0; j < 200; j++) {
        spin(gaps[g]);
        double t = now();
        warm[k](a, o, n / 2);
        ts[j] = now() - t;
      }
      qsort(ts, 200, sizeof ts[0], cmp_double);
      printf("  %s %.2f", warm_names[k], ts[100] * 1e6);
    }
    printf("\n");
  }

  loop_fn clip[5] = {clip_sse, clip_avx, clip_avx_canon, clip_512_maxmin, clip_512_select};
  const char* clip_names[5] = {"sse", "avx", "avx+canon", "512 max/min+canon", "512 select+canon"};
  double best[5] = {1e9, 1e9, 1e9, 1e9, 1e9};
  for (int j = 0; j < 3000; j++)
    for (int k = 0; k < 5; k++) {
      double t = now();
      clip[k](a, o, n);
      t = now() - t;
      if (t < best[k]) best[k] = t;
    }
  printf("clip: best us for 64K floats in L2\n ");
  for (int k = 0; k < 5; k++) printf("  %s %.2f", clip_names[k], best[k] * 1e6);
  printf("\n");
  free(a);
  free(o);
  return 0;
}
