"""The QOperator-format ResNet (testdata/quant, tools/gen/make_quant_models.py: ORT's quantize_static) through
OneModel EP: every computing node is ours except the QOperator ops the op table does not serve yet (today
com.microsoft QLinearAdd; QLinearConv and com.microsoft QGemm are served); each that the table gains must run
on the EP, and the logits stay within one quantization step of stock ORT's."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest

import onemodel_ep
from onemodel_ep.computing import is_computing
from onemodel_ep.digests import model_feeds

QOP = Path(__file__).resolve().parents[2] / "testdata" / "quant" / "resnet18_small_qop.onnx"
SERVED = {k.rsplit(".", 1)[-1] for k in onemodel_ep.op_table()}
NOT_YET = {"QLinearConv", "QLinearAdd", "QGemm"} - SERVED
VIAS = ("rewrite", "ep") if onemodel_ep.ep_supported() else ("rewrite",)


def _ours(via: str) -> onemodel_ep.InferenceSession:
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.log_severity_level = 3
    return onemodel_ep.InferenceSession(str(QOP), sess_options=so, via=via)


@pytest.mark.parametrize("via", VIAS)
def test_every_computing_node_but_those_not_yet_served_is_ours(via: str) -> None:
    """Through the rewrite a node whose input type neither ONNX inference (it knows no com.microsoft schema)
    nor ORT's (ort_shapes.ort_value_types) could tell would stay too, reported as of unknown type; and so,
    transitively, would a node reading such a node's output. Those are allowed here."""
    model = onnx.load(str(QOP))
    unknown = {i for n in model.graph.node if n.op_type in NOT_YET for i in n.output}
    inputs_of = {n.name: set(n.input) for n in model.graph.node}
    outputs_of = {n.name: set(n.output) for n in model.graph.node}
    report = _ours(via).report
    unknown_type = [n for n in report.stayed if via == "rewrite" and n.category == "unknown type"]
    grew = True
    while grew:  # the tensors of unknown type: NOT_YET's outputs, then those of the nodes reading them
        grew = False
        for n in unknown_type:
            if inputs_of.get(n.name, set()) & unknown and not outputs_of[n.name] <= unknown:
                unknown |= outputs_of[n.name]
                grew = True
    stayed = set()
    for n in report.stayed:
        if not is_computing(n.op, n.domain):
            continue
        if n in unknown_type and inputs_of.get(n.name, set()) & unknown:
            continue
        stayed.add(n.op)
    assert stayed <= NOT_YET, f"via {via}: computing nodes left to stock ORT: {sorted(stayed)}"


@pytest.mark.parametrize("via", VIAS)
def test_logits_close_to_stock(via: str) -> None:
    feeds = model_feeds(QOP)
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    (want,) = ort.InferenceSession(str(QOP), so, providers=["CPUExecutionProvider"]).run(None, feeds)
    (got,) = _ours(via).run(None, feeds)
    assert got.shape == want.shape
    assert float(np.max(np.abs(got - want))) <= 0.05 * float(np.max(np.abs(want)))


def test_ep_logits_are_stocks_bits() -> None:
    """Through the EP every QLinearConv is ours (20), and the classifier's QGemm (transB, an int32 bias, y
    uint8), and give stock's bits (docs/quantized-conv.md, docs/quantized-matmul.md: the same exact sums and
    binary32 requantisation), the other served ops are exact data movement or MaxPool on integers: so the
    logits are stock's, bit for bit."""
    if "ep" not in VIAS:
        pytest.skip("the execution provider needs ONNX Runtime 1.24+")
    feeds = model_feeds(QOP)
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    (want,) = ort.InferenceSession(str(QOP), so, providers=["CPUExecutionProvider"]).run(None, feeds)
    sess = _ours("ep")
    assert sum(n.op == "QLinearConv" for n in sess.report.moved) == 20
    assert sum(n.op == "QGemm" for n in sess.report.moved) == 1
    (got,) = sess.run(None, feeds)
    assert got.tobytes() == want.tobytes()


def test_rewrite_moves_every_node_of_the_qoperator_resnet() -> None:
    """Through the rewrite every node of the QOperator ResNet moves (QGemm too) and gives the EP's bits."""
    sess = _ours("rewrite")
    assert not sess.report.stayed, sess.report.summary()
    assert sum(n.op == "QLinearConv" for n in sess.report.moved) == 20
    assert sum(n.op == "DequantizeLinear" for n in sess.report.moved) == 2
    if "ep" not in VIAS:
        return
    feeds = model_feeds(QOP)
    (got,) = sess.run(None, feeds)
    (want,) = _ours("ep").run(None, feeds)
    assert got.tobytes() == want.tobytes()


def test_rewrite_types_values_after_unserved_com_microsoft_ops() -> None:
    """ONNX inference knows no com.microsoft schema, so the output of a com.microsoft op we do not serve
    (Inverse) has no type; ORT's own inference (ort_shapes.ort_value_types) types it, so the Relu after it
    moves through the rewrite while Inverse stays, and the result is stock's."""
    from onnx import TensorProto, helper

    nodes = [helper.make_node("Inverse", ["x"], ["inv"], domain="com.microsoft", name="inverse"),
             helper.make_node("Relu", ["inv"], ["y"], name="relu")]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 3])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    model = helper.make_model(graph, ir_version=10, opset_imports=[helper.make_opsetid("", 17),
                                                                   helper.make_opsetid("com.microsoft", 1)])
    sess = onemodel_ep.InferenceSession(model, via="rewrite")
    assert [n.op for n in sess.report.stayed] == ["Inverse"], sess.report.summary()
    assert [n.op for n in sess.report.moved] == ["Relu"], sess.report.summary()
    x = (np.eye(3, dtype=np.float32) * 2 + 0.25)[None].repeat(2, 0)
    (got,) = sess.run(None, {"x": x})
    stock = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    (want,) = stock.run(None, {"x": x})
    assert got.tobytes() == want.tobytes()
