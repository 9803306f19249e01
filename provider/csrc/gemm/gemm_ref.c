/* gemm_ref.c - the one-lane exact matrix product: the contract of gemm.h, element by element. A placeholder
 * for the packed, register-blocked kernels, and their reference in tests. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../cast.h"
#include "../node_family.h"
#include "gemm.h"

struct om_gemm_packed {
  int type;
  size_t K, N;
  void* b; /* [K, N] row-major in `type` */
};

static size_t om_gemm_esize(int type) { return type == OM_T_DOUBLE ? 8 : type == OM_T_FLOAT ? 4 : 2; }

om_gemm_packed* om_gemm_pack_b(int path, int type, size_t K, size_t N, const void* B, ptrdiff_t rs, ptrdiff_t cs) {
  (void)path;
  om_gemm_packed* p = calloc(1, sizeof *p);
  size_t es = om_gemm_esize(type);
  if (!p) return NULL;
  p->type = type;
  p->K = K;
  p->N = N;
  p->b = malloc(K * N * es + 1);
  if (!p->b) {
    free(p);
    return NULL;
  }
  for (size_t k = 0; k < K; k++)
    for (size_t n = 0; n < N; n++)
      memcpy((char*)p->b + (k * N + n) * es, (const char*)B + ((ptrdiff_t)k * rs + (ptrdiff_t)n * cs) * (ptrdiff_t)es,
             es);
  return p;
}

void om_gemm_packed_free(om_gemm_packed* p) {
  if (!p) return;
  free(p->b);
  free(p);
}

static double om_gemm_load(int type, const void* base, ptrdiff_t index) {
  if (type == OM_T_DOUBLE) return ((const double*)base)[index];
  if (type == OM_T_FLOAT) return ((const float*)base)[index];
  return om_half_to_double(((const uint16_t*)base)[index]);
}

typedef struct om_gemm_job {
  const om_gemm_args* g;
} om_gemm_job;

/* One chunk: one row of one batch element. */
static void om_gemm_row(void* vjob, size_t index) {
  const om_gemm_args* g = ((const om_gemm_job*)vjob)->g;
  size_t b = index / g->M, i = index % g->M;
  int t = g->type;
  const char* A = (const char*)g->A + (g->a_off ? g->a_off[b] : 0) * (ptrdiff_t)om_gemm_esize(t);
  const void* B = g->packed_b ? g->packed_b->b : (const char*)g->B + (g->b_off ? g->b_off[b] : 0) * (ptrdiff_t)om_gemm_esize(t);
  ptrdiff_t rsb = g->packed_b ? (ptrdiff_t)g->N : g->rsb, csb = g->packed_b ? 1 : g->csb;
  for (size_t j = 0; j < g->N; j++) {
    size_t o = b * g->c_batch_stride + i * (size_t)g->ldc + j;
    if (t == OM_T_DOUBLE) {
      double acc = 0.0;
      for (size_t k = 0; k < g->K; k++)
        acc = fma(om_gemm_load(t, A, (ptrdiff_t)i * g->rsa + (ptrdiff_t)k * g->csa),
                  om_gemm_load(t, B, (ptrdiff_t)k * rsb + (ptrdiff_t)j * csb), acc);
      double r = g->alpha * acc;
      if (g->Cin) r = r + g->beta * om_gemm_load(t, g->Cin, (ptrdiff_t)i * g->rsc_in + (ptrdiff_t)j * g->csc_in);
      ((double*)g->C)[o] = r;
    } else {
      float acc = 0.0f;
      for (size_t k = 0; k < g->K; k++)
        acc = fmaf((float)om_gemm_load(t, A, (ptrdiff_t)i * g->rsa + (ptrdiff_t)k * g->csa),
                   (float)om_gemm_load(t, B, (ptrdiff_t)k * rsb + (ptrdiff_t)j * csb), acc);
      float r = (float)g->alpha * acc;
      if (g->Cin)
        r = r + (float)g->beta * (float)om_gemm_load(t, g->Cin, (ptrdiff_t)i * g->rsc_in + (ptrdiff_t)j * g->csc_in);
      if (t == OM_T_FLOAT) ((float*)g->C)[o] = r;
      else ((uint16_t*)g->C)[o] = om_double_to_small((double)r, 10, 5);
    }
  }
}

int om_gemm(const om_gemm_args* g, om_parallel_for_fn parallel_for, void* host_ctx) {
  if (g->batch == 0 || g->M == 0 || g->N == 0) return 0;
  om_gemm_job job = {g};
  om_parallel_ieee(parallel_for, host_ctx, g->batch * g->M, om_gemm_row, &job);
  return 0;
}
