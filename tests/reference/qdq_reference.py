"""A reference for QuantizeLinear, DequantizeLinear and DynamicQuantizeLinear, written from docs/quantized.md.

Every step is one NumPy binary32 operation (IEEE, round half to even) or exact integer arithmetic in int64:
QuantizeLinear q = x / s, clamped to [qmin - z, qmax - z] with a NaN going to the lower bound, rounded half to
even (np.rint), plus z; DequantizeLinear (float32(x - z)) * s with a NaN made the canonical quiet NaN;
DynamicQuantizeLinear's scale and zero point from the non-NaN range including 0.
"""

from __future__ import annotations

import numpy as np

RANGES = {np.dtype(np.uint8): (0, 255), np.dtype(np.int8): (-128, 127), np.dtype(np.uint16): (0, 65535),
          np.dtype(np.int16): (-32768, 32767)}
CANONICAL_NAN = np.uint32(0x7FC00000)


def per_element(p: np.ndarray, shape: tuple[int, ...], axis: int, block: int) -> np.ndarray:
    """The scale or zero point `p` as each element of x (of `shape`) uses it: per tensor (one element), per
    axis (1-D along `axis`), blocked (`block` > 0: x's rank, ceil(d / block) along the axis)."""
    p = np.asarray(p)
    if block == 0 and p.size == 1:
        return np.broadcast_to(p.reshape(()), shape)
    a = axis % len(shape)
    if block == 0:
        return np.broadcast_to(p.reshape([1] * a + [-1] + [1] * (len(shape) - a - 1)), shape)
    return np.take(np.repeat(p, block, axis=a), np.arange(shape[a]), axis=a)


def quantize(x: np.ndarray, s: np.ndarray, z: np.ndarray | None, out: np.dtype, axis: int = 1,
             block: int = 0) -> np.ndarray:
    out = np.dtype(out)
    qmin, qmax = RANGES[out]
    se = per_element(np.asarray(s, np.float32), x.shape, axis, block)
    ze = np.zeros(x.shape, np.int64)
    if z is not None:
        ze = per_element(np.asarray(z).astype(np.int64), x.shape, axis, block)
    with np.errstate(all="ignore"):
        q = np.asarray(x, np.float32) / se
        lo, hi = (qmin - ze).astype(np.float32), (qmax - ze).astype(np.float32)
        c = np.where(q >= lo, q, lo)
        c = np.where(c <= hi, c, hi)
        r = np.rint(c).astype(np.int64)
    return (r + ze).astype(out)


def dequantize(x: np.ndarray, s: np.ndarray, z: np.ndarray | None, axis: int = 1,
               block: int = 0) -> np.ndarray:
    se = per_element(np.asarray(s, np.float32), x.shape, axis, block)
    d = x.astype(np.int64)
    if z is not None:
        d = d - per_element(np.asarray(z).astype(np.int64), x.shape, axis, block)
    with np.errstate(all="ignore"):
        y = d.astype(np.float32) * se
    bits = y.view(np.uint32).copy()
    bits[np.isnan(y)] = CANONICAL_NAN
    return bits.view(np.float32)


def dynamic_quantize(x: np.ndarray) -> tuple[np.ndarray, np.float32, np.uint8]:
    x = np.asarray(x, np.float32)
    finite = x[~np.isnan(x)]
    mn = np.float32(finite.min()) if finite.size else np.float32(0)
    mx = np.float32(finite.max()) if finite.size else np.float32(0)
    mn = mn if mn < 0 else np.float32(0)
    mx = mx if mx > 0 else np.float32(0)
    with np.errstate(all="ignore"):
        scale = np.float32(np.float32(1) if mx == mn else np.float32(mx - mn)) / np.float32(255)
        zf = np.float32(0) - np.float32(mn / scale)
    zf = zf if zf <= 255 else np.float32(255)
    zf = zf if zf >= 0 else np.float32(0)
    zp = np.uint8(np.rint(zf))
    return quantize(x, scale, np.array(zp), np.uint8), np.float32(scale), zp
