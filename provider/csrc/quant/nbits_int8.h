/* nbits_int8.h - MatMulNBits at accuracy_level 4 (docs/quantized.md, "accuracy_level 4: the int8 contract"):
 * A quantized to int8 per row and block of block_size k, the exact int32 dot product of each block with the
 * weights' q - z, and one float step per block, acc = fma(float(isum), fl32(sa * sw), acc), from +0 over the
 * blocks in increasing order. Knows nothing of nodes or ORT.
 *
 * Weights (om_nbits_int8_make), per panel of OM_NBI8_NC columns (the last padded with q = 0, sw = 0, z = 0) and
 * k padded with q = 0 to kpad = k_blocks * block_size: bits 8, per group of 4 k, 64 bytes, byte c * 4 + j the q
 * of (k0 + j, column c); bits 4, per group of 8 k, 64 bytes, byte c * 4 + j holding the q of (k0 + j, c) in its
 * low nibble and of (k0 + 4 + j, c) in its high one. Per panel and block, OM_NBI8_NC scales (f32) and zero
 * points (int32).
 */
#ifndef OM_QUANT_NBITS_INT8_H
#define OM_QUANT_NBITS_INT8_H

#include <stddef.h>
#include <stdint.h>

#include "nbits.h"

#define OM_NBI8_NC 16 /* columns per panel */

typedef struct om_nbits_int8 {
  om_nbits_layout l;
  size_t N, panels, kpad;
  uint8_t* q;  /* panels * kpad * OM_NBI8_NC * bits / 8 bytes */
  float* s;    /* [panel][kb][OM_NBI8_NC] */
  int32_t* z;  /* [panel][kb][OM_NBI8_NC] */
} om_nbits_int8;

/* The weights from B, scales and zp (NULL when absent; l->zp_kind NONE or UINT8 only) as whole tensors. NULL
 * when out of memory or for an f32 zero point. */
om_nbits_int8* om_nbits_int8_make(const om_nbits_layout* l, size_t N, const uint8_t* B, const float* scales,
                                  const void* zp);
void om_nbits_int8_free(om_nbits_int8* w);

/* A's rows quantized: qa [M][kpad] int8 (padding 0), sa [M][k_blocks] scales, asum [M][k_blocks] the block sums
 * of qa. */
typedef struct om_nbits_qa {
  size_t M, kpad, k_blocks;
  int8_t* qa;
  float* sa;
  int32_t* asum;
} om_nbits_qa;

/* Rows [r0, r1) of A (row-major, K per row) into q (allocated for M rows by the caller: om_nbits_qa_alloc). */
void om_nbits_quantize_rows(const om_nbits_layout* l, const float* A, size_t r0, size_t r1, om_nbits_qa* q);
int om_nbits_qa_alloc(om_nbits_qa* q, const om_nbits_layout* l, size_t M);
void om_nbits_qa_free(om_nbits_qa* q);

/* Rows [0, M) of C = the contract's product (+ bias) for the columns of panel pn (C row-major, ldc), a NaN made
 * the canonical quiet NaN in exact mode. One per kernel path (ext: on the 512 path the AVX-512 VNNI kernel where
 * the CPU has it; 0 only for tests); the same bits on every one. Queries the CPU: pick it once, not per run. */
typedef void (*om_nbits_int8_fn)(const om_nbits_int8* w, size_t pn, const om_nbits_qa* q, const float* bias,
                                 int exact, float* C, size_t ldc);
om_nbits_int8_fn om_nbits_int8_of(int path, int ext);

#endif
