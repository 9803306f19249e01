"""Property-based fuzzing of the kernels (onemodel_ep.node.Node, no ORT) against
tests/reference/fuzz_reference.py.

Hypothesis draws an operator from the op table, its element types, an output rank 0-6 with zero and one
dimensions, a broadcasting pattern per input and values from the edges of each type (extremes, zeros of
both signs, infinities, NaNs with payloads, subnormals, MIN/-1, ...), runs the node on every kernel path in
both modes and checks:
  - exact mode: bit-identical outputs across kernel paths, canonical NaNs;
  - fast mode: identical values across paths for the ops whose modes do not differ;
  - the spec's value (bit-exact up to NaN payloads, signed zeros compared; transcendentals within 1e-4
    relative, Pow within a few ulp), or the node is refused exactly where the spec rejects it.
`test_sweep` additionally runs every op x type x path once on fixed edge values (the sanitizer run's floor).

Budget: the `ci` profile (default) is seeded and small (< 60 s); a long run is

    HYPOTHESIS_PROFILE=long .venv/bin/python -m pytest tests/kernels/test_fuzz.py   # 20000 examples, random
    HYPOTHESIS_PROFILE=long FUZZ_EXAMPLES=100000 ...                                 # seed; any budget
"""

from __future__ import annotations

import math
import os
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.core import given

import onemodel_ep
from onemodel_ep._lib import F_MODES, F_STRUCT, MODES
from onemodel_ep.node import Node, NodeError, probe
from tests.reference import fuzz_reference as ref

PATHS = onemodel_ep.kernel_paths()
ALL_OPS = onemodel_ep.op_table()
# The element-wise ops of the table (the structured ones, MatMul to the Reduce ops, have their own fuzzer:
# tests/kernels/test_fuzz_linalg.py), less those whose kernels this build does not have yet (e.g. the
# transcendentals while they are being written): their refusal is the op tests' business, not the fuzzer's.
TABLE = {op: info for op, info in ALL_OPS.items()
         if not info.flags & F_STRUCT
         and any("no kernel" not in (probe(op, [t] * max(info.min_inputs, 1)) or "")
                 for t in info.input0_types)}
BF16 = 16
NP_OF = {1: np.float32, 2: np.uint8, 3: np.int8, 4: np.uint16, 5: np.int16, 6: np.int32, 7: np.int64,
         9: np.bool_, 10: np.float16, 11: np.float64, 12: np.uint32, 13: np.uint64, BF16: np.uint16}
STORED = sorted(NP_OF)
MAX_ELEMENTS = 3000
SANITIZE = bool(os.environ.get("ONEMODEL_SANITIZE"))

_common = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
               print_blob=True)
settings.register_profile("ci", max_examples=150 if SANITIZE else 1500, derandomize=True, **_common)
settings.register_profile("long", max_examples=int(os.environ.get("FUZZ_EXAMPLES", "20000")), **_common)
PROFILE = settings.get_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci")
                               if os.environ.get("HYPOTHESIS_PROFILE") in ("ci", "long") else "ci")


# ---- values

def _edges(t: int) -> np.ndarray:
    dt = np.dtype(NP_OF[t])
    if t == BF16:  # bit patterns: zeros, one, max, min subnormal, inf, NaNs
        return np.array([0, 0x8000, 0x3F80, 0xBF80, 0x7F7F, 0xFF7F, 0x0001, 0x8001, 0x0080, 0x7F80, 0xFF80,
                         0x7FC0, 0xFFC1, 0x7F81, 0x4B80, 0xCB00], dtype=np.uint16)
    if dt == np.bool_:
        return np.array([False, True])
    if dt.kind == "f":
        fi = np.finfo(dt)
        u = np.dtype(f"u{dt.itemsize}")
        nb = dt.itemsize * 8
        mant = fi.nmant
        exp_mask = ((1 << (nb - 1 - mant)) - 1) << mant
        nans = np.array([exp_mask | 1, exp_mask | (1 << (mant - 1)) | 5, (1 << (nb - 1)) | exp_mask | 3],
                        dtype=u).view(dt)
        vals = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5, 3.0, -7.0, 0.1, 1e-3, fi.max, -fi.max,
                fi.tiny, -fi.tiny, fi.smallest_subnormal, -fi.smallest_subnormal, math.inf, -math.inf,
                math.nan, 2.0 ** (mant + 1) + 2, 100.0, -100.0, 88.7, -88.7, 1e30, 65504.0, 65520.0]
        with np.errstate(all="ignore"):
            return np.concatenate([np.array(vals, dtype=np.float64).astype(dt), nans])
    info = np.iinfo(dt)
    vals = [0, 1, 2, 3, 7, int(info.max), int(info.max) - 1, int(info.min), int(info.min) + 1]
    if dt.kind == "i":
        vals += [-1, -2, -3, -7]
    return np.array(vals, dtype=object).astype(dt)


