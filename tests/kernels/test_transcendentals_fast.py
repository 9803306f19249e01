"""Fast mode of the f32 Exp, Log, Tanh, Sigmoid, Erf and Gelu (both forms): f32 kernels (provider/csrc/math/
om_fast_f32.inc), FMA on the 512 and 256 paths, a few ulp.

The bounds (FAST_ULP of tests/reference/transcendental32.py) are the exhaustive maxima of
tools/verify/cr_verify.sh -f over all 2^32 inputs (docs/exact-transcendentals.md, "Fast mode") rounded up to
what the docs state, per function and per kind of path: FMA (512, 256) and no FMA (128, scalar). Here a seeded
sample spread over every binade (2^17 inputs per function, plus the neighbourhoods of the kernels' thresholds)
must stay within them on every kernel path the CPU has; the error is measured against a float64 reference
(relative error < 2^-44, so the ulp error is exact to 2^-20 ulp) and the worst inputs are measured again
against MPFR (gmpy2, 256 bits).
Special values: as exact mode gives them.
"""

from __future__ import annotations

import gmpy2
import numpy as np
import pytest

import onemodel_ep
from onemodel_ep.node import Node
from tests.reference import transcendental32 as tt

PATHS = onemodel_ep.kernel_paths()
FUNCS = tt.FUNCS
IDS = tt.IDS
SAMPLE = 1 << 17


def bound(name, path):
    """The documented bound (transcendental32.FAST_ULP: per function, FMA paths and the others)."""
    return tt.fast_ulp(name, path)


def _run(op, attrs, x, path, mode="fast"):
    node = Node(op, [1], onnx_opset=20, attributes=attrs, mode=mode, kernel_path=path)  # 1: float32
    return node.run(np.ascontiguousarray(x, dtype=np.float32))


def fast_sample(seed):
    """SAMPLE inputs: half uniform over all bit patterns, half with a uniform exponent in [2^-30, 2^8) (where
    every function is non-trivial), plus the neighbourhoods of the thresholds of the kernels."""
    ab = tt.sample(seed, SAMPLE).view(np.uint32)
    edges = [0.625, 0.75, 0.9, 2.0, 2.828427, 4.0, 9.01, 10.0, 12.0, 14.5, 88.72, 89.0, 103.97, 104.0]
    e32 = np.array(edges, dtype=np.float32).view(np.uint32).astype(np.int64)
    near = (e32[:, None] + np.arange(-64, 64, dtype=np.int64)[None, :]).astype(np.uint32).ravel()
    return np.concatenate([ab, near, near | np.uint32(0x80000000)]).view(np.float32)


def _mpfr_ulp_error(name, xf, got):
    """|got - f(x)| in ulps of f32 at f(x), with MPFR (256 bits)."""
    if np.isnan(xf):
        return 0.0 if np.isnan(got) else float("inf")
    want = tt.mpfr_f32(name, float(xf))
    if np.isnan(want):
        return 0.0 if np.isnan(got) else float("inf")
    if np.isinf(xf):  # the limits (Gelu: -0 at -inf, +inf at +inf)
        return 0.0 if got == want else float("inf")
    if np.isinf(want) or np.isinf(got):
        return 0.0 if got == want else float("inf")
    y = tt.mpfr_value(name, float(xf))
    with gmpy2.context(tt.MPFR_CTX):
        if y == 0:
            return abs(float(got)) / 2.0**-149
        e = max(gmpy2.floor(gmpy2.log2(abs(y))), -126)
        return float(abs(gmpy2.mpfr(float(got)) - y) / gmpy2.exp2(e - 23))


@pytest.fixture(scope="module")
def samples():
    return tt.sample_cache(lambda name: fast_sample(0xFA57 + IDS.index(name)), tt.ref64)


@pytest.mark.parametrize("op,attrs,name", FUNCS, ids=IDS)
def test_fast_sample_within_bound(op, attrs, name, samples):
    x, ref = samples(name)
    for path in PATHS:
        got = _run(op, attrs, x, path)
        err = tt.ulp_error(got, ref)
        nan_ok = np.isnan(got) == np.isnan(ref)
        assert nan_ok.all(), f"{name} fast, path {path}: NaN where the function has none (or the reverse)"
        worst = np.argsort(np.nan_to_num(err, nan=0.0))[-8:]
        for i in worst:  # the decisive inputs again against MPFR
            e = _mpfr_ulp_error(name, x[i], got[i])
            xb = int(x.view(np.uint32)[i])
            where = f"{name} fast, path {path}: {e:.3f} ulp at {float(x[i])!r} ({xb:#010x})"
            assert e <= bound(name, path), where
        assert np.nanmax(err) <= bound(name, path) + 1e-6, f"{name} fast, path {path}: {np.nanmax(err)} ulp"


def _specials():
    return tt.specials()


