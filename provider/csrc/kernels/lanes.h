/* lanes.h - the thin lane layer under the kernel bodies (in the spirit of SLEEF's per-ISA helpers).
 *
 * Included by elementwise.inc once per kernel path with OM_VB set to the vector width in bytes
 * (64, 32, 16) or 0 for the one-lane path. Every kernel body is written against these macros only; GCC's
 * vector extensions lower them to the instructions the enclosing `#pragma GCC target` allows.
 */
#ifndef OM_VB
#error "define OM_VB before including lanes.h"
#endif

#include <string.h>

/* Lanes of a vector of element type T on this path. */
#define OM_LANES(T) (OM_VB ? OM_VB / sizeof(T) : 1)
/* Declare V, a vector of T with `lanes` lanes, and M, the integer mask type GCC gives its comparisons. */
#define OM_VTYPES(T, MASKT, lanes)                                           \
  typedef T V __attribute__((vector_size((lanes) * sizeof(T)), unused));           \
  typedef MASKT M __attribute__((vector_size((lanes) * sizeof(MASKT)), unused))
#define OM_LOAD(v, p) memcpy(&(v), (p), sizeof(v))
#define OM_STORE(p, v) memcpy((p), &(v), sizeof(v))
/* Every lane of v set to the scalar s, bit for bit (adding s to a zero vector would turn -0 into +0). */
#define OM_SPLAT(v, s)                                                          \
  do {                                                                          \
    for (size_t l_ = 0; l_ < sizeof(v) / sizeof((v)[0]); l_++) (v)[l_] = (s); \
  } while (0)
/* Per-lane select on the bits: m ? a : b, with m all-ones or all-zeros per lane. */
#define OM_SEL(VT, MT, m, a, b) ((VT)(((MT)(m) & (MT)(a)) | (~(MT)(m) & (MT)(b))))
