/* nbits.c - MatMulNBits' weights dequantized to f32 (nbits.h; the contract: docs/quantized.md). */
#include "nbits.h"

om_nbits_layout om_nbits_layout_of(size_t K, size_t bits, size_t block_size, int zp_kind) {
  om_nbits_layout l;
  l.K = K;
  l.bits = bits;
  l.block_size = block_size;
  l.k_blocks = (K + block_size - 1) / block_size;
  l.blob_size = block_size * bits / 8;
  l.zp_bytes = (l.k_blocks * bits + 7) / 8;
  l.zp_kind = zp_kind;
  return l;
}

/* The quantized value j of a blob (bits 4: two per byte, the even one in the low nibble). */
static inline int32_t om_nbits_q(const uint8_t* blob, size_t bits, size_t j) {
  if (bits == 8) return blob[j];
  uint8_t b = blob[j >> 1];
  return (j & 1) ? b >> 4 : b & 0x0F;
}

void om_nbits_dequantize_column(const om_nbits_layout* l, size_t n, const uint8_t* B, const float* scales,
                                const void* zp, float* w) {
  const int32_t zp_default = (int32_t)1 << (l->bits - 1);
  for (size_t kb = 0; kb < l->k_blocks; kb++) {
    const uint8_t* blob = B + (n * l->k_blocks + kb) * l->blob_size;
    const float s = scales[n * l->k_blocks + kb];
    const size_t k0 = kb * l->block_size;
    const size_t len = l->K - k0 < l->block_size ? l->K - k0 : l->block_size;
    float* out = w + k0;
    if (l->zp_kind == OM_NBITS_ZP_FLOAT) {
      const float z = ((const float*)zp)[n * l->k_blocks + kb];
      for (size_t j = 0; j < len; j++) {
        const float d = (float)om_nbits_q(blob, l->bits, j) - z; /* q (< 256) converts exactly; one rounding */
        out[j] = d * s;
      }
      continue;
    }
    int32_t z = zp_default;
    if (l->zp_kind == OM_NBITS_ZP_UINT8) {
      const uint8_t* row = (const uint8_t*)zp + n * l->zp_bytes;
      z = om_nbits_q(row, l->bits, kb);
    }
    for (size_t j = 0; j < len; j++) out[j] = (float)(om_nbits_q(blob, l->bits, j) - z) * s; /* exact int: one rounding */
  }
}
