/* convdirect.c - the direct f32 convolution (convdirect.h): the padded copy, the packed filters, the tap
 * offsets, and the driver that runs the path's tile kernel block by block of 256 taps, adds the block sums in
 * the GEMM's binary-counter tree and writes the tile's valid positions (+ bias, canonical NaN). Copies, the
 * tree's adds and the bias add: the chains themselves are the path's kernel. */
#include "convdirect.h"

#include <stdint.h>
#include <string.h>

/* The padded extent P_i = (out_i - 1)*s_i + (K_i - 1)*d_i + 1 (every tap an output reads) stored as s_i phases
 * of Q_i = ceil(P_i / s_i) elements: padded index j at phase j mod s_i, index j div s_i. */
static int64_t om_convd_padded(const om_conv_geom* g, int i) {
  return (g->out[i] - 1) * g->stride[i] + (g->kernel[i] - 1) * g->dilation[i] + 1;
}
static int64_t om_convd_extent(const om_conv_geom* g, int i) {
  return (om_convd_padded(g, i) + g->stride[i] - 1) / g->stride[i];
}

/* Elements of one phase plane (Q0*Q1*Q2) and of one channel (all s0*s1*s2 phase planes). */
static size_t om_convd_phase(const om_conv_geom* g) {
  return (size_t)(om_convd_extent(g, 0) * om_convd_extent(g, 1) * om_convd_extent(g, 2));
}
static size_t om_convd_plane(const om_conv_geom* g) {
  return (size_t)(g->stride[0] * g->stride[1] * g->stride[2]) * om_convd_phase(g);
}

/* Where padded index (j0, j1, j2) of a channel lives in its copy. */
static size_t om_convd_at(const om_conv_geom* g, int64_t j0, int64_t j1, int64_t j2) {
  const int64_t s0 = g->stride[0], s1 = g->stride[1], s2 = g->stride[2];
  const int64_t Q1 = om_convd_extent(g, 1), Q2 = om_convd_extent(g, 2);
  const size_t ph = (size_t)(((j0 % s0) * s1 + j1 % s1) * s2 + j2 % s2);
  return ph * om_convd_phase(g) + (size_t)(((j0 / s0) * Q1 + j1 / s1) * Q2 + j2 / s2);
}

int om_convd_serves(const om_conv_geom* g) { return g->channels >= 2; }

size_t om_convd_copy_elems(const om_conv_geom* g, const om_convd_kern* k) {
  return g->channels * om_convd_plane(g) + k->nr;
}

/* 1 when some tap reads phase ph of axis i: (k*d_i) mod s_i == ph for some k < K_i. The copy skips the others. */
static int om_convd_phase_read(const om_conv_geom* g, int i, int64_t ph) {
  for (int64_t k = 0; k < g->kernel[i] && k < g->stride[i]; k++)
    if (k * g->dilation[i] % g->stride[i] == ph) return 1;
  return 0;
}

/* Padded index j of axis i (stride s) as (phase, index): no division for stride 1. */
static void om_convd_split(int64_t j, int64_t s, int64_t* ph, int64_t* q) {
  if (s == 1) {
    *ph = 0, *q = j;
  } else {
    *ph = j % s, *q = j / s;
  }
}

