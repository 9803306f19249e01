"""The binary32 building blocks the docs name, written from docs/exact-linalg.md and docs/exact-mode.md alone
(never from the kernels): the exactly rounded fma, exact-linalg's `dot` (blocks of 256, an fma chain per
block, the binary-counter tree) and `sum16`, the correctly rounded Sigmoid and Tanh (MPFR at 200 bits, then
one rounding to binary32 by integer arithmetic), and Softmax's row exponential `rexp`.

Every function takes and returns float32 arrays; each documented rounding happens once.

fma32: a*b of two binary32 values is exact in binary64 (48 significant bits <= 53); the binary64 sum
p + c is made exact with TwoSum (its error term err is exact, no overflow or underflow for binary32 operands),
then rounded to odd in binary64 (s stays when err == 0 or s's last significand bit is 1, else s moves one ulp
toward err). Rounding to odd at 53 bits followed by one round-to-nearest-even to 24 bits is the correctly
rounded result, since 53 >= 24 + 2 (Boldo and Melquiond, "Emulation of FMA and correctly rounded sums: proved
algorithms using rounding to odd", IEEE TC 2008); tests/reference/test_f32_docs_ops.py checks it against
gmpy2's fma in a binary32 context.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

import gmpy2
import numpy as np

from tests.reference.rounding import round_magnitude

F32 = np.float32
CANON_NAN = np.array(0x7FC00000, np.uint32).view(np.float32)


def f32(x: object) -> np.ndarray:
    return np.asarray(x, dtype=np.float32)


def fma32(a: object, b: object, c: object) -> np.ndarray:
    """fl32(a*b + c) exactly rounded (ties to even), elementwise with broadcasting."""
    a32, b32, c32 = np.broadcast_arrays(f32(a), f32(b), f32(c))
    with np.errstate(all="ignore"):
        p = a32.astype(np.float64) * b32.astype(np.float64)
        cc = c32.astype(np.float64)
        s = p + cc
        bv = s - p
        err = (p - (s - bv)) + (cc - bv)
        odd = (s.view(np.uint64) & np.uint64(1)) == 1
        fix = np.isfinite(s) & (err != 0) & ~odd
        toward = np.where(err > 0, np.inf, -np.inf)
        s = np.where(fix, np.nextafter(s, toward), s)
        return s.astype(np.float32)


def dot(a: np.ndarray, w: np.ndarray) -> np.ndarray:
    """exact-linalg.md's MatMul element over the last axis (a and w broadcast): K in blocks of 256, per block
    s = fma(a_k, w_k, s) from +0 with k increasing, the block sums added in the binary-counter tree."""
    a, w = np.broadcast_arrays(f32(a), f32(w))
    K = a.shape[-1]
    shape = a.shape[:-1]
    if K == 0:
        return np.zeros(shape, np.float32)
    blocks = []
    for b0 in range(0, K, 256):
        s = np.zeros(shape, np.float32)
        for k in range(b0, min(b0 + 256, K)):
            s = fma32(a[..., k], w[..., k], s)
        blocks.append(s)
    return _tree(blocks)


def _tree(s: list[np.ndarray]) -> np.ndarray:
    if len(s) == 1:
        return s[0]
    p = 1
    while p * 2 < len(s):
        p *= 2
    return (_tree(s[:p]) + _tree(s[p:])).astype(np.float32)


def sum16(v: np.ndarray) -> np.ndarray:
    """exact-linalg.md's sum16 over the last axis: 16 partials from -0.0, element i into partial i mod 16,
    then the tree h = 8, 4, 2, 1; n = 0 gives +0."""
    v = f32(v)
    n = v.shape[-1]
    if n == 0:
        return np.zeros(v.shape[:-1], np.float32)
    parts = [np.full(v.shape[:-1], -0.0, np.float32) for _ in range(16)]
    for i in range(n):
        parts[i % 16] = (parts[i % 16] + v[..., i]).astype(np.float32)
    for h in (8, 4, 2, 1):
        for lane in range(h):
            parts[lane] = (parts[lane] + parts[lane + h]).astype(np.float32)
    return parts[0]


def _round_f32(y: gmpy2.mpfr) -> np.float32:
    """One round-to-nearest-even of a finite MPFR value to binary32 (subnormals, overflow to infinity)."""
    q = Fraction(*y.as_integer_ratio())
    bits = round_magnitude(q, 8, 23) | (0x80000000 if q < 0 else 0)
    return np.array(bits, np.uint32).view(np.float32)[()]


def _correctly_rounded(fn: Callable[[gmpy2.mpfr], gmpy2.mpfr], x: np.ndarray, at_inf: tuple[float, float],
                       at_zero: Callable[[np.float32], np.float32]) -> np.ndarray:
    x = f32(x)
    out = np.empty(x.shape, np.float32)
    cache: dict[int, np.float32] = {}
    flat_x, flat_o = x.reshape(-1), out.reshape(-1)
    for i, v in enumerate(flat_x):
        key = int(v.view(np.uint32))
        if key not in cache:
            if np.isnan(v):
                cache[key] = CANON_NAN
            elif np.isinf(v):
                cache[key] = np.float32(at_inf[1] if v > 0 else at_inf[0])
            elif v == 0:
                cache[key] = at_zero(v)
            else:
                with gmpy2.context(precision=200):
                    cache[key] = _round_f32(fn(gmpy2.mpfr(float(v))))
        flat_o[i] = cache[key]
    return out


def tanh(x: object) -> np.ndarray:
    """The correctly rounded binary32 tanh (the exact-mode Tanh: tanh(-0) = -0, NaN the canonical NaN)."""
    return _correctly_rounded(gmpy2.tanh, f32(x), (-1.0, 1.0), lambda v: v)


def sigmoid(x: object) -> np.ndarray:
    """The correctly rounded binary32 1/(1+e^-x) (the exact-mode Sigmoid)."""
    return _correctly_rounded(lambda t: 1 / (1 + gmpy2.exp(-t)), f32(x), (0.0, 1.0),
                              lambda v: np.float32(0.5))


_S = F32(12582912.0)
_INVLN2 = F32(float.fromhex("0x1.715476p0"))
_LN2_HI = F32(float.fromhex("0x1.62e4p-1"))
_LN2_LO = F32(float.fromhex("0x1.7f7d1cp-20"))
_C = [F32(float.fromhex(h)) for h in ("0x1p-1", "0x1.5554dep-3", "0x1.55556cp-5", "0x1.120adp-7",
                                      "0x1.6ca9aap-10")]


def rexp(t: object) -> np.ndarray:
    """exact-linalg.md's Softmax row exponential, step by step (t <= 0 or -inf or NaN)."""
    t = f32(t)
    u = np.where(t < F32(-104), F32(-104), t).astype(np.float32)
    kf = (fma32(u, _INVLN2, _S) - _S).astype(np.float32)
    r = fma32(kf, -_LN2_HI, u)
    r = fma32(kf, -_LN2_LO, r)
    q = np.full(t.shape, _C[4], np.float32)
    for c in (_C[3], _C[2], _C[1], _C[0]):
        q = fma32(q, r, c)
    p = fma32(r, fma32(r, q, F32(1)), F32(1))
    with np.errstate(all="ignore"):
        k = np.where(np.isfinite(kf), kf, 0).astype(np.int64)
        out = np.ldexp(p.astype(np.float64), k).astype(np.float32)
    return np.where(np.isnan(t), CANON_NAN, out).astype(np.float32)


def softmax_row(t: np.ndarray) -> np.ndarray:
    """exact-linalg.md's f32 Softmax over the last axis: m = max, e = rexp(t - m), s = sum16(e), r = 1/s,
    w = e*r; a row with a NaN or a non-finite maximum is the canonical NaN everywhere."""
    t = f32(t)
    if t.shape[-1] == 0:
        return t.copy()
    bad = np.isnan(t).any(axis=-1, keepdims=True)
    with np.errstate(all="ignore"):
        m = np.max(t, axis=-1, keepdims=True)
        bad = bad | ~np.isfinite(m)
        e = rexp((t - m).astype(np.float32))
        s = sum16(e)[..., None]
        r = (F32(1) / s).astype(np.float32)
        w = (e * r).astype(np.float32)
    return np.where(bad, CANON_NAN, w).astype(np.float32)
