"""Resize (opsets 10-19) and Upsample (9) written from docs/resize.md alone, as an independent check of that
page (tests/reference/resize_reference.py is the kernel author's): the output shape and per-axis scale, the
binary32 source coordinate of each coordinate mode, the nearest index, and linear's one 1-D interpolation per
resized axis, the last resized axis first, each step `a*w0 + b*w1` in binary32 with a t == 0 axis taking its
i0 tap alone (a bit copy of that element, as nearest's). A NaN an interpolation step makes is the canonical
quiet NaN (docs/exact-mode.md; docs/resize.md itself does not say). Every `+ - * /` below is one binary32
operation (np.float32), except half_pixel_symmetric's documented binary64 tail."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

F = np.float32
CANON_NAN = np.array(0x7FC00000, np.uint32).view(np.float32)


@dataclass(frozen=True)
class Axis:
    L: int  # input length
    Lout: int  # output length
    s: np.float32  # scale
    resized: bool  # False: the identity (scale exactly 1, or not in axes)


def geometry(shape: Sequence[int], scales: Sequence[float] | None, sizes: Sequence[int] | None,
             axes: Sequence[int] | None = None) -> list[Axis]:
    """docs/resize.md, "Output shape and the scale of each axis"."""
    rank = len(shape)
    named = [a % rank for a in axes] if axes is not None else list(range(rank))
    out = [Axis(n, n, F(1), False) for n in shape]
    for j, a in enumerate(named):
        L = shape[a]
        Lf = F(L)
        if sizes is not None:
            Lout = int(sizes[j])
            s = F(1) if L == 0 else F(F(Lout) / Lf)
        else:
            assert scales is not None
            s = F(scales[j])
            Lout = int(np.floor(F(Lf * s)))
        out[a] = Axis(L, Lout, s, s != F(1))
    return out


def source(coord: str, i: int, ax: Axis) -> np.float32:
    """The binary32 source coordinate xs of output index i (docs/resize.md's table, in the order written)."""
    x, s, Lf, Lo = F(i), ax.s, F(ax.L), F(ax.Lout)
    half = F(0.5)
    if coord == "half_pixel":
        return F(F(F(x + half) / s) - half)
    if coord == "half_pixel_symmetric":
        adj = F(Lo / F(s * Lf))
        off = F(F(Lf / F(2)) * F(F(1) - adj))
        return F((float(off) + ((float(x) + 0.5) / float(s))) - 0.5)
    if coord == "pytorch_half_pixel":
        return F(F(F(x + half) / s) - half) if ax.Lout > 1 else F(0)
    if coord == "align_corners":
        return F(0) if ax.Lout == 1 else F(F(x * F(ax.L - 1)) / F(ax.Lout - 1))
    if coord == "asymmetric":
        return F(x / s)
    raise ValueError(coord)


def nearest_index(mode: str, xs: np.float32, ax: Axis) -> int:
    n = F(np.floor(xs))
    r = F(xs - n)
    if mode == "round_prefer_floor":
        k = int(n) + 1 if r > F(0.5) else int(n)
    elif mode == "round_prefer_ceil":
        k = int(n) + 1 if r >= F(0.5) else int(n)
    elif mode == "floor":
        k = int(n)
    elif mode == "ceil":
        k = int(np.ceil(xs))
    elif mode == "simple":
        k = int(np.ceil(xs)) if ax.s < F(1) else int(np.trunc(xs))
    else:
        raise ValueError(mode)
    return min(max(k, 0), ax.L - 1)


def resize(x: np.ndarray, mode: str, coord: str, nearest: str, scales: Sequence[float] | None,
           sizes: Sequence[int] | None, axes: Sequence[int] | None = None) -> np.ndarray:
    """The output of one Resize node (opset 10 and Upsample: coord "asymmetric", nearest "simple")."""
    geo = geometry(x.shape, scales, sizes, axes)
    out_shape = tuple(a.Lout for a in geo)
    if 0 in out_shape:
        return np.zeros(out_shape, x.dtype)
    y = x
    if mode == "nearest":
        for a, ax in enumerate(geo):
            if ax.resized:
                idx = [nearest_index(nearest, source(coord, i, ax), ax) for i in range(ax.Lout)]
                y = np.take(y, idx, axis=a)
        return np.ascontiguousarray(y)
    assert mode == "linear" and x.dtype == np.float32
    for a in reversed(range(len(geo))):  # the last resized axis first
        ax = geo[a]
        if ax.resized:
            y = _linear_axis(y, a, coord, ax)
    return np.ascontiguousarray(y)


def _linear_axis(y: np.ndarray, a: int, coord: str, ax: Axis) -> np.ndarray:
    cols = []
    for i in range(ax.Lout):
        xs = source(coord, i, ax)
        xc = F(min(max(xs, F(0)), F(F(ax.L) - F(1))))
        i0 = int(np.floor(xc))
        t = F(xc - F(i0))
        i1 = min(i0 + 1, ax.L - 1)
        a0 = np.take(y, i0, axis=a)
        if t == 0:
            cols.append(a0)
            continue
        w0, w1 = F(F(1) - t), t
        a1 = np.take(y, i1, axis=a)
        v = ((a0 * w0).astype(F) + (a1 * w1).astype(F)).astype(F)
        cols.append(np.where(np.isnan(v), CANON_NAN, v))  # exact-mode.md: a NaN result is canonical
    return np.stack(cols, axis=a).astype(F)
