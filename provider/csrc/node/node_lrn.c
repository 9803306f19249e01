/* node_lrn.c - LRN (opsets 1, 13; attributes size (required, >= 1), alpha (default 1e-4), beta (0.75), bias (1.0))
 * on float16, float and double (docs/pooling-norm.md). X is [N, C, D1, ..., Dk] (rank >= 2); for each element x
 * of channel c, over the channels i = max(0, c - floor((size - 1) / 2)) .. min(C - 1, c + ceil((size - 1) / 2))
 * at the same n and spatial position, float all binary32, each operation rounded to nearest even:
 *
 *   s = +0; for i in channel order: s = s + x_i * x_i      (the product rounded, then the sum)
 *   a = alpha / (float)size                                 (once per node)
 *   d = bias + a * s                                        (the product rounded, then the sum; no FMA)
 *   p = Pow(d, beta)                                        (the exact f32 Pow: correctly rounded on every path)
 *   y = x / p                                               (a NaN y is the canonical quiet NaN)
 *
 * float16: each x widened to binary32 (exactly), the same binary32 steps, y rounded once to float16 (nearest even;
 * a NaN y is 0x7E00). double: the same steps in binary64, alpha, beta and bias (float attributes) converted
 * exactly, a = alpha / (double)size, p = om_pow_exact_f64(d, beta) (the library's double Pow). bfloat16 stays with
 * stock ONNX Runtime.
 *
 * Rows (n, c) in fixed chunks on the host's threads, tiles of up to 256 neighbouring positions side by side (each
 * its own sequential sum); one plain body per type, so every path gives the same bits.
 */
#include <stdio.h>

#include "core/om_ops.h"
#include "kernels/pow.h"
#include "math/om_bits.h"
#include "math/om_half.h"
#include "node_family.h"
#include "parallel.h"

#define OM_LRN_CHUNK_TAPS ((size_t)1 << 16)
#define OM_LRN_TILE 256

typedef struct om_lrn_node {
  int64_t size;
  float a, beta, bias;
  double a64; /* double: alpha / (double)size */
} om_lrn_node;

static int om_lrn_create(om_node* node, const om_attrs* at, char* err, size_t errlen) {
  om_lrn_node* l = node->impl;
  if (node->type != OM_T_FLOAT && node->type != OM_T_DOUBLE && node->type != OM_T_FLOAT16)
    return om_family_no_kernel(node, err, errlen);
  if (!at->has_lrn_size)
    OM_FAIL_MSG("node '%s' (op %s): attribute size is required", node->name, om_op_row(node->op)->name);
  if (at->lrn_size < 1 || at->lrn_size > ((int64_t)1 << 24))
    OM_FAIL_MSG("node '%s' (op %s): attribute size is %lld; it must be in [1, 2^24]", node->name,
                om_op_row(node->op)->name, (long long)at->lrn_size);
  l->size = at->lrn_size;
  float alpha = at->has_alpha ? at->alpha : 1e-4f;
  l->a = alpha / (float)l->size;
  l->a64 = (double)alpha / (double)l->size;
  l->beta = at->has_beta ? at->beta : 0.75f;
  l->bias = at->has_bias ? at->bias : 1.0f;
  return 0;
}

static int om_lrn_rank_ok(const om_node* node, size_t rank, char* err, size_t errlen) {
  if (rank >= 2) return 0;
  OM_FAIL_MSG("node '%s' (op %s): input 0 (X) has rank %zu; it must be [N, C, ...] (rank 2 or more)", node->name,
              om_op_row(node->op)->name, rank);
}

static int om_lrn_check_ranks(const om_node* node, size_t n_inputs, const size_t* ranks, char* err, size_t errlen) {
  (void)n_inputs;
  return ranks[0] == OM_RANK_UNKNOWN ? 0 : om_lrn_rank_ok(node, ranks[0], err, errlen);
}

static int om_lrn_shapes(const om_node* node, const om_node_io* io) {
  if (om_lrn_rank_ok(node, io->ranks[0], io->err, io->errlen) != 0) return -1;
  for (size_t d = 0; d < io->ranks[0]; d++) io->out_shapes[d] = io->shapes[0][d];
  io->out_ranks[0] = io->ranks[0];
  return 0;
}

typedef struct om_lrn_job {
  const void* x;
  void* y;
  size_t c, inner, lo, hi; /* window of channel k: [k - lo, k + hi], clipped */
  float a, beta, bias;
  double a64, beta64, bias64;
  const om_kernel_table *wide, *one; /* the path's f32 Pow (correctly rounded in exact mode) */
} om_lrn_job;

