/* gemm.h - the exact matrix product: C = alpha * (A B) [+ beta * Cin], in the order of docs/exact-linalg.md.
 *
 * Each c_ij is one chain over k in increasing order, acc = fma(a_ik, b_kj, acc) from +0, in f32 (f32 and f16
 * operands) or f64; then r = alpha * acc and, with Cin, r = r + beta * cin, each rounded; a 16-bit output is one
 * rounding of r. Knows nothing of ORT or of ONNX shapes: operands are strided views.
 */
#ifndef OM_GEMM_H
#define OM_GEMM_H

#include <stddef.h>
#include <stdint.h>

#include "../onemodel.h"

typedef struct om_gemm_packed om_gemm_packed; /* B packed once (constant weights) */

/* Pack B[K, N] whose element (k, n) is at B[k * rs + n * cs] (element strides; transB is rs = 1, cs = K) for
 * kernel path `path` and element type `type`. NULL when out of memory. */
om_gemm_packed* om_gemm_pack_b(int path, int type, size_t K, size_t N, const void* B, ptrdiff_t rs, ptrdiff_t cs);
void om_gemm_packed_free(om_gemm_packed* p);

typedef struct om_gemm_args {
  int path, type, mode; /* kernel path index (kernels.h), OM_T_FLOAT / OM_T_DOUBLE / OM_T_FLOAT16, OM_MODE_* */
  size_t batch, M, N, K;
  const void* A;        /* A_b(i, k) = A[a_off[b] + i * rsa + k * csa]; a_off NULL: 0 for every b */
  ptrdiff_t rsa, csa;
  const int64_t* a_off;
  const void* B;        /* the same for B; ignored when packed_b is given */
  ptrdiff_t rsb, csb;
  const int64_t* b_off;
  const om_gemm_packed* packed_b; /* B already packed (the same for every batch element), or NULL */
  double alpha, beta;   /* r = alpha * acc; with Cin: r = r + beta * cin, in the accumulation type */
  const void* Cin;      /* Gemm's C, broadcast to [M, N] by its strides (0: broadcast), or NULL */
  ptrdiff_t rsc_in, csc_in;
  void* C;              /* output: C_b(i, j) = C[b * c_batch_stride + i * ldc + j] */
  ptrdiff_t ldc;
  size_t c_batch_stride;
} om_gemm_args;

/* 0, or -1 when out of memory. Splits the work over parallel_for in fixed chunks of output (never K); every
 * chunk runs under the IEEE default floating-point environment. */
int om_gemm(const om_gemm_args* g, om_parallel_for_fn parallel_for, void* host_ctx);

#endif
