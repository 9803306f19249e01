/* cast_bench.c - throughput of the vector Cast kernels of every path (G elements/s, best of 300 calls on 16K
 * elements, in cache). Build and run: tools/c_tool.py cast_bench */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "kernels/kernels.h"
#include "core/om_types.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(void) {
  const size_t n = 1 << 14;
  char* a = aligned_alloc(64, n * 8);
  char* o = aligned_alloc(64, n * 8);
  if (!a || !o) return 1;
  for (size_t i = 0; i < n * 8; i++) a[i] = (char)(rand() & 0x3f); /* small finite values of every type */
  printf("%-8s    %-8s", "from", "to");
  for (int p = 0; p < OM_PATH_COUNT; p++) printf(" %8s", om_path_name(p));
  printf("   (G elements/s; 0 = no vector kernel, cast.c serves the pair)\n");
  for (int f = 0; f < OM_T_SLOTS; f++)
    for (int t = 0; t < OM_T_SLOTS; t++) {
      double res[OM_PATH_COUNT] = {0};
      int any = 0;
      for (int p = 0; p < OM_PATH_COUNT; p++) {
        if (!om_path_available(p)) continue;
        om_un_fn fn = om_path_table(p)->cast[f][t];
        if (!fn) continue;
        any = 1;
        double best = 1e9;
        for (int r = 0; r < 300; r++) {
          double s = now();
          fn(a, o, n, 1);
          double e = now() - s;
          if (e < best) best = e;
        }
        res[p] = (double)n / best / 1e9;
      }
      if (!any) continue;
      printf("%-8s -> %-8s", om_type_name(f), om_type_name(t));
      for (int p = 0; p < OM_PATH_COUNT; p++) printf(" %8.2f", res[p]);
      printf("\n");
    }
  free(a);
  free(o);
  return 0;
}
