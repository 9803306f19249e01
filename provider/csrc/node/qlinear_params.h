/* qlinear_params.h - what the nodes of ONNX Runtime's QOperator format (com.microsoft QLinearAdd, QLinearMul,
 * QLinearSigmoid, QLinearLeakyRelu, QLinearGlobalAveragePool, QLinearAveragePool, QLinearConcat; docs/quantized-elementwise.md)
 * share: the check of their inputs' element types at creation, the per-tensor scales and zero points read at
 * run time, and the 256-entry table of a one-input op (DequantizeLinear, a float function, QuantizeLinear).
 * Knows nothing of ORT.
 */
#ifndef OM_NODE_QLINEAR_PARAMS_H
#define OM_NODE_QLINEAR_PARAMS_H

#include <stddef.h>
#include <stdint.h>

#include "node_family.h"

/* Check input k's element type against kinds[k] for k < strlen(kinds): 'T' the 8-bit type t, 't' t or absent,
 * 'F' float, names[k] its name in messages; inputs past strlen(kinds) are not checked. Sets *has (bit k: input
 * k given). 0, or -1 with a message naming node, op, input and problem. */
int om_qlin_check_inputs(const om_node* node, const char* kinds, const char* const* names, int t, unsigned* has,
                         char* err, size_t errlen);

/* At run time: the value of scale input k (one float element; any rank), or of zero point input k of 8-bit type
 * t (0 when the node has no input k: given 0). 0, or -1 with a message in io->err naming node, op, input and shape. */
int om_qlin_scale(const om_node* node, const om_node_io* io, size_t k, const char* name, float* v);
int om_qlin_zero_point(const om_node* node, const om_node_io* io, size_t k, const char* name, int t, int given,
                       int32_t* z);

/* At creation, for constant input k (set_constant): 0 when it is data (k == 0 for kinds[0] 'T') or has one
 * element, else -1 with a message naming node, op, input and shape. A family's set_constant. */
int om_qlin_set_constant_one(om_node* node, size_t k, const void* data, const int64_t* shape, size_t rank, char* err,
                             size_t errlen);

/* The value of an 8-bit element of type t (int8 or uint8). */
int32_t om_qlin_int(const void* p, int t);

/* A float function applied in place to v[0, n) (NULL: the identity), with its state. */
typedef void (*om_qlin_fn)(const void* ctx, float* v, size_t n);

/* table[j] = QuantizeLinear(f(DequantizeLinear(x, sx, zx)), sy, zy) for the 8-bit x of type t whose byte is j:
 * docs/quantized.md's steps on the scalar path (one IEEE operation each, so the same bits on every path), under
 * the IEEE default environment. */
void om_qlin_table(int t, float sx, int32_t zx, om_qlin_fn f, const void* ctx, float sy, int32_t zy,
                   uint8_t table[256]);

#endif
