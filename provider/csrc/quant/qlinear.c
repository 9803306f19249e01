/* qlinear.c - which QLinearAdd / QLinearMul kernels (qlinear_<path>.c) each kernel path runs, and the 256-entry
 * lookup of the table-driven ops (qlinear.h; docs/quantized-elementwise.md). */
#include "qlinear.h"

#include "isa/isa.h"
#include "isa/target.h"

extern const om_qlin_kern om_qlin_kern_scalar;
#if OM_ISA_X86
extern const om_qlin_kern om_qlin_kern_512, om_qlin_kern_256;
#endif
#if OM_ISA_X86 || OM_ISA_NEON
extern const om_qlin_kern om_qlin_kern_128;
#endif

const om_qlin_kern* om_qlin_kern_of(int path) {
  switch (path) {
#if OM_ISA_X86
    case OM_PATH_512: return &om_qlin_kern_512;
    case OM_PATH_256: return &om_qlin_kern_256;
#endif
#if OM_ISA_X86 || OM_ISA_NEON
    case OM_PATH_128: return &om_qlin_kern_128;
#endif
    default: return &om_qlin_kern_scalar;
  }
}

void om_qlin_lookup(const uint8_t* x, size_t n, const uint8_t table[256], uint8_t* y) {
  size_t i = 0;
  for (; i + 4 <= n; i += 4) { /* four independent loads a step */
    const uint8_t y0 = table[x[i]], y1 = table[x[i + 1]], y2 = table[x[i + 2]], y3 = table[x[i + 3]];
    y[i] = y0, y[i + 1] = y1, y[i + 2] = y2, y[i + 3] = y3;
  }
  for (; i < n; i++) y[i] = table[x[i]];
}
