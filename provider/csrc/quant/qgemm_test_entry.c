/* qgemm_test_entry.c - om_test_qgemm: om_qgemm with plain arguments, for tests (cffi) and benchmarks. */
#ifdef OM_TEST_ENTRIES /* built with ONEMODEL_TEST_ENTRIES=1 only (onemodel_test.h) */
#include "onemodel_test.h"
#include "qgemm.h"

/* A parallel-for that runs the tasks on this thread from the last to the first. */
static void om_qgemm_reverse(void* host, void (*fn)(void*, size_t), size_t total, void* ctx) {
  (void)host;
  for (size_t t = total; t-- > 0;) fn(ctx, t);
}

int om_test_qgemm(int path, int ext, int a_signed, int b_signed, size_t M, size_t N, size_t K, const void* A,
                  const void* B, const void* za, size_t za_stride, const void* zb, size_t zb_stride, int prepack,
                  int reverse, int32_t* C) {
  om_qgemm_args g = {path,      ext, a_signed, b_signed, M, N, K, A, K, B, N, NULL, za, za_stride, zb,
                     zb_stride, C,   N,        NULL,     0,   0, NULL};
  om_qgemm_packed* p = NULL;
  if (prepack && !(p = om_qgemm_pack_b(path, ext, b_signed, K, N, B, (ptrdiff_t)N))) return -1;
  g.packed_b = p;
  int rc = om_qgemm(&g, reverse ? om_qgemm_reverse : NULL, NULL);
  om_qgemm_packed_free(p);
  return rc;
}

const char* om_test_qgemm_kernel(int path, int ext) { return om_qgemm_kernel_name(path, ext); }
#endif
