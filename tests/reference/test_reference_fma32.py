"""tests/reference/reference_linalg.py's fma32 and rexp checked against MPFR (gmpy2), no library code
involved.

fma32 must be the correctly rounded f32 fma: compared bit for bit with MPFR in the IEEE binary32 context
(precision 24, binary32's exponent range, subnormals) on random bit patterns, subnormal results, products
just off an f32 midpoint with a tiny c, and a tiny product just off half an ulp of c, where one f64 sum
followed by a cast (double rounding) goes wrong; the test checks that such cases are in the sample.

rexp must be the Softmax exponential of docs/exact-linalg.md: within the contract's 0.9432 ulp (0.94325:
the measured 0.9432447 rounded up) of the exact exp on [-104, 0] (ulp of the exact value, 2^-149 in the
subnormal range), with the contract's worst case at t = -5.19842577 reached, and different from the
correctly rounded exp on about the stated fraction of inputs.
"""

from __future__ import annotations

from collections.abc import Callable

import gmpy2
import numpy as np
import pytest

from tests.reference import reference_linalg as R

SEED = 20261202
N = 40000
F32 = np.float32
WORST_T = float(F32(-5.19842577))  # the contract's worst case for rexp
# The contract's "at most 0.9432 ulp" is that error to 4 digits: at WORST_T it is 0.9432447 (MPFR, 160 bits).
BOUND = 0.94325
Errors = dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]  # sample name: (t, rexp(t), error in ulps)


