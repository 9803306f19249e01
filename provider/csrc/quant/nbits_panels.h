/* nbits_panels.h - MatMulNBits' quantized weights kept quantized, in the GEMM's panel order, and dequantized one
 * panel at a time inside the product (om_gemm_args.b_fill), so that a run reads about 0.6-0.8 bytes a weight
 * instead of the 4 of a dequantized f32 copy.
 *
 * The values are those of nbits.h, weight for weight: w = fl32(d * s) with d = fl32(q - z), which is the exact
 * integer q - z for an integer (or absent) zero point, because q and z convert exactly to f32 and their
 * difference is an integer in [-255, 255]; for an f32 zero point it is nbits.h's one rounding. So the product
 * gives the bits of om_gemm over the dequantized W (docs/quantized.md, "MatMulNBits"). Knows nothing of nodes
 * or ORT.
 *
 * Layout, per panel p of nr columns (the GEMM's panel width of the path; the last panel padded with zero
 * weights): q[p][k][nr / 2] bytes for bits = 4, column c of the panel in byte c mod (nr / 2), in the low nibble
 * for c < nr / 2, else the high one; q[p][k][nr] bytes for bits = 8; s[p][kb][nr] and z[p][kb][nr] floats per
 * quantization block kb.
 */
#ifndef OM_QUANT_NBITS_PANELS_H
#define OM_QUANT_NBITS_PANELS_H

#include <stddef.h>
#include <stdint.h>

#include "nbits.h"

typedef struct om_nbits_panels {
  om_nbits_layout l;
  size_t N, nr, panels;
  size_t qrow; /* bytes per (panel, k): nr / 2 for bits 4, nr for bits 8 */
  uint8_t* q;
  float* s;
  float* z;
} om_nbits_panels;

/* The panels of W from B, scales and zp (NULL when l->zp_kind is OM_NBITS_ZP_NONE), as whole tensors, for panels
 * of nr columns (even, >= 2). NULL when out of memory. */
om_nbits_panels* om_nbits_panels_make(const om_nbits_layout* l, size_t N, size_t nr, const uint8_t* B,
                                      const float* scales, const void* zp);
void om_nbits_panels_free(om_nbits_panels* p);

/* An om_gemm_b_fill_fn over an om_nbits_panels (ctx): rows [k0, k0 + kc) of columns [j0, j0 + nvalid) as f32,
 * dst[k * w + j]; j0 a multiple of nr, w <= nr. One per kernel path (nbits_fill_<path>.c), the same values. */
typedef void (*om_nbits_fill_fn)(const void* ctx, size_t k0, size_t kc, size_t j0, size_t nvalid, size_t w,
                                 float* dst);
om_nbits_fill_fn om_nbits_panels_fill_of(int path);

/* The GEMM's K block (gemm/gemm_internal.h's OM_GEMM_KB, checked equal in nbits_panels.c), the most rows of the
 * few-row product, and the most levels of its block-sum tree (K < 2^32: at most 2^24 blocks). */
#define OM_NBITS_KB 256
#define OM_NBITS_GEMV_ROWS 4
#define OM_NBITS_LEVELS 24

/* Rows [0, R) (1 <= R <= OM_NBITS_GEMV_ROWS) of C = A . W (+ bias, NULL for none), columns of panel pn only, with
 * exactly the bits of om_gemm over the dequantized W (its order, docs/gemm.md: per K block one fma chain from +0,
 * the blocks in the binary-counter tree, then + bias, NaN canonical in exact mode). A row-major (lda), C too (ldc).
 * The panels must be those of `path`'s panel width (om_gemm_panel_cols); the IEEE default environment is the
 * caller's. */
typedef void (*om_nbits_gemv_fn)(const om_nbits_panels* p, size_t pn, const float* A, size_t lda, size_t R,
                                 const float* bias, int exact, float* C, size_t ldc);
om_nbits_gemv_fn om_nbits_panels_gemv_of(int path);

#endif
