/* om_dd_act.c - the f32 fallbacks of om_dd_act.h (Softplus, Mish, Elu/Selu/Celu): compiled once, for the base
 * target, and called by every kernel path for the lanes its first pass flags. */
#include "om_dd_act.h"

float om_fb_softplus(double x) {
  if (x > 20.0) return (float)x;
  if (x < -120.0) return 0.0f;
  return om_dd_to_f32(om_dd_softplus(x));
}

float om_fb_mish(double x) {
  if (x == 0 || x > 20.0) return (float)x; /* keeps the sign of zero */
  if (x < -120.0) return -0.0f;
  return om_dd_to_f32(om_dd_mish(x));
}

float om_fb_act(double x, const om_act_prm* pr) { return om_dd_to_f32(om_dd_expm1_act(x, pr->a, pr->d)); }
