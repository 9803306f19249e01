/* scatter_apply.c - the updates of ScatterElements and ScatterND applied in order (scatter_apply.h). */
#include "scatter_apply.h"

#include <stdint.h>
#include <string.h>

#include "core/om_types.h"
#include "math/om_half.h"
#include "movement.h"

const char* om_scatter_reduction_name(int reduction) {
  static const char* const names[] = {"none", "add", "mul", "max", "min"};
  return reduction >= 0 && reduction <= OM_SCATTER_MIN ? names[reduction] : "unknown";
}

int om_scatter_reduction_serves(int reduction, int type) {
  if (reduction == OM_SCATTER_NONE) return 1;
  return type != OM_T_BOOL;
}

/* One loop over the runs with the element combination C(T, a, b) (a: the output element, b: the update); runs of
 * one element (ScatterElements) in a loop of their own. */
#define OM_SC_LOOP(T, C)                                          \
  do {                                                            \
    if (run == 1) {                                               \
      T* o = out;                                                 \
      const T* u = upd;                                           \
      for (size_t g = 0; g < runs; g++) o[off[g]] = C(T, o[off[g]], u[g]); \
      break;                                                      \
    }                                                             \
    for (size_t g = 0; g < runs; g++) {                           \
      T* restrict a = (T*)out + off[g];                           \
      const T* restrict b = (const T*)upd + g * run;              \
      for (size_t j = 0; j < run; j++) a[j] = C(T, a[j], b[j]);   \
    }                                                             \
  } while (0)

/* Integers: add and mul wrap (two's complement, computed on uint64_t); max and min compare. */
#define OM_SC_IADD(T, a, b) ((T)((uint64_t)(a) + (uint64_t)(b)))
#define OM_SC_IMUL(T, a, b) ((T)((uint64_t)(a) * (uint64_t)(b)))
/* Every type that compares natively: max keeps a unless a < b, min unless b < a (a NaN update leaves a; a NaN
 * element stays) */
#define OM_SC_MAX(T, a, b) ((a) < (b) ? (b) : (a))
#define OM_SC_MIN(T, a, b) ((b) < (a) ? (b) : (a))
/* float and double: one operation; a NaN result is the canonical NaN (docs/exact-mode.md) */
static inline float om_sc_canon_f32(float r) { return r != r ? om_f32_from_bits(0x7fc00000u) : r; }
static inline double om_sc_canon_f64(double r) { return r != r ? om_f64_from_bits(0x7ff8000000000000ull) : r; }
#define OM_SC_CANON(T, r) (sizeof(T) == 4 ? (T)om_sc_canon_f32((float)(r)) : (T)om_sc_canon_f64((double)(r)))
#define OM_SC_FADD(T, a, b) OM_SC_CANON(T, (a) + (b))
#define OM_SC_FMUL(T, a, b) OM_SC_CANON(T, (a) * (b))
/* float16 and bfloat16: both widened exactly to float, one float operation, rounded to nearest even back; a NaN
 * result is the canonical NaN (0x7e00, and om_f32_to_bf16's 0x7fc0) */
#define OM_SC_H(T, a, b, OP) om_f32_to_f16(om_sc_canon_f32(om_f16_to_f32(a) OP om_f16_to_f32(b)))
#define OM_SC_HADD(T, a, b) OM_SC_H(T, a, b, +)
#define OM_SC_HMUL(T, a, b) OM_SC_H(T, a, b, *)
#define OM_SC_HMAX(T, a, b) (om_f16_to_f32(a) < om_f16_to_f32(b) ? (b) : (a))
#define OM_SC_HMIN(T, a, b) (om_f16_to_f32(b) < om_f16_to_f32(a) ? (b) : (a))
#define OM_SC_B(T, a, b, OP) om_f32_to_bf16(om_bf16_to_f32(a) OP om_bf16_to_f32(b))
#define OM_SC_BADD(T, a, b) OM_SC_B(T, a, b, +)
#define OM_SC_BMUL(T, a, b) OM_SC_B(T, a, b, *)
#define OM_SC_BMAX(T, a, b) (om_bf16_to_f32(a) < om_bf16_to_f32(b) ? (b) : (a))
#define OM_SC_BMIN(T, a, b) (om_bf16_to_f32(b) < om_bf16_to_f32(a) ? (b) : (a))

#define OM_SC_BY_REDUCTION(T, ADD, MUL, MAX, MIN) \
  do {                                            \
    switch (reduction) {                          \
      case OM_SCATTER_ADD: OM_SC_LOOP(T, ADD); break; \
      case OM_SCATTER_MUL: OM_SC_LOOP(T, MUL); break; \
      case OM_SCATTER_MAX: OM_SC_LOOP(T, MAX); break; \
      default: OM_SC_LOOP(T, MIN); break;         \
    }                                             \
  } while (0)

#define OM_SC_INT(T) OM_SC_BY_REDUCTION(T, OM_SC_IADD, OM_SC_IMUL, OM_SC_MAX, OM_SC_MIN)
#define OM_SC_FLOAT(T) OM_SC_BY_REDUCTION(T, OM_SC_FADD, OM_SC_FMUL, OM_SC_MAX, OM_SC_MIN)

/* Runs of one element of T: out[off[g]] = upd[g]. */
#define OM_SC_ONE(T)                                                        \
  do {                                                                      \
    for (size_t g = 0; g < runs; g++) ((T*)out)[off[g]] = ((const T*)upd)[g]; \
  } while (0)

void om_scatter_apply(int type, int reduction, void* out, const void* upd, const size_t* off, size_t runs,
                      size_t run) {
  if (reduction == OM_SCATTER_NONE) {
    size_t esz = om_type_size(type), bytes = run * esz;
    if (run == 1) { /* ScatterElements: one element an update, its bits as they are */
      OM_BY_ELEMENT_SIZE(esz, OM_SC_ONE);
      return;
    }
    for (size_t g = 0; g < runs; g++)
      memcpy((char*)out + off[g] * esz, (const char*)upd + g * bytes, bytes);
    return;
  }
  switch (type) {
    case OM_T_FLOAT: OM_SC_FLOAT(float); break;
    case OM_T_DOUBLE: OM_SC_FLOAT(double); break;
    case OM_T_FLOAT16: OM_SC_BY_REDUCTION(uint16_t, OM_SC_HADD, OM_SC_HMUL, OM_SC_HMAX, OM_SC_HMIN); break;
    case OM_T_BFLOAT16: OM_SC_BY_REDUCTION(uint16_t, OM_SC_BADD, OM_SC_BMUL, OM_SC_BMAX, OM_SC_BMIN); break;
    case OM_T_INT8: OM_SC_INT(int8_t); break;
    case OM_T_UINT8: OM_SC_INT(uint8_t); break;
    case OM_T_INT16: OM_SC_INT(int16_t); break;
    case OM_T_UINT16: OM_SC_INT(uint16_t); break;
    case OM_T_INT32: OM_SC_INT(int32_t); break;
    case OM_T_UINT32: OM_SC_INT(uint32_t); break;
    case OM_T_INT64: OM_SC_INT(int64_t); break;
    case OM_T_UINT64: OM_SC_INT(uint64_t); break;
    default: break; /* bool: refused at creation (om_scatter_reduction_serves) */
  }
}
