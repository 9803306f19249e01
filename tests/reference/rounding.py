"""Round-half-even of an exact rational to a binary floating-point format, by integer arithmetic only (no
floating point, no MPFR): the hand rounding the cast and Pow references check themselves against."""

from __future__ import annotations

from fractions import Fraction


def floor_log2(v: Fraction) -> int:
    """floor(log2(v)) for v > 0."""
    num, den = v.numerator, v.denominator
    e = num.bit_length() - den.bit_length()
    if (num << max(0, -e)) < (den << max(0, e)):
        e -= 1
    return e


def round_magnitude(v: Fraction, ebits: int, mbits: int) -> int:
    """Bits of |v| rounded to nearest even in the format with ebits exponent and mbits fraction bits
    (subnormals, overflow to infinity)."""
    v = abs(v)
    if v == 0:
        return 0
    bias = (1 << (ebits - 1)) - 1
    emin = 1 - bias
    e = max(floor_log2(v), emin)
    shift = mbits - e
    num, den = v.numerator, v.denominator
    if shift >= 0:
        num <<= shift
    else:
        den <<= -shift
    q, r = divmod(num, den)
    if 2 * r > den or (2 * r == den and q & 1):
        q += 1
    bits = ((e - emin) << mbits) + q  # q == 2^(m+1) carries into the exponent field by itself
    inf = ((1 << ebits) - 1) << mbits
    return min(bits, inf)
