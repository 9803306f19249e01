"""MaxPool and AveragePool (node_window_pool.c over pool/window_pool.c): docs/pooling-norm.md's contract,
every way in, path and thread count alike, against tests/reference/reference_window_pool.py (written from
the doc) bit for bit, and against stock ORT where it has a kernel: MaxPool's Y and Indices equal without NaN
and signed zeros, AveragePool within 1e-6 of the window's mean magnitude (f16 2e-3)."""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from onemodel_ep.node import Node, NodeError
from tests.nodes import node_sessions as S
from tests.reference import reference_window_pool as P

F16, F32, F64 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)
I8, U8 = np.dtype(np.int8), np.dtype(np.uint8)

# (X shape, attributes): 1-, 2- and 3-D windows, strides, pads, every auto_pad, dilations, ceil_mode
CASES: list[tuple[tuple[int, ...], dict[str, Any]]] = [
    ((2, 3, 9, 9), {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]}),  # ResNet's stem pool
    ((1, 2, 7, 8), {"kernel_shape": [2, 3]}),
    ((1, 2, 7, 8), {"kernel_shape": [3, 2], "strides": [2, 3], "ceil_mode": 1}),
    ((1, 2, 6, 6), {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [0, 1, 2, 0], "ceil_mode": 1}),
    ((1, 2, 7, 6), {"kernel_shape": [2, 2], "auto_pad": "SAME_UPPER", "strides": [2, 2]}),
    ((1, 2, 7, 6), {"kernel_shape": [3, 2], "auto_pad": "SAME_LOWER"}),
    ((1, 2, 7, 6), {"kernel_shape": [3, 3], "auto_pad": "VALID", "strides": [1, 2]}),
    ((1, 2, 8, 9), {"kernel_shape": [2, 3], "dilations": [2, 2], "pads": [1, 1, 1, 2]}),
    ((2, 3, 17), {"kernel_shape": [4], "strides": [3], "pads": [2, 3], "ceil_mode": 1}),  # 1-D
    ((1, 2, 4, 5, 6), {"kernel_shape": [2, 3, 2], "strides": [2, 1, 2], "pads": [1, 0, 1, 0, 1, 1]}),  # 3-D
    ((1, 1, 3, 300), {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]}),  # more than one block of 256 columns
    ((0, 3, 5, 5), {"kernel_shape": [2, 2]}),  # zero batch
    ((1, 2, 0, 3), {"kernel_shape": [2, 2], "pads": [1, 1, 1, 1]}),  # zero spatial: windows without real taps
]
IDS = [f"{s}-{'-'.join(f'{k}{v}' for k, v in a.items())}" for s, a in CASES]


def _model(op: str, dtype: np.dtype, shape: tuple[int, ...], attrs: dict[str, Any], opset: int = 19,
           indices: bool = False) -> onnx.ModelProto:
    elem = int(helper.np_dtype_to_tensor_dtype(dtype))
    outs = ["y", "i"] if indices else ["y"]
    node = helper.make_node(op, ["x"], outs, name="pool", **attrs)
    vis = [helper.make_tensor_value_info("y", elem, None)]
    if indices:
        vis.append(helper.make_tensor_value_info("i", TensorProto.INT64, None))
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", elem, list(shape))], vis)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=10)


