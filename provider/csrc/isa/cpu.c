/* cpu.c - run-time tests that this CPU (and its OS) has what each path's target pragma (isa/target.h) assumes.
 * x86-64: CPUID through GCC's cpu model, which reports AVX/AVX-512 features only when XGETBV says the OS saves
 * the wide registers. AArch64: HWCAP. A test for an ISA this build has no path for returns 0. */
#include "isa.h"
#include "target.h"

#if OM_ISA_X86
#include <cpuid.h>
/* F16C (CPUID.1:ECX bit 29); GCC 12's cpu model has no name for it. */
static int om_has_f16c(void) {
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
  return (c >> 29) & 1u;
}
int om_cpu_has_sse42(void) {
  __builtin_cpu_init();
  return __builtin_cpu_supports("sse4.2");
}
int om_cpu_has_avx2(void) {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("bmi2") &&
         om_has_f16c();
}
int om_cpu_has_avx512(void) {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") && om_cpu_has_avx2();
}
int om_cpu_has_avx512vnni(void) {
  __builtin_cpu_init();
  return om_cpu_has_avx512() && __builtin_cpu_supports("avx512vnni");
}
#else
int om_cpu_has_sse42(void) { return 0; }
int om_cpu_has_avx2(void) { return 0; }
int om_cpu_has_avx512(void) { return 0; }
int om_cpu_has_avx512vnni(void) { return 0; }
#endif

#if OM_ISA_NEON && defined(__linux__)
#include <sys/auxv.h>
/* Advanced SIMD (HWCAP_ASIMD, bit 1 of AT_HWCAP): mandatory in the AArch64 Linux ABI, checked all the same. */
int om_cpu_has_asimd(void) { return (int)((getauxval(AT_HWCAP) >> 1) & 1u); }
#elif OM_ISA_NEON
int om_cpu_has_asimd(void) { return 1; } /* every AArch64 target with an OS that saves the registers */
#else
int om_cpu_has_asimd(void) { return 0; }
#endif
