"""Sin and Cos: correctly rounded for f32, f16 and bf16 on every kernel path, in both modes, against MPFR.

f32 references: the C library's double sin/cos through `math` (glibc: every argument reduced exactly, error
below one double ulp) settle every input whose interval [R(1 - 2^-36), R(1 + 2^-36)] rounds to one f32; the
others are computed with gmpy2 at 256 bits (MPFR reduces any argument exactly) and rounded in the IEEE
binary32 context. f16/bf16 references: testdata/trig16_refs.npz (tests/reference/transcendental16.py --set
trig). The hard cases (testdata/hard_cases/trig_hard_cases.json) come from tools/verify/cr_verify.sh runs. See
docs/exact-transcendentals.md.
"""

from __future__ import annotations

import ctypes
import json
import math
from pathlib import Path

import gmpy2
import numpy as np
import onnx
import onnxruntime as ort
import pytest
from gmpy2 import mpfr
from onnx import TensorProto, helper

import onemodel_ep
from onemodel_ep.node import Node
from tests.reference.transcendental32 import assert_cr, bit_sample, bits

PATHS = onemodel_ep.kernel_paths()
F32, F16, BF16 = 1, 10, 16
OPS = [("Sin", "sin"), ("Cos", "cos")]
IDS = [n for _, n in OPS]
HARD = Path(__file__).resolve().parents[2] / "testdata" / "hard_cases" / "trig_hard_cases.json"
REFS16 = Path(__file__).resolve().parents[2] / "testdata" / "trig16_refs.npz"
_CTX = gmpy2.context(precision=256)
_F32 = gmpy2.ieee(32)


def _run(op, x, mode="exact", path=None, t=F32):
    return Node(op, [t], onnx_opset=7, mode=mode, kernel_path=path).run(x)


def mpfr_f32(name, xf):
    """RN_f32(sin x) or RN_f32(cos x) from MPFR at 256 bits; NaN for NaN and +-inf."""
    if not math.isfinite(xf):
        return np.float32("nan")
    with gmpy2.context(_CTX):
        x = mpfr(float(xf))
        y = gmpy2.sin(x) if name == "sin" else gmpy2.cos(x)
    with gmpy2.context(_F32) as c:
        return np.float32(float(c.plus(y)))


def reference(name, x):
    f = math.sin if name == "sin" else math.cos
    out = np.empty(x.shape, np.float32)
    for i, v in enumerate(x.tolist()):
        if not math.isfinite(v):
            out[i] = np.nan
            continue
        r = f(v)
        if v == 0:
            out[i] = np.float32(r)  # sin(+-0) = +-0 exactly, cos(0) = 1
            continue
        lo, hi = np.float32(r - abs(r) * 2.0**-36), np.float32(r + abs(r) * 2.0**-36)
        out[i] = lo if lo.view(np.uint32) == hi.view(np.uint32) else mpfr_f32(name, v)
    return out


def _check_all_paths(op, name, x, want=None):
    x = np.ascontiguousarray(x, dtype=np.float32)
    want = reference(name, x) if want is None else want
    first = None
    for mode in ("exact", "fast"):
        for path in PATHS:
            got = _run(op, x, mode, path)
            assert_cr(name, x, got, want, f"{mode} path {path}")
            if first is None:
                first = bits(got)
            assert np.array_equal(bits(got), first), f"{name} {mode} path {path} differs from {PATHS[0]}"


