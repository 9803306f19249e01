/* node_shrink.c - Shrink (opset 9; attributes lambd, default 0.5, and bias, default 0.0, both binary32) for every
 * numeric type ONNX allows (docs/pooling-norm.md). Per element, in the compute type W (binary64 for double,
 * binary32 for every other type, as stock ONNX Runtime):
 *
 *   v = (W)x   (f16 widened exactly; an integer rounded to nearest even, as C's conversion)
 *   r = v < -lambd ? v + bias : v > lambd ? v - bias : 0   (one IEEE add or subtract in W, rounded to nearest even;
 *                                                           a NaN x gives 0: neither comparison holds)
 *   y = r (double, float); r rounded to nearest even (f16); r toward zero, saturated to the type's range, a NaN
 *       giving 0 (integers; stock ONNX Runtime's conversion is undefined there). A NaN y of a float type is the
 *       canonical quiet NaN (positive, no payload).
 *
 * Elements in fixed chunks on the host's threads; one plain body, so every path gives the same bits.
 */
#include <stdio.h>
#include <string.h>

#include "core/om_ops.h"
#include "math/om_half.h"
#include "node_family.h"
#include "parallel.h"

#define OM_SHRINK_CHUNK ((size_t)1 << 15)

typedef struct om_shrink_node {
  float lambd, bias;
} om_shrink_node;

static int om_shrink_create(om_node* node, const om_attrs* a, char* err, size_t errlen) {
  om_shrink_node* s = node->impl;
  switch (node->type) {
    case OM_T_FLOAT16: case OM_T_FLOAT: case OM_T_DOUBLE: case OM_T_INT8: case OM_T_UINT8: case OM_T_INT16:
    case OM_T_UINT16: case OM_T_INT32: case OM_T_UINT32: case OM_T_INT64: case OM_T_UINT64: break;
    default: return om_family_no_kernel(node, err, errlen);
  }
  s->lambd = a->has_lambd ? a->lambd : 0.5f;
  s->bias = a->has_bias ? a->bias : 0.0f;
  return 0;
}

static int om_shrink_shapes(const om_node* node, const om_node_io* io) {
  (void)node;
  for (size_t d = 0; d < io->ranks[0]; d++) io->out_shapes[d] = io->shapes[0][d];
  io->out_ranks[0] = io->ranks[0];
  return 0;
}

typedef struct om_shrink_job {
  const void* x;
  void* y;
  int type;
  float lambd, bias;
} om_shrink_job;

/* r of the docs in binary32 (every type but double). */
static inline float om_shrink_f32(float v, float l, float b) { return v < -l ? v + b : v > l ? v - b : 0.0f; }

/* r toward zero, saturated to [lo, hi] of a signed type of `bits` bits; NaN: 0. */
static inline int64_t om_shrink_signed(float r, int bits) {
  double d = (double)r, top = (double)((uint64_t)1 << (bits - 1));
  if (d != d) return 0;
  if (d >= top) return (int64_t)(((uint64_t)1 << (bits - 1)) - 1);
  if (d < -top) return -(int64_t)(((uint64_t)1 << (bits - 1)) - 1) - 1;
  return (int64_t)d;
}

/* r toward zero, saturated to [0, 2^bits - 1]; NaN: 0. */
static inline uint64_t om_shrink_unsigned(float r, int bits) {
  double d = (double)r, top = bits == 64 ? 18446744073709551616.0 : (double)((uint64_t)1 << bits);
  if (d != d || d < 0.0) return 0;
  if (d >= top) return bits == 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1;
  return (uint64_t)d;
}

#define OM_SHRINK_INT(T, CONV, BITS)                                                                            \
  do {                                                                                                         \
    const T* x = (const T*)j->x;                                                                               \
    T* y = (T*)j->y;                                                                                           \
    for (size_t i = b; i < e; i++) y[i] = (T)CONV(om_shrink_f32((float)x[i], j->lambd, j->bias), BITS);        \
  } while (0)

static int om_shrink_range(const void* args, size_t b, size_t e) {
  const om_shrink_job* j = args;
  switch (j->type) {
    case OM_T_FLOAT: {
      const float* x = j->x;
      float* y = j->y;
      for (size_t i = b; i < e; i++) {
        float r = om_shrink_f32(x[i], j->lambd, j->bias);
        y[i] = r != r ? om_f32_from_bits(0x7FC00000u) : r;
      }
      break;
    }
    case OM_T_DOUBLE: {
      const double* x = j->x;
      double* y = j->y;
      double l = (double)j->lambd, bb = (double)j->bias;
      for (size_t i = b; i < e; i++) {
        double r = x[i] < -l ? x[i] + bb : x[i] > l ? x[i] - bb : 0.0;
        y[i] = r != r ? om_f64_from_bits(0x7FF8000000000000ull) : r;
      }
      break;
    }
    case OM_T_FLOAT16: {
      const uint16_t* x = j->x;
      uint16_t* y = j->y;
      for (size_t i = b; i < e; i++) {
        float r = om_shrink_f32(om_f16_to_f32(x[i]), j->lambd, j->bias);
        y[i] = r != r ? (uint16_t)0x7E00u : om_f32_to_f16(r);
      }
      break;
    }
    case OM_T_INT8: OM_SHRINK_INT(int8_t, om_shrink_signed, 8); break;
    case OM_T_INT16: OM_SHRINK_INT(int16_t, om_shrink_signed, 16); break;
    case OM_T_INT32: OM_SHRINK_INT(int32_t, om_shrink_signed, 32); break;
    case OM_T_INT64: OM_SHRINK_INT(int64_t, om_shrink_signed, 64); break;
    case OM_T_UINT8: OM_SHRINK_INT(uint8_t, om_shrink_unsigned, 8); break;
    case OM_T_UINT16: OM_SHRINK_INT(uint16_t, om_shrink_unsigned, 16); break;
    case OM_T_UINT32: OM_SHRINK_INT(uint32_t, om_shrink_unsigned, 32); break;
    default: OM_SHRINK_INT(uint64_t, om_shrink_unsigned, 64); break;
  }
  return 0;
}

static int om_shrink_run(const om_node* node, const om_node_io* io) {
  const om_shrink_node* s = node->impl;
  size_t n = om_shape_count(io->shapes[0], io->ranks[0]);
  om_shrink_job j = {io->data[0], io->outs[0], node->type, s->lambd, s->bias};
  if (!j.y || !n) return 0;
  om_parallel_ranges(io->parallel_for, io->host_ctx, n, OM_SHRINK_CHUNK, om_shrink_range, &j);
  return 0;
}

const om_family om_family_shrink = {sizeof(om_shrink_node), om_shrink_create, om_shrink_shapes, om_shrink_run,
                                    NULL, NULL, NULL, NULL};
