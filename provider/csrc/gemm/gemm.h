/* gemm.h - the exact matrix product (MatMul, Gemm): C = alpha * (A . B) [+ beta * Cin].
 *
 * Each output element is one chain over k in increasing order, acc = fma(a_ik, b_kj, acc) from +0, in the
 * accumulation type (f32 for f32 and f16, f64 for f64), then r = alpha * acc and, with Cin, r = r + beta * cin
 * as separately rounded steps; a f16 output rounds r once. The same bits on every kernel path, thread count and
 * blocking (docs/exact-linalg.md states the order; docs/gemm.md the blocking that keeps it).
 */
#ifndef OM_GEMM_H
#define OM_GEMM_H

#include <stddef.h>
#include <stdint.h>

#include "core/om_exec.h" /* om_parallel_for_fn, OM_MODE_EXACT/FAST */

typedef struct om_gemm_packed om_gemm_packed; /* B packed once, e.g. constant weights at kernel creation */
/* Pack B[K,N] where element (k,n) is at B[k*rs + n*cs] (element strides; transB is rs=1, cs=K), for kernel
 * `path` and element type `type` (OM_T_FLOAT, OM_T_DOUBLE, OM_T_FLOAT16). NULL on OOM or a bad path/type. */
om_gemm_packed* om_gemm_pack_b(int path, int type, size_t K, size_t N, const void* B, ptrdiff_t rs, ptrdiff_t cs);
void om_gemm_packed_free(om_gemm_packed* p);
/* The panel width (columns) of `path`'s kernel for `type`, 0 for a bad path or type: om_gemm_args.b_fill's j0 is
 * always a multiple of it. */
size_t om_gemm_panel_cols(int path, int type);

/* B made by the caller, one panel at a time (f32 only): write rows [k0, k0 + kc) of B's columns [j0, j0 + nvalid)
 * into dst[k * w + j] (k and j counted from k0 and j0), and a finite value (0) into columns [nvalid, w). Called
 * by the tasks, concurrently, under the IEEE default environment; the values must depend on (k, j) alone. */
typedef void (*om_gemm_b_fill_fn)(const void* ctx, size_t k0, size_t kc, size_t j0, size_t nvalid, size_t w,
                                  float* dst);

typedef struct om_gemm_args {
  int path, type, mode; /* kernel path index (kernels.h), OM_T_FLOAT/OM_T_DOUBLE/OM_T_FLOAT16, OM_MODE_EXACT/FAST */
  size_t batch, M, N, K;
  const void* A;
  ptrdiff_t rsa, csa;
  const int64_t* a_off; /* A_b(i,k) = A[a_off[b] + i*rsa + k*csa]; a_off NULL: 0 (or batch_rank below) */
  const void* B;
  ptrdiff_t rsb, csb;
  const int64_t* b_off;           /* same for B, ignored when packed_b != NULL */
  const om_gemm_packed* packed_b; /* B already packed (same for every batch element), or NULL */
  double alpha, beta;             /* r = alpha*acc; with Cin: r = r + beta*cin (rounded in the accumulation type) */
  const void* Cin;
  ptrdiff_t rsc_in, csc_in; /* Gemm's C broadcast to [M,N] by strides (0 = broadcast), or NULL */
  void* C;
  ptrdiff_t ldc;
  size_t c_batch_stride; /* output, type `type`, C_b(i,j) = C[b*c_batch_stride + i*ldc + j]; overlaps no input */
  /* A broadcast batch in O(rank), instead of a_off / b_off: with batch_rank > 0, batch element b has the row-major
   * index (i_0 .. i_{r-1}) over batch_dims[0 .. batch_rank) (whose product is batch), and A_b starts at
   * A + sum_q i_q * a_bstride[q], B_b at B + sum_q i_q * b_bstride[q] (element strides, 0 where broadcast). */
  size_t batch_rank;
  const int64_t* batch_dims;
  const int64_t* a_bstride;
  const int64_t* b_bstride;
  om_gemm_b_fill_fn b_fill; /* or B made per panel by the caller (B and packed_b NULL, batch 1, f32), or NULL */
  const void* b_fill_ctx;
  int b_fill_rows; /* with b_fill, nonzero: every row in one block, each panel filled once per K block (the cut only) */
} om_gemm_args;

/* 0; -1 on allocation failure; -2 on bad arguments (unknown type or path, a path this CPU lacks, packed_b
 * packed for another path, type, K or N). Runs every chunk under the IEEE default FP environment (MXCSR
 * round-to-nearest, no FTZ/DAZ; restored after). */
int om_gemm(const om_gemm_args* g, om_parallel_for_fn pf, void* host_ctx);

/* The arguments of one product C[M, N] = A[M, K] . B of element type `type`: A row-major (row stride K), C rows
 * of N, batch 1, alpha = beta = 1; B (or packed_b, b_fill) and Cin for the caller to set. */
static inline om_gemm_args om_gemm_args_rows(int path, int type, int mode, size_t M, size_t N, size_t K,
                                             const void* A, void* C) {
  om_gemm_args g = {.path = path, .type = type, .mode = mode, .batch = 1, .M = M, .N = N, .K = K, .A = A,
                    .rsa = (ptrdiff_t)K, .csa = 1, .alpha = 1.0, .beta = 1.0, .C = C, .ldc = (ptrdiff_t)N,
                    .c_batch_stride = M * N};
  return g;
}

/* Cin = bias[N], the same for every row of C (r = acc + bias[j], one rounding). */
static inline void om_gemm_row_bias(om_gemm_args* g, const void* bias) {
  g->Cin = bias;
  g->rsc_in = 0;
  g->csc_in = 1;
}

#endif
