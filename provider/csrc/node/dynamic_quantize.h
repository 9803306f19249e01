/* dynamic_quantize.h - DynamicQuantizeLinear's arithmetic on a whole float tensor (node_dynamic_quantize.c; the
 * contract: docs/quantized.md), for the nodes that quantize an input that way first (DynamicQuantizeMatMul).
 * Knows nothing of ORT. */
#ifndef OM_NODE_DYNAMIC_QUANTIZE_H
#define OM_NODE_DYNAMIC_QUANTIZE_H

#include <stddef.h>
#include <stdint.h>

#include "core/om_exec.h"

/* y_scale and y_zero_point of x[0, n) into *scale and *zp, and y[i] = x[i] quantized to uint8 with them (y NULL:
 * the parameters only), in fixed chunks through pf (NULL: here) on kernel path `path`. 0, or -1 on out of
 * memory. */
int om_dynamic_quantize_u8(int path, const float* x, size_t n, om_parallel_for_fn pf, void* host_ctx, uint8_t* y,
                           float* scale, int32_t* zp);

#endif
