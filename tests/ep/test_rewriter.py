"""Rewriter basics: never edits its input, keeps IR version and names, passes the checker, retargets
subgraphs, leaves unsupported ops/types with a reason; a hand-written unsupported node fails at session
creation with a message naming node, op and type."""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

import onemodel_ep
from onemodel_ep import DOMAIN

F = TensorProto.FLOAT


def _model(nodes, inputs, outputs, opset=17, name="g"):
    g = helper.make_graph(nodes, name, inputs, outputs)
    m = helper.make_model(g, ir_version=9, opset_imports=[helper.make_opsetid("", opset)])
    onnx.checker.check_model(m)
    return m


def _vi(name, t=F, shape=(4,)):
    return helper.make_tensor_value_info(name, t, list(shape) if shape is not None else None)


def _simple():
    return _model(
        [
            helper.make_node("Add", ["x", "y"], ["s"], name="add0"),
            helper.make_node("Atan", ["s"], ["p"], name="atan0"),
            helper.make_node("Mul", ["p", "y"], ["z"], name="mul0"),
        ],
        [_vi("x"), _vi("y")],
        [_vi("z")],
    )


def _subgraph_model():
    then_g = helper.make_graph(
        [helper.make_node("Add", ["x", "y"], ["t"], name="then_add")], "then", [], [_vi("t")]
    )
    else_g = helper.make_graph(
        [helper.make_node("Sub", ["x", "y"], ["e"], name="else_sub")], "else", [], [_vi("e")]
    )
    loop_body = helper.make_graph(
        [
            helper.make_node("Mul", ["acc_in", "y"], ["acc_out"], name="loop_mul"),
            helper.make_node("Identity", ["cond_in"], ["cond_out"], name="loop_id"),
        ],
        "body",
        [
            helper.make_tensor_value_info("i", TensorProto.INT64, []),
            helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
            _vi("acc_in"),
        ],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []), _vi("acc_out")],
    )
    scan_body = helper.make_graph(
        [
            helper.make_node("Max", ["s_in", "row"], ["s_out"], name="scan_max"),
            helper.make_node("Identity", ["s_out"], ["row_out"], name="scan_id"),
        ],
        "scan_body",
        [_vi("s_in"), _vi("row")],
        [_vi("s_out"), _vi("row_out")],
    )
    nodes = [
        helper.make_node("If", ["c"], ["r_if"], name="if0", then_branch=then_g, else_branch=else_g),
        helper.make_node("Loop", ["n", "", "r_if"], ["r_loop"], name="loop0", body=loop_body),
        helper.make_node(
            "Scan",
            ["r_loop", "rows"],
            ["r_scan", "rows_out"],
            name="scan0",
            body=scan_body,
            num_scan_inputs=1,
        ),
    ]
    return _model(
        nodes,
        [
            helper.make_tensor_value_info("c", TensorProto.BOOL, []),
            helper.make_tensor_value_info("n", TensorProto.INT64, []),
            _vi("x"),
            _vi("y"),
            _vi("rows", shape=(3, 4)),
        ],
        [_vi("r_scan"), _vi("rows_out", shape=(3, 4))],
    )


def test_input_never_edited():
    for m in (_simple(), _subgraph_model()):
        before = m.SerializeToString()
        for mode in ("exact", "fast"):
            onemodel_ep.rewrite(m, mode=mode)
            onemodel_ep.rewrite(m, mode=mode, kernel_path="scalar")
        assert m.SerializeToString() == before


def test_keeps_ir_names_and_checks():
    m = _simple()
    r = onemodel_ep.rewrite(m)
    assert r.ir_version == m.ir_version == 9
    assert [n.name for n in r.graph.node] == [n.name for n in m.graph.node]
    assert [(n.input, n.output) for n in r.graph.node] == [(n.input, n.output) for n in m.graph.node]
    assert [i.name for i in r.graph.input] == ["x", "y"] and [o.name for o in r.graph.output] == ["z"]
    onnx.checker.check_model(r)
    domains = {n.name: n.domain for n in r.graph.node}
    assert domains == {"add0": DOMAIN, "atan0": "", "mul0": DOMAIN}
    assert any(i.domain == DOMAIN for i in r.opset_import)