def mpfr_fma32(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    out = np.empty(a.shape, dtype=F32)
    with gmpy2.context(gmpy2.ieee(32)):
        for i, (x, y, z) in enumerate(zip(a.tolist(), b.tolist(), c.tolist())):
            out[i] = float(gmpy2.fma(gmpy2.mpfr(x), gmpy2.mpfr(y), gmpy2.mpfr(z)))
    return out


def naive_fma32(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """One f64 sum of the exact product, then a cast: double rounding."""
    with np.errstate(all="ignore"):
        return (a.astype(np.float64) * b.astype(np.float64) + c.astype(np.float64)).astype(F32)


def ldexp32(m: np.ndarray, e: np.ndarray) -> np.ndarray:
    """m * 2^e as f32; m has at most 24 bits and the result is an f32 value (checked)."""
    r = np.ldexp(np.asarray(m, dtype=np.float64), np.asarray(e, dtype=np.int64))
    out = r.astype(F32)
    assert np.array_equal(out.astype(np.float64), r)
    return out


def ulp32(c: np.ndarray) -> np.ndarray:
    """The f32 ulp of |c| (as float64), 2^-149 for subnormals and zero."""
    ex = np.frexp(np.abs(c.astype(np.float64)))[1]
    return np.ldexp(1.0, np.maximum(ex - 24, -149))


def random_bits(rng: np.random.Generator) -> tuple[np.ndarray, ...]:
    """Uniform bit patterns: every exponent, subnormals, infinities, NaNs, overflow and underflow."""
    return tuple(rng.integers(0, 2**32, N, dtype=np.uint64).astype(np.uint32).view(F32) for _ in range(3))


def signs(rng: np.random.Generator, n: int) -> np.ndarray:
    return rng.choice(np.array([-1.0, 1.0]), n)


def near_half_ulp(rng: np.random.Generator, c: np.ndarray) -> tuple[np.ndarray, ...]:
    """a, b with a*b = +-ulp(c)/2 * (1 + (i +- j) 2^-23 +- i j 2^-46), small i, j (i = j: just off ulp(c)/2):
    c + a*b lies on or next to an f32 midpoint, off it by far less than f64 resolves."""
    n = c.size
    half = ulp32(c) / 2
    eh = np.frexp(half)[1] - 1  # half = 2^eh
    ea = eh // 2
    i = rng.integers(0, 8, n)
    j = np.where(rng.integers(0, 2, n) == 0, i, rng.integers(0, 8, n))
    a = ldexp32(signs(rng, n) * (2**23 + i), ea - 23)
    b = ldexp32(2**23 + signs(rng, n) * j, eh - ea - 23)
    return a, b, c


def subnormal_results(rng: np.random.Generator) -> tuple[np.ndarray, ...]:
    """a*b around 2^-160 .. 2^-120, c subnormal, tiny normal, zero or the negated rounded product; and a
    fifth of the cases a*b just off half of 2^-149 with c subnormal (double rounding in the subnormals)."""
    e = rng.integers(-160, -119, N)
    ea = rng.integers(-100, e + 127)  # b's exponent e - ea >= -126: a and b normal
    a = ldexp32(signs(rng, N) * rng.integers(2**23, 2**24, N), ea - 23)
    b = ldexp32(signs(rng, N) * rng.integers(2**23, 2**24, N), e - ea - 23)
    pick = rng.integers(0, 5, N)
    sub = ldexp32(signs(rng, N) * rng.integers(0, 2**23, N), np.full(N, -149))
    tiny = ldexp32(signs(rng, N) * rng.integers(2**23, 2**24, N), rng.integers(-126, -110, N) - 23)
    with np.errstate(all="ignore"):
        negp = (-(a.astype(np.float64) * b)).astype(F32)
    c = np.where(pick == 0, sub, np.where(pick == 1, tiny, np.where(pick == 2, F32(0.0), negp))).astype(F32)
    ha, hb, _ = near_half_ulp(rng, sub)
    m = pick == 4
    return np.where(m, ha, a), np.where(m, hb, b), np.where(m, sub, c)


def midpoint_product_tiny_c(rng: np.random.Generator) -> tuple[np.ndarray, ...]:
    """a*b exactly an f32 midpoint (25 significant bits), c a tiny power of two of either sign: f64 loses
    c once it is below 2^-53 of a*b, and ties-to-even then picks the wrong neighbour half the time."""
    ai = rng.integers(2**12, 2**13, 4 * N) | 1
    bi = rng.integers(2**11, 2**13, 4 * N) | 1
    keep = np.array([int(x).bit_length() == 25 for x in ai * bi])
    ai, bi = ai[keep][:N], bi[keep][:N]
    n = ai.size
    ea = rng.integers(-60, 60, n)
    eb = rng.integers(-60, 60, n)
    a = ldexp32(signs(rng, n) * ai, ea)
    b = ldexp32(signs(rng, n) * bi, eb)
    ep = ea + eb + 24  # a*b in [2^(ep), 2^(ep+1)), its f32 ulp 2^(ep-23)
    k = rng.integers(1, 70, n)
    c = ldexp32(signs(rng, n), np.maximum(ep - 24 - k, -149))
    c = np.where(rng.integers(0, 16, n) == 0, F32(0.0), c).astype(F32)
    return a, b, c


def half_ulp_product(rng: np.random.Generator) -> tuple[np.ndarray, ...]:
    """c random (normal or subnormal), a*b just off or on half an ulp of c (near_half_ulp)."""
    c = ldexp32(signs(rng, N) * rng.integers(0, 2**24, N), rng.integers(-149, 100, N))
    return near_half_ulp(rng, c)


def cancellation(rng: np.random.Generator) -> tuple[np.ndarray, ...]:
    """c = -fl32(a*b) moved by a few ulps: the result is (close to) the product's exact low part."""
    a = ldexp32(signs(rng, N) * rng.integers(2**23, 2**24, N), rng.integers(-90, 60, N) - 23)
    b = ldexp32(signs(rng, N) * rng.integers(2**23, 2**24, N), rng.integers(-60, 60, N) - 23)
    with np.errstate(all="ignore"):
        p = (a.astype(np.float64) * b).astype(F32)
        c = -p + (rng.integers(-3, 4, N) * ulp32(p)).astype(F32)
    return a, b, c.astype(F32)


def specials(rng: np.random.Generator) -> tuple[np.ndarray, ...]:
    v = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 2.0**-149, -(2.0**-149), 2.0**-126,
                  -(2.0**-126), 3.4028234663852886e38, -3.4028234663852886e38, 2.0**-75, 2.0**64, 0.5],
                 dtype=F32)
    a, b, c = np.meshgrid(v, v, v, indexing="ij")
    return a.ravel(), b.ravel(), c.ravel()


