"""Exact f32 Exp, Log, Tanh, Sigmoid, Erf and Gelu (both forms): correctly rounded results against MPFR
(gmpy2) on every kernel path, bit-identical across paths; fast mode within its ulp bound.

References: tests/reference/transcendental32.py (float64 where it settles the rounding, MPFR at 256 bits
where it does not). See docs/exact-transcendentals.md; the exhaustive check is tools/verify/cr_verify.c.
"""

from __future__ import annotations

import json
import zlib
from pathlib import Path

import numpy as np
import pytest

import onemodel_ep
from onemodel_ep.node import Node
from tests.reference.transcendental32 import (
    ACT_PARAMS,
    FUNCS,
    IDS,
    assert_cr,
    bits,
    fast_ulp,
    mpfr_f32,
    ref64,
    reference,
    sample,
    sample_cache,
    specials,
    ulp_error,
)

PATHS = onemodel_ep.kernel_paths()
F32 = 1  # onnx TensorProto.FLOAT
HARD = Path(__file__).resolve().parents[2] / "testdata" / "hard_cases" / "transcendental_hard_cases.json"


def _run(op, attrs, x, mode="exact", path=None):
    node = Node(op, [F32], onnx_opset=20, attributes=attrs, mode=mode, kernel_path=path)
    return node.run(np.ascontiguousarray(x, dtype=np.float32))


# ---- tests -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("op,attrs,name", FUNCS, ids=IDS)
def test_special_values(op, attrs, name):
    x = specials()
    want = np.array([mpfr_f32(name, float(v)) for v in x], dtype=np.float32)
    for path in PATHS:
        got = _run(op, attrs, x, path=path)
        assert_cr(name, x, got, want, f"special values, path {path}")
        nan = np.isnan(x)
        assert (bits(got)[nan] == 0x7FC00000).all(), "exact mode: NaN in gives the canonical NaN"


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
                assert_cr(name, x, node.run(x), want, f"path {path}, {float(v)!r} at {pos}")


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
            assert (bits(got) == 0x7FC00000).all(), (op, x, path)
        else:
            assert (bits(got) == bits(w)).all(), (op, attrs, x, path, got[0], want)


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
    assert (bits(again) == bits(want)).all()
    for path in PATHS:
        assert_cr(name, x, _run(op, attrs, x, path=path), want, f"hard cases, path {path}")


@pytest.mark.parametrize("op,attrs,name", FUNCS, ids=IDS)
def test_fallback_inputs(op, attrs, name):
    """Inputs the exhaustive run saw take the double-double fallback (when it found any)."""
    hard = json.loads(HARD.read_text()).get("fallback_inputs", {}).get(name, [])
    if not hard:
        pytest.skip("no fallback input recorded for this function")
    x = np.array([int(b, 16) for b in hard], dtype=np.uint32).view(np.float32)
    want = np.array([mpfr_f32(name, float(v)) for v in x], dtype=np.float32)
    for path in PATHS:
        assert_cr(name, x, _run(op, attrs, x, path=path), want, f"fallback inputs, path {path}")


@pytest.fixture(scope="module")
def samples():
    return sample_cache(lambda name: sample(0x5EED + IDS.index(name)), reference)


@pytest.mark.parametrize("op,attrs,name", FUNCS, ids=IDS)
def test_sample_correctly_rounded_all_paths(op, attrs, name, samples):
    x, want = samples(name)
    outs = {}
    for path in PATHS:
        got = _run(op, attrs, x, path=path)
        assert_cr(name, x, got, want, f"sample of {x.size}, path {path}")
        outs[path] = bits(got)
    for path in PATHS:  # implied by the above, stated anyway
        assert (outs[path] == outs[PATHS[0]]).all(), f"exact mode differs between paths {path} and {PATHS[0]}"


@pytest.mark.parametrize("op,attrs,name", FUNCS, ids=IDS)
def test_fast_mode_within_bound(op, attrs, name, samples):
    x, _ = samples(name)
    ref = ref64(name, x)
    for path in PATHS:
        got = _run(op, attrs, x, mode="fast", path=path)
        err = ulp_error(got, ref)
        worst = int(np.nanargmax(err))
        where = f"{name} fast, path {path}: {err[worst]:.3f} ulp at {float(x[worst])!r}"
        assert err[worst] <= fast_ulp(name, path), where


@pytest.mark.parametrize("op,attrs,name", FUNCS, ids=IDS)
def test_odd_lengths_use_the_same_bits(op, attrs, name):
    """Tails (done by the one-lane path) and vector bodies agree element by element."""
    x = sample(7)[:1001]
    full = bits(_run(op, attrs, x))
    for k in (1, 3, 15, 17, 33):
        part = bits(_run(op, attrs, x[k:]))
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
    patterns = [int(b, 16) for b in data.get("fallback_inputs", {}).get(name, [])]
    patterns += [int(c[0], 16) for c in data["cases"][name]]
    patterns += [0x00000001, 0x00400000, 0x007FFFFF, 0x80000001, 0x80400000, 0x807FFFFF]
    special = np.array(patterns, dtype=np.uint32).view(np.float32)
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
        bad = np.flatnonzero(bits(got) != bits(want))
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
                    bad = np.flatnonzero(bits(buf) != bits(want))
                    assert bad.size == 0, f"{op} {mode} path {p}, n={n}, offset {off}: x={x[bad].tolist()}"
                if mode == "exact":
                    first = want if first is None else first
                    assert np.array_equal(bits(want), bits(first)), f"{op} path {p}, n={n}: x={x.tolist()}"


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
    outs = {path: bits(_run(op, attrs, x, path=path)) for path in PATHS}
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
    x = np.concatenate([sample(seed + 1, 3 << 14), neg, specials()])
    want = reference(name, x)
    for path in PATHS:
        assert_cr(name, x, _run(op, attrs, x, path=path), want, f"alpha={alpha} gamma={gamma}, path {path}")


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