def test_atan_and_bf16_stay_with_reason():
    m = _model(
        [
            helper.make_node("Add", ["a", "b"], ["c"], name="bf_add"),
            helper.make_node("Atan", ["x"], ["p"], name="atan"),
        ],
        [_vi("a", TensorProto.BFLOAT16), _vi("b", TensorProto.BFLOAT16), _vi("x")],
        [_vi("c", TensorProto.BFLOAT16), _vi("p")],
    )
    rep = onemodel_ep.RewriteReport("exact", None)
    r = onemodel_ep.rewrite(m, report=rep)
    assert all(n.domain == "" for n in r.graph.node)
    by_name = {n.name: n for n in rep.nodes}
    assert not by_name["bf_add"].moved and by_name["bf_add"].category == "type" and by_name["bf_add"].reason
    assert "bfloat16" in by_name["bf_add"].reason or "bfloat16" in str(by_name["bf_add"])
    assert not by_name["atan"].moved and by_name["atan"].category == "op" and by_name["atan"].reason
    assert "Atan" in rep.summary()


def test_subgraphs_are_retargeted_and_run():
    m = _subgraph_model()
    rep = onemodel_ep.RewriteReport("exact", None)
    r = onemodel_ep.rewrite(m, report=rep)
    onnx.checker.check_model(r)
    moved = {n.name for n in rep.moved}
    assert {"then_add", "else_sub", "loop_mul", "scan_max"} <= moved
    graphs = {n.name: n.graph for n in rep.moved}
    assert graphs["then_add"].startswith("main/") and "then_branch" in graphs["then_add"]

    def domains(g, acc):
        for n in g.node:
            acc[n.name] = n.domain
            for a in n.attribute:
                if a.type == onnx.AttributeProto.GRAPH:
                    domains(a.g, acc)
        return acc

    d = domains(r.graph, {})
    assert d["then_add"] == d["else_sub"] == d["loop_mul"] == d["scan_max"] == DOMAIN
    assert d["loop_id"] == DOMAIN and d["if0"] == ""  # Identity is served; If is not
    rng = np.random.default_rng(0)
    feeds = {
        "c": np.array(True),
        "n": np.array(2, np.int64),
        "x": rng.standard_normal(4).astype(np.float32),
        "y": rng.standard_normal(4).astype(np.float32),
        "rows": rng.standard_normal((3, 4)).astype(np.float32),
    }
    want = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, feeds)
    got = ort.InferenceSession(
        r.SerializeToString(), sess_options=onemodel_ep.session_options(), providers=["CPUExecutionProvider"]
    ).run(None, feeds)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


def test_rewrite_rejects_bad_arguments():
    with pytest.raises(ValueError):
        onemodel_ep.rewrite(_simple(), mode="approx")
    with pytest.raises(ValueError):
        onemodel_ep.rewrite(_simple(), kernel_path="1024")
    with pytest.raises(TypeError):
        onemodel_ep.rewrite(b"not a model")


def test_handwritten_bf16_node_fails_at_session_creation():
    node = helper.make_node(
        "Add", ["a", "b"], ["c"], name="my_bf16_add", domain=DOMAIN, mode="exact", onnx_opset=17
    )
    g = helper.make_graph(
        [node],
        "g",
        [_vi("a", TensorProto.BFLOAT16), _vi("b", TensorProto.BFLOAT16)],
        [_vi("c", TensorProto.BFLOAT16)],
    )
    m = helper.make_model(
        g, ir_version=9, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid(DOMAIN, 1)]
    )
    with pytest.raises(Exception) as info:
        ort.InferenceSession(
            m.SerializeToString(),
            sess_options=onemodel_ep.session_options(),
            providers=["CPUExecutionProvider"],
        )
    msg = str(info.value)
    assert "my_bf16_add" in msg and "Add" in msg and "bfloat16" in msg, msg
