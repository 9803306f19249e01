/* onemodel_test.h - entries only tests and benchmarks call: the GEMM and reduction kernels with their arguments as
 * plain values. Compiled only when the library is built with ONEMODEL_TEST_ENTRIES=1 (provider/build_ffi.py then
 * defines OM_TEST_ENTRIES and adds these declarations to the cffi module); the shipped library has none. */
#ifndef OM_ONEMODEL_TEST_H
#define OM_ONEMODEL_TEST_H

#include "onemodel.h"

/* Test-only entry to the reduction kernels (reduce/reduce.h), ORT-independent. op: "ReduceSum" ... "ReduceLogSumExp",
 * "Softmax", "LogSoftmax" or "LayerNormalization"; x has `rank` dimensions `dims` and element type `type` on
 * kernel path `path` in mode `mode`. Reduce ops reduce the axes with mask[d] != 0 (the output: the kept
 * dimensions); Softmax, LogSoftmax: the masked axes (one run of adjacent axes) form the row; LayerNormalization:
 * the masked axes (a trailing run) form the row, with scale, bias (NULL: none) of its length, and mean, inv_std
 * (NULL: not wanted) of the stash type. The work runs in chunks of `chunk` output units (0: one call), from
 * last to first when reverse != 0. Returns 0, or -1 when the arguments are not supported. */
int om_test_reduce(const char* op, int path, int type, int mode, size_t rank, const int64_t* dims,
                   const uint8_t* mask, size_t chunk, int reverse, double epsilon, const void* x, const void* scale,
                   const void* bias, void* y, void* mean, void* inv_std);

/* Test-only entry: y[i] = rexp(x[i]) for i < n, Softmax's row exponential (docs/exact-linalg.md) on kernel path
 * `path` (reduce/reduce_rexp.h). Returns 0, or -1 for a path this CPU lacks. */
int om_test_rexp(int path, const float* x, float* y, size_t n);

/* Test entry (tests/kernels/test_gemm_kernel.py, tools/bench/gemm_bench.py): om_gemm (gemm/gemm.h) with its arguments as plain
 * values; prepack: pack B once (B + b_off[0]) first; threads > 1: run the tasks on that many threads. Returns
 * om_gemm's code (0, -1 allocation failure, -2 bad arguments). */
int om_test_gemm(int path, int type, int mode, size_t batch, size_t M, size_t N, size_t K, const void* A,
                 ptrdiff_t rsa, ptrdiff_t csa, const int64_t* a_off, const void* B, ptrdiff_t rsb, ptrdiff_t csb,
                 const int64_t* b_off, int prepack, double alpha, double beta, const void* Cin, ptrdiff_t rsc_in,
                 ptrdiff_t csc_in, void* C, ptrdiff_t ldc, size_t c_batch_stride, int threads);

/* Test entry (tests/kernels/test_qgemm_kernel.py, tools/bench): om_qgemm (quant/qgemm.h) on row-major A [M, K] and
 * B [K, N] (int8 where a_signed / b_signed, else uint8), zero points za (za_stride 0: one, 1: per row; NULL: 0)
 * and zb (per column likewise), into C [M, N]; ext: the path's extension kernel (AVX-512 VNNI) where the CPU has
 * it; prepack: pack B first; reverse: run the tasks from last to first. Returns om_qgemm's code. */
int om_test_qgemm(int path, int ext, int a_signed, int b_signed, size_t M, size_t N, size_t K, const void* A,
                  const void* B, const void* za, size_t za_stride, const void* zb, size_t zb_stride, int prepack,
                  int reverse, int32_t* C);
/* The name of the kernel om_qgemm runs on that path ("512-vnni", "512", ...), NULL for a path this CPU lacks. */
const char* om_test_qgemm_kernel(int path, int ext);

/* Test entry (tests/kernels/test_nbits_int8_kernel.py): MatMulNBits' accuracy_level 4 product (quant/nbits_int8.h)
 * of A [M, K] and B, scales, zp (NULL: absent) as the op's inputs, + bias (NULL: none), into C [M, N], exact mode,
 * on kernel path `path`, ext 0: without the path's extension kernel (AVX-512 VNNI). 0, or -1 out of memory. */
int om_test_nbits_int8(int path, int ext, size_t bits, size_t block_size, size_t M, size_t K, size_t N,
                       const float* A, const uint8_t* B, const float* scales, const uint8_t* zp, const float* bias,
                       float* C);

/* Test entry (tests/ep/test_ep_const_fold.py): how many groups of constant nodes (nodes: 0), or member nodes of
 * them (nodes: 1), the EP has computed at Compile since the library was loaded (ep/ep_compile_fold.c): each once a
 * session, never at a run. */
long long om_test_ep_fold_runs(int nodes);

/* Test entry (tests/kernels/test_f64_act.py, tools/verify/f64_act_check.py): y[i] = the correctly rounded binary64
 * Sigmoid (fn 0) or Tanh (fn 1) of x[i] (math/om_f64_act.h); force_mp = j in 1..6: through the multi-precision
 * fallback, starting at F = 64 * 2^j bits (1: its first precision, 128; 6: its last, 4096), for every input in its
 * domain (the specials and thresholds as the function settles them); -1: through the double-double pass (then the
 * fallback), the fast pass skipped, on the same domain; 0: the function itself. Returns 0, -1 for a bad fn or
 * force_mp.
 * cap_hits: how many inputs the fallback's last precision (4096 bits) left unsettled since the library loaded. */
int om_test_f64_act(int fn, int force_mp, const double* x, double* y, size_t n);
long long om_test_f64_act_cap_hits(void);

#endif
