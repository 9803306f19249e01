/* qgemm_internal.h - what qgemm.c and the per-path kernel files (qgemm_<path>.c over qgemm_body.inc, and the
 * AMX tile kernel qgemm_512amx.c) share.
 *
 * Packed operands. A: rows of lda = 4*kq bytes (kq = ceil(K/4) rounded up to the kernel's kq_align), a_u = A shifted to uint8, zero-padded past K,
 * and zero rows up to a multiple of the kernel's mr. B: panels of nr columns; panel p holds, for each group
 * q < kq of four k, nr words of four int8 bytes b_s[4q+t][p*nr+j] (t = 0..3, little-endian), zero past K and
 * past N: exactly the operand layout of vpdpbusd.
 */
#ifndef OM_QGEMM_INTERNAL_H
#define OM_QGEMM_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "qgemm.h"

typedef struct om_qgemm_kern {
  const char* name; /* "512-vnni", "512", "256", "128", "scalar" */
  size_t mr, nr;    /* rows per tile, columns per panel */
  size_t kq_align;  /* kq is rounded up to a multiple of this (zeros past K): the tile kernel's step */
  /* One tile: rows [0, mr) of packed A (a: row 0, lda bytes a row) against one packed panel; for j < nvalid
   *   c[i*ldc + j] = dot_ij + zb[j] * r[i] - za[i] * cs[j]   (modulo 2^32)
   * where dot_ij = sum_k a_u[i][k] * b_s[k][j]; cs and zb: the panel's nr column sums of b_s and ZB values,
   * za and r: the tile's mr ZA values and K*ZA - (row sum of a_u) (qgemm.h). */
  void (*tile)(size_t kq, const uint8_t* a, size_t lda, const int8_t* panel, const uint32_t* cs, const uint32_t* zb,
               const uint32_t* za, const uint32_t* r, uint32_t* c, size_t ldc, size_t mrows, size_t nvalid);
  /* May be NULL: called on the task's thread before its first tile and after its last (AMX: load the tile
   * configuration, release the tiles). */
  void (*task_begin)(void);
  void (*task_end)(void);
  /* A's rows i < M shifted to uint8 (each byte ^ flip) into a (lda bytes a row; the bytes past K left as they
   * are), and each row's sum of the shifted bytes into sums[i] (modulo 2^32). a NULL: the sums only. */
  void (*prep_a)(const uint8_t* A, size_t lds, size_t M, size_t K, uint8_t flip, uint8_t* a, size_t lda,
                 uint32_t* sums);
  /* May be NULL: the kernel used instead for a product of N <= narrow->nr columns (one vector a panel rather
   * than a panel half empty; the same exact integers). */
  const struct om_qgemm_kern* narrow;
} om_qgemm_kern;

/* prep_a of the path files' bodies, under their targets (qgemm_body.inc). */
void om_qgemm_prep_a_512(const uint8_t* A, size_t lds, size_t M, size_t K, uint8_t flip, uint8_t* a, size_t lda,
                         uint32_t* sums);

struct om_qgemm_packed {
  const om_qgemm_kern* kern;
  size_t K, N, kq, panels;
  int8_t* data;  /* panels x kq x nr x 4 bytes */
  uint32_t* cs;  /* panels x nr column sums of b_s, 0 past N */
};

#endif