FAMILIES: dict[str, Callable[[np.random.Generator], tuple[np.ndarray, ...]]] = {
    "bits": random_bits,
    "subnormal": subnormal_results,
    "midpoint_tiny_c": midpoint_product_tiny_c,
    "half_ulp_product": half_ulp_product,
    "cancellation": cancellation,
    "specials": specials,
}
# Families where the naive f64 sum + cast must go wrong on some cases (else they test nothing of fma32).
DOUBLE_ROUNDING = {"subnormal": 500, "midpoint_tiny_c": 1000, "half_ulp_product": 1000}


def cases(name: str) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(SEED + list(FAMILIES).index(name))
    a, b, c = FAMILIES[name](rng)
    assert a.dtype == b.dtype == c.dtype == F32 and a.shape == b.shape == c.shape
    return a, b, c


@pytest.mark.parametrize("name", list(FAMILIES))
def test_fma32_matches_mpfr(name: str) -> None:
    a, b, c = cases(name)
    got = R.fma32(a, b, c)
    want = mpfr_fma32(a, b, c)
    bad = ~R.bits_equal(got, want)
    assert not bad.any(), (int(bad.sum()), [(float(x).hex(), float(y).hex(), float(z).hex()) for x, y, z
                                            in zip(a[bad][:3], b[bad][:3], c[bad][:3])])


@pytest.mark.parametrize("name", list(DOUBLE_ROUNDING))
def test_fma32_cases_catch_double_rounding(name: str) -> None:
    a, b, c = cases(name)
    want = mpfr_fma32(a, b, c)
    wrong = int((~R.bits_equal(naive_fma32(a, b, c), want)).sum())
    assert wrong >= DOUBLE_ROUNDING[name], wrong


def test_fma32_subnormal_results_are_in_the_sample() -> None:
    a, b, c = cases("subnormal")
    r = np.abs(mpfr_fma32(a, b, c))
    assert np.count_nonzero((r > 0) & (r < 2.0**-126)) > N // 4 and np.count_nonzero(r == 0) > 100


def test_fma32_hand_cases() -> None:
    h = float.fromhex
    # exact 1 + 2^-23 + 2^-24 - 2^-70: below the midpoint, so 1 + 2^-23 (f64 then ties-to-even: 1 + 2^-22)
    rows = [
        (1 + 2.0**-23, (1 - 2.0**-23) * 2.0**-24, 1 + 2.0**-23, 1 + 2.0**-23),
        # exact 129 2^-149 + 2^-150 - 2^-196 (subnormal, below the midpoint): 129 2^-149; f64 rounds it to the
        # midpoint, ties-to-even then gives 130 2^-149
        (h("0x1.000002p-75"), h("0x1.fffffcp-76"), 129 * 2.0**-149, 129 * 2.0**-149),
        # a*b = 2^-150 exactly: a tie, to even 0; a tiny c decides it
        (2.0**-75, 2.0**-75, 0.0, 0.0),
        (2.0**-75, 2.0**-75, -0.0, 0.0),
        (-(2.0**-75), 2.0**-75, -0.0, -0.0),
        (2.0**-75, 2.0**-75, 2.0**-149, 2.0**-148),
        (2.0**-75, h("0x1.000002p-75"), 0.0, 2.0**-149),
        # exact cancellation: +0 (round to nearest), -0 only for -0 + -0
        (1.5, 2.0, -3.0, 0.0),
        (-1.5, 2.0, 3.0, 0.0),
        (-0.0, 1.0, -0.0, -0.0),
        (0.0, -1.0, 0.0, 0.0),
        # inf from the midpoint 2^128 - 2^103 on (ties to even leaves the odd maximum), the maximum below it
        (h("0x1.fffffep127"), 1.0, 2.0**103, np.inf),
        (h("0x1.fffffep127"), 1.0, h("0x1.fffffep102"), h("0x1.fffffep127")),
        (h("0x1p100"), h("0x1p100"), -np.inf, -np.inf),
        (np.inf, 0.0, 1.0, np.nan),
        (np.inf, 1.0, -np.inf, np.nan),
        (np.nan, 0.0, 1.0, np.nan),
    ]
    a, b, c, want = (np.array(col, dtype=F32) for col in zip(*rows))
    got = R.fma32(a, b, c)
    assert R.bits_equal(got, want).all(), [i for i in range(len(rows)) if not R.bits_equal(got, want)[i]]
    assert R.bits_equal(mpfr_fma32(a, b, c), want).all()  # the oracle agrees with the hand values
    assert not R.bits_equal(naive_fma32(a[:2], b[:2], c[:2]), want[:2]).any()


