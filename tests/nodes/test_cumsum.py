"""CumSum (node_cumsum.c, docs/data-movement.md) through the execution provider and the rewrite path against
the contract computed here in NumPy (a running sum in the element type in index order, y_0 a copy of x_0; the
exclusive form +0, then +0 + x_0, ...; reverse from the end; integers wrap), bit for bit, and against stock
ONNX Runtime bit for bit where it serves the type: every type served, axis constant or fed (int32, int64,
scalar or one element, negative), exclusive and reverse, -0.0, NaN and infinities, overflow, zero-size
inputs, more than one parallel run on 1 and 2 threads; every kernel path by direct calls. Bad inputs fail
with node and op named.
"""

from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

import onemodel_ep
from onemodel_ep.node import Node, NodeError
from tests.nodes.case_runs import one_way_matches
from tests.nodes.movement_cases import Case, model_of, onnx_type
from tests.nodes.test_movement_ops import _same, _stock

VIAS = ("rewrite", "ep") if onemodel_ep.ep_supported() else ("rewrite",)
TYPES = tuple(np.dtype(t) for t in (np.float32, np.float64, np.int32, np.int64, np.uint32, np.uint64))


def cumsum_want(x: np.ndarray, axis: int, exclusive: bool, reverse: bool) -> np.ndarray:
    """The contract: numpy's add.accumulate is the sequential sum in the element type, y_0 a copy of x_0."""
    v = np.moveaxis(x, axis, -1)
    if reverse:
        v = v[..., ::-1]
    with np.errstate(over="ignore", invalid="ignore"):
        if exclusive:  # +0, then +0 + x_0 (an addition: -0.0 becomes +0.0), ...
            shifted = np.concatenate([np.zeros_like(v[..., :1]), v[..., :-1]], axis=-1)
            y = np.add.accumulate(shifted, axis=-1, dtype=x.dtype) if v.shape[-1] else v.copy()
        else:
            y = np.add.accumulate(v, axis=-1, dtype=x.dtype) if v.shape[-1] else v.copy()
    if reverse:
        y = y[..., ::-1]
    return np.ascontiguousarray(np.moveaxis(y, -1, axis))


