"""Hardmax (node_hardmax.c; docs/shape-ops.md, "Hardmax"): 1 at the first greatest element of each row, 0
elsewhere; rows along one axis from opset 13, the input coerced to 2-D at axis before. Every way in (EP and
rewrite), kernel path and 1 or 2 threads give the same bits, those of a NumPy reference written from the doc's
rule, and stock ORT's bits exactly for float without NaN (a comparison, no rounding: no tolerance). With a NaN
in a row stock ORT differs (docs/shape-ops.md); ours is NumPy's argmax."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from onemodel_ep.node import Node, NodeError
from tests.nodes import node_sessions as S


def reference(x: np.ndarray, axis: int, opset: int) -> np.ndarray:
    """The doc's rule: per row, k = 0; for j = 1 .. n-1, while x[k] is not NaN, k = j when x[k] < x[j] or x[j]
    is NaN; y = 1 at k, 0 elsewhere."""
    rank = x.ndim
    a = axis + rank if axis < 0 else axis
    if opset < 13:
        rows = x.reshape(int(np.prod(x.shape[:a], dtype=np.int64)), -1)[:, :, None]
    else:
        rows = x.reshape(int(np.prod(x.shape[:a], dtype=np.int64)), x.shape[a], -1)
    y = np.zeros(rows.shape, x.dtype)
    for o in range(rows.shape[0]):
        for i in range(rows.shape[2]):
            k = 0
            for j in range(1, rows.shape[1]):
                if np.isnan(rows[o, k, i]):
                    break
                if rows[o, k, i] < rows[o, j, i] or np.isnan(rows[o, j, i]):
                    k = j
            y[o, k, i] = 1
    return y.reshape(x.shape)


def _model(x: np.ndarray, attrs: dict[str, int], opset: int) -> onnx.ModelProto:
    t = helper.np_dtype_to_tensor_dtype(x.dtype)
    node = helper.make_node("Hardmax", ["x"], ["y"], name="hm", **attrs)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", t, list(x.shape))],
                              [helper.make_tensor_value_info("y", t, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=10)


def _input(shape: tuple[int, ...], dtype: type, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = rng.integers(-3, 4, shape).astype(dtype)  # small integers: many ties in a row
    return x


CASES = [((3, 4, 5), {}, 13), ((3, 4, 5), {"axis": 0}, 13), ((3, 4, 5), {"axis": 1}, 13),
         ((3, 4, 5), {"axis": -2}, 14), ((3, 4, 5), {}, 11), ((3, 4, 5), {"axis": 0}, 11),
         ((3, 4, 5), {"axis": 2}, 1), ((2, 3, 4, 5), {"axis": -1}, 13), ((7,), {}, 13), ((2, 40000), {}, 13)]


@pytest.mark.parametrize(("shape", "attrs", "opset"), CASES, ids=[f"{c[0]}-{c[1]}-op{c[2]}" for c in CASES])
def test_same_bits_every_way_as_the_reference_and_stock(shape: tuple[int, ...], attrs: dict[str, int],
                                                         opset: int) -> None:
    x = _input(shape, np.float32, seed=len(shape) * 7 + opset)
    model = _model(x, attrs, opset)
    runs = S.runs(model, {"x": x}, "Hardmax")
    want = reference(x, attrs.get("axis", 1 if opset < 13 else -1), opset)
    for where, (got,) in runs.items():
        S.assert_exact_bits(f"Hardmax {where}", got, want)
    (stock,) = S.stock(model, {"x": x})
    S.assert_exact_bits("Hardmax vs stock ORT", want, stock)


@pytest.mark.parametrize("dtype", [np.float16, np.float64])
def test_other_float_types(dtype: type) -> None:
    """Stock ORT has Hardmax for float only: these compare with the reference alone."""
    x = _input((4, 6), dtype, seed=3)
    for opset in (11, 13):
        for where, (got,) in S.runs(_model(x, {}, opset), {"x": x}, "Hardmax").items():
            S.assert_exact_bits(f"Hardmax {dtype.__name__} opset {opset} {where}", got,
                                reference(x, 1 if opset < 13 else -1, opset))


def test_signed_zeros_infinities_and_nan_follow_the_rule() -> None:
    x = np.array([[-0.0, 0.0, -1.0], [np.nan, 5.0, 1.0], [2.0, np.nan, 3.0], [-np.inf, -np.inf, -5.0],
                  [np.inf, np.inf, 1.0], [np.nan, np.nan, np.nan]], np.float32)
    want = reference(x, -1, 13)
    assert want[0].tolist() == [1, 0, 0] and want[1].tolist() == [1, 0, 0] and want[2].tolist() == [0, 1, 0]
    assert (np.argmax(x, axis=-1) == np.argmax(want, axis=-1)).all()  # NumPy's argmax, ONNX's reference
    for where, (got,) in S.runs(_model(x, {}, 13), {"x": x}, "Hardmax").items():
        S.assert_exact_bits(f"Hardmax {where}", got, want)


def test_zero_size() -> None:
    for shape, axis in (((0, 4), -1), ((3, 0), -1), ((3, 0, 2), 0)):
        x = np.zeros(shape, np.float32)
        for where, (got,) in S.runs(_model(x, {"axis": axis}, 13), {"x": x}, "Hardmax").items():
            assert got.shape == shape, where


def test_bad_axis_is_named() -> None:
    node = Node("Hardmax", [int(TensorProto.FLOAT)], onnx_opset=13, attributes={"axis": 3}, name="hm")
    with pytest.raises(NodeError, match=r"'hm'.*Hardmax.*axis 3 is out of range"):
        node.run_outputs(np.zeros((2, 3), np.float32))
    with pytest.raises(NodeError, match=r"Hardmax.*unsupported element type int32"):
        Node("Hardmax", [int(TensorProto.INT32)], onnx_opset=13)