# ---- fl32(p * 2^kf) and rexp -------------------------------------------------------------------------


def test_scale2_is_one_rounding() -> None:
    rng = np.random.default_rng(SEED + 100)
    p = ldexp32(rng.integers(2**23, 2**24, N), rng.integers(-24, -22, N))  # [0.5, 2)
    k = rng.integers(-152, 1, N).astype(F32)
    got = R.scale2(p, k)
    with gmpy2.context(gmpy2.ieee(32)):  # x 2^-100 is exact, the second product rounds once
        want = np.array([float(gmpy2.mpfr(x) * gmpy2.exp2(-100) * gmpy2.exp2(int(e) + 100))
                         for x, e in zip(p.tolist(), k.tolist())], dtype=F32)
    assert R.bits_equal(got, want).all()
    # hand values: the subnormal grid, ties to even, and 0 below half of 2^-149
    h = float.fromhex
    p2 = np.array([1.0, 1.5, 1.5, 1.0, h("0x1.000002p0"), 0.5, h("0x1.fffffep-1"), 1.0, 1.0], dtype=F32)
    k2 = np.array([-149, -149, -150, -150, -150, -150, -150, -151, 0], dtype=F32)
    want2 = np.array([2.0**-149, 2.0**-148, 2.0**-149, 0.0, 2.0**-149, 0.0, 0.0, 0.0, 1.0], dtype=F32)
    assert R.bits_equal(R.scale2(p2, k2), want2).all()
    assert np.isnan(R.scale2(np.array([1.0], F32), np.array([np.nan], F32))[0])


def exp_error_ulps(t: np.ndarray, y: np.ndarray) -> np.ndarray:
    """|y - exp(t)| in ulps of the exact exp(t) (2^-149 in the subnormal range), exp at 160 bits."""
    out = np.empty(t.shape, dtype=np.float64)
    with gmpy2.context(precision=160):
        for i, (x, v) in enumerate(zip(t.tolist(), y.tolist())):
            e = gmpy2.exp(gmpy2.mpfr(x))
            ex = gmpy2.frexp(e)[0]  # e = m 2^ex, m in [0.5, 1)
            ulp = gmpy2.exp2(max(ex - 24, -149))
            out[i] = float(abs(gmpy2.mpfr(v) - e) / ulp)
    return out


def f32_range(lo: float, hi: float) -> np.ndarray:
    """Every f32 in [lo, hi], lo <= hi <= 0 (bit order runs the other way for negatives)."""
    a = np.array([hi], dtype=F32).view(np.uint32)[0]
    b = np.array([lo], dtype=F32).view(np.uint32)[0]
    return np.arange(int(a), int(b) + 1, dtype=np.int64).astype(np.uint32).view(F32)


