"""Shrink (node_shrink.c, docs/pooling-norm.md) through the execution provider and the rewrite path, bit
for bit against the order written in the docs, computed here in NumPy (binary32 arithmetic for every type
but double, f16 rounded once from it, integers toward zero and saturated), on every kernel path by direct
calls and on 1 and 2 threads. Stock ONNX Runtime: the same bits wherever its result is defined for every
type but double (it does the same binary32 operations; NaN payloads and integer results out of range are
left out); double within two binary32 roundings, since stock 1.31.1 computes double Shrink through binary32
where ONNX's definition (and we) keep binary64. Bad types and attributes fail with node and op named;
zero-size inputs.
"""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper

import onemodel_ep
from onemodel_ep.node import Node, NodeError
from tests.nodes.case_runs import direct_every_path_matches, every_way_matches
from tests.nodes.movement_cases import Case, model_of
from tests.nodes.one_node import one_node_model, quiet_session
from tests.nodes.test_movement_ops import _stock

VIAS = ("rewrite", "ep") if onemodel_ep.ep_supported() else ("rewrite",)
INTS = (np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64)
TYPES = (np.float32, np.float64, np.float16, *INTS)


def _to_int(r: np.ndarray, dt: type) -> np.ndarray:
    """r (binary32) toward zero, saturated to dt's range, NaN 0."""
    info = np.iinfo(dt)
    d = r.astype(np.float64)
    top = 2.0 ** (info.bits - 1) if info.min < 0 else 2.0 ** info.bits
    low = -top if info.min < 0 else 0.0
    nan, over, under = np.isnan(d), d >= top, d < low
    inner = np.trunc(np.where(nan | over | under, 0.0, d)).astype(dt)
    return np.where(over, dt(info.max), np.where(under, dt(info.min), np.where(nan, dt(0), inner))).astype(dt)


def shrink_want(x: np.ndarray, lambd: float, bias: float) -> np.ndarray:
    """The docs' order: v in binary32 (binary64 for double), one add or subtract, then the type's rounding."""
    w = np.float64 if x.dtype == np.float64 else np.float32
    v = x.astype(w)
    lam, b = w(np.float32(lambd)), w(np.float32(bias))
    with np.errstate(invalid="ignore", over="ignore"):
        r = np.where(v < -lam, v + b, np.where(v > lam, v - b, w(0))).astype(w)
        if x.dtype.kind == "f":
            y = r.astype(x.dtype)
            return np.where(np.isnan(y), np.array(np.nan, x.dtype), y)  # canonical quiet NaN
        return _to_int(r, x.dtype.type)


