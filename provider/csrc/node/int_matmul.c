/* int_matmul.c - the wrapping integer matrix product (int_matmul.h). */
#include "int_matmul.h"

#include "core/om_types.h"
#include "parallel.h"

/* The offsets of batch element b's A and B (gemm.h's batch_rank walk, or a_off / b_off). */
static void om_imm_offsets(const om_gemm_args* g, size_t b, int64_t* oa, int64_t* ob) {
  *oa = 0;
  *ob = 0;
  if (g->batch_rank == 0) {
    if (g->a_off) *oa = g->a_off[b];
    if (g->b_off) *ob = g->b_off[b];
    return;
  }
  for (size_t q = g->batch_rank; q-- > 0;) {
    size_t i = b % (size_t)g->batch_dims[q];
    b /= (size_t)g->batch_dims[q];
    *oa += (int64_t)i * g->a_bstride[q];
    *ob += (int64_t)i * g->b_bstride[q];
  }
}

#define OM_IMM_ROW(T, U)                                                              \
  do {                                                                                \
    const T* a = (const T*)g->A + oa + (ptrdiff_t)i * g->rsa;                         \
    const T* bm = (const T*)g->B + ob;                                                \
    T* c = (T*)g->C + b * g->c_batch_stride + i * (size_t)g->ldc;                     \
    for (size_t j = 0; j < g->N; j++) {                                               \
      U acc = 0;                                                                      \
      for (size_t k = 0; k < g->K; k++)                                               \
        acc += (U)a[(ptrdiff_t)k * g->csa] * (U)bm[(ptrdiff_t)k * g->rsb + (ptrdiff_t)j * g->csb]; \
      c[j] = (T)acc;                                                                  \
    }                                                                                 \
  } while (0)

/* Output row t of batch * M. */
static void om_imm_row(void* ctx, size_t t) {
  const om_gemm_args* g = ctx;
  size_t b = t / g->M, i = t % g->M;
  int64_t oa, ob;
  om_imm_offsets(g, b, &oa, &ob);
  if (g->type == OM_T_INT32) OM_IMM_ROW(int32_t, uint32_t);
  else OM_IMM_ROW(int64_t, uint64_t);
}

int om_int_matmul(const om_gemm_args* g, om_parallel_for_fn pf, void* host_ctx) {
  if (g->type != OM_T_INT32 && g->type != OM_T_INT64) return -2;
  if (g->batch == 0 || g->M == 0 || g->N == 0) return 0;
  om_parallel_ieee(pf, host_ctx, g->batch * g->M, om_imm_row, (void*)g);
  return 0;
}
