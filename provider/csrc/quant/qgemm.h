/* qgemm.h - the exact integer matrix product of MatMulInteger:
 *
 *   C[i][j] = sum over k of (A[i][k] - za[i]) * (B[k][j] - zb[j])      (int32, modulo 2^32)
 *
 * A and B are uint8 or int8 (each its own), za per row (or one for all), zb per column (or one for all). Every
 * product and sum is an integer computed modulo 2^32 in unsigned arithmetic (no C signed overflow, no int16
 * saturation), so the result is the exact sum whenever it fits in int32 and otherwise that sum wrapped to 32 bits
 * - the same bits in any order, on every kernel path, blocking and thread count (docs/quantized.md).
 *
 * How: A is shifted to uint8 (a_u = a + 128 for int8: the bit pattern a ^ 0x80) and B to int8 (b_s = b - 128
 * for uint8: b ^ 0x80); with ZA = za + (128 for int8 A), ZB = zb - (128 for uint8 B),
 *   sum (a - za)(b - zb) = sum a_u b_s - ZB sum_k a_u - ZA sum_k b_s + K ZA ZB   (modulo 2^32),
 * so the kernels need only u8 x s8 dot products (vpdpbusd's operand types) plus row and column sums.
 * Knows nothing of nodes or ORT.
 */
#ifndef OM_QGEMM_H
#define OM_QGEMM_H

#include <stddef.h>
#include <stdint.h>

#include "core/om_exec.h" /* om_parallel_for_fn */

/* B packed for one kernel (a constant B once at node creation): its column sums with it. */
typedef struct om_qgemm_packed om_qgemm_packed;
/* Pack B[K,N] (element (k,n) at B[k*rs + n]), int8 when b_signed else uint8, for kernel path `path`
 * (ext 0: the path's own kernel; 1: its fastest extension the CPU has, AMX-INT8 or AVX-512 VNNI on the 512
 * path; 2: from the second extension on). NULL on OOM or a bad path. */
om_qgemm_packed* om_qgemm_pack_b(int path, int ext, int b_signed, size_t K, size_t N, const void* B, ptrdiff_t rs);
void om_qgemm_packed_free(om_qgemm_packed* p);

typedef struct om_qgemm_args {
  int path, ext;             /* kernel path; ext as for om_qgemm_pack_b */
  int a_signed, b_signed;    /* int8 (1) or uint8 (0) */
  size_t M, N, K;
  const void* A;             /* A[i][k] at A[i*lda + k] */
  size_t lda;
  const void* B;             /* B[k][j] at B[k*ldb + j]; ignored when packed_b */
  size_t ldb;
  const om_qgemm_packed* packed_b;
  const void* za;            /* A's type; NULL: 0 */
  size_t za_stride;          /* 0: one for all rows, 1: per row */
  const void* zb;            /* B's type; NULL: 0 */
  size_t zb_stride;          /* 0: one for all columns, 1: per column */
  int32_t* C;                /* C[i][j] at C[i*ldc + j] */
  size_t ldc;
  void* scratch;             /* optional (NULL: allocated per call): om_qgemm_scratch(args) bytes or more, */
  size_t scratch_bytes;      /* 4-byte aligned, for A's shifted copy and the sums */
  int a_ready;               /* 1: A is uint8 and already in the kernel's layout (om_qgemm_a_layout), read in
                              * place instead of copied: lda >= the layout's row bytes and a multiple of 4, each
                              * row's bytes from K to that many zero, rows up to the layout's row count readable
                              * (their values unused). Ignored (A copied) for int8 A or a smaller lda. */
  const int32_t* col_add;    /* optional: C[i][j] + col_add[j] (modulo 2^32) instead of C[i][j] */
} om_qgemm_args;

/* 0; -1 on allocation failure; -2 on bad arguments (a path this CPU lacks, packed_b for another kernel or
 * shape). Splits the work into tasks through pf (NULL: here). */
int om_qgemm(const om_qgemm_args* g, om_parallel_for_fn pf, void* host_ctx);

/* Bytes of scratch om_qgemm needs for these arguments (their path, ext, M, N, K; packed_b ignored); 0 for a bad
 * path. A caller that runs many products of the same shape can reuse one block. */
size_t om_qgemm_scratch(const om_qgemm_args* g);

/* The layout of A that a_ready needs for these arguments (their path, ext, M, N, K): the bytes a row
 * (K rounded up to the kernel's step) and, in *rows, M rounded up to the kernel's rows a tile; 0 for a bad
 * path. */
size_t om_qgemm_a_layout(const om_qgemm_args* g, size_t* rows);

/* The kernel om_qgemm uses on a path ("512-amx", "512-vnni", "512", "256", "128", "scalar"), NULL for a bad
 * path. */
const char* om_qgemm_kernel_name(int path, int ext);

#endif