def values(shape: tuple[int, ...], dt: type, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if np.dtype(dt).kind == "f":
        x = (rng.standard_normal(shape) * np.exp2(rng.integers(-3, 4, shape))).astype(dt)
        if x.size >= 6:
            x.flat[:6] = [0.5, -0.5, np.inf, -np.inf, np.nan, -0.0]  # the edges, inf -/+ bias, NaN in
        return x
    info = np.iinfo(dt)
    x = rng.integers(info.min, info.max, shape, dtype=dt, endpoint=True)
    if x.size >= 8:
        edges = [0, 1, info.max, info.min, 2, 3, info.max - 1, info.min + 1]
        x.flat[:8] = np.array(edges, dtype=object).astype(dt)
    return x


# (shape, lambd, bias (None: default))
GEOM: list[tuple[tuple[int, ...], float | None, float | None]] = [
    ((4, 37), None, None),
    ((3, 5, 7), 1.5, 0.25),
    ((70000,), 2.0, -3.0),  # several chunks; a negative bias
    ((0, 4), 1.0, 1.0),
]


def shrink_cases(types: tuple[type, ...] = TYPES) -> list[Case]:
    out = []
    for ti, dt in enumerate(types):
        for gi, (shape, lambd, bias) in enumerate(GEOM):
            if np.dtype(dt).kind != "f" and lambd is not None:
                lambd, bias = lambd * 3, (bias or 0) * 5  # whole and half values on integers
            x = values(shape, dt, 10 * ti + gi)
            attrs = {k: v for k, v in (("lambd", lambd), ("bias", bias)) if v is not None}
            want = shrink_want(x, 0.5 if lambd is None else lambd, 0.0 if bias is None else bias)
            out.append(Case("Shrink", 9, [x], [False], attrs, [want]))
    return out


def test_shrink_ep_and_rewrite_match_the_docs_order() -> None:
    every_way_matches(shrink_cases(), 13)


def test_shrink_direct_every_path() -> None:
    direct_every_path_matches(shrink_cases())


def test_shrink_same_as_stock_where_stock_is_defined() -> None:
    """Stock runs the same binary32 (binary64) operations: equal bits, NaN results and integer results out of
    range (undefined behaviour in stock's C++ conversion) left out."""
    cases = shrink_cases()
    model, feeds = model_of(cases, 13)
    compared = 0
    for c, s in zip(cases, _stock(model, feeds), strict=True):
        x, want = c.inputs[0], c.want[0]
        if x.dtype == np.float64:  # stock: binary32 operations; ours binary64 (ONNX's)
            lam = float(np.float32(c.attrs.get("lambd", 0.5)))
            b = float(np.float32(c.attrs.get("bias", 0.0)))
            keep = np.isfinite(want) & (np.abs(np.abs(x) - lam) > 2.0**-22 * lam)  # away from the thresholds
            tol = 2.0**-23 * (np.abs(x[keep]) + abs(b)) * 2
            assert (np.abs(s[keep] - want[keep]) <= tol).all(), c.label()
            compared += int(keep.sum())
            continue
        if x.dtype.kind == "f":
            keep = ~np.isnan(want)
        else:
            lam = np.float32(c.attrs.get("lambd", 0.5))
            b = np.float32(c.attrs.get("bias", 0.0))
            v = x.astype(np.float32)
            r = np.where(v < -lam, v + b, np.where(v > lam, v - b, np.float32(0))).astype(np.float64)
            info = np.iinfo(x.dtype)
            keep = (r >= float(info.min)) & (r < float(info.max))  # r within the type: defined
        assert (s[keep].tobytes() == want[keep].tobytes()), c.label()
        compared += int(keep.sum())
    assert compared > 100000


def test_shrink_integer_saturation_and_nan_in() -> None:
    x = np.array([-128, -100, 127, 100, 0], np.int8)
    got = Node("Shrink", [TensorProto.INT8], onnx_opset=9, attributes={"lambd": 1.0, "bias": 50.0},
               name="m").run_outputs(x)[0]
    assert got.tolist() == [-78, -50, 77, 50, 0]
    got = Node("Shrink", [TensorProto.INT8], onnx_opset=9, attributes={"lambd": 1.0, "bias": -50.0},
               name="m").run_outputs(x)[0]
    assert got.tolist() == [-128, -128, 127, 127, 0]  # -178, -150, 177 and 150 saturate
    f = np.array([np.nan, 1.0, -1.0], np.float32)
    got = Node("Shrink", [TensorProto.FLOAT], onnx_opset=9, attributes={"bias": np.nan},
               name="m").run_outputs(f)[0]
    assert got.view(np.uint32).tolist() == [0, 0x7FC00000, 0x7FC00000]  # NaN in: 0; NaN out: canonical


@pytest.mark.parametrize("t", (TensorProto.BOOL, TensorProto.STRING))
def test_shrink_unsupported_type(t: int) -> None:
    with pytest.raises(NodeError) as e:
        Node("Shrink", [t], onnx_opset=9, name="bad")
    assert "'bad'" in str(e.value) and "Shrink" in str(e.value)


@pytest.mark.parametrize("via", VIAS)
def test_shrink_integer_lambd_fails_at_creation(via: str) -> None:
    """lambd given as an integer attribute (not ONNX's float): a clear error naming node and attribute."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    node = helper.make_node("Shrink", ["x"], ["y"], name="badl")
    node.attribute.append(helper.make_attribute("lambd", 2))
    model = one_node_model(node, [x], [y], 13)
    with pytest.raises(Exception, match="lambd") as e:
        sess = quiet_session(model, via)
        sess.run(None, {"x": np.ones((2, 3), np.float32)})
    assert "badl" in str(e.value) or "Shrink" in str(e.value)
