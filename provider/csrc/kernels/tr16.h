/* tr16.h - f16 and bf16 Exp, Log, Tanh, Sigmoid, Erf, Gelu (none/tanh), Sin, Cos, Softplus, Mish, Elu, Selu:
 * correctly rounded by table lookup (Elu and Selu with other than the default parameters: evaluated directly).
 *
 * Each (function, type) has a 65,536-entry table of results, built at first use from the function's
 * double-double evaluation (math/om_dd.h) rounded once to the 16-bit format (never through f32). The kernels
 * are the same table lookup on every path, in exact and fast mode alike. See docs/exact-transcendentals.md.
 */
#ifndef OM_TR16_H
#define OM_TR16_H

#include <stddef.h>
#include <stdint.h>

enum { OM_TR16_EXP, OM_TR16_LOG, OM_TR16_TANH, OM_TR16_SIGMOID, OM_TR16_ERF, OM_TR16_GELU_ERF, OM_TR16_GELU_TANH,
       OM_TR16_SIN, OM_TR16_COS, OM_TR16_SOFTPLUS, OM_TR16_MISH,
       OM_TR16_ELU, OM_TR16_SELU, /* with the default parameters */
       OM_TR16_COUNT };
enum { OM_TR16_F16, OM_TR16_BF16 };

/* The correctly rounded result of function fn (OM_TR16_*) at the 16-bit input bits (format OM_TR16_F16 or
 * OM_TR16_BF16), computed directly (no table); NaN results are canonical (f16 0x7E00, bf16 0x7FC0). */
uint16_t om_tr16_eval(int fn, int fmt, uint16_t bits);

#define OM_TR16_DECL(name)                                                        \
  size_t om_tr16_##name##_f16(const void* a, void* out, size_t n, unsigned flags); \
  size_t om_tr16_##name##_bf16(const void* a, void* out, size_t n, unsigned flags);
OM_TR16_DECL(exp)
OM_TR16_DECL(log)
OM_TR16_DECL(tanh)
OM_TR16_DECL(sigmoid)
OM_TR16_DECL(erf)
OM_TR16_DECL(gelu_erf)
OM_TR16_DECL(gelu_tanh)
OM_TR16_DECL(sin)
OM_TR16_DECL(cos)
OM_TR16_DECL(softplus)
OM_TR16_DECL(mish)
#undef OM_TR16_DECL
/* Elu and Selu: binary kernels, operand b the f32 alpha (then gamma), broadcast (node/elementwise.c's param_operand). */
#define OM_TR16_DECL_P(name)                                                                                   \
  size_t om_tr16_##name##_f16(const void* a, const void* b, void* out, size_t n, unsigned bc, unsigned flags); \
  size_t om_tr16_##name##_bf16(const void* a, const void* b, void* out, size_t n, unsigned bc, unsigned flags);
OM_TR16_DECL_P(elu)
OM_TR16_DECL_P(selu)
#undef OM_TR16_DECL_P

/* Designated initializers for a path's om_kernel_table (used in kernels/transcendental.inc): the same
 * functions on every path. */
#define OM_REG_TR16_ONE(K, name)                     \
  .un[K][OM_T_FLOAT16] = om_tr16_##name##_f16,       \
  .un[K][OM_T_BFLOAT16] = om_tr16_##name##_bf16,
#define OM_REG_TR16                                  \
  OM_REG_TR16_ONE(OM_K_EXP, exp)                     \
  OM_REG_TR16_ONE(OM_K_LOG, log)                     \
  OM_REG_TR16_ONE(OM_K_TANH, tanh)                   \
  OM_REG_TR16_ONE(OM_K_SIGMOID, sigmoid)             \
  OM_REG_TR16_ONE(OM_K_ERF, erf)                     \
  OM_REG_TR16_ONE(OM_K_GELU_ERF, gelu_erf)           \
  OM_REG_TR16_ONE(OM_K_GELU_TANH, gelu_tanh)         \
  OM_REG_TR16_ONE(OM_K_SIN, sin)                     \
  OM_REG_TR16_ONE(OM_K_COS, cos)                     \
  OM_REG_TR16_ONE(OM_K_SOFTPLUS, softplus)           \
  OM_REG_TR16_ONE(OM_K_MISH, mish)                   \
  .bin[OM_K_ELU][OM_T_FLOAT16] = om_tr16_elu_f16,    \
  .bin[OM_K_ELU][OM_T_BFLOAT16] = om_tr16_elu_bf16,  \
  .bin[OM_K_SELU][OM_T_FLOAT16] = om_tr16_selu_f16,  \
  .bin[OM_K_SELU][OM_T_BFLOAT16] = om_tr16_selu_bf16,

#endif
