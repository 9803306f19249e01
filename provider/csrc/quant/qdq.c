/* qdq.c - which QuantizeLinear / DequantizeLinear kernels (qdq_<path>.c) each kernel path runs, and the
 * integer ranges of the quantized types. */
#include "qdq.h"

#include "core/om_types.h"
#include "isa/isa.h"
#include "isa/target.h"

extern const om_qdq_kern om_qdq_kern_scalar;
#if OM_ISA_X86
extern const om_qdq_kern om_qdq_kern_512, om_qdq_kern_256;
#endif
#if OM_ISA_X86 || OM_ISA_NEON
extern const om_qdq_kern om_qdq_kern_128;
#endif

const om_qdq_kern* om_qdq_kern_of(int path) {
  switch (path) {
#if OM_ISA_X86
    case OM_PATH_512: return &om_qdq_kern_512;
    case OM_PATH_256: return &om_qdq_kern_256;
#endif
#if OM_ISA_X86 || OM_ISA_NEON
    case OM_PATH_128: return &om_qdq_kern_128;
#endif
    default: return &om_qdq_kern_scalar;
  }
}

int om_qdq_range(int t, int32_t* lo, int32_t* hi) {
  switch (t) {
    case OM_T_UINT8: *lo = 0, *hi = 255; return 0;
    case OM_T_INT8: *lo = -128, *hi = 127; return 0;
    case OM_T_UINT16: *lo = 0, *hi = 65535; return 0;
    case OM_T_INT16: *lo = -32768, *hi = 32767; return 0;
    default: return -1;
  }
}
