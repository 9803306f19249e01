/* batchnorm.h - BatchNormalization (inference) over whole [N, C, spatial] planes, in the order of
 * docs/pooling-norm.md. Needs only core/. Knows nothing of nodes or ORT. */
#ifndef OM_POOL_BATCHNORM_H
#define OM_POOL_BATCHNORM_H

#include <stddef.h>

/* Whether element type t (OM_T_*) has a kernel: f16, f32, f64. */
int om_batchnorm_supported(int t);

/* Planes [p_begin, p_end) of x ([planes, plane_size], plane p in channel p mod channels) into y:
 * s = scale[c] / sqrt(var[c] + eps), then y_i = ((x_i - mean[c]) * s) + bias[c], every step one rounding in the
 * accumulation type (f32 for f16 and f32, f64 for f64; eps widened exactly), a NaN result the canonical NaN.
 * scale, bias, mean, var: `channels` elements of x's type. path: the kernel path (OM_PATH_*) whose copy of the
 * per-element step runs (each gives the same bits). */
void om_batchnorm_planes(int path, int t, const void* x, void* y, size_t plane_size, size_t channels, size_t p_begin,
                         size_t p_end, const void* scale, const void* bias, const void* mean, const void* var,
                         float eps);

/* One plane of n elements of type t (f16, f32, f64) with the statistics in the accumulation type A (f32 values
 * for f16 and f32, passed exactly as doubles): s = scale / sqrt(var + eps) (om_batchnorm_factor), then
 * y_i = ((x_i - mean) * s) + bias, the steps of om_batchnorm_planes. InstanceNormalization and
 * GroupNormalization (node_groupnorm.c) apply them with their own statistics. path: the kernel path (OM_PATH_*)
 * whose copy of the step runs (each gives the same bits). */
/* Element i of an array of type t (f16, f32, f64), converted exactly to a double. */
double om_batchnorm_value(int t, const void* a, size_t i);
double om_batchnorm_factor(int t, double scale, double var, float eps);
void om_batchnorm_plane(int path, int t, const void* x, void* y, size_t n, double mean, double s, double bias);

#endif
