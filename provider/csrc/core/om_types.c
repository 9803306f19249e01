#include "om_types.h"

#include <stdio.h>

size_t om_type_size(int type) {
  switch (type) {
    case OM_T_BOOL: case OM_T_UINT8: case OM_T_INT8: return 1;
    case OM_T_FLOAT8E4M3FN: case OM_T_FLOAT8E4M3FNUZ: case OM_T_FLOAT8E5M2: case OM_T_FLOAT8E5M2FNUZ: return 1;
    case OM_T_UINT16: case OM_T_INT16: case OM_T_FLOAT16: case OM_T_BFLOAT16: return 2;
    case OM_T_FLOAT: case OM_T_INT32: case OM_T_UINT32: return 4;
    case OM_T_DOUBLE: case OM_T_INT64: case OM_T_UINT64: return 8;
    default: return 0;
  }
}

const char* om_type_name(int type) {
  static const char* const names[] = {"undefined", "float", "uint8", "int8", "uint16", "int16", "int32", "int64",
                                      "string", "bool", "float16", "double", "uint32", "uint64", "complex64",
                                      "complex128", "bfloat16", "float8e4m3fn", "float8e4m3fnuz", "float8e5m2",
                                      "float8e5m2fnuz", "uint4", "int4", "float4e2m1"};
  if (type >= 0 && (size_t)type < sizeof names / sizeof names[0]) return names[type];
  return "unknown";
}
