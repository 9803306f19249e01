/* cast.h - Cast between any two stored element types (the spec's conversion table). */
#ifndef OM_CAST_H
#define OM_CAST_H

#include <stddef.h>
#include <stdint.h>

/* 1 when both types are stored types (OM_TS_STORED). */
int om_cast_supported(int from, int to);
/* Convert n elements. Floats go through double, integers and bool through a 64-bit integer, 256 at a time. */
void om_cast(const void* in, int from, void* out, int to, size_t n);

/* Round a double once to a binary16-like format (mbits mantissa bits, ebits exponent bits): nearest even,
 * overflow to infinity, NaN to the canonical quiet NaN. Used for float16 and bfloat16. */
uint16_t om_double_to_small(double d, int mbits, int ebits);

#endif
