"""Exact f32 Exp, Log, Tanh, Sigmoid, Erf and Gelu (both forms): correctly rounded results against MPFR
(gmpy2) on every kernel path, bit-identical across paths; fast mode within its ulp bound.

References: a float64 (or long double) evaluation R of the function, whose relative error is below 2^-44
(NumPy's exp/log/tanh, the C library's erf/erfc through `math`, the compound formulas' conditioning at most
2^8), settles every input whose interval [R(1 - 2^-36), R(1 + 2^-36)] rounds to a single f32; the few others
(within 2^-36 of a rounding boundary) are computed with gmpy2 at 256 bits and rounded in the IEEE binary32
context (subnormals included). See docs/exact-transcendentals.md; the exhaustive check is
tools/verify/cr_verify.c.
"""

from __future__ import annotations

import json
import math
import zlib
from pathlib import Path

import gmpy2
import numpy as np
import pytest
from gmpy2 import mpfr

import onemodel_ep
from onemodel_ep.node import Node
from tests.reference import transcendental16 as g16

PATHS = onemodel_ep.kernel_paths()
F32 = 1  # onnx TensorProto.FLOAT
SAMPLE = 1 << 18
HARD = Path(__file__).resolve().parents[2] / "testdata" / "hard_cases" / "transcendental_hard_cases.json"
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


def _run(op, attrs, x, mode="exact", path=None):
    node = Node(op, [F32], onnx_opset=20, attributes=attrs, mode=mode, kernel_path=path)
    return node.run(np.ascontiguousarray(x, dtype=np.float32))


# ---- references ------------------------------------------------------------------------------------------
_K1 = 2.0 * math.sqrt(2.0 / math.pi)
_verf = np.frompyfunc(math.erf, 1, 1)
_verfc = np.frompyfunc(math.erfc, 1, 1)


def _ref64(name, x):
    """float64 reference (relative error < 2^-44; the infinities and NaNs are the exact answers)."""
    with np.errstate(all="ignore"):
        x = x.astype(np.float64)
        if name == "exp":
            return np.exp(x)
        if name == "log":
            return np.log(x)
        if name == "tanh":
            return np.tanh(x)
        if name == "sigmoid":
            return 1.0 / (1.0 + np.exp(-x))
        if name == "erf":
            return _verf(x).astype(np.float64)
        if name == "gelu_erf":
            return 0.5 * x * _verfc(-x / math.sqrt(2.0)).astype(np.float64)
        if name == "gelu_tanh":
            v = x * (_K1 + _K1 * 0.044715 * x * x)
            return x / (1.0 + np.exp(-v))
        if name == "softplus":
            return np.maximum(x, 0.0) + np.log1p(np.exp(-np.abs(x)))
        if name == "mish":
            return np.where(np.isneginf(x), -0.0, x * np.tanh(np.log1p(np.exp(x))))
        if name in ACT_PARAMS:  # Elu: x for x >= 0; Selu, Celu: +0 at +-0
            alpha, gamma = ACT_PARAMS[name]
            op = name[:4] if name.startswith("selu") or name.startswith("celu") else "elu"
            p, a = (gamma, gamma * alpha) if op == "selu" else (1.0, alpha)
            neg = a * np.expm1(x / (alpha if op == "celu" else 1.0))
            zero = x if op == "elu" else np.zeros_like(x)
            return np.where(x > 0, p * x, np.where(x == 0, zero, np.where(np.isnan(x), np.nan, neg)))
    raise ValueError(name)


_CTX = gmpy2.context(precision=256)
_F32 = gmpy2.ieee(32)


def _mpfr_value(name, xf):
    """f(xf) at 256 bits: tests/reference/transcendental16.py's formulas, and the parameterised Elu family."""
    with gmpy2.context(_CTX):
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


def _round32(y):
    with gmpy2.context(_F32) as c:
        return np.float32(float(c.plus(y)))


def mpfr_f32(name, xf):
    """RN_f32(f(x)) from MPFR at 256 bits."""
    if math.isnan(xf):
        return np.float32("nan")
    if math.isinf(xf) and (name.startswith("gelu") or name == "mish"):  # the limits: -0 at -inf, +inf at +inf
        return np.float32(xf if xf > 0 else -0.0)
    return _round32(_mpfr_value(name, float(xf)))


def reference(name, x):
    """Correctly rounded f32 results for the f32 array x (see the module docstring)."""
    r = _ref64(name, x)
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


