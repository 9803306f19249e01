"""f16 and bf16 Exp, Log, Tanh, Sigmoid, Erf, Gelu (none and tanh), Softplus, Mish, Elu, Selu: all 65,536
inputs of each type, every kernel path, exact and fast mode, compared bit for bit with the correctly rounded
MPFR results.

The references are testdata/transcendental16_refs.npz, written by tests/reference/transcendental16.py (MPFR
at 200 bits, Ziv retries, rounded by integer arithmetic: see its docstring); a random sample of them is
recomputed here from MPFR, and the reference's rounding is checked on hand cases.
See docs/exact-transcendentals.md.
"""

from __future__ import annotations

import ctypes
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

import onemodel_ep
from onemodel_ep.node import Node
from tests.reference import transcendental16 as g16

PATHS = onemodel_ep.kernel_paths()
REFS = Path(__file__).resolve().parents[2] / "testdata" / "transcendental16_refs.npz"
F16, BF16 = 10, 16
OPS = {
    "exp": ("Exp", {}),
    "log": ("Log", {}),
    "tanh": ("Tanh", {}),
    "sigmoid": ("Sigmoid", {}),
    "erf": ("Erf", {}),
    "gelu_erf": ("Gelu", {"approximate": "none"}),
    "gelu_tanh": ("Gelu", {"approximate": "tanh"}),
    "softplus": ("Softplus", {}),
    "mish": ("Mish", {}),
    "elu": ("Elu", {}),
    "selu": ("Selu", {}),
}
KEYS = [f"{n}_{f}" for n in g16.FUNCS for f in g16.FMTS]
ALL = np.arange(65536, dtype=np.uint16)


@pytest.fixture(scope="module")
def refs():
    with np.load(REFS) as f:
        return {k: f[k] for k in f.files}


def _run(name, fmt, x_bits, mode="exact", path=None):
    op, attrs = OPS[name]
    t = F16 if fmt == "f16" else BF16
    opset = 22 if op in ("Softplus", "Mish", "Elu", "Selu") else 20  # their bfloat16 form is opset 22's
    node = Node(op, [t], onnx_opset=opset, attributes=attrs, mode=mode, kernel_path=path)
    out = node.run(x_bits.view(np.float16) if t == F16 else x_bits)
    return np.asarray(out).view(np.uint16)


def _diff(got, want):
    bad = np.nonzero(got != want)[0]
    return f"{len(bad)} inputs differ, first: " + ", ".join(
        f"x={b:#06x} got {got[b]:#06x} want {want[b]:#06x}" for b in bad[:5]
    )


def test_reference_file_complete(refs):
    assert sorted(refs) == sorted(KEYS)
    assert all(refs[k].dtype == np.uint16 and refs[k].shape == (65536,) for k in KEYS)


@pytest.mark.parametrize("key", KEYS)
def test_exhaustive(refs, key):
    """Every input, every path, both modes: the correctly rounded result, bit for bit."""
    name, fmt = key.rsplit("_", 1)
    want = refs[key]
    for path in PATHS:
        for mode in ("exact", "fast"):
            got = _run(name, fmt, ALL, mode, path)
            assert np.array_equal(got, want), f"{key} {mode} path {path}: {_diff(got, want)}"


@pytest.mark.parametrize("key", KEYS)
def test_reference_sample_from_mpfr(refs, key):
    """The committed references agree with MPFR recomputed now (a random sample plus the edges)."""
    name, fmt = key.rsplit("_", 1)
    rng = np.random.default_rng(len(key))
    sample = sorted({*rng.integers(0, 65536, 600).tolist(), 0, 1, 0x8000, 0x8001, 0x7FFF, 0xFFFF})
    for b in sample:
        assert g16.ref(name, fmt, b) == refs[key][b], f"{key} x={b:#06x}"


