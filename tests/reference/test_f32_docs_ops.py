"""f32_docs_ops's fma32 against MPFR's fma in a binary32 context (random, cancelling and tie-making operands,
subnormal results), and its Sigmoid/Tanh against MPFR's correctly rounded tanh in that context and NumPy's
float64 within half an ulp."""

from __future__ import annotations

import gmpy2
import numpy as np

from tests.reference import f32_docs_ops as D

CTX = gmpy2.context(precision=24, emin=-148, emax=128, subnormalize=True)


def _mpfr_fma(a: np.float32, b: np.float32, c: np.float32) -> np.float32:
    with gmpy2.context(CTX):
        v = gmpy2.fma(gmpy2.mpfr(float(a)), gmpy2.mpfr(float(b)), gmpy2.mpfr(float(c)))
        return np.float32(float(v))


def _operands(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    a = (rng.standard_normal(n) * 2.0 ** rng.integers(-70, 70, n)).astype(np.float32)
    b = (rng.standard_normal(n) * 2.0 ** rng.integers(-70, 70, n)).astype(np.float32)
    c = (rng.standard_normal(n) * 2.0 ** rng.integers(-140, 140, n)).astype(np.float32)
    near = rng.random(n) < 0.5  # c close to -a*b: cancellation and results with bits far below a*b's
    c[near] = (-(a[near].astype(np.float64) * b[near]) * (1 + rng.integers(-3, 4, near.sum()) * 2.0**-24)
               ).astype(np.float32)
    tiny = rng.random(n) < 0.1  # subnormal products and results
    a[tiny] = (rng.standard_normal(tiny.sum()) * 2.0**-70).astype(np.float32)
    b[tiny] = (rng.standard_normal(tiny.sum()) * 2.0**-70).astype(np.float32)
    c[tiny] = (rng.standard_normal(tiny.sum()) * 2.0**-140).astype(np.float32)
    return a, b, c


def test_fma32_matches_mpfr() -> None:
    rng = np.random.default_rng(0)
    a, b, c = _operands(rng, 20000)
    # ties of the f32 rounding: a*b one f32 ulp-half off a representable c
    a[:100] = np.float32(1 + 2.0**-12)
    b[:100] = np.float32(1 + 2.0**-12)  # a*b = 1 + 2^-11 + 2^-24: a tie between 1 + 2^-11 and its neighbour
    c[:100] = np.float32(0)
    c[:50] = np.float32(2.0**-60)  # just above the tie: float64 first rounds it onto the tie, then to even
    got = D.fma32(a, b, c)
    want = np.array([_mpfr_fma(x, y, z) for x, y, z in zip(a, b, c)], np.float32)
    assert got.view(np.uint32).tolist() == want.view(np.uint32).tolist()
    # the naive float64 evaluation double-rounds somewhere in this set: the test can tell them apart
    naive = (a.astype(np.float64) * b + c).astype(np.float32)
    assert (naive.view(np.uint32) != want.view(np.uint32)).any()


def test_tanh_sigmoid_correctly_rounded() -> None:
    rng = np.random.default_rng(1)
    x = (rng.standard_normal(3000) * 2.0 ** rng.integers(-30, 5, 3000)).astype(np.float32)
    got = D.tanh(x)
    with gmpy2.context(CTX):
        want = np.array([float(gmpy2.tanh(gmpy2.mpfr(float(v)))) for v in x], np.float32)
    assert got.view(np.uint32).tolist() == want.view(np.uint32).tolist()
    sig = D.sigmoid(x).astype(np.float64)
    ref = 1.0 / (1.0 + np.exp(-x.astype(np.float64)))
    assert np.all(np.abs(sig - ref) <= 0.5 * np.spacing(np.abs(ref).astype(np.float32)) * (1 + 1e-9))
    assert D.tanh(np.float32(-0.0)).view(np.uint32) == 0x80000000
    assert D.sigmoid(np.float32(np.nan)).view(np.uint32) == 0x7FC00000


def test_rexp_close_to_exp() -> None:
    t = -np.linspace(0, 103, 5001).astype(np.float32)
    e = D.rexp(t).astype(np.float64)
    ref = np.exp(t.astype(np.float64))
    assert np.all(np.abs(e - ref) <= 0.95 * np.spacing(ref.astype(np.float32)).astype(np.float64))
    assert D.rexp(np.float32(-np.inf)) == 0


def test_dot_tree_and_sum16_order() -> None:
    # K = 513: three blocks, (b0 + b1) + b2; each block a chain; -0 never returned
    a = np.ones(513, np.float32)
    w = np.zeros(513, np.float32)
    w[0], w[256], w[512] = np.float32(2.0**25), np.float32(1), np.float32(1)
    # chain: block0 = 2^25, block1 = 1, block2 = 1; (2^25 + 1) rounds to 2^25 (tie to even), + 1 again
    assert D.dot(a, w) == np.float32(2.0**25)
    assert D.dot(np.array([-1.0], np.float32), np.array([0.0], np.float32)).view(np.uint32) == 0
    v = np.zeros(17, np.float32)
    v[0], v[16], v[8] = np.float32(2.0**24), np.float32(1), np.float32(1)
    # partial 0 = 2^24 + 1 -> 2^24; partial 8 = 1; tree: 2^24 + 1 -> 2^24
    assert D.sum16(v) == np.float32(2.0**24)
    assert D.sum16(-np.zeros(3, np.float32)).view(np.uint32) == 0x80000000
