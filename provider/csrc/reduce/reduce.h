/* reduce.h - exact kernels for the Reduce operators, Softmax, LogSoftmax and LayerNormalization.
 *
 * The order of operations is docs/exact-linalg.md's (sum16, prod16, max/min, the per-op formulas); how the
 * kernels keep it on every path is docs/reductions.md. Every result is a function of the op, the mode, the
 * element type and the shape only: never of the kernel path, of the sub-range a call computes (so the caller
 * may split the work over threads in any fixed or varying chunks), of alignment or of the other rows.
 *
 * Shapes. A reduction or a Softmax row runs along the middle axis of x viewed as [outer, n, inner]
 * (row-major, inner contiguous); a Reduce output is [outer, inner]. LayerNormalization normalises rows of n
 * contiguous elements. om_reduce_plan turns any set of reduced axes into one of two forms: [outer, n, inner]
 * (after coalescing adjacent kept and reduced dimensions) or a general walk (the reduced elements gathered in
 * row-major order of the reduced axes) for the rest.
 *
 * Types: f32 and f64 compute in their own type; f16 and bf16 convert exactly to f32, compute in f32 and
 * round once at the end (ties to even); the integer types (Reduce Sum, Mean, Prod, Max, Min, SumSquare, L1)
 * compute in the input type with wrapping sums and products. Exact mode (OM_MODE_EXACT) also turns every
 * NaN result into the canonical quiet NaN; fast mode uses the fast f32 Exp/Log kernels (their bound in
 * docs/exact-transcendentals.md) and the same order otherwise.
 *
 * Work ranges: each entry computes the output units [begin, end) of its index space (om_reduce_units,
 * om_softmax_units, rows for LayerNorm). The FP environment is the caller's concern: the node layer runs
 * every range under the IEEE default (node/parallel.c, om_parallel_ieee); these functions never change it.
 *
 * Return value: 0, or -1 when the op/type pair is not supported (nothing written).
 */
#ifndef OM_REDUCE_H
#define OM_REDUCE_H

#include <stddef.h>
#include <stdint.h>

/* The Reduce operators. */
enum {
  OM_RED_SUM,
  OM_RED_MEAN,
  OM_RED_MAX,
  OM_RED_MIN,
  OM_RED_PROD,
  OM_RED_SUMSQUARE,
  OM_RED_L1,
  OM_RED_L2,
  OM_RED_LOGSUM,
  OM_RED_LOGSUMEXP,
  OM_RED_COUNT
};

/* The OM_RED_* value of an ONNX op name ("ReduceSum", ...), -1 if none. */
int om_reduce_op_from_name(const char* name);
/* 1 when the kernels compute op on element type `type` (an OM_T_* id). */
int om_reduce_supported(int op, int type);
int om_softmax_supported(int type);
int om_layernorm_supported(int type);

/* Reduce op over the middle axis of [outer, n, inner]: y[o * inner + j] for the output units
 * u = o * inner + j in [begin, end). n = 0 gives the op's value of an empty set (docs/reductions.md). */
int om_reduce(int path, int op, int type, int mode, size_t outer, size_t n, size_t inner, size_t begin, size_t end,
              const void* x, void* y);

/* Up to OM_RED_MAX_RANK dimensions. */
#define OM_RED_MAX_RANK 16

/* A reduction over any set of axes, planned once per shape. */
typedef struct om_reduce_plan {
  int general;                 /* 0: the [outer, n, inner] form; 1: the general walk */
  size_t outer, n, inner;      /* form 0 */
  size_t rank;                 /* general walk: the coalesced dimensions, */
  size_t dims[OM_RED_MAX_RANK];
  uint8_t reduced[OM_RED_MAX_RANK]; /* which of them are reduced */
  size_t units;                /* output elements: outer * inner, or the product of the kept dimensions */
  size_t n_reduced;            /* elements reduced into each output */
} om_reduce_plan;

/* Plan the reduction of x[dims] over the axes with mask[d] != 0 (rank <= OM_RED_MAX_RANK, dims >= 0).
 * Returns 0, or -1 for a rank beyond OM_RED_MAX_RANK. The output has the kept dimensions in order. */
int om_reduce_plan_make(size_t rank, const int64_t* dims, const uint8_t* mask, om_reduce_plan* plan);
/* Run a plan on output elements [begin, end) of its plan->units. */
int om_reduce_plan_run(const om_reduce_plan* plan, int path, int op, int type, int mode, size_t begin, size_t end,
                       const void* x, void* y);

