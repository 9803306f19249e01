"""Softmax's row exponential rexp (docs/exact-linalg.md, provider/csrc/reduce/reduce_rexp.h), called
directly through om_test_rexp: the same bits on every kernel path of this machine, within its measured bound
of the true exponential, and its special values. (tools/c_tool.py rexp_check checks every f32 input in [-104,
0]; this samples.)"""

from __future__ import annotations

import numpy as np
import pytest

import onemodel_ep
from onemodel_ep._lib import PATH_NAMES, ffi, native_test_entry

PATHS = onemodel_ep.kernel_paths()
BOUND_ULP = 0.94325  # the exhaustive maximum over [-104, 0] (tools/c_tool.py rexp_check)


def rexp(x: np.ndarray, path: str) -> np.ndarray:
    x = np.ascontiguousarray(x, dtype=np.float32)
    y = np.empty_like(x)
    xp, yp = ffi.from_buffer("float[]", x), ffi.from_buffer("float[]", y)
    rc = native_test_entry("om_test_rexp")(PATH_NAMES.index(path), xp, yp, x.size)
    assert rc == 0
    return y


def ulp_of(v: np.ndarray) -> np.ndarray:
    """The f32 ulp of exact values v >= 0 (2^-149 below the normal range)."""
    e = np.floor(np.log2(np.maximum(v, 2.0**-126)))
    return np.exp2(e - 23)


def inputs(rng: np.random.Generator) -> np.ndarray:
    parts = [
        -rng.exponential(3.0, 20000),
        rng.uniform(-104.0, 0.0, 20000),
        rng.uniform(-104.0, -87.0, 5000),  # subnormal and zero results
        -(2.0 ** rng.uniform(-40, 0, 5000)),  # near 0
        np.array([0.0, -0.0, -104.0, -103.97, -87.33, -1e-30, -np.inf, np.nan, -1e30, -3.4e38]),
    ]
    x = np.concatenate(parts).astype(np.float32)
    return x[np.isnan(x) | (x <= 0)]


@pytest.mark.parametrize("n", [1, 15, 16, 17, 33, 1037])
def test_rexp_same_bits_on_every_path(n: int) -> None:
    x = inputs(np.random.default_rng(n))[: n if n < 1037 else None]
    ref = rexp(x, PATHS[0])
    for p in PATHS[1:]:
        got = rexp(x, p)
        # a NaN input gives a NaN (Softmax canonicalises it: its row maximum is NaN), its payload not fixed
        bad = np.nonzero((got.view(np.uint32) != ref.view(np.uint32)) & ~(np.isnan(got) & np.isnan(ref)))[0]
        assert bad.size == 0, f"path {p} differs from {PATHS[0]} at x = {x[bad[:5]]}"


def test_rexp_bound_and_specials() -> None:
    x = inputs(np.random.default_rng(7))
    for p in PATHS:
        y = rexp(x, p)
        fin = np.isfinite(x)
        exact = np.exp(x[fin].astype(np.float64))
        err = np.abs(y[fin].astype(np.float64) - exact) / ulp_of(exact)
        assert err.max() <= BOUND_ULP, f"path {p}: {err.max():.4f} ulp at x = {x[fin][np.argmax(err)]!r}"
        assert np.isnan(y[np.isnan(x)]).all()
        special = {0.0: 1.0, -np.inf: 0.0, -104.0: 0.0, -1e30: 0.0}
        for xv, yv in special.items():
            got = rexp(np.array([xv], np.float32), p)[0]
            assert got == yv and not np.signbit(got), f"path {p}: rexp({xv}) = {got!r}"
        assert rexp(np.array([-0.0], np.float32), p)[0] == 1.0


def test_rexp_unknown_path_refused() -> None:
    x = np.zeros(4, np.float32)
    buf = ffi.from_buffer("float[]", x)
    assert native_test_entry("om_test_rexp")(99, buf, buf, 4) == -1
