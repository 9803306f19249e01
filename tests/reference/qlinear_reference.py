"""NumPy reference of com.microsoft QLinearAdd, QLinearMul, QLinearSigmoid, QLinearLeakyRelu,
QLinearGlobalAveragePool, QLinearAveragePool and QLinearConcat, written from docs/quantized-elementwise.md
(NumPy's float32 operations are single IEEE operations, correctly rounded; integer steps in int64, exact)."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np

from tests.reference import qdq_docs_reference as Q
from tests.reference import transcendental32 as T32
from tests.reference import window_pool_reference as W

F32 = np.float32


def _zp(z: np.ndarray | None) -> np.int64:
    return np.int64(0) if z is None else np.int64(np.asarray(z).reshape(()))


def _store(v: np.ndarray, zc: np.int64, out: np.dtype) -> np.ndarray:
    """Clamp to [qmin - zc, qmax - zc] (NaN: the lower bound), round half to even, add zc."""
    qmin, qmax = Q.RANGES[np.dtype(out)]
    lo, hi = F32(qmin - zc), F32(qmax - zc)
    c = np.where(v >= lo, v, lo)
    c = np.where(c <= hi, c, hi)
    return (np.rint(c).astype(np.int64) + zc).astype(out)


def qlinear_add(a, sa, za, b, sb, zb, sc, zc) -> np.ndarray:
    sa, sb, sc = F32(sa), F32(sb), F32(sc)
    with np.errstate(all="ignore"):
        ra, rb = sa / sc, sb / sc  # one rounding each
        fa = (a.astype(np.int64) - _zp(za)).astype(F32) * ra  # exact difference and conversion, one rounding
        fb = (b.astype(np.int64) - _zp(zb)).astype(F32) * rb
        v = fa + fb
    return _store(v, _zp(zc), a.dtype)


def qlinear_mul(a, sa, za, b, sb, zb, sc, zc) -> np.ndarray:
    sa, sb, sc = F32(sa), F32(sb), F32(sc)
    with np.errstate(all="ignore"):
        m = (sa * sb) / sc
        p = (a.astype(np.int64) - _zp(za)) * (b.astype(np.int64) - _zp(zb))  # exact, |p| <= 65025
        v = p.astype(F32) * m
    return _store(v, _zp(zc), a.dtype)


def _table(dtype: np.dtype, sx, zx, f, sy, zy) -> np.ndarray:
    """The 256 outputs, indexed by the input's byte: QuantizeLinear(f(DequantizeLinear(x)))."""
    x = np.arange(256, dtype=np.uint8).view(dtype)
    zxa = None if zx is None else np.asarray(zx, dtype)
    zya = np.asarray(0 if zy is None else zy, dtype)
    d = Q.dequantize_linear(x, np.asarray(sx, F32), zxa)
    return Q.quantize_linear(f(d), np.asarray(sy, F32), zya)


def _lookup(x: np.ndarray, table: np.ndarray) -> np.ndarray:
    return table[x.view(np.uint8)]


def qlinear_sigmoid(x, sx, zx, sy, zy) -> np.ndarray:
    return _lookup(x, _table(x.dtype, sx, zx, lambda v: T32.reference("sigmoid", v), sy, zy))


def qlinear_leaky_relu(x, sx, zx, sy, zy, alpha: float = 0.01) -> np.ndarray:
    al = F32(alpha)
    return _lookup(x, _table(x.dtype, sx, zx, lambda v: np.where(v < 0, al * v, v).astype(F32), sy, zy))


def qlinear_global_average_pool(x, sx, zx, sy, zy, channels_last: bool = False) -> np.ndarray:
    axes = tuple(range(1, x.ndim - 1)) if channels_last else tuple(range(2, x.ndim))
    s = int(np.prod([x.shape[a] for a in axes]))
    acc = x.astype(np.int64).sum(axis=axes, keepdims=True) - s * _zp(zx)  # exact (s <= 2^23)
    with np.errstate(all="ignore"):
        m = F32(sx) / (F32(sy) * F32(s))
        v = acc.astype(F32) * m  # acc exact in f32 when |acc| < 2^24
    return _store(v, _zp(zy), x.dtype)


def _grid(parts: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Per-axis arrays [O_i] reshaped to broadcast against one another as [O_1, ..., O_k]."""
    k = len(parts)
    return [p.reshape((1,) * i + (-1,) + (1,) * (k - 1 - i)) for i, p in enumerate(parts)]


def qlinear_average_pool(x, sx, zx, sy, zy, *, kernel_shape: Sequence[int],
                         strides: Sequence[int] | None = None, pads: Sequence[int] | None = None,
                         auto_pad: str = "NOTSET", ceil_mode: int = 0, count_include_pad: int = 0,
                         channels_last: int = 0) -> np.ndarray:
    """Each output: acc = the exact sum over its window's real taps of x - zx; n = the count of its taps in
    the padded range (count_include_pad) or of its real ones; m = fl(sx / fl(sy * n));
    Store(fl(fl(acc) * m), zy). The window geometry is AveragePool's (window_pool_reference.geometry, no
    dilations)."""
    xc = np.moveaxis(x, -1, 1) if channels_last else x
    axes = W.geometry(xc.shape[2:], kernel_shape, strides, None, pads, auto_pad, ceil_mode)
    d = xc.astype(np.int64) - _zp(zx)
    out = tuple(a.out for a in axes)
    acc = np.zeros(xc.shape[:2] + out, np.int64)
    n_real = np.zeros(out, np.int64)
    n_padded = np.zeros(out, np.int64)
    for j in itertools.product(*(range(a.kernel) for a in axes)):
        ps = [a.taps(jj) for a, jj in zip(axes, j)]
        real, padded = np.ones(out, bool), np.ones(out, bool)
        for r, q in zip(_grid([a.real(p) for a, p in zip(axes, ps)]),
                        _grid([a.in_padded_range(p) for a, p in zip(axes, ps)])):
            real, padded = real & r, padded & q
        if d.size:
            at = np.ix_(*[np.clip(p, 0, a.size - 1) for a, p in zip(axes, ps)])
            acc += np.where(real, d[(slice(None), slice(None)) + at], 0)
        n_real += real
        n_padded += padded
    n = n_padded if count_include_pad else n_real
    with np.errstate(all="ignore"):
        m = F32(sx) / (F32(sy) * n.astype(F32))
        v = acc.astype(F32) * m
    y = _store(v, _zp(zy), x.dtype)
    return np.moveaxis(y, 1, -1) if channels_last else y


def qlinear_concat(sy, zy, triples, axis: int) -> np.ndarray:
    parts = [_lookup(x, _table(x.dtype, sx, zx, lambda v: v, sy, zy)) for x, sx, zx in triples]
    return np.concatenate(parts, axis=axis)
