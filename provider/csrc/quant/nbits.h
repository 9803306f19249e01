/* nbits.h - the weights of MatMulNBits (ONNX Runtime's contrib op) dequantized to f32, one column at a time.
 *
 * B holds, per column n of W[K, N], k_blocks blobs of block_size quantized values of `bits` bits (4 or 8), least
 * significant bits first; scales one f32 per (n, block); zero points absent (2^(bits-1)), packed uint8 (bits
 * bits per block, least significant first, each row starting on a byte) or f32. Each weight is
 * w = fl32((q - z) * s), the integer q - z exact in f32 (one rounding); with an f32 zero point
 * w = fl32(fl32(q - z) * s) (docs/quantized.md, "MatMulNBits"). Scalar IEEE operations, the same on every
 * path; the caller runs it under the IEEE default environment. Knows nothing of nodes or ORT.
 */
#ifndef OM_QUANT_NBITS_H
#define OM_QUANT_NBITS_H

#include <stddef.h>
#include <stdint.h>

enum { OM_NBITS_ZP_NONE = 0, OM_NBITS_ZP_UINT8 = 1, OM_NBITS_ZP_FLOAT = 2 };

typedef struct om_nbits_layout {
  size_t K;          /* rows of W (valid k per column) */
  size_t bits;       /* 4 or 8 */
  size_t block_size; /* k per block */
  size_t k_blocks;   /* ceil(K / block_size) */
  size_t blob_size;  /* bytes per block in B: block_size * bits / 8 */
  size_t zp_bytes;   /* bytes per column of packed uint8 zero points: ceil(k_blocks * bits / 8) */
  int zp_kind;       /* OM_NBITS_ZP_* */
} om_nbits_layout;

/* The layout of K, bits, block_size and a zero-point kind (no checks: the node validated them). */
om_nbits_layout om_nbits_layout_of(size_t K, size_t bits, size_t block_size, int zp_kind);

/* Column n of W into w[0 .. K): B, scales and zp (NULL when zp_kind is OM_NBITS_ZP_NONE) as the whole tensors. */
void om_nbits_dequantize_column(const om_nbits_layout* l, size_t n, const uint8_t* B, const float* scales,
                                const void* zp, float* w);

#endif
