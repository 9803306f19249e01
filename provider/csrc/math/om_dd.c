/* om_dd.c - the f32 fallbacks of om_dd.h (Exp, Log, Tanh, Sigmoid, Erf, Gelu erf, Gelu tanh): compiled once, for
 * the base target, and called by every kernel path for the lanes its first pass flags (the same bits on every
 * path: only IEEE + - * / on doubles). x is the f32 input (not NaN, not a special the kernel settles). */
#include "om_dd.h"

float om_fb_exp(double x) {
  if (x > 89.0) return (float)0x1p200;
  if (x < -105.0) return 0.0f;
  return om_dd_to_f32(om_dd_exp(om_dd_make(x, 0.0)));
}

float om_fb_log(double x) { return om_dd_to_f32(om_dd_log(x)); }

float om_fb_tanh(double x) {
  double a = x < 0 ? -x : x;
  if (a < 0x1p-12) return (float)x;
  if (a > 10.0) return x < 0 ? -1.0f : 1.0f;
  return om_dd_to_f32(om_dd_tanh(x));
}

float om_fb_sigmoid(double x) {
  if (x > 120.0) return 1.0f;
  if (x < -120.0) return 0.0f;
  return om_dd_to_f32(om_dd_sigmoid(om_dd_make(x, 0.0)));
}

float om_fb_erf(double x) {
  if (x == 0) return (float)x; /* keeps the sign of zero */
  double a = x < 0 ? -x : x;
  if (a > 4.0) return x < 0 ? -1.0f : 1.0f;
  return om_dd_to_f32(om_dd_erf(x));
}

float om_fb_gelu_erf(double x) {
  if (x == 0) return (float)x;
  if (x < -14.5) return -0.0f;
  if (x > 8.0) return (float)x; /* Phi(x) > 1 - 2^-50 */
  return om_dd_to_f32(om_dd_gelu_erf(x));
}

float om_fb_gelu_tanh(double x) {
  if (x == 0) return (float)x;
  if (x < -20.0) return -0.0f;
  if (x > 20.0) return (float)x;
  return om_dd_to_f32(om_dd_gelu_tanh(x));
}