def _bits(a):
    return np.ascontiguousarray(a, dtype=np.float32).view(np.uint32)


def _canon(a):
    b = _bits(a).copy()
    b[np.isnan(a)] = 0x7FC00000
    return b


def _assert_cr(name, x, got, want, where):
    gb, wb = _bits(got), _canon(want)
    bad = np.flatnonzero(gb != wb)
    if bad.size:
        rows = [
            f"x={float(x[i])!r} ({_bits(x)[i]:#010x}) got {float(got[i])!r} ({gb[i]:#010x}) "
            f"want {float(want[i])!r} ({wb[i]:#010x})"
            for i in bad[:8]
        ]
        pytest.fail(f"{name} {where}: {bad.size} of {x.size} not correctly rounded:\n" + "\n".join(rows))


# ---- inputs ----------------------------------------------------------------------------------------------
def _specials():
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


def sample(seed, n=SAMPLE):
    """n inputs: half uniform over all bit patterns (every binade, both signs, NaNs), half with a
    uniform exponent in [2^-30, 2^8) where every function is non-trivial."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 2**32, n // 2, dtype=np.uint64).astype(np.uint32)
    e = rng.integers(127 - 30, 127 + 8, n // 2, dtype=np.uint32)
    m = rng.integers(0, 2**23, n // 2, dtype=np.uint32)
    s = rng.integers(0, 2, n // 2, dtype=np.uint32)
    b = (s << 31) | (e << 23) | m
    return np.concatenate([a, b]).view(np.float32)


# ---- tests -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("op,attrs,name", FUNCS, ids=IDS)
def test_special_values(op, attrs, name):
    x = _specials()
    want = np.array([mpfr_f32(name, float(v)) for v in x], dtype=np.float32)
    for path in PATHS:
        got = _run(op, attrs, x, path=path)
        _assert_cr(name, x, got, want, f"special values, path {path}")
        nan = np.isnan(x)
        assert (_bits(got)[nan] == 0x7FC00000).all(), "exact mode: NaN in gives the canonical NaN"


@pytest.mark.parametrize("op,attrs,name", FUNCS, ids=IDS)
def test_unusual_lane_at_every_position(op, attrs, name):
    """One unusual input (NaN, zeros, infinities, a subnormal, values outside the FMA passes' ordinary
    ranges) at each position of three 16-lane vectors of ordinary inputs: the FMA kernels test whole vectors
    and then halves, and a wrong half or a misplaced lane would show as a wrong result in that lane or a
    neighbour."""
    lo, hi = (0.1, 50.0) if name == "log" else (-3.0, 3.0)
    base = np.linspace(lo, hi, 48, dtype=np.float32)
    unusual = np.array(
        [np.nan, 0.0, -0.0, np.inf, -np.inf, 1e-45, -1e-45, 100.0, -100.0, -10.5, -12.0], dtype=np.float32
    )
    want_base = reference(name, base)
    want_unusual = np.array([mpfr_f32(name, float(v)) for v in unusual], dtype=np.float32)
    nodes = {p: Node(op, [F32], onnx_opset=20, attributes=attrs, mode="exact", kernel_path=p) for p in PATHS}
    for k, v in enumerate(unusual):
        for pos in range(base.size):
            x = base.copy()
            x[pos] = v
            want = want_base.copy()
            want[pos] = want_unusual[k]
            for path, node in nodes.items():
                _assert_cr(name, x, node.run(x), want, f"path {path}, {float(v)!r} at {pos}")


@pytest.mark.parametrize(
    "op,attrs,x,want",
    [
        ("Tanh", {}, -0.0, -0.0),
        ("Erf", {}, -0.0, -0.0),
        ("Gelu", {"approximate": "none"}, -0.0, -0.0),
        ("Gelu", {"approximate": "tanh"}, -0.0, -0.0),
        ("Gelu", {"approximate": "none"}, -np.inf, -0.0),
        ("Gelu", {"approximate": "tanh"}, -np.inf, -0.0),
        ("Gelu", {"approximate": "none"}, np.inf, np.inf),
        ("Gelu", {"approximate": "tanh"}, np.inf, np.inf),
        ("Log", {}, 0.0, -np.inf),
        ("Log", {}, -0.0, -np.inf),
        ("Log", {}, -1.0, np.nan),
        ("Log", {}, -np.inf, np.nan),
        ("Log", {}, np.inf, np.inf),
        ("Log", {}, 1.0, 0.0),
        ("Exp", {}, -np.inf, 0.0),
        ("Exp", {}, np.inf, np.inf),
        ("Exp", {}, 0.0, 1.0),
        ("Sigmoid", {}, -20.0, 2.0611537e-09),
        ("Sigmoid", {}, -100.0, 3.783506e-44),
        ("Sigmoid", {}, -104.0, 0.0),
        ("Sigmoid", {}, np.inf, 1.0),
        ("Sigmoid", {}, -np.inf, 0.0),
        ("Tanh", {}, np.inf, 1.0),
        ("Tanh", {}, -np.inf, -1.0),
        ("Erf", {}, -np.inf, -1.0),
    ],
)
def test_named_special_cases(op, attrs, x, want):
    for path in PATHS:
        got = _run(op, attrs, np.array([x] * 17, dtype=np.float32), path=path)
        w = np.array([want] * 17, dtype=np.float32)
        if np.isnan(want):
            assert (_bits(got) == 0x7FC00000).all(), (op, x, path)
        else:
            assert (_bits(got) == _bits(w)).all(), (op, attrs, x, path, got[0], want)


def _hard_cases():
    data = json.loads(HARD.read_text())
    return data["cases"]


@pytest.mark.parametrize("op,attrs,name", FUNCS, ids=IDS)
def test_hard_cases(op, attrs, name):
    cases = _hard_cases()[name]
    assert len(cases) >= 16
    x = np.array([int(c[0], 16) for c in cases], dtype=np.uint32).view(np.float32)
    want = np.array([int(c[1], 16) for c in cases], dtype=np.uint32).view(np.float32)
    # the file's expected results (tools/verify/cr_verify.c, MPFR at 512 bits) agree with gmpy2 at 256 bits
    again = np.array([mpfr_f32(name, float(v)) for v in x], dtype=np.float32)
    assert (_bits(again) == _bits(want)).all()
    for path in PATHS:
        _assert_cr(name, x, _run(op, attrs, x, path=path), want, f"hard cases, path {path}")


@pytest.mark.parametrize("op,attrs,name", FUNCS, ids=IDS)
def test_fallback_inputs(op, attrs, name):
    """Inputs the exhaustive run saw take the double-double fallback (when it found any)."""
    bits = json.loads(HARD.read_text()).get("fallback_inputs", {}).get(name, [])
    if not bits:
        pytest.skip("no fallback input recorded for this function")
    x = np.array([int(b, 16) for b in bits], dtype=np.uint32).view(np.float32)
    want = np.array([mpfr_f32(name, float(v)) for v in x], dtype=np.float32)
    for path in PATHS:
        _assert_cr(name, x, _run(op, attrs, x, path=path), want, f"fallback inputs, path {path}")


def sample_cache(make, ref):
    """A memo for module fixtures: name -> (make(name), ref(name, inputs)), each computed once."""
    cache = {}

    def get(name):
        if name not in cache:
            x = make(name)
            cache[name] = (x, ref(name, x))
        return cache[name]

    return get


@pytest.fixture(scope="module")
def samples():
    return sample_cache(lambda name: sample(0x5EED + IDS.index(name)), reference)


@pytest.mark.parametrize("op,attrs,name", FUNCS, ids=IDS)
def test_sample_correctly_rounded_all_paths(op, attrs, name, samples):
    x, want = samples(name)
    outs = {}
    for path in PATHS:
        got = _run(op, attrs, x, path=path)
        _assert_cr(name, x, got, want, f"sample of {x.size}, path {path}")
        outs[path] = _bits(got)
    for path in PATHS:  # implied by the above, stated anyway
        assert (outs[path] == outs[PATHS[0]]).all(), f"exact mode differs between paths {path} and {PATHS[0]}"


def _ulp_error(got, want_f64):
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


@pytest.mark.parametrize("op,attrs,name", FUNCS, ids=IDS)
def test_fast_mode_within_bound(op, attrs, name, samples):
    x, _ = samples(name)
    ref = _ref64(name, x)
    for path in PATHS:
        got = _run(op, attrs, x, mode="fast", path=path)
        err = _ulp_error(got, ref)
        worst = int(np.nanargmax(err))
        where = f"{name} fast, path {path}: {err[worst]:.3f} ulp at {float(x[worst])!r}"
        assert err[worst] <= fast_ulp(name, path), where


@pytest.mark.parametrize("op,attrs,name", FUNCS, ids=IDS)
def test_odd_lengths_use_the_same_bits(op, attrs, name):
    """Tails (done by the one-lane path) and vector bodies agree element by element."""
    x = sample(7)[:1001]
    full = _bits(_run(op, attrs, x))
    for k in (1, 3, 15, 17, 33):
        part = _bits(_run(op, attrs, x[k:]))
        assert (part == full[k:]).all()


def _run_in_place(node: Node, x: np.ndarray) -> np.ndarray:
    """node on x with the output written over the input, as ORT runs a node it may run in place."""
    from onemodel_ep._lib import ffi, lib

    buf = np.array(x, dtype=np.float32, copy=True)
    ptr = ffi.cast("void*", buf.ctypes.data)
    data = ffi.new("void*[]", [ptr])
    shape = ffi.new("int64_t[]", [buf.size])
    shapes = ffi.new("int64_t*[]", [shape])
    ranks = ffi.new("size_t[]", [1])
    err = ffi.new("char[]", 512)
    rc = lib.om_node_run(node._ptr, 1, data, shapes, ranks, ptr, shape, 1, ffi.NULL, ffi.NULL, err, 512)
    assert rc == 0, ffi.string(err)
    return buf


@pytest.mark.parametrize("op,attrs,name", FUNCS, ids=IDS)
def test_in_place_matches_out_of_place(op, attrs, name):
    """The kernels redo the vectors with a flagged lane after the chunk's stores; run in place (ORT may, for
    these ops), those stores have overwritten the inputs, so the redo must use a copy. Inputs: the recorded
    fallback and hard cases and subnormals (Gelu's subnormal lanes always take the fallback), scattered among
    ordinary values so that both whole vectors and half vectors are redone, over more than one chunk."""
    data = json.loads(HARD.read_text())
    bits = [int(b, 16) for b in data.get("fallback_inputs", {}).get(name, [])]
    bits += [int(c[0], 16) for c in data["cases"][name]]
    bits += [0x00000001, 0x00400000, 0x007FFFFF, 0x80000001, 0x80400000, 0x807FFFFF]
    special = np.array(bits, dtype=np.uint32).view(np.float32)
    rng = np.random.default_rng(5)
    x = rng.uniform(0.01, 9.0, 3000).astype(np.float32)
    if name != "log":
        x *= rng.choice(np.array([-1.0, 1.0], np.float32), x.size)
    where = rng.choice(x.size, size=special.size, replace=False)
    x[where] = special
    for path in PATHS:
        node = Node(op, [F32], onnx_opset=20, attributes=attrs, mode="exact", kernel_path=path)
        want = node.run(x)
        got = _run_in_place(node, x)
        bad = np.flatnonzero(_bits(got) != _bits(want))
        assert bad.size == 0, f"{name} path {path}: {bad.size} lanes differ in place, first x={x[bad[0]]!r}"


# Zeros, infinities, NaN, subnormals, the edges of the normal range and of Exp's overflow and underflow.
SHORT_EDGES = np.array(
    [0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 1.1754942e-38, 1.1754944e-38, 3.4028235e38,
     0.5, 2.0, 1.0000001, 0.99999994, 88.72283, 88.72284, -87.33655, -103.97208, -103.97209, 7.0],
    np.float32,
)


@pytest.mark.parametrize("op", ["Exp", "Log"])
@pytest.mark.parametrize("mode", ["exact", "fast"])
def test_short_buffers_in_place(op, mode):
    """Exp and Log (the kernels the reductions call on their buffers, in place) on 1 to 40 elements: edge
    values at every lane position, random bits, the hard and fallback cases, and the reductions' tail block
    (r values, then ones to 16 lanes) at 16 buffer alignments: in place gives the out-of-place bits; in exact
    mode every path gives the same."""
    rng = np.random.default_rng(24)
    cases = [np.roll(np.resize(SHORT_EDGES, 64), -k)[:40] for k in range(SHORT_EDGES.size)]
    cases += [rng.integers(0, 2**32, 40, dtype=np.uint64).astype(np.uint32).view(np.float32)
              for _ in range(4)]
    data = json.loads(HARD.read_text())  # inputs that take the fallback, which reads the input again
    name = op.lower()
    hard = [int(b, 16) for b in data.get("fallback_inputs", {}).get(name, [])]
    hard = np.array(hard + [int(c[0], 16) for c in data["cases"][name]], np.uint32).view(np.float32)
    cases += [np.resize(np.roll(hard, -k), 40) for k in range(0, hard.size, 7)]
    blocks = []
    for r in range(1, 17):
        for v in list(SHORT_EDGES) + [float(rng.uniform(0.0, 3.0))]:
            b = np.ones(16, np.float32)
            b[:r] = v
            blocks.append(b)
    nodes = {p: Node(op, [F32], onnx_opset=20, mode=mode, kernel_path=p) for p in PATHS}
    for n in range(1, 41):
        for x in [c[:n] for c in cases] + (blocks if n == 16 else []):
            first = None
            for p in PATHS:
                want = nodes[p].run(x.copy())
                for off in (0, 1, 3, 5, 8, 15) if n != 16 else range(16):
                    big = np.zeros(n + 32, np.float32)
                    buf = big[off : off + n]
                    buf[:] = x
                    nodes[p].run(buf, out=buf)
                    bad = np.flatnonzero(_bits(buf) != _bits(want))
                    assert bad.size == 0, f"{op} {mode} path {p}, n={n}, offset {off}: x={x[bad].tolist()}"
                if mode == "exact":
                    first = want if first is None else first
                    assert np.array_equal(_bits(want), _bits(first)), f"{op} path {p}, n={n}: x={x.tolist()}"


@pytest.mark.parametrize(
    "op,attrs,name,lo,hi",
    [("Erf", {}, "erf", -4.0, 4.0), ("Gelu", {}, "gelu_erf", -12.0, 8.0)],
    ids=["erf", "gelu_erf"],
)
def test_second_chance_agrees_across_paths(op, attrs, name, lo, hi):
    """Erf and Gelu none settle the lanes their first pass's rounding test flags with a second double pass
    on the FMA paths (512, 256) before the double-double fallback; the 128 and scalar paths go straight to
    it. On 2^22 uniform inputs over the range where the functions are non-trivial, about one lane in 2^15 to
    2^16 is flagged (tools/c_tool.py tr_bench counts them), so some tens of lanes take the second pass here,
    and every path must give the same bits (each path is correctly rounded, so any lane the second pass got
    wrong would differ)."""
    x = np.random.default_rng(0x2C4A).uniform(lo, hi, 1 << 22).astype(np.float32)
    outs = {path: _bits(_run(op, attrs, x, path=path)) for path in PATHS}
    for path in PATHS:
        diff = np.nonzero(outs[path] != outs[PATHS[-1]])[0]
        assert diff.size == 0, f"{name}: path {path} differs from {PATHS[-1]} at x = {x[diff[:5]]}"


@pytest.mark.parametrize("name", ["elu_a", "elu_n", "selu_a", "celu_a", "celu_s", "celu_n"])
def test_act_parameters_sample_all_paths(name):
    """Elu, Selu and Celu with other than the default parameters (alpha reaches the kernel as a broadcast
    operand): 2^16 sampled inputs, a quarter of them negative with |x| in [2^-30, 128), correctly rounded on
    every path."""
    alpha, gamma = ACT_PARAMS[name]
    op = {"elu": "Elu", "selu": "Selu", "celu": "Celu"}[name.split("_")[0]]
    attrs = {"alpha": alpha, **({"gamma": gamma} if op == "Selu" else {})}
    seed = zlib.crc32(name.encode())
    neg = -np.exp2(np.random.default_rng(seed).uniform(-30, 7, 1 << 14)).astype(np.float32)
    x = np.concatenate([sample(seed + 1, 3 << 14), neg, _specials()])
    want = reference(name, x)
    for path in PATHS:
        _assert_cr(name, x, _run(op, attrs, x, path=path), want, f"alpha={alpha} gamma={gamma}, path {path}")


@pytest.mark.parametrize(
    "op,attrs,msg",
    [
        ("Celu", {"alpha": 0.0}, "alpha must not be 0"),
        ("Elu", {"alpha": float("nan")}, "alpha must be finite"),
        ("Selu", {"gamma": float("inf")}, "gamma must be finite"),
        ("Celu", {"alpha": float("-inf")}, "alpha must be finite"),
    ],
)
def test_act_bad_parameters_are_refused(op, attrs, msg):
    """A parameter the formula cannot use is a clear error naming the node and the op, not a NaN output."""
    from onemodel_ep.node import probe

    why = probe(op, [F32], onnx_opset=12, attributes=attrs, name="act")
    assert why is not None and "node 'act'" in why and f"op {op}" in why and msg in why, why
