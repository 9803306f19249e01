"""LpPool, GlobalLpPool (p >= 3; float16, float, double) and LRN (float16, float, double) written from
docs/pooling-norm.md's "LpPool and GlobalLpPool" and "LRN" sections (and the page's opening conventions and
the windowed pools' taps) alone, by a reviewer who has not read the kernels.

Pow: binary32 is the correctly rounded pow (the page: `om_pow_exact_f32`'s contract, docs/exact-pow.md: "the
f32 nearest to the real x^y"), computed here with MPFR at 200 bits and one round-to-nearest-even by integer
arithmetic (tests/reference/rounding.py). binary64 Pow is only specified "within 1 ulp" (IEEE operations,
"exact integer powers first"), so double results are checked for membership in the set the contract allows
(`pow64_candidates`: the binary64 neighbours of the real value, or the value itself and its neighbours when it
is representable), not for one bit pattern."""

from __future__ import annotations

import itertools
from fractions import Fraction

import gmpy2
import numpy as np

from tests.reference.rounding import round_magnitude

F32, F64 = np.float32, np.float64
_FMT = {np.dtype(F32): (8, 23, np.uint32), np.dtype(F64): (11, 52, np.uint64)}


def _exact_pow(x: float, y: float) -> gmpy2.mpfr:
    with gmpy2.context(precision=400):
        return gmpy2.mpfr(x) ** gmpy2.mpfr(y)


def _round(v: gmpy2.mpfr, dt: np.dtype) -> np.floating:
    e, m, u = _FMT[np.dtype(dt)]
    bits = round_magnitude(Fraction(*v.as_integer_ratio()), e, m)
    return np.array(bits, u).view(dt)[()]


def pow_cr(x: np.floating, y: np.floating) -> np.floating:
    """The correctly rounded x^y for x >= 0 (or NaN) and a finite y > 0, in x's type (the f32 Pow's
    contract; for binary64 the middle of the allowed set)."""
    dt = np.asarray(x).dtype
    if np.isnan(x) or x < 0:
        return dt.type(np.nan)
    if x == 0:
        return dt.type(0.0)
    if np.isinf(x):
        return dt.type(np.inf)
    return _round(_exact_pow(float(x), float(y)), dt)


def pow64_candidates(x: float, y: float) -> set[int]:
    """The bit patterns of the binary64 values within 1 ulp of the real x^y (x > 0 finite, y > 0)."""
    v = _exact_pow(x, y)
    with gmpy2.context(precision=53, round=gmpy2.RoundDown):
        lo = float(+v)
    with gmpy2.context(precision=53, round=gmpy2.RoundUp):
        hi = float(+v)
    vals = {lo, hi} if lo != hi else {np.nextafter(lo, -np.inf), lo, np.nextafter(lo, np.inf)}
    return {int(np.array(w, F64).view(np.uint64)) for w in vals}


