/* kernels_scalar.c - the element-wise kernels instantiated for the scalar path (generated shape: see elementwise.inc). */
#define OM_VB 0
#define OM_FN(name) om_##name##_scalar
#include "elementwise.inc"
