"""The exact matrix-product kernel (provider/csrc/gemm) against an independent reference of the chain.

Every available path must give the bits of tests/reference/gemm_reference.py (one fma chain per element over k
in increasing order, then alpha and beta*C as separate roundings), whatever the strides, batch offsets,
packing of B and thread count; and the chain must meet its error bound gamma_K * sum|a b|.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from onemodel_ep._lib import ffi, lib, native_test_entry
from tests.reference.gemm_reference import canonical_nan, fma32, fma_gmpy, gemm_ref

T_FLOAT, T_FLOAT16, T_DOUBLE = 1, 10, 11
TYPES = {np.float32: T_FLOAT, np.float16: T_FLOAT16, np.float64: T_DOUBLE}
PATHS = [p for p in range(lib.om_path_count()) if lib.om_path_available(p)]
EXACT, FAST = 0, 1


def _ptr(x: np.ndarray):
    return ffi.cast("void *", x.__array_interface__["data"][0])


def _el_strides(x: np.ndarray) -> list[int]:
    for s in x.strides:
        assert s % x.itemsize == 0
    return [s // x.itemsize for s in x.strides]


def run(
    a: np.ndarray,
    b: np.ndarray,
    *,
    path: int,
    alpha: float = 1.0,
    beta: float = 1.0,
    cin: np.ndarray | None = None,
    prepack: bool = False,
    threads: int = 1,
    mode: int = EXACT,
    ldc_pad: int = 0,
) -> np.ndarray:
    """om_gemm on views: a [batch,M,K] or [M,K], b [batch,K,N] or [K,N] (any strides, 0 included), cin
    broadcastable to [M,N]. Returns C [batch,M,N] (or [M,N]); the padding columns must stay untouched."""
    two_d = a.ndim == 2
    if two_d:
        a, b = a[None], b[None]
    batch, m, k = a.shape
    n = b.shape[2]
    if b.shape[0] == 1 and batch > 1:
        b = np.broadcast_to(b, (batch, k, n))
    dt = a.dtype
    sa, sb = _el_strides(a), _el_strides(b)
    a_off = np.array([i * sa[0] for i in range(batch)], np.int64)
    b_off = np.array([i * sb[0] for i in range(batch)], np.int64)
    ldc = n + ldc_pad
    sentinel = np.array(1234.5, dt)
    c = np.full((batch, m, ldc), sentinel, dt)
    if cin is not None:
        cb = np.broadcast_to(cin, (m, n))
        rsc, csc = _el_strides(cb)
        cptr = _ptr(cb)
    else:
        rsc = csc = 0
        cptr = ffi.NULL
    rc = native_test_entry("om_test_gemm")(
        path,
        TYPES[dt.type],
        mode,
        batch,
        m,
        n,
        k,
        _ptr(a),
        sa[1],
        sa[2],
        ffi.cast("int64_t *", a_off.ctypes.data),
        _ptr(b),
        sb[1],
        sb[2],
        ffi.cast("int64_t *", b_off.ctypes.data),
        int(prepack),
        alpha,
        beta,
        cptr,
        rsc,
        csc,
        _ptr(c),
        ldc,
        m * ldc,
        threads,
    )
    assert rc == 0
    if ldc_pad:
        pad = c[:, :, n:]
        assert np.array_equal(
            pad.view(f"u{dt.itemsize}"), np.full_like(pad, sentinel).view(f"u{dt.itemsize}")
        )
    out = c[:, :, :n]
    return out[0] if two_d else out


def bits(x: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(x).view(f"u{x.dtype.itemsize}")


def assert_bits(got: np.ndarray, want: np.ndarray, what: str) -> None:
    g, w = bits(got), bits(want)
    if not np.array_equal(g, w):
        idx = np.argwhere(g != w)
        i = tuple(idx[0])
        raise AssertionError(
            f"{what}: {len(idx)} elements differ, first at {i}: got {got[i]!r} "
            f"({int(g[i]):#x}) want {want[i]!r} ({int(w[i]):#x})"
        )


def rand(rng: np.random.Generator, shape: tuple[int, ...], dt: type) -> np.ndarray:
    """Values of mixed sign and magnitude (so that the order of the sum matters)."""
    x = rng.standard_normal(shape) * np.exp2(rng.integers(-6, 7, shape))
    if dt == np.float16:
        x = rng.standard_normal(shape) * np.exp2(rng.integers(-3, 3, shape))
    return x.astype(dt)


# ---- the reference itself ----
def test_reference_fma32_matches_mpfr():
    rng = np.random.default_rng(1)
    specials = np.array(
        [
            0.0,
            -0.0,
            np.inf,
            -np.inf,
            1.0,
            -1.0,
            2.0**-149,
            -(2.0**-149),
            2.0**-126,
            3.4028235e38,
            -3.4028235e38,
            1.0 + 2.0**-23,
            1.0 - 2.0**-24,
        ],
        np.float32,
    )
    a = np.concatenate([rand(rng, (4000,), np.float32), np.repeat(specials, len(specials) ** 2)])
    b = np.concatenate(
        [rand(rng, (4000,), np.float32), np.tile(np.repeat(specials, len(specials)), len(specials))]
    )
    c = np.concatenate([rand(rng, (4000,), np.float32), np.tile(specials, len(specials) ** 2)])
    # near-cancellation cases, where a double rounding would show
    a[:1000] = (1 + rng.integers(0, 2**23, 1000) * 2.0**-23).astype(np.float32)
    b[:1000] = (1 + rng.integers(0, 2**23, 1000) * 2.0**-23).astype(np.float32)
    c[:1000] = -(a[:1000].astype(np.float64) * b[:1000]).astype(np.float32)
    got = fma32(a, b, c)
    want = np.array([fma_gmpy(float(x), float(y), float(z), 32) for x, y, z in zip(a, b, c)], np.float64)
    want = want.astype(np.float32)
    assert_bits(canonical_nan(got), canonical_nan(want), "fma32 vs MPFR")


# ---- bits against the reference, every path ----
SIZES = [0, 1, 2, 3, 5, 7, 13, 17, 31, 33, 64, 65, 100]
SHAPES = sorted(
    {
        (m, n, k)
        for m in SIZES
        for n in SIZES
        for k in (0, 1, 7, 33)
        if (m + n + k) % 3 == 0 or m in (0, 1, 65) or n in (0, 1, 33)
    }
    | {(m, m, m) for m in SIZES}
    | {(100, 65, 100), (17, 100, 64), (65, 31, 300), (33, 64, 600)}
)


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_f32_shapes_all_paths(shape):
    m, n, k = shape
    rng = np.random.default_rng(m * 10007 + n * 101 + k)
    a = rand(rng, (m, k), np.float32)
    b = rand(rng, (k, n), np.float32)
    want = gemm_ref(a, b)
    for path in PATHS:
        assert_bits(run(a, b, path=path), want, f"path {path} {shape}")
        assert_bits(run(a, b, path=path, prepack=True), want, f"path {path} {shape} prepacked")


@pytest.mark.parametrize("trans", ["nn", "tn", "nt", "tt", "ss", "ww"])
@pytest.mark.parametrize("dt", [np.float32, np.float16, np.float64])
def test_strides_types(trans, dt):
    m, n, k = (13, 33, 17) if dt == np.float64 else (31, 65, 70)
    rng = np.random.default_rng(7)
    a = rand(rng, (m, k), dt)
    b = rand(rng, (k, n), dt)
    av = np.ascontiguousarray(a.T).T if trans[0] == "t" else a
    bv = np.ascontiguousarray(b.T).T if trans[1] == "t" else b
    if trans == "ss":  # every other element of a wider buffer, and a negative column stride
        wa = np.zeros((m, 2 * k + 1), dt)
        wa[:, 1::2] = a
        av = wa[:, 1::2]
        wb = np.zeros((k, n), dt)
        wb[:, ::-1] = b
        bv = wb[:, ::-1]
    if trans == "ww":  # rows far apart (B is then packed, not read in place)
        av = np.zeros((m, 1100), dt)[:, 7 : 7 + k]
        av[...] = a
        bv = np.zeros((k, 1500), dt)[:, 3 : 3 + n]
        bv[...] = b
    want = gemm_ref(a, b, 0.5, 1.0, None)
    for path in PATHS:
        assert_bits(run(av, bv, path=path, alpha=0.5, ldc_pad=3), want, f"path {path} {trans} {dt.__name__}")
        assert_bits(run(av, bv, path=path, alpha=0.5, prepack=True), want, f"path {path} {trans} prepacked")


@pytest.mark.parametrize("dt", [np.float32, np.float16, np.float64])
@pytest.mark.parametrize("cshape", ["mn", "n", "m1", "scalar", "none"])
@pytest.mark.parametrize("ab", [(1.0, 1.0), (0.25, -3.0), (-1.0, 0.0), (1.7, 1.0)])
def test_alpha_beta_cin(dt, cshape, ab):
    alpha, beta = ab
    m, n, k = 7, 35, 19
    rng = np.random.default_rng(3)
    a, b = rand(rng, (m, k), dt), rand(rng, (k, n), dt)
    cin = {
        "mn": rand(rng, (m, n), dt),
        "n": rand(rng, (n,), dt),
        "m1": rand(rng, (m, 1), dt),
        "scalar": rand(rng, (1, 1), dt),
        "none": None,
    }[cshape]
    if cin is not None and dt != np.float16:
        cin.flat[0] = np.inf  # with beta = 0 still NaN there: beta*C is computed when C is given
    want = gemm_ref(a, b, alpha, beta, cin)
    for path in PATHS:
        assert_bits(run(a, b, path=path, alpha=alpha, beta=beta, cin=cin), want, f"path {path} {cshape} {ab}")


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize("m", [1, 3])
def test_full_panels_cin_one_row(dt, m):
    """Wide enough for several full panels on every path (the vector epilogue with C, C's columns contiguous
    or not; one row against prepacked B takes two panels at a time) and a partial one; K in one block and in
    two."""
    n = 200
    rng = np.random.default_rng(m * 31 + n)
    for k in (19, 300):  # one K block (256), two
        a, b = rand(rng, (m, k), dt), rand(rng, (k, n), dt)
        for cshape in ("mn", "n", "m1", "none"):
            shape = {"mn": (m, n), "n": (n,), "m1": (m, 1), "none": None}[cshape]
            cin = None if shape is None else rand(rng, shape, dt)
            if cin is not None and dt != np.float16:
                cin.flat[-1] = np.nan
            for alpha, beta in ((1.0, 1.0), (0.25, -3.0)):
                want = gemm_ref(a, b, alpha, beta, cin)
                for path in PATHS:
                    for prepack in (False, True):
                        got = run(a, b, path=path, alpha=alpha, beta=beta, cin=cin, prepack=prepack)
                        assert_bits(got, want, f"path {path} k {k} {cshape} {alpha},{beta} prepack {prepack}")


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.float16])
def test_batch_offsets_threads(dt):
    batch, m, n, k = 5, 33, 40, 31
    rng = np.random.default_rng(11)
    a = rand(rng, (batch, m, k), dt)
    b = rand(rng, (batch, k, n), dt)
    b1 = rand(rng, (k, n), dt)
    want = np.stack([gemm_ref(a[i], b[i]) for i in range(batch)])
    want1 = np.stack([gemm_ref(a[i], b1) for i in range(batch)])
    for path in PATHS:
        for threads in (1, 2, 3):
            assert_bits(run(a, b, path=path, threads=threads), want, f"path {path} threads {threads}")
            # B broadcast over the batch (offset 0 for every element), packed once or not
            assert_bits(run(a, b1[None], path=path, threads=threads), want1, f"path {path} bcast B")
            assert_bits(
                run(a, b1[None], path=path, threads=threads, prepack=True), want1, f"path {path} packed"
            )
        # A transposed within each batch element
        at = np.ascontiguousarray(a.transpose(0, 2, 1)).transpose(0, 2, 1)
        assert_bits(run(at, b, path=path), want, f"path {path} transA batch")


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.float16])
def test_specials(dt):
    m, n, k = 9, 37, 21
    rng = np.random.default_rng(5)
    a, b = rand(rng, (m, k), dt), rand(rng, (k, n), dt)
    sp = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0], dt)
    a.flat[rng.integers(0, a.size, 12)] = sp[rng.integers(0, 5, 12)]
    b.flat[rng.integers(0, b.size, 12)] = sp[rng.integers(0, 5, 12)]
    a[3, :] = -0.0  # a row of -0: fma(-0, b, +0) = +0, so +0 (then -0 after alpha = -1)
    b[:, 5] = np.finfo(dt).max  # overflow to inf, then inf - inf = NaN in places
    want = gemm_ref(a, b, -1.0, 1.0, None)
    for path in PATHS:
        got = run(a, b, path=path, alpha=-1.0)
        assert_bits(got, want, f"path {path} specials")
        assert (bits(got[3, :6]) == bits(np.array([-0.0], dt))).all() or not np.isfinite(b[:, :6]).all()
    # K = 0: alpha * (+0) + beta * C
    z = np.zeros((m, 0), dt)
    cin = rand(rng, (m, n), dt)
    for path in PATHS:
        assert_bits(run(z, np.zeros((0, n), dt), path=path, alpha=-1.0), np.full((m, n), -0.0, dt), "K=0")
        assert_bits(
            run(z, np.zeros((0, n), dt), path=path, beta=2.0, cin=cin),
            gemm_ref(z, np.zeros((0, n), dt), 1.0, 2.0, cin),
            "K=0 C",
        )


def test_fast_mode_runs_exact_kernel():
    rng = np.random.default_rng(2)
    a, b = rand(rng, (20, 30), np.float32), rand(rng, (30, 40), np.float32)
    want = gemm_ref(a, b)
    for path in PATHS:
        assert_bits(run(a, b, path=path, mode=FAST), want, f"path {path} fast")


def test_zero_sizes_and_bad_args():
    for path in PATHS:
        for m, n, k in [(0, 5, 3), (5, 0, 3), (0, 0, 0), (3, 4, 0)]:
            a, b = np.ones((m, k), np.float32), np.ones((k, n), np.float32)
            assert run(a, b, path=path).shape == (m, n)
    a = np.ones((2, 2), np.float32)
    # an unknown type, an unknown path
    for path, type_code in ((0, 7), (99, 1)):
        assert (
            native_test_entry("om_test_gemm")(
                path,
                type_code,
                0,
                1,
                2,
                2,
                2,
                _ptr(a),
                2,
                1,
                ffi.NULL,
                _ptr(a),
                2,
                1,
                ffi.NULL,
                0,
                1.0,
                1.0,
                ffi.NULL,
                0,
                0,
                _ptr(a),
                2,
                4,
                1,
            )
            == -2
        ), (path, type_code)


# ---- the error bound ----
@pytest.mark.parametrize("dt,k", [(np.float32, 1000), (np.float32, 5000), (np.float64, 2000)])
def test_error_bound(dt, k):
    m, n = 3, 4
    rng = np.random.default_rng(k)
    a = rng.standard_normal((m, k)).astype(dt)
    b = rng.standard_normal((k, n)).astype(dt)
    u = 2.0**-24 if dt == np.float32 else 2.0**-53
    gamma = k * u / (1 - k * u)
    for path in PATHS:
        got = run(a, b, path=path)
        for i in range(m):
            for j in range(n):
                exact = sum(
                    (Fraction(float(x)) * Fraction(float(y)) for x, y in zip(a[i], b[:, j])), Fraction(0)
                )
                mag = math.fsum(abs(float(x) * float(y)) for x, y in zip(a[i], b[:, j]))
                err = abs(Fraction(float(got[i, j])) - exact)
                assert err <= Fraction(gamma) * Fraction(mag) * (1 + 2.0**-50), (path, i, j)


def test_large_k_same_on_every_path():
    k = 1_000_000
    rng = np.random.default_rng(9)
    a = rng.standard_normal((2, k)).astype(np.float32)
    b = rng.standard_normal((k, 3)).astype(np.float32)
    outs = [run(a, b, path=p) for p in PATHS]
    for p, o in zip(PATHS, outs):
        assert_bits(o, outs[0], f"path {p} vs {PATHS[0]}, K=1e6")
    exact = a.astype(np.float64) @ b.astype(np.float64)
    mag = np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64))
    u = 2.0**-24
    assert (np.abs(outs[0] - exact) <= k * u / (1 - k * u) * mag).all()


def _double_rounding_traps(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """a, b, c (f32) whose a*b + c lies just below an f32 midpoint, by less than half an f64 ulp: rounding
    the f64 sum to nearest lands on the midpoint, and the f32 rounding of that (ties to even) is one ulp off,
    so only a fused (or round-to-odd) evaluation gets them right. (1 + s 2^-23)(1 - s 2^-23) 2^-24 is
    2^-24 - s^2 2^-70 (s < 2^8), added to c = 1 + (2t+1) 2^-23 (odd); scaled by powers of two, signs
    flipped."""
    rng = np.random.default_rng(4)
    s = rng.integers(1, 2**8, n).astype(np.float64)
    t = rng.integers(0, 2**21, n).astype(np.float64)
    e1, e2 = rng.integers(-20, 20, n), rng.integers(-20, 20, n)
    sign = np.where(rng.integers(0, 2, n) == 1, -1.0, 1.0)
    a = np.ldexp(1 + s * 2.0**-23, e1)
    b = sign * np.ldexp((1 - s * 2.0**-23) * 2.0**-24, e2)
    c = sign * np.ldexp(1 + (2 * t + 1) * 2.0**-23, e1 + e2)
    return a.astype(np.float32), b.astype(np.float32), c.astype(np.float32)


def test_reference_traps_match_mpfr():
    a, b, c = _double_rounding_traps(500)
    want = np.array([fma_gmpy(float(x), float(y), float(z), 32) for x, y, z in zip(a, b, c)])
    want = want.astype(np.float32)
    assert_bits(fma32(a, b, c), want, "fma32 vs MPFR, double-rounding traps")
    assert not np.array_equal(bits(want), bits((a.astype(np.float64) * b + c).astype(np.float32)))


def test_double_rounding_traps_all_paths():
    """Output (i, j) = fma(a_i, b_j, c_j) (K = 2: the first step puts c_j in the chain exactly); the diagonal
    holds the traps."""
    n = 64
    a, b, c = _double_rounding_traps(n)
    A = np.stack([np.ones(n, np.float32), a], axis=1)  # [n, 2]
    B = np.stack([c, b], axis=0)  # [2, n]
    want = gemm_ref(A, B)
    naive = (a.astype(np.float64) * b + c).astype(np.float32)
    assert (bits(np.diag(want)) != bits(naive)).all()
    for path in PATHS:
        assert_bits(run(A, B, path=path), want, f"path {path} traps")