def _values(rng: np.random.Generator, t: int, shape: tuple[int, ...], edge_p: float) -> np.ndarray:
    dt = np.dtype(NP_OF[t])
    n = int(np.prod(shape, dtype=np.int64))
    if dt == np.bool_:
        return rng.integers(0, 2, size=n).astype(np.bool_).reshape(shape)
    raw = rng.integers(0, 256, size=n * dt.itemsize, dtype=np.uint8).view(dt).copy()
    if dt.kind == "f" and rng.random() < 0.5:  # ordinary magnitudes too
        with np.errstate(all="ignore"):
            raw = (rng.standard_normal(n) * 10.0 ** rng.integers(-3, 4)).astype(dt)
    edges = _edges(t)
    pick = rng.random(n) < edge_p
    raw[pick] = edges[rng.integers(0, len(edges), size=int(pick.sum()))]
    return raw.reshape(shape)


# ---- checks

def _as_compared(x: np.ndarray, t: int) -> np.ndarray:
    """bf16 (uint16 bits or ml_dtypes) as float64 values; everything else as is."""
    if t == BF16:
        with np.errstate(all="ignore"):
            return (np.ascontiguousarray(x).view(np.uint16).astype(np.uint32) << 16).view(np.float32).astype(
                np.float64)
    return x


def _bits(x: np.ndarray) -> np.ndarray:
    x = np.ascontiguousarray(x)
    return x.view(np.uint8) if x.dtype == np.bool_ else x.view(np.dtype(f"u{x.dtype.itemsize}"))


def _same(got: np.ndarray, exp: np.ndarray, open_mask: np.ndarray, zero_sign: bool = True) -> np.ndarray:
    """Per element: equal values (NaN matches NaN; signed zeros must match) or open."""
    if got.dtype.kind != "f":
        return (_bits(got) == _bits(exp.astype(got.dtype))) | open_mask
    with np.errstate(all="ignore"):
        eq = (got == exp) & ((np.signbit(got) == np.signbit(exp)) | (not zero_sign))
    return eq | (np.isnan(got) & np.isnan(exp)) | open_mask


def _close(got: np.ndarray, exp: np.ndarray, rel: float, floor: float) -> np.ndarray:
    with np.errstate(all="ignore"):
        g, e = got.astype(np.float64), exp.astype(np.float64)
        ok = np.abs(g - e) <= rel * np.maximum(np.abs(e), floor)
        ok |= (g == e) | (np.isnan(g) & np.isnan(e))
    return ok


def _check_reference(op: str, ins: list[np.ndarray | None], attrs: dict[str, Any], got: np.ndarray,
                     out_t: int, where: str) -> None:
    exp = ref.expected(op, ins, attrs)
    exp = np.broadcast_to(exp, got.shape) if exp.shape != got.shape else exp
    g, e = _as_compared(got, out_t), _as_compared(exp, out_t)
    open_mask = ref.open_elements(op, ins, got.shape)
    if op in ref.TRANSCENDENTAL and out_t == 1:  # f16 and bf16: correctly rounded, compared exactly
        ok = _close(g, e, 1e-4, 1e-3)
    elif op == "Pow":
        if g.dtype.kind == "f":
            ok = _close(g, e, 4e-7 if g.dtype == np.float32 else 1e-15, float(np.finfo(g.dtype).tiny))
        else:  # integer base: x*x for exponent 2 and saturation are settled only where double is exact;
            # a last-bit difference of the (not exact) double pow may move the truncated integer by one
            big = np.abs(ref._pow(ins[0].astype(np.float64), ins[1]))  # type: ignore[union-attr]
            open_mask = open_mask | ~(big < 2.0**53)
            ok = open_mask | (np.abs(g.astype(object) - e.astype(object)) <= 1).astype(bool)
    else:
        ok = _same(g, e, open_mask, zero_sign=op not in ref.ZERO_SIGN_OPEN)
    if not ok.all():
        idx = np.argwhere(~ok)[:5] if ok.ndim else [()]
        detail = "; ".join(
            f"at {tuple(int(v) for v in i)}: inputs "
            f"{[None if x is None else np.broadcast_to(x, got.shape)[tuple(i)] for x in ins]} "
            f"got {np.asarray(g)[tuple(i)]!r} expected {np.asarray(e)[tuple(i)]!r}" for i in idx)
        bad = int((~ok).sum())
        raise AssertionError(f"{where}: {bad} of {ok.size} elements differ from the spec: {detail}")