def rexp_sample() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(SEED + 200)
    neg0, neg104 = 0x80000000, int(np.array([-104.0], dtype=F32).view(np.uint32)[0])
    return {
        # uniform over the f32 values of [-104, 0] (by bit pattern): dense near 0
        "bits": rng.integers(neg0, neg104 + 1, 100000).astype(np.uint32).view(F32),
        # uniform in value: the normal results and the subnormal results (t < -87.34)
        "normal": (-rng.uniform(0, 87.34, 40000)).astype(F32),
        "subnormal": (-rng.uniform(87.3, 104.0, 50000)).astype(F32),
        # the contract's worst case and its neighbours, and the ends of the range
        "worst": f32_range(WORST_T - 2000 * 2.0**-21, WORST_T + 2000 * 2.0**-21),  # ulp 2^-21 there
        "ends": np.concatenate([f32_range(-104.0, -103.99), f32_range(-87.34, -87.33),
                                f32_range(-(2.0**-24), -(2.0**-25))[::1024]]),
    }


@pytest.fixture(scope="module")
def rexp_errors() -> Errors:
    out = {}
    for name, t in rexp_sample().items():
        y = R.rexp(t)
        out[name] = (t, y, exp_error_ulps(t, y))
    return out


def test_rexp_sample_size(rexp_errors: Errors) -> None:
    assert sum(t.size for t, _, _ in rexp_errors.values()) >= 200000


def test_rexp_within_contract_bound(rexp_errors: Errors) -> None:
    for name, (t, _, err) in rexp_errors.items():
        i = int(np.argmax(err))
        assert err[i] <= BOUND, (name, float(t[i]), float(err[i]))


def test_rexp_reaches_the_stated_worst_case(rexp_errors: Errors) -> None:
    t, _, err = rexp_errors["worst"]
    i = int(np.argmax(err))
    assert t[i] == F32(WORST_T) and 0.9432 < err[i] <= BOUND, (float(t[i]), float(err[i]))


def test_rexp_is_not_the_correctly_rounded_exp(rexp_errors: Errors) -> None:
    t, y, _ = rexp_errors["bits"]
    differ = np.count_nonzero(~R.bits_equal(y, R.exp(t))) / t.size
    # the contract: 0.473% of all f32 t in [-104, 0]; this sample has 100000 of them (sd 0.022%)
    assert 0.00363 < differ < 0.00583, differ


def test_rexp_specials() -> None:
    t = np.array([-np.inf, np.nan, -0.0, 0.0, -104.0, -1e30, -np.float32(2.0**-149)], dtype=F32)
    y = R.rexp(t)
    assert y[0] == 0 and not np.signbit(y[0])
    assert np.isnan(y[1])
    assert y[2] == 1 and y[3] == 1 and y[6] == 1
    assert y[4] == 0 and y[5] == 0 and not np.signbit(y[4]) and not np.signbit(y[5])


def test_softmax_uses_rexp_and_f64_does_not() -> None:
    rng = np.random.default_rng(SEED + 300)
    x = (rng.standard_normal((64, 40)) * 6).astype(F32)
    d = x - x.max(-1, keepdims=True)
    e = R.rexp(d)
    s = R.sum16(e)
    assert R.bits_equal(R.softmax(x), e * (F32(1.0) / s)[:, None]).all()  # y = e * (1 / s)
    assert R.bits_equal(R.log_softmax(x), d - R.log(s)[:, None]).all()
    assert not R.bits_equal(e, R.exp(d)).all()  # the sample tells rexp from exp
    x64 = x.astype(np.float64)
    d64 = x64 - x64.max(-1, keepdims=True)
    e64 = R.exp(d64)
    assert R.bits_equal(R.softmax(x64), e64 * (1.0 / R.sum16(e64))[:, None]).all()
    # f16 and bf16 rows: widened to f32 exactly, the f32 result rounded once
    for dt in (np.float16, R.BF16):
        xh = x.astype(dt)
        dh = xh.astype(F32) - xh.astype(F32).max(-1, keepdims=True)
        eh = R.rexp(dh)
        assert R.bits_equal(R.softmax(xh), (eh * (F32(1.0) / R.sum16(eh))[:, None]).astype(dt)).all()
    # ReduceLogSumExp keeps the correctly rounded exp
    m = R.max_(x)
    assert R.bits_equal(R.reduce("ReduceLogSumExp", x, axes=[1], keepdims=0),
                        m + R.log(R.sum16(R.exp(x - m[:, None])))).all()
