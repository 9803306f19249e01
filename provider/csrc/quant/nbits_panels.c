/* nbits_panels.c - MatMulNBits' weights in the GEMM's panel order, dequantized panel by panel (nbits_panels.h). */
#include "nbits_panels.h"

#include <stdlib.h>
#include <string.h>

#include "isa/target.h"
#include "gemm/gemm_internal.h" /* OM_GEMM_KB */
#include "isa/isa.h"           /* OM_PATH_* */

_Static_assert(OM_NBITS_KB == OM_GEMM_KB, "the few-row product must block K as the GEMM does");

/* Quantized value j of a packed row (bits 4: two per byte, the even one in the low nibble), as nbits.c reads B. */
static inline uint8_t om_nbp_q(const uint8_t* row, size_t bits, size_t j) {
  if (bits == 8) return row[j];
  uint8_t b = row[j >> 1];
  return (j & 1) ? (uint8_t)(b >> 4) : (uint8_t)(b & 0x0F);
}

om_nbits_panels* om_nbits_panels_make(const om_nbits_layout* l, size_t N, size_t nr, const uint8_t* B,
                                      const float* scales, const void* zp) {
  if (nr < 2 || nr % 2 || (l->bits != 4 && l->bits != 8)) return NULL;
  om_nbits_panels* p = calloc(1, sizeof *p);
  if (!p) return NULL;
  p->l = *l;
  p->N = N;
  p->nr = nr;
  p->panels = (N + nr - 1) / nr;
  p->qrow = l->bits == 4 ? nr / 2 : nr;
  size_t K = l->K, kb_n = l->k_blocks;
  p->q = calloc(p->panels * K * p->qrow + 1, 1);
  p->s = calloc(p->panels * kb_n * nr + 1, sizeof(float));
  p->z = calloc(p->panels * kb_n * nr + 1, sizeof(float));
  if (!p->q || !p->s || !p->z) {
    om_nbits_panels_free(p);
    return NULL;
  }
  const size_t half = nr / 2;
  const float z_default = (float)(1u << (l->bits - 1));
  for (size_t n = 0; n < N; n++) { /* padded columns keep q = s = z = 0: weight (0 - 0) * 0 = +0 */
    size_t pn = n / nr, c = n % nr;
    uint8_t* qcol = p->q + pn * K * p->qrow + (l->bits == 4 ? c % half : c);
    const int high = l->bits == 4 && c >= half;
    for (size_t kb = 0; kb < kb_n; kb++) {
      const uint8_t* blob = B + (n * kb_n + kb) * l->blob_size;
      size_t k0 = kb * l->block_size, len = K - k0 < l->block_size ? K - k0 : l->block_size;
      for (size_t j = 0; j < len; j++) {
        uint8_t v = om_nbp_q(blob, l->bits, j);
        uint8_t* dst = qcol + (k0 + j) * p->qrow;
        *dst = (uint8_t)(high ? (*dst | (uint8_t)(v << 4)) : (*dst | v));
      }
      size_t at = (pn * kb_n + kb) * nr + c;
      p->s[at] = scales[n * kb_n + kb];
      if (l->zp_kind == OM_NBITS_ZP_FLOAT) p->z[at] = ((const float*)zp)[n * kb_n + kb];
      else if (l->zp_kind == OM_NBITS_ZP_UINT8) p->z[at] = (float)om_nbp_q((const uint8_t*)zp + n * l->zp_bytes, l->bits, kb);
      else p->z[at] = z_default;
    }
  }
  return p;
}

void om_nbits_panels_free(om_nbits_panels* p) {
  if (!p) return;
  free(p->q);
  free(p->s);
  free(p->z);
  free(p);
}

#define OM_NBP_DECL(P)                                                                                     \
  void om_nbits_panels_fill_##P(const void*, size_t, size_t, size_t, size_t, size_t, float*);             \
  void om_nbits_panels_gemv_##P(const om_nbits_panels*, size_t, const float*, size_t, size_t, const float*, int, \
                                float*, size_t);
OM_NBP_DECL(scalar)
#if OM_ISA_X86
OM_NBP_DECL(512)
OM_NBP_DECL(256)
#endif
#if OM_ISA_X86 || OM_ISA_NEON
OM_NBP_DECL(128)
#endif

om_nbits_fill_fn om_nbits_panels_fill_of(int path) {
  switch (path) {
#if OM_ISA_X86
    case OM_PATH_512: return om_nbits_panels_fill_512;
    case OM_PATH_256: return om_nbits_panels_fill_256;
#endif
#if OM_ISA_X86 || OM_ISA_NEON
    case OM_PATH_128: return om_nbits_panels_fill_128;
#endif
    default: return om_nbits_panels_fill_scalar;
  }
}

om_nbits_gemv_fn om_nbits_panels_gemv_of(int path) {
  switch (path) {
#if OM_ISA_X86
    case OM_PATH_512: return om_nbits_panels_gemv_512;
    case OM_PATH_256: return om_nbits_panels_gemv_256;
#endif
#if OM_ISA_X86 || OM_ISA_NEON
    case OM_PATH_128: return om_nbits_panels_gemv_128;
#endif
    default: return om_nbits_panels_gemv_scalar;
  }
}
