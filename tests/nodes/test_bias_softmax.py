"""com.microsoft BiasSoftmax: Softmax(data + bias) along data's rows coerced to 2-D at `axis`, the bias
broadcast by is_inner_broadcast's two layouts (docs/transformer-ops.md).

Every case must give the bits of tests/reference/reference_transformer_ops.py's bias_softmax (written from the
docs); the representative cases run both ways in on every kernel path at one thread and the default path at
two. Stock ORT 1.31.1 has no CPU kernel for BiasSoftmax (checked below): ours is compared with stock's Add
then Softmax (opset 11, the same axis) within 1e-6 absolute plus 1e-5 relative: stock's Softmax takes MLAS's
exp (a few ulp from the correctly rounded one) and sums in another order, so each output differs by some ulp.
"""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from onemodel_ep.node import Node, NodeError
from tests.nodes.node_sessions import VIAS, assert_exact_bits, runs, session, stock
from tests.reference import reference_transformer_ops as RT

F32 = np.dtype(np.float32)
F16 = np.dtype(np.float16)
MS = "com.microsoft"


def _model(x_shape: list, b_shape: list, dtype: np.dtype = F32, **attrs: object) -> onnx.ModelProto:
    node = helper.make_node("BiasSoftmax", ["x", "b"], ["y"], name="n0", domain=MS, **attrs)
    tp = int(helper.np_dtype_to_tensor_dtype(dtype))
    inputs = [helper.make_tensor_value_info("x", tp, x_shape),
              helper.make_tensor_value_info("b", tp, b_shape)]
    graph = helper.make_graph([node], "g", inputs, [helper.make_tensor_value_info("y", tp, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid(MS, 1)],
                             ir_version=10)


def _stock_add_softmax(x: np.ndarray, b: np.ndarray, axis: int) -> np.ndarray:
    tp = int(helper.np_dtype_to_tensor_dtype(x.dtype))
    nodes = [helper.make_node("Add", ["x", "b"], ["s"]), helper.make_node("Softmax", ["s"], ["y"], axis=axis)]
    inputs = [helper.make_tensor_value_info("x", tp, list(x.shape)),
              helper.make_tensor_value_info("b", tp, list(b.shape))]
    graph = helper.make_graph(nodes, "g", inputs, [helper.make_tensor_value_info("y", tp, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11)], ir_version=10)
    return stock(model, {"x": x, "b": b})[0]


def _data(shape: tuple[int, ...], seed: int, dtype: np.dtype = F32) -> np.ndarray:
    return (np.random.default_rng(seed).standard_normal(shape) * 4).astype(dtype)


def _mask(shape: tuple[int, ...], seed: int, dtype: np.dtype = F32) -> np.ndarray:
    """An additive mask: 0 or -inf (a row of the first block fully masked), some small values."""
    m = np.where(np.random.default_rng(seed).random(shape) < 0.3, -np.inf, 0.0)
    m.reshape(-1)[: shape[-1]] = -np.inf
    if m.size >= 2 * shape[-1]:
        m.reshape(-1)[shape[-1]: 2 * shape[-1]] = np.linspace(-1, 1, shape[-1])
    return m.astype(dtype)


# (data shape, bias shape, axis, is_inner_broadcast)
CASES = [
    ((2, 3, 5, 7), (2, 1, 1, 7), 3, 1),  # the attention mask [B, 1, 1, S] on [B, N, S, S]
    ((2, 3, 5, 7), (3, 5, 7), 2, 0),  # [N, S, S] (rank 3) on [B, N, S, S], rows of S * S along axis 2
    ((4, 9000), (1, 9000), 1, 0),  # rows longer than a chunk
    ((3, 4, 6), (3, 4, 6), -1, 1),  # a bias as large as data
]


@pytest.mark.parametrize("dtype", [F32, F16], ids=str)
@pytest.mark.parametrize(("xs", "bs", "axis", "inner"), CASES[:2], ids=str)
def test_every_way_path_and_thread_count(xs: tuple, bs: tuple, axis: int, inner: int,
                                         dtype: np.dtype) -> None:
    x, b = _data(xs, 1, dtype), _mask(bs, 2, dtype)
    x.reshape(-1)[-3:] = [np.inf, np.nan, -np.inf]  # rows with NaN and inf
    want = RT.bias_softmax(x, b, axis)
    model = _model(list(xs), list(bs), dtype, axis=axis, is_inner_broadcast=inner)
    for where, got in runs(model, {"x": x, "b": b}, "BiasSoftmax").items():
        assert_exact_bits(f"BiasSoftmax {where}", got[0], want)


@pytest.mark.parametrize(("xs", "bs", "axis", "inner"), CASES, ids=str)
def test_reference_bits_and_close_to_stock_add_softmax(xs: tuple, bs: tuple, axis: int, inner: int) -> None:
    x, b = _data(xs, 3), _mask(bs, 4)
    b.reshape(-1)[: bs[-1]] = 0.5  # no fully masked row: stock's Softmax of a row of -inf is NaN, as ours
    model = _model(list(xs), list(bs), axis=axis, is_inner_broadcast=inner)
    got = session(model, VIAS[-1], None, 2).run(None, {"x": x, "b": b})[0]
    assert_exact_bits("BiasSoftmax", got, RT.bias_softmax(x, b, axis))
    theirs = _stock_add_softmax(x, b, axis)
    np.testing.assert_allclose(got, theirs, rtol=1e-5, atol=1e-6)


def test_stock_has_no_cpu_kernel() -> None:
    model = _model([2, 3], [1, 3], axis=1, is_inner_broadcast=0)
    with pytest.raises(Exception, match="Could not find an implementation for BiasSoftmax"):
        stock(model, {"x": np.ones((2, 3), F32), "b": np.ones((1, 3), F32)})


def test_sum_rounded_once_in_f32_for_f16() -> None:
    """f16: the sum is taken in f32, not rounded to half before Softmax (2048 + 1 is 2048 in half)."""
    x = np.array([[2048.0, 2048.0]], F16)
    b = np.array([[0.0, 1.0]], F16)
    node = Node(f"{MS}.BiasSoftmax", [TensorProto.FLOAT16] * 2, name="n0",
                attributes={"axis": 1, "is_inner_broadcast": 0})
    got = node.run(x, b)
    assert_exact_bits("BiasSoftmax f16", got, RT.bias_softmax(x, b, 1))
    assert got[0, 0] < got[0, 1]  # 1 / (1 + e) and e / (1 + e): the f32 sum kept the 1


@pytest.mark.parametrize(("xs", "bs"), [((0, 4), (1, 4)), ((3, 0), (1, 0)), ((2, 0, 5), (1, 0, 5))], ids=str)
def test_zero_size(xs: tuple, bs: tuple) -> None:
    model = _model(list(xs), list(bs), axis=1, is_inner_broadcast=1)
    for via in VIAS:
        got = session(model, via, None, 1).run(None, {"x": np.zeros(xs, F32), "b": np.zeros(bs, F32)})[0]
        assert got.shape == xs and got.dtype == F32


BAD_BIAS = [((2, 3, 4), (3, 4), 1), ((2, 3, 4), (2, 1, 4), 0), ((2, 3, 4), (2, 3, 5), 1),
            ((2, 3, 4), (2, 2, 4), 0)]
NOT_BROADCAST = r"n0' \(op BiasSoftmax\): input bias of shape .* does not broadcast"


@pytest.mark.parametrize(("xs", "bs", "inner"), BAD_BIAS, ids=str)
def test_bias_that_does_not_broadcast_is_an_error_naming_node(xs: tuple, bs: tuple, inner: int) -> None:
    node = Node(f"{MS}.BiasSoftmax", [TensorProto.FLOAT] * 2, name="n0",
                attributes={"axis": 2, "is_inner_broadcast": inner})
    with pytest.raises(NodeError, match=NOT_BROADCAST):
        node.run(np.ones(xs, F32), np.ones(bs, F32))
    for via in VIAS:  # the declared shapes: at session creation
        with pytest.raises(Exception, match=NOT_BROADCAST):
            session(_model(list(xs), list(bs), axis=2, is_inner_broadcast=inner), via, None, 1)


def test_bad_attributes_and_types_are_refused_at_creation() -> None:
    with pytest.raises(NodeError, match=r"op BiasSoftmax\): the attribute is_inner_broadcast is required"):
        Node(f"{MS}.BiasSoftmax", [TensorProto.FLOAT] * 2, name="n0", attributes={"axis": 1})
    with pytest.raises(NodeError, match=r"is_inner_broadcast = 2 must be 0 or 1"):
        Node(f"{MS}.BiasSoftmax", [TensorProto.FLOAT] * 2, name="n0", attributes={"is_inner_broadcast": 2})
    with pytest.raises(NodeError, match=r"unsupported element type double for input 0"):
        Node(f"{MS}.BiasSoftmax", [TensorProto.DOUBLE] * 2, name="n0", attributes={"is_inner_broadcast": 0})
    with pytest.raises(Exception, match=r"n0' \(op .*BiasSoftmax\): attribute axis 4 is out of range"):
        session(_model([2, 3], [1, 3], axis=4, is_inner_broadcast=0), VIAS[-1], None, 1)
    with pytest.raises(Exception, match=r"n0' \(op BiasSoftmax\): input bias has rank 3, more than data's 2"):
        session(_model([2, 3], [1, 2, 3], axis=1, is_inner_broadcast=0), VIAS[-1], None, 1)