@pytest.mark.parametrize("op,attrs,name", FUNCS, ids=IDS)
def test_fast_special_values_within_bound(op, attrs, name):
    x = _specials()
    for path in PATHS:
        got = _run(op, attrs, x, path)
        for xi, gi in zip(x, got):
            e = _mpfr_ulp_error(name, xi, gi)
            assert e <= bound(name, path), f"{name} fast, path {path}: {gi!r} for {xi!r} ({e:.3f} ulp)"


INF = float("inf")


@pytest.mark.parametrize(
    "op,attrs,x,want",
    [
        ("Exp", {}, 0.0, 1.0),
        ("Exp", {}, -0.0, 1.0),
        ("Exp", {}, INF, INF),
        ("Exp", {}, -INF, 0.0),
        ("Exp", {}, 89.0, INF),
        ("Exp", {}, 88.7229, INF),
        ("Exp", {}, -104.0, 0.0),
        ("Exp", {}, -103.9, 1e-45),
        ("Exp", {}, -103.9721, 0.0),
        ("Log", {}, 0.0, -INF),
        ("Log", {}, -0.0, -INF),
        ("Log", {}, 1.0, 0.0),
        ("Log", {}, INF, INF),
        ("Log", {}, -1.0, np.nan),
        ("Log", {}, -INF, np.nan),
        ("Log", {}, 1e-45, -103.27893),
        ("Tanh", {}, 0.0, 0.0),
        ("Tanh", {}, -0.0, -0.0),
        ("Tanh", {}, INF, 1.0),
        ("Tanh", {}, -INF, -1.0),
        ("Tanh", {}, 1e-45, 1e-45),
        ("Tanh", {}, -1e-45, -1e-45),
        ("Sigmoid", {}, INF, 1.0),
        ("Sigmoid", {}, -INF, 0.0),
        ("Sigmoid", {}, 0.0, 0.5),
        ("Sigmoid", {}, -0.0, 0.5),
        ("Sigmoid", {}, -104.0, 0.0),
        ("Sigmoid", {}, -103.0, 1.8e-45),
        ("Erf", {}, 0.0, 0.0),
        ("Erf", {}, -0.0, -0.0),
        ("Erf", {}, INF, 1.0),
        ("Erf", {}, -INF, -1.0),
        ("Erf", {}, 5.0, 1.0),
        *[
            ("Gelu", {"approximate": form}, x, want)
            for form in ("none", "tanh")
            for x, want in [(0.0, 0.0), (-0.0, -0.0), (INF, INF), (-INF, -0.0), (-20.0, -0.0)]
            + [(3.0e38, 3.0e38)]
        ],
    ],
)
def test_fast_named_special_cases(op, attrs, x, want):
    for path in PATHS:
        got = _run(op, attrs, np.array([x] * 19, dtype=np.float32), path)
        w = np.float32(want)
        if np.isnan(w):
            assert np.isnan(got).all(), (op, x, path, got[0])
        else:
            want_bits = tt.bits(np.full(19, w, dtype=np.float32))
            assert (tt.bits(got) == want_bits).all(), (op, attrs, x, path, got[0])


@pytest.mark.parametrize("op,attrs,name", FUNCS, ids=IDS)
def test_fast_nan_in_nan_out(op, attrs, name):
    x = np.array([0x7FC00000, 0xFFC00000, 0x7FC12345, 0x7F800001] * 5, dtype=np.uint32).view(np.float32)
    for path in PATHS:
        assert np.isnan(_run(op, attrs, x, path)).all(), (name, path)


@pytest.mark.parametrize("op,attrs,name", FUNCS, ids=IDS)
def test_fast_tails_and_bodies_agree(op, attrs, name):
    """On one path every element takes the same operations, whatever its position (the tail is one more
    zero-padded vector), so results do not depend on the length or offset."""
    x = tt.sample(11)[:1001]
    for path in PATHS:
        full = tt.bits(_run(op, attrs, x, path))
        for k in (1, 3, 15, 17, 33):
            assert (tt.bits(_run(op, attrs, x[k:], path)) == full[k:]).all(), (name, path, k)


# Softplus, Mish, Elu, Selu and Celu run their exact kernel in fast mode too (tt.FAST_ULP gives them 0.5 ulp).
FAST_KERNELS = [f for f in FUNCS if f[2] not in ("softplus", "mish", "elu", "selu", "celu")]


@pytest.mark.parametrize("op,attrs,name", FAST_KERNELS, ids=[f[2] for f in FAST_KERNELS])
def test_fast_mode_is_the_f32_kernel(op, attrs, name):
    """Fast mode is not exact mode under another name: on a sample some results differ from the correctly
    rounded ones (a fast kernel that fell back to the exact one would make the bounds above meaningless)."""
    x = tt.sample(5)[:4096]
    fast = tt.canon(_run(op, attrs, x, PATHS[0]))
    differ = (fast != tt.canon(_run(op, attrs, x, PATHS[0], mode="exact"))).sum()
    assert differ > 0, name
