"""A model of one node and an InferenceSession over it (ORT's log quiet), for the tests of what becomes of a
node the library refuses or leaves to stock ORT."""

from __future__ import annotations

from collections.abc import Sequence

import onnx
import onnxruntime as ort
from onnx import helper

import onemodel_ep


def one_node_model(
    node: onnx.NodeProto,
    inputs: Sequence[onnx.ValueInfoProto],
    outputs: Sequence[onnx.ValueInfoProto],
    opset: int,
    initializers: Sequence[onnx.TensorProto] = (),
) -> onnx.ModelProto:
    """`node` alone in a graph "g" (IR version 8, the default domain at `opset`)."""
    graph = helper.make_graph([node], "g", list(inputs), list(outputs), initializer=list(initializers))
    return helper.make_model(graph, ir_version=8, opset_imports=[helper.make_opsetid("", opset)])


def quiet_session(model: onnx.ModelProto, via: str) -> onemodel_ep.InferenceSession:
    so = ort.SessionOptions()
    so.log_severity_level = 3
    return onemodel_ep.InferenceSession(model, sess_options=so, via=via)


def assert_left_to_stock(model: onnx.ModelProto, via: str, refusal: Sequence[str]) -> None:
    """The model's one node is left to stock ORT: the report says it did not move, or session creation fails
    with a message holding each of `refusal` (stock's own kernel refusing it, or ours naming it)."""
    try:
        sess = quiet_session(model, via)
    except Exception as e:  # noqa: BLE001 - refused at creation
        assert all(r in str(e) for r in refusal), str(e)
        return
    assert [n.moved for n in sess.report.nodes] == [False]
