"""MatMulInteger (opset 10) through the execution provider and the rewrite: the same bits as stock ORT and as
a NumPy int64 reference (wrapped to int32), on every kernel path and thread count; shapes, constant B, errors.

The arithmetic (quant/qgemm.h, docs/quantized.md) is exact integers modulo 2^32, so every path, blocking and
thread count gives the same bits by construction; these tests check that it is also the right sum.
"""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

import onemodel_ep
from onemodel_ep.node import Node, NodeError
from tests.reference.quant_matmul_reference import int_operand

PATHS = onemodel_ep.kernel_paths()
VIAS = ("rewrite", "ep") if onemodel_ep.ep_supported() else ("rewrite",)
U8, I8, I32 = TensorProto.UINT8, TensorProto.INT8, TensorProto.INT32
NP = {U8: np.uint8, I8: np.int8}


def reference(a: np.ndarray, b: np.ndarray, za: np.ndarray | None, zb: np.ndarray | None) -> np.ndarray:
    """ONNX's MatMulInteger in int64: (A - a_zero_point) @ (B - b_zero_point), a per-row zero point applied to
    A's rows, a per-column one to B's columns, then wrapped to int32 (two's complement)."""
    a64 = a.astype(np.int64)
    b64 = b.astype(np.int64)
    if za is not None:
        a64 = a64 - (za.astype(np.int64).reshape(-1, 1) if za.size > 1 else za.astype(np.int64).reshape(()))
    if zb is not None:
        b64 = b64 - zb.astype(np.int64).reshape(-1 if zb.size > 1 else ())
    return np.matmul(a64, b64).astype(np.uint64).astype(np.uint32).view(np.int32)


def _operand(rng: np.random.Generator, t: int, shape: tuple[int, ...]) -> np.ndarray:
    return int_operand(rng, NP[t], shape)


def model(ta: int, tb: int, sa: tuple[int, ...], sb: tuple[int, ...], za: np.ndarray | None,
          zb: np.ndarray | None, b_const: np.ndarray | None = None) -> onnx.ModelProto:
    """One MatMulInteger node: A and B inputs (B an initializer when b_const), zero points as initializers."""
    inits, names = [], ["A", "B"]
    if b_const is not None:
        inits.append(numpy_helper.from_array(b_const, "B"))
    if za is not None or zb is not None:
        names.append("" if za is None else "za")
        if za is not None:
            inits.append(numpy_helper.from_array(za, "za"))
    if zb is not None:
        names.append("zb")
        inits.append(numpy_helper.from_array(zb, "zb"))
    inputs = [helper.make_tensor_value_info("A", ta, list(sa))]
    if b_const is None:
        inputs.append(helper.make_tensor_value_info("B", tb, list(sb)))
    graph = helper.make_graph([helper.make_node("MatMulInteger", names, ["Y"], name="mmi")], "g", inputs,
                              [helper.make_tensor_value_info("Y", I32, None)], initializer=inits)
    return helper.make_model(graph, ir_version=9, opset_imports=[helper.make_opsetid("", 13)])


def _ours(m: onnx.ModelProto, feeds: dict[str, np.ndarray], via: str, path: str | None,
          threads: int) -> np.ndarray:
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.log_severity_level = 3
    sess = onemodel_ep.InferenceSession(m, so, mode="exact", kernel_path=path, via=via)
    assert [n.op for n in sess.report.moved] == ["MatMulInteger"], (via, path, sess.report.summary())
    return sess.run(None, feeds)[0]


