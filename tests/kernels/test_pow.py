"""Pow against an MPFR (gmpy2) reference written from the rules, every base type x every exponent type.

Rules (docs/ops-elementwise.md, ## Pow):
- f32 base: the exponent is converted to f32 (round to nearest even) and an f32 pow is computed.
- f64 base: the exponent is converted to f64 (round to nearest even) and an f64 pow is computed.
- integer base (i32, i64): base and exponent are converted to f64, pow is computed in f64, and the result is
  converted back truncating toward zero and saturating (NaN gives 0; int32 0^-1 = +inf -> INT32_MAX).
- An exponent of 2 is exactly x * x (one rounded product).  Pow(x, 0) = 1 for every x, NaN included;
  Pow(1, y) = 1 for every y, NaN included; the other special values follow C99 Annex F.
- Exact mode: the same bits on every kernel path; within 1 ulp of the true value (f32 and f64); NaN results
  are the canonical quiet NaN (0x7FC00000, 0x7FF8000000000000).  Fast mode (the platform pow): special values
  and at most 2 ulp on results in the normal range.

Reference: the exact binary inputs as MPFR numbers; the correctly rounded result comes from one MPFR pow in
a context with the target's precision and exponent range and subnormal emulation (so it is rounded once);
the true value from a 200-bit pow.  MPFR's pow follows C99 Annex F for the special values.  The error in ulp
is |got - true| / ulp(true) with ulp taken in the target format (subnormal ulp below the normal range) and an
infinite result counted as 2^emax.  The f32 correct-rounding rate is measured and printed (pytest -s).
"""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import gmpy2
import numpy as np
import pytest
from gmpy2 import mpfr
from onnx import TensorProto

import onemodel_ep
from onemodel_ep.node import Node
from tests.reference.rounding import round_magnitude
from tests.reference.transcendental32 import report_misrounded

PATHS = onemodel_ep.kernel_paths()
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NumPy overflow in casts and x*x
SEED = 7_301_2024

ENUM = {
    "float32": TensorProto.FLOAT,
    "float64": TensorProto.DOUBLE,
    "int32": TensorProto.INT32,
    "int64": TensorProto.INT64,
    "uint32": TensorProto.UINT32,
    "uint64": TensorProto.UINT64,
}
BASES = ["float32", "float64", "int32", "int64"]
EXPONENTS = ["float32", "float64", "int32", "int64", "uint32", "uint64"]


class Fmt:
    def __init__(self, name: str, p: int, emin_norm: int, emax: int, nan_bits: int) -> None:
        self.name = name
        self.p = p  # significand bits incl. the hidden one
        self.emin_norm = emin_norm  # exponent of the smallest normal
        self.emax = emax  # 2^emax is the overflow threshold's power (inf is counted as 2^emax)
        self.nan_bits = nan_bits
        self.dtype = np.dtype(name)
        self.udtype = np.dtype("uint32" if name == "float32" else "uint64")
        # MPFR exponents: value = m * 2^e with 0.5 <= m < 1
        self.ctx = gmpy2.context(
            precision=p, emin=emin_norm - p + 2, emax=emax, subnormalize=True, round=gmpy2.RoundToNearest
        )


F32 = Fmt("float32", 24, -126, 128, 0x7FC00000)
F64 = Fmt("float64", 53, -1022, 1024, 0x7FF8000000000000)
FMT = {"float32": F32, "float64": F64}
TRUE_CTX = gmpy2.context(precision=200)
WIDE_CTX = gmpy2.context(precision=400)


def _mp(x) -> mpfr:
    """Exact MPFR copy of a Python float or int."""
    if isinstance(x, (int, np.integer)):
        return mpfr(int(x), max(64, int(x).bit_length() + 1))
    return mpfr(float(x), 53)


def _round_int_to(fmt: Fmt, v: int) -> float:
    """An integer rounded to nearest even in fmt (integers are never subnormal)."""
    with fmt.ctx:
        return float(+_mp(v))


def exponent_to(fmt: Fmt, y, ytype: str) -> float:
    """The exponent as the base's float format (rounded to nearest even)."""
    if ytype in ("float32", "float64"):
        return float(np.asarray(y, dtype=ytype).astype(fmt.dtype)) if ytype != fmt.name else float(y)
    return _round_int_to(fmt, int(y))


def cr_pow(fmt: Fmt, x: float, y: float) -> float:
    """pow(x, y) correctly rounded to fmt (one rounding, subnormals, overflow to infinity)."""
    X, Y = _mp(x), _mp(y)
    with fmt.ctx:
        r = X**Y
    return float(r)


def true_pow(x: float, y: float) -> mpfr:
    X, Y = _mp(x), _mp(y)
    with TRUE_CTX:
        return X**Y


def ulp_error(fmt: Fmt, got: float, true: mpfr) -> float:
    if gmpy2.is_nan(true) or math.isnan(got):
        return 0.0 if gmpy2.is_nan(true) and math.isnan(got) else math.inf
    if gmpy2.is_infinite(true):
        return 0.0 if got == float(true) else math.inf
    with WIDE_CTX:
        g = mpfr(math.copysign(2.0, got)) ** fmt.emax if math.isinf(got) else _mp(got)
        e = fmt.emin_norm if gmpy2.is_zero(true) else max(gmpy2.get_exp(true) - 1, fmt.emin_norm)
        ulp = mpfr(2) ** (e - fmt.p + 1)
        return float(abs(g - true) / ulp)


def bits_of(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a)
    return a.view(np.dtype(f"uint{a.dtype.itemsize * 8}"))


def f2b(fmt: Fmt, x: float) -> int:
    return int(np.array([x], dtype=fmt.dtype).view(fmt.udtype)[0])


def run_all_paths(base_t: str, exp_t: str, x: np.ndarray, y: np.ndarray, mode: str = "exact") -> np.ndarray:
    """Runs every kernel path (exact mode: they must agree bit for bit); returns the first path's output."""
    outs = {}
    for p in PATHS:
        node = Node("Pow", [ENUM[base_t], ENUM[exp_t]], mode=mode, kernel_path=p)
        assert node.output_type == ENUM[base_t]
        outs[p] = node.run(x, y)
        assert outs[p].dtype == np.dtype(base_t) and outs[p].shape == x.shape
    if mode == "exact":
        first = bits_of(outs[PATHS[0]])
        for p in PATHS[1:]:
            diff = np.nonzero(bits_of(outs[p]) != first)[0]
            assert diff.size == 0, (
                f"Pow {base_t}^{exp_t}: path {p} differs from {PATHS[0]} at {diff.size} elements, first "
                f"x={x[diff[0]]!r} y={y[diff[0]]!r}: {outs[p][diff[0]]!r} vs {outs[PATHS[0]][diff[0]]!r}"
            )
    return outs[PATHS[0]]


