"""An independent reference for Pad, ArgMax and ArgMin, written from docs/shape-ops.md's contract alone (no
library code read).

Pad: the listed axes (all, or `axes` with negatives counted from the end; a repeat is an error) take the begin
pad b = pads[i] and end pad e = pads[m + i]; per axis the kept extent n = in + min(b, 0) + min(e, 0), first
kept index s = -min(b, 0), begin fill p = max(b, 0), out = p + n + max(e, 0) (n < 0 an error). Output index o
on an axis, j = o - p, reads source s + j (constant, 0 <= j < n, else none), s + clamp(j, 0, n - 1) (edge), s
+ (k if k < n else P - k) with P = 2 (n - 1), k = j mod P (reflect; s when n = 1), s + j mod n (wrap). An
element with a source on every axis is a copy of that input element's bits; otherwise the constant (the one
element of constant_value, else all bits 0). n = 0: constant fills; edge, reflect and wrap are an error when
the axis has a positive pad (the contract as of misc34's 6d7b8fa).

ArgMax / ArgMin: along `axis`, a scan from k = 0, k = i when x[i] > x[k] (>= with select_last_index; < and <=
for ArgMin), values compared (-0 == +0); with a NaN along the axis, the first (last with select_last_index)
NaN's index. int64 output, the axis kept as 1 (keepdims) or removed; n = 0 an error.

Element bits are moved as unsigned integers of the element's width, so NaN payloads, signalling NaNs, signed
zeros and subnormals pass untouched.
"""

from __future__ import annotations

from collections.abc import Sequence

import ml_dtypes
import numpy as np

MODES = ("constant", "reflect", "edge", "wrap")
BF16 = np.dtype(ml_dtypes.bfloat16)
FLOAT_TYPES = (np.dtype(np.float16), BF16, np.dtype(np.float32), np.dtype(np.float64))


def _bits(a: np.ndarray) -> np.ndarray:
    """The array viewed as unsigned integers of its element width (bool as uint8)."""
    return a.view(np.dtype(f"u{a.dtype.itemsize}"))


def pad_axes(rank: int, axes: Sequence[int] | None) -> list[int]:
    """The listed axes, negatives resolved; a ValueError for one out of range or named twice."""
    if axes is None:
        return list(range(rank))
    out = []
    for a in (int(v) for v in axes):
        if not -rank <= a < rank:
            raise ValueError(f"axis {a} is out of range for rank {rank}")
        a = a + rank if a < 0 else a
        if a in out:
            raise ValueError(f"axis {a} is named twice in axes {list(axes)}")
        out.append(a)
    return out


def pad_sources(extent: int, b: int, e: int, mode: str) -> np.ndarray:
    """The source index of each output index along one axis (-1: none, the constant)."""
    n = extent + min(b, 0) + min(e, 0)
    if n < 0:
        raise ValueError(f"pads ({b}, {e}) crop more than the dimension {extent}")
    s, p = -min(b, 0), max(b, 0)
    out = p + n + max(e, 0)
    if n == 0 and mode != "constant" and (b > 0 or e > 0):
        raise ValueError(f"{mode} across an empty kept extent (pads ({b}, {e}), dimension {extent})")
    j = np.arange(out, dtype=np.int64) - p
    if mode == "constant":
        return np.where((j >= 0) & (j < n), s + j, -1)
    if mode == "edge":
        return s + np.minimum(np.maximum(j, 0), n - 1)
    if mode == "reflect":
        if n == 1:
            return np.full(out, s, np.int64)
        period = 2 * (n - 1)
        k = np.mod(j, period)  # numpy's mod of ints is the non-negative remainder for a positive divisor
        return s + np.where(k < n, k, period - k)
    if mode == "wrap":
        return s + np.mod(j, n)
    raise ValueError(f"unknown mode {mode!r}")


def pad(x: np.ndarray, pads: Sequence[int], constant_value: np.ndarray | None = None,
        axes: Sequence[int] | None = None, mode: str = "constant") -> np.ndarray:
    """ONNX Pad by the contract (inputs as ONNX names them; None for an absent optional input)."""
    x = np.asarray(x)
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}")
    listed = pad_axes(x.ndim, axes)
    m = len(listed)
    pads = [int(v) for v in pads]
    if len(pads) != 2 * m:
        raise ValueError(f"pads has {len(pads)} entries, {2 * m} expected")
    if constant_value is not None:
        constant_value = np.asarray(constant_value)
        if constant_value.size != 1 or constant_value.dtype != x.dtype:
            raise ValueError(f"constant_value must be one element of {x.dtype}, got {constant_value.dtype} "
                             f"{constant_value.shape}")
    if x.ndim == 0:
        return x.copy()
    begin, end = [0] * x.ndim, [0] * x.ndim
    for i, a in enumerate(listed):
        begin[a], end[a] = pads[i], pads[m + i]
    sources = [pad_sources(x.shape[d], begin[d], end[d], mode) for d in range(x.ndim)]
    out_shape = tuple(len(src) for src in sources)
    xb = _bits(x)
    fill = np.zeros((), xb.dtype) if constant_value is None else _bits(constant_value.reshape(()))
    if x.size == 0:
        yb = np.full(out_shape, fill, xb.dtype)  # no source anywhere: the constant
    else:
        clipped = [np.clip(src, 0, x.shape[d] - 1) for d, src in enumerate(sources)]
        gathered = xb[np.ix_(*clipped)]
        has_src = np.ones(out_shape, bool)
        for d, src in enumerate(sources):
            has_src &= (src >= 0).reshape((1,) * d + (-1,) + (1,) * (x.ndim - 1 - d))
        yb = np.where(has_src, gathered, fill)
    return yb.astype(xb.dtype).view(x.dtype)


def _arg(x: np.ndarray, axis: int, keepdims: int, select_last_index: int, greatest: bool) -> np.ndarray:
    x = np.asarray(x)
    r = x.ndim
    if not -r <= axis < r:
        raise ValueError(f"axis {axis} is out of range for rank {r}")
    axis = axis + r if axis < 0 else axis
    n = x.shape[axis]
    if n == 0:
        raise ValueError(f"the axis {axis} has no elements")
    v = np.moveaxis(x, axis, -1)
    if x.dtype in FLOAT_TYPES:
        v = v.astype(np.float64)  # exact for every float type: values compare as values
    k = np.zeros(v.shape[:-1], np.int64)
    best = v[..., 0]
    for i in range(1, n):
        xi = v[..., i]
        if greatest:
            take = xi >= best if select_last_index else xi > best
        else:
            take = xi <= best if select_last_index else xi < best
        k = np.where(take, i, k)
        best = np.where(take, xi, best)
    if v.dtype.kind == "f":
        nan = np.isnan(v)
        first = np.argmax(nan, axis=-1)
        last = n - 1 - np.argmax(nan[..., ::-1], axis=-1)
        k = np.where(nan.any(axis=-1), last if select_last_index else first, k)
    return np.expand_dims(k, axis) if keepdims else k


def argmax(x: np.ndarray, axis: int = 0, keepdims: int = 1, select_last_index: int = 0) -> np.ndarray:
    return _arg(x, axis, keepdims, select_last_index, greatest=True)


def argmin(x: np.ndarray, axis: int = 0, keepdims: int = 1, select_last_index: int = 0) -> np.ndarray:
    return _arg(x, axis, keepdims, select_last_index, greatest=False)
