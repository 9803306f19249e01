/* window_pool.c - MaxPool, AveragePool and LpPool over the windows of docs/pooling-norm.md: which types have kernels,
 * the baseline instantiation of window_pool_body.inc (the scalar path, and every path where no wider one is
 * built) and the choice of a path's instantiation. */
#include "window_pool.h"

#include "isa/isa.h"
#include "window_pool_paths.h"

#define OM_WP_NAME(n) om_wpool_##n##_base
#include "window_pool_body.inc"

int om_wpool_max_supported(int t) {
  return t == OM_T_FLOAT || t == OM_T_DOUBLE || t == OM_T_FLOAT16 || t == OM_T_INT8 || t == OM_T_UINT8;
}

int om_wpool_avg_supported(int t) { return t == OM_T_FLOAT || t == OM_T_DOUBLE || t == OM_T_FLOAT16; }

void om_wpool_max_rows(int path, int t, const om_wpool_geom* g, const void* x, void* y, int64_t* idx,
                       int col_major, size_t r0, size_t r1) {
#if OM_ISA_X86
  if (path == OM_PATH_512) {
    om_wpool_max_rows_512(t, g, x, y, idx, col_major, r0, r1);
    return;
  }
  if (path == OM_PATH_256) {
    om_wpool_max_rows_256(t, g, x, y, idx, col_major, r0, r1);
    return;
  }
  if (path == OM_PATH_128) {
    om_wpool_max_rows_128(t, g, x, y, idx, col_major, r0, r1);
    return;
  }
#endif
  (void)path;
  om_wpool_max_rows_base(t, g, x, y, idx, col_major, r0, r1);
}

void om_wpool_avg_rows(int path, int t, const om_wpool_geom* g, int count_include_pad, const void* x, void* y,
                       size_t r0, size_t r1) {
#if OM_ISA_X86
  if (path == OM_PATH_512) {
    om_wpool_avg_rows_512(t, g, count_include_pad, x, y, r0, r1);
    return;
  }
  if (path == OM_PATH_256) {
    om_wpool_avg_rows_256(t, g, count_include_pad, x, y, r0, r1);
    return;
  }
  if (path == OM_PATH_128) {
    om_wpool_avg_rows_128(t, g, count_include_pad, x, y, r0, r1);
    return;
  }
#endif
  (void)path;
  om_wpool_avg_rows_base(t, g, count_include_pad, x, y, r0, r1);
}

void om_wpool_lp_rows(int path, int t, int p, const om_wpool_geom* g, const void* x, void* y, size_t r0, size_t r1) {
#if OM_ISA_X86
  if (path == OM_PATH_512) {
    om_wpool_lp_rows_512(t, p, g, x, y, r0, r1);
    return;
  }
  if (path == OM_PATH_256) {
    om_wpool_lp_rows_256(t, p, g, x, y, r0, r1);
    return;
  }
  if (path == OM_PATH_128) {
    om_wpool_lp_rows_128(t, p, g, x, y, r0, r1);
    return;
  }
#endif
  (void)path;
  om_wpool_lp_rows_base(t, p, g, x, y, r0, r1);
}
