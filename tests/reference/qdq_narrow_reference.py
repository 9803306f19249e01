"""A reference for QuantizeLinear and DequantizeLinear of int4, uint4 and the float8 types, written from
docs/quantized.md ("4-bit types", "float8").

int4 / uint4: QuantizeLinear's integer steps (qdq_reference.quantize) with the ranges [-8, 7] / [0, 15], then
two values a byte, the first in the low four bits, an odd count's last high half 0. float8: q = x / s in
binary32, then the exact value of q rounded to nearest even at the float8 format's spacing (its normals',
or its subnormals' below the least normal), with ONNX's saturate rules; DequantizeLinear widens exactly
and multiplies once. Integer arithmetic on the float's bits only (no ml_dtypes).
"""

from __future__ import annotations

import numpy as np
from onnx import TensorProto

from tests.reference import qdq_reference as R

INT4_RANGES = {TensorProto.INT4: (-8, 7), TensorProto.UINT4: (0, 15)}
# mantissa bits, bias, greatest finite code, uz (no -0, NaN 0x80), has infinities (0x7c)
F8 = {
    TensorProto.FLOAT8E4M3FN: (3, 7, 0x7E, False, False),
    TensorProto.FLOAT8E4M3FNUZ: (3, 8, 0x7F, True, False),
    TensorProto.FLOAT8E5M2: (2, 15, 0x7B, False, True),
    TensorProto.FLOAT8E5M2FNUZ: (2, 16, 0x7F, True, False),
}


def pack4(v: np.ndarray) -> np.ndarray:
    """Values (one an element, any integer dtype) packed two a byte, the first in the low four bits."""
    flat = (np.asarray(v).reshape(-1).astype(np.int64) & 0xF).astype(np.uint8)
    if flat.size % 2:
        flat = np.append(flat, np.uint8(0))
    return (flat[0::2] | (flat[1::2] << 4)).astype(np.uint8)


def unpack4(p: np.ndarray, n: int, signed: bool) -> np.ndarray:
    """n elements of packed bytes p, int64."""
    b = np.asarray(p, np.uint8).reshape(-1).astype(np.int64)
    v = np.stack([b & 0xF, b >> 4], axis=1).reshape(-1)[:n]
    return np.where(v >= 8, v - 16, v) if signed else v


def quantize4(
    x: np.ndarray, s: np.ndarray, z: np.ndarray | None, t: int, axis: int = 1, block: int = 0
) -> np.ndarray:
    """The int4 / uint4 values (int64, one an element, x's shape); z: the zero point's values (int64)."""
    qmin, qmax = INT4_RANGES[t]
    se = R.per_element(np.asarray(s, np.float32), x.shape, axis, block)
    ze = (
        np.zeros(x.shape, np.int64)
        if z is None
        else R.per_element(np.asarray(z, np.int64), x.shape, axis, block)
    )
    with np.errstate(all="ignore"):
        q = np.asarray(x, np.float32) / se
        lo, hi = (qmin - ze).astype(np.float32), (qmax - ze).astype(np.float32)
        c = np.where(q >= lo, q, lo)
        c = np.where(c <= hi, c, hi)
        return np.rint(c).astype(np.int64) + ze


def dequantize4(
    v: np.ndarray, s: np.ndarray, z: np.ndarray | None, axis: int = 1, block: int = 0
) -> np.ndarray:
    """DequantizeLinear of the 4-bit values v (int64, x's shape): the integer steps."""
    return R.dequantize(
        np.asarray(v, np.int64), s, None if z is None else np.asarray(z, np.int64), axis, block
    )


def to_f8(q: np.ndarray, t: int, saturate: bool) -> np.ndarray:
    """binary32 q -> float8 codes (uint8) of type t."""
    m, bias, max_code, uz, has_inf = F8[t]
    u = np.asarray(q, np.float32).view(np.uint32).astype(np.int64)
    sign = (u >> 24) & 0x80
    a = u & 0x7FFFFFFF
    e = (a >> 23) - 127
    sig = (a & 0x7FFFFF) | 0x800000
    emin = 1 - bias
    shift = 23 - m + np.where(e < emin, emin - e, 0)
    sh = np.minimum(shift, 40)
    qv = sig >> sh
    rem = sig & ((np.int64(1) << sh) - 1)
    half = np.int64(1) << (sh - 1)
    qv = qv + ((rem > half) | ((rem == half) & ((qv & 1) == 1)))
    code = np.where(e >= emin, ((e - emin) << m) + qv, qv)
    code = np.where(a < 0x00800000, 0, code)  # zero and f32 subnormals
    code = np.where((a >= 0x7F800000) | (e > 17), max_code + 1, code)  # infinity, far overflow
    nan_code = np.full(u.shape, 0x80, np.int64) if uz else sign | 0x7F
    over = nan_code if not has_inf else sign | 0x7C
    out = np.where(code > max_code, sign | max_code if saturate else over, sign | code)
    if uz:
        out = np.where(code == 0, 0, out)
    out = np.where(a > 0x7F800000, nan_code, out)
    return out.astype(np.uint8)


def from_f8(c: np.ndarray, t: int) -> np.ndarray:
    """float8 codes -> binary32, exact; NaN codes give the canonical quiet NaN."""
    m, bias, _, uz, has_inf = F8[t]
    c = np.asarray(c, np.uint8).astype(np.int64)
    a = c & 0x7F
    ef, mf = a >> m, a & ((1 << m) - 1)
    mag = np.where(ef > 0, (mf + (1 << m)) * 2.0 ** (ef - bias - m), mf * 2.0 ** (1 - bias - m))
    y = np.where(c & 0x80, -mag, mag)
    if has_inf:
        y = np.where(a == 0x7C, np.where(c & 0x80, -np.inf, np.inf), y)
        nan = a > 0x7C
    else:
        nan = (c == 0x80) if uz else (a == 0x7F)
    y = np.where(nan, np.nan, y).astype(np.float32)
    if uz:
        y = np.where(c == 0, np.float32(0), y)
    return y


def quantize_f8(
    x: np.ndarray, s: np.ndarray, t: int, saturate: bool = True, axis: int = 1, block: int = 0
) -> np.ndarray:
    se = R.per_element(np.asarray(s, np.float32), x.shape, axis, block)
    with np.errstate(all="ignore"):
        return to_f8(np.asarray(x, np.float32) / se, t, saturate)


def dequantize_f8(c: np.ndarray, s: np.ndarray, t: int, axis: int = 1, block: int = 0) -> np.ndarray:
    se = R.per_element(np.asarray(s, np.float32), c.shape, axis, block)
    with np.errstate(all="ignore"):
        y = from_f8(c, t) * se
    bits = y.view(np.uint32).copy()
    bits[np.isnan(y)] = R.CANONICAL_NAN
    return bits.view(np.float32)