# ----------------------------------------------------------------------------------------------------
# Float bases: checking one batch


BUG_MINUS_ONE = (
    "BUG: exact-mode Pow(-1, y) with a finite |y| > 2^64 (such a y is an even integer, so C99 Annex F "
    "and MPFR give 1) returns +0 for y > 0 and +inf for y < 0; f32 and f64 bases, and the integer bases "
    "(they use the f64 pow); every kernel path; (-1)^(2^64) and fast mode are right"
)


def _minus_one_huge(x: float, y: float) -> bool:
    """The inputs of BUG_MINUS_ONE (after the exponent's conversion); kept out of the batch checks and tested,
    one by one, by test_bug_minus_one_to_huge_even_exponent."""
    return x == -1 and math.isfinite(y) and abs(y) > 2.0**64


def _is_special(x: float, y: float, true: mpfr) -> bool:
    """Cases whose C99 Annex F result is exact: a zero, infinite or NaN operand or result, base +-1,
    exponent 0 (after conversion)."""
    return (
        x == 0
        or y == 0
        or abs(x) == 1
        or math.isinf(x)
        or math.isinf(y)
        or math.isnan(x)
        or math.isnan(y)
        or gmpy2.is_zero(true)
        or gmpy2.is_infinite(true)
        or gmpy2.is_nan(true)
    )


def check_float_batch(base_t, exp_t, x, y, mode="exact", tol=1.0, normal_only=False, stats=None):
    """Checks Pow(x, y) element by element; returns the list of failure lines (empty when all pass)."""
    fmt = FMT[base_t]
    got = run_all_paths(base_t, exp_t, x, y, mode)
    gbits = bits_of(got)
    failures = []
    for i in range(x.size):
        xi = float(x[i])
        yi = exponent_to(fmt, y[i], exp_t)
        cr = cr_pow(fmt, xi, yi)
        tv = true_pow(xi, yi)
        g = float(got[i])
        where = (
            f"x=0x{f2b(fmt, xi):x} ({xi!r}) y[{exp_t}]={y[i]!r} (as {base_t}: {yi!r}): "
            f"got 0x{int(gbits[i]):x} ({g!r}) expected 0x{f2b(fmt, cr):x} ({cr!r})"
        )
        if mode == "exact" and _minus_one_huge(xi, yi):
            continue
        if math.isnan(cr):
            if not math.isnan(g):
                failures.append("NaN expected: " + where)
            elif mode == "exact" and int(gbits[i]) != fmt.nan_bits:
                failures.append("non-canonical NaN: " + where)
            continue
        if math.isnan(g):
            failures.append("unexpected NaN: " + where)
            continue
        if yi == 2:  # exactly x * x, one rounded product (in either mode)
            sq = float(np.asarray(xi, fmt.dtype) * np.asarray(xi, fmt.dtype))
            if f2b(fmt, g) != f2b(fmt, sq):
                failures.append("exponent 2 is not x*x: " + where)
            continue
        if _is_special(xi, yi, tv):
            if f2b(fmt, g) != f2b(fmt, cr):
                failures.append("special value: " + where)
            continue
        if math.copysign(1.0, g) != math.copysign(1.0, cr):
            failures.append("wrong sign: " + where)
            continue
        if normal_only and not (2.0**fmt.emin_norm <= abs(cr) < math.inf):
            continue
        err = 0.0 if f2b(fmt, g) == f2b(fmt, cr) else ulp_error(fmt, g, tv)
        if stats is not None:
            stats["n"] += 1
            stats["cr"] += f2b(fmt, g) == f2b(fmt, cr)
            stats["max_err"] = max(stats["max_err"], err)
        if err > tol:
            failures.append(f"error {err:.3f} ulp > {tol}: " + where)
    return failures


def _report(failures, what):
    if failures:
        pytest.fail(f"{what}: {len(failures)} failures\n" + "\n".join(failures[:15]))


# ----------------------------------------------------------------------------------------------------
# Special values grid (float bases, every exponent type, both modes)

TINY32, HUGE32 = float(np.float32(2.0**-149)), float(np.finfo(np.float32).max)
TINY64, HUGE64 = 5e-324, float(np.finfo(np.float64).max)


def _float_grid_values(fmt: Fmt) -> list[float]:
    tiny, huge = (TINY32, HUGE32) if fmt is F32 else (TINY64, HUGE64)
    vals = [0.0, 1.0, math.inf, math.nan, 0.5, 2.0, 3.0, 1.5, 2.5, 0.25, 10.0, tiny, huge, 2.0**fmt.emin_norm]
    vals += [
        float(np.nextafter(fmt.dtype.type(1), fmt.dtype.type(2))),
        float(np.nextafter(fmt.dtype.type(1), fmt.dtype.type(0))),
    ]
    return vals + [-v for v in vals]


GRID_EXPONENT_INTS = [0, 1, 2, 3, 4, 5, -1, -2, -3, 7, 100, -100, 2**24 + 1, 2**31 - 1, -(2**31)]


def _grid(base_t: str, exp_t: str) -> tuple[np.ndarray, np.ndarray]:
    fmt = FMT[base_t]
    bases = _float_grid_values(fmt)
    if exp_t in ("float32", "float64"):
        ev = _float_grid_values(FMT[exp_t]) + [1e-50, -1e-50, 1e300, -1e300, 2.0 + 2.0**-40, 0.5 + 2.0**-30]
        ev += [2.0**63, 2.0**64, -(2.0**64), 1.5 * 2.0**64, 2.0**65, -(2.0**65), 2.0**100]
        exps = np.array(ev, dtype=exp_t)  # f64 extras become 0, inf or 2 in f32
    else:
        info = np.iinfo(exp_t)
        ints = [
            v
            for v in GRID_EXPONENT_INTS + [2**53 + 1, 2**63 - 1, 2**64 - 1, info.max, info.min]
            if info.min <= v <= info.max
        ]
        exps = np.array(sorted(set(ints)), dtype=exp_t)
    x = np.repeat(np.array(bases, dtype=base_t), exps.size)
    y = np.tile(exps, len(bases))
    return x, y


FLOAT_COMBOS = [(b, e) for b in ("float32", "float64") for e in EXPONENTS]


