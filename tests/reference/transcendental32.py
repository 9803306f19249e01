"""The f32 transcendental references shared by the kernel and node tests: the functions and their names,
the fast-mode ulp bounds, the float64 and MPFR (gmpy2) references, the correctly rounded f32 result, the
sampled inputs and the checks that compare a kernel's bits with them.

A float64 (or long double) evaluation R of the function, whose relative error is below 2^-44 (NumPy's
exp/log/tanh, the C library's erf/erfc through `math`, the compound formulas' conditioning at most 2^8),
settles every input whose interval [R(1 - 2^-36), R(1 + 2^-36)] rounds to a single f32; the few others
(within 2^-36 of a rounding boundary) are computed with gmpy2 at 256 bits and rounded in the IEEE binary32
context (subnormals included). See docs/exact-transcendentals.md.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import gmpy2
import numpy as np
import pytest
from gmpy2 import mpfr

from tests.reference import transcendental16 as g16
from tests.reference.unary64 import PLAIN64, act64

SAMPLE = 1 << 18
# Fast mode bounds in ulps, (FMA paths 512/256, other paths), as docs/exact-transcendentals.md ("Fast mode")
# states them: the exhaustive maximum of tools/verify/cr_verify.sh -f rounded up (512; 256 where it gives the
# same bits), the maximum of a scan of every 61st input plus a margin elsewhere (see the table there).
FAST_ULP = {
    "exp": (1.1, 1.5),
    "log": (1.0, 1.5),
    "tanh": (2.1, 2.5),
    "sigmoid": (2.5, 3.0),
    "erf": (1.5, 2.0),
    "gelu_erf": (3.0, 3.5),
    "gelu_tanh": (3.0, 3.5),
    "softplus": (0.5, 0.5),  # fast mode runs the exact kernel
    "mish": (0.5, 0.5),
    "elu": (0.5, 0.5),
    "selu": (0.5, 0.5),
    "celu": (0.5, 0.5),
}
FAST_FMA_PATHS = ("512", "256")


def fast_ulp(name, path):
    return FAST_ULP[name][0 if path in FAST_FMA_PATHS else 1]

# (op, attributes, name in the hard-case file)
FUNCS = [
    ("Exp", {}, "exp"),
    ("Log", {}, "log"),
    ("Tanh", {}, "tanh"),
    ("Sigmoid", {}, "sigmoid"),
    ("Erf", {}, "erf"),
    ("Gelu", {"approximate": "none"}, "gelu_erf"),
    ("Gelu", {"approximate": "tanh"}, "gelu_tanh"),
    ("Softplus", {}, "softplus"),
    ("Mish", {}, "mish"),
    ("Elu", {}, "elu"),
    ("Selu", {}, "selu"),
    ("Celu", {}, "celu"),
]
# Elu, Selu, Celu: (alpha, gamma) by name; the names with a suffix are the non-default parameters the
# sampled test below checks (the exhaustive runs use the defaults).
SELU_ALPHA, SELU_GAMMA = 1.67326319217681884765625, 1.05070102214813232421875
ACT_PARAMS = {
    "elu": (1.0, 1.0),
    "selu": (SELU_ALPHA, SELU_GAMMA),
    "celu": (1.0, 1.0),
    "elu_a": (float(np.float32(0.3)), 1.0),
    "elu_n": (-2.0, 1.0),
    "selu_a": (float(np.float32(1.5)), float(np.float32(0.75))),
    "celu_a": (2.5, 1.0),
    "celu_s": (float(np.float32(0.2)), 1.0),
    "celu_n": (float(np.float32(-0.7)), 1.0),
}
IDS = [f[2] for f in FUNCS]


# ---- references ------------------------------------------------------------------------------------------
_K1 = 2.0 * math.sqrt(2.0 / math.pi)
_verfc = np.frompyfunc(math.erfc, 1, 1)


def ref64(name, x):
    """float64 reference (relative error < 2^-44; the infinities and NaNs are the exact answers): unary64's
    formulas, but for the two Gelus."""
    with np.errstate(all="ignore"):
        x = x.astype(np.float64)
        if name == "gelu_erf":
            return 0.5 * x * _verfc(-x / math.sqrt(2.0)).astype(np.float64)
        if name == "gelu_tanh":
            v = x * (_K1 + _K1 * 0.044715 * x * x)
            return x / (1.0 + np.exp(-v))
        if name in ACT_PARAMS:  # Elu: x for x >= 0; Selu, Celu: +0 at +-0
            alpha, gamma = ACT_PARAMS[name]
            return act64(name[:4].capitalize() if name[:4] in ("selu", "celu") else "Elu", x, alpha, gamma)
        if name.capitalize() in PLAIN64:
            return PLAIN64[name.capitalize()](x)
    raise ValueError(name)


MPFR_CTX = gmpy2.context(precision=256)
F32_CTX = gmpy2.ieee(32)


def mpfr_value(name, xf):
    """f(xf) at 256 bits: tests/reference/transcendental16.py's formulas, and the parameterised Elu family."""
    with gmpy2.context(MPFR_CTX):
        x = mpfr(xf)
        if name not in ACT_PARAMS:
            return g16.value(name, x)
        alpha, gamma = ACT_PARAMS[name]
        op = name[:4]
        if x > 0:
            y = mpfr(gamma) * x if op == "selu" else x
        elif x == 0:
            y = x if op.startswith("elu") else mpfr(0)
        else:
            t = x / mpfr(alpha) if op == "celu" else x
            em1 = gmpy2.expm1(t) if gmpy2.is_finite(t) else (mpfr(-1) if t < 0 else t)
            y = (mpfr(gamma) * mpfr(alpha) if op == "selu" else mpfr(alpha)) * em1
    return y


