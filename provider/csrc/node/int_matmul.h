/* int_matmul.h - the batched integer matrix product of Einsum's int32 and int64 operands (docs/einsum.md): the
 * arguments of om_gemm (gemm/gemm.h; alpha 1, no Cin, no packed B), each output element the sum over k of
 * a_ik * b_kj, products and sums wrapping modulo 2^32 or 2^64 (exact, so the order is free). Knows nothing of ORT.
 */
#ifndef OM_NODE_INT_MATMUL_H
#define OM_NODE_INT_MATMUL_H

#include "gemm/gemm.h"

/* g->type OM_T_INT32 or OM_T_INT64; rows of batch * M on the host's threads. 0, or -2 for another type. */
int om_int_matmul(const om_gemm_args* g, om_parallel_for_fn pf, void* host_ctx);

#endif
