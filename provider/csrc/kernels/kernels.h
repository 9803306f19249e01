/* kernels.h - element-wise kernel functions and the per-path kernel tables.
 *
 * A kernel knows nothing of ORT or of shapes: it maps n contiguous elements (or one broadcast scalar per
 * operand, bit k of `bcast` set when operand k is a single element) to n outputs. The vector paths process
 * only whole vectors and return how many elements they did; the scalar path (one lane) does all n, and is
 * what finishes every tail, so an element's result never depends on its position.
 */
#ifndef OM_KERNELS_H
#define OM_KERNELS_H

#include <stddef.h>

#include "isa/isa.h" /* the paths: om_path_table(path) gives a path's table */
#include "core/om_types.h"

enum {
  OM_FL_EXACT = 1u,   /* kernel flag: exact mode (canonical NaN) */
  OM_FL_INF_POS = 2u, /* IsInf: +inf gives true (detect_positive) */
  OM_FL_INF_NEG = 4u  /* IsInf: -inf gives true (detect_negative) */
};

typedef size_t (*om_bin_fn)(const void* a, const void* b, void* out, size_t n, unsigned bcast, unsigned flags);
typedef size_t (*om_un_fn)(const void* a, void* out, size_t n, unsigned flags);
/* Pow, f32 base and f32 exponent, contiguous operands (pow.inc). */
typedef size_t (*om_pow_f32_fn)(const float* x, const float* y, float* out, size_t n, unsigned flags);
typedef size_t (*om_ter_fn)(const void* a, const void* b, const void* c, void* out, size_t n, unsigned bcast,
                            unsigned flags);

/* Binary kernels. */
enum {
  OM_K_ADD,
  OM_K_SUB,
  OM_K_MUL,
  OM_K_DIV,
  OM_K_MODFLOOR,
  OM_K_MODTRUNC,
  OM_K_MAX,
  OM_K_MIN,
  OM_K_AND, /* bool */
  OM_K_OR,
  OM_K_XOR,
  OM_K_LEAKYRELU, /* x < 0 ? b * x : x; b: LeakyRelu's alpha (broadcast) or PRelu's slope */
  OM_K_THRESHOLDED_RELU, /* x > b ? x : 0; b: alpha, broadcast */
  OM_K_LEAKYRELU_A32,    /* f16 LeakyRelu: b is the f32 alpha (broadcast), the product rounded once to f16 */
  /* correctly rounded in both modes (elu_f32.inc, tr16.c); b: the f32 alpha (Selu: then gamma), broadcast */
  OM_K_ELU,
  OM_K_SELU,
  OM_K_CELU,
  OM_K_BIN_COUNT
};
/* Comparisons: binary kernels whose output is bool (one byte, 0 or 1). */
enum { OM_K_EQ, OM_K_LT, OM_K_GT, OM_K_LE, OM_K_GE, OM_K_CMP_COUNT };
/* Ternary kernels, indexed by the element type of operand b. */
enum {
  OM_K_WHERE,       /* a: bool condition; b, c: values */
  OM_K_CLIP,        /* a: x; b, c: lower and upper bound, broadcast */
  OM_K_HARDSIGMOID, /* a: x; b, c: alpha and beta, broadcast */
  OM_K_TER_COUNT
};
/* Unary kernels. */
enum {
  OM_K_NEG,
  OM_K_ABS,
  OM_K_SIGN,
  OM_K_COPY,
  OM_K_NOT, /* bool */
  OM_K_RECIPROCAL,
  OM_K_SQRT,
  OM_K_FLOOR,
  OM_K_CEIL,
  OM_K_ROUND,
  OM_K_HARDSWISH,
  OM_K_RELU,
  OM_K_SOFTSIGN,
  OM_K_ISNAN, /* output bool (one byte, 0 or 1) */
  OM_K_ISINF, /* output bool; flags OM_FL_INF_POS / OM_FL_INF_NEG say which infinities count */
  /* f32 transcendentals (transcendental.inc): correctly rounded in exact mode */
  OM_K_EXP,
  OM_K_LOG,
  OM_K_TANH,
  OM_K_SIGMOID,
  OM_K_ERF,
  OM_K_GELU_ERF,  /* Gelu, approximate="none" */
  OM_K_GELU_TANH, /* Gelu, approximate="tanh" */
  OM_K_SIN,       /* sincos_f32.inc: correctly rounded in both modes */
  OM_K_COS,
  OM_K_SOFTPLUS,  /* correctly rounded in both modes */
  OM_K_MISH,
  OM_K_UN_COUNT
};

typedef struct om_kernel_table {
  om_bin_fn bin[OM_K_BIN_COUNT][OM_T_SLOTS];
  om_un_fn un[OM_K_UN_COUNT][OM_T_SLOTS];
  om_bin_fn cmp[OM_K_CMP_COUNT][OM_T_SLOTS];
  om_ter_fn ter[OM_K_TER_COUNT][OM_T_SLOTS];
  om_un_fn cast[OM_T_SLOTS][OM_T_SLOTS]; /* [from][to]: vector Cast for common pairs; cast.c does the rest */
  om_pow_f32_fn pow_f32;                  /* Pow with f32 base and exponent (pow.inc) */
} om_kernel_table;

#endif
