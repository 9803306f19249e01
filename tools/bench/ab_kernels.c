/* c_tool: standalone -O2 -ldl */
/* ab_kernels.c - the f32 transcendental kernels of two builds in one process (tools/bench/ab_kernels.sh builds them:
 * A from a git revision, B from the working tree, each a shared object loaded with RTLD_LOCAL).
 *
 *   speed A.so B.so OPS N PAIRS PATH: per-call alternation (A B, then B A, ...) on N floats uniform in [-10, 10]
 *     ((0, 100] for Log), exact mode. Prints each build's median G/s and the median, first and third quartile
 *     of the per-pair ratio time(A)/time(B) (B's speed over A's). On a VM whose speed drifts from second to
 *     second, the ratio of two adjacent calls is steady where separate runs are not: A against itself gives
 *     1.000 with quartiles within 1.5%. The buffers are placed as in a session of `onemodel bench`: the input
 *     16 bytes past a 64-byte boundary (where NumPy's large arrays start), the output on one (ORT's allocator).
 *     With AB_IN_HUGE=1 in the environment the input asks for transparent huge pages, as NumPy's arrays of 4 MiB
 *     and more do (the bench's inputs; ORT's outputs get none; AB_OUT_HUGE=1 does the same for the output). Exp
 *     at 16M elements, both builds: 1.38 G/s, 1.41 with AB_IN_HUGE, 1.45 with both (one run each).
 *   bits A.so B.so OPS PATH: every f32 input (2^32), exact and fast mode, compared bit for bit; prints the
 *     number of differences (and the first three) per operator and mode.
 *
 * OPS: digits, 0 Exp, 1 Log, 2 Tanh, 3 Sigmoid, 4 Erf, 5 Gelu none, 6 Gelu tanh (tools/bench/tr_bench_common.h, shared
 * with tools/bench/tr_bench.c, as are the inputs). PATH: 0 = 512, 1 = 256, 2 = 128, 3 = scalar. A path's kernel stops at
 * a whole vector; the scalar one finishes. Both builds must share kernels/kernels.h's table layout (the one of the
 * working tree is used). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "kernels/kernels.h"
#include "tr_bench_common.h"

typedef const om_kernel_table* (*table_fn)(int);

static int op_index(char c) {
  int f = c - '0';
  if (f < 0 || f >= TB_OPS) {
    fprintf(stderr, "ab_kernels: bad operator digit '%c' (0 to 6)\n", c);
    exit(2);
  }
  return f;
}

/* Transparent huge pages for [p, p + size) (a hint, as NumPy gives its arrays of 4 MiB and more; ORT's arena
 * does not): the page-aligned range around it. */
static void huge_pages(void* p, size_t size) {
  uintptr_t a = (uintptr_t)p & ~(uintptr_t)4095;
  (void)madvise((void*)a, (uintptr_t)p + size - a, MADV_HUGEPAGE);
}

