/* gemm_test_entry.c - om_test_gemm: om_gemm with plain arguments, for tests and tools/bench/gemm_bench.py (cffi).
 *
 * threads > 1 runs the tasks on that many threads (the caller and threads-1 started for the call), which take
 * task indices from a shared counter, so the assignment of tasks to threads varies from run to run. */
#ifdef OM_TEST_ENTRIES /* built with ONEMODEL_TEST_ENTRIES=1 only (onemodel_test.h) */
#define _POSIX_C_SOURCE 200809L
#include "core/om_types.h"
#include "onemodel_test.h"
#include "gemm.h"

#if !defined(_WIN32)
#include <pthread.h>

typedef struct om_tpf {
  void (*fn)(void*, size_t);
  void* ctx;
  size_t total;
  size_t next;
} om_tpf;

static void* om_tpf_worker(void* v) {
  om_tpf* j = v;
  for (;;) {
    size_t i = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED);
    if (i >= j->total) return NULL;
    j->fn(j->ctx, i);
  }
}

static void om_tpf_run(void* host, void (*fn)(void*, size_t), size_t total, void* ctx) {
  int threads = *(const int*)host;
  om_tpf j = {fn, ctx, total, 0};
  pthread_t th[64];
  int started = 0;
  for (int t = 1; t < threads && t < 64; t++)
    if (pthread_create(&th[started], NULL, om_tpf_worker, &j) == 0) started++;
  om_tpf_worker(&j);
  for (int t = 0; t < started; t++) pthread_join(th[t], NULL);
}
#endif

int om_test_gemm(int path, int type, int mode, size_t batch, size_t M, size_t N, size_t K, const void* A,
                 ptrdiff_t rsa, ptrdiff_t csa, const int64_t* a_off, const void* B, ptrdiff_t rsb, ptrdiff_t csb,
                 const int64_t* b_off, int prepack, double alpha, double beta, const void* Cin, ptrdiff_t rsc_in,
                 ptrdiff_t csc_in, void* C, ptrdiff_t ldc, size_t c_batch_stride, int threads) {
  om_gemm_args g = {path, type, mode, batch, M, N, K, A, rsa, csa, a_off, B, rsb, csb, b_off, NULL,
                    alpha, beta, Cin, rsc_in, csc_in, C, ldc, c_batch_stride, 0, NULL, NULL, NULL, NULL, NULL, 0};
  om_gemm_packed* p = NULL;
  if (prepack) {
    size_t es = type == OM_T_DOUBLE ? 8 : type == OM_T_FLOAT16 ? 2 : 4;
    p = om_gemm_pack_b(path, type, K, N, (const char*)B + (b_off ? b_off[0] : 0) * (ptrdiff_t)es, rsb, csb);
    if (!p) return -1;
    g.packed_b = p;
  }
  int rc;
#if !defined(_WIN32)
  if (threads > 1) rc = om_gemm(&g, om_tpf_run, &threads);
  else
#endif
    rc = om_gemm(&g, NULL, NULL);
  om_gemm_packed_free(p);
  return rc;
}
#endif
