/* convdirect.c - the direct f32 convolution (convdirect.h): the padded copy, the packed filters, the tap
 * offsets, and the driver that runs the path's tile kernel block by block of 256 taps, adds the block sums in
 * the GEMM's binary-counter tree and writes the tile's valid positions (+ bias, canonical NaN). Copies, the
 * tree's adds and the bias add: the chains themselves are the path's kernel. */
#include "convdirect.h"

#include <stdint.h>
#include <string.h>

/* Padded extents: every tap an output position reads, P_i = out_i + (K_i - 1)*d_i (stride 1). */
static int64_t om_convd_extent(const om_conv_geom* g, int i) {
  return g->out[i] + (g->kernel[i] - 1) * g->dilation[i];
}

static size_t om_convd_plane(const om_conv_geom* g) {
  return (size_t)(om_convd_extent(g, 0) * om_convd_extent(g, 1) * om_convd_extent(g, 2));
}

int om_convd_serves(const om_conv_geom* g) {
  return g->channels >= 2 && g->stride[0] == 1 && g->stride[1] == 1 && g->stride[2] == 1;
}

size_t om_convd_copy_elems(const om_conv_geom* g, const om_convd_kern* k) {
  return g->channels * om_convd_plane(g) + k->nr;
}

void om_convd_copy(const om_conv_geom* g, const om_convd_kern* k, const float* x, float* xp) {
  const int64_t P0 = om_convd_extent(g, 0), P1 = om_convd_extent(g, 1), P2 = om_convd_extent(g, 2);
  const size_t plane = om_convd_plane(g), in_plane = (size_t)(g->in[0] * g->in[1] * g->in[2]);
  const int64_t ja = g->pad[2], jb = g->in[2] + g->pad[2] < P2 ? g->in[2] + g->pad[2] : P2;
  memset(xp, 0, om_convd_copy_elems(g, k) * sizeof(float));
  if (jb <= ja) return;
  for (size_t c = 0; c < g->channels; c++)
    for (int64_t r0 = 0; r0 < P0; r0++) {
      const int64_t i0 = r0 - g->pad[0];
      if (i0 < 0 || i0 >= g->in[0]) continue;
      for (int64_t r1 = 0; r1 < P1; r1++) {
        const int64_t i1 = r1 - g->pad[1];
        if (i1 < 0 || i1 >= g->in[1]) continue;
        memcpy(xp + c * plane + (size_t)((r0 * P1 + r1) * P2 + ja),
               x + c * in_plane + (size_t)((i0 * g->in[1] + i1) * g->in[2]), (size_t)(jb - ja) * sizeof(float));
      }
    }
}

size_t om_convd_positions(const om_conv_geom* g) {
  return (size_t)(((g->out[0] - 1) * om_convd_extent(g, 1) + g->out[1] - 1) * om_convd_extent(g, 2) + g->out[2]);
}

size_t om_convd_weights_elems(const om_conv_geom* g, const om_convd_kern* k, size_t m) {
  return (m + k->mr - 1) / k->mr * k->mr * om_conv_rows(g);
}

void om_convd_pack_weights(const om_conv_geom* g, const om_convd_kern* k, const float* w, size_t m, float* wp) {
  const size_t T = om_conv_rows(g), mr = k->mr;
  for (size_t b = 0; b * mr < m; b++)
    for (size_t t = 0; t < T; t++)
      for (size_t r = 0; r < mr; r++) {
        size_t row = b * mr + r;
        wp[(b * T + t) * mr + r] = row < m ? w[row * T + t] : 0.0f;
      }
}

void om_convd_offsets(const om_conv_geom* g, ptrdiff_t* off) {
  const int64_t P1 = om_convd_extent(g, 1), P2 = om_convd_extent(g, 2);
  const size_t plane = om_convd_plane(g);
  size_t t = 0;
  for (size_t c = 0; c < g->channels; c++)
    for (int64_t k0 = 0; k0 < g->kernel[0]; k0++)
      for (int64_t k1 = 0; k1 < g->kernel[1]; k1++)
        for (int64_t k2 = 0; k2 < g->kernel[2]; k2++)
          off[t++] = (ptrdiff_t)(c * plane) +
                     (ptrdiff_t)((k0 * g->dilation[0] * P1 + k1 * g->dilation[1]) * P2 + k2 * g->dilation[2]);
}

