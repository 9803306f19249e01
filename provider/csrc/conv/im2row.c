/* im2row.c - the row matrix of a quantized convolution (im2row.h). Copies only: no arithmetic on the values. */
#include "im2row.h"

#include <string.h>

/* Blocks of 16 x 16 bytes. A whole block is transposed in registers (GCC vector extensions, 16
 * bytes a row): four rounds of the perfect shuffle, row 2i and 2i+1 of a round the interleaved low and high
 * halves of rows i and i+8 of the one before (SSE2's punpcklbw / punpckhbw on x86). A dimension of 16 or more
 * ends with a whole block overlapping the one before; a shorter one goes byte by byte. */
enum { OM_T_BLOCK = 16 };
typedef uint8_t om_v16u8 __attribute__((vector_size(16)));

static void om_transpose16(const uint8_t* src, size_t lds, uint8_t* dst, size_t ldd) {
  om_v16u8 r[16], n[16];
  for (int i = 0; i < 16; i++) memcpy(&r[i], src + (size_t)i * lds, 16);
  const om_v16u8 lo = {0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23};
  const om_v16u8 hi = {8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31};
  for (int round = 0; round < 4; round++) {
    for (int i = 0; i < 8; i++) {
      n[2 * i] = __builtin_shuffle(r[i], r[i + 8], lo);
      n[2 * i + 1] = __builtin_shuffle(r[i], r[i + 8], hi);
    }
    memcpy(r, n, sizeof r);
  }
  for (int i = 0; i < 16; i++) memcpy(dst + (size_t)i * ldd, &r[i], 16);
}

/* The start of the block after one at b of a dimension of n: b + 16, or, when that block would be partial and
 * n allows a whole one, n - 16 (a whole block overlapping the one before: its bytes are copied twice, the
 * same values). */
static size_t om_t_next(size_t b, size_t n) {
  const size_t next = b + OM_T_BLOCK;
  return next < n && next + OM_T_BLOCK > n && n >= OM_T_BLOCK ? n - OM_T_BLOCK : next;
}

void om_bytes_transpose(const uint8_t* src, size_t lds, size_t rows, size_t cols, uint8_t* dst, size_t ldd) {
  for (size_t rb = 0; rb < rows; rb = om_t_next(rb, rows)) {
    size_t re = rb + OM_T_BLOCK < rows ? rb + OM_T_BLOCK : rows;
    for (size_t cb = 0; cb < cols; cb = om_t_next(cb, cols)) {
      size_t ce = cb + OM_T_BLOCK < cols ? cb + OM_T_BLOCK : cols;
      if (re - rb == OM_T_BLOCK && ce - cb == OM_T_BLOCK) {
        om_transpose16(src + rb * lds + cb, lds, dst + cb * ldd + rb, ldd);
        continue;
      }
      for (size_t c = cb; c < ce; c++)
        for (size_t r = rb; r < re; r++) dst[c * ldd + r] = src[r * lds + c];
    }
  }
}

void om_bytes_to_channels_last(const uint8_t* x, size_t channels, size_t plane, size_t p0, size_t p1, uint8_t* xt) {
  om_bytes_transpose(x + p0, plane, channels, p1 - p0, xt + p0 * channels, channels);
}

/* Small copies and fills inline (the runs here are a kernel row's taps, typically 3 to a few hundred bytes,
 * where a call into libc's memcpy / memset costs more than the bytes): up to 64 bytes two overlapping moves
 * (the same bytes written twice) without a loop, longer runs in 64-byte moves, the last one ending at n. */
static inline void om_copy_run(uint8_t* restrict dst, const uint8_t* restrict src, size_t n) {
  if (n > 64) {
    size_t i = 0;
    for (; i + 64 <= n; i += 64) memcpy(dst + i, src + i, 64);
    if (i < n) memcpy(dst + n - 64, src + n - 64, 64);
  } else if (n > 32) { /* no loop below 64 bytes: the branch a run takes is the same for a convolution's rows */
    memcpy(dst, src, 32);
    memcpy(dst + n - 32, src + n - 32, 32);
  } else if (n >= 16) {
    memcpy(dst, src, 16);
    memcpy(dst + n - 16, src + n - 16, 16);
  } else if (n >= 8) {
    memcpy(dst, src, 8);
    memcpy(dst + n - 8, src + n - 8, 8);
  } else if (n >= 4) {
    memcpy(dst, src, 4);
    memcpy(dst + n - 4, src + n - 4, 4);
  } else {
    for (size_t i = 0; i < n; i++) dst[i] = src[i];
  }
}