def round32(y):
    with gmpy2.context(F32_CTX) as c:
        return np.float32(float(c.plus(y)))


def mpfr_f32(name, xf):
    """RN_f32(f(x)) from MPFR at 256 bits."""
    if math.isnan(xf):
        return np.float32("nan")
    if math.isinf(xf) and (name.startswith("gelu") or name == "mish"):  # the limits: -0 at -inf, +inf at +inf
        return np.float32(xf if xf > 0 else -0.0)
    return round32(mpfr_value(name, float(xf)))


def reference(name, x):
    """Correctly rounded f32 results for the f32 array x (see the module docstring)."""
    r = ref64(name, x)
    out = np.empty(x.shape, np.float32)
    with np.errstate(all="ignore"):
        lo = (r - np.abs(r) * 2.0**-36).astype(np.float32)
        hi = (r + np.abs(r) * 2.0**-36).astype(np.float32)
    settled = (lo.view(np.uint32) == hi.view(np.uint32)) | np.isnan(r) | np.isinf(r)
    tiny = np.abs(r) < 2.0**-200
    with np.errstate(all="ignore"):
        out[settled] = r[settled].astype(np.float32)
    out[tiny] = np.where(np.signbit(r[tiny]), np.float32(-0.0), np.float32(0.0))
    for i in np.flatnonzero(~settled & ~tiny & ~np.isnan(r)):
        out[i] = mpfr_f32(name, x[i])
    out[np.isnan(r)] = np.float32("nan")
    return out


def bits(a):
    return np.ascontiguousarray(a, dtype=np.float32).view(np.uint32)


def canon(a):
    b = bits(a).copy()
    b[np.isnan(a)] = 0x7FC00000
    return b


def report_misrounded(
    what: str, bad: np.ndarray, total: int, row: Callable[[int], str], rows: int = 8
) -> None:
    """Fail naming the first `rows` of the `bad` indices (of `total` results): not correctly rounded."""
    if bad.size:
        listed = "\n".join(row(int(i)) for i in bad[:rows])
        pytest.fail(f"{what}: {bad.size} of {total} not correctly rounded:\n{listed}")


