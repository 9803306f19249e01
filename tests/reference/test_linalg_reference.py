"""tests/reference/reference_linalg.py checked against exact or float64 math, then the library's kernels
against it.

Part 1 checks the reference itself: its fma against MPFR and exact rationals, sum16's lane order on cases
worked by hand, and each operator within a stated error bound of exact (Fraction) or float64 math.

Part 2 runs each operator as a one-node model through onemodel_ep.InferenceSession on every kernel path
(exact mode; the default way in, and the rewrite path on the scalar path too) and requires the reference's
bits (f64 results that use exp or log: the same bits on every path and within a bound of the reference,
whose f64 exp and log are correctly rounded while the library's may be 1 ulp off). An operator the library
does not serve yet is skipped with its name in the reason.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

import gmpy2
import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

import onemodel_ep
from tests.reference import reference_linalg as R

U32 = 2.0**-24
U64 = 2.0**-53
RNG_SEED = 20261201


def gamma(n: int, u: float) -> float:
    return n * u / (1 - n * u)


def f32(*v: float) -> np.ndarray:
    return np.array(v, dtype=np.float32)


def mpfr_fma32(a: float, b: float, c: float) -> float:
    with gmpy2.context(gmpy2.ieee(32)):
        return float(gmpy2.fma(gmpy2.mpfr(a), gmpy2.mpfr(b), gmpy2.mpfr(c)))


def awkward_f32(rng: np.random.Generator, n: int) -> np.ndarray:
    """Normals at many scales, with exact cancellations, signed zeros, subnormals and huge values."""
    x = rng.standard_normal(n) * 2.0 ** rng.integers(-30, 30, n)
    pick = rng.integers(0, 12, n)
    x = np.where(pick == 0, 0.0, x)
    x = np.where(pick == 1, -0.0, x)
    x = np.where(pick == 2, rng.standard_normal(n) * 2.0**-140, x)  # subnormal
    x = np.where(pick == 3, rng.standard_normal(n) * 2.0**120, x)
    x = np.where(pick == 4, 1.0 + rng.integers(-4, 4, n) * 2.0**-23, x)
    return x.astype(np.float32)


# ============================== Part 1: the reference itself ==============================


def test_fma_f32_round_to_odd_beats_double_rounding() -> None:
    # exact = 1 + 2^-23 + 2^-24 - 2^-70: f64 rounds it to the f32 midpoint, ties-to-even would then give
    # 1 + 2^-22; the correct f32 result is 1 + 2^-23.
    a, b, c = 1 + 2.0**-23, (1 - 2.0**-23) * 2.0**-24, 1 + 2.0**-23
    naive = np.float32(np.float64(a) * np.float64(b) + np.float64(c))
    assert float(naive) == 1 + 2.0**-22
    got = R.fma_f32(f32(a), f32(b), f32(c))[0]
    assert float(got) == 1 + 2.0**-23 == mpfr_fma32(a, b, c)
    # mirrored: exact just above a midpoint whose lower neighbour is even
    a2, b2, c2 = 1 + 2.0**-23, (1 + 2.0**-23) * 2.0**-24, 1.0
    got2 = R.fma_f32(f32(a2), f32(b2), f32(c2))[0]
    assert float(got2) == mpfr_fma32(a2, b2, c2) == 1 + 2.0**-23


def test_fma_f32_matches_mpfr() -> None:
    rng = np.random.default_rng(RNG_SEED)
    n = 20000
    a, b = awkward_f32(rng, n), awkward_f32(rng, n)
    with np.errstate(over="ignore"):  # half the cases cancel the product almost exactly
        c = np.where(rng.integers(0, 2, n) == 0, awkward_f32(rng, n), -(a.astype(np.float64) * b))
        c = c.astype(np.float32)
    specials = f32(np.inf, -np.inf, np.nan, 0.0, -0.0, 1.0, -1.0, 3.4e38, 1e-45)
    sa, sb, sc = np.meshgrid(specials, specials, specials, indexing="ij")
    a, b, c = (np.concatenate([v, s.ravel()]) for v, s in ((a, sa), (b, sb), (c, sc)))
    got = R.fma_f32(a, b, c)
    want = np.array([mpfr_fma32(float(x), float(y), float(z)) for x, y, z in zip(a, b, c)], dtype=np.float32)
    bad = ~R.bits_equal(got, want)
    assert not bad.any(), list(zip(a[bad][:5], b[bad][:5], c[bad][:5]))


def test_fma_f64_matches_exact_rationals() -> None:
    rng = np.random.default_rng(RNG_SEED + 1)
    a = rng.standard_normal(3000) * 2.0 ** rng.integers(-540, 500, 3000)  # products reach the subnormals
    b = rng.standard_normal(3000) * 2.0 ** rng.integers(-540, 500, 3000)
    c = np.where(rng.integers(0, 2, 3000) == 0, rng.standard_normal(3000), -(a * b))
    got = R.fma_f64(a, b, c)
    for x, y, z, g in zip(a, b, c, got):
        exact = Fraction(x) * Fraction(y) + Fraction(z)
        want = float(exact)  # int / int true division: correctly rounded, subnormals included
        assert g == want and math.copysign(1, g) == math.copysign(1, want) or (g == 0 and want == 0)
    assert R.fma_f64(np.float64(1 + 2.0**-52), np.float64(1 - 2.0**-52), np.float64(-1.0)) == -(2.0**-104)
    assert math.copysign(1, float(R.fma_f64(np.float64(-1.0), np.float64(0.0), np.float64(0.0)))) == 1.0


def test_sum16_lane_order_by_hand() -> None:
    t = 2.0**-24
    # lanes 1 and 17 -> lane 1 holds 2^-23, added to lane 0 (1.0) at the last tree step: exact
    v = np.zeros(18, np.float32)
    v[0], v[1], v[17] = 1.0, t, t
    assert float(R.sum16(v)) == 1 + 2.0**-23
    # the same values in one lane round twice (ties to even): 1.0
    v = np.zeros(33, np.float32)
    v[0], v[16], v[32] = 1.0, t, t
    assert float(R.sum16(v)) == 1.0
    # the tree: lane 8 folds into lane 0 first (1 + 2^-24 -> 1), lanes 4 + 12 give 2^-23, added next: exact
    v = np.zeros(13, np.float32)
    v[0], v[8], v[4], v[12] = 1.0, t, t, t
    assert float(R.sum16(v)) == 1 + 2.0**-23
    # lane 0 and lane 8 folded before lane 0 and lane 4: 2^24 + 1 + 1 (lane 8, lane 4) = 2^24 + 2 only if
    # the two ones meet first; with the halving tree, 2^24 + 1 (h=8) ties to 2^24, then + 1 again: 2^24
    v = np.zeros(9, np.float32)
    v[0], v[8], v[4] = 2.0**24, 1.0, 1.0
    assert float(R.sum16(v)) == 2.0**24


def test_sum16_signed_zeros_and_empty() -> None:
    assert math.copysign(1, float(R.sum16(np.zeros(0, np.float32)))) == 1.0  # n = 0: +0
    assert math.copysign(1, float(R.sum16(f32(-0.0, -0.0, -0.0)))) == -1.0  # -0 partials stay -0
    assert math.copysign(1, float(R.sum16(f32(0.0)))) == 1.0
    assert math.copysign(1, float(R.sum16(f32(-0.0, 0.0)))) == 1.0
    assert float(R.prod16(np.zeros(0, np.float32))) == 1.0
    assert np.isnan(R.sum16(f32(np.inf, -np.inf)))


def test_prod16_lane_order_by_hand() -> None:
    # (1 + 2^-23) twice in one lane: 1 + 2^-22 + 2^-46 rounds to 1 + 2^-22; in two lanes the same; a third
    # factor in lane 16 of the first lane shows the order: lane 0 = (1+e)^2 rounded, times lane 1's (1+e).
    e = 2.0**-23
    v = np.ones(17, np.float32)
    v[0], v[16], v[1] = 1 + e, 1 + e, 1 + e
    lane0 = np.float32(np.float32(1 + e) * np.float32(1 + e))
    assert R.prod16(v) == np.float32(lane0 * np.float32(1 + e))


def test_max_min_signed_zero_and_nan() -> None:
    assert math.copysign(1, float(R.max_(f32(-0.0, 0.0)))) == 1.0
    assert math.copysign(1, float(R.max_(f32(0.0, -0.0)))) == 1.0
    assert math.copysign(1, float(R.min_(f32(0.0, -0.0)))) == -1.0
    assert math.copysign(1, float(R.max_(f32(-0.0, -0.0)))) == -1.0
    assert np.isnan(R.max_(f32(1.0, np.nan, np.inf)))
    assert np.isnan(R.min_(f32(np.nan, -np.inf)))
    assert R.max_(f32(-np.inf, -3.0)) == -3.0


def _exact_dot(a: np.ndarray, b: np.ndarray) -> tuple[Fraction, Fraction]:
    s = sum((Fraction(float(x)) * Fraction(float(y)) for x, y in zip(a, b)), Fraction(0))
    mag = sum((abs(Fraction(float(x)) * Fraction(float(y))) for x, y in zip(a, b)), Fraction(0))
    return s, mag


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("k", [1, 3, 15, 16, 17, 33, 100])
def test_matmul_within_gamma_k(dtype: type, k: int) -> None:
    rng = np.random.default_rng(k)
    a = rng.standard_normal((3, k)).astype(dtype)
    b = rng.standard_normal((k, 4)).astype(dtype)
    r = R.matmul(a, b)
    u = U32 if dtype == np.float32 else U64
    for i in range(3):
        for j in range(4):
            s, mag = _exact_dot(a[i], b[:, j])
            assert abs(Fraction(float(r[i, j])) - s) <= Fraction(gamma(k, u)) * mag


def test_matmul_chain_is_scalar_fma_loop() -> None:
    """The vectorized chain equals a plain loop of MPFR fmas, k increasing, from +0."""
    rng = np.random.default_rng(3)
    a, b = awkward_f32(rng, 3 * 17).reshape(3, 17), awkward_f32(rng, 17 * 2).reshape(17, 2)
    r = R.matmul(a, b)
    for i in range(3):
        for j in range(2):
            acc = 0.0
            for k in range(17):
                acc = mpfr_fma32(float(a[i, k]), float(b[k, j]), acc)
            assert R.bits_equal(r[i, j], np.float32(acc))


@pytest.mark.parametrize(("sa", "sb"), [((5,), (5,)), ((5,), (5, 3)), ((2, 5), (5,)),
                                        ((2, 1, 3, 5), (4, 5, 2)), ((3, 0), (0, 2)), ((1, 2, 5), (5, 3))])
def test_matmul_shapes_follow_numpy(sa: tuple[int, ...], sb: tuple[int, ...]) -> None:
    rng = np.random.default_rng(4)
    a = rng.standard_normal(sa).astype(np.float32)
    b = rng.standard_normal(sb).astype(np.float32)
    r = R.matmul(a, b)
    want = np.matmul(a.astype(np.float64), b.astype(np.float64))
    assert r.shape == want.shape and r.dtype == np.float32
    np.testing.assert_allclose(r, want, rtol=1e-5, atol=1e-5)
    if 0 in sa:
        assert not np.signbit(r).any()  # K = 0: +0


@pytest.mark.parametrize("trans_a", [0, 1])
@pytest.mark.parametrize("trans_b", [0, 1])
@pytest.mark.parametrize(("alpha", "beta", "c_shape"), [(1.0, 1.0, None), (0.5, -1.25, (4,)),
                                                         (-2.0, 3.0, (3, 1)), (1.0, 0.5, (3, 4))])
def test_gemm_against_float64(trans_a: int, trans_b: int, alpha: float, beta: float,
                              c_shape: tuple[int, ...] | None) -> None:
    rng = np.random.default_rng(5)
    a = rng.standard_normal((17, 3) if trans_a else (3, 17)).astype(np.float32)
    b = rng.standard_normal((4, 17) if trans_b else (17, 4)).astype(np.float32)
    c = None if c_shape is None else rng.standard_normal(c_shape).astype(np.float32)
    r = R.gemm(a, b, c, alpha, beta, trans_a, trans_b)
    a64 = (a.T if trans_a else a).astype(np.float64)
    b64 = (b.T if trans_b else b).astype(np.float64)
    want = alpha * (a64 @ b64) + (0 if c is None else beta * c.astype(np.float64))
    # gamma_17 on the chain, scaled by |alpha|, plus one rounding each for alpha*, beta* and +
    mag = abs(alpha) * (np.abs(a64) @ np.abs(b64)) * (1 + U32)
    cmag = 0 if c is None else abs(beta) * np.abs(c.astype(np.float64))
    bound = gamma(17, U32) * mag + 2 * U32 * (mag + cmag) + U32 * np.abs(want)
    assert r.shape == (3, 4) and np.all(np.abs(r - want) <= bound)


def test_exp_log_are_correctly_rounded() -> None:
    rng = np.random.default_rng(6)
    x = (rng.standard_normal(5000) * 30).astype(np.float32)
    x = x[np.abs(x) < 88]  # no overflow
    e = R.exp(x)
    e64 = np.exp(x.astype(np.float64))
    # fl32(e64) is the correct rounding unless e64 lies within 2^-40 (relative) of an f32 midpoint
    near = np.abs(e64 - np.float32(e64).astype(np.float64)) > (0.5 - 2.0**-16) * np.spacing(np.float32(e64))
    assert np.all((e == np.float32(e64)) | near)
    y = np.abs(x) + np.float32(1e-3)
    lg = R.log(y)
    assert np.all((lg == np.float32(np.log(y.astype(np.float64)))) | (lg == 0))
    assert R.exp(f32(-np.inf))[0] == 0 and R.exp(f32(np.inf))[0] == np.inf and np.isnan(R.exp(f32(np.nan))[0])
    assert R.exp(f32(-104.0))[0] == 0 and R.exp(f32(-103.0))[0] > 0  # the subnormal range, rounded
    assert R.log(f32(-0.0))[0] == -np.inf and np.isnan(R.log(f32(-1.0))[0])


@pytest.mark.parametrize("n", [1, 3, 15, 16, 17, 33])
@pytest.mark.parametrize("log_", [False, True])
def test_softmax_within_bound(n: int, log_: bool) -> None:
    rng = np.random.default_rng(n)
    x = (rng.standard_normal((4, n)) * 5).astype(np.float32)
    y = (R.log_softmax if log_ else R.softmax)(x, axis=-1)
    x64 = x.astype(np.float64)
    d64 = x64 - x64.max(-1, keepdims=True)
    s64 = np.exp(d64).sum(-1, keepdims=True)
    # first order: d rounded (u|d|), exp (u), sum16 (gamma_{n-1}), / or - log (u, u|log s|, u|y|)
    if log_:
        want = d64 - np.log(s64)
        bound = 2 * U32 * (np.abs(d64) + np.abs(np.log(s64)) + np.abs(want) + n + 2)
    else:
        want = np.exp(d64) / s64
        bound = 2 * U32 * (np.abs(d64) + n + 3) * want
    assert np.all(np.abs(y - want) <= bound)


def test_softmax_special_rows() -> None:
    x = f32(-np.inf, 0.0, 1.0, -np.inf)[None]
    y = R.softmax(x)
    assert y[0, 0] == 0 and y[0, 3] == 0 and not np.signbit(y[0, 0])
    assert R.log_softmax(x)[0, 0] == -np.inf
    for row in ([np.inf, 1.0], [np.nan, 1.0], [-np.inf, -np.inf]):
        assert np.all(np.isnan(R.softmax(f32(*row)[None])))
        assert np.all(np.isnan(R.log_softmax(f32(*row)[None])))
    y = R.softmax(f32(100.0, 100.0, -100.0)[None])  # no overflow: the maximum is subtracted first
    assert y[0, 0] == np.float32(0.5) and y[0, 2] == 0


def test_softmax_opset11_coerces_to_2d() -> None:
    rng = np.random.default_rng(7)
    x = rng.standard_normal((2, 3, 5)).astype(np.float32)
    y11 = R.softmax(x, axis=1, opset=11)
    y13 = R.softmax(x.reshape(2, 15), axis=-1).reshape(2, 3, 5)
    assert R.bits_equal(y11, y13).all()
    assert np.allclose(y11.reshape(2, 15).sum(-1), 1, atol=1e-6)


@pytest.mark.parametrize("n", [1, 3, 15, 16, 17, 33])
def test_layer_norm_within_bound(n: int) -> None:
    rng = np.random.default_rng(n + 100)
    x = (rng.standard_normal((3, n)) + 2).astype(np.float32)
    scale = (1 + 0.1 * rng.standard_normal(n)).astype(np.float32)
    bias = (0.1 * rng.standard_normal(n)).astype(np.float32)
    y, mean, inv = R.layer_norm(x, scale, bias, axis=-1, epsilon=1e-5)
    x64 = x.astype(np.float64)
    m64 = x64.mean(-1, keepdims=True)
    v64 = ((x64 - m64) ** 2).mean(-1, keepdims=True)
    inv64 = 1 / np.sqrt(v64 + np.float64(np.float32(1e-5)))
    want = (x64 - m64) * inv64 * scale + bias
    assert np.all(np.abs(mean - m64) <= (gamma(n, U32) + U32) * np.abs(x64).mean(-1, keepdims=True))
    # inv: var's error (d's own error included) over 2 var, plus sqrt and /; relative
    var_rel = 2 * (n + 4) * U32 * (np.abs(x64).max(-1, keepdims=True) + np.abs(m64)) ** 2 / (v64 + 1e-5)
    assert np.all(np.abs(inv - inv64) <= (var_rel / 2 + 3 * U32) * inv64)
    bound = (np.abs(x64) + np.abs(m64) + 1) * inv64 * np.abs(scale) * (var_rel / 2 + (n + 8) * U32) \
        + U32 * np.abs(bias)
    assert y.shape == x.shape and mean.shape == (3, 1) and np.all(np.abs(y - want) <= bound)


def test_layer_norm_leading_axis_and_no_bias() -> None:
    rng = np.random.default_rng(8)
    x = rng.standard_normal((2, 3, 4)).astype(np.float32)
    scale = rng.standard_normal((3, 4)).astype(np.float32)
    y, mean, inv = R.layer_norm(x, scale, None, axis=1)
    y2, _, _ = R.layer_norm(x.reshape(2, 12), scale.reshape(12), None, axis=-1)
    assert mean.shape == (2, 1, 1) and inv.shape == (2, 1, 1)
    assert R.bits_equal(y, y2.reshape(2, 3, 4)).all()


def _reduce64(op: str, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """float64 value of op over the last axis, and the bound the f32 reference must meet."""
    x = x.astype(np.float64)
    n = x.shape[-1]
    g = gamma(max(n, 1), U32)
    ab = np.abs(x).sum(-1)
    if op == "ReduceSum":
        return x.sum(-1), g * ab
    if op == "ReduceMean":
        return x.mean(-1), (g + U32) * ab / n
    if op == "ReduceProd":
        p = x.prod(-1)
        return p, gamma(n + 1, U32) * np.abs(p)
    if op == "ReduceSumSquare":
        return (x * x).sum(-1), gamma(n + 1, U32) * (x * x).sum(-1)
    if op == "ReduceL1":
        return ab, g * ab
    if op == "ReduceL2":
        v = np.sqrt((x * x).sum(-1))
        return v, gamma(n + 2, U32) * v
    if op == "ReduceLogSum":
        s = x.sum(-1)
        return np.log(s), g * ab / np.abs(s) * 1.01 + U32 * np.abs(np.log(s)) * 2
    if op == "ReduceLogSumExp":
        m = x.max(-1)
        s = np.exp(x - m[..., None]).sum(-1)
        v = m + np.log(s)
        dmax = np.abs(x - m[..., None]).max(-1)
        return v, 2 * U32 * (dmax + n + 3 + np.abs(np.log(s)) + np.abs(v))
    if op == "ReduceMax":
        return x.max(-1), np.zeros(x.shape[:-1])
    if op == "ReduceMin":
        return x.min(-1), np.zeros(x.shape[:-1])
    raise AssertionError(op)


@pytest.mark.parametrize("op", R.REDUCE_OPS)
@pytest.mark.parametrize("n", [1, 3, 15, 16, 17, 33])
def test_reduce_within_bound(op: str, n: int) -> None:
    rng = np.random.default_rng(n + 200)
    if op in ("ReduceLogSum", "ReduceProd"):
        x = rng.uniform(0.5, 1.5, (3, n)).astype(np.float32)
    else:
        x = (rng.standard_normal((3, n)) * 3).astype(np.float32)
    got = R.reduce(op, x, [-1], keepdims=0)
    want, bound = _reduce64(op, x)
    assert got.shape == (3,) and np.all(np.abs(got - want) <= bound), (got, want, bound)


def test_reduce_axes_order_and_keepdims() -> None:
    rng = np.random.default_rng(9)
    x = rng.standard_normal((3, 4, 5)).astype(np.float32)
    r = R.reduce("ReduceSum", x, [2, 0], keepdims=1)
    assert r.shape == (1, 4, 1)
    # the sequence for column j is x[0, j, 0..4], x[1, j, 0..4], x[2, j, 0..4] (axis 0, then axis 2)
    for j in range(4):
        assert R.bits_equal(r[0, j, 0], R.sum16(x[:, j, :].reshape(-1)))
    assert R.reduce("ReduceSum", x, None, keepdims=0).shape == ()
    assert R.bits_equal(R.reduce("ReduceSum", x, [-1, -3], 0), R.reduce("ReduceSum", x, [0, 2], 0)).all()


def test_reduce_integers_wrap_and_truncate() -> None:
    x = np.array([[2**31 - 1, 1, 6], [-7, 2, 0]], dtype=np.int32)
    assert R.reduce("ReduceSum", x, [1], 0).tolist() == [-(2**31) + 6, -5]
    assert R.reduce("ReduceMean", x, [1], 0).tolist() == [-715827880, -1]  # -715827880.67, -1.67: toward 0
    assert R.reduce("ReduceProd", np.array([[2**16, 2**16, 3]], np.int32), [1], 0).tolist() == [0]
    assert R.reduce("ReduceL1", np.array([[-(2**31), 1]], np.int32), [1], 0).tolist() == [-(2**31) + 1]
    assert R.reduce("ReduceSumSquare", np.array([[3, -4]], np.int64), [1], 0).tolist() == [25]
    assert R.reduce("ReduceMax", x, [1], 0).tolist() == [2**31 - 1, 2]


def test_reduce_log_sum_exp_special_maxima() -> None:
    # m = +inf, -inf or NaN: log(sum16(exp(x))) instead of m + log(...) (which would give NaN for -inf rows)
    x = f32(np.inf, 1.0, -np.inf, -np.inf, np.nan, 1.0, -np.inf, 0.0).reshape(4, 2)
    got = R.reduce("ReduceLogSumExp", x, [1], 0)
    assert got[0] == np.inf and got[1] == -np.inf and np.isnan(got[2])
    assert got[3] == 0 and not np.signbit(got[3])  # [-inf, 0]: max 0, 0 + log(0 + 1)
    assert float(R.reduce("ReduceLogSumExp", f32(88.0, 88.0)[None], [1], 0)[0]) == float(
        np.float32(88.0) + R.log(f32(2.0))[0])  # shifted, no overflow


def test_bits_equal_tells_signed_zeros_apart() -> None:
    assert not R.bits_equal(f32(0.0), f32(-0.0)).any()
    assert R.bits_equal(f32(np.nan), -f32(np.nan)).all()
    assert not R.bits_equal(np.array([1.0], np.float16), np.array([1.0009765625], np.float16)).any()


def test_reduce_f16_rounds_once() -> None:
    rng = np.random.default_rng(10)
    x = rng.standard_normal((2, 33)).astype(np.float16)
    for op in ("ReduceSum", "ReduceMean", "ReduceL2"):
        got = R.reduce(op, x, [1], 0)
        assert got.dtype == np.float16
        assert R.bits_equal(got, R.reduce(op, x.astype(np.float32), [1], 0).astype(np.float16)).all()


# ============================== Part 2: the library's kernels against the reference =========================

NP_TO_ONNX = {np.dtype(np.float32): TensorProto.FLOAT, np.dtype(np.float16): TensorProto.FLOAT16,
              np.dtype(np.float64): TensorProto.DOUBLE, R.BF16: TensorProto.BFLOAT16,
              np.dtype(np.int32): TensorProto.INT32, np.dtype(np.int64): TensorProto.INT64}
F32T, F16T, F64T = np.dtype(np.float32), np.dtype(np.float16), np.dtype(np.float64)
FLOAT_TYPES = [F32T, F16T, F64T]


@dataclass
class Case:
    """One node, its feeds, the reference outputs, and how to compare: bit for bit (bound None) or, for f64
    results that use exp or log, the same bits on every path and |ours - reference| <= bound."""

    op: str
    model: onnx.ModelProto
    feeds: dict[str, np.ndarray]
    want: list[np.ndarray]
    bound: np.ndarray | None = None


def one_node_model(op: str, inputs: dict[str, np.ndarray], outputs: list[tuple[str, np.dtype]], opset: int,
                   initializers: dict[str, np.ndarray] | None = None, **attrs: object) -> onnx.ModelProto:
    """A model of one node; `inputs` are graph inputs (fed), `initializers` constant inputs (e.g. axes)."""
    initializers = initializers or {}
    names = list(inputs) + list(initializers)
    ins = [helper.make_tensor_value_info(k, NP_TO_ONNX[v.dtype], list(v.shape)) for k, v in inputs.items()]
    outs = [helper.make_tensor_value_info(k, NP_TO_ONNX[np.dtype(t)], None) for k, t in outputs]
    inits = [numpy_helper.from_array(v, k) for k, v in initializers.items()]
    node = helper.make_node(op, names, [k for k, _ in outputs], name=f"{op.lower()}_under_test", **attrs)
    graph = helper.make_graph([node], "one_node", ins, outs, initializer=inits)
    return helper.make_model(graph, ir_version=9, opset_imports=[helper.make_opsetid("", opset)])


def data(rng: np.random.Generator, shape: tuple[int, ...], dtype: np.dtype, specials: bool = False,
         scale: float = 1.0) -> np.ndarray:
    x = np.asarray(rng.standard_normal(shape) * scale)
    if specials and x.size >= 4:
        flat = x.reshape(-1)
        flat[rng.choice(flat.size, size=4, replace=False)] = [np.nan, np.inf, -np.inf, -0.0]
    return x.astype(dtype)


def matmul_case(dtype: np.dtype, sa: tuple[int, ...], sb: tuple[int, ...], specials: bool = False) -> Case:
    rng = np.random.default_rng(sum(sa) * 7 + sum(sb))
    a, b = data(rng, sa, dtype, specials=specials), data(rng, sb, dtype)
    if specials:
        a[-1] = -0.0  # a row of -0: every product a signed zero, the chain from +0 gives +0
        b[..., -1] = 0.0
    feeds = {"a": a, "b": b}
    return Case("MatMul", one_node_model("MatMul", feeds, [("y", dtype)], 13), feeds, [R.matmul(a, b)])


def gemm_case(dtype: np.dtype, m: int, k: int, n: int, ta: int, tb: int, alpha: float, beta: float,
              c_shape: tuple[int, ...] | None) -> Case:
    rng = np.random.default_rng(m * 100 + k * 10 + n)
    a = data(rng, (k, m) if ta else (m, k), dtype)
    b = data(rng, (n, k) if tb else (k, n), dtype)
    feeds = {"a": a, "b": b}
    if c_shape is not None:
        feeds["c"] = data(rng, c_shape, dtype)
    model = one_node_model("Gemm", feeds, [("y", dtype)], 13, alpha=alpha, beta=beta, transA=ta, transB=tb)
    return Case("Gemm", model, feeds, [R.gemm(a, b, feeds.get("c"), alpha, beta, ta, tb)])


def gemm_specials_case(dtype: np.dtype, alpha: float, beta: float) -> Case:
    """NaN, inf and -0 in A, a row of -0, and C = [inf, NaN, -0]: beta = 0 still multiplies C (0*inf = NaN)
    and alpha = 0 still multiplies the chain, as the contract's separately rounded steps say."""
    rng = np.random.default_rng(15)
    a, b = data(rng, (4, 17), dtype, specials=True), data(rng, (17, 3), dtype)
    a[-1] = -0.0
    feeds = {"a": a, "b": b, "c": np.array([np.inf, np.nan, -0.0], dtype=dtype)}
    model = one_node_model("Gemm", feeds, [("y", dtype)], 13, alpha=alpha, beta=beta)
    return Case("Gemm", model, feeds, [R.gemm(a, b, feeds["c"], alpha, beta)])


