/* qdwconv.c - which depthwise quantized convolution kernels (qdwconv_<path>.c) each kernel path runs (qdwconv.h;
 * docs/quantized-conv.md). */
#include "qdwconv.h"

#include "isa/isa.h"
#include "isa/target.h"

extern const om_qdw_kern om_qdw_kern_scalar;
#if OM_ISA_X86
extern const om_qdw_kern om_qdw_kern_512, om_qdw_kern_256;
#endif
#if OM_ISA_X86 || OM_ISA_NEON
extern const om_qdw_kern om_qdw_kern_128;
#endif

const om_qdw_kern* om_qdw_kern_of(int path) {
  switch (path) {
#if OM_ISA_X86
    case OM_PATH_512: return &om_qdw_kern_512;
    case OM_PATH_256: return &om_qdw_kern_256;
#endif
#if OM_ISA_X86 || OM_ISA_NEON
    case OM_PATH_128: return &om_qdw_kern_128;
#endif
    default: return &om_qdw_kern_scalar;
  }
}
