/* col2im.h - the scatter-add of a transposed convolution (ConvTranspose's order, docs/conv.md): the partial
 * sums P_kk of one output channel, one row per kernel position kk (row-major) and one column per input position
 * j, added into the output plane, +0.0 first, then each contributing kernel position's P_kk in row-major kk
 * order (one rounded add each), then the bias as one rounded add. Knows nothing of nodes: a geometry in, one
 * plane out. */
#ifndef OM_CONV_COL2IM_H
#define OM_CONV_COL2IM_H

#include <stddef.h>

#include "conv/im2col.h"

/* One output plane y (g->out[0]*out[1]*out[2] elements of type OM_T_FLOAT or OM_T_DOUBLE) from col (row kk =
 * (k0*kernel[1] + k1)*kernel[2] + k2 at col + kk*ldc elements, its column j the input position j, row-major
 * over g->in): y = +0.0; for each kk in row-major order, y[o] = y[o] + col[kk][j] for the one input position j
 * with o = j*stride - pad + kk*dilation on every axis (none: nothing added); then, with bias (one element, NULL:
 * none), y = y + *bias; exact: a NaN becomes the canonical quiet NaN. g->channels is not read. */
void om_col2im_plane(const om_conv_geom* g, int type, const void* col, size_t ldc, const void* bias, int exact,
                     void* y);

#endif