def softmax_case(op: str, dtype: np.dtype, shape: tuple[int, ...], axis: int, opset: int,
                 x: np.ndarray | None = None) -> Case:
    rng = np.random.default_rng(int(np.prod(shape)) + axis)
    x = data(rng, shape, dtype, scale=4.0) if x is None else x
    fn = R.softmax if op == "Softmax" else R.log_softmax
    want = fn(x, axis=axis, opset=opset)
    bound = None
    if dtype == F64T:  # each exp and log within 1 ulp (the contract), on top of the reference's rounding
        n = int(np.prod(shape[axis:])) if opset < 13 else shape[axis]
        bound = 4 * (n + 4) * U64 * (np.abs(want) + (op == "LogSoftmax"))
    model = one_node_model(op, {"x": x}, [("y", dtype)], opset, axis=axis)
    return Case(op, model, {"x": x}, [want], bound)


SPECIAL_ROWS = [[-np.inf, 0.0, 1.0, -np.inf, -0.0], [np.inf, 1.0, 2.0, 3.0, 4.0],
                [np.nan, 1.0, 2.0, 3.0, 4.0], [-np.inf] * 5, [11.0, 11.0, -11.0, 10.5, 0.0],
                [-0.0, 0.0, -0.0, 0.0, -0.0]]


