"""The EP's Reshape, Unsqueeze, Squeeze, Flatten and Identity kernels declare output 0 an alias of input 0 (as
stock ORT's do, ep/ep_kernels.c): ORT hands them input 0's own buffer and they copy nothing. The planner must
then keep that buffer alive and unchanged for every reader of either name: an intermediate read both through
an alias chain and by an element-wise node that may overwrite its input in place, a graph input reshaped into
a graph output, an alias as a graph output. Each output is compared bit for bit with NumPy (products and sums
of f32 are single IEEE roundings in both), on two runs of the same session (buffers reused), 1 and 2 threads,
ORT's optimiser off (it would remove the Unsqueeze-Squeeze pair).
"""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

import onemodel_ep
from onemodel_ep import ep
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
