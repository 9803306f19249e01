/* om_dd_trig.c - the f32 fallbacks of Sin and Cos (om_dd_trig.h): compiled once, for the base target, and called
 * by every kernel path for the lanes its first pass flags. */
#include "om_dd.h"
#include "om_dd_trig.h"

float om_fb_sin(double x) { return om_dd_to_f32(om_dd_sincos(x, 0)); }
float om_fb_cos(double x) { return om_dd_to_f32(om_dd_sincos(x, 1)); }
