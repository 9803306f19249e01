/* rexp_check.c - Softmax's row exponential (provider/csrc/reduce/reduce_rexp.h) on every f32 input in
 * [-104, 0]: the same bits on every kernel path of this CPU, and its error in ulps of the exact result.
 *
 * Run: tools/c_tool.py rexp_check [STRIDE]   (compiles with the library's flags; prints the paths compared, the
 * number of inputs, the maximum error in ulps with its input, the count of results that are not the correctly
 * rounded value, against the correctly rounded Exp kernel of the first path, and a digest of the results, to
 * compare machines: FNV-1a over the result bits in input order). STRIDE > 1 takes every STRIDE-th input.
 * For AArch64 (under qemu-user): TOOL_CC=aarch64-linux-gnu-gcc TOOL_RUN="qemu-aarch64" tools/c_tool.py rexp_check 7.
 *
 * The exact value is taken from libm's double exp (within 1 ulp of double, i.e. about 2^-29 of an f32 ulp):
 * this is a measuring tool, not part of the library, which uses no libm transcendental. The ulp of an exact
 * value v is that of the f32 binade of v (2^-149 below 2^-126), so a result that is the correctly rounded one
 * has an error of at most 0.5.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/kernels.h"
#include "reduce/reduce.h"

void om_tr_on_fallback(float x) { (void)x; }
void om_tr_on_second(float x) { (void)x; }

static double ulp_of(double v) {
  v = fabs(v);
  if (v < 0x1p-126) return 0x1p-149;
  int e;
  frexp(v, &e); /* v = m 2^e, m in [0.5, 1) */
  return ldexp(1.0, e - 24);
}

int main(int argc, char** argv) {
  enum { CHUNK = 1 << 20 };
  const uint64_t stride = argc > 1 ? strtoull(argv[1], 0, 0) : 1;
  if (stride < 1) return 2;
  uint64_t digest = 0xcbf29ce484222325ull;
  int paths[OM_PATH_COUNT], np = 0;
  for (int p = 0; p < OM_PATH_COUNT; p++)
    if (om_path_available(p)) paths[np++] = p;
  float* x = malloc(CHUNK * sizeof(float));
  float* y[OM_PATH_COUNT];
  float* cr = malloc(CHUNK * sizeof(float));
  for (int i = 0; i < np; i++) y[i] = malloc(CHUNK * sizeof(float));
  const uint32_t first = 0x80000000u, last = 0xc2d00000u; /* -104.0f */
  uint64_t total = 0, differ = 0, not_cr = 0;
  double max_err = 0.0;
  float max_at = 0.0f;
  for (uint64_t b0 = first; b0 <= last; b0 += (CHUNK - 1) * stride) {
    size_t n = 0;
    if (b0 == first) x[n++] = 0.0f; /* +0 first, then the bit patterns from -0 */
    for (uint64_t b = b0; n < CHUNK && b <= last && b < b0 + (CHUNK - 1) * stride; b += stride, n++) {
      uint32_t u = (uint32_t)b;
      memcpy(&x[n], &u, 4);
    }
    for (int i = 0; i < np; i++) {
      memcpy(y[i], x, n * sizeof(float));
      om_red_path_get(paths[i])->rexp_f32(y[i], n);
    }
    const om_kernel_table* kt = om_path_table(paths[0]);
    size_t d = kt->un[OM_K_EXP][OM_T_FLOAT](x, cr, n, OM_FL_EXACT);
    if (d < n) om_path_table(OM_PATH_SCALAR)->un[OM_K_EXP][OM_T_FLOAT](x + d, cr + d, n - d, OM_FL_EXACT);
    for (size_t j = 0; j < n; j++) {
      for (int i = 1; i < np; i++)
        if (memcmp(&y[i][j], &y[0][j], 4) != 0) {
          if (differ < 10) printf("DIFFER x=%a path %d: %a, path %d: %a\n", x[j], paths[0], y[0][j], paths[i], y[i][j]);
          differ++;
        }
      double v = exp((double)x[j]);
      double err = fabs((double)y[0][j] - v) / ulp_of(v);
      if (err > max_err) {
        max_err = err;
        max_at = x[j];
      }
      if (memcmp(&y[0][j], &cr[j], 4) != 0) not_cr++;
      uint32_t yb;
      memcpy(&yb, &y[0][j], 4);
      for (int k = 0; k < 4; k++) digest = (digest ^ ((yb >> (8 * k)) & 0xffu)) * 0x100000001b3ull;
    }
    total += n;
  }
  printf("paths compared:");
  for (int i = 0; i < np; i++) printf(" %d", paths[i]);
  printf("\ninputs: %llu (every %llu-th f32 in [-104, 0], and +0)\n", (unsigned long long)total,
         (unsigned long long)stride);
  printf("paths differing: %llu\n", (unsigned long long)differ);
  printf("max error: %.4f ulp at x = %a (%.9g)\n", max_err, max_at, max_at);
  printf("not the correctly rounded value: %llu (%.3f%%)\n", (unsigned long long)not_cr,
         100.0 * (double)not_cr / (double)total);
  printf("digest: %016llx\n", (unsigned long long)digest);
  return differ != 0;
}
