/* red_logf_check.c - om_red_logf (provider/csrc/reduce/reduce_math.c, LogSoftmax's log of one row sum) against
 * the exact Log kernel of every path of this CPU, on every f32 bit pattern (or every STRIDE-th).
 *
 * Run: tools/c_tool.py red_logf_check [STRIDE]   (compiles with the library's flags). Prints the paths compared, the
 * inputs, the results that differ in any bit from a path's kernel (NaNs included: both give the canonical quiet
 * NaN), and the time per call of om_red_logf and of a 16-lane padded kernel call for one value (what LogSoftmax's
 * one-row form called before), on the inputs [1, 2^24). Exit status 1 when a result differs.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kernels/kernels.h"
#include "reduce/reduce_util.h"

void om_tr_on_fallback(float x) { (void)x; }
void om_tr_on_second(float x) { (void)x; }

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The kernel of path p on n values, its tail on the one-lane path (as om_red_un_f32 does). */
static void kernel_log(int p, const float* x, float* y, size_t n) {
  size_t d = om_path_table(p)->un[OM_K_LOG][OM_T_FLOAT](x, y, n, OM_FL_EXACT);
  if (d < n) om_path_table(OM_PATH_SCALAR)->un[OM_K_LOG][OM_T_FLOAT](x + d, y + d, n - d, OM_FL_EXACT);
}

int main(int argc, char** argv) {
  enum { CHUNK = 1 << 20 };
  const uint64_t stride = argc > 1 ? strtoull(argv[1], 0, 0) : 1;
  if (stride < 1) return 2;
  int paths[OM_PATH_COUNT], np = 0;
  for (int p = 0; p < OM_PATH_COUNT; p++)
    if (om_path_available(p)) paths[np++] = p;
  float *x = malloc(CHUNK * sizeof(float)), *s = malloc(CHUNK * sizeof(float)), *k = malloc(CHUNK * sizeof(float));
  uint64_t total = 0, differ = 0;
  for (uint64_t b0 = 0; b0 <= 0xffffffffull; b0 += (uint64_t)CHUNK * stride) {
    size_t n = 0;
    for (uint64_t b = b0; n < CHUNK && b <= 0xffffffffull; b += stride, n++) {
      uint32_t u = (uint32_t)b;
      memcpy(&x[n], &u, 4);
    }
    for (size_t j = 0; j < n; j++) s[j] = om_red_logf(x[j]);
    for (int i = 0; i < np; i++) {
      kernel_log(paths[i], x, k, n);
      for (size_t j = 0; j < n; j++)
        if (memcmp(&s[j], &k[j], 4) != 0) {
          if (differ < 10) printf("DIFFER x=%a: om_red_logf %a, path %d %a\n", x[j], s[j], paths[i], k[j]);
          differ++;
        }
    }
    total += n;
  }
  printf("paths compared:");
  for (int i = 0; i < np; i++) printf(" %d", paths[i]);
  printf("\ninputs: %llu (every %llu-th f32 bit pattern)\ndiffering: %llu\n", (unsigned long long)total,
         (unsigned long long)stride, (unsigned long long)differ);
  /* Time per call on sums a row could have: a dependent chain (the next input depends on the last result), as
   * in LogSoftmax where the output pass waits for the log. */
  enum { CALLS = 2000000 };
  float acc = 1.0f, t[16], u[16];
  double t0 = now();
  for (int c = 0; c < CALLS; c++) acc = om_red_logf(1000.0f + (float)(c & 1023) + acc * 0x1p-30f);
  double t1 = now();
  for (int c = 0; c < CALLS; c++) {
    for (int l = 0; l < 16; l++) t[l] = 1.0f;
    t[0] = 1000.0f + (float)(c & 1023) + acc * 0x1p-30f;
    kernel_log(paths[0], t, u, 16);
    acc = u[0];
  }
  double t2 = now();
  printf("latency per call: om_red_logf %.1f ns, path %d kernel on 16 lanes %.1f ns (%g)\n", (t1 - t0) / CALLS * 1e9,
         paths[0], (t2 - t1) / CALLS * 1e9, (double)acc);
  return differ != 0;
}
