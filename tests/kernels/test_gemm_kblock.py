"""The blocked order of the matrix product (docs/gemm.md): K in blocks of KB, each block one fma chain from
+0, the block sums added in a fixed binary-counter tree. Its bound, gamma_n * sum|a b| with
n = min(K, KB) + ceil(log2(ceil(K / KB))), grows like log K past KB; one chain over all of K (the order
before BITS_VERSION 2) only meets gamma_K and fails this test. Bits against the reference at many block
counts."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from tests.kernels.test_gemm_kernel import PATHS, assert_bits, run
from tests.reference.gemm_reference import KB, gemm_ref

U32 = 2.0**-24


def blocked_gamma(k: int, u: float) -> float:
    """gamma_n of the blocked order: at most min(K, KB) roundings in a block's chain, then the tree's
    depth."""
    blocks = -(-k // KB)
    n = min(k, KB) + (math.ceil(math.log2(blocks)) if blocks > 1 else 0)
    return n * u / (1 - n * u)


def exact_dot(a: np.ndarray, b: np.ndarray) -> tuple[Fraction, Fraction]:
    """sum a_k b_k and sum |a_k b_k| exactly (f32 operands: each product is exact in f64; scaled by 2^S, an
    integer, checked)."""
    p = a.astype(np.float64) * b.astype(np.float64)
    s = 160
    scaled = np.ldexp(p, s)
    assert np.all(np.isfinite(scaled)) and np.all(np.floor(scaled) == scaled)
    ints = [int(x) for x in scaled]
    return Fraction(sum(ints), 2**s), Fraction(sum(abs(x) for x in ints), 2**s)


def check_bound(a: np.ndarray, b: np.ndarray, got: np.ndarray, what: str) -> None:
    k = a.shape[1]
    gamma = Fraction(blocked_gamma(k, U32))
    for i in range(a.shape[0]):
        for j in range(b.shape[1]):
            exact, mag = exact_dot(a[i], b[:, j])
            err = abs(Fraction(float(got[i, j])) - exact)
            assert err <= gamma * mag, (what, i, j, float(err), float(gamma * mag))


@pytest.mark.parametrize("shape", [(1, 1), (4, 4)])
def test_k_million_random_within_log_bound(shape):
    m, n = shape
    k = 1_000_000
    rng = np.random.default_rng(39)
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    for path in PATHS:
        check_bound(a, b, run(a, b, path=path), f"path {path}")


def test_k_million_same_sign_within_log_bound():
    """Every product 0.1f: one chain's sum grows to 1e5, where each addition rounds by up to 4% of a term, all
    the same way; the blocked sums stay small and the tree adds few of them."""
    k = 1_000_000
    a = np.full((2, k), 0.1, np.float32)
    b = np.ones((k, 3), np.float32)
    for path in PATHS:
        check_bound(a, b, run(a, b, path=path), f"path {path}")


@pytest.mark.parametrize("blocks,rest", [(2, 0), (3, 1), (4, 255), (5, 7), (7, 0), (8, 3), (11, 100)])
def test_many_blocks_bits(blocks, rest):
    """Trees of every shape up to 11 leaves, bit for bit against the reference on every path and thread
    count (the partial block last)."""
    k = (blocks - 1) * KB + (rest or KB)
    rng = np.random.default_rng(blocks * 1000 + rest)
    a = (rng.standard_normal((7, k)) * np.exp2(rng.integers(-6, 7, (7, k)))).astype(np.float32)
    b = (rng.standard_normal((k, 19)) * np.exp2(rng.integers(-6, 7, (k, 19)))).astype(np.float32)
    want = gemm_ref(a, b)
    for path in PATHS:
        for threads in (1, 3):
            assert_bits(run(a, b, path=path, threads=threads), want, f"K={k} path {path} threads {threads}")
        assert_bits(run(a, b, path=path, prepack=True), want, f"K={k} path {path} packed B")
        assert_bits(run(np.asfortranarray(a), b, path=path), want, f"K={k} path {path} A column-major")
