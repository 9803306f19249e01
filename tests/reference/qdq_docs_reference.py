"""An independent reference for QuantizeLinear, DequantizeLinear and DynamicQuantizeLinear, written from the
contract of docs/quantized.md ("QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear: what is computed")
alone, without reading the kernels.

Every step is the doc's, in its order and precision: numpy binary32 array operations round each step to
nearest even as IEEE does (numpy does not flush subnormals); the integer steps are int64 (exact); the
conversion of an integer difference to binary32 goes through binary64 (exact for |d| < 2^53) and is then
rounded once to binary32. The rounding to an integer of step 3 is np.rint (round half to even), not the
kernels' (c + 1.5 * 2^23) - 1.5 * 2^23, which tests/nodes/test_qdq_exact.py checks to be the same.
"""

from __future__ import annotations

import numpy as np

RANGES: dict[np.dtype, tuple[int, int]] = {
    np.dtype(np.uint8): (0, 255),
    np.dtype(np.int8): (-128, 127),
    np.dtype(np.uint16): (0, 65535),
    np.dtype(np.int16): (-32768, 32767),
}
CANONICAL_NAN32 = np.uint32(0x7FC00000)


def expand(param: np.ndarray, shape: tuple[int, ...], axis: int, block_size: int) -> np.ndarray:
    """The parameter (scale or zero point) of every element of an x of `shape`, broadcast to `shape`
    ("Which scale and zero point an element uses"): one element for all; 1-D with shape[a] elements, the
    element x[i] taking param[i_a]; blocked (block_size > 0), param of rank r with ceil(shape[a] / B) along
    a, x[i] taking param[..., floor(i_a / B), ...]."""
    r = len(shape)
    if param.size == 1 and block_size == 0:
        return np.broadcast_to(param.reshape(()), shape)
    a = axis + r if axis < 0 else axis
    if not 0 <= a < r:
        raise ValueError(f"axis {axis} out of range for rank {r}")
    if block_size == 0:
        if param.ndim != 1 or param.shape[0] != shape[a]:
            raise ValueError(f"per-axis parameter of shape {list(param.shape)} for x {list(shape)}, axis {a}")
        view = [1] * r
        view[a] = shape[a]
        return np.broadcast_to(param.reshape(view), shape)
    want = list(shape)
    want[a] = -(-shape[a] // block_size)
    if list(param.shape) != want:
        raise ValueError(f"blocked parameter of shape {list(param.shape)}, want {want}")
    index = np.arange(shape[a]) // block_size
    return np.take(param, index, axis=a)


def quantize_elements(x: np.ndarray, s: np.ndarray, z: np.ndarray, out: np.dtype) -> np.ndarray:
    """QuantizeLinear's steps 1-4 for x, s (binary32) and z (integers), all of one shape, into `out`."""
    qmin, qmax = RANGES[np.dtype(out)]
    x32 = np.asarray(x, np.float32)
    s32 = np.asarray(s, np.float32)
    z64 = np.asarray(z).astype(np.int64)
    with np.errstate(all="ignore"):
        q = x32 / s32  # 1. one binary32 division
        lo = (qmin - z64).astype(np.float32)  # 2. exact: |lo|, |hi| <= 131071
        hi = (qmax - z64).astype(np.float32)
        c = np.where(q >= lo, q, lo)  # NaN compares false: lo
        c = np.where(c <= hi, c, hi)
        r = np.rint(c)  # 3. round half to even, exact
    y = r.astype(np.int64) + z64  # 4.
    if y.size and (y.min() < qmin or y.max() > qmax):
        raise AssertionError("QuantizeLinear reference: y left [qmin, qmax]")
    return y.astype(out)


def quantize_linear(x: np.ndarray, scale: np.ndarray, zero_point: np.ndarray | None, *, axis: int = 1,
                    block_size: int = 0, out: np.dtype | None = None) -> np.ndarray:
    """y = saturate(round_half_even(x / s) + z), y of the zero point's type, else `out` (default uint8)."""
    out_t = np.dtype(zero_point.dtype if zero_point is not None else (out or np.uint8))
    shape = tuple(x.shape)
    s = expand(np.asarray(scale, np.float32), shape, axis, block_size)
    if zero_point is None:
        z: np.ndarray = np.zeros(shape, np.int64)
    else:
        z = expand(zero_point, shape, axis, block_size)
    return quantize_elements(x, s, z, out_t)


def canonical_nan(y: np.ndarray) -> np.ndarray:
    """Every NaN of a binary32 array written as 0x7FC00000."""
    y = np.array(y, np.float32)
    y.view(np.uint32)[np.isnan(y)] = CANONICAL_NAN32
    return y


def dequantize_linear(x: np.ndarray, scale: np.ndarray, zero_point: np.ndarray | None, *, axis: int = 1,
                      block_size: int = 0) -> np.ndarray:
    """y = (x - z) * s: d exact in int64, one rounding to binary32, one binary32 multiplication, NaN
    canonical."""
    shape = tuple(x.shape)
    s = expand(np.asarray(scale, np.float32), shape, axis, block_size)
    d = x.astype(np.int64)  # 1. exact
    if zero_point is not None:
        d = d - expand(zero_point, shape, axis, block_size).astype(np.int64)
    f = d.astype(np.float64).astype(np.float32)  # 2. exact to f64 (|d| < 2^33), one rounding to f32
    with np.errstate(all="ignore"):
        y = f * s  # 3.
    return canonical_nan(y)  # 4.


def dynamic_quantize_linear(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(y uint8, y_scale binary32 scalar, y_zero_point uint8 scalar) by steps 1-5."""
    x32 = np.asarray(x, np.float32)
    numbers = x32[~np.isnan(x32)]
    zero = np.float32(0.0)
    mn = numbers.min() if numbers.size else zero  # 1. exact
    mx = numbers.max() if numbers.size else zero
    mn = mn if mn < 0 else zero  # -0 becomes +0
    mx = mx if mx > 0 else zero
    with np.errstate(all="ignore"):
        span = np.float32(1.0) if mx == mn else np.float32(mx - mn)  # 2.
        y_scale = np.float32(span / np.float32(255.0))
        t = np.float32(zero - np.float32(mn / y_scale))  # 3.
    zf = t if t <= 255 else np.float32(255.0)  # NaN: 255
    zf = zf if zf >= 0 else zero
    zp = int(np.rint(zf))  # 4.
    y = quantize_elements(x32, np.full(x32.shape, y_scale, np.float32), np.full(x32.shape, zp, np.int64),
                          np.dtype(np.uint8))  # 5.
    return y, np.array(y_scale, np.float32), np.array(zp, np.uint8)
