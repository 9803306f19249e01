/* paths.c - run-time CPU detection and the choice among kernel paths. */
#include <string.h>

#include "kernels.h"

extern const om_kernel_table om_table_scalar;
#if defined(__x86_64__) || defined(__i386__)
#define OM_X86 1
extern const om_kernel_table om_table_512;
extern const om_kernel_table om_table_256;
extern const om_kernel_table om_table_128;
#else
#define OM_X86 0
#endif

static const char* const om_path_names[OM_PATH_COUNT] = {"512", "256", "128", "scalar"};

const char* om_path_name(int path) {
  return (path >= 0 && path < OM_PATH_COUNT) ? om_path_names[path] : "unknown";
}

int om_path_from_name(const char* name) {
  for (int p = 0; p < OM_PATH_COUNT; p++)
    if (name && strcmp(name, om_path_names[p]) == 0) return p;
  return -1;
}

#if OM_X86
#include <cpuid.h>
/* F16C (CPUID.1:ECX bit 29); GCC 12's cpu model has no name for it. */
static int om_has_f16c(void) {
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
  return (c >> 29) & 1u;
}
#endif

/* What each path's target pragma assumes, checked with CPUID (through GCC's cpu model). The OS must also
 * save the wide registers; GCC's cpu model reports AVX/AVX-512 features only when XGETBV says it does. */
int om_path_available(int path) {
  switch (path) {
    case OM_PATH_SCALAR: return 1;
#if OM_X86
    case OM_PATH_128: __builtin_cpu_init(); return __builtin_cpu_supports("sse4.2");
    case OM_PATH_256:
      __builtin_cpu_init();
      return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("bmi2") &&
             om_has_f16c();
    case OM_PATH_512:
      __builtin_cpu_init();
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
             __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") &&
             __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("bmi2") &&
             om_has_f16c();
#endif
    default: return 0;
  }
}

int om_path_best(void) {
  for (int p = 0; p < OM_PATH_COUNT; p++)
    if (om_path_available(p)) return p;
  return OM_PATH_SCALAR;
}

const om_kernel_table* om_path_table(int path) {
  switch (path) {
#if OM_X86
    case OM_PATH_512: return &om_table_512;
    case OM_PATH_256: return &om_table_256;
    case OM_PATH_128: return &om_table_128;
#endif
    default: return &om_table_scalar;
  }
}
