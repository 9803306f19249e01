/* cpu.c - run-time tests that this CPU (and its OS) has what each path's target pragma (isa/target.h) assumes.
 * x86-64: CPUID through GCC's cpu model, which reports AVX/AVX-512 features only when XGETBV says the OS saves
 * the wide registers. AArch64: HWCAP. A test for an ISA this build has no path for returns 0. */
#define _GNU_SOURCE /* syscall (Linux) */
#include "isa.h"
#include "target.h"

#if OM_ISA_X86
#include <cpuid.h>
#if defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
#endif
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
/* AMX: CPUID.(7,0):EDX bits 24 (AMX-TILE) and 25 (AMX-INT8); XCR0 bits 17 and 18 (the OS saves XTILECFG and
 * XTILEDATA); on Linux, permission for XTILEDATA (feature 18) through arch_prctl(ARCH_REQ_XCOMP_PERM = 0x1023),
 * without which the first tile instruction faults. */
int om_cpu_has_amx_int8(void) {
  unsigned a, b, c, d, lo, hi;
  if (!om_cpu_has_avx512() || !__get_cpuid_count(7, 0, &a, &b, &c, &d) || ((d >> 24) & 3u) != 3u) return 0;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  (void)hi;
  if (((lo >> 17) & 3u) != 3u) return 0;
#if defined(__linux__)
  return syscall(SYS_arch_prctl, 0x1023, 18) == 0;
#else
  return 0;
#endif
}
#else
int om_cpu_has_sse42(void) { return 0; }
int om_cpu_has_avx2(void) { return 0; }
int om_cpu_has_avx512(void) { return 0; }
int om_cpu_has_avx512vnni(void) { return 0; }
int om_cpu_has_amx_int8(void) { return 0; }
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
