"""NumPy reference of MatMulIntegerToFloat, DynamicQuantizeMatMul and QLinearMatMul, written from
docs/quantized-matmul.md: the exact integer sum wrapped to int32, then the stated binary32 steps (NumPy's
float32 operations are single IEEE operations, correctly rounded)."""

from __future__ import annotations

import numpy as np

from tests.reference import qdq_reference

CANONICAL_NAN = np.uint32(0x7FC00000)


def int_operand(rng: np.random.Generator, dtype: type, shape: tuple[int, ...]) -> np.ndarray:
    """Uniform integers of dtype (np.uint8, np.int8) over its whole range, the first two its least and
    greatest (the test operands of the quantized products)."""
    info = np.iinfo(dtype)
    x = rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)
    if x.size >= 2:
        x.flat[:2] = [info.min, info.max]
    return x


def _f32(x: np.ndarray | float) -> np.ndarray:
    return np.asarray(x, np.float32)


def int_sum(a: np.ndarray, b: np.ndarray, za: np.ndarray | None, zb: np.ndarray | None) -> np.ndarray:
    """acc: sum_k (A - za)(B - zb_j) in int64, wrapped to int32; zb one element or one per column."""
    a64 = a.astype(np.int64) - (0 if za is None else np.int64(za.reshape(-1)[0]))
    b64 = b.astype(np.int64)
    if zb is not None:
        b64 = b64 - zb.astype(np.int64).reshape(-1 if zb.size > 1 else ())
    return np.matmul(a64, b64).astype(np.uint64).astype(np.uint32).view(np.int32)


def _columns(p: np.ndarray) -> np.ndarray:
    """A one-element parameter as a scalar, a per-column one as is (broadcast along the last axis)."""
    p = _f32(p)
    return p.reshape(()) if p.size == 1 else p.reshape(-1)


def to_float(acc: np.ndarray, a_scale: np.ndarray, b_scale: np.ndarray,
             bias: np.ndarray | None) -> np.ndarray:
    """Steps 2-6: fl32(acc) * fl32(a_scale * b_scale_j), then + bias_j; NaN canonical."""
    with np.errstate(all="ignore"):
        m = _f32(a_scale).reshape(()) * _columns(b_scale)
        y = acc.astype(np.float32) * m
        if bias is not None:
            y = y + _f32(bias)
    y = _f32(y)
    bits = y.view(np.uint32).copy()
    bits[np.isnan(y)] = CANONICAL_NAN
    return bits.view(np.float32)


def matmul_integer_to_float(a, b, a_scale, b_scale, za=None, zb=None, bias=None) -> np.ndarray:
    return to_float(int_sum(a, b, za, zb), a_scale, b_scale, bias)


def dynamic_quantize_matmul(a, b, b_scale, zb=None, bias=None) -> np.ndarray:
    qa, a_scale, a_zp = qdq_reference.dynamic_quantize(a)
    return matmul_integer_to_float(qa, b, np.float32(a_scale), b_scale, np.array(a_zp), zb, bias)


def qlinear_matmul(a, a_scale, za, b, b_scale, zb, y_scale, zy) -> np.ndarray:
    """Steps 1-7: m_j = fl32(fl32(a_s * b_s_j) / y_s), v = fl32(fl32(acc) * m_j), clamp (NaN to the lower
    bound), round half to even, + zy."""
    with np.errstate(all="ignore"):
        m = (_f32(a_scale).reshape(()) * _columns(b_scale)) / _f32(y_scale).reshape(())
    return requantize(int_sum(a, b, za, zb), m, zy)


def requantize(acc: np.ndarray, m: np.ndarray, zy: np.ndarray) -> np.ndarray:
    """v = fl32(fl32(acc) * m) (m broadcast against acc), clamp to [qmin - zy, qmax - zy] (NaN to the lower
    bound), round half to even, + zy, in zy's type."""
    out = np.dtype(zy.dtype)
    info = np.iinfo(out)
    z = int(zy.reshape(-1)[0])
    lo, hi = np.float32(info.min - z), np.float32(info.max - z)
    with np.errstate(all="ignore"):
        v = acc.astype(np.float32) * m
    c = np.where(v >= lo, v, lo)
    c = np.where(c <= hi, c, hi)
    return (np.rint(c).astype(np.int32) + z).astype(out)