static void speed(table_fn t[2], const char* ops, size_t n, int pairs, int path) {
  char* in_raw = aligned_alloc(64, (n * sizeof(float) + 16 + 63) / 64 * 64); /* see "speed" above */
  float* in = in_raw ? (float*)(in_raw + 16) : NULL;
  float* out = aligned_alloc(64, (n * sizeof(float) + 63) / 64 * 64);
  if (in_raw && getenv("AB_IN_HUGE")) huge_pages(in_raw, n * sizeof(float) + 16);
  if (out && getenv("AB_OUT_HUGE")) huge_pages(out, n * sizeof(float));
  double* ta = malloc((size_t)pairs * sizeof *ta);
  double* tb = malloc((size_t)pairs * sizeof *tb);
  double* ratio = malloc((size_t)pairs * sizeof *ratio);
  if (!in || !out || !ta || !tb || !ratio) exit(3);
  printf("%-9s %9s %9s  %s\n", "op", "A G/s", "B G/s", "B/A speed: median pair ratio [q1 q3]");
  for (const char* s = ops; *s; s++) {
    const int f = op_index(*s);
    srand(1);
    tb_inputs(in, n, f);
    for (int r = 0; r < pairs; r++)
      for (int k = 0; k < 2; k++) {
        const int b = (r & 1) ? 1 - k : k; /* A B, B A, ...: neither build always runs second */
        double t0 = tb_now();
        tb_run(t[b], f, path, in, out, n, OM_FL_EXACT);
        (b ? tb : ta)[r] = tb_now() - t0;
      }
    for (int r = 0; r < pairs; r++) ratio[r] = ta[r] / tb[r];
    qsort(ta, (size_t)pairs, sizeof *ta, tb_cmp_double);
    qsort(tb, (size_t)pairs, sizeof *tb, tb_cmp_double);
    qsort(ratio, (size_t)pairs, sizeof *ratio, tb_cmp_double);
    printf("%-9s %9.3f %9.3f  %.3f [%.3f %.3f]\n", tb_names[f], n / ta[pairs / 2] * 1e-9, n / tb[pairs / 2] * 1e-9,
           ratio[pairs / 2], ratio[pairs / 4], ratio[3 * pairs / 4]);
    fflush(stdout);
  }
}

static int bits(table_fn t[2], const char* ops, int path) {
  const size_t c = (size_t)1 << 20;
  uint32_t* in = malloc(c * sizeof *in);
  uint32_t* o[2] = {malloc(c * sizeof *in), malloc(c * sizeof *in)};
  int bad = 0;
  if (!in || !o[0] || !o[1]) exit(3);
  for (const char* s = ops; *s; s++) {
    const int f = op_index(*s);
    for (int m = 0; m < 2; m++) {
      const unsigned fl = m == 0 ? OM_FL_EXACT : 0;
      unsigned long long diff = 0;
      for (uint64_t base = 0; base < ((uint64_t)1 << 32); base += c) {
        for (size_t i = 0; i < c; i++) in[i] = (uint32_t)(base + i);
        for (int b = 0; b < 2; b++) tb_run(t[b], f, path, in, o[b], c, fl);
        if (memcmp(o[0], o[1], c * sizeof *in))
          for (size_t i = 0; i < c; i++)
            if (o[0][i] != o[1][i] && diff++ < 3)
              printf("  %s %s x = 0x%08x: A 0x%08x, B 0x%08x\n", tb_names[f], m ? "fast" : "exact", in[i], o[0][i], o[1][i]);
      }
      printf("%-9s %-5s path %d: %llu differences\n", tb_names[f], m ? "fast" : "exact", path, diff);
      fflush(stdout);
      bad |= diff != 0;
    }
  }
  return bad;
}

int main(int argc, char** argv) {
  if (argc < 5 || (strcmp(argv[1], "speed") && strcmp(argv[1], "bits"))) {
    fprintf(stderr, "usage: ab_kernels speed A.so B.so OPS [N [PAIRS [PATH]]] | bits A.so B.so OPS [PATH]\n");
    return 2;
  }
  table_fn t[2];
  for (int b = 0; b < 2; b++) {
    void* h = dlopen(argv[2 + b], RTLD_NOW | RTLD_LOCAL);
    if (!h || !(t[b] = (table_fn)dlsym(h, "om_path_table"))) {
      fprintf(stderr, "ab_kernels: %s\n", dlerror());
      return 2;
    }
  }
  if (!strcmp(argv[1], "bits")) return bits(t, argv[4], argc > 5 ? atoi(argv[5]) : 0);
  const size_t n = argc > 5 ? (size_t)strtoull(argv[5], 0, 0) : (size_t)1 << 16;
  const int pairs = argc > 6 ? atoi(argv[6]) : 2000;
  speed(t, argv[4], n, pairs > 0 ? pairs : 1, argc > 7 ? atoi(argv[7]) : 0);
  return 0;
}