def test_reference_rounding_by_hand():
    """The reference's rounding: hand-checked cases."""
    r = g16.round_exact
    assert r("f16", 0, 1, 0) == (0x3C00, None)  # 1
    assert r("f16", 0, 2049, -11)[0] == 0x3C00  # 1 + 2^-11: the tie goes to even 1
    assert r("f16", 0, 2051, -11)[0] == 0x3C02  # 1 + 3 * 2^-11: the tie goes to even 1 + 2^-9
    assert r("f16", 1, 1, -25)[0] == 0x8000  # -2^-25: half the least subnormal, ties to -0
    assert r("f16", 0, 3, -26)[0] == 0x0001  # 3 * 2^-26 rounds up to 2^-24
    assert r("f16", 0, 65520, 0)[0] == 0x7C00  # max + half ulp: ties to even, which is infinity
    assert r("f16", 0, 65519, 0)[0] == 0x7BFF  # 65504
    assert r("bf16", 0, 1, -134)[0] == 0x0000 and r("bf16", 0, 3, -135)[0] == 0x0001
    assert r("bf16", 0, 0x1FF, 119)[0] == 0x7F80  # (2^9 - 1) 2^119 = max + half ulp: even is infinity
    assert r("bf16", 0, 0x101, -8)[0] == 0x3F80 and r("bf16", 0, 0x103, -8)[0] == 0x3F82
    ref = g16.ref
    assert ref("exp", "f16", 0x0000) == 0x3C00 and ref("exp", "f16", 0x8000) == 0x3C00  # e^(+-0) = 1
    assert ref("exp", "f16", 0x4900) == 0x7561  # e^10 = 22026.47 -> 22032 (spacing 16)
    assert ref("exp", "f16", 0x4990) == 0x7C00  # e^11.125 > 65520: infinity
    assert ref("exp", "bf16", 0xFF80) == 0x0000  # e^-inf = +0
    assert ref("log", "f16", 0x3C00) == 0x0000 and ref("log", "f16", 0x8000) == 0xFC00  # log 1, log -0
    assert ref("log", "bf16", 0xBF80) == 0x7FC0 and ref("log", "f16", 0xFE01) == 0x7E00  # canonical NaNs
    assert ref("sigmoid", "bf16", 0x0000) == 0x3F00  # 1/2
    assert ref("tanh", "f16", 0x8000) == 0x8000 and ref("erf", "bf16", 0x8000) == 0x8000  # signed zeros
    assert ref("gelu_erf", "bf16", 0xFF80) == 0x8000 and ref("gelu_erf", "bf16", 0x7F80) == 0x7F80
    assert ref("gelu_tanh", "f16", 0xFC00) == 0x8000 and ref("gelu_tanh", "f16", 0x7C00) == 0x7C00
    # Gelu(x) = x (1/2 + x/sqrt(2 pi) + ...): at +-2^-133 just above / below half the least bf16 subnormal
    assert ref("gelu_erf", "bf16", 0x0001) == 0x0001 and ref("gelu_erf", "bf16", 0x8001) == 0x8000


def test_odd_lengths(refs):
    """Lengths that are not whole vectors (the scalar tail after the vector part on every path)."""
    rng = np.random.default_rng(1)
    x = rng.integers(0, 65536, 1003).astype(np.uint16)
    for path in PATHS:
        for n in (0, 1, 7, 33, 1003):
            got = _run("tanh", "bf16", x[:n].copy(), path=path)
            assert np.array_equal(got, refs["tanh_bf16"][x[:n]])