@pytest.mark.parametrize("mode", ["exact", "fast"])
@pytest.mark.parametrize("base_t,exp_t", FLOAT_COMBOS, ids=[f"{b}^{e}" for b, e in FLOAT_COMBOS])
def test_special_grid(base_t, exp_t, mode):
    x, y = _grid(base_t, exp_t)
    fast = mode == "fast"
    failures = check_float_batch(base_t, exp_t, x, y, mode=mode, tol=2.0 if fast else 1.0, normal_only=fast)
    _report(failures, f"Pow {base_t}^{exp_t} {mode} grid")


# Hand-written Annex F / rule cases: (base type, exponent type, x, y, expected) -- also checks the reference.
NAMED = [
    ("float32", "float32", math.nan, 0.0, 1.0),
    ("float32", "float32", math.nan, -0.0, 1.0),
    ("float32", "float32", 1.0, math.nan, 1.0),
    ("float32", "float32", -1.0, math.inf, 1.0),
    ("float32", "float32", -1.0, -math.inf, 1.0),
    ("float32", "float32", -0.0, -3.0, -math.inf),
    ("float32", "float32", -0.0, -2.0, math.inf),
    ("float32", "float32", -0.0, 3.0, -0.0),
    ("float32", "float32", -0.0, 0.5, 0.0),
    ("float32", "float32", -math.inf, 3.0, -math.inf),
    ("float32", "float32", -math.inf, -3.0, -0.0),
    ("float32", "float32", -math.inf, 2.5, math.inf),
    ("float32", "float32", -2.0, 0.5, math.nan),
    ("float32", "float32", 0.5, math.inf, 0.0),
    ("float32", "float32", 2.0, -math.inf, 0.0),
    ("float32", "float32", 0.0, -1.0, math.inf),
    ("float32", "float32", 2.0, 128.0, math.inf),
    ("float32", "float32", 2.0, -149.0, 2.0**-149),
    ("float32", "float32", 2.0, -150.0, 0.0),
    ("float32", "float32", -2.0, -149.0, -(2.0**-149)),
    ("float32", "float64", math.nan, 1e-50, 1.0),  # the exponent becomes 0 in f32
    ("float32", "float64", -3.0, 2.0 + 2.0**-40, 9.0),  # the exponent becomes 2 in f32: x*x, not NaN
    ("float32", "float64", 0.5, 1e300, 0.0),  # the exponent becomes +inf in f32
    ("float32", "float64", -1.0, 1e300, 1.0),
    ("float32", "int32", -1.0, 2**24 + 1, 1.0),  # 2^24+1 -> 2^24 in f32 (even)
    ("float32", "int64", -1.0, 2**53 + 1, 1.0),
    ("float32", "uint64", 2.0, 2**64 - 1, math.inf),
    ("float32", "int32", 0.0, -1, math.inf),
    ("float32", "int64", -0.0, -1, -math.inf),
    ("float64", "int64", -1.0, 2**53 + 1, 1.0),  # 2^53+1 -> 2^53 in f64 (even)
    ("float64", "int64", -1.0, 2**53 - 1, -1.0),
    ("float64", "float64", math.nan, 0.0, 1.0),
    ("float64", "float64", 1.0, math.nan, 1.0),
    ("float64", "float32", -1.0, -math.inf, 1.0),
    ("float64", "float64", -0.0, -1.0, -math.inf),
    ("float64", "float64", 2.0, -1074.0, 5e-324),
    ("float64", "float64", 2.0, 1024.0, math.inf),
    ("float64", "uint32", 10.0, 308, 1e308),
    ("float64", "int32", 10.0, -3, 0.001),
]


@pytest.mark.parametrize("path", PATHS)
def test_named_float_cases(path):
    failures = []
    for base_t, exp_t, xv, yv, want in NAMED:
        fmt = FMT[base_t]
        yc = exponent_to(fmt, yv, exp_t)
        ref = cr_pow(fmt, xv, yc)
        assert f2b(fmt, ref) == f2b(fmt, want) or (math.isnan(ref) and math.isnan(want)), (
            f"reference disagrees with the hand value for {xv}^{yv}: {ref} vs {want}"
        )
        node = Node("Pow", [ENUM[base_t], ENUM[exp_t]], mode="exact", kernel_path=path)
        got = node.run(np.array([xv] * 5, dtype=base_t), np.array([yv] * 5, dtype=exp_t))
        wb = fmt.nan_bits if math.isnan(want) else f2b(fmt, want)
        if any(int(b) != wb for b in bits_of(got)):
            failures.append(
                f"{base_t}^{exp_t} {xv!r}^{yv!r}: got {got[0]!r} (0x{int(bits_of(got)[0]):x}), "
                f"expected {want!r} (0x{wb:x})"
            )
    assert not failures, "\n".join(failures)


# ----------------------------------------------------------------------------------------------------
# Random samples (float bases)


def _random_finite(rng: np.random.Generator, fmt: Fmt, n: int) -> np.ndarray:
    """Finite nonzero values with a uniform binade (subnormals included) and random significand."""
    u = fmt.udtype
    nbits = u.itemsize * 8
    exp_bits = 8 if fmt is F32 else 11
    mant_bits = nbits - 1 - exp_bits
    e = rng.integers(0, (1 << exp_bits) - 1, size=n, dtype=np.uint64)  # exponent field < all ones
    m = rng.integers(0, 1 << mant_bits, size=n, dtype=np.uint64)
    m[(e == 0) & (m == 0)] = 1
    b = (e << np.uint64(mant_bits)) | m
    return b.astype(u).view(fmt.dtype)


