/* om_bits.h - the bits of a float or double and back (memcpy: no aliasing, no conversion). */
#ifndef OM_BITS_H
#define OM_BITS_H

#include <stdint.h>
#include <string.h>

static inline uint32_t om_f32_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}
static inline float om_f32_from_bits(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}
static inline double om_f64_from_bits(uint64_t u) {
  double d;
  memcpy(&d, &u, 8);
  return d;
}

#endif
