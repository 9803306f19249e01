"""com.microsoft QGemm (node_qgemm.c) through the execution provider and the rewrite: the bits of
tests/reference/qgemm_reference.py (written from docs/quantized-matmul.md, "QGemm") on every kernel path
and at two threads, constant and run-time B; stock ORT's bits where it has a kernel (K = 0 excepted, as the
doc says); the errors, naming node, op and problem; zero-size dimensions."""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from onemodel_ep.node import Node, NodeError
from tests.nodes.node_sessions import VIAS, assert_exact_bits, runs, session, stock
from tests.reference import quant_matmul_reference as QR
from tests.reference.qgemm_reference import qgemm

U8, I8, I32, F32 = TensorProto.UINT8, TensorProto.INT8, TensorProto.INT32, TensorProto.FLOAT
NP = {U8: np.uint8, I8: np.int8}
ELEM = {np.dtype(np.uint8): U8, np.dtype(np.int8): I8, np.dtype(np.float32): F32, np.dtype(np.int32): I32}
NAMES = ["A", "a_scale", "a_zero_point", "B", "b_scale", "b_zero_point", "C", "y_scale", "y_zero_point"]


def model(ins: dict[str, np.ndarray], consts: tuple[str, ...] = (), **attrs: Any) -> onnx.ModelProto:
    """One QGemm node named 'qg' on `ins` (NAMES order, absent ones left out): those named in `consts` are
    initializers, the rest graph inputs."""
    names = [n for n in NAMES if n in ins]
    last = max(NAMES.index(n) for n in names)
    used = [n if n in ins else "" for n in NAMES[: last + 1]]
    y_type = ELEM[ins["y_zero_point"].dtype] if "y_zero_point" in ins else F32
    graph = helper.make_graph(
        [helper.make_node("QGemm", used, ["Y"], name="qg", domain="com.microsoft", **attrs)], "g",
        [helper.make_tensor_value_info(n, ELEM[ins[n].dtype], list(ins[n].shape)) for n in names
         if n not in consts],
        [helper.make_tensor_value_info("Y", y_type, None)],
        initializer=[numpy_helper.from_array(ins[n], n) for n in consts])
    imports = [helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)]
    return helper.make_model(graph, opset_imports=imports, ir_version=9)


def case(seed: int, ta: int, tb: int, M: int, K: int, N: int, per_column: bool = False, c_shape: Any = None,
         y: int | None = None, y_scale: bool = False, trans_a: int = 0,
         trans_b: int = 0) -> dict[str, np.ndarray]:
    """QGemm inputs: operands over their whole ranges; y None: float Y (y_scale given or not), else Y of
    type y."""
    rng = np.random.default_rng(seed)
    a = QR.int_operand(rng, NP[ta], (K, M) if trans_a else (M, K))
    b = QR.int_operand(rng, NP[tb], (N, K) if trans_b else (K, N))
    n = (N,) if per_column else ()
    ins = {"A": a, "a_scale": np.array(rng.uniform(0.001, 0.05), np.float32),
           "a_zero_point": QR.int_operand(rng, NP[ta], ()), "B": b,
           "b_scale": rng.uniform(0.001, 0.05, n).astype(np.float32),
           "b_zero_point": QR.int_operand(rng, NP[tb], n)}
    if c_shape is not None:
        ins["C"] = rng.integers(-40000, 40000, c_shape).astype(np.int32)
    if y is not None or y_scale:
        ins["y_scale"] = np.array(rng.uniform(0.5, 4.0), np.float32)
    if y is not None:
        ins["y_zero_point"] = QR.int_operand(rng, NP[y], ())
    return ins