def _stock(m: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> np.ndarray:
    sess = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
    return sess.run(None, feeds)[0]


CASES = [  # (A shape, B shape, zero points: none / scalar / per-column B / per-row A)
    ((13, 67), (67, 37), "none"),
    ((13, 67), (67, 37), "scalar"),
    ((33, 70), (70, 45), "column"),
    ((2, 3, 9, 20), (20, 17), "scalar"),
    ((3, 1, 5, 8), (2, 8, 7), "scalar"),
    ((20,), (20, 6), "scalar"),
    ((5, 20), (20,), "scalar"),
    ((4, 0), (0, 6), "scalar"),
    ((0, 8), (8, 6), "none"),
]


def _zero_points(rng, ta, tb, kind, m, n):
    if kind == "none":
        return None, None
    if kind == "scalar":
        return _operand(rng, ta, ()), _operand(rng, tb, ())
    return _operand(rng, ta, ()), _operand(rng, tb, (n,))


@pytest.mark.parametrize("ta,tb", [(U8, U8), (U8, I8), (I8, U8), (I8, I8)])
@pytest.mark.parametrize("sa,sb,zkind", CASES)
def test_equals_stock_and_reference_every_path(ta, tb, sa, sb, zkind):
    rng = np.random.default_rng(len(sa) * 100 + sum(sa) + sum(sb))
    a, b = _operand(rng, ta, sa), _operand(rng, tb, sb)
    n = sb[-1] if len(sb) > 1 else 1
    za, zb = _zero_points(rng, ta, tb, zkind, sa[-2] if len(sa) > 1 else 1, n)
    want = reference(a, b, za, zb)
    for b_const in (None, b):
        m = model(ta, tb, sa, sb, za, zb, b_const)
        feeds = {"A": a} if b_const is not None else {"A": a, "B": b}
        stock = _stock(m, feeds)
        # K = 0: stock ORT 1.31.1 leaves its output unwritten (whatever the memory held); ONNX's sum is
        # empty: 0
        if a.shape[-1] != 0:
            assert stock.dtype == np.int32 and stock.tobytes() == want.tobytes(), "stock differs"
        for via in VIAS:
            for path, threads in [(p, 1) for p in PATHS] + [(None, 2)]:
                got = _ours(m, feeds, via, path, threads)
                assert got.dtype == np.int32 and got.shape == want.shape, (via, path)
                assert got.tobytes() == want.tobytes(), (via, path, threads, b_const is not None)


def test_per_row_a_zero_point_matches_reference():
    """A 1-D a_zero_point of M elements (one per row, as ONNX allows); stock ORT refuses it (scalar only)."""
    rng = np.random.default_rng(3)
    a, b = _operand(rng, U8, (9, 40)), _operand(rng, I8, (40, 11))
    za, zb = _operand(rng, U8, (9,)), _operand(rng, I8, (11,))
    m = model(U8, I8, a.shape, b.shape, za, zb, b)
    want = reference(a, b, za, zb)
    for via in VIAS:
        for path in PATHS:
            assert _ours(m, {"A": a}, via, path, 1).tobytes() == want.tobytes(), (via, path)


def test_bert_shape_all_paths_identical():
    """A BERT-base projection, [128, 768] x [768, 768] with a constant int8 B: every path, 1 and 2 threads."""
    rng = np.random.default_rng(5)
    a, b = _operand(rng, U8, (128, 768)), _operand(rng, I8, (768, 768))
    za = np.array(131, np.uint8)
    m = model(U8, I8, a.shape, b.shape, za, None, b)
    want = reference(a, b, za, None)
    assert _stock(m, {"A": a}).tobytes() == want.tobytes()
    for via in VIAS:
        for path, threads in [(p, 1) for p in PATHS] + [(None, 2)]:
            assert _ours(m, {"A": a}, via, path, threads).tobytes() == want.tobytes(), (via, path, threads)


def test_zero_point_type_must_match_operand():
    with pytest.raises(NodeError, match=r"'q'.*MatMulInteger.*a_zero_point has element type int8, A has"):
        Node("MatMulInteger", [U8, I8, I8], name="q", onnx_opset=10)
    with pytest.raises(NodeError, match=r"b_zero_point has element type uint8, B has int8"):
        Node("MatMulInteger", [U8, I8, U8, U8], name="q", onnx_opset=10)


def test_unsupported_types_named():
    with pytest.raises(NodeError, match="unsupported element type int16 for input 0"):
        Node("MatMulInteger", [TensorProto.INT16, I8], name="q", onnx_opset=10)
    with pytest.raises(NodeError, match="unsupported element type float for input 1"):
        Node("MatMulInteger", [U8, TensorProto.FLOAT], name="q", onnx_opset=10)
    with pytest.raises(NodeError, match="opset 9 is not served"):
        Node("MatMulInteger", [U8, I8], name="q", onnx_opset=9)


@pytest.mark.parametrize("za_shape,zb_shape,msg", [
    ((3,), (), r"a_zero_point of shape \[3\] must be a scalar or 1-D of 4 elements \(one per row of A\)"),
    ((), (5,), r"b_zero_point of shape \[5\] must be a scalar or 1-D of 6 elements \(one per column of B\)"),
    ((), (0,), r"b_zero_point of shape \[0\]"),
])
def test_zero_point_shape_mismatch(za_shape, zb_shape, msg):
    n = Node("MatMulInteger", [U8, I8, U8, I8], name="q", onnx_opset=10)
    a, b = np.zeros((4, 8), np.uint8), np.zeros((8, 6), np.int8)
    with pytest.raises(NodeError, match=msg):
        n.run(a, b, np.zeros(za_shape, np.uint8), np.zeros(zb_shape, np.int8))


def test_zero_point_of_rank_two_refused_at_session_creation():
    a = np.zeros((4, 8), np.uint8)
    m = model(U8, I8, a.shape, (8, 6), np.zeros((4, 1), np.uint8), None, np.zeros((8, 6), np.int8))
    for via in VIAS:
        with pytest.raises(Exception, match=r"'mmi'.*a_zero_point of rank 2 is not served"):
            _ours(m, {"A": a}, via, None, 1)


def test_inner_dimension_mismatch():
    n = Node("MatMulInteger", [U8, U8], name="q", onnx_opset=10)
    with pytest.raises(NodeError, match=r"'q'.*MatMulInteger.*inner dimensions do not match"):
        n.run(np.zeros((2, 3), np.uint8), np.zeros((4, 5), np.uint8))