def window_taps(d: int, k: int, s: int, dil: int, b: int, e: int, ceil_mode: int) -> list[list[int]]:
    """Per output position on one axis (NOTSET pads), the real taps' input positions in tap order."""
    span = dil * (k - 1) + 1
    length = d + b + e - span
    assert length >= 0
    o = (-(-length // s) if ceil_mode else length // s) + 1
    if ceil_mode and (o - 1) * s >= d + b:
        o -= 1
    return [[p for j in range(k) if 0 <= (p := i * s - b + j * dil) < d] for i in range(o)]


def _lp_terms(x: np.ndarray, p: int) -> tuple[np.ndarray, np.floating]:
    """t = Pow(|x|, P) of every element in the accumulation type A (f16 widened exactly), and R = 1 / P."""
    a_t = F64 if x.dtype == F64 else F32
    xa = np.abs(x.astype(a_t))
    big_p = a_t(p)
    t = np.array([pow_cr(v, big_p) for v in xa.reshape(-1)], a_t).reshape(x.shape)
    return t, (a_t(1) / big_p)


def lp_pool(x: np.ndarray, p: int, kernel: tuple[int, ...], strides: tuple[int, ...] | None = None,
            pads: tuple[int, ...] | None = None, dilations: tuple[int, ...] | None = None,
            ceil_mode: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(y, s): LpPool's y for p >= 3 (double: the correctly rounded Pow(s, R), see pow64_candidates) and the
    window sums s in A. Windows in window order, each real tap's t added to s from +0."""
    k = len(kernel)
    strides = strides or (1,) * k
    dilations = dilations or (1,) * k
    pads = pads or (0,) * (2 * k)
    t, r = _lp_terms(x, p)
    axes = [window_taps(x.shape[2 + i], kernel[i], strides[i], dilations[i], pads[i], pads[k + i], ceil_mode)
            for i in range(k)]
    out_sp = tuple(len(a) for a in axes)
    s = np.zeros((*x.shape[:2], *out_sp), t.dtype)
    for o in itertools.product(*(range(n) for n in out_sp)):
        acc = np.zeros(x.shape[:2], t.dtype)
        for pos in itertools.product(*(axes[i][o[i]] for i in range(k))):  # lexicographic, last axis fastest
            acc = (acc + t[(slice(None), slice(None), *pos)]).astype(t.dtype)
        s[(slice(None), slice(None), *o)] = acc
    return _root(s, r, x.dtype), s


def global_lp_pool(x: np.ndarray, p: int) -> tuple[np.ndarray, np.ndarray]:
    """GlobalLpPool: one window over each plane's positions in row-major order."""
    t, r = _lp_terms(x, p)
    n, c = x.shape[:2]
    flat = t.reshape(n, c, -1)
    acc = np.zeros((n, c), t.dtype)
    for i in range(flat.shape[2]):
        acc = (acc + flat[:, :, i]).astype(t.dtype)
    s = acc.reshape(n, c, *([1] * (x.ndim - 2)))
    return _root(s, r, x.dtype), s


def _root(s: np.ndarray, r: np.floating, out: np.dtype) -> np.ndarray:
    y = np.array([pow_cr(v, r) for v in s.reshape(-1)], s.dtype).reshape(s.shape)
    y = np.where(np.isnan(y), s.dtype.type(np.nan), y)  # the canonical quiet NaN (numpy's nan is it)
    return y.astype(out)  # float16: one nearest-even rounding


def lrn(x: np.ndarray, size: int, alpha: float = 1e-4, beta: float = 0.75, bias: float = 1.0
        ) -> tuple[np.ndarray, np.ndarray, np.floating]:
    """(y, d, beta_A): LRN's y (double: with the correctly rounded Pow, see pow64_candidates), the d of every
    element and beta in A. The attributes are binary32; double converts them exactly."""
    a_t = F64 if x.dtype == F64 else F32
    xa = x.astype(a_t)
    c = x.shape[1]
    lo = (size - 1) // 2
    hi = size - 1 - lo
    s = np.zeros(xa.shape, a_t)
    for ch in range(c):
        acc = np.zeros(xa[:, ch].shape, a_t)
        for i in range(max(0, ch - lo), min(c - 1, ch + hi) + 1):
            acc = (acc + (xa[:, i] * xa[:, i]).astype(a_t)).astype(a_t)
        s[:, ch] = acc
    al, be, bi = (a_t(F32(v)) for v in (alpha, beta, bias))
    a = (al / a_t(size)).astype(a_t)
    with np.errstate(all="ignore"):
        d = (bi + (a * s).astype(a_t)).astype(a_t)
        p = np.array([pow_cr(v, be) for v in d.reshape(-1)], a_t).reshape(d.shape)
        y = (xa / p).astype(a_t)
    y = np.where(np.isnan(y), a_t(np.nan), y)
    return y.astype(x.dtype), d, be


def lrn64_allowed(x: float, d: float, beta: float) -> set[int]:
    """The bit patterns y = RN64(x / p) may take when p is any binary64 within 1 ulp of the real d^beta."""
    out = set()
    for pb in pow64_candidates(d, beta):
        p = np.array(pb, np.uint64).view(F64)[()]
        out.add(int(np.array(F64(x) / p, F64).view(np.uint64)))
    return out

