/* im2row.c - the row matrix of a quantized convolution (im2row.h). Copies only: no arithmetic on the values. */
#include "im2row.h"

#include <string.h>

/* Blocks of 16 positions x 16 channels: reads and writes both run along whole cache lines. */
enum { OM_T_BLOCK = 16 };

void om_bytes_to_channels_last(const uint8_t* x, size_t channels, size_t plane, size_t p0, size_t p1, uint8_t* xt) {
  for (size_t pb = p0; pb < p1; pb += OM_T_BLOCK) {
    size_t pe = pb + OM_T_BLOCK < p1 ? pb + OM_T_BLOCK : p1;
    for (size_t cb = 0; cb < channels; cb += OM_T_BLOCK) {
      size_t ce = cb + OM_T_BLOCK < channels ? cb + OM_T_BLOCK : channels;
      for (size_t c = cb; c < ce; c++) {
        const uint8_t* src = x + c * plane;
        for (size_t p = pb; p < pe; p++) xt[p * channels + c] = src[p];
      }
    }
  }
}

void om_im2row_u8(const om_conv_geom* g, const uint8_t* xt, size_t ldx, uint8_t fill, size_t o0, size_t no,
                  uint8_t* row, size_t ldr) {
  const size_t cg = g->channels;
  const int64_t O1 = g->out[1], O2 = g->out[2];
  for (size_t o = o0; o < o0 + no; o++, row += ldr) {
    const int64_t w = (int64_t)o % O2, rest = (int64_t)o / O2, h = rest % O1, d = rest / O1;
    uint8_t* dst = row;
    for (int64_t k0 = 0; k0 < g->kernel[0]; k0++) {
      const int64_t i0 = d * g->stride[0] + k0 * g->dilation[0] - g->pad[0];
      const int in0 = i0 >= 0 && i0 < g->in[0];
      for (int64_t k1 = 0; k1 < g->kernel[1]; k1++) {
        const int64_t i1 = h * g->stride[1] + k1 * g->dilation[1] - g->pad[1];
        const int in1 = in0 && i1 >= 0 && i1 < g->in[1];
        for (int64_t k2 = 0; k2 < g->kernel[2]; k2++, dst += cg) {
          const int64_t i2 = w * g->stride[2] + k2 * g->dilation[2] - g->pad[2];
          if (in1 && i2 >= 0 && i2 < g->in[2])
            memcpy(dst, xt + (size_t)((i0 * g->in[1] + i1) * g->in[2] + i2) * ldx, cg);
          else
            memset(dst, fill, cg);
        }
      }
    }
  }
}