def run_case(op: str, types: list[int], ins: list[np.ndarray | None], attrs: dict[str, Any],
             ref_attrs: dict[str, Any]) -> None:
    """Run one node on every path and mode and check it (the fuzzer's and the sweep's oracle)."""
    info = TABLE[op]
    label = f"{op} types={types} shapes={[None if x is None else x.shape for x in ins]} attrs={attrs}"
    try:
        Node(op, types, attributes=attrs)
    except NodeError as exc:
        try:
            ref.expected(op, ins, {**attrs, **ref_attrs})
        except ref.Unsupported:
            return  # refused where the spec refuses
        raise AssertionError(f"{label}: the library refused a node the spec serves: {exc}") from exc
    try:
        ref.expected(op, ins, {**attrs, **ref_attrs})
    except ref.Unsupported as exc:
        raise AssertionError(f"{label}: served, but the spec rejects it ({exc})") from exc
    for mode in MODES:
        outs = {}
        for path in PATHS:
            node = Node(op, types, attributes=attrs, mode=mode, kernel_path=path)
            outs[path] = node.run(*ins)
            out_t = node.output_type
        first = outs[PATHS[0]]
        shaping = ins[:1] if op in ("Clip", "Cast", "CastLike") else ins  # bounds, type sources: no shape
        shaped = [x for x in shaping if x is not None]
        want = np.broadcast_shapes(*[x.shape for x in shaped])
        assert first.shape == want, f"{label}: output shape {first.shape}, broadcast shape {want}"
        for path, out in outs.items():
            if mode == "exact" or not info.flags & F_MODES:
                a, b = _as_compared(first, out_t), _as_compared(out, out_t)
                if mode == "exact":
                    same = out.shape == first.shape and np.array_equal(_bits(out), _bits(first))
                else:
                    same = out.shape == first.shape and bool(_same(a, b, np.zeros(a.shape, bool)).all())
                assert same, f"{label} {mode}: path {path} differs from path {PATHS[0]}"
            if mode == "exact" or path == PATHS[0] or info.flags & F_MODES:
                _check_reference(op, ins, {**attrs, **ref_attrs}, out, out_t, f"{label} {mode} path {path}")
        if mode == "exact" and out_t in (1, 10, 11):
            nan = np.isnan(first)
            canon = ref.canonical_nan_bits(first.dtype)
            assert (_bits(first)[nan] == canon).all(), f"{label}: exact-mode NaN not canonical"


# ---- drawing

DIMS = [0, 1, 1, 1, 2, 2, 3, 3, 4, 5, 7, 8, 16, 17, 33]


