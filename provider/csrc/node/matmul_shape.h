/* matmul_shape.h - ONNX MatMul's shapes (NumPy matmul), shared by the MatMul and MatMulInteger families: a 1-D A
 * is [1, K] with that dimension removed from the result, a 1-D B is [K, 1] likewise; the batch dimensions (all
 * but the last two) broadcast. Knows nothing of ORT. */
#ifndef OM_NODE_MATMUL_SHAPE_H
#define OM_NODE_MATMUL_SHAPE_H

#include <stddef.h>
#include <stdint.h>

#include "broadcast.h" /* OM_MAX_RANK */

typedef struct om_mm_dims {
  int64_t M, N, K;
  size_t batch_rank;             /* MatMul: rank of the broadcast batch */
  int64_t batch[OM_MAX_RANK];
  int a_vec, b_vec;              /* MatMul: a 1-D operand */
} om_mm_dims;

/* "[2, 3]" into buf. */
void om_shape_str(const int64_t* s, size_t r, char* buf, size_t len);
/* The dimensions of A (shapes[0]) times B (shapes[1]); 0, or -1 with a message naming node and op. */
int om_matmul_dims(const char* node, const char* op, const int64_t* const* shapes, const size_t* ranks,
                   om_mm_dims* d, char* err, size_t errlen);
/* The output shape: the batch, then M unless A is 1-D, then N unless B is 1-D. */
void om_matmul_out_shape(const om_mm_dims* d, int64_t* out, size_t* rank);
/* The batch broadcast as element strides of A and B per batch dimension (0 where an operand's batch dimension is
 * 1 or missing), d->batch_rank of each. */
void om_matmul_batch_strides(const om_mm_dims* d, const int64_t* const* shapes, const size_t* ranks,
                             int64_t* a_bstride, int64_t* b_bstride);
/* The offsets of batch element b into A and B (row-major over d->batch). */
void om_matmul_batch_offsets(const om_mm_dims* d, const int64_t* a_bstride, const int64_t* b_bstride, size_t b,
                             int64_t* a_off, int64_t* b_off);

#endif
