/* qmatmul.h - the exact int32 product of the quantized matrix-product nodes (MatMulInteger, MatMulIntegerToFloat,
 * DynamicQuantizeMatMul, QLinearMatMul): MatMul's shapes (matmul_shape.h) of A (input 0) and B (input ib), B packed
 * once when it is a constant of rank 1 or 2, the batch loop onto om_qgemm (quant/qgemm.h), and the checks of the
 * quantization parameters' shapes. Knows nothing of ORT.
 */
#ifndef OM_NODE_QMATMUL_H
#define OM_NODE_QMATMUL_H

#include <stddef.h>
#include <stdint.h>

#include "matmul_shape.h"
#include "node_family.h"
#include "quant/qgemm.h"

typedef struct om_qmatmul {
  int a_signed, b_signed; /* int8 (1) or uint8 (0) */
  om_qgemm_packed* packed_b; /* a constant B, packed at creation; NULL: read at run time */
  int64_t packed_k, packed_n;
} om_qmatmul;

/* The dimensions of input 0 times input ib; 0, or -1 with a message in io->err naming node and op. */
int om_qmatmul_dims(const om_node* node, const om_node_io* io, size_t ib, om_mm_dims* d);

/* Pack a constant B (set_constant of input ib) when it has rank 1 or 2; 0, or -1 on out of memory. */
int om_qmatmul_pack_constant(om_node* node, om_qmatmul* m, const void* data, const int64_t* shape, size_t rank,
                             char* err, size_t errlen);

/* The zero points and A of one product; za / zb NULL: 0; stride 0: one for all rows / columns, 1: one each. */
typedef struct om_qmatmul_operands {
  const void* a;
  const void* za;
  size_t za_stride;
  const void* zb;
  size_t zb_stride;
} om_qmatmul_operands;

/* C (batch x M x N int32, the output's order) = A x B exactly (modulo 2^32), B being input ib of io; 0, or -1
 * with a message in io->err. */
int om_qmatmul_product(const om_node* node, const om_qmatmul* m, const om_mm_dims* d, const om_node_io* io,
                       size_t ib, const om_qmatmul_operands* op, int32_t* C);

/* The element stride of a quantization parameter, input k named `name`: 0 when it has one element (any rank),
 * 1 when per (what one element is for: "column of B") is given and it is 1-D of n; otherwise -1 with a message
 * in io->err naming node, op, input and shape. Only for an input the node has (the caller knows from the types at creation). */
int om_qparam_stride(const om_node* node, const om_node_io* io, size_t k, const char* name, const char* per,
                     int64_t n, size_t* stride);

/* At creation, for a constant parameter (set_constant) that must have one element: 0, or -1 with a message
 * naming node, op, input and shape. */
int om_qparam_one(const om_node* node, const char* name, const int64_t* shape, size_t rank, char* err,
                  size_t errlen);

/* The value of the one int8 (type OM_T_INT8) or uint8 element at p (a zero point). */
int32_t om_qint8_value(const void* p, int type);

/* A family's destroy for a state whose first member is an om_qmatmul: the packed B, then the state. */
void om_qmatmul_node_destroy(om_node* node);

#endif
