/* om_fpenv.h - the IEEE default floating-point environment around a piece of kernel work.
 *
 * The environment is part of the result: a host that set flush-to-zero, denormals-are-zero, default-NaN or
 * another rounding mode on a thread (ORT can, with session.set_denormal_as_zero) would change our bits. Every
 * range of work (node/parallel.c's chunks, gemm.c's tasks, any new family's) runs between om_fpenv_enter, which
 * sets the IEEE default on this thread and returns the caller's setting, and om_fpenv_leave, which puts it back.
 * Both are one register read when the caller already runs under the default.
 */
#ifndef OM_FPENV_H
#define OM_FPENV_H

#include <stdint.h>

/* Per target: the type of the setting, its IEEE default OM_FPENV_IEEE, and om_fpenv_get / om_fpenv_set. */
#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
typedef unsigned om_fpenv;
#define OM_FPENV_IEEE 0x1f80u /* MXCSR: all exceptions masked, round to nearest, FTZ and DAZ off */
static inline om_fpenv om_fpenv_get(void) { return _mm_getcsr(); }
static inline void om_fpenv_set(om_fpenv e) { _mm_setcsr(e); }
#elif defined(__aarch64__)
/* FPCR: all zero is the IEEE default (RMode 23:22 round to nearest, FZ 24 and FZ16 19 no flush to zero, DN 25
 * NaN operands propagate, AHP 26 IEEE half precision, exception traps 8-12 and 15 off, and FEAT_AFP's FIZ 0,
 * AH 1, NEP 2 off). Read and written with MRS and MSR, as glibc's fegetenv and fesetenv do. */
typedef uint64_t om_fpenv;
#define OM_FPENV_IEEE ((uint64_t)0)
static inline om_fpenv om_fpenv_get(void) {
  uint64_t e;
  __asm__ __volatile__("mrs %0, fpcr" : "=r"(e));
  return e;
}
static inline void om_fpenv_set(om_fpenv e) { __asm__ __volatile__("msr fpcr, %0" : : "r"(e) : "memory"); }
#else
#include <fenv.h>
typedef int om_fpenv; /* the rounding mode only: what <fenv.h> can set portably */
#define OM_FPENV_IEEE FE_TONEAREST
static inline om_fpenv om_fpenv_get(void) { return fegetround(); }
static inline void om_fpenv_set(om_fpenv e) { fesetround(e); }
#endif

static inline om_fpenv om_fpenv_enter(void) {
  om_fpenv saved = om_fpenv_get();
  if (saved != OM_FPENV_IEEE) om_fpenv_set(OM_FPENV_IEEE);
  return saved;
}
static inline void om_fpenv_leave(om_fpenv saved) {
  if (saved != OM_FPENV_IEEE) om_fpenv_set(saved);
}

#endif
