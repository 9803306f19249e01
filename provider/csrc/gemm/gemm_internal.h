/* gemm_internal.h - what the driver (gemm.c) and the per-path bodies (gemm_body.inc) share. */
#ifndef OM_GEMM_INTERNAL_H
#define OM_GEMM_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "math/om_half.h"
#include "core/om_types.h"
#include "gemm.h"

/* The epilogue of one output element, after the chain: r = alpha*acc, r = r + beta*cin, NaN -> canonical NaN
 * (exact mode), store in `type`. One copy per batch element (C and Cin already offset). */
typedef struct om_gemm_ep {
  int type;
  int exact;
  int scale;     /* alpha != 1 (1*x is x bit for bit, NaN aside, so the multiply is skipped) */
  int beta_one;  /* beta == 1: beta*c is c */
  int direct;    /* output in the accumulation type and no Cin: the kernel stores whole vectors itself */
  int cin_vec;   /* output and Cin in the accumulation type, Cin's columns unit stride: the kernel adds whole
                    vectors of Cin itself (the same operations as the element epilogue) */
  float alpha_f, beta_f;
  double alpha_d, beta_d;
  const void* cin;
  ptrdiff_t rsc, csc;
  void* c;
  ptrdiff_t ldc;
} om_gemm_ep;

struct om_gemm_kern;

/* Row-major B (unit column stride) with at most this many elements per row is read in place, whole panels of it;
 * otherwise each panel is packed. */
#define OM_GEMM_B_DIRECT_LD 1024
/* The microkernels of the vector paths prefetch the B panel row this far ahead of the one they load. Against
 * none, kernel-only A/B in one process on the 512 path (four runs, 2026-12-01): +4 to +12% at 128x384x1536,
 * -2 to +7% at 128x1536x384, no change at 128x384x384, -1 to -2% at 12 x (64x64x64). */
#define OM_GEMM_PF_ROWS 16
/* The K block of the order (docs/gemm.md): k = b*KB .. min((b+1)*KB, K) - 1 is block b, one fma chain from +0;
 * the block sums are added in the binary-counter tree. The same on every path: it fixes the result. */
#define OM_GEMM_KB 256

/* One call of om_gemm, cut into tasks: (batch element, row block, column block), `group` of them per call of
 * the host's parallel-for (many tiny matrices: a range of batch elements per call). */
typedef struct om_gemm_plan {
  const om_gemm_args* g;
  const struct om_gemm_kern* kern;
  size_t esize;      /* bytes per element of `type` */
  size_t tasks, group; /* tasks in all; consecutive ones run by one parallel-for call */
  size_t mc, nc;     /* rows and columns per task (multiples of the tile's MR and NR) */
  size_t nbm, nbn;   /* row and column blocks per batch element */
  size_t kc, nk;     /* K block length (OM_GEMM_KB, or K when smaller) and count (nk >= 1; kc = 0 when K = 0) */
  size_t levels;     /* block-sum levels kept per element: the bit length of nk - 1 */
  size_t scratch;    /* bytes of scratch one task needs */
  om_gemm_ep ep;     /* batch element 0; tasks shift c */
  int failed;        /* set (atomically) when a task could not get scratch memory */
} om_gemm_plan;

/* Per path and accumulation type: the tile and the routines (gemm_body.inc). */
typedef struct om_gemm_kern {
  size_t mr, nr;     /* tile rows, tile columns (panel width of packed B) */
  size_t vl;         /* lanes of one vector: the panel width of a partial last panel is a multiple */
  /* Pack columns [j0, j0+nvalid) and rows [k0, k0+kc) of B (element type `type`) into a panel of width w. */
  void (*pack_b_panel)(int type, const void* b, ptrdiff_t rsb, ptrdiff_t csb, size_t k0, size_t kc, size_t j0,
                       size_t nvalid, size_t w, void* dst);
  void (*task)(const om_gemm_plan* pl, size_t t, void* scratch);
} om_gemm_kern;

/* The kernels of each path: [0] accumulates in f32 (f32, f16), [1] in f64. NULL where a path is not built. */
const om_gemm_kern* om_gemm_kern_get(int path, int acc64);

/* The packed B: panels of width nr (the last one: its valid columns rounded up to vl), panel p at p*nr*K. */
struct om_gemm_packed {
  int path, type;
  size_t K, N, nr, vl;
  void* data; /* 64-byte aligned, inside the same allocation */
};

/* Batch element bi's offsets (in elements) into A and B: O(batch rank), no table. */
static inline void om_gemm_batch_offsets(const om_gemm_args* g, size_t bi, int64_t* oa, int64_t* ob) {
  if (g->batch_rank == 0) {
    *oa = g->a_off ? g->a_off[bi] : 0;
    *ob = g->b_off ? g->b_off[bi] : 0;
    return;
  }
  int64_t a = 0, b = 0;
  for (size_t q = g->batch_rank; q-- > 0;) { /* from the innermost batch dimension out */
    size_t e = (size_t)g->batch_dims[q];
    int64_t i = (int64_t)(bi % e);
    bi /= e;
    a += i * g->a_bstride[q];
    b += i * g->b_bstride[q];
  }
  *oa = a;
  *ob = b;
}

/* Width of panel p of an N-column B with panels of nr columns, vectors of vl lanes. */
static inline size_t om_gemm_panel_w(size_t N, size_t nr, size_t vl, size_t p) {
  size_t nv = N - p * nr;
  if (nv >= nr) return nr;
  return (nv + vl - 1) / vl * vl;
}

#endif
