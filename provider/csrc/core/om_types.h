/* om_types.h - element types (numbered as ONNX TensorProto.DataType), their names and sizes. */
#ifndef OM_TYPES_H
#define OM_TYPES_H

#include <stddef.h>
#include <stdint.h>

enum {
  OM_T_UNDEFINED = 0,
  OM_T_FLOAT = 1,
  OM_T_UINT8 = 2,
  OM_T_INT8 = 3,
  OM_T_UINT16 = 4,
  OM_T_INT16 = 5,
  OM_T_INT32 = 6,
  OM_T_INT64 = 7,
  OM_T_STRING = 8,
  OM_T_BOOL = 9,
  OM_T_FLOAT16 = 10,
  OM_T_DOUBLE = 11,
  OM_T_UINT32 = 12,
  OM_T_UINT64 = 13,
  OM_T_COMPLEX64 = 14,
  OM_T_COMPLEX128 = 15,
  OM_T_BFLOAT16 = 16,
  OM_T_SLOTS = 17, /* type ids below this index kernel tables */
  OM_T_FLOAT8E4M3FN = 17, /* the float8 types (math/om_f8.h), one byte each */
  OM_T_FLOAT8E4M3FNUZ = 18,
  OM_T_FLOAT8E5M2 = 19,
  OM_T_FLOAT8E5M2FNUZ = 20,
  OM_T_UINT4 = 21, /* two values a byte, the first in the low four bits (com.microsoft GatherBlockQuantized) */
  OM_T_INT4 = 22
};

#define OM_TB(t) (1u << (t))
#define OM_TS_FLOAT (OM_TB(OM_T_FLOAT16) | OM_TB(OM_T_FLOAT) | OM_TB(OM_T_DOUBLE))
#define OM_TS_SINT (OM_TB(OM_T_INT8) | OM_TB(OM_T_INT16) | OM_TB(OM_T_INT32) | OM_TB(OM_T_INT64))
#define OM_TS_UINT (OM_TB(OM_T_UINT8) | OM_TB(OM_T_UINT16) | OM_TB(OM_T_UINT32) | OM_TB(OM_T_UINT64))
#define OM_TS_INT (OM_TS_SINT | OM_TS_UINT)
#define OM_TS_NUMERIC (OM_TS_FLOAT | OM_TS_INT)
#define OM_TS_SIGNED (OM_TS_FLOAT | OM_TS_SINT)
/* Every type we store: the numeric types, bool and bfloat16. */
#define OM_TS_STORED (OM_TS_NUMERIC | OM_TB(OM_T_BOOL) | OM_TB(OM_T_BFLOAT16))
#define OM_TS_POW_BASE (OM_TB(OM_T_FLOAT) | OM_TB(OM_T_DOUBLE) | OM_TB(OM_T_INT32) | OM_TB(OM_T_INT64))
#define OM_TS_POW_EXP (OM_TS_POW_BASE | OM_TB(OM_T_UINT32) | OM_TB(OM_T_UINT64))
/* PRelu's integer types (opset 9 on) */
#define OM_TS_PRELU_INT (OM_TB(OM_T_INT32) | OM_TB(OM_T_INT64) | OM_TB(OM_T_UINT32) | OM_TB(OM_T_UINT64))
/* the transcendentals: f32 kernels, f16/bf16 tables (tr16.c) */
#define OM_TS_TRANSC (OM_TB(OM_T_FLOAT) | OM_TB(OM_T_FLOAT16) | OM_TB(OM_T_BFLOAT16))
/* Tanh and Sigmoid: those, and double (the correctly rounded scalar functions of math/om_f64_act.h) */
#define OM_TS_TRANSC64 (OM_TS_TRANSC | OM_TB(OM_T_DOUBLE))

/* the Reduce ops: ONNX's float types (bfloat16 from opset 13) and its integer types (int8 and uint8 for ReduceMax
 * and ReduceMin from opset 12) */
#define OM_TS_RED_FLOAT (OM_TS_FLOAT | OM_TB(OM_T_BFLOAT16))
#define OM_TS_RED_INT (OM_TB(OM_T_INT32) | OM_TB(OM_T_INT64) | OM_TB(OM_T_UINT32) | OM_TB(OM_T_UINT64))
#define OM_TS_RED_MAXMIN (OM_TS_RED_FLOAT | OM_TS_RED_INT | OM_TB(OM_T_INT8) | OM_TB(OM_T_UINT8))

/* the 8-bit quantized types (MatMulInteger) */
#define OM_TS_QUANT8 (OM_TB(OM_T_UINT8) | OM_TB(OM_T_INT8))
/* the integer types of QuantizeLinear's y and DequantizeLinear's x (int32 too for the latter) */
#define OM_TS_QDQ_INT (OM_TS_QUANT8 | OM_TB(OM_T_UINT16) | OM_TB(OM_T_INT16))
/* QuantizeLinear's and DequantizeLinear's 4-bit (opset 21 on) and float8 (opset 19 on) types */
#define OM_TS_QDQ_INT4 (OM_TB(OM_T_UINT4) | OM_TB(OM_T_INT4))
#define OM_TS_QDQ_F8 \
  (OM_TB(OM_T_FLOAT8E4M3FN) | OM_TB(OM_T_FLOAT8E4M3FNUZ) | OM_TB(OM_T_FLOAT8E5M2) | OM_TB(OM_T_FLOAT8E5M2FNUZ))
#define OM_TS_QDQ_NARROW (OM_TS_QDQ_INT4 | OM_TS_QDQ_F8)

/* Size in bytes of one element, 0 for a type we do not store. */
size_t om_type_size(int type);
/* ONNX name of a type ("float", "bfloat16", ...), or "unknown(N)" written into a static buffer. */
const char* om_type_name(int type);

#endif
