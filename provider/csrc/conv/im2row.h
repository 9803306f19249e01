/* im2row.h - the row matrix of a quantized convolution (ConvInteger, QLinearConv; docs/quantized-conv.md): the
 * image first transposed to channels-last bytes (one row of C bytes per spatial position), then for one group
 * and a run of output positions, row o = the taps of output position o in (kernel position row-major, then
 * channel) order: column t = kpos * Cg + c holds Xp[c, o*s + k*d - p], a padding tap the fill byte (the zero
 * point of X, so that it contributes (zp - zp) = 0 to every sum). Copies only: the arithmetic is quant/qgemm's,
 * whose sums are exact integers, so the column order is free. Knows nothing of nodes. */
#ifndef OM_CONV_IM2ROW_H
#define OM_CONV_IM2ROW_H

#include <stddef.h>
#include <stdint.h>

#include "im2col.h"

/* dst[c * ldd + r] = src[r * lds + c] for r < rows, c < cols (bytes). */
void om_bytes_transpose(const uint8_t* src, size_t lds, size_t rows, size_t cols, uint8_t* dst, size_t ldd);

/* Positions [p0, p1) of one image of `channels` channels and `plane` positions per channel, x[c * plane + p],
 * into xt[p * channels + c] (bytes). */
void om_bytes_to_channels_last(const uint8_t* x, size_t channels, size_t plane, size_t p0, size_t p1, uint8_t* xt);

/* Rows [o0, o0 + no) of the row matrix of the group whose first channel is xt (a channels-last image, ldx bytes
 * per position; g->channels bytes of the group per position) into rows of ldr bytes at row (the first
 * om_conv_rows(g) bytes of each written). */
void om_im2row_u8(const om_conv_geom* g, const uint8_t* xt, size_t ldx, uint8_t fill, size_t o0, size_t no,
                  uint8_t* row, size_t ldr);

#endif
