/* tr_bench_common.h - what the kernel benchmarks share (tools/bench/tr_bench.c, tools/bench/ab_kernels.c): the f32
 * transcendental kernels by number (0 Exp, 1 Log, 2 Tanh, 3 Sigmoid, 4 Erf, 5 Gelu none, 6 Gelu tanh), their
 * inputs, one call of a path's kernel finished by the scalar one, the clock and a sort order. Header-only,
 * static functions; include after kernels/kernels.h. */
#ifndef OM_TR_BENCH_COMMON_H
#define OM_TR_BENCH_COMMON_H

#include <stdlib.h>
#include <time.h>

#define TB_OPS 7
static const char* const tb_names[TB_OPS] = {"Exp", "Log", "Tanh", "Sigmoid", "Erf", "GeluErf", "GeluTanh"};
static const int tb_kinds[TB_OPS] = {OM_K_EXP,     OM_K_LOG,      OM_K_TANH,     OM_K_SIGMOID,
                                     OM_K_ERF,     OM_K_GELU_ERF, OM_K_GELU_TANH};

/* n inputs for kernel number f from rand() (the caller seeds it): uniform in [-10, 10], Log's in (0, 100]. */
static inline void tb_inputs(float* in, size_t n, int f) {
  for (size_t i = 0; i < n; i++) {
    double u = rand() / (double)RAND_MAX;
    in[i] = (float)(tb_kinds[f] == OM_K_LOG ? 100.0 * u + 1e-30 : 20.0 * u - 10.0);
  }
}

/* Kernel number f of table t's path p on n floats, the tail (less than a whole vector) by the same table's
 * scalar kernel. */
static inline void tb_run(const om_kernel_table* (*t)(int), int f, int p, const void* in, void* out, size_t n,
                          unsigned flags) {
  size_t d = t(p)->un[tb_kinds[f]][OM_T_FLOAT](in, out, n, flags);
  if (d < n) t(OM_PATH_SCALAR)->un[tb_kinds[f]][OM_T_FLOAT]((const float*)in + d, (float*)out + d, n - d, flags);
}

static inline double tb_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline int tb_cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

#endif
