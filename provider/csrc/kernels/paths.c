/* paths.c - run-time CPU detection and the choice among kernel paths.
 *
 * A path is one instantiation of the kernel bodies (kernels_NAME.c: OM_VB, OM_FN and, on x86, a target pragma)
 * plus three lines here: its table's extern, its availability test and its table in om_path_table, each under
 * the ISA that has it. x86-64: 512 (AVX-512), 256 (AVX2+FMA), 128 (SSE4.2), scalar. AArch64: 128 (Advanced
 * SIMD), scalar; an SVE path would be one more file and enum entry, tested with HWCAP_SVE. */
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
#if defined(__aarch64__)
#define OM_NEON 1
extern const om_kernel_table om_table_128;
#else
#define OM_NEON 0
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
#if OM_NEON && defined(__linux__)
#include <sys/auxv.h>
/* Advanced SIMD (HWCAP_ASIMD, bit 1 of AT_HWCAP): mandatory in the AArch64 Linux ABI, checked all the same. */
static int om_has_asimd(void) { return (int)((getauxval(AT_HWCAP) >> 1) & 1u); }
#elif OM_NEON
static int om_has_asimd(void) { return 1; } /* every AArch64 target with an OS that saves the registers */
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
#if OM_NEON
    case OM_PATH_128: return om_has_asimd();
#endif
    default: return 0;
  }
}

/* 0 unknown, 1 available, 2 not; relaxed atomics: racing first calls store the same value. */
int om_path_available_cached(int path) {
  static int known[OM_PATH_COUNT];
  int v = __atomic_load_n(&known[path], __ATOMIC_RELAXED);
  if (!v) {
    v = om_path_available(path) ? 1 : 2;
    __atomic_store_n(&known[path], v, __ATOMIC_RELAXED);
  }
  return v == 1;
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
#if OM_NEON
    case OM_PATH_128: return &om_table_128;
#endif
    default: return &om_table_scalar;
  }
}
