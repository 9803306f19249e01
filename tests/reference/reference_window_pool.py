"""A reference for MaxPool and AveragePool, written from docs/pooling-norm.md ("MaxPool and
AveragePool").

Per spatial axis: the output size and pads from the attributes (ONNX's rules, ceil_mode dropping a last
window that starts in the end padding); output o has the taps p_j = o s - b + j d. The window of an output
element is the product of its axes' taps in window order (row-major over j, the last axis fastest); a tap is
real inside X.

MaxPool: the canonical NaN if any real tap is NaN, otherwise the largest, +0 above -0; -inf (the integer
types' least value) for a window without real taps. Indices: the first real tap in window order holding Y
(the first NaN for a NaN Y), flat over X (storage_order 1: the spatial offset column-major), -1
without real taps.
AveragePool: in A (f32 for f16/f32, f64 for f64) s = +0, s = s + x per real tap in window order, Y = s / cnt,
cnt the product of the axes' real taps (count_include_pad 1: taps in the padded range); f16 rounds once at the
end; a NaN Y the canonical NaN.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np

from tests.reference.reference_linalg import to_acc

_PADS = ("NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID")


def axes_of(x_shape: tuple[int, ...], attrs: dict[str, Any]) -> list[tuple[int, ...]]:
    """Per spatial axis (D, K, s, d, b, e, O)."""
    ks = list(attrs["kernel_shape"])
    k = len(ks)
    strides = list(attrs.get("strides", [1] * k))
    dil = list(attrs.get("dilations", [1] * k))
    pads = list(attrs.get("pads", [0] * 2 * k))
    auto_pad = attrs.get("auto_pad", "NOTSET")
    ceil_mode = int(attrs.get("ceil_mode", 0))
    assert auto_pad in _PADS
    out = []
    for i in range(k):
        D, K, s, d = x_shape[2 + i], ks[i], strides[i], dil[i]
        dk = d * (K - 1) + 1
        if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
            n_out = -(-D // s)
            total = max(0, (n_out - 1) * s + K - D)
            b = total // 2 if auto_pad == "SAME_UPPER" else total - total // 2
            e = total - b
        else:
            b, e = (pads[i], pads[k + i]) if auto_pad == "NOTSET" else (0, 0)
            L = D + b + e - dk
            if L < 0:
                raise ValueError("the kernel spans more than the padded input")
            n_out = (-(-L // s) if ceil_mode else L // s) + 1
            if ceil_mode and (n_out - 1) * s >= D + b:
                n_out -= 1
        out.append((D, K, s, d, b, e, n_out))
    return out


def _windows(x_shape: tuple[int, ...], attrs: dict[str, Any]):
    """Yield (output spatial index, list of real taps as spatial positions, padded-range count)."""
    axes = axes_of(x_shape, attrs)
    for o in itertools.product(*[range(a[6]) for a in axes]):
        taps, cnt = [], 1
        for j in itertools.product(*[range(a[1]) for a in axes]):
            p = tuple(o[i] * a[2] - a[4] + j[i] * a[3] for i, a in enumerate(axes))
            if all(0 <= p[i] < a[0] for i, a in enumerate(axes)):
                taps.append(p)
        for i, a in enumerate(axes):
            cnt *= sum(1 for j in range(a[1]) if -a[4] <= o[i] * a[2] - a[4] + j * a[3] < a[0] + a[5])
        yield o, taps, cnt


def _flat(p: tuple[int, ...], dims: tuple[int, ...], col_major: bool) -> int:
    order = range(len(dims)) if col_major else reversed(range(len(dims)))
    q, step = 0, 1
    for i in order:
        q += p[i] * step
        step *= dims[i]
    return q


def _better(v: Any, best: Any) -> bool:
    """v replaces the running best (None: no tap yet): NaN above all (the first one kept), +0 above -0."""
    if best is None:
        return True
    if isinstance(best, float) and math.isnan(best):
        return False
    if isinstance(v, float) and math.isnan(v):
        return True
    if v > best:
        return True
    return bool(v == 0 and best == 0 and math.copysign(1.0, best) < 0 < math.copysign(1.0, v))


def max_pool(x: np.ndarray, attrs: dict[str, Any]) -> tuple[np.ndarray, np.ndarray]:
    x = np.asarray(x)
    axes = axes_of(x.shape, attrs)
    dims = x.shape[2:]
    col_major = int(attrs.get("storage_order", 0)) == 1
    out_shape = x.shape[:2] + tuple(a[6] for a in axes)
    y = np.zeros(out_shape, dtype=x.dtype)
    idx = np.zeros(out_shape, dtype=np.int64)
    floats = x.dtype.kind == "f"
    empty = -np.inf if floats else np.iinfo(x.dtype).min
    plane = int(np.prod(dims, dtype=np.int64))
    for n, c in itertools.product(range(x.shape[0]), range(x.shape[1])):
        for o, taps, _ in _windows(x.shape, attrs):
            best, at = None, -1
            for p in taps:
                v = x[(n, c) + p]
                v = float(v) if floats else int(v)
                if _better(v, best):
                    best, at = v, (n * x.shape[1] + c) * plane + _flat(p, dims, col_major)
            y[(n, c) + o] = empty if best is None else best
            idx[(n, c) + o] = at
    return y, idx


def average_pool(x: np.ndarray, attrs: dict[str, Any]) -> np.ndarray:
    x = np.asarray(x)
    axes = axes_of(x.shape, attrs)
    cip = int(attrs.get("count_include_pad", 0)) == 1
    xa = to_acc(x)
    a = xa.dtype.type
    y = np.zeros(x.shape[:2] + tuple(ax[6] for ax in axes), dtype=xa.dtype)
    with np.errstate(all="ignore"):
        for n, c in itertools.product(range(x.shape[0]), range(x.shape[1])):
            for o, taps, cnt in _windows(x.shape, attrs):
                s = a(0.0)
                for p in taps:
                    s = a(s + xa[(n, c) + p])
                y[(n, c) + o] = s / a(cnt if cip else len(taps))
    return y.astype(x.dtype)