def sample(seed, n):
    """Uniform bit patterns, a uniform exponent over [2^-30, 2^30), and |x| in the large-argument range."""
    rng = np.random.default_rng(seed)
    a, b, s = bit_sample(rng, n // 3, -30, 30)
    big = rng.integers(0x4B800000, 0x7F800000, n // 3, dtype=np.uint64).astype(np.uint32)  # |x| >= 2^24
    return np.concatenate([a, b, big | (s << 31)]).view(np.float32)


def _near_half_pi_multiples():
    """f32 neighbours of k pi/2 for k up to 2^100: where |x - k pi/2| is smallest relative to x."""
    xs = []
    with gmpy2.context(precision=400):
        hp = gmpy2.const_pi() / 2
        ks = list(range(1, 200)) + [3 * 2**j + 1 for j in range(8, 100, 7)]
        ks += [2**j for j in range(24, 127, 5)]
        for k in ks:
            v = float(hp * k)
            f = np.float32(v)
            if not np.isfinite(f):
                continue
            b = int(np.array([f]).view(np.uint32)[0])
            xs += [b - 1, b, b + 1]
    # the smallest reduced arguments over all f32 (tools/c_tool.py trig_reduce_scan)
    xs += [0x6F79BE45, 0x6FF9BE45, 0x7079BE45, 0x50A3E87F, 0x5123E87F, 0x51A3E87F, 0x437CE5F1, 0x6A1976F1]
    x = np.array(xs, dtype=np.uint32).view(np.float32)
    return np.concatenate([x, -x])


# ---- tests -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("op,name", OPS, ids=IDS)
def test_special_values(op, name):
    v = [0.0, -0.0, math.inf, -math.inf, math.nan, 1.0, -1.0, 0.5, 0.78, -0.78, 0.7853982, 1.5707964,
         3.1415927, 2.0**-12, 2.0**-24, 2.0**-126, 2.0**23, 2.0**24 - 1, 2.0**24, 2.0**24 + 2, 2.0**33 - 1024,
         2.0**33, 1e30, -1e30, 3.4e38, -3.4e38,
         3.4028235e38, -3.4028235e38, 1e10, 12345.678]
    x = np.array(v, dtype=np.float32)
    sub = np.array([1, 2, 0x7FFFFF, 0x400000], dtype=np.uint32).view(np.float32)
    payload = np.array([0x7FC12345, 0xFFC00001, 0x7F800001, 0xFF812345], dtype=np.uint32).view(np.float32)
    x = np.concatenate([x, sub, -sub, payload])
    _check_all_paths(op, name, x)
    for path in PATHS:
        y = _run(op, x, "exact", path)
        assert (bits(y)[np.isnan(x) | np.isinf(x)] == 0x7FC00000).all(), "exact mode: canonical NaN"
        if name == "sin":
            assert bits(y)[1] == 0x80000000 and bits(y)[0] == 0, "sin(+-0) = +-0"
        else:
            assert y[0] == 1.0 and y[1] == 1.0


@pytest.mark.parametrize("op,name", OPS, ids=IDS)
def test_large_arguments_and_multiples_of_half_pi(op, name):
    x = _near_half_pi_multiples()
    want = np.array([mpfr_f32(name, float(v)) for v in x], dtype=np.float32)  # MPFR for all of them
    _check_all_paths(op, name, x, want)


@pytest.mark.parametrize("op,name", OPS, ids=IDS)
def test_hard_cases(op, name):
    """The inputs closest to an f32 rounding boundary found by the tools/verify/cr_verify.sh runs, against
    MPFR."""
    cases = json.loads(HARD.read_text())["cases"][name]
    assert len(cases) >= 16
    x = np.array([int(c[0], 16) for c in cases], dtype=np.uint32).view(np.float32)
    want = np.array([int(c[1], 16) for c in cases], dtype=np.uint32).view(np.float32)
    mp = np.array([mpfr_f32(name, float(v)) for v in x], dtype=np.float32)
    assert np.array_equal(bits(mp), bits(want)), "the recorded hard cases disagree with MPFR"
    mirrored = -want if name == "sin" else want
    _check_all_paths(op, name, np.concatenate([x, -x]), np.concatenate([want, mirrored]))


@pytest.mark.parametrize("op,name", OPS, ids=IDS)
def test_sample_correctly_rounded_all_paths(op, name):
    x = sample(11 if name == "sin" else 12, 3 * 8192)
    _check_all_paths(op, name, x)


@pytest.mark.parametrize("op,name", OPS, ids=IDS)
def test_odd_lengths_and_in_place(op, name):
    """Tails (the one-lane path) and vector bodies agree; a run with the output over the input too (the fix-up
    flagged lanes must read a copy of the inputs)."""
    from onemodel_ep._lib import ffi, lib

    x = np.concatenate([sample(3, 3000), _near_half_pi_multiples()])
    np.random.default_rng(4).shuffle(x)
    for path in PATHS:
        node = Node(op, [F32], onnx_opset=7, mode="exact", kernel_path=path)
        full = bits(node.run(x))
        for k in (1, 3, 15, 17, 33):
            assert (bits(node.run(x[k:])) == full[k:]).all()
        buf = np.array(x, dtype=np.float32, copy=True)
        ptr = ffi.cast("void*", buf.ctypes.data)
        shape = ffi.new("int64_t[]", [buf.size])
        err = ffi.new("char[]", 512)
        rc = lib.om_node_run(node._ptr, 1, ffi.new("void*[]", [ptr]), ffi.new("int64_t*[]", [shape]),
                             ffi.new("size_t[]", [1]), ptr, shape, 1, ffi.NULL, ffi.NULL, err, 512)
        assert rc == 0, ffi.string(err)
        assert np.array_equal(bits(buf), full), f"{name} path {path}: in place differs"


@pytest.fixture(scope="module")
def refs16():
    with np.load(REFS16) as f:
        return {k: f[k] for k in f.files}


@pytest.mark.parametrize("fmt", ["f16", "bf16"])
@pytest.mark.parametrize("op,name", OPS, ids=IDS)
def test_16bit_exhaustive(refs16, op, name, fmt):
    allb = np.arange(65536, dtype=np.uint16)
    want = refs16[f"{name}_{fmt}"]
    for mode in ("exact", "fast"):
        for path in PATHS:
            t = F16 if fmt == "f16" else BF16
            x = allb.view(np.float16) if t == F16 else allb
            got = np.asarray(_run(op, x, mode, path, t)).view(np.uint16)
            bad = np.flatnonzero(got != want)
            assert bad.size == 0, f"{name} {fmt} {mode} {path}: {bad.size} differ, first x={int(bad[0]):#06x}"


def test_16bit_reference_sample_from_mpfr(refs16):
    from tests.reference import transcendental16 as g16

    rng = np.random.default_rng(8)
    for key in ("sin_f16", "cos_f16", "sin_bf16", "cos_bf16"):
        name, fmt = key.split("_")
        for b in rng.integers(0, 65536, 200).tolist():
            assert refs16[key][b] == g16.ref(name, fmt, b), (key, hex(b))


def _model(op, elem=TensorProto.FLOAT, n=4096):
    g = helper.make_graph(
        [helper.make_node(op, ["x"], ["y"], name=op.lower())],
        "g",
        [helper.make_tensor_value_info("x", elem, [n])],
        [helper.make_tensor_value_info("y", elem, [n])],
    )
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)], ir_version=9)