/* Tile elements, at most: the widest path's MR x NR (32 x 12 on the 512 path). */
#define OM_CONVD_TILE_MAX 512

/* The tile of positions [p, p + nr) and channels [m, m + mr) (wp: their packed filters): block b's chains, then
 * the tree (docs/gemm.md): block b's sum added to the levels b's trailing one bits name, lowest first
 * (level + sum), kept at the next level; the last block to every level b's bits name. Into tile. */
static void om_convd_tile(const om_conv_geom* g, const om_convd_kern* k, const float* xp, const ptrdiff_t* off,
                          const float* wp, size_t p, float* tile, float* levels) {
  const size_t T = om_conv_rows(g), mr = k->mr, n = mr * k->nr;
  const size_t nb = (T + OM_CONVD_KB - 1) / OM_CONVD_KB;
  if (nb == 1) {
    k->block(xp + p, off, T, wp, tile);
    return;
  }
  _Alignas(64) float sum[OM_CONVD_TILE_MAX];
  for (size_t b = 0; b < nb; b++) {
    const size_t t0 = b * OM_CONVD_KB, nt = T - t0 < OM_CONVD_KB ? T - t0 : OM_CONVD_KB;
    k->block(xp + p, off + t0, nt, wp + t0 * mr, sum);
    size_t lv = 0;
    for (size_t bits = b; b + 1 == nb ? bits != 0 : (bits & 1) != 0; bits >>= 1, lv++) {
      if (!(bits & 1)) continue; /* the last block: only the levels its bits name */
      const float* l = levels + lv * n;
      for (size_t i = 0; i < n; i++) sum[i] = l[i] + sum[i];
    }
    if (b + 1 < nb)
      memcpy(levels + lv * n, sum, n * sizeof(float));
    else
      memcpy(tile, sum, n * sizeof(float));
  }
}

size_t om_convd_levels_elems(const om_conv_geom* g, const om_convd_kern* k) {
  size_t nb = (om_conv_rows(g) + OM_CONVD_KB - 1) / OM_CONVD_KB, lv = 0;
  for (size_t x = nb > 0 ? nb - 1 : 0; x; x >>= 1) lv++;
  return lv * k->mr * k->nr;
}

void om_convd_run(const om_conv_geom* g, const om_convd_kern* k, const float* xp, const ptrdiff_t* off,
                  const float* wp, const float* b, size_t m0, size_t nm, size_t p0, size_t p1, int exact, float* y,
                  float* levels) {
  const size_t T = om_conv_rows(g), mr = k->mr, nr = k->nr;
  const size_t P1 = (size_t)om_convd_extent(g, 1), P2 = (size_t)om_convd_extent(g, 2);
  const size_t out1 = (size_t)g->out[1], out2 = (size_t)g->out[2], O = om_conv_positions(g);
  _Alignas(64) float tile[OM_CONVD_TILE_MAX];
  for (size_t p = p0; p < p1; p += nr) {
    const size_t np = p1 - p < nr ? p1 - p : nr;
    for (size_t m = m0; m < m0 + nm; m += mr) {
      const size_t rows = m0 + nm - m < mr ? m0 + nm - m : mr;
      om_convd_tile(g, k, xp, off, wp + m / mr * T * mr, p, tile, levels);
      for (size_t r = 0; r < rows; r++) {
        const float bm = b ? b[m + r] : 0.0f;
        float* ym = y + (m + r) * O;
        const float* tr = tile + r;
        size_t q = p / P2, o2 = p % P2, o1 = q % P1, o0 = q / P1;
        for (size_t j = 0; j < np; j++) {
          if (o2 < out2 && o1 < out1) {
            float v = b ? tr[j * mr] + bm : tr[j * mr];
            if (exact && v != v) v = __builtin_nanf("");
            ym[(o0 * out1 + o1) * out2 + o2] = v;
          }
          if (++o2 == P2 && (o2 = 0, ++o1 == P1)) o1 = 0, o0++;
        }
      }
    }
  }
}
