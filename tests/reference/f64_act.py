"""MPFR references (gmpy2) for the correctly rounded binary64 Sigmoid and Tanh
(provider/csrc/math/om_f64_act.h), and the test entry that calls them: shared by tests/kernels/test_f64_act.py
and tools/verify/f64_act_check.py."""

from __future__ import annotations

import gmpy2
import numpy as np
from gmpy2 import mpfr

from onemodel_ep._lib import ffi, native_test_entry

# binary64 with its subnormals, nearest even: MPFR's exponent range for IEEE double.
F64 = gmpy2.context(precision=53, emin=-1073, emax=1024, subnormalize=True, round=gmpy2.RoundToNearest)
# Sigmoid is a composite: evaluated at 300 bits, then rounded once (a double rounding could differ only for a
# value within 2^-300 relative of a binary64 midpoint).
WIDE = gmpy2.context(precision=300, emin=-100000, emax=100000)
CANONICAL_NAN = np.uint64(0x7FF8000000000000)
FUNCS = {"sigmoid": 0, "tanh": 1}


def ref_sigmoid(x: float) -> float:
    if x != x:
        return float("nan")
    with gmpy2.context(WIDE):
        v = 1 / (1 + gmpy2.exp(-mpfr(x)))
    with gmpy2.context(F64):
        return float(+v)


def ref_tanh(x: float) -> float:
    if x != x:
        return float("nan")
    with gmpy2.context(F64):  # MPFR's tanh is correctly rounded itself
        return float(gmpy2.tanh(mpfr(x)))


REFS = {"sigmoid": ref_sigmoid, "tanh": ref_tanh}


def reference(name: str, x: np.ndarray) -> np.ndarray:
    """The correctly rounded results; NaN inputs give the canonical NaN."""
    fn = REFS[name]
    y = np.array([fn(float(v)) for v in x], dtype=np.float64)
    y.view(np.uint64)[np.isnan(y)] = CANONICAL_NAN
    return y


def native(name: str, x: np.ndarray, force_mp: int = 0) -> np.ndarray:
    """om_f64_sigmoid / om_f64_tanh on every element (force_mp = j in 1..6: their multi-precision fallback,
    starting at 64 * 2^j bits; -1: their double-double pass, then the fallback, the fast pass skipped)."""
    x = np.ascontiguousarray(x, dtype=np.float64)
    y = np.empty_like(x)
    xp, yp = ffi.from_buffer("double[]", x), ffi.from_buffer("double[]", y)
    assert native_test_entry("om_test_f64_act")(FUNCS[name], force_mp, xp, yp, x.size) == 0
    return y


def cap_hits() -> int:
    """Inputs the fallback's last precision (4096 bits) left unsettled since the library loaded."""
    return int(native_test_entry("om_test_f64_act_cap_hits")())


def mismatches(x: np.ndarray, got: np.ndarray, want: np.ndarray) -> list[tuple[float, float, float]]:
    bad = np.nonzero(got.view(np.uint64) != want.view(np.uint64))[0]
    return [(float(x[i]), float(got[i]), float(want[i])) for i in bad[:10]]


def signed_log_uniform(rng: np.random.Generator, lo: float, hi: float, n: int) -> np.ndarray:
    """n values of magnitude 2^U(lo, hi), random signs: every binade in between."""
    return np.exp2(rng.uniform(lo, hi, n)) * rng.choice([-1.0, 1.0], n)


def inputs(name: str, rng: np.random.Generator, scale: int) -> np.ndarray:
    """Inputs over every binade and threshold that matters for the function (about 10 * scale values)."""
    u = rng.uniform
    if name == "sigmoid":
        parts = [
            u(-40.0, 40.0, 3 * scale),
            signed_log_uniform(rng, -60.0, 9.6, 3 * scale),  # tiny to -745
            u(36.5, 38.5, scale // 2),  # the threshold to 1 (37.5)
            u(-745.3, -708.0, scale),  # subnormal results and the threshold to 0 (-745.2)
            u(-746.0, -744.5, scale // 4),
            u(-610.0, -590.0, scale // 4),  # the first pass's limit (-600)
            signed_log_uniform(rng, -56.0, -52.0, scale),  # the threshold to 1/2 (2^-54)
            u(-1.0, 1.0, scale),
        ]
    else:
        parts = [
            u(-20.0, 20.0, 3 * scale),
            signed_log_uniform(rng, -60.0, 4.5, 3 * scale),  # tiny to past 19.1
            u(18.5, 19.5, scale // 2) * rng.choice([-1.0, 1.0], scale // 2),  # the threshold to 1 (19.1)
            signed_log_uniform(rng, -28.0, -26.0, scale),  # the threshold tanh x = x (2^-27)
            u(0.17, 0.18, scale // 2),  # expm1's series / exp switch (2a = 0.35)
            u(0.3, 0.4, scale // 2),  # k = 0 / 1 in the fallback (2a = ln2)
            u(-1.0, 1.0, scale),
        ]
    return np.concatenate(parts)


def fast_pass_edges(name: str, rng: np.random.Generator, scale: int) -> np.ndarray:
    """Inputs at the switches inside the fast pass (provider/csrc/math/om_f64_fast.h), about 5 * scale values
    in its domain: where kd = rint(64 t / ln2) leaves 0 (Tanh's direct series and the table), where the table
    index or the scale 2^K changes (t a multiple of ln2/64 or ln2), Tanh's eps switch at 2a = 1, Sigmoid's
    limit -600, and small arguments in every binade the fast pass sees."""
    ln2, u = np.log(2.0), rng.uniform
    if name == "sigmoid":
        parts = [
            ln2 / 128 + u(-2e-5, 2e-5, scale // 2),
            -ln2 / 128 + u(-2e-5, 2e-5, scale // 2),
            -600.0 + u(0.0, 1e-3, scale // 2),
            -(rng.integers(1, 866, scale // 2) * ln2) + u(-1e-6, 1e-6, scale // 2),
            rng.integers(-55000, 2400, scale) * ln2 / 64 + u(-1e-9, 1e-9, scale),
            signed_log_uniform(rng, -54.0, -6.0, 2 * scale),
        ]
        x = np.concatenate(parts)
        return x[(x >= -600.0) & (x <= 37.5)]
    parts = [
        ln2 / 256 + u(-2e-5, 2e-5, scale),
        0.5 + u(-1e-3, 1e-3, scale),
        rng.integers(1, 56, scale // 2) * ln2 / 2 + u(-1e-4, 1e-4, scale // 2),
        rng.integers(1, 3500, scale) * ln2 / 128 + u(-1e-9, 1e-9, scale),
        np.exp2(u(-27.0, -7.0, scale + scale // 2)),
    ]
    x = np.concatenate(parts) * rng.choice([-1.0, 1.0], 5 * scale)
    a = np.abs(x)
    return x[(a >= 2.0**-27) & (a <= 19.1)]


SPECIALS = np.array(
    [
        0.0, -0.0, np.inf, -np.inf, 5e-324, -5e-324, 2.2250738585072014e-308, -2.2250738585072014e-308,
        1.7976931348623157e308, -1.7976931348623157e308, 0.5, -0.5, 1.0, -1.0, 2.0**-54, -(2.0**-54),
        2.0**-27, -(2.0**-27), 0.175, 37.5, np.nextafter(37.5, 40), 19.1, -19.1, np.nextafter(19.1, 20),
        -745.2, np.nextafter(-745.2, -746), -600.0, np.nextafter(-600.0, -601), -745.1332191019411,
        -744.4400719213812, -708.3964185322641, 0.6931471805599453, 0.34657359027997264,
    ]
)  # fmt: skip
