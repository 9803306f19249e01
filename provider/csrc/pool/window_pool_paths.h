/* window_pool_paths.h - the per-path instantiations of window_pool_body.inc that window_pool.c chooses from
 * (x86-64: window_pool_128.c, _256.c, _512.c; the baseline one is window_pool.c's own). Same arguments as
 * window_pool.h's entries, less the path. */
#ifndef OM_POOL_WINDOW_POOL_PATHS_H
#define OM_POOL_WINDOW_POOL_PATHS_H

#include "isa/target.h"
#include "window_pool.h"

#define OM_WP_DECLARE(SUF)                                                                                     \
  void om_wpool_max_rows_##SUF(int t, const om_wpool_geom* g, const void* x, void* y, int64_t* idx,           \
                               int col_major, size_t r0, size_t r1);                                          \
  void om_wpool_avg_rows_##SUF(int t, const om_wpool_geom* g, int count_include_pad, const void* x, void* y, \
                               size_t r0, size_t r1);                                                         \
  void om_wpool_lp_rows_##SUF(int t, int p, const om_wpool_geom* g, const void* x, void* y, size_t r0, size_t r1);

OM_WP_DECLARE(base)
#if OM_ISA_X86
OM_WP_DECLARE(128)
OM_WP_DECLARE(256)
OM_WP_DECLARE(512)
#endif

#endif
