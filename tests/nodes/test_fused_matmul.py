"""com.microsoft FusedMatMul: MatMul of A and B, each with its last two axes transposed where transA, transB
say, times alpha.

Each case runs as a one-node model through both ways in on every kernel path at one thread and the default
path at two threads; every run must give the bits of tests/reference/reference_transformer_ops.py (MatMul's
blocked chains of docs/exact-linalg.md, then RN(alpha * acc)). Stock ORT (MLAS, f32) agrees within
4e-5 * |alpha| * (|A| . |B|) per element: both sums are within K * 2^-24 (K <= 300 here) of the exact sum of
the products' magnitudes.
"""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from onemodel_ep.node import Node, NodeError
from tests.nodes.node_sessions import assert_bits, runs, stock
from tests.reference import reference_transformer_ops as RT

MS = "com.microsoft"
F32 = np.dtype(np.float32)


def _model(a: np.ndarray, b: np.ndarray, b_const: bool, **attrs: object) -> onnx.ModelProto:
    tp = int(helper.np_dtype_to_tensor_dtype(a.dtype))
    node = helper.make_node("FusedMatMul", ["a", "b"], ["y"], name="n0", domain=MS, **attrs)
    inputs = [helper.make_tensor_value_info("a", tp, list(a.shape))]
    if not b_const:
        inputs.append(helper.make_tensor_value_info("b", tp, list(b.shape)))
    inits = [numpy_helper.from_array(b, "b")] if b_const else []
    y = helper.make_tensor_value_info("y", tp, None)
    graph = helper.make_graph([node], "g", inputs, [y], initializer=inits)
    imports = [helper.make_opsetid("", 17), helper.make_opsetid(MS, 1)]
    return helper.make_model(graph, opset_imports=imports, ir_version=10)


CASES = [  # A shape, B shape, transA, transB, alpha
    ((5, 7), (7, 3), 0, 0, None),
    ((7, 5), (7, 3), 1, 0, 1.0),
    ((5, 7), (3, 7), 0, 1, 0.125),
    ((2, 3, 7, 5), (3, 4, 7), 1, 1, -2.0),
    ((2, 1, 9, 300), (6, 300), 0, 1, 0.3),  # K past one block of 256: the tree
    ((4, 9, 33), (33, 17), 0, 0, 3.0),
]


@pytest.mark.parametrize(("sa", "sb", "ta", "tb", "alpha"), CASES, ids=str)
@pytest.mark.parametrize("b_const", [True, False], ids=["b_initializer", "b_input"])
def test_every_way_path_and_thread_count(sa, sb, ta, tb, alpha, b_const) -> None:
    rng = np.random.default_rng(sum(sa) + sum(sb))
    a = rng.standard_normal(sa).astype(F32)
    b = rng.standard_normal(sb).astype(F32)
    attrs = {"transA": ta, "transB": tb, **({"alpha": alpha} if alpha is not None else {})}
    want = RT.fused_matmul(a, b, trans_a=ta, trans_b=tb, alpha=1.0 if alpha is None else alpha)
    model = _model(a, b, b_const, **attrs)
    feeds = {"a": a, **({} if b_const else {"b": b})}
    every = runs(model, feeds, "FusedMatMul")
    for where, got in every.items():
        assert_bits(f"FusedMatMul, {where}", got[0], want)
    theirs = stock(model, feeds)[0]
    mag = RT.fused_matmul(np.abs(a), np.abs(b), trans_a=ta, trans_b=tb, alpha=abs(alpha or 1.0))
    assert np.all(np.abs(next(iter(every.values()))[0] - theirs) <= 4e-5 * mag)


@pytest.mark.parametrize("dtype", [np.float16, np.float64])
def test_other_float_types(dtype: type) -> None:
    rng = np.random.default_rng(3)
    a = rng.standard_normal((3, 6, 5)).astype(dtype)
    b = rng.standard_normal((4, 6)).astype(dtype)
    want = RT.fused_matmul(a, b, trans_a=1, trans_b=1, alpha=0.5)
    model = _model(a, b, True, transA=1, transB=1, alpha=0.5)
    for where, got in runs(model, {"a": a}, "FusedMatMul").items():
        assert_bits(f"FusedMatMul {dtype.__name__}, {where}", got[0], want)


def test_zero_size() -> None:
    a = np.zeros((0, 4, 5), F32)
    b = np.ones((3, 5), F32)
    for _, got in runs(_model(a, b, True, transB=1), {"a": a}, "FusedMatMul").items():
        assert got[0].shape == (0, 4, 3)


def test_refusals_name_node_and_op() -> None:
    f = TensorProto.FLOAT
    with pytest.raises(NodeError, match=r"node 'n0' \(op com.microsoft.FusedMatMul\): attributes transBatchA "
                                        r"and transBatchB other than 0 are not served"):
        Node(f"{MS}.FusedMatMul", [f, f], attributes={"transBatchA": 1}, name="n0")
    with pytest.raises(NodeError, match=r"FusedMatMul\): attribute transB must be 0 or 1, got 2"):
        Node(f"{MS}.FusedMatMul", [f, f], attributes={"transB": 2}, name="n0")
    node = Node(f"{MS}.FusedMatMul", [f, f], attributes={"transB": 1}, name="n0")
    with pytest.raises(NodeError, match=r"transB on a 1-D input 1 is not served"):
        node.run(np.ones((2, 3), np.float32), np.ones(3, np.float32))
    with pytest.raises(NodeError, match=r"\(op com.microsoft.FusedMatMul\)"):
        node.run(np.ones((2, 3), np.float32), np.ones((4, 5), np.float32))
    with pytest.raises(NodeError, match=r"unsupported element type int32"):
        Node(f"{MS}.FusedMatMul", [TensorProto.INT32] * 2, name="n0")