def _data(shape: tuple[int, ...], dtype: np.dtype, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(info.min, int(info.max) + 1, size=shape).astype(dtype)
    return (rng.standard_normal(shape) * 4.0).astype(dtype)


def _check_every_way(op: str, x: np.ndarray, attrs: dict[str, Any], want: list[np.ndarray],
                     opset: int = 19) -> None:
    model = _model(op, x.dtype, x.shape, attrs, opset, indices=len(want) > 1)
    for where, got in S.runs(model, {"x": x}, op).items():
        for k, (g, w) in enumerate(zip(got, want, strict=True)):
            S.assert_bits(f"{op} output {k} {where} vs the reference", g, w)


@pytest.mark.parametrize(("shape", "attrs"), CASES, ids=IDS)
def test_max_pool_f32_with_indices_every_way_and_stock(shape: tuple[int, ...], attrs: dict[str, Any]) -> None:
    x = _data(shape, F32, 3)
    want = list(P.max_pool(x, attrs))
    _check_every_way("MaxPool", x, attrs, want)
    if shape[0] and all(shape[2:]):  # stock ORT refuses a zero spatial dimension
        s = S.stock(_model("MaxPool", F32, shape, attrs, indices=True), {"x": x})
        S.assert_bits("MaxPool Y vs stock ORT", want[0], s[0])
        S.assert_bits("MaxPool Indices vs stock ORT", want[1], s[1])


@pytest.mark.parametrize(("shape", "attrs"), CASES, ids=IDS)
def test_average_pool_f32_every_way_and_stock(shape: tuple[int, ...], attrs: dict[str, Any]) -> None:
    for cip in (0, 1):
        a = {**attrs, "count_include_pad": cip}
        x = _data(shape, F32, 5 + cip)
        want = P.average_pool(x, a)
        _check_every_way("AveragePool", x, a, [want])
        if shape[0] and all(shape[2:]):
            s = S.stock(_model("AveragePool", F32, shape, a), {"x": x})[0]
            scale = np.abs(P.average_pool(np.abs(x).astype(F64), {**a, "count_include_pad": 0}))
            err = np.abs(want.astype(F64) - s)
            assert np.all(err <= 1e-6 * scale + 1e-30), (cip, np.max(err))


@pytest.mark.parametrize("dtype", [F16, F64, I8, U8], ids=str)
@pytest.mark.parametrize("case", [0, 3, 8, 9], ids=[IDS[i] for i in (0, 3, 8, 9)])
def test_max_pool_other_types(dtype: np.dtype, case: int) -> None:
    shape, attrs = CASES[case]
    x = _data(shape, dtype, 7)
    want = list(P.max_pool(x, {**attrs, "storage_order": 1}))
    _check_every_way("MaxPool", x, {**attrs, "storage_order": 1}, want)
    s = S.stock(_model("MaxPool", dtype, shape, {**attrs, "storage_order": 1}, indices=True), {"x": x})
    S.assert_bits("MaxPool Y vs stock ORT", want[0], s[0])
    S.assert_bits("MaxPool Indices vs stock ORT", want[1], s[1])


@pytest.mark.parametrize("dtype", [F16, F64], ids=str)
@pytest.mark.parametrize("case", [0, 3, 7, 9], ids=[IDS[i] for i in (0, 3, 7, 9)])
def test_average_pool_f16_f64(dtype: np.dtype, case: int) -> None:
    shape, attrs = CASES[case]
    a = {**attrs, "count_include_pad": 1}
    x = _data(shape, dtype, 9)
    want = P.average_pool(x, a)
    _check_every_way("AveragePool", x, a, [want])
    if dtype == F16:  # stock ORT 1.31.1 has no f64 AveragePool
        s = S.stock(_model("AveragePool", dtype, shape, a), {"x": x})[0]
        scale = np.abs(P.average_pool(np.abs(x).astype(F64), {**a, "count_include_pad": 0}))
        assert np.all(np.abs(want.astype(F64) - s.astype(F64)) <= 2e-3 * scale + 1e-7)


def test_max_pool_nan_and_signed_zero_against_stock() -> None:
    """Ours: NaN wherever it stands (its index), +0 above -0. Stock ORT 1.31.1: NaN only when it comes
    first, and the first of two zeros (the doc states both)."""
    x = np.array([[[[np.nan, 1, 2, 3], [1, 2, 3, np.nan], [-0.0, 0.0, -0.0, -0.0], [0.0, -0.0, 5, 1]]]], F32)
    attrs = {"kernel_shape": [1, 4]}
    want = P.max_pool(x, attrs)
    assert want[1].ravel().tolist() == [0, 7, 9, 14]
    nan_y = np.float32(np.nan)
    y = want[0].ravel()
    assert np.isnan(y[:2]).all() and y[2] == 0 and not np.signbit(y[2])
    assert want[0].view(np.uint32).ravel()[0] == nan_y.view(np.uint32)
    _check_every_way("MaxPool", x, attrs, list(want))
    s = S.stock(_model("MaxPool", F32, x.shape, attrs, indices=True), {"x": x})
    assert np.isnan(s[0].ravel()[0]) and s[0].ravel()[1] == 3 and np.signbit(s[0].ravel()[2])
    assert s[1].ravel().tolist() == [0, 6, 8, 14]


def test_max_pool_without_indices_and_ints_need_opset_12() -> None:
    x = _data((1, 2, 6, 6), I8, 1)
    attrs = {"kernel_shape": [3, 3], "strides": [2, 2]}
    _check_every_way("MaxPool", x, attrs, [P.max_pool(x, attrs)[0]], opset=12)
    with pytest.raises(NodeError, match="needs opset 12"):
        Node("MaxPool", [TensorProto.INT8], onnx_opset=11, attributes=attrs)


def _node(op: str, attrs: dict[str, Any], dtype: int = TensorProto.FLOAT) -> Node:
    return Node(op, [dtype], onnx_opset=19, attributes=attrs, name="p")


@pytest.mark.parametrize(("op", "attrs", "msg"), [
    ("MaxPool", {}, "kernel_shape is required"),
    ("MaxPool", {"kernel_shape": [2, 2], "pads": [2, 0, 0, 0]}, "must both be smaller than kernel_shape"),
    ("AveragePool", {"kernel_shape": [2, 2], "strides": [1]}, "strides has 1 entries for 2 spatial axes"),
    ("MaxPool", {"kernel_shape": [2, 2], "storage_order": 2}, "storage_order must be 0 or 1"),
    ("AveragePool", {"kernel_shape": [2], "ceil_mode": 3}, "ceil_mode must be 0 or 1"),
    ("MaxPool", {"kernel_shape": [2, 0]}, "kernel_shape must be >= 1"),
    ("MaxPool", {"kernel_shape": [2, 2], "dilations": [2, 1], "auto_pad": "SAME_UPPER"}, "is not served"),
    ("MaxPool", {"kernel_shape": [2, 2, 2, 2]}, "1 to 3 spatial axes"),
    ("MaxPool", {"kernel_shape": [5000, 5000]}, "2\\^24"),
])
def test_bad_attributes_fail_at_creation(op: str, attrs: dict[str, Any], msg: str) -> None:
    with pytest.raises(NodeError, match=f"node 'p' \\(op {op}\\).*{msg}"):
        _node(op, attrs)


def test_average_pool_has_no_integer_kernel() -> None:
    with pytest.raises(NodeError, match="AveragePool"):
        _node("AveragePool", {"kernel_shape": [2]}, TensorProto.INT8)


@pytest.mark.parametrize("via", S.VIAS)
def test_bad_shapes_name_node_op_and_problem(via: str) -> None:
    # wrong rank: at session creation (the graph declares it; on the EP path ORT's shape inference finds it)
    with pytest.raises(Exception, match=r"pool.*MaxPool.*(rank 3|kernel_shape has incorrect size)"):
        S.session(_model("MaxPool", F32, (1, 2, 5), {"kernel_shape": [2, 2]}), via, None, 1)
    # a kernel longer than the padded input: at the run (the shape is known only then)
    model = _model("AveragePool", F32, ("n", "c", "h", "w"), {"kernel_shape": [3, 3]})  # type: ignore[arg-type]
    sess = S.session(model, via, None, 1)
    with pytest.raises(Exception, match=r"AveragePool.*kernel spans 3.*padded input's 2"):
        sess.run(None, {"x": np.zeros((1, 1, 2, 4), F32)})


def test_same_dilated_stays_with_stock_and_is_reported() -> None:
    model = _model("MaxPool", F32, (1, 1, 6, 6), {"kernel_shape": [2, 2], "dilations": [2, 2],
                                                  "auto_pad": "SAME_UPPER"})
    sess = S.session(model, "rewrite", None, 1)
    assert not sess.report.moved
    assert "is not served" in sess.report.summary()


def test_same_bits_every_thread_count_large_plane() -> None:
    """One plane of 1x1x200x300, many chunks: one and two threads, both ways in, give the same bits."""
    x = _data((1, 1, 200, 300), F32, 11)
    for op, attrs in (("MaxPool", {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]}),
                      ("AveragePool", {"kernel_shape": [5, 5], "count_include_pad": 1,
                                       "pads": [2, 2, 2, 2]})):
        model = _model(op, F32, x.shape, attrs)
        outs = [S.session(model, via, None, t).run(None, {"x": x})[0] for via in S.VIAS for t in (1, 2)]
        for o in outs[1:]:
            S.assert_bits(f"{op} thread counts", o, outs[0])