void om_convd_copy(const om_conv_geom* g, const om_convd_kern* k, const float* x, float* xp) {
  const int64_t P0 = om_convd_padded(g, 0), P1 = om_convd_padded(g, 1), P2 = om_convd_padded(g, 2);
  const int64_t s0 = g->stride[0], s1 = g->stride[1], s2 = g->stride[2];
  const int64_t Q1 = om_convd_extent(g, 1), Q2 = om_convd_extent(g, 2);
  const size_t plane = om_convd_plane(g), phase = om_convd_phase(g);
  const size_t in_plane = (size_t)(g->in[0] * g->in[1] * g->in[2]);
  const int64_t ja = g->pad[2], jb = g->in[2] + g->pad[2] < P2 ? g->in[2] + g->pad[2] : P2;
  memset(xp, 0, om_convd_copy_elems(g, k) * sizeof(float));
  if (jb <= ja) return;
  /* the last axis's phases: where padded column ja + e of phase ph starts, and its first column */
  int64_t first[8], n_ph = s2 < 8 ? s2 : 8;
  for (int64_t ph = 0; ph < n_ph; ph++) first[ph] = om_convd_phase_read(g, 2, ph) ? ja + ((ph - ja) % s2 + s2) % s2 : jb;
  for (int64_t r0 = 0; r0 < P0; r0++) {
    const int64_t i0 = r0 - g->pad[0];
    int64_t ph0, q0;
    om_convd_split(r0, s0, &ph0, &q0);
    if (i0 < 0 || i0 >= g->in[0] || !om_convd_phase_read(g, 0, ph0)) continue;
    for (int64_t r1 = 0; r1 < P1; r1++) {
      const int64_t i1 = r1 - g->pad[1];
      int64_t ph1, q1;
      om_convd_split(r1, s1, &ph1, &q1);
      if (i1 < 0 || i1 >= g->in[1] || !om_convd_phase_read(g, 1, ph1)) continue;
      /* this row's place in phase (ph0, ph1, 0), column index 0 */
      const size_t base = (size_t)((ph0 * s1 + ph1) * s2) * phase + (size_t)((q0 * Q1 + q1) * Q2);
      const size_t src0 = (size_t)((i0 * g->in[1] + i1) * g->in[2]); /* padded column ja */
      for (size_t c = 0; c < g->channels; c++) {
        const float* row = x + c * in_plane + src0;
        float* dst = xp + c * plane + base;
        if (s2 == 1) {
          memcpy(dst + ja, row, (size_t)(jb - ja) * sizeof(float));
          continue;
        }
        for (int64_t ph = 0; ph < s2; ph++) { /* padded columns j = q*s2 + ph from the first >= ja */
          int64_t j = ph < 8 ? first[ph] : (om_convd_phase_read(g, 2, ph) ? ja + ((ph - ja) % s2 + s2) % s2 : jb);
          float* d = dst + (size_t)ph * phase + (size_t)(j / s2);
          for (; j < jb; j += s2) *d++ = row[j - ja];
        }
      }
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
  const size_t plane = om_convd_plane(g);
  const ptrdiff_t KK = (ptrdiff_t)(g->kernel[0] * g->kernel[1] * g->kernel[2]);
  size_t t = 0;
  for (int64_t k0 = 0; k0 < g->kernel[0]; k0++)
    for (int64_t k1 = 0; k1 < g->kernel[1]; k1++)
      for (int64_t k2 = 0; k2 < g->kernel[2]; k2++)
        off[t++] = (ptrdiff_t)om_convd_at(g, k0 * g->dilation[0], k1 * g->dilation[1], k2 * g->dilation[2]);
  for (size_t c = 1; c < g->channels; c++) /* channel c: channel 0's taps one plane per channel on */
    for (ptrdiff_t i = 0; i < KK; i++) off[(ptrdiff_t)c * KK + i] = off[i] + (ptrdiff_t)(c * plane);
}

/* Tile elements, at most: the widest path's MR x NR (32 x 12 on the 512 path); positions per tile, at most. */
#define OM_CONVD_TILE_MAX 512
#define OM_CONVD_NR_MAX 16

/* The tile of positions [p, p + nr) and channels [m, m + mr) (wp: their packed filters; block: the kernel of
 * nr positions, the full or the short tile): block b's chains, then the tree (docs/gemm.md): block b's sum added
 * to the levels b's trailing one bits name, lowest first (level + sum), kept at the next level; the last block
 * to every level b's bits name. Into tile. */
static void om_convd_tile(const om_conv_geom* g, size_t mr, size_t nr, om_convd_block_fn block, const float* xp,
                          const ptrdiff_t* off, const float* wp, size_t p, float* tile, float* levels) {
  const size_t T = om_conv_rows(g), n = mr * nr;
  const size_t nb = (T + OM_CONVD_KB - 1) / OM_CONVD_KB;
  if (nb == 1) {
    block(xp + p, off, T, wp, tile);
    return;
  }
  _Alignas(64) float sum[OM_CONVD_TILE_MAX];
  for (size_t b = 0; b < nb; b++) {
    const size_t t0 = b * OM_CONVD_KB, nt = T - t0 < OM_CONVD_KB ? T - t0 : OM_CONVD_KB;
    block(xp + p, off + t0, nt, wp + t0 * mr, sum);
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
  const size_t Q1 = (size_t)om_convd_extent(g, 1), Q2 = (size_t)om_convd_extent(g, 2);
  const size_t out1 = (size_t)g->out[1], out2 = (size_t)g->out[2], O = om_conv_positions(g);
  _Alignas(64) float tile[OM_CONVD_TILE_MAX];
  size_t js[OM_CONVD_NR_MAX], at[OM_CONVD_NR_MAX]; /* the tile's valid positions: tile index, place in a plane */
  for (size_t p = p0; p < p1; p += nr) {
    const size_t np = p1 - p < nr ? p1 - p : nr;
    /* the last nr_short or fewer positions: the short tile (the same chains; half the idle positions) */
    const int shrt = np <= k->nr_short;
    size_t nv = 0, q = p / Q2, o2 = p % Q2, o1 = q % Q1, o0 = q / Q1;
    for (size_t j = 0; j < np; j++) {
      if (o2 < out2 && o1 < out1) js[nv] = j, at[nv++] = (o0 * out1 + o1) * out2 + o2;
      if (++o2 == Q2 && (o2 = 0, ++o1 == Q1)) o1 = 0, o0++;
    }
    if (nv == 0) continue; /* every position an extent's extra column: nothing to write */
    for (size_t m = m0; m < m0 + nm; m += mr) {
      const size_t rows = m0 + nm - m < mr ? m0 + nm - m : mr;
      om_convd_tile(g, mr, shrt ? k->nr_short : nr, shrt ? k->short_ : k->block, xp, off, wp + m / mr * T * mr, p,
                    tile, levels);
      /* each valid position's channels: + b[m] (one rounded add), the canonical NaN; in the tile, then out */
      for (size_t i = 0; i < nv && (b || exact); i++) {
        float* tj = tile + js[i] * mr;
        for (size_t r = 0; r < rows; r++) {
          float v = b ? tj[r] + b[m + r] : tj[r];
          tj[r] = exact && v != v ? __builtin_nanf("") : v;
        }
      }
      for (size_t r = 0; r < rows; r++) { /* the transposing store: channel r's positions */
        float* ym = y + (m + r) * O;
        for (size_t i = 0; i < nv; i++) ym[at[i]] = tile[js[i] * mr + r];
      }
    }
  }
}