def assert_cr(name, x, got, want, where):
    """`got` has the bits of `want` (any NaN of `want` as the canonical NaN)."""
    gb, wb, xb = bits(got), canon(want), bits(x)
    report_misrounded(
        f"{name} {where}",
        np.flatnonzero(gb != wb),
        x.size,
        lambda i: f"x={float(x[i])!r} ({xb[i]:#010x}) got {float(got[i])!r} ({gb[i]:#010x}) "
        f"want {float(want[i])!r} ({wb[i]:#010x})",
    )


def specials():
    v = [
        float(t)
        for t in """0 -0 inf -inf nan -nan 1 -1 0.5 -0.5 2 10 -10 20 -20 100 -100 88.72283 88.7229 -87.33654
        -103.97208 -103.9721 -104 89 1e-45 -1e-45 0x1p-126 -0x1p-126 1.1754942e-38 0x1p-24 -0x1p-24 0x1p-25
        -0x1p-25 0x1p-12 3.4028235e38 -3.4028235e38 3.92 3.9192 -3.9192 5.5 -5.5 14.4 -14.4 -14.5 11.3 -11.3
        0.70710677 -0.70710677 9.01 -9.01 17.3 17.33 -17.33 1.0000001 0.99999994 0.6875 1.375""".split()
        if not t.startswith(("0x", "-0x"))
    ] + [
        float.fromhex(t)
        for t in ("0x1p-126", "-0x1p-126", "0x1p-24", "-0x1p-24", "0x1p-25", "-0x1p-25", "0x1p-12")
    ]
    x = np.array(v, dtype=np.float32)
    sub = np.array([1, 2, 3, 0x7FFFFF, 0x400000, 0x1003, 0x123457], dtype=np.uint32).view(np.float32)
    qnan_payload = np.array([0x7FC12345, 0xFFC00001, 0x7F800001], dtype=np.uint32).view(np.float32)
    return np.concatenate([x, sub, -sub, qnan_payload])


def bit_sample(rng: np.random.Generator, n: int, e_lo: int, e_hi: int) -> tuple[np.ndarray, ...]:
    """f32 bit patterns: n uniform over all patterns (every binade, both signs, NaNs), n with a uniform
    exponent in [2^e_lo, 2^e_hi) and either sign, and the n sign bits of those."""
    a = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    e = rng.integers(127 + e_lo, 127 + e_hi, n, dtype=np.uint32)
    m = rng.integers(0, 2**23, n, dtype=np.uint32)
    s = rng.integers(0, 2, n, dtype=np.uint32)
    return a, (s << 31) | (e << 23) | m, s


def sample(seed, n=SAMPLE):
    """n inputs: half uniform over all bit patterns (every binade, both signs, NaNs), half with a
    uniform exponent in [2^-30, 2^8) where every function is non-trivial."""
    a, b, _ = bit_sample(np.random.default_rng(seed), n // 2, -30, 8)
    return np.concatenate([a, b]).view(np.float32)


def sample_cache(make, ref):
    """A memo for module fixtures: name -> (make(name), ref(name, inputs)), each computed once."""
    cache = {}

    def get(name):
        if name not in cache:
            x = make(name)
            cache[name] = (x, ref(name, x))
        return cache[name]

    return get


def ulp_error(got, want_f64):
    """|got - f(x)| in ulps of f32 at f(x) (subnormal spacing 2^-149 below 2^-126)."""
    g = got.astype(np.float64)
    w = want_f64
    with np.errstate(all="ignore"):
        e = np.floor(np.log2(np.abs(w)))
        ulp = np.exp2(np.maximum(e, -126.0) - 23.0)
        err = np.abs(g - w) / ulp
    both_nan = np.isnan(g) & np.isnan(w)
    same_inf = np.isinf(g) & (g == w)
    big = np.abs(w) > 3.4028235677973366e38  # rounds to inf: fine if got is inf or FLT_MAX
    err[both_nan | same_inf | (big & (np.abs(g) >= 3.4028234663852886e38))] = 0.0
    err[w == 0] = np.where(g[w == 0] == 0, 0.0, np.abs(g[w == 0]) / 2.0**-149)
    return err