def layer_norm_case(dtype: np.dtype, shape: tuple[int, ...], axis: int, with_bias: bool) -> Case:
    rng = np.random.default_rng(int(np.prod(shape)) - axis)
    x = (data(rng, shape, F64T) * 2 + 1).astype(dtype)
    norm_shape = shape[axis:]
    scale = (1 + 0.25 * rng.standard_normal(norm_shape)).astype(dtype)
    feeds = {"x": x, "scale": scale}
    if with_bias:
        feeds["bias"] = data(rng, norm_shape, dtype, scale=0.5)
    # ONNX types Mean and InvStdDev as float (stash_type 1); for f64 input the contract stashes in f64 and
    # does not say how the f32 outputs round, so there only Y is compared
    stats = dtype != F64T
    outputs = [("y", dtype)] + ([("mean", np.float32), ("inv", np.float32)] if stats else [])
    model = one_node_model("LayerNormalization", feeds, outputs, 17, axis=axis, epsilon=1e-3)
    y, mean, inv = R.layer_norm(x, scale, feeds.get("bias"), axis=axis, epsilon=1e-3)
    return Case("LayerNormalization", model, feeds, [y, mean, inv] if stats else [y])


def reduce_case(op: str, x: np.ndarray, axes: list[int] | None, keepdims: int, opset: int = 18,
                noop: int | None = None) -> Case:
    attrs: dict[str, object] = {"keepdims": keepdims}
    if noop is not None:
        attrs["noop_with_empty_axes"] = noop
    inits = {}
    if opset >= 18 or op == "ReduceSum":
        if axes is not None:
            inits["axes"] = np.array(axes, dtype=np.int64)
    elif axes is not None:
        attrs["axes"] = axes
    model = one_node_model(op, {"x": x}, [("y", x.dtype)], opset, initializers=inits, **attrs)
    if noop and not axes:
        want = x.copy()
    else:
        want = R.reduce(op, x, axes, keepdims)
    bound = None
    if x.dtype == F64T and op in R.REDUCE_TRANSCENDENTAL:
        n = x.size // max(1, want.size)
        bound = 4 * (n + 4) * U64 * (np.abs(want) + 1)
    return Case(op, model, {"x": x}, [want], bound)


