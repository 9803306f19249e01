"""The EP's Reshape, Unsqueeze, Squeeze, Flatten and Identity kernels declare output 0 an alias of input 0 (as
stock ORT's do, ep/ep_kernels.c): ORT hands them input 0's own buffer and they copy nothing. The planner must
then keep that buffer alive and unchanged for every reader of either name: an intermediate read both through
an alias chain and by an element-wise node that may overwrite its input in place, a graph input reshaped into
a graph output, an alias as a graph output. Each output is compared bit for bit with NumPy (products and sums
of f32 are single IEEE roundings in both), on two runs of the same session (buffers reused), 1 and 2 threads,
ORT's optimiser off (it would remove the Unsqueeze-Squeeze pair). And each view alone next to consumers that
may write in place (Relu, Add: output 0 may reuse input 0) and next to graph inputs and outputs, against stock
ORT, three runs of one session: a view wrongly shared with a buffer later overwritten shows as a wrong value.
"""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

import onemodel_ep
from onemodel_ep import ep
from tests.nodes import node_sessions as NS
from tests.nodes.node_sessions import assert_exact_bits

pytestmark = pytest.mark.skipif(not onemodel_ep.ep_supported(), reason="needs ORT's plugin EP API")

ALIASED = ("Reshape", "Unsqueeze", "Squeeze", "Flatten", "Identity")


def _model() -> onnx.ModelProto:
    f32 = TensorProto.FLOAT
    nodes = [
        helper.make_node("Mul", ["a", "b"], ["m"], name="mul"),
        helper.make_node("Reshape", ["m", "shape"], ["r"], name="reshape"),
        helper.make_node("Unsqueeze", ["r", "axes"], ["u"], name="unsqueeze"),
        helper.make_node("Squeeze", ["u", "axes"], ["s"], name="squeeze"),
        helper.make_node("Flatten", ["s"], ["f"], name="flatten", axis=1),
        helper.make_node("Identity", ["f"], ["i"], name="identity"),
        helper.make_node("Add", ["m", "b"], ["y"], name="add_in_place"),  # may overwrite m's buffer
        helper.make_node("Mul", ["i", "i"], ["z"], name="square"),
        helper.make_node("Reshape", ["a", "flat"], ["o"], name="reshape_input"),
        helper.make_node("Identity", ["m"], ["im"], name="identity_out"),
    ]
    inits = [numpy_helper.from_array(np.array([6, 4], np.int64), "shape"),
             numpy_helper.from_array(np.array([0], np.int64), "axes"),
             numpy_helper.from_array(np.array([24], np.int64), "flat")]
    graph = helper.make_graph(
        nodes, "aliases",
        [helper.make_tensor_value_info(n, f32, [4, 6]) for n in ("a", "b")],
        [helper.make_tensor_value_info(n, f32, None) for n in ("y", "z", "o", "im")], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model


def _reference(a: np.ndarray, b: np.ndarray) -> list[np.ndarray]:
    m = a * b
    i = m.reshape(6, 4)
    return [m + b, i * i, a.reshape(24), m]


@pytest.mark.parametrize("threads", [1, 2])
def test_aliased_outputs_keep_every_reader_right(threads: int) -> None:
    model = _model()
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.log_severity_level = 3
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    sess = ort.InferenceSession(model.SerializeToString(), ep.ep_session_options(so), enable_fallback=0)
    on_ep = {a.op for a in ep.assignments(sess) if a.ep == ep.EP_NAME}
    assert set(ALIASED) <= on_ep, on_ep
    rng = np.random.default_rng(35)
    for run in range(2):
        a = rng.standard_normal((4, 6)).astype(np.float32)
        b = rng.standard_normal((4, 6)).astype(np.float32)
        a0, b0 = a.copy(), b.copy()
        got = sess.run(None, {"a": a, "b": b})
        for name, g, w in zip(("y", "z", "o", "im"), got, _reference(a0, b0), strict=True):
            assert_exact_bits(f"{name}, run {run}, {threads} thread(s)", g, w)
        assert_exact_bits(f"input a after run {run}", a, a0)  # the graph input under an alias stays as fed
        assert_exact_bits(f"input b after run {run}", b, b0)


def _view(op: str, src: str, dst: str) -> tuple[onnx.NodeProto, list[onnx.TensorProto]]:
    """A view node of [2, 1, 3, 4] whose output has 24 elements; its constant inputs."""
    if op == "Reshape":
        shape = numpy_helper.from_array(np.array([4, 6]), "shape")
        return helper.make_node(op, [src, "shape"], [dst]), [shape]
    if op in ("Unsqueeze", "Squeeze"):
        axes = numpy_helper.from_array(np.array([0 if op == "Unsqueeze" else 1]), "axes")
        return helper.make_node(op, [src, "axes"], [dst]), [axes]
    return helper.make_node(op, [src], [dst]), []


def _view_model(op: str) -> onnx.ModelProto:
    """a = x + 1; v = view(a) (graph output); b = Relu(a); c = b + b (graph output); w = view(x) (graph
    output): a's buffer is wanted by v after Relu and Add, which may write in place."""
    view_a, inits = _view(op, "a", "v")
    view_x, _ = _view(op, "x", "w")
    view_x.name = "view_x"
    one = numpy_helper.from_array(np.ones((), np.float32), "one")
    nodes = [helper.make_node("Add", ["x", "one"], ["a"]), view_a, helper.make_node("Relu", ["a"], ["b"]),
             helper.make_node("Add", ["b", "b"], ["c"]), view_x]
    vi = helper.make_tensor_value_info
    graph = helper.make_graph(nodes, "g", [vi("x", TensorProto.FLOAT, [2, 1, 3, 4])],
                              [vi(n, TensorProto.FLOAT, None) for n in ("v", "c", "w")],
                              initializer=[one, *inits])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)


@pytest.mark.parametrize("op", ALIASED)
def test_each_view_shares_no_buffer_that_is_overwritten(op: str) -> None:
    x = np.random.default_rng(5).standard_normal((2, 1, 3, 4)).astype(np.float32)
    a = x + np.float32(1)
    c = np.maximum(a, 0) + np.maximum(a, 0)
    model = _view_model(op)
    want = NS.stock(model, {"x": x})
    assert np.array_equal(want[0].reshape(-1), a.reshape(-1)) and np.array_equal(want[1], c)
    for threads in (1, 2):
        sess = NS.session(model, "ep", None, threads)
        assert op in [n.op for n in sess.report.moved], (op, sess.report.summary())
        for _ in range(3):  # buffers reused across runs too
            got = sess.run(None, {"x": x})
            for k, (g, w) in enumerate(zip(got, want, strict=True)):
                assert_exact_bits(f"{op} output {k}, {threads} thread(s)", g, w)
