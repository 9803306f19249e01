/* qdq.c - which QuantizeLinear / DequantizeLinear kernels (qdq_<path>.c) each kernel path runs, and the
 * integer ranges of the quantized types, and the packing of the 4-bit types. */
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
    case OM_T_UINT4: *lo = 0, *hi = 15; return 0;
    case OM_T_INT4: *lo = -8, *hi = 7; return 0;
    default: return -1;
  }
}

void om_qdq_pack4(const uint8_t* v, size_t n, uint8_t* out) {
  size_t i = 0;
  for (; i + 1 < n; i += 2) out[i / 2] = (uint8_t)((v[i] & 0xfu) | (uint8_t)(v[i + 1] << 4));
  if (i < n) out[i / 2] = (uint8_t)(v[i] & 0xfu); /* the last byte's high half: 0 */
}

void om_qdq_unpack4(const uint8_t* p, size_t first, size_t n, int is_signed, uint8_t* out) {
  const unsigned m = is_signed ? 8u : 0u; /* (v ^ 8) - 8: int4 sign-extended into the int8 bits */
  const uint8_t* b = p + first / 2;
  size_t i = 0;
  if ((first & 1) && n) {
    out[i++] = (uint8_t)(((*b++ >> 4) ^ m) - m);
  }
  for (; i + 1 < n; i += 2, b++) {
    out[i] = (uint8_t)(((*b & 0xfu) ^ m) - m);
    out[i + 1] = (uint8_t)(((unsigned)(*b >> 4) ^ m) - m);
  }
  if (i < n) out[i] = (uint8_t)(((*b & 0xfu) ^ m) - m);
}