def reduce_input(op: str, shape: tuple[int, ...], dtype: np.dtype, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if dtype.kind in "iu":
        x = rng.integers(-1000, 1000, shape).astype(dtype)
        x.reshape(-1)[0] = np.iinfo(dtype).max  # sums wrap
        return x
    if op in ("ReduceLogSum", "ReduceProd"):
        return rng.uniform(0.5, 1.5, shape).astype(dtype)
    return data(rng, shape, dtype, scale=3.0)


MATMUL_SHAPES = [((3, k), (k, 5)) for k in (1, 3, 15, 16, 17, 33)] + [
    ((2, 1, 3, 17), (4, 17, 5)), ((17,), (17, 5)), ((3, 17), (17,)), ((16,), (16,)), ((3, 0), (0, 4)),
    ((1, 33), (33, 16)),
]
MATMUL_LARGE = [((13, 70), (70, 131)), ((2, 7, 65), (65, 67))]  # past the kernels' tiles; f32 and f16
GEMM_CASES = [  # (M, K, N, transA, transB, alpha, beta, C shape)
    (3, 17, 5, 0, 0, 1.0, 1.0, None), (3, 17, 5, 1, 0, 1.0, 1.0, (5,)),
    (3, 17, 5, 0, 1, 1.0, 1.0, (3, 1)), (3, 17, 5, 1, 1, 1.0, 1.0, (3, 5)),
    (3, 17, 5, 0, 0, 0.5, -1.25, (3, 5)), (3, 17, 5, 0, 1, -2.0, 0.0, (1,)),
    (3, 17, 5, 1, 0, 0.1, 3.0, (1, 5)), (2, 1, 3, 0, 0, 1.0, 1.0, (3,)),
    (4, 16, 16, 0, 1, 1.0, 1.0, (16,)), (1, 33, 7, 1, 1, 0.75, 0.5, (1, 7)), (5, 15, 2, 0, 0, 1.0, 1.0, ()),
]
GEMM_LARGE = [  # past the kernels' tiles; f32 and f16 (the f64 reference's MPFR fmas are slow)
    (13, 70, 131, 0, 0, 1.0, 1.0, (131,)), (13, 70, 131, 1, 1, 0.5, 2.0, (13, 1)),
    (67, 9, 65, 0, 1, 1.0, -1.0, (67, 65)),
]
SOFTMAX_SHAPES = [((4, n), -1, 13) for n in (1, 3, 15, 16, 17, 33)] + [
    ((3, 17, 5), 1, 13), ((3, 17, 5), -3, 13), ((2, 3, 5), 1, 11), ((2, 3, 5), -1, 11), ((2, 3, 5), 0, 11),
]
LN_SHAPES = [((4, n), -1, True) for n in (1, 3, 15, 16, 17, 33)] + [
    ((2, 3, 17), -2, True), ((2, 3, 5), 1, False), ((2, 16), -1, False), ((3, 4, 5), 2, True),
]
REDUCE_SHAPES = [((2, n), [-1], 0) for n in (1, 3, 15, 16, 17, 33)] + [
    ((3, 17, 5), [1], 1), ((3, 17, 5), [0, 2], 0), ((3, 17, 5), [2, 0], 1), ((3, 17, 5), [-1, -3], 0),
    ((3, 17, 5), None, 0), ((3, 17, 5), None, 1), ((4, 33), [0], 1),
]
REDUCE_SPECIALS = [[np.nan, 1.0, 2.0, 3.0], [np.inf, 1.0, 2.0, 3.0], [-np.inf, 1.0, 2.0, 3.0],
                   [np.inf, -np.inf, 0.0, 1.0], [-0.0, -0.0, -0.0, -0.0], [0.0, -0.0, 0.0, -0.0],
                   [-np.inf, -np.inf, -np.inf, -np.inf], [0.0, 0.0, 0.0, 0.0]]


def _cases() -> list[tuple[str, Callable[[], Case], bool]]:
    """(id, builder, stock): stock marks the cases whose reference semantics stock ORT can confirm (no
    specials, no wrapping integers)."""
    out: list[tuple[str, Callable[[], Case], bool]] = []
    for t in FLOAT_TYPES:
        for sa, sb in MATMUL_SHAPES + (MATMUL_LARGE if t != F64T else []):
            out.append((f"MatMul-{t.name}-{sa}x{sb}", functools.partial(matmul_case, t, sa, sb), True))
        specials = functools.partial(matmul_case, t, (4, 17), (17, 3), True)
        out.append((f"MatMul-{t.name}-specials", specials, False))
        for i, g in enumerate(GEMM_CASES + (GEMM_LARGE if t != F64T else [])):
            out.append((f"Gemm-{t.name}-{i}-{g}", functools.partial(gemm_case, t, *g), True))
        for alpha, beta in ((1.0, 0.0), (0.0, 1.0), (-1.5, 2.0)):
            out.append((f"Gemm-{t.name}-specials-alpha{alpha}-beta{beta}",
                        functools.partial(gemm_specials_case, t, alpha, beta), False))
        for op in ("Softmax", "LogSoftmax"):
            for shape, axis, opset in SOFTMAX_SHAPES:
                out.append((f"{op}-{t.name}-{shape}-axis{axis}-opset{opset}",
                            functools.partial(softmax_case, op, t, shape, axis, opset), True))
            if t != F64T:
                x = np.array(SPECIAL_ROWS, dtype=t)
                out.append((f"{op}-{t.name}-specials",
                            functools.partial(softmax_case, op, t, x.shape, -1, 13, x), False))
        for shape, axis, bias in LN_SHAPES:
            out.append((f"LayerNormalization-{t.name}-{shape}-axis{axis}-{'bias' if bias else 'nobias'}",
                        functools.partial(layer_norm_case, t, shape, axis, bias), True))
    for op in R.REDUCE_OPS:
        # every shape in f32; f16 and f64 on a subset (each case is one session per kernel path)
        for i, (shape, axes, keep) in enumerate(REDUCE_SHAPES):
            for t in (FLOAT_TYPES if i in (0, 4, 7, 9, 10) else [F32T]):
                x = reduce_input(op, shape, t, i)
                out.append((f"{op}-{t.name}-{shape}-axes{axes}-keep{keep}",
                            functools.partial(reduce_case, op, x, axes, keep), True))
        for t in (F32T, F16T):
            x = np.array(REDUCE_SPECIALS, dtype=t)
            out.append((f"{op}-{t.name}-specials", functools.partial(reduce_case, op, x, [1], 0), False))
        if op in R.REDUCE_INTEGER:
            for t in (np.dtype(np.int32), np.dtype(np.int64)):
                for axes in ([1], None, [0, -1]):
                    x = reduce_input(op, (3, 17, 5), t, 12)
                    out.append((f"{op}-{t.name}-axes{axes}", functools.partial(reduce_case, op, x, axes, 1),
                                False))
        x13 = reduce_input(op, (3, 17, 5), F32T, 13)
        attr_axes = functools.partial(reduce_case, op, x13, [-2], 0, 13)
        out.append((f"{op}-float32-opset13-axes[-2]", attr_axes, True))
    x = reduce_input("ReduceSum", (3, 17), F32T, 14)
    for noop in (0, 1):
        out.append((f"ReduceSum-float32-empty-axes-noop{noop}",
                    functools.partial(reduce_case, "ReduceSum", x, [], 1, 18, noop), True))
    return out


CASES = _cases()


def run_every_path(case: Case) -> dict[str, list[np.ndarray]]:
    """The case's outputs on every kernel path; skips (naming the op) when the library does not serve it."""
    report = onemodel_ep.RewriteReport("exact", None)
    onemodel_ep.rewrite(case.model, mode="exact", report=report)  # cheap: ask before building sessions
    stayed = [n for n in report.nodes if n.op == case.op and not n.moved]
    if stayed:
        pytest.skip(f"{case.op} is not served by OneModel EP yet ({stayed[0].category}: {stayed[0].reason})")
    outs: dict[str, list[np.ndarray]] = {}
    runs = [(None, p) for p in onemodel_ep.kernel_paths()]  # the default way in (the EP where supported)
    if onemodel_ep.ep_supported():
        runs.append(("rewrite", "scalar"))  # and the rewrite path once
    for via, path in runs:
        sess = onemodel_ep.InferenceSession(case.model, mode="exact", kernel_path=path, via=via)
        assert all(n.moved for n in sess.report.nodes if n.op == case.op), (case.op, via, path)
        outs[path if via is None else f"{path} via {via}"] = sess.run(None, case.feeds)
    return outs


def assert_bits(what: str, got: list[np.ndarray], want: list[np.ndarray]) -> None:
    assert len(got) == len(want), what
    for i, (g, w) in enumerate(zip(got, want)):
        assert g.dtype == w.dtype and g.shape == w.shape, (what, i, g.dtype, g.shape, w.dtype, w.shape)
        bad = ~R.bits_equal(g, w)
        if bad.any():
            idx = tuple(np.argwhere(bad)[0])
            raise AssertionError(f"{what} output {i}: {int(bad.sum())} of {bad.size} element(s) differ, "
                                 f"first at {idx}: {g[idx]!r} vs {w[idx]!r}")


# Differences from the reference found by this file and not fixed yet: strict xfails, so they flip when fixed.
KNOWN_KERNEL_BUGS: dict[str, tuple[str, str]] = {}


def _kernel_params() -> list[object]:
    params = []
    for ident, build, _ in CASES:
        marks = [pytest.mark.xfail(strict=True, reason=why)
                 for prefix, (tail, why) in KNOWN_KERNEL_BUGS.items()
                 if ident.startswith(prefix) and ident.endswith(f", {tail})")]
        params.append(pytest.param(build, id=ident, marks=marks))
    return params


CANONICAL_NAN = {2: 0x7E00, 4: 0x7FC00000, 8: 0x7FF8000000000000}  # positive quiet NaN, no payload


def assert_canonical_nans(what: str, got: list[np.ndarray]) -> None:
    """Exact mode's NaN is the canonical quiet NaN (docs/exact-linalg.md)."""
    for i, g in enumerate(got):
        if g.dtype.kind != "f":
            continue
        nan = np.isnan(g)
        bits = g.view(f"u{g.dtype.itemsize}")[nan]
        assert np.all(bits == CANONICAL_NAN[g.dtype.itemsize]), f"{what} output {i}: a non-canonical NaN"


@pytest.mark.parametrize("build", _kernel_params())
def test_kernel_matches_reference(build: Callable[[], Case]) -> None:
    case = build()
    outs = run_every_path(case)
    for path, got in outs.items():
        assert_canonical_nans(f"{case.op} path {path}", got)
    first_path, first = next(iter(outs.items()))
    if case.bound is None:
        for path, got in outs.items():
            assert_bits(f"{case.op} path {path} vs the reference", got, case.want)
        return
    for path, got in outs.items():
        assert_bits(f"{case.op} path {path} vs path {first_path}", got, first)
    g, w = first[0], case.want[0]
    assert g.shape == w.shape and g.dtype == w.dtype
    err = np.abs(g - w)
    assert np.all(err <= case.bound), f"{case.op}: max |ours - reference| {err.max()} over the bound"


STOCK = [c for c in CASES if c[2]]


@pytest.mark.parametrize("build", [c[1] for c in STOCK[::2]], ids=[c[0] for c in STOCK[::2]])
def test_reference_semantics_agree_with_stock_ort(build: Callable[[], Case]) -> None:
    """Shapes, broadcasting, axes, attributes and types of the reference as stock ORT has them, values within
    a loose tolerance (stock ORT follows another order of operations): a check of the cases themselves."""
    case = build()
    sess = ort.InferenceSession(case.model.SerializeToString(), providers=["CPUExecutionProvider"])
    for i, (g, w) in enumerate(zip(sess.run(None, case.feeds), case.want)):
        assert g.dtype == w.dtype and g.shape == w.shape, (i, g.dtype, g.shape, w.dtype, w.shape)
        rtol = 2e-3 if g.dtype == F16T else 1e-5
        np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64), rtol=rtol, atol=1e-5)