@st.composite
def cases(draw: st.DrawFn) -> tuple[str, list[int], list[np.ndarray | None], dict[str, Any], dict[str, Any]]:
    op = draw(st.sampled_from(sorted(TABLE)))
    info = TABLE[op]
    t0 = draw(st.sampled_from(sorted(t for t in info.input0_types if t in NP_OF)))
    if info.max_inputs > 4:
        n = draw(st.integers(info.min_inputs, 4))
    else:
        n = draw(st.integers(info.min_inputs, info.max_inputs))
    types = [t0] * n
    attrs: dict[str, Any] = {}
    ref_attrs: dict[str, Any] = {}
    absent: set[int] = set()
    if op in ref.TRANSCENDENTAL or op in ("IsNaN", "IsInf"):
        ref_attrs["bf16_in"] = t0 == BF16
    if op == "Where":
        tv = draw(st.sampled_from(sorted(info.other_types)))
        types = [t0, tv, tv]
    elif op == "Pow":
        types = [t0, draw(st.sampled_from(sorted(info.other_types)))]
    elif op in ("Cast", "CastLike"):
        to = draw(st.sampled_from(STORED))
        if op == "Cast":
            attrs["to"] = to
            if n == 2:  # the rewriter's type carrier: an (empty) tensor of the target type
                types = [t0, to]
        else:
            types = [t0, to]
        ref_attrs.update(bf16_in=t0 == BF16, to_bf16=to == BF16, to_dtype=NP_OF[to])
    elif op == "Mod":
        attrs["fmod"] = draw(st.sampled_from([0, 1]))
    elif op == "Gelu":
        attrs["approximate"] = draw(st.sampled_from(["none", "tanh"]))
    elif op == "IsInf" and draw(st.booleans()):
        attrs["detect_positive"] = draw(st.sampled_from([0, 1]))
        attrs["detect_negative"] = draw(st.sampled_from([0, 1]))
    elif op in ("LeakyRelu", "HardSigmoid", "ThresholdedRelu") and draw(st.booleans()):
        attrs["alpha"] = float(np.float32(draw(st.floats(-4, 4, width=32))))
        if op == "HardSigmoid":
            attrs["beta"] = float(np.float32(draw(st.floats(-4, 4, width=32))))
    elif op == "Clip":
        if n == 1 and t0 in (1, 10, 11) and draw(st.booleans()):
            for name in draw(st.sampled_from([("min",), ("max",), ("min", "max")])):
                attrs[name] = float(np.float32(draw(st.floats(-1e6, 1e6, width=32))))
        for k in range(1, n):
            if draw(st.booleans()) and draw(st.booleans()):
                absent.add(k)
                types[k] = 0

    # Shapes: an output rank 0-6 (or one long vector for the lane loops), inputs broadcast into it.
    if draw(st.integers(0, 3)) == 0:
        out_shape: tuple[int, ...] = (draw(st.integers(0, 300)),)
    else:
        rank = draw(st.integers(0, 6))
        out_shape = tuple(draw(st.sampled_from(DIMS)) for _ in range(rank))
        while int(np.prod(out_shape, dtype=np.int64)) > MAX_ELEMENTS:
            out_shape = tuple(max(d // 2, 1) for d in out_shape)
    shapes: list[tuple[int, ...]] = []
    for k in range(n):
        if op == "Clip" and k > 0:
            shapes.append(draw(st.sampled_from([(), (1,)])))
            continue
        if op in ("Cast", "CastLike") and k == 1:
            shapes.append(draw(st.sampled_from([(), (3,), (0,)])))
            continue
        if op == "PRelu" and k == 0:  # X has the output's shape; the slope broadcasts to it
            shapes.append(out_shape)
            continue
        drop = draw(st.integers(0, len(out_shape))) if draw(st.booleans()) else 0
        shp = [1 if draw(st.integers(0, 3)) == 0 else d for d in out_shape[drop:]]
        shapes.append(tuple(shp))
    seed = draw(st.integers(0, 2**32 - 1))
    edge_p = draw(st.sampled_from([0.0, 0.2, 0.6, 1.0]))
    rng = np.random.default_rng(seed)
    ins: list[np.ndarray | None] = []
    for k in range(n):
        ins.append(None if k in absent else _values(rng, types[k], shapes[k], edge_p))
    if op == "Clip":  # a NaN bound is not specified: replace it
        for k in range(1, n):
            x = ins[k]
            if x is not None and x.dtype.kind == "f":
                x[np.isnan(x)] = 0
    return op, types, ins, attrs, ref_attrs


@settings(PROFILE)
@given(cases())
def test_fuzz(case):
    run_case(*case)


# ---- sweep

def _sweep_cases() -> list[Any]:
    out = []
    for op, info in sorted(TABLE.items()):
        for t in sorted(info.input0_types):
            if t in NP_OF:
                out.append(pytest.param(op, t, id=f"{op}-{t}"))
    return out


@pytest.mark.parametrize(("op", "t0"), _sweep_cases())
def test_sweep(op, t0):
    """Every op x input-0 type x path on edge values: same-shape, scalar-broadcast and 2-D broadcast."""
    info = TABLE[op]
    rng = np.random.default_rng(t0 * 1000 + len(op))
    others = sorted(info.other_types) or [t0]
    for t1 in others if op in ("Pow", "CastLike", "Where") else [t0]:
        for shapes in ([(67,), (67,), (67,)], [(67,), (), ()], [(3, 1, 21), (1, 5, 21), (1, 1, 1)]):
            n = info.min_inputs if info.max_inputs > 3 else info.max_inputs
            n = max(n, 2) if info.max_inputs > 3 else n
            types = [t0] + [t1] * (n - 1)
            attrs: dict[str, Any] = {}
            ref_attrs: dict[str, Any] = {}
            shp = list(shapes[:n])
            if op == "Cast":
                for to in STORED:
                    ins = [_values(rng, t0, shp[0], 0.7)]
                    run_case(op, [t0], ins, {"to": to},
                             dict(bf16_in=t0 == BF16, to_bf16=to == BF16, to_dtype=NP_OF[to]))
                break
            if op == "CastLike":
                ref_attrs = dict(bf16_in=t0 == BF16, to_bf16=t1 == BF16, to_dtype=NP_OF[t1])
            if op in ref.TRANSCENDENTAL or op in ("IsNaN", "IsInf"):
                ref_attrs = dict(bf16_in=t0 == BF16)
            if op == "PRelu" and shp[0] != (67,):  # the slope must not widen X
                shp = [(3, 5, 21), shp[1]]
            if op == "Mod":
                attrs["fmod"] = 1 if t0 in (1, 10, 11) else int(rng.integers(0, 2))
            if op == "Clip":
                shp = [shp[0], (), ()]
            if op == "Where":
                types = [9, t1, t1]
            ins = [_values(rng, types[k], shp[k], 0.7) for k in range(n)]
            if op == "Clip":
                for x in ins[1:]:
                    if x.dtype.kind == "f":
                        x[np.isnan(x)] = 0
            run_case(op, types, ins, attrs, ref_attrs)


# ---- regressions found by the fuzzer


@pytest.mark.parametrize("path", PATHS)
def test_broadcast_plan_merges_only_contiguous_runs(path):
    """Found by the long fuzz run: om_plan_make compared a dimension's stride with the stride of the wrong
    (unmerged) neighbour, so after one merge a later dimension could be merged across a broadcast one; Add of
    (1,2,1,2,2,1) and (1,1,2,1,1,1) repeated the first half of the output."""
    rng = np.random.default_rng(1)
    b = rng.integers(0, 255, (1, 2, 1, 2, 2, 1)).astype(np.uint8)
    c = np.array([169, 3], np.uint8).reshape(1, 1, 2, 1, 1, 1)
    a = np.array(95, np.uint8).reshape((1,) * 6)
    np.testing.assert_array_equal(Node("Add", [2, 2], kernel_path=path).run(b, c), b + c)
    np.testing.assert_array_equal(
        Node("Max", [2, 2, 2], kernel_path=path).run(a, b, c), np.maximum(np.maximum(a, b), c)
    )
    x = rng.standard_normal((3, 1, 4, 5)).astype(np.float32)
    y = rng.standard_normal((1, 2, 1, 5)).astype(np.float32)
    np.testing.assert_array_equal(Node("Mul", [1, 1], kernel_path=path).run(x, y), x * y)


@pytest.mark.parametrize("path", PATHS)
def test_pow_odd_integer_exponent_above_2_52(path):
    """Found by the long fuzz run: exact Pow took odd integer exponents in [2^52, 2^53) for non-integers
    (Pow(-1, 7185079633674133) gave NaN, not -1)."""
    x = np.array([-1.0, -1.0, -2.0, -1.0])
    y = np.array([7185079633674133.0, 2.0**52, 2.0**52 + 1, 2.0**53 - 1])
    got = Node("Pow", [11, 11], kernel_path=path).run(x, y)
    np.testing.assert_array_equal(got, np.array([-1.0, 1.0, -np.inf, -1.0]))