static inline void om_fill_run(uint8_t* dst, uint8_t fill, size_t n) {
  uint8_t v[16];
  memset(v, fill, sizeof v);
  if (n >= 16) {
    size_t i = 0;
    for (; i + 16 <= n; i += 16) memcpy(dst + i, v, 16);
    if (i < n) memcpy(dst + n - 16, v, 16);
  } else if (n >= 8) {
    memcpy(dst, v, 8);
    memcpy(dst + n - 8, v, 8);
  } else {
    for (size_t i = 0; i < n; i++) dst[i] = fill;
  }
}

void om_im2row_u8(const om_conv_geom* geom, const uint8_t* xt, size_t ldx, uint8_t fill, size_t o0, size_t no,
                  uint8_t* row, size_t ldr) {
  /* a local copy: the byte stores below could alias *geom, whose fields would be reloaded after each */
  const om_conv_geom local = *geom, *g = &local;
  const size_t cg = g->channels;
  const int64_t O1 = g->out[1], O2 = g->out[2], K2 = g->kernel[2];
  const int runs = g->dilation[2] == 1 && ldx == cg; /* the last axis' taps of a kernel row adjacent in X */
  /* the output position (d, h, w) of o, stepped along instead of divided out per row */
  int64_t w = (int64_t)o0 % O2, h = (int64_t)o0 / O2 % O1, d = (int64_t)o0 / O2 / O1;
  for (size_t o = o0; o < o0 + no; o++, row += ldr) {
    if (o > o0 && ++w == O2) {
      w = 0;
      if (++h == O1) {
        h = 0;
        d++;
      }
    }
    uint8_t* dst = row;
    for (int64_t k0 = 0; k0 < g->kernel[0]; k0++) {
      const int64_t i0 = d * g->stride[0] + k0 * g->dilation[0] - g->pad[0];
      const int in0 = i0 >= 0 && i0 < g->in[0];
      for (int64_t k1 = 0; k1 < g->kernel[1]; k1++) {
        const int64_t i1 = h * g->stride[1] + k1 * g->dilation[1] - g->pad[1];
        const int in1 = in0 && i1 >= 0 && i1 < g->in[1];
        const int64_t i2s = w * g->stride[2] - g->pad[2];
        if (!in1) { /* a padding row of the kernel: all its taps the fill byte */
          om_fill_run(dst, fill, (size_t)K2 * cg);
          dst += (size_t)K2 * cg;
          continue;
        }
        if (runs) { /* the taps k2 in [ka, kb) are one run of X; before and after it padding */
          const int64_t ka = i2s < 0 ? (-i2s < K2 ? -i2s : K2) : 0;
          const int64_t kb = g->in[2] - i2s < K2 ? (g->in[2] - i2s > ka ? g->in[2] - i2s : ka) : K2;
          om_fill_run(dst, fill, (size_t)ka * cg);
          if (kb > ka)
            om_copy_run(dst + (size_t)ka * cg, xt + (size_t)((i0 * g->in[1] + i1) * g->in[2] + i2s + ka) * ldx,
                        (size_t)(kb - ka) * cg);
          om_fill_run(dst + (size_t)kb * cg, fill, (size_t)(K2 - kb) * cg);
          dst += (size_t)K2 * cg;
          continue;
        }
        for (int64_t k2 = 0; k2 < K2; k2++, dst += cg) {
          const int64_t i2 = i2s + k2 * g->dilation[2];
          if (i2 >= 0 && i2 < g->in[2])
            om_copy_run(dst, xt + (size_t)((i0 * g->in[1] + i1) * g->in[2] + i2) * ldx, cg);
          else
            om_fill_run(dst, fill, cg);
        }
      }
    }
  }
}