def ours(m: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> np.ndarray:
    """Y from one session on the default path, after checking that the node ran on OneModel's kernels."""
    sess = session(m, VIAS[-1], None, 1)
    assert [n.op for n in sess.report.moved] == ["QGemm"], sess.report.summary()
    return sess.run(None, feeds)[0]


def ref(ins: dict[str, np.ndarray], alpha: float = 1.0, transA: int = 0, transB: int = 0) -> np.ndarray:
    g = ins.get
    return qgemm(ins["A"], ins["a_scale"], ins["a_zero_point"], ins["B"], ins["b_scale"], ins["b_zero_point"],
                 g("C"), g("y_scale"), g("y_zero_point"), alpha, transA, transB)


EVERY_PATH = [  # (case arguments, attributes, constant B)
    ((7, U8, I8, 37, 67, 41, True, (41,), U8), {"alpha": 0.75, "transB": 1}, True),
    ((8, I8, I8, 19, 130, 23, False, (19, 1), None), {"transA": 1}, False),
]


@pytest.mark.parametrize(("args", "attrs", "const_b"), EVERY_PATH,
                         ids=["u8s8-requant-transB", "s8s8-float-transA"])
def test_every_path_and_thread_reference_bits(args: tuple[Any, ...], attrs: dict[str, Any],
                                              const_b: bool) -> None:
    ins = case(*args, trans_a=attrs.get("transA", 0), trans_b=attrs.get("transB", 0))
    consts = ("B", "b_scale", "b_zero_point") if const_b else ()
    m = model(ins, consts, **attrs)
    feeds = {k: v for k, v in ins.items() if k not in consts}
    want = ref(ins, **attrs)
    for what, ys in runs(m, feeds, "QGemm").items():
        assert_exact_bits(what, ys[0], want)
    assert_exact_bits("stock", stock(m, feeds)[0], want)


# Stock ORT has kernels for A uint8 with B uint8 or int8, and A int8 with B int8 (Y's zero point of A's type).
STOCK_TYPES = [(U8, U8, U8), (U8, I8, U8), (I8, I8, I8)]
C_SHAPES = [None, (), (1,), (23,), (1, 23), (19, 1), (19, 23)]


@pytest.mark.parametrize(("ta", "tb", "ty"), STOCK_TYPES, ids=["u8u8", "u8s8", "s8s8"])
def test_stock_agrees_bit_for_bit(ta: int, tb: int, ty: int) -> None:
    """Every form on one session per model (the default path): the reference's bits, and stock ORT's."""
    seed = 100
    for c_shape in C_SHAPES:
        for per_column in (False, True):
            for y, y_scale in ((None, False), (None, True), (ty, True)):
                for attrs in ({}, {"alpha": 1.5, "transA": 1, "transB": 1}):
                    seed += 1
                    ins = case(seed, ta, tb, 19, 70, 23, per_column, c_shape, y, y_scale,
                               attrs.get("transA", 0), attrs.get("transB", 0))
                    m = model(ins, ("B",), **attrs)
                    feeds = {k: v for k, v in ins.items() if k != "B"}
                    what = f"C {c_shape}, per_column {per_column}, y {y}, y_scale {y_scale}, {attrs}"
                    want = ref(ins, **attrs)
                    assert_exact_bits(f"ours, {what}", ours(m, feeds), want)
                    assert_exact_bits(f"stock, {what}", stock(m, feeds)[0], want)


def test_bert_shape_and_wrapping_sums() -> None:
    """A BERT-base [128, 768] x [768, 768]^T product with per-column parameters, and sums past int32 (K large,
    operands at their extremes, a C near the int32 limit): the same bits as the reference and stock."""
    ins = case(3, U8, I8, 128, 768, 768, True, (768,), U8, trans_b=1)
    m = model(ins, ("B", "b_scale", "b_zero_point"), transB=1)
    feeds = {k: v for k, v in ins.items() if k not in ("B", "b_scale", "b_zero_point")}
    want = ref(ins, transB=1)
    assert_exact_bits("ours", ours(m, feeds), want)
    assert_exact_bits("stock", stock(m, feeds)[0], want)
    K = 140000
    big = {"A": np.full((2, K), 255, np.uint8), "a_scale": np.array(1.0, np.float32),
           "a_zero_point": np.array(0, np.uint8), "B": np.full((K, 3), -128, np.int8),
           "b_scale": np.array(1.0, np.float32), "b_zero_point": np.array(127, np.int8),
           "C": np.array([2**31 - 1, -(2**31), 5], np.int32)}
    want = ref(big)
    assert np.unique(want).size > 1  # the sums wrapped differently per column
    node = Node("com.microsoft.QGemm", [U8, F32, U8, I8, F32, I8, I32], name="qg")
    got = node.run(*[big[n] for n in NAMES[:7]])
    assert_exact_bits("wrapped", got, want)


@pytest.mark.parametrize("dims", [(0, 8, 6), (4, 8, 0), (4, 0, 6)], ids=["M-0", "N-0", "K-0"])
def test_zero_size_dimensions(dims: tuple[int, int, int]) -> None:
    """M = 0 or N = 0: an empty Y. K = 0: every sum is 0, so Y is C (or 0) through the same steps; stock's
    K = 0 path writes C's low bytes into a float Y and drops alpha (docs/quantized-matmul.md), so only ours is
    checked there."""
    M, K, N = dims
    for y in (None, U8):
        ins = case(11, U8, I8, M, K, N, N > 0, (N,), y)
        m = model(ins, ())
        got = ours(m, ins)
        assert_exact_bits(f"{dims}, y {y}", got, ref(ins))
        if K == 0 and N:
            assert np.unique(ins["C"]).size > 1


def _node_types(ins: dict[str, np.ndarray]) -> list[int]:
    return [ELEM[ins[n].dtype] if n in ins else 0 for n in NAMES if NAMES.index(n) <= 8]


@pytest.mark.parametrize(("types", "attrs", "says"), [
    ([U8, F32, I8, I8, F32, I8], {}, "a_zero_point has element type int8; it must be uint8"),
    ([U8, F32, U8, I8, F32, I8, F32], {}, "C has element type float; it must be int32"),
    ([U8, F32, U8, I8, F32, I8, I32, F32, I32], {}, "y_zero_point has element type int32; it must be uint8"),
    ([U8, F32, U8, I8, F32, I8, 0, 0, U8], {}, "y_zero_point is given without y_scale"),
    ([U8, F32, U8, I8, F32, I8], {"transA": 2}, "attribute transA = 2 must be 0 or 1"),
])
def test_bad_types_and_attributes_refused(types: list[int], attrs: dict[str, Any], says: str) -> None:
    with pytest.raises(NodeError) as e:
        Node("com.microsoft.QGemm", types, attributes=attrs, name="bad")
    msg = str(e.value)
    assert "'bad'" in msg and "op QGemm" in msg and says in msg, msg


def test_bad_shapes_fail_naming_node() -> None:
    ins = case(5, U8, I8, 6, 10, 7, True, (7,), U8)
    node = Node("com.microsoft.QGemm", [U8, F32, U8, I8, F32, I8, I32, F32, U8], name="qg")
    args = [ins[n] for n in NAMES]
    for k, bad, says in (
        (3, ins["B"][:9], "A [6, 10] and B [9, 7] do not agree on K (10 vs 9)"),
        (4, ins["b_scale"][:3], "b_scale of shape [3] must be a scalar or 1-D of 7 elements"),
        (6, np.zeros((2, 7), np.int32), "C of shape [2, 7] does not broadcast to [6, 7]"),
        (7, np.ones(2, np.float32), "y_scale of shape [2] must have one element"),
        (0, ins["A"].reshape(1, 6, 10), "A has rank 3; it must be 2-D"),
    ):
        with pytest.raises(NodeError) as e:
            node.run(*args[:k], bad, *args[k + 1:])
        msg = str(e.value)
        assert "'qg'" in msg and "op QGemm" in msg and says in msg, msg


def test_bad_constant_refused_at_session_creation() -> None:
    ins = case(6, U8, I8, 4, 8, 6, False, None, U8)
    ins["a_scale"] = np.ones((2, 1), np.float32)
    m = model(ins, ("B", "a_scale"))
    feeds = {k: v for k, v in ins.items() if k not in ("B", "a_scale")}
    for via in VIAS:
        with pytest.raises(Exception, match=r"'qg'.*QGemm.*a_scale of shape \[2, 1\] must have one element"):
            session(m, via, None, 1).run(None, feeds)
