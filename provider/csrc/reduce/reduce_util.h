/* reduce_util.h - scalar helpers shared by the reduction kernels of every path (defined in reduce_math.c). */
#ifndef OM_REDUCE_UTIL_H
#define OM_REDUCE_UTIL_H

/* e^x and log x for f64: double-double evaluations (om_dd_exp of math/om_dd.h, relative error below 2^-94; log:
 * om_dd_log_any of math/om_dd.h) rounded to double. Deterministic on every path (only IEEE + - * / on doubles), within
 * 1 ulp, not claimed correctly rounded. Specials: exp(NaN) = NaN, exp(+inf) = +inf, exp(-inf) = +0; log(x < 0) = NaN,
 * log(+-0) = -inf, log(+inf) = +inf; subnormal inputs of log are scaled by 2^64 first. */
double om_red_exp_d(double x);
double om_red_log_d(double x);
/* log x for f32, correctly rounded: the Log kernel's result on every path (reduce_math.c). */
float om_red_logf(float x);

/* IEEE square root (correctly rounded on every target; -fno-math-errno makes it one instruction). */
#define OM_RSQRT(v) _Generic((v), float: __builtin_sqrtf, double: __builtin_sqrt)(v)

#endif