#define OM_LRN_LOAD(v) (v)
#define OM_LRN_STORE32(dst, v) (dst) = (v) != (v) ? om_f32_from_bits(0x7FC00000u) : (v)
#define OM_LRN_STORE64(dst, v) (dst) = (v) != (v) ? om_f64_from_bits(0x7FF8000000000000ull) : (v)
#define OM_LRN_STORE16(dst, v) (dst) = (v) != (v) ? (uint16_t)0x7E00u : om_f32_to_f16(v)

/* Rows [b, e) of N x C: row r is (n, k) = (r / C, r % C). T the element type, AT the arithmetic's (its Pow's
 * type PT), LOAD widens an element, STORE rounds a result back and makes a NaN the canonical one. */
#define OM_LRN_ROWS(NAME, T, AT, PT, A, BETA, BIAS, LOAD, STORE)                                                  \
  static int NAME(const void* args, size_t b, size_t e) {                                                         \
    const om_lrn_job* j = args;                                                                                   \
    AT s[OM_LRN_TILE], p[OM_LRN_TILE];                                                                            \
    for (size_t r = b; r < e; r++) {                                                                              \
      size_t n = r / j->c, k = r % j->c;                                                                          \
      size_t i0 = k >= j->lo ? k - j->lo : 0, i1 = k + j->hi < j->c - 1 ? k + j->hi : j->c - 1;                   \
      const T* plane = (const T*)j->x + n * j->c * j->inner;                                                      \
      for (size_t q0 = 0; q0 < j->inner; q0 += OM_LRN_TILE) {                                                     \
        size_t w = j->inner - q0 < OM_LRN_TILE ? j->inner - q0 : OM_LRN_TILE;                                     \
        for (size_t q = 0; q < w; q++) s[q] = 0.0f;                                                               \
        for (size_t i = i0; i <= i1; i++) {                                                                       \
          const T* xi = plane + i * j->inner + q0;                                                                \
          for (size_t q = 0; q < w; q++) {                                                                        \
            AT v = LOAD(xi[q]);                                                                                   \
            s[q] = s[q] + v * v;                                                                                  \
          }                                                                                                       \
        }                                                                                                         \
        const T* xk = plane + k * j->inner + q0;                                                                  \
        T* yk = (T*)j->y + r * j->inner + q0;                                                                     \
        for (size_t q = 0; q < w; q++) s[q] = j->BIAS + j->A * s[q];                                              \
        om_pow_run(PT, PT, 1, s, &j->BETA, p, w, 2u, j->wide, j->one);                                            \
        for (size_t q = 0; q < w; q++) {                                                                          \
          AT v = LOAD(xk[q]) / p[q];                                                                              \
          STORE(yk[q], v);                                                                                        \
        }                                                                                                         \
      }                                                                                                           \
    }                                                                                                             \
    return 0;                                                                                                     \
  }

OM_LRN_ROWS(om_lrn_rows_f32, float, float, OM_T_FLOAT, a, beta, bias, OM_LRN_LOAD, OM_LRN_STORE32)
OM_LRN_ROWS(om_lrn_rows_f64, double, double, OM_T_DOUBLE, a64, beta64, bias64, OM_LRN_LOAD, OM_LRN_STORE64)
OM_LRN_ROWS(om_lrn_rows_f16, uint16_t, float, OM_T_FLOAT, a, beta, bias, om_f16_to_f32, OM_LRN_STORE16)

static int om_lrn_run(const om_node* node, const om_node_io* io) {
  const om_lrn_node* l = node->impl;
  size_t rank = io->ranks[0];
  if (om_lrn_rank_ok(node, rank, io->err, io->errlen) != 0) return -1;
  om_lrn_job j = {io->data[0], io->outs[0], (size_t)io->shapes[0][1], 0, 0, 0, l->a, l->beta, l->bias,
                  l->a64, (double)l->beta, (double)l->bias, node->wide, node->one};
  j.inner = om_shape_count(io->shapes[0] + 2, rank - 2);
  j.lo = (size_t)((l->size - 1) / 2);
  j.hi = (size_t)(l->size - 1) - j.lo;
  size_t rows = (size_t)io->shapes[0][0] * j.c;
  if (!j.y || !rows || !j.inner) return 0;
  size_t win = (size_t)l->size < j.c ? (size_t)l->size : j.c, taps = j.inner * (win + 8);
  size_t chunk = taps >= OM_LRN_CHUNK_TAPS ? 1 : OM_LRN_CHUNK_TAPS / taps;
  om_range_fn fn = node->type == OM_T_DOUBLE ? om_lrn_rows_f64 : node->type == OM_T_FLOAT16 ? om_lrn_rows_f16
                                                                                          : om_lrn_rows_f32;
  om_parallel_ranges(io->parallel_for, io->host_ctx, rows, chunk, fn, &j);
  return 0;
}

const om_family om_family_lrn = {sizeof(om_lrn_node), om_lrn_create, om_lrn_shapes, om_lrn_run,
                                 NULL,                 NULL,          NULL,          om_lrn_check_ranks};
