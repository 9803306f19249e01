"""Resize's `cubic` and `antialias` (float32) written from docs/resize.md alone ("`cubic` and `antialias`"
and the coordinate sections it relies on), by a reviewer who has not read the kernels: per resized axis a
list of taps (input index, binary32 weight) built in the order the page writes, taps of weight exactly 0 left
out, then one 1-D step per resized axis, the last axis first: `+0` with no tap, the tap's own bits for one tap
of weight 1, else `acc = v0*w0`, `acc = acc + vt*wt` left to right, a NaN written as 0x7fc00000. The output
shape, scales and source coordinates are tests/reference/resize_docs_reference.py's (the same page)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tests.reference.resize_docs_reference import CANON_NAN, Axis, geometry, source

F = np.float32
Taps = list[tuple[int, np.float32]]


def _nonzero(taps: Taps) -> Taps:
    """The page: a tap of weight exactly 0 (+0 or -0) is left out, the order of the rest kept."""
    return [(k, w) for k, w in taps if w != F(0)]


def cubic_taps(xs: np.float32, ax: Axis, a: np.float32, exclude_outside: bool) -> Taps:
    """"`cubic` taps (antialias 0)": Keys' kernel on the four neighbours of floor(xs), in binary32."""
    n0 = F(np.floor(xs))
    r = F(xs - n0)
    one, two = F(1), F(2)
    a5, a8, a4 = F(F(5) * a), F(F(8) * a), F(F(4) * a)
    a2, a3 = F(a + two), F(a + F(3))

    def outer(p: np.float32) -> np.float32:  # c0 and c3
        return F(F(F(F(F(F(a * p) - a5) * p) + a8) * p) - a4)

    def inner(p: np.float32) -> np.float32:  # c1 and c2
        return F(F(F(F(F(a2 * p) - a3) * p) * p) + one)

    c = [outer(F(r + one)), inner(r), inner(F(one - r)), outer(F(two - r))]
    base = int(n0) - 1
    if exclude_outside:
        c = [F(0) if not 0 <= base + t < ax.L else c[t] for t in range(4)]
        total = F(F(F(c[0] + c[1]) + c[2]) + c[3])
        c = [F(w / total) for w in c]
    return _nonzero([(min(max(base + t, 0), ax.L - 1), c[t]) for t in range(4)])


def _kernel(x: np.float32, cubic: bool, a: np.float32) -> np.float32:
    x = F(abs(x))
    one = F(1)
    if not cubic:
        return F(one - x) if x < one else F(0)
    if x < one:
        return F(F(F(F(F(F(a + F(2)) * x) - F(a + F(3))) * x) * x) + one)
    if x < F(2):
        return F(F(F(F(F(F(x - F(5)) * x) + F(8)) * x) - F(4)) * a)
    return F(0)


def antialias_taps(xs: np.float32, ax: Axis, cubic: bool, a: np.float32, exclude_outside: bool) -> Taps:
    """"`antialias` taps": the kernel stretched by 1/s when downsampling, the window and edge folding."""
    W = F(4) if cubic else F(2)
    half = F(0.5)
    g = F(F(1) / ax.s)
    support = F(F(W * half) * g) if g >= F(1) else F(W * half)
    inv = F(F(1) / g) if g >= F(1) else F(1)
    window = 2 * int(np.ceil(support)) + 1
    c = F(half + xs)
    lo = int(np.floor(F(F(c - support) + half)))
    hi = int(np.floor(F(F(c + support) + half)))
    hi = lo + min(max(hi - lo, 0), window)
    L = ax.L
    if exclude_outside:
        lo, hi = min(max(lo, 0), L), min(max(hi, 0), L)
    js = list(range(lo, hi))
    f = {j: _kernel(F(F(F(F(j) - c) + half) * inv), cubic, a) for j in js}
    total = F(0)
    for j in js:
        total = F(total + f[j])
    inside = [j for j in js if 0 <= j <= L - 1]
    if not exclude_outside and inside:
        for j in js:  # below 0 onto index 0, in window order
            if j < 0:
                f[0] = F(f[0] + f[j])
        for j in js:  # then above L - 1 onto index L - 1
            if j > L - 1:
                f[L - 1] = F(f[L - 1] + f[j])
    scale = F(1) if total == F(0) else F(F(1) / total)
    return _nonzero([(j, F(f[j] * scale)) for j in inside])


def _step(y: np.ndarray, axis: int, taps: Taps) -> np.ndarray:
    """The page's step S over the taps' slices of y along axis."""
    if not taps:
        return np.zeros(y.shape[:axis] + y.shape[axis + 1:], F)
    if len(taps) == 1 and taps[0][1] == F(1):
        return np.take(y, taps[0][0], axis=axis).copy()
    with np.errstate(all="ignore"):
        k, w = taps[0]
        acc = (np.take(y, k, axis=axis) * w).astype(F)
        for k, w in taps[1:]:
            acc = (acc + (np.take(y, k, axis=axis) * w).astype(F)).astype(F)
    return np.where(np.isnan(acc), CANON_NAN, acc).astype(F)


def resize(x: np.ndarray, coord: str, scales: Sequence[float] | None, sizes: Sequence[int] | None, *,
           cubic: bool, antialias: bool, cubic_coeff_a: float = -0.75, exclude_outside: int = 0,
           axes: Sequence[int] | None = None) -> np.ndarray:
    """One float32 Resize node in mode `cubic` (cubic=True) or `linear` with antialias = 1."""
    assert x.dtype == np.float32 and (cubic or antialias)
    geo = geometry(x.shape, scales, sizes, axes)
    out_shape = tuple(ax.Lout for ax in geo)
    if 0 in out_shape:
        return np.zeros(out_shape, F)
    a = F(cubic_coeff_a)
    y = x
    for d in reversed(range(len(geo))):  # the last resized axis first
        ax = geo[d]
        if not ax.resized:
            continue
        cols = []
        for i in range(ax.Lout):
            xs = source(coord, i, ax)
            taps = (antialias_taps(xs, ax, cubic, a, bool(exclude_outside)) if antialias
                    else cubic_taps(xs, ax, a, bool(exclude_outside)))
            cols.append(_step(y, d, taps))
        y = np.stack(cols, axis=d).astype(F)
    return np.ascontiguousarray(y)