def test_tables_built_concurrently():
    """Eight threads make the first use of the same tables at once (a fresh process): identical results."""
    code = textwrap.dedent(
        """
        import threading, numpy as np
        from onemodel_ep.node import Node
        x = np.arange(65536, dtype=np.uint16)
        outs, nodes = {}, [Node(op, [t], onnx_opset=20) for op in ("Erf", "Log") for t in (10, 16)] * 2
        def work(i):
            n = nodes[i]
            outs[i] = n.run(x.view(np.float16) if i % 2 == 0 else x).view(np.uint16).copy()
        ts = [threading.Thread(target=work, args=(i,)) for i in range(len(nodes))]
        [t.start() for t in ts]
        [t.join() for t in ts]
        assert all(np.array_equal(outs[i], outs[i + 4]) for i in range(4))
        np.save(__import__("sys").argv[1], np.stack([outs[i] for i in range(4)]))
        """
    )
    out = Path(pytest.importorskip("tempfile").mkdtemp()) / "o.npy"
    subprocess.run([sys.executable, "-c", code, str(out)], check=True, timeout=300)
    got = np.load(out)
    with np.load(REFS) as f:
        want = np.stack([f["erf_f16"], f["erf_bf16"], f["log_f16"], f["log_bf16"]])
    assert np.array_equal(got, want)


@pytest.mark.parametrize(
    ("elem", "key"), [(TensorProto.FLOAT16, "exp_f16"), (TensorProto.BFLOAT16, "exp_bf16")]
)
def test_through_ort(refs, elem, key):
    """A model with a 16-bit Exp: the rewriter moves it to the library; a plain ORT session runs it."""
    g = helper.make_graph(
        [helper.make_node("Exp", ["x"], ["y"], name="exp16")],
        "g",
        [helper.make_tensor_value_info("x", elem, [65536])],
        [helper.make_tensor_value_info("y", elem, [65536])],
    )
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)], ir_version=9)
    rep = onemodel_ep.RewriteReport("exact", None)
    r = onemodel_ep.rewrite(m, report=rep)
    assert [n.name for n in rep.moved] == ["exp16"], rep.summary()
    onnx.checker.check_model(r)
    sess = ort.InferenceSession(
        r.SerializeToString(), sess_options=onemodel_ep.session_options(), providers=["CPUExecutionProvider"]
    )
    # bf16 travels as uint16 bits in an OrtValue of element type bfloat16 (NumPy has no bfloat16 for ORT)
    (y,) = sess.run_with_ort_values(None, {"x": ort.OrtValue.ortvalue_from_numpy_with_onnx_type(ALL, elem)})
    assert y.element_type() == elem and y.shape() == [65536]
    got = np.ctypeslib.as_array(ctypes.cast(y.data_ptr(), ctypes.POINTER(ctypes.c_uint16)), (65536,)).copy()
    assert np.array_equal(got, refs[key]), _diff(got, refs[key])


@pytest.mark.parametrize(
    ("op", "attrs", "fmt"),
    [
        ("Elu", {"alpha": 0.3}, "f16"),
        ("Elu", {"alpha": -2.0}, "bf16"),
        ("Selu", {"alpha": 1.5, "gamma": 0.75}, "bf16"),
    ],
)
def test_act_parameters_all_inputs(op, attrs, fmt):
    """Elu and Selu with other than the default parameters: every 16-bit input in one call (a call of 8,192 or
    more builds the parameters' table) and in calls of 4,000 (evaluated directly), both equal to MPFR."""
    name = op.lower()
    a = float(np.float32(attrs["alpha"]))
    g = float(np.float32(attrs["gamma"])) if "gamma" in attrs else None
    want = np.array([g16.ref(name, fmt, b, alpha=a, gamma=g) for b in range(65536)], dtype=np.uint16)
    x = ALL.view(np.float16) if fmt == "f16" else ALL
    t = F16 if fmt == "f16" else BF16
    node = Node(op, [t], onnx_opset=22, attributes=attrs)
    whole = np.asarray(node.run(x)).view(np.uint16)
    parts = np.concatenate([np.asarray(node.run(x[k : k + 4000])) for k in range(0, 65536, 4000)])
    parts = parts.view(np.uint16)
    assert np.array_equal(whole, want), _diff(whole, want)
    assert np.array_equal(parts, want), _diff(parts, want)
