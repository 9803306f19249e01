"""Reshape, Unsqueeze, Squeeze, Flatten and Identity through the execution provider declare, as stock ORT's
kernels do, that output 0 may be input 0's buffer (ep/ep_kernels.c): ORT then hands the kernel X's buffer
as Y and the kernel copies nothing. These graphs put such a view next to consumers that may write in place
(Relu, Add: output 0 may reuse input 0) and next to graph inputs and outputs, so a view wrongly shared with a
buffer that is later overwritten would show as a wrong value."""

from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from tests.nodes import node_sessions as NS

VIEWS = ("Reshape", "Unsqueeze", "Squeeze", "Flatten", "Identity")


def _view(op: str, src: str, dst: str) -> tuple[onnx.NodeProto, list[onnx.TensorProto]]:
    """A view node of [2, 1, 3, 4] whose output has 24 elements; its constant inputs."""
    if op == "Reshape":
        shape = numpy_helper.from_array(np.array([4, 6]), "shape")
        return helper.make_node(op, [src, "shape"], [dst]), [shape]
    if op in ("Unsqueeze", "Squeeze"):
        axes = numpy_helper.from_array(np.array([0 if op == "Unsqueeze" else 1]), "axes")
        return helper.make_node(op, [src, "axes"], [dst]), [axes]
    return helper.make_node(op, [src], [dst]), []


def _model(op: str) -> onnx.ModelProto:
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


def test_views_share_no_buffer_that_is_overwritten() -> None:
    x = np.random.default_rng(5).standard_normal((2, 1, 3, 4)).astype(np.float32)
    a = x + np.float32(1)
    c = np.maximum(a, 0) + np.maximum(a, 0)
    for op in VIEWS:
        model = _model(op)
        want = NS.stock(model, {"x": x})
        assert np.array_equal(want[0].reshape(-1), a.reshape(-1)) and np.array_equal(want[1], c)
        for threads in (1, 2):
            sess = NS.session(model, "ep", None, threads)
            assert op in [n.op for n in sess.report.moved], (op, sess.report.summary())
            for _ in range(3):  # buffers reused across runs too
                got = sess.run(None, {"x": x})
                for k, (g, w) in enumerate(zip(got, want, strict=True)):
                    NS.assert_exact_bits(f"{op} output {k}, {threads} thread(s)", g, w)
