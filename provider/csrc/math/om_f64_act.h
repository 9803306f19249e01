/* om_f64_act.h - correctly rounded binary64 Sigmoid and Tanh (round to nearest, ties to even), the same bits on
 * every kernel path and machine: only IEEE + - * / on doubles and integer arithmetic, no libm, no FMA.
 *
 * NaN gives the canonical quiet NaN 0x7FF8000000000000 (as the f32 kernels give 0x7FC00000).
 * om_f64_sigmoid: sigma(+-0) = 1/2, sigma(+inf) = 1, sigma(-inf) = +0; results down to the subnormal grid.
 * om_f64_tanh: tanh(+-0) = +-0, tanh(+-inf) = +-1.
 * Algorithms and error arguments: sigmoid_f64.c, tanh_f64.c (a fast first pass, om_f64_fast.h, then a double-double
 * pass, each with a rounding test) and om_mp.c (the multi-precision Ziv fallback); docs/exact-transcendentals.md,
 * "binary64 Sigmoid and Tanh". */
#ifndef OM_F64_ACT_H
#define OM_F64_ACT_H

double om_f64_sigmoid(double x); /* correctly rounded 1/(1+e^-x), round to nearest even */
double om_f64_tanh(double x);    /* correctly rounded tanh(x) */

#ifdef OM_F64_ACT_STATS /* tools/bench/f64_act_bench.c only: defined by the tool, called when fn (0 sigmoid, 1 tanh)
                         * goes past its fast pass (stage 1) and on to the multi-precision fallback (stage 2) */
void om_f64_act_on_stage(int fn, int stage);
#define OM_F64_ACT_NOTE(fn, stage) om_f64_act_on_stage(fn, stage)
#else
#define OM_F64_ACT_NOTE(fn, stage) ((void)0)
#endif

#endif
