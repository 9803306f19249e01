/* window_geom.h - what the windowed pools share (node_window_pool.c: MaxPool, AveragePool; node_qlinear_avg_pool.c:
 * com.microsoft QLinearAveragePool): the checks of the window attributes Conv's create read (node_conv_shape.c)
 * and one call's geometry over three spatial axes (pool/window_pool.h's om_wpool_geom). Knows nothing of ORT. */
#ifndef OM_NODE_WINDOW_GEOM_H
#define OM_NODE_WINDOW_GEOM_H

#include <stddef.h>
#include <stdint.h>

#include "node_conv.h"
#include "pool/window_pool.h"

/* After om_conv_create: kernel_shape given, each pad smaller than its kernel, no dilation with auto_pad SAME_*,
 * at most 2^max_log2 taps in a window. 0, or -1 with a message naming node, op and problem. */
int om_window_check(const om_node* node, const om_conv* c, int max_log2, char* err, size_t errlen);

/* X's shape x (rank) with its spatial axes at x[spatial0 ...] (c->axes of them, as many as the attributes
 * give): the geometry g (leading axes of size 1) and the output's spatial sizes out[0 .. c->axes). 0, or -1
 * with a message naming node, op, axis and numbers. */
int om_window_geom_of(const om_node* node, const om_conv* c, int ceil_mode, const int64_t* x, size_t rank,
                      size_t spatial0, om_wpool_geom* g, int64_t* out, char* err, size_t errlen);

#endif
