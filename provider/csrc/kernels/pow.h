/* pow.h - Pow for the spec's base and exponent types (see pow.c). */
#ifndef OM_POW_H
#define OM_POW_H

#include <stddef.h>

/* Reproducible double pow: IEEE operations only (no libm, no FMA); within 1 ulp (see pow.c). */
double om_pow_exact_f64(double x, double y);
/* f32 pow, correctly rounded (exact cases exactly, the rest from a ~2^-96 double-double value; see pow.c). */
float om_pow_exact_f32(float x, float y);

struct om_kernel_table;
/* out[i] = Pow(base[i or 0], exp[i or 0]); bit 0 / 1 of bcast marks a broadcast base / exponent. An f32 base
 * runs the kernel path's pow_f32 (wide), the scalar path's (one) finishing each block's tail. */
void om_pow_run(int base_type, int exp_type, int exact, const void* base, const void* exponent, void* out, size_t n,
                unsigned bcast, const struct om_kernel_table* wide, const struct om_kernel_table* one);

#endif
