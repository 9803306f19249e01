"""ArgMax and ArgMin (node_argminmax.c, kernels/argminmax.c) against the contract in docs/shape-ops.md,
computed with NumPy (tests/reference/argminmax_reference.py), and against stock ONNX Runtime where stock has a
kernel and the data hold no NaN: every axis (negative too), keepdims 0 and 1, select_last_index 0 and 1,
ties (few distinct values, -0.0 beside +0.0), NaNs anywhere (first or last NaN wins), every numeric type,
contiguous and strided axes (inner blocks wider than the kernel's 256), outputs of many parallel chunks on 1
and 2 threads, every kernel path, both ways in and the compiled dispatch; bad attributes and axes give errors
naming node, op and problem.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import onnx
import pytest

from onemodel_ep.node import Node, NodeError
from tests.nodes.case_runs import (
    VIAS,
    compiled_dispatch_matches,
    direct_every_path_matches,
    every_way_matches,
)
from tests.nodes.movement_cases import BF16, Case, model_of
from tests.nodes.test_movement_ops import _ours, _same, _stock
from tests.reference.argminmax_reference import argminmax_reference

OPS = ("ArgMax", "ArgMin")
NUMERIC = tuple(np.dtype(t) for t in (np.float32, np.float64, np.float16, np.int8, np.uint8, np.int16,
                                      np.uint16, np.int32, np.uint32, np.int64, np.uint64))
# stock ORT's ArgMax/ArgMin kernels
STOCK = {np.dtype(t) for t in (np.float32, np.float64, np.int8, np.uint8, np.int32, np.int64)}


def data(shape: tuple[int, ...], dt: np.dtype, seed: int, nans: bool = False) -> np.ndarray:
    """Few distinct values (ties everywhere); floats with -0.0 beside +0.0 and, with nans, NaNs of either
    sign."""
    rng = np.random.default_rng(seed)
    v = rng.integers(-3, 4, shape)
    if dt.kind == "u":
        v = v + 3
    if dt.kind != "f" and dt != BF16:
        return v.astype(dt)
    x = v.astype(np.float32)
    x[rng.random(shape) < 0.1] = -0.0
    if nans:
        x[rng.random(shape) < 0.05] = np.nan
        x[rng.random(shape) < 0.02] = -np.nan
    return x.astype(dt)


SHAPES = [((3, 4, 5), 0), ((3, 4, 5), 1), ((3, 4, 5), 2), ((3, 4, 5), -1), ((3, 4, 5), -3), ((7,), 0),
          ((2, 300, 3), 0), ((1, 1000), -1), ((4, 1), 1)]


def cases(op: str, opset: int, types: tuple[np.dtype, ...], nans: bool) -> list[Case]:
    out = []
    k = 0
    for shape, axis in SHAPES:
        for dt in types:
            for keepdims in (0, 1):
                last = k % 2 if opset >= 12 else 0
                x = data(shape, dt, k, nans and (dt.kind == "f" or dt == BF16))
                attrs = {"axis": axis, "keepdims": keepdims}
                if opset >= 12:
                    attrs["select_last_index"] = last
                want = argminmax_reference(x, op, axis, keepdims, last)
                out.append(Case(op, opset, [x], [False], attrs, [want]))
                k += 1
    return out


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("opset", (11, 12, 13))
def test_contract_is_stock_orts_without_nan(op: str, opset: int) -> None:
    cs = cases(op, opset, tuple(STOCK), nans=False)
    model, feeds = model_of(cs, opset)
    for c, s in zip(cs, _stock(model, feeds)):
        _same(f"stock ORT vs the contract: {c.label()}", s, c.want[0])


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("opset", (11, 13))
@pytest.mark.parametrize("nans", (False, True))
def test_ep_and_rewrite_match_contract(op: str, opset: int, nans: bool) -> None:
    every_way_matches(cases(op, opset, NUMERIC, nans), opset)


@pytest.mark.parametrize("op", OPS)
def test_direct_every_path_bfloat16_included(op: str) -> None:
    direct_every_path_matches(cases(op, 13, NUMERIC + (BF16,), nans=True))


@pytest.mark.skipif("ep" not in VIAS, reason="ORT without plugin execution providers")
def test_compiled_dispatch_matches() -> None:
    compiled_dispatch_matches(cases("ArgMax", 13, NUMERIC, nans=True), 13)


@pytest.mark.parametrize("via", VIAS)
@pytest.mark.parametrize("shape,axis", [((8, 128, 3001), -1), ((4, 70000), 1), ((3, 70000), 0),
                                        ((40, 3, 700), 1)])
def test_large_shapes_on_two_threads(via: str, shape: tuple[int, ...], axis: int) -> None:
    """Outputs over many chunks, axes longer than a chunk, inner blocks wider than 256, NaNs and ties."""
    x = data(shape, np.dtype(np.float32), 3, nans=True)
    cs = [Case(op, 13, [x], [False], {"axis": axis, "keepdims": 0, "select_last_index": last},
               [argminmax_reference(x, op, axis, 0, last)]) for op in OPS for last in (0, 1)]
    model, feeds = model_of(cs, 13)
    for threads in (1, 2):
        for c, g in zip(cs, _ours(model, via, threads).run(None, feeds)):
            _same(f"{via} threads {threads}: {c.label()}", g, c.want[0])


def test_nan_rule_examples() -> None:
    """The contract's NaN rule on a row: the first NaN (or the last, select_last_index 1) whatever the
    values."""
    x = np.array([1.0, np.nan, 5.0, -np.nan, -7.0], np.float32)
    for op in OPS:
        for last, want in ((0, 1), (1, 3)):
            got = Node(op, [onnx.TensorProto.FLOAT], onnx_opset=13,
                       attributes={"select_last_index": last, "keepdims": 0}).run_outputs(x)[0]
            assert int(got) == want, (op, last, got)
    z = np.array([-0.0, 0.0, -0.0], np.float32)
    for op in OPS:
        for last, want in ((0, 0), (1, 2)):
            got = Node(op, [onnx.TensorProto.FLOAT], onnx_opset=13,
                       attributes={"select_last_index": last, "keepdims": 0}).run_outputs(z)[0]
            assert int(got) == want, (op, last, "signed zeros tie")
    h = np.array([1.0, 3.0, 3.0, 2.0], ml_dtypes.bfloat16)
    node = Node("ArgMax", [onnx.TensorProto.BFLOAT16], onnx_opset=13, attributes={"keepdims": 0})
    got = node.run_outputs(h)[0]
    assert int(got) == 1


F32 = onnx.TensorProto.FLOAT


@pytest.mark.parametrize(
    "types,opset,attrs,msg",
    [
        ([F32], 11, {"select_last_index": 1}, "select_last_index is defined from opset 12"),
        ([F32], 13, {"keepdims": 2}, "keepdims and select_last_index must be 0 or 1"),
        ([onnx.TensorProto.BFLOAT16], 12, {}, "bfloat16 needs opset 13"),
        ([onnx.TensorProto.BOOL], 13, {}, "unsupported element type bool"),
    ],
)
def test_creation_errors(types: list[int], opset: int, attrs: dict[str, object], msg: str) -> None:
    for op in OPS:
        with pytest.raises(NodeError, match=msg) as e:
            Node(op, types, onnx_opset=opset, attributes=attrs, name="bad")
        assert "'bad'" in str(e.value) and op in str(e.value)


@pytest.mark.parametrize("shape,axis,msg", [((2, 3), 2, "axis 2 is out of range for rank 2"),
                                            ((2, 0), 1, "axis 1 has no element to choose from"),
                                            ((), 0, "out of range for rank 0")])
def test_run_errors(shape: tuple[int, ...], axis: int, msg: str) -> None:
    for op in OPS:
        node = Node(op, [F32], onnx_opset=13, attributes={"axis": axis}, name="bad")
        with pytest.raises(NodeError, match=msg) as e:
            node.run_outputs(np.zeros(shape, np.float32))
        assert "'bad'" in str(e.value) and op in str(e.value)
