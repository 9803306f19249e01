"""Resize and Upsample, written from docs/resize.md alone: binary32 source coordinates per
coordinate_transformation_mode, nearest_mode rounding, and linear as one 1-D step per resized axis, the last
axis first (a*w0 + b*w1, one tap where t == 0). Every operation is a NumPy float32 operation, so each is one
rounded binary32 operation as the contract states."""

from __future__ import annotations

import numpy as np

F = np.float32


def geometry(shape: tuple[int, ...], scales: list[float] | None, sizes: list[int] | None,
             axes: list[int] | None = None) -> tuple[list[int], list[np.float32]]:
    """Output lengths and binary32 scales of every axis."""
    r = len(shape)
    ax = list(range(r)) if axes is None else [a % r for a in axes]
    out, sc = list(shape), [F(1.0)] * r
    for j, d in enumerate(ax):
        n = shape[d]
        if scales is not None:
            s = F(scales[j])
            out[d] = int(np.floor(F(n) * s))
            sc[d] = s
        else:
            assert sizes is not None
            out[d] = int(sizes[j])
            sc[d] = F(1.0) if n == 0 else F(F(sizes[j]) / F(n))
    return out, sc


def source(coord: str, i: int, n: int, m: int, s: np.float32) -> np.float32:
    """The source coordinate xs of output index i (input length n, output length m, scale s)."""
    x, lf, lo = F(i), F(n), F(m)
    h = F(0.5)
    if coord == "half_pixel_symmetric":
        adj = F(lo / F(s * lf))
        off = F(F(lf / F(2)) * F(F(1) - adj))
        return F((float(off) + (float(x) + 0.5) / float(s)) - 0.5)  # binary64, one rounding to binary32
    if coord == "pytorch_half_pixel":
        return F(F(F(x + h) / s) - h) if m > 1 else F(0)
    if coord == "align_corners":
        return F(0) if m == 1 else F(F(x * F(n - 1)) / F(m - 1))
    if coord == "asymmetric":
        return F(x / s)
    assert coord == "half_pixel", coord
    return F(F(F(x + h) / s) - h)


def nearest_index(mode: str, xs: np.float32, s: np.float32, n: int) -> int:
    fl = np.floor(xs)
    r = F(xs - fl)
    if mode == "round_prefer_floor":
        q = fl + 1 if r > 0.5 else fl
    elif mode == "round_prefer_ceil":
        q = fl + 1 if r >= 0.5 else fl
    elif mode == "floor":
        q = fl
    elif mode == "ceil":
        q = np.ceil(xs)
    else:
        assert mode == "simple", mode
        q = np.ceil(xs) if s < 1 else np.trunc(xs)
    return int(min(max(q, 0), n - 1))


def resize(x: np.ndarray, mode: str, coord: str, nearest: str, scales: list[float] | None,
           sizes: list[int] | None, axes: list[int] | None = None) -> np.ndarray:
    """The whole output, per docs/resize.md."""
    out, sc = geometry(x.shape, scales, sizes, axes)
    y = x
    for d in reversed(range(x.ndim)):  # the last axis first
        n, m, s = x.shape[d], out[d], sc[d]
        if s == 1:
            continue  # the identity
        xs = [source(coord, i, n, m, s) for i in range(m)]
        if mode == "nearest":
            idx = np.array([nearest_index(nearest, v, s, n) for v in xs], dtype=np.int64)
            y = np.take(y, idx, axis=d)
            continue
        i0, i1, w0, w1, one = [], [], [], [], []
        for v in xs:
            xc = min(max(v, F(0)), F(n - 1))
            fl = np.floor(xc)
            t = F(xc - fl)
            i0.append(int(fl))
            i1.append(min(int(fl) + 1, n - 1))
            w0.append(F(F(1) - t))
            w1.append(t)
            one.append(t == 0)
        shape = [1] * x.ndim
        shape[d] = m
        a = np.take(y, np.array(i0, dtype=np.int64), axis=d)
        b = np.take(y, np.array(i1, dtype=np.int64), axis=d)
        wa = np.array(w0, dtype=F).reshape(shape)
        wb = np.array(w1, dtype=F).reshape(shape)
        with np.errstate(invalid="ignore", over="ignore"):
            blend = (a * wa + b * wb).astype(F)
        y = np.where(np.array(one).reshape(shape), a, blend)
    return y