def _random_pairs(rng: np.random.Generator, fmt: Fmt, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Bases over all binades and exponents aimed at results from deep underflow to overflow."""
    span = fmt.emax - fmt.emin_norm + fmt.p
    lo, hi = fmt.emin_norm - fmt.p - span // 12, fmt.emax + span // 12
    parts_x, parts_y = [], []
    # 1) random base, exponent aimed at log2(result) uniform in [lo, hi]; some rounded to integers,
    #    negative bases mostly with integer exponents (else NaN)
    k = n * 6 // 10
    x = _random_finite(rng, fmt, k)
    neg = rng.random(k) < 0.3
    x = np.where(neg, -x, x)
    lg = np.log2(np.abs(x.astype(np.float64)))
    lg[lg == 0] = 1.0
    target = rng.uniform(lo, hi, size=k)
    y = target / lg
    integer = (neg & (rng.random(k) < 0.85)) | (rng.random(k) < 0.2)
    y = np.where(integer, np.round(y), y).astype(fmt.dtype)
    parts_x.append(x)
    parts_y.append(y)
    # 2) bases close to 1 with large exponents (the hard cases of a pow)
    k = n * 2 // 10
    eps = 2.0 ** (1 - fmt.p)
    steps = rng.integers(-(2**12), 2**12, size=k)
    x = (1.0 + steps * eps).astype(fmt.dtype)
    x = np.where(x == 1, fmt.dtype.type(1 + eps), x)
    lg = np.log2(x.astype(np.float64))
    y = (rng.uniform(lo, hi, size=k) / lg).astype(fmt.dtype)
    parts_x.append(x)
    parts_y.append(y)
    # 3) small and medium integer exponents and simple fractions on random bases
    k = n - sum(p.size for p in parts_x)
    x = _random_finite(rng, fmt, k)
    x = np.where(rng.random(k) < 0.3, -x, x)
    choices = np.array([3, 4, 5, -1, -2, -3, 7, 10, 0.5, -0.5, 1.5, 1.0 / 3, 0.25, 13, -7, 2.5])
    y = rng.choice(choices, size=k).astype(fmt.dtype)
    parts_x.append(x)
    parts_y.append(y)
    return np.concatenate(parts_x), np.concatenate(parts_y)


CR_RATE: dict[str, tuple[int, int, float]] = {}


def _sample_test(base_t, n, seed):
    fmt = FMT[base_t]
    rng = np.random.default_rng(seed)
    x, y = _random_pairs(rng, fmt, n)
    stats = {"n": 0, "cr": 0, "max_err": 0.0}
    failures = check_float_batch(base_t, base_t, x, y, stats=stats)
    # the sample covers every kind of result
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cr = np.array([cr_pow(fmt, float(a), float(b)) for a, b in zip(x, y)])
    a = np.abs(cr)
    kinds = {
        "normal": int(np.sum((a >= 2.0**fmt.emin_norm) & np.isfinite(a))),
        "overflow": int(np.sum(np.isinf(a))),
        "zero": int(np.sum(a == 0)),
        "subnormal": int(np.sum((a > 0) & (a < 2.0**fmt.emin_norm))),
    }
    CR_RATE[base_t] = (stats["cr"], stats["n"], stats["max_err"])
    print(
        f"\nPow {base_t} exact: {stats['cr']}/{stats['n']} correctly rounded "
        f"({100.0 * stats['cr'] / max(stats['n'], 1):.3f}%), max error {stats['max_err']:.4f} ulp; "
        f"result kinds {kinds}"
    )
    for kind, count in kinds.items():
        assert count >= n // 100, f"sample has too few {kind} results: {kinds}"
    _report(failures, f"Pow {base_t}^{base_t} random sample")


def test_random_f32():
    _sample_test("float32", 24_000, SEED)


def test_random_f64():
    _sample_test("float64", 6_000, SEED + 1)


MIXED = [(b, e) for b, e in FLOAT_COMBOS if b != e]


def _mixed_exponents(rng, base_t, exp_t, x):
    """Exponents of type exp_t aimed at a spread of result magnitudes for the bases x."""
    fmt = FMT[base_t]
    lg = np.log2(np.abs(x.astype(np.float64)))
    lg[lg == 0] = 1.0
    span = fmt.emax - fmt.emin_norm + fmt.p
    target = rng.uniform(fmt.emin_norm - fmt.p - span // 12, fmt.emax + span // 12, size=x.size)
    y = target / lg
    if exp_t in ("float32", "float64"):
        return y.astype(exp_t)
    info = np.iinfo(exp_t)
    if info.min == 0:
        y = np.abs(y)
    y = np.clip(np.round(y), max(float(info.min), -(2.0**62)), min(float(info.max), 2.0**62)).astype(exp_t)
    y[: x.size // 10] = rng.integers(info.min, info.max, size=x.size // 10, dtype=exp_t, endpoint=True)
    return y


@pytest.mark.parametrize("base_t,exp_t", MIXED, ids=[f"{b}^{e}" for b, e in MIXED])
def test_random_mixed_exponent_types(base_t, exp_t):
    fmt = FMT[base_t]
    rng = np.random.default_rng([SEED, BASES.index(base_t), EXPONENTS.index(exp_t)])
    n = 1500
    x = _random_finite(rng, fmt, n)
    x = np.where(rng.random(n) < 0.3, -x, x)
    x[: n // 5] = (1.0 + rng.integers(-64, 64, size=n // 5) * 2.0 ** (1 - fmt.p)).astype(fmt.dtype)
    y = _mixed_exponents(rng, base_t, exp_t, x)
    _report(check_float_batch(base_t, exp_t, x, y), f"Pow {base_t}^{exp_t} random sample")


@pytest.mark.parametrize("exp_t", EXPONENTS)
@pytest.mark.parametrize("base_t", ["float32", "float64"])
def test_exponent_two_is_x_times_x(base_t, exp_t):
    fmt = FMT[base_t]
    rng = np.random.default_rng([SEED, 2, BASES.index(base_t), EXPONENTS.index(exp_t)])
    x = _random_finite(rng, fmt, 3000)
    x = np.concatenate([x, -x, np.array([0.0, -0.0, math.inf, -math.inf, math.nan], dtype=base_t)])
    y = np.full(x.size, 2, dtype=exp_t)
    for mode in ("exact", "fast"):
        got = run_all_paths(base_t, exp_t, x, y, mode)
        want = x * x
        g, w = bits_of(got), bits_of(want)
        nan = np.isnan(want)
        bad = np.nonzero((g != w) & ~nan)[0]
        assert bad.size == 0, f"{mode}: x^2 != x*x at x={x[bad[0]]!r}: {got[bad[0]]!r} vs {want[bad[0]]!r}"
        assert np.all(np.isnan(got[nan]))
        if mode == "exact":
            assert np.all(g[nan] == fmt.nan_bits)


@pytest.mark.parametrize("base_t", ["float32", "float64"])
def test_fast_mode_normal_results_within_2_ulp(base_t):
    fmt = FMT[base_t]
    rng = np.random.default_rng(SEED + 5)
    x, y = _random_pairs(rng, fmt, 4000 if base_t == "float32" else 2000)
    _report(
        check_float_batch(base_t, base_t, x, y, mode="fast", tol=2.0, normal_only=True),
        f"Pow {base_t} fast mode",
    )


# ----------------------------------------------------------------------------------------------------
# Integer bases


def _to_int(t: str, d: float) -> int:
    info = np.iinfo(t)
    if math.isnan(d):
        return 0
    if math.isinf(d):
        return int(info.max) if d > 0 else int(info.min)
    return min(max(int(d), int(info.min)), int(info.max))  # int() truncates toward zero


def _int_expectations(base_t, exp_t, b, e):
    """(set of results allowed by a pow within 1 ulp, the result of the correctly rounded pow, exact?)."""
    xb = _round_int_to(F64, int(b))
    ye = float(e) if exp_t in ("float32", "float64") else _round_int_to(F64, int(e))
    if ye == 2:  # x*x, one rounded product
        sq = xb * xb
        return {_to_int(base_t, sq)}, _to_int(base_t, sq), True
    cr = cr_pow(F64, xb, ye)
    tv = true_pow(xb, ye)
    exact = gmpy2.is_nan(tv) or gmpy2.is_infinite(tv) or (_mp(cr) == tv)
    allowed = {_to_int(base_t, cr)}
    if not exact and math.isfinite(cr):
        for d in (float(np.nextafter(cr, -math.inf)), float(np.nextafter(cr, math.inf))):
            if ulp_error(F64, d, tv) <= 1.0:
                allowed.add(_to_int(base_t, d))
    return allowed, _to_int(base_t, cr), exact


def _int_cases(base_t, exp_t, rng):
    bi, ei = np.iinfo(base_t), (None if exp_t.startswith("float") else np.iinfo(exp_t))
    bases = [
        0,
        1,
        -1,
        2,
        -2,
        3,
        -3,
        7,
        -7,
        10,
        -10,
        46340,
        46341,
        -46341,
        3037000499,
        3037000500,
        2**31 - 1,
        -(2**31),
        2**53 + 1,
        2**62,
        2**63 - 1,
        -(2**63),
    ]
    if exp_t.startswith("float"):
        tiny, huge = (1e-50, 1e300) if exp_t == "float64" else (1e-40, 3e38)
        exps = [0.0, -0.0, 1.0, 2.0, 3.0, -1.0, -2.0, 0.5, -0.5, 2.5, 31.0, 32.0, 62.0, 63.0, 64.0, 100.0]
        exps += [-100.0, math.inf, -math.inf, math.nan, tiny, huge]
    else:
        exps = [
            0,
            1,
            2,
            3,
            4,
            5,
            10,
            19,
            20,
            31,
            32,
            39,
            40,
            62,
            63,
            64,
            100,
            -1,
            -2,
            -3,
            2**53 + 1,
            2**31 - 1,
            2**32 - 1,
            2**63 - 1,
            2**64 - 1,
            -(2**31),
            -(2**63),
        ]
        exps = [v for v in exps if ei.min <= v <= ei.max]
    bases = [v for v in bases if bi.min <= v <= bi.max]
    xs = [b for b in bases for _ in exps]
    ys = [e for _ in bases for e in exps]
    # random: moderate bases with exponents that reach and pass the type's range
    n = 800
    rb = rng.integers(-40, 41, size=n)
    re = rng.integers(0, 70 if base_t == "int64" else 40, size=n)
    if exp_t.startswith("float"):
        re = re + np.where(rng.random(n) < 0.3, rng.choice([0.5, -0.25, 0.1], size=n), 0.0)
    xs += [int(v) for v in rb]
    ys += [float(v) if exp_t.startswith("float") else int(v) for v in re]
    rb2 = rng.integers(bi.min, bi.max, size=200, dtype=np.int64, endpoint=True)
    xs += [int(v) for v in rb2]
    small = [1, 2, 3, 0] if exp_t.startswith("uint") else [1, 2, 3, -1]
    ys += [float(v) if exp_t.startswith("float") else int(v) for v in rng.choice(small, size=200)]
    return np.array(xs, dtype=base_t), np.array(ys, dtype=exp_t)


INT_COMBOS = [(b, e) for b in ("int32", "int64") for e in EXPONENTS]


@pytest.mark.parametrize("base_t,exp_t", INT_COMBOS, ids=[f"{b}^{e}" for b, e in INT_COMBOS])
def test_integer_base(base_t, exp_t):
    rng = np.random.default_rng([SEED, 3, BASES.index(base_t), EXPONENTS.index(exp_t)])
    x, y = _int_cases(base_t, exp_t, rng)
    got = run_all_paths(base_t, exp_t, x, y)
    failures = []
    for i in range(x.size):
        ye = float(y[i]) if exp_t.startswith("float") else _round_int_to(F64, int(y[i]))
        if _minus_one_huge(float(x[i]), ye):
            continue  # BUG_MINUS_ONE, see test_bug_minus_one_to_huge_even_exponent
        allowed, cr, exact = _int_expectations(base_t, exp_t, x[i], y[i])
        g = int(got[i])
        # A result that is exact in f64 (e.g. 3^20, 2^62, 0^-1 = inf, NaN) admits one answer.
        if g not in allowed:
            failures.append(
                f"{base_t}^{exp_t} {int(x[i])}^{y[i]!r}: got {g}, expected {sorted(allowed)}"
                f"{' (exact)' if exact else ''}"
            )
    _report(failures, f"Pow {base_t}^{exp_t}")


INT_NAMED = [
    ("int32", "int32", 0, -1, 2**31 - 1),  # +inf saturates
    ("int32", "int32", 0, -2, 2**31 - 1),
    ("int32", "float32", 0, -0.5, 2**31 - 1),
    ("int32", "int32", 2, 31, 2**31 - 1),  # 2^31 saturates
    ("int32", "int32", -2, 31, -(2**31)),
    ("int32", "int32", -2, 33, -(2**31)),  # saturates low
    ("int32", "int32", 2, -1, 0),  # 0.5 truncates to 0
    ("int32", "int32", -2, -1, 0),  # -0.5 truncates to 0
    ("int32", "int32", -1, -1, -1),
    ("int32", "int32", 3, 19, 1162261467),
    ("int32", "float32", -8, 1.0 / 3, 0),  # NaN -> 0
    ("int32", "float64", 5, math.nan, 0),
    ("int32", "float64", 7, 0.0, 1),
    ("int32", "float64", 1, math.nan, 1),
    ("int32", "float64", 7, math.inf, 2**31 - 1),
    ("int32", "float64", -7, math.inf, 2**31 - 1),
    ("int32", "float64", -1, math.inf, 1),
    ("int32", "float64", 7, -math.inf, 0),
    ("int32", "float32", 10, 2.5, 316),
    ("int32", "uint64", -1, 2**64 - 1, 1),  # u64 max -> 2^64 in f64 (even)
    ("int32", "int64", -1, 2**53 + 1, 1),  # 2^53+1 -> 2^53 (even)
    ("int32", "uint32", 46341, 2, 2**31 - 1),  # x*x = 2147488281 saturates
    ("int64", "int64", 0, -1, 2**63 - 1),
    ("int64", "int64", 2, 62, 2**62),
    ("int64", "int64", 2, 63, 2**63 - 1),  # 2^63 saturates
    ("int64", "int64", -2, 63, -(2**63)),
    ("int64", "int64", 3, 39, int(float(3**39))),  # 3^39 < 2^63, not exact in f64: rounded, then truncated
    ("int64", "int64", 2**31 + 1, 2, (2**31 + 1) ** 2 - 1),  # x*x rounded in f64: 2^62 + 2^32 (+1 lost)
    ("int64", "int64", 2**63 - 1, 1, 2**63 - 1),  # converted to 2^63 in f64, saturates back
    ("int64", "int64", 3037000500, 2, 2**63 - 1),
    ("int64", "uint64", 10, 18, 10**18),
    ("int64", "float64", 10, 19.5, 2**63 - 1),
    ("int64", "float64", 10, 18.5, 3162277660168379392),
]


@pytest.mark.parametrize("path", PATHS)
def test_named_integer_cases(path):
    failures = []
    for base_t, exp_t, b, e, want in INT_NAMED:
        allowed, cr, _ = _int_expectations(base_t, exp_t, b, e)
        assert cr == want, f"reference disagrees with the hand value: {b}^{e} -> {cr}, hand {want}"
        node = Node("Pow", [ENUM[base_t], ENUM[exp_t]], mode="exact", kernel_path=path)
        got = node.run(np.array([b] * 3, dtype=base_t), np.array([e] * 3, dtype=exp_t))
        if any(int(g) not in allowed for g in got) or int(got[0]) != cr:
            failures.append(f"{base_t}^{exp_t} {b}^{e!r}: got {int(got[0])}, expected {cr}")
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("base_t", ["int32", "int64"])
def test_integer_base_fast_mode_specials(base_t):
    info = np.iinfo(base_t)
    x = np.array([0, 0, 2, -2, 1, 5, -1, 3], dtype=base_t)
    y = np.array([-1, 0, 70, 71, 12345, 0, -3, 2], dtype=np.int64)
    want = [info.max, 1, info.max, info.min, 1, 1, -1, 9]
    for p in PATHS:
        got = Node("Pow", [ENUM[base_t], TensorProto.INT64], mode="fast", kernel_path=p).run(x, y)
        assert [int(v) for v in got] == want, f"path {p}: {got} vs {want}"


BUG_COMBOS = [(b, e) for b in BASES for e in ("float32", "float64")]
BUG_EXPONENTS = [1.5 * 2.0**64, 2.0**65, -(2.0**65), 2.0**100, -(2.0**120)]


@pytest.mark.parametrize("y", BUG_EXPONENTS, ids=["1.5*2^64", "2^65", "-2^65", "2^100", "-2^120"])
@pytest.mark.parametrize("base_t,exp_t", BUG_COMBOS, ids=[f"{b}^{e}" for b, e in BUG_COMBOS])
def test_bug_minus_one_to_huge_even_exponent(base_t, exp_t, y):
    x = np.full(70, -1, dtype=base_t)
    got = run_all_paths(base_t, exp_t, x, np.full(70, y, dtype=exp_t))
    assert np.all(got == 1), f"Pow(-1, {y!r}) [{base_t}^{exp_t}] gave {got[0]!r}, expected 1"


def test_minus_one_to_huge_even_exponent_fast_mode():
    for base_t, exp_t in BUG_COMBOS:
        for y in BUG_EXPONENTS:
            x = np.full(3, -1, dtype=base_t)
            got = run_all_paths(base_t, exp_t, x, np.full(3, y, dtype=exp_t), "fast")
            assert np.all(got == 1), f"fast Pow(-1, {y!r}) [{base_t}^{exp_t}] gave {got[0]!r}"


# ----------------------------------------------------------------------------------------------------
# Exact results and exact midpoints (the hardest cases for a correctly rounded pow): <= 1 ulp is asserted,
# the correctly rounded fraction is measured and printed.


def _iroot_ceil(v: int, n: int) -> int:
    r = int(round(v ** (1.0 / n)))
    while r**n < v:
        r += 1
    while r > 1 and (r - 1) ** n >= v:
        r -= 1
    return r


def _exact_power_cases(fmt: Fmt, rng: np.random.Generator, midpoint: bool) -> tuple[np.ndarray, np.ndarray]:
    """x^n (integer n) and a^2 ^ 1.5 whose exact value has p+1 significant bits and is odd (a midpoint) or,
    with midpoint=False, fits in p bits; bases scaled by random powers of two, odd powers also negated."""
    p = fmt.p
    xs: list[float] = []
    ys: list[float] = []
    bits_lo, bits_hi = (p, p + 1) if midpoint else (p // 2, p)
    copies = 4 if fmt is F32 else 1  # few midpoints exist in binary32: each is used at several scales

    def good(v: int) -> bool:
        return v.bit_length() == p + 1 if midpoint else bits_lo < v.bit_length() <= p

    def pick(cands: list[int], limit: int) -> list[int]:
        if len(cands) <= limit:
            return cands
        return [int(c) for c in rng.choice(cands, size=limit, replace=False)]

    # x^n, x = a * 2^k
    for n in range(3, 40):
        lo, hi = _iroot_ceil(1 << bits_lo, n), _iroot_ceil(1 << bits_hi, n)
        for a in pick([a for a in range(lo | 1, hi + 1, 2) if good(a**n)], 150):
            for _ in range(copies):
                k = int(rng.integers(-(fmt.emax // n) // 2, (fmt.emax // n) // 2))
                xv = math.ldexp(a, k)
                xs.append(-xv if n % 2 and rng.random() < 0.5 else xv)
                ys.append(float(n))
    # (a^2 * 4^k) ^ (m / 2) = a^m * 2^(k m) for odd m
    for m in (3, 5, 7):
        lo, hi = _iroot_ceil(1 << bits_lo, m), _iroot_ceil(1 << bits_hi, m)
        for a in pick([a for a in range(lo | 1, hi + 1, 2) if good(a**m) and (a * a).bit_length() <= p], 300):
            for _ in range(copies):
                xs.append(math.ldexp(a * a, 2 * int(rng.integers(-20, 20))))
                ys.append(m / 2)
    return np.array(xs, dtype=fmt.dtype), np.array(ys, dtype=fmt.dtype)


@pytest.mark.parametrize("kind", ["midpoint", "exact"])
@pytest.mark.parametrize("base_t", ["float32", "float64"])
def test_exact_results_and_midpoints(base_t, kind):
    fmt = FMT[base_t]
    rng = np.random.default_rng([SEED, 9, BASES.index(base_t), kind == "midpoint"])
    x, y = _exact_power_cases(fmt, rng, kind == "midpoint")
    assert x.size >= 100
    for xi, yi in zip(x[:50], y[:50]):  # the construction is what it claims
        tv = true_pow(float(xi), float(yi))
        with gmpy2.context(precision=fmt.p):
            representable = (+tv) == tv
        with gmpy2.context(precision=fmt.p + 1):
            at_p1 = (+tv) == tv
        assert representable == (kind == "exact") and at_p1
    stats = {"n": 0, "cr": 0, "max_err": 0.0}
    _report(check_float_batch(base_t, base_t, x, y, stats=stats), f"Pow {base_t} {kind} cases")
    print(
        f"\nPow {base_t} exact mode, {kind} results: {stats['cr']}/{stats['n']} correctly rounded, "
        f"max error {stats['max_err']:.4f} ulp"
    )


def _round_f32_by_hand(v: mpfr) -> float:
    """Round-half-even of an exact MPFR value to binary32, with subnormals and overflow (no MPFR rounding)."""
    if gmpy2.is_nan(v) or gmpy2.is_infinite(v) or gmpy2.is_zero(v):
        return float(v)
    num, den = v.as_integer_ratio()
    bits = np.array(round_magnitude(Fraction(num, den), 8, 23), dtype=np.uint32)
    out = float(bits.view(np.float32))
    return -out if num < 0 else out


def test_reference_self_check():
    """The one-rounding MPFR result equals a hand rounding of the 200-bit value (f32, all result ranges)."""
    rng = np.random.default_rng(SEED + 11)
    x, y = _random_pairs(rng, F32, 3000)
    for xi, yi in zip(x.tolist(), y.tolist()):
        a = cr_pow(F32, xi, yi)
        b = _round_f32_by_hand(true_pow(xi, yi))
        assert f2b(F32, a) == f2b(F32, b) or (math.isnan(a) and math.isnan(b)), (xi, yi, a, b)


# ----------------------------------------------------------------------------------------------------
# f32 exact mode: correct rounding of every result (the vector first pass + the scalar fallback, pow.inc),
# checked bit for bit on large vectorized samples, every kernel path.

F32_EXACT_N = 1 << 20


def _f32_cr_reference(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, int]:
    """RN_f32(x^y) for f32 arrays, vectorized. R = NumPy's double pow (the C library's, error below 1 ulp
    of double, i.e. 2^-52 relative, for results in double's normal range); when both ends of R(1 -+ 2^-40)
    round to the same f32 that is the correctly rounded result (rounding is monotone), results beyond
    2^+-1000 are inf / 0 in f32 either way; the rest (and the spec's special cases) take MPFR (cr_pow).
    Returns the reference and the number of MPFR calls."""
    xd, yd = x.astype(np.float64), y.astype(np.float64)
    with np.errstate(all="ignore"):
        r = np.power(xd, yd)
        a = np.abs(r)
        lo = (r - a * 2.0**-40).astype(np.float32)
        hi = (r + a * 2.0**-40).astype(np.float32)
        ref = r.astype(np.float32)
    ok = (lo == hi) | (a < 2.0**-1000) | (a > 2.0**1000)
    ok &= np.isfinite(xd) & np.isfinite(yd) & (xd != 0) & (yd != 0) & (xd != 1) & ~np.isnan(r)
    slow = np.nonzero(~ok)[0]
    for i in slow:
        ref[i] = cr_pow(F32, float(x[i]), float(y[i]))
    return ref, int(slow.size)


def _f32_pairs(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Bases over all binades (subnormal included), exponents aimed at every result magnitude (deep underflow
    to overflow), bases next to 1 with large exponents, exponents over many binades, integer and n/2^k
    exponents, negative bases with integer exponents."""
    parts = []
    t = rng.uniform(-156.0, 132.0, size=n)
    x = np.abs(_random_finite(rng, F32, n))
    lg = np.log2(x.astype(np.float64))
    lg[lg == 0] = 1.0
    kind = rng.integers(0, 6, size=n)
    y = (t / lg).astype(np.float32)
    # next to 1: 1 +- d ulps, d below 2^k, k in [0, 23]
    near = kind == 1
    d = (rng.integers(1, 1 << 23, size=n) >> rng.integers(0, 23, size=n)) + 1
    xn = np.where(rng.random(n) < 0.5, 1.0 + d * 2.0**-23, 1.0 - d * 2.0**-24).astype(np.float32)
    x = np.where(near, xn, x)
    lgn = np.log2(xn.astype(np.float64))
    y = np.where(near, (t / lgn).astype(np.float32), y)
    # exponents over binades 2^-30 .. 2^10, either sign
    wide = kind == 2
    yw = (rng.uniform(1, 2, size=n) * 2.0 ** rng.integers(-30, 11, size=n)).astype(np.float32)
    y = np.where(wide, np.where(rng.random(n) < 0.5, -yw, yw), y)
    # integer and n / 2^k exponents
    small = kind == 3
    ys = (rng.integers(-64, 65, size=n) / 2.0 ** rng.integers(0, 5, size=n)).astype(np.float32)
    y = np.where(small, ys, y)
    # negative bases with integer exponents (kind 4), or any exponent (kind 5: mostly NaN results)
    negb = kind >= 4
    y = np.where(kind == 4, np.round(y), y).astype(np.float32)
    x = np.where(negb, -x, x).astype(np.float32)
    parts.append((x, y))
    return x, y


def _check_f32_exact(x: np.ndarray, y: np.ndarray, what: str) -> None:
    got = run_all_paths("float32", "float32", x, y, "exact")  # bit identity across paths asserted inside
    ref, _ = _f32_cr_reference(x, y)
    g, r = bits_of(got), bits_of(ref)
    nan = np.isnan(ref)
    assert np.all(g[nan] == F32.nan_bits), f"{what}: NaN results must be the canonical NaN"
    report_misrounded(
        what,
        np.nonzero((g != r) & ~nan)[0],
        x.size,
        lambda i: f"x={float(x[i])!r} ({int(bits_of(x[i : i + 1])[0]):#010x}) y={float(y[i])!r} "
        f"({int(bits_of(y[i : i + 1])[0]):#010x}): got {float(got[i])!r} expected {float(ref[i])!r}",
        rows=10,
    )


def test_f32_exact_correctly_rounded_large_sample():
    """2^17 random pairs, every path, bit for bit against the correctly rounded result."""
    rng = np.random.default_rng([SEED, 17])
    x, y = _f32_pairs(rng, F32_EXACT_N)
    _check_f32_exact(x, y, "Pow f32 exact, random sample")
    # the sample reaches every kind of result
    with np.errstate(all="ignore"):
        r = np.abs(np.power(x.astype(np.float64), y.astype(np.float64)))
    assert np.sum(r >= 2.0**128) > 1000 and np.sum(r < 2.0**-150) > 1000
    assert np.sum((r > 2.0**-149) & (r < 2.0**-126)) > 1000 and np.sum((r > 0.5) & (r < 2)) > 10000


def test_f32_reference_filter_agrees_with_mpfr():
    """The vectorized reference (double pow + interval, MPFR when undecided) equals MPFR on a subsample."""
    rng = np.random.default_rng([SEED, 18])
    x, y = _f32_pairs(rng, 3000)
    ref, _ = _f32_cr_reference(x, y)
    for i in range(x.size):
        m = cr_pow(F32, float(x[i]), float(y[i]))
        assert f2b(F32, float(ref[i])) == f2b(F32, m) or (math.isnan(m) and math.isnan(ref[i])), (x[i], y[i])


def _f32_exact_value_cases(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """x = m 2^e (m odd, small; squares and fourth powers for the fractional exponents) and y an integer or
    n / 2^k: every exact result and every midpoint of binary32 has this form (x^y with an odd M^n of at most
    25 bits, or a power of two), including subnormal midpoints such as (81 2^-40)^3.75 = 3^15 2^-150."""
    xs, ys = [], []
    for n in range(-20, 41):
        for k in range(0, 5):
            yv = n / 2.0**k
            if yv == 0:
                continue
            m = rng.choice(np.arange(1, 4096, 2), size=24)
            for mv in m:
                mm = int(mv) ** (2**k) if int(mv) ** (2**k) < 2**24 else 1
                e = int(rng.integers(-149, 120))
                xv = math.ldexp(mm, e)
                if 2.0**-149 <= xv < 2.0**128:
                    xs.append(xv)
                    ys.append(yv)
    # powers of two to every exponent, down to the 2^-150 tie and up to overflow
    for e in range(-149, 128, 3):
        for yv in (-3.0, -1.5, -0.5, 0.5, 1.5, 3.0, 150.0 / max(abs(e), 1), -150.0 / max(abs(e), 1)):
            xs.append(math.ldexp(1.0, e))
            ys.append(yv)
    xs.append(math.ldexp(81.0, -40))
    ys.append(3.75)
    xs.append(math.ldexp(1.0, 75))
    ys.append(-2.0)
    x = np.array(xs, dtype=np.float32)
    y = np.array(ys, dtype=np.float32)
    x = np.where(rng.random(x.size) < 0.25, -x, x).astype(np.float32)
    return x, y


def test_f32_exact_results_and_midpoints_bit_exact():
    rng = np.random.default_rng([SEED, 19])
    x, y = _f32_exact_value_cases(rng)
    assert x.size > 5000
    _check_f32_exact(x, y, "Pow f32 exact, exact results and midpoints")


HARD_DIR = __import__("pathlib").Path(__file__).resolve().parents[2] / "testdata" / "hard_cases"
HARD_FILE = HARD_DIR / "pow_f32_hard_cases.txt"


def test_f32_hard_cases():
    """Pairs whose x^y lies closest to a rounding boundary, found by tools/c_tool.py pow_verify -H
    (see the file)."""
    xs, ys = [], []
    for line in HARD_FILE.read_text().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        a, b = line.split()[:2]
        xs.append(int(a, 16))
        ys.append(int(b, 16))
    assert len(xs) >= 60
    x = np.array(xs, dtype=np.uint32).view(np.float32)
    y = np.array(ys, dtype=np.uint32).view(np.float32)
    # the same pairs with a negative base and an odd exponent would differ; keep them as found, and also
    # check them against MPFR one by one (no filter)
    got = run_all_paths("float32", "float32", x, y, "exact")
    for i in range(x.size):
        want = cr_pow(F32, float(x[i]), float(y[i]))
        assert f2b(F32, float(got[i])) == f2b(F32, want), (float(x[i]), float(y[i]), float(got[i]), want)


# stated: fast-mode f32 Pow is within 1 ulp (measured < 0.51, tools/c_tool.py pow_verify -f)
FAST_ULP_BOUND = 1.0


def test_f32_fast_mode_within_bound():
    rng = np.random.default_rng([SEED, 20])
    x, y = _f32_pairs(rng, 1 << 17)
    x, y = x[x > 0], y[x > 0]
    ref, _ = _f32_cr_reference(x, y)
    with np.errstate(all="ignore"):
        r = np.power(x.astype(np.float64), y.astype(np.float64))
    worst = 0.0
    for p in PATHS:
        got = Node("Pow", [ENUM["float32"]] * 2, mode="fast", kernel_path=p).run(x, y)
        same = bits_of(got) == bits_of(ref)
        idx = np.nonzero(~same)[0]
        for i in idx:
            g, t = float(got[i]), float(r[i])
            if math.isinf(float(ref[i])) or float(ref[i]) == 0.0:
                # near the overflow / underflow thresholds the neighbour of the correct result is allowed
                assert abs(f2b(F32, g) - f2b(F32, float(ref[i]))) <= 1, (x[i], y[i], g, ref[i])
                continue
            e = max(math.frexp(abs(t))[1] - 24, -149)
            err = abs(g - t) / math.ldexp(1.0, e)
            worst = max(worst, err)
            assert err <= FAST_ULP_BOUND, (p, float(x[i]), float(y[i]), g, t, err)
    print(f"\nPow f32 fast mode: max error {worst:.4f} ulp")


@pytest.mark.parametrize("exp_dtype", [np.float32, np.float64, np.int64])
def test_broadcast_square_is_the_general_pow(exp_dtype):
    """f32 Pow(x, 2) with a broadcast exponent runs as x*x: the same bits as the general kernel (exponent
    given per element), specials and NaN payloads included, on every path."""
    from onnx import helper as _h

    x = np.random.default_rng(0).standard_normal(5000).astype(np.float32) * 1e19
    x[:8] = [np.inf, -np.inf, 0.0, -0.0, np.nan, 1e-40, -3e38, 1e-23]
    x.view(np.uint32)[9] = 0x7F800123
    et = _h.np_dtype_to_tensor_dtype(np.dtype(exp_dtype))
    for p in onemodel_ep.kernel_paths():
        node = Node("Pow", [1, et], kernel_path=p, mode="exact")
        y = node.run(x, np.array(2, exp_dtype))
        general = node.run(x, np.full(x.shape, 2, exp_dtype))
        assert y.tobytes() == general.tobytes(), p