def data(shape: tuple[int, ...], t: np.dtype, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if t.kind == "f":
        x = (rng.standard_normal(shape) * np.exp2(rng.integers(-20, 20, shape))).astype(t)
        if x.size > 8:
            flat = x.reshape(-1)
            flat[:4] = [-0.0, np.inf, 1e30, -1e30]
            flat[-1] = np.nan
        return x
    info = np.iinfo(t)
    return rng.integers(info.min, info.max, shape, dtype=t, endpoint=True)  # sums overflow: they wrap


# (shape, axis, exclusive, reverse, axis type, axis const)
BASE: list[tuple[tuple[int, ...], int, int | None, int | None, type, bool]] = [
    ((5, 7), 1, None, None, np.int64, True),
    ((5, 7), 0, 1, None, np.int32, False),
    ((2, 3, 4), -1, None, 1, np.int64, False),
    ((2, 3, 4), 1, 1, 1, np.int32, True),
    ((4, 2000), 0, None, None, np.int64, True),  # inner of two runs
    ((3, 1), 1, 1, None, np.int64, True),
    ((0, 3), 1, None, None, np.int64, True),
    ((3, 0), 1, 1, 1, np.int64, False),
    ((6,), 0, 1, 1, np.int64, True),
]


def cumsum_cases() -> list[Case]:
    out = []
    for i, (shape, axis, excl, rev, at, const) in enumerate(BASE):
        for j, t in enumerate(TYPES if i < 2 else (TYPES[i % 6], TYPES[(i + 3) % 6])):
            x = data(shape, t, 10 * i + j)
            a = np.array(axis, at).reshape((1,) if (i + j) % 3 == 2 else ())
            attrs = {k: v for k, v in (("exclusive", excl), ("reverse", rev)) if v is not None}
            want = cumsum_want(x, axis, bool(excl), bool(rev))
            out.append(Case("CumSum", 14, [x, a], [False, const], attrs, [want]))
    return out


def test_cumsum_contract_is_stock_orts_bit_for_bit() -> None:
    compared = set()
    for c in cumsum_cases():
        model, feeds = model_of([c], 14)
        try:
            got = _stock(model, feeds)[0]
        except Exception as e:  # noqa: BLE001 - a type stock ORT has no CumSum kernel for
            assert "NOT_IMPLEMENTED" in str(e) or "Could not find an implementation" in str(e), str(e)
            continue
        _same(f"stock ORT vs the contract: {c.label()}", got, c.want[0])
        compared.add(c.inputs[0].dtype)
    assert {np.dtype(np.float32), np.dtype(np.float64), np.dtype(np.int32), np.dtype(np.int64)} <= compared


@pytest.mark.parametrize("via", VIAS)
@pytest.mark.parametrize("threads", (1, 2))
def test_cumsum_ep_and_rewrite_match_contract(via: str, threads: int) -> None:
    one_way_matches(cumsum_cases(), 14, via, threads)


def test_cumsum_direct_every_path() -> None:
    for c in cumsum_cases():
        types = [onnx_type(x.dtype) for x in c.inputs]
        for path in onemodel_ep.kernel_paths():
            node = Node("CumSum", types, onnx_opset=14, attributes=c.attrs, kernel_path=path, name="m")
            _same(f"{c.label()} path {path}", node.run_outputs(*c.inputs)[0], c.want[0])


def test_cumsum_first_element_is_a_copy() -> None:
    x = np.array([-0.0, -0.0, 1.0], np.float32)
    got = Node("CumSum", [TensorProto.FLOAT, TensorProto.INT64], onnx_opset=14, name="m").run_outputs(
        x, np.array(0, np.int64))[0]
    assert got.view(np.uint32).tolist() == [0x80000000, 0x80000000, 0x3F800000]


F32, I64 = TensorProto.FLOAT, TensorProto.INT64


@pytest.mark.parametrize(
    "axis,msg",
    [
        (np.array(2, np.int64), "axis 2 is out of range"),
        (np.array([0, 1], np.int64), "input 1 \\(axis\\)"),
        (np.zeros((1, 1), np.int64), "input 1 \\(axis\\)"),
    ],
)
def test_cumsum_run_errors(axis: np.ndarray, msg: str) -> None:
    node = Node("CumSum", [F32, I64], onnx_opset=14, name="bad")
    with pytest.raises(NodeError, match=msg) as e:
        node.run_outputs(np.zeros((2, 3), np.float32), axis)
    assert "'bad'" in str(e.value) and "CumSum" in str(e.value)


@pytest.mark.parametrize(
    "types,opset,msg",
    [([F32, I64], 10, "opset"), ([TensorProto.FLOAT16, I64], 14, "type"),
     ([TensorProto.INT8, I64], 14, "type"), ([F32, F32], 14, "type"), ([F32], 14, "input")],
)
def test_cumsum_creation_errors(types: list[int], opset: int, msg: str) -> None:
    with pytest.raises(NodeError, match=msg) as e:
        Node("CumSum", types, onnx_opset=opset, name="bad")
    assert "'bad'" in str(e.value) and "CumSum" in str(e.value)


@pytest.mark.parametrize("via", VIAS)
def test_cumsum_constant_axis_out_of_range_is_refused_at_creation(via: str) -> None:
    x = helper.make_tensor_value_info("x", F32, [2, 3])
    y = helper.make_tensor_value_info("y", F32, None)
    axis = helper.make_tensor("a", I64, [], [2])
    node = helper.make_node("CumSum", ["x", "a"], ["y"], name="far")
    model = helper.make_model(helper.make_graph([node], "g", [x], [y], initializer=[axis]), ir_version=8,
                              opset_imports=[helper.make_opsetid("", 14)])
    so = ort.SessionOptions()
    so.log_severity_level = 3
    with pytest.raises(Exception, match="far.*CumSum.*axis 2 is out of range"):
        onemodel_ep.InferenceSession(model, sess_options=so, via=via)
