"""MatMul and Gemm nodes: ONNX shapes, broadcasting, attributes, errors, constant B, every path alike.

The values are checked against a float64 product within the chain's bound gamma_K * sum|a b|; the bit-exact
order is checked against an independent reference in tests/reference/test_linalg_reference.py.
"""

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

import onemodel_ep
from onemodel_ep.node import Node, NodeError

PATHS = onemodel_ep.kernel_paths()
F32 = TensorProto.FLOAT


def _bound(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    k = a.shape[-1]
    u = 2.0**-24
    return k * u / (1 - k * u) * (np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64))) + 1e-45


@pytest.mark.parametrize(
    "sa,sb",
    [
        ((3, 4), (4, 5)),
        ((4,), (4, 5)),
        ((3, 4), (4,)),
        ((4,), (4,)),
        ((2, 3, 4), (4, 5)),
        ((3, 1, 3, 4), (2, 4, 5)),
        ((1, 3, 4), (2, 4, 1)),
        ((0, 4), (4, 5)),
        ((3, 0), (0, 5)),
        ((2, 0, 3, 4), (4, 2)),
    ],
)
def test_matmul_shapes_and_values(sa, sb):
    rng = np.random.default_rng(1)
    a = rng.standard_normal(sa).astype(np.float32)
    b = rng.standard_normal(sb).astype(np.float32)
    want = np.matmul(a.astype(np.float64), b.astype(np.float64))
    got = [Node("MatMul", [F32, F32], onnx_opset=13, kernel_path=p).run(a, b) for p in PATHS]
    for g in got:
        assert g.shape == want.shape
        assert g.tobytes() == got[0].tobytes()
    if a.ndim == 2 and b.ndim == 2:
        assert np.all(np.abs(got[0] - want) <= _bound(a, b))
    np.testing.assert_allclose(got[0], want, rtol=1e-5, atol=1e-5)


def test_matmul_k_zero_is_plus_zero():
    out = Node("MatMul", [F32, F32]).run(np.zeros((2, 0), np.float32), np.zeros((0, 3), np.float32))
    assert out.shape == (2, 3) and not np.signbit(out).any() and (out == 0).all()


@pytest.mark.parametrize(
    "sa,sb,msg",
    [
        ((3, 4), (5, 6), "inner dimensions do not match"),
        ((2, 3, 4), (3, 4, 5), "do not broadcast"),
        ((), (4,), "rank 1 or more"),
    ],
)
def test_matmul_bad_shapes(sa, sb, msg):
    n = Node("MatMul", [F32, F32], name="mm")
    with pytest.raises(NodeError, match=msg) as e:
        n.run(np.zeros(sa, np.float32), np.zeros(sb, np.float32))
    assert "'mm'" in str(e.value) and "MatMul" in str(e.value)


def test_matmul_unsupported_type_named():
    with pytest.raises(NodeError, match="unsupported element type int32"):
        Node("MatMul", [TensorProto.INT32, TensorProto.INT32], name="mm")


@pytest.mark.parametrize("ta,tb", [(0, 0), (1, 0), (0, 1), (1, 1)])
@pytest.mark.parametrize("cshape", [None, (), (1,), (5,), (3, 1), (1, 5), (3, 5)])
def test_gemm_attributes(ta, tb, cshape):
    rng = np.random.default_rng(2)
    a = rng.standard_normal((4, 3) if ta else (3, 4)).astype(np.float32)
    b = rng.standard_normal((5, 4) if tb else (4, 5)).astype(np.float32)
    inputs = [a, b]
    if cshape is not None:
        inputs.append(rng.standard_normal(cshape).astype(np.float32))
    attrs = {"transA": ta, "transB": tb, "alpha": 0.75, "beta": -1.5}
    outs = [
        Node("Gemm", [F32] * len(inputs), onnx_opset=13, attributes=attrs, kernel_path=p).run(*inputs)
        for p in PATHS
    ]
    am = a.T if ta else a
    bm = b.T if tb else b
    want = 0.75 * (am.astype(np.float64) @ bm.astype(np.float64))
    if cshape is not None:
        want = want + -1.5 * inputs[2].astype(np.float64)
    for o in outs:
        assert o.tobytes() == outs[0].tobytes()
    np.testing.assert_allclose(outs[0], want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    "attrs,n_in,opset,msg",
    [
        ({"transA": 2}, 3, 13, "transA must be 0 or 1"),
        ({"transB": -1}, 3, 13, "transB must be 0 or 1"),
        ({}, 2, 9, "input C is required before opset 11"),
    ],
)
def test_gemm_bad_attributes(attrs, n_in, opset, msg):
    with pytest.raises(NodeError, match=msg):
        Node("Gemm", [F32] * n_in, onnx_opset=opset, attributes=attrs, name="g")


def test_gemm_c_must_broadcast():
    n = Node("Gemm", [F32] * 3, onnx_opset=13, name="g")
    with pytest.raises(NodeError, match=r"C \[4\] does not broadcast to \[M, N\] = \[3, 5\]"):
        n.run(np.zeros((3, 2), np.float32), np.zeros((2, 5), np.float32), np.zeros((4,), np.float32))


def _model(op: str, a_shape, b: np.ndarray, **attrs) -> onnx.ModelProto:
    node = helper.make_node(op, ["a", "b"], ["y"], name="n0", **attrs)
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("a", F32, a_shape)],
        [helper.make_tensor_value_info("y", F32, None)],
        initializer=[numpy_helper.from_array(b, "b")],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=10)


@pytest.mark.parametrize(
    "op,bshape,attrs", [("MatMul", (64, 48), {}), ("MatMul", (64,), {}), ("Gemm", (48, 64), {"transB": 1})]
)
@pytest.mark.parametrize("threads", [1, 2])
def test_constant_b_through_ort_same_bits_every_path(op, bshape, attrs, threads):
    rng = np.random.default_rng(3)
    a = rng.standard_normal((33, 64)).astype(np.float32)
    b = rng.standard_normal(bshape).astype(np.float32)
    model = _model(op, [33, 64], b, **attrs)
    outs = []
    for p in PATHS:
        so = ort.SessionOptions()
        so.intra_op_num_threads = threads
        sess = onemodel_ep.InferenceSession(model, so, kernel_path=p)
        assert [n.op for n in sess.rewrite_report.moved] == [op]
        outs.append(sess.run(None, {"a": a})[0])
    direct = Node(op, [F32, F32], onnx_opset=17, attributes=attrs).run(a, b)
    for o in outs:
        assert o.tobytes() == direct.tobytes()


@pytest.mark.parametrize("op", ["MatMul", "Gemm"])
def test_exact_nan_is_canonical_on_every_path(op):
    """A NaN payload in an operand must not reach the output: FMA instructions differ in which NaN they pass
    (glibc's software fmaf, used where the CPU has no FMA, and VFMADD do not agree)."""
    rng = np.random.default_rng(4)
    a = rng.standard_normal((19, 37)).astype(np.float32)
    b = rng.standard_normal((37, 23)).astype(np.float32)
    a.view(np.uint32)[3, 5] = 0x7F800123  # signalling, payload
    b.view(np.uint32)[7, 2] = 0xFFC00456  # quiet, negative, payload
    for p in PATHS:
        y = Node(op, [F32, F32], onnx_opset=13, kernel_path=p).run(a, b)
        nan = np.isnan(y)
        assert nan[3].all() and nan[:, 2].all()
        assert (y.view(np.uint32)[nan] == 0x7FC00000).all(), p
