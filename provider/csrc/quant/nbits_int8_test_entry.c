/* nbits_int8_test_entry.c - om_test_nbits_int8: MatMulNBits' accuracy_level 4 product with plain arguments, for
 * tests (cffi): the 512 path with and without its VNNI kernel. */
#ifdef OM_TEST_ENTRIES /* built with ONEMODEL_TEST_ENTRIES=1 only (onemodel_test.h) */
#include "nbits_int8.h"
#include "onemodel_test.h"

int om_test_nbits_int8(int path, int ext, size_t bits, size_t block_size, size_t M, size_t K, size_t N,
                       const float* A, const uint8_t* B, const float* scales, const uint8_t* zp, const float* bias,
                       float* C) {
  om_nbits_layout l = om_nbits_layout_of(K, bits, block_size, zp ? OM_NBITS_ZP_UINT8 : OM_NBITS_ZP_NONE);
  om_nbits_int8* w = om_nbits_int8_make(&l, N, B, scales, zp);
  om_nbits_qa q;
  if (!w || om_nbits_qa_alloc(&q, &l, M) != 0) {
    om_nbits_int8_free(w);
    return -1;
  }
  om_nbits_quantize_rows(&l, A, 0, M, &q);
  om_nbits_int8_fn fn = om_nbits_int8_of(path, ext);
  for (size_t pn = 0; pn < w->panels; pn++) fn(w, pn, &q, bias, 1, C, N);
  om_nbits_qa_free(&q);
  om_nbits_int8_free(w);
  return 0;
}
#endif
