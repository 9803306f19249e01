"""An independent reference for the exact matrix product (docs/exact-linalg.md, MatMul and Gemm).

K is cut into blocks of KB = 256 (the last one shorter); in each block each element is one chain over k
in increasing order, acc = fma(a_ik, b_kj, acc) from +0 in the accumulation type; the block sums are added
in the binary-counter tree (`block_tree_sum`); then r = alpha*acc and r = r + beta*cin as separately rounded
steps, and one rounding to a 16-bit output. fma in f32 is emulated in numpy (the f64 product of two f32 is
exact; the f64 sum rounded to odd, then rounded to f32), checked against gmpy2's correctly rounded fma by
tests/kernels/test_gemm_kernel.py; fma in f64 is gmpy2's.
"""

from __future__ import annotations

from collections.abc import Callable

import gmpy2
import numpy as np

KB = 256


def fma32(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Correctly rounded f32 a*b + c, element-wise with broadcasting."""
    with np.errstate(all="ignore"):
        p = np.asarray(a, np.float32).astype(np.float64) * np.asarray(b, np.float32).astype(np.float64)
        cc = np.asarray(c, np.float32).astype(np.float64)
        s = p + cc
        bb = s - p
        e = (p - (s - bb)) + (cc - bb)
        bits = np.ascontiguousarray(s).view(np.int64).copy()
        fix = (e != 0) & np.isfinite(s) & ((bits & 1) == 0)
        step = np.where(np.signbit(e) == np.signbit(s), 1, -1).astype(np.int64)
        bits += np.where(fix, step, 0)
        return bits.view(np.float64).astype(np.float32)


_CTX32 = gmpy2.ieee(32)
_CTX64 = gmpy2.ieee(64)


def fma_gmpy(a: float, b: float, c: float, bits: int) -> float:
    """Correctly rounded fma in binary32 (bits=32) or binary64 (bits=64), by MPFR."""
    ctx = _CTX32 if bits == 32 else _CTX64
    with gmpy2.context(ctx):
        r = gmpy2.fma(gmpy2.mpfr(a), gmpy2.mpfr(b), gmpy2.mpfr(c))
        return float(r)


_fma64_vec = np.frompyfunc(lambda a, b, c: fma_gmpy(a, b, c, 64), 3, 1)


def fma64(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        return np.asarray(_fma64_vec(a, b, c), dtype=np.float64)


def canonical_nan(x: np.ndarray) -> np.ndarray:
    """Every NaN replaced by the positive quiet NaN without payload (exact mode's canonical NaN)."""
    x = np.array(x)
    x[np.isnan(x)] = np.nan
    return x


def block_tree_sum(sums: list[np.ndarray], add: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> np.ndarray:
    """The block sums s_0 .. s_{n-1} (n >= 1) added in the binary-counter tree: a stack of (size, sum),
    earlier below; each new sum is pushed, then while the two on top have the same size they become one,
    `below + top`; at the end the stack is folded from the top, `below + top`. Every addition is earlier +
    later."""
    stack: list[tuple[int, np.ndarray]] = []
    for s in sums:
        size, top = 1, s
        while stack and stack[-1][0] == size:
            below = stack.pop()[1]
            size, top = 2 * size, add(below, top)
        stack.append((size, top))
    acc = stack.pop()[1]
    while stack:
        acc = add(stack.pop()[1], acc)
    return acc


def gemm_ref(
    a: np.ndarray, b: np.ndarray, alpha: float = 1.0, beta: float = 1.0, cin: np.ndarray | None = None
) -> np.ndarray:
    """The blocked chains for a [M,K] and b [K,N] (f32, f64 or f16, both the same), Cin broadcast to [M,N]
    or None."""
    dt = a.dtype
    acc_t = np.float64 if dt == np.float64 else np.float32
    fma = fma64 if dt == np.float64 else fma32
    m, k = a.shape
    n = b.shape[1]
    aa = a.astype(acc_t)
    bb = b.astype(acc_t)
    sums = []
    for k0 in range(0, k, KB):
        s = np.zeros((m, n), acc_t)
        for kk in range(k0, min(k0 + KB, k)):
            s = fma(aa[:, kk][:, None], bb[kk, :][None, :], s).astype(acc_t)
        sums.append(s)
    with np.errstate(all="ignore"):
        acc = block_tree_sum(sums, lambda x, y: (x + y).astype(acc_t)) if sums else np.zeros((m, n), acc_t)
    with np.errstate(all="ignore"):
        r = acc
        if alpha != 1.0:
            r = (acc_t(alpha) * r).astype(acc_t)
        if cin is not None:
            c = np.broadcast_to(cin, (m, n)).astype(acc_t)
            if beta != 1.0:
                c = (acc_t(beta) * c).astype(acc_t)
            r = (r + c).astype(acc_t)
        r = canonical_nan(r)
        out = r.astype(dt)
    return canonical_nan(out)