@pytest.mark.parametrize("op,name", OPS, ids=IDS)
def test_through_ort_and_near_stock(op, name):
    """Rewritten and run by a plain ORT session: correctly rounded, and within tolerance of stock ORT."""
    rng = np.random.default_rng(21)
    x = np.concatenate([rng.uniform(-100, 100, 3000), rng.uniform(-1e4, 1e4, 1000),
                        rng.uniform(-1e6, 1e6, 96)]).astype(np.float32)
    m = _model(op)
    rep = onemodel_ep.RewriteReport("exact", None)
    r = onemodel_ep.rewrite(m, report=rep)
    assert [n.name for n in rep.moved] == [op.lower()], rep.summary()
    onnx.checker.check_model(r)
    sess = ort.InferenceSession(r.SerializeToString(), sess_options=onemodel_ep.session_options(),
                                providers=["CPUExecutionProvider"])
    (got,) = sess.run(None, {"x": x})
    assert_cr(name, x, got, reference(name, x), "through ORT")
    stock = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
    (s,) = stock.run(None, {"x": x})
    assert np.allclose(got, s, rtol=1e-5, atol=1e-5), float(np.max(np.abs(got - s)))


@pytest.mark.parametrize("elem,fmt", [(TensorProto.FLOAT16, "f16"), (TensorProto.BFLOAT16, "bf16")])
def test_16bit_through_ort(refs16, elem, fmt):
    allb = np.arange(65536, dtype=np.uint16)
    r = onemodel_ep.rewrite(_model("Sin", elem, 65536))
    sess = ort.InferenceSession(r.SerializeToString(), sess_options=onemodel_ep.session_options(),
                                providers=["CPUExecutionProvider"])
    (y,) = sess.run_with_ort_values(None, {"x": ort.OrtValue.ortvalue_from_numpy_with_onnx_type(allb, elem)})
    got = np.ctypeslib.as_array(ctypes.cast(y.data_ptr(), ctypes.POINTER(ctypes.c_uint16)), (65536,)).copy()
    assert np.array_equal(got, refs16[f"sin_{fmt}"])