/* Softmax (log = 0) or LogSoftmax (log = 1) of the rows along the middle axis of [outer, n, inner]: the row
 * units u = o * inner + j in [begin, end) (om_softmax_units = outer * inner), y with x's layout. */
int om_softmax(int path, int type, int mode, int log, size_t outer, size_t n, size_t inner, size_t begin, size_t end,
               const void* x, void* y);

/* LayerNormalization of rows [begin, end) of x[rows, n]: scale[n] (required), bias[n] (NULL: none), all of
 * x's type; mean and inv_std (NULL: not wanted) of the stash type (f32 for f32/f16/bf16, f64 for f64), one
 * per row. epsilon is rounded to f32 (the ONNX attribute's type), then widened exactly to the stash type.
 * rms = 1: RMS normalisation (SimplifiedLayerNormalization, RMSNormalization): the mean is taken as +0 (x_i - 0
 * is x_i, bit for bit), so the variance step sums x_i * x_i; mean is then written as +0. */
int om_layernorm(int path, int type, int mode, int rms, size_t n, size_t begin, size_t end, const void* x,
                 const void* scale, const void* bias, double epsilon, void* y, void* mean, void* inv_std);
/* LayerNormalization's statistics of rows [begin, end) of x[rows, n], without the normalisation
 * (InstanceNormalization, GroupNormalization; docs/pooling-norm.md): mean[r] = sum16(x_r) / n and
 * var[r] = sum16((x_ri - mean[r])^2) / n, in the stash type (f32 for f32/f16/bf16 input, f64 for f64), written
 * at mean[r], var[r]. */
int om_moments(int path, int type, size_t n, size_t begin, size_t end, const void* x, void* mean, void* var);
/* The residual sum of SkipLayerNormalization and SkipSimplifiedLayerNormalization, f32 rows [begin, end) of
 * n elements: s[r][i] = (x[r][i] + skip[r mod skip_rows][i]) + bias[i], each add rounded (bias NULL: the
 * second add is skipped; exact mode: a NaN sum becomes the canonical quiet NaN). Returns 0, or -1 for another
 * type than f32. */
int om_skip_add(int type, int mode, size_t n, size_t begin, size_t end, const void* x, const void* skip,
                size_t skip_rows, const void* bias, void* s);

/* n f16 or bf16 values (`type`) widened exactly to f32 (to_f32 = 1), or n f32 rounded once (nearest-even) to
 * `type`: the path's vector cast kernel, then the scalar one for the tail; the same bits on every path. */
void om_red_cvt16(int path, int type, int to_f32, const void* src, void* dst, size_t n);

/* ---- per-path kernels (reduce_body.inc), f32 and f64 only; reduce.c handles the other types ------------ */
typedef struct om_red_path {
  /* y[o * ys + j] for o in [0, outer), j in [0, w): reduce rows r of x[o * xs + r * inner + j] */
  void (*reduce_f32)(int op, int exact, size_t outer, size_t n, size_t inner, size_t w, const float* x,
                     size_t xs, float* y, size_t ys);
  void (*reduce_f64)(int op, int exact, size_t outer, size_t n, size_t inner, size_t w, const double* x,
                     size_t xs, double* y, size_t ys);
  /* the same layout, y like x */
  void (*softmax_f32)(int log, int exact, size_t outer, size_t n, size_t inner, size_t w, const float* x,
                      float* y);
  void (*softmax_f64)(int log, int exact, size_t outer, size_t n, size_t inner, size_t w, const double* x,
                      double* y);
  /* rows of n contiguous elements; bias, mean, inv may be NULL */
  void (*layernorm_f32)(int exact, int rms, size_t rows, size_t n, const float* x, const float* scale,
                        const float* bias, float eps, float* y, float* mean, float* inv);
  /* Softmax's row exponential in place over p[0..n) (reduce_rexp.h) */
  void (*rexp_f32)(float* p, size_t n);
  void (*layernorm_f64)(int exact, int rms, size_t rows, size_t n, const double* x, const double* scale,
                        const double* bias, double eps, double* y, double* mean, double* inv);
  /* rows of n contiguous elements: LayerNormalization's mean and var (before + eps) per row */
  void (*moments_f32)(size_t rows, size_t n, const float* x, float* mean, float* var);
  void (*moments_f64)(size_t rows, size_t n, const double* x, double* mean, double* var);
} om_red_path;

const om_red_path* om_red_path_get(int path);

#endif
