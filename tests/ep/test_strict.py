"""Strict mode (onemodel_ep.strict, onemodel_ep.computing) and an EP report that matches ORT's placement
(onemodel_ep.fused): a model whose computing nodes all run on OneModel EP passes, one with a node OneModel EP
does not serve (Det, in the main graph and inside an If) is refused at session creation naming each such
node; nodes ORT fused into a node on our EP count as ours."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

import onemodel_ep
from onemodel_ep import computing, ep, fused, strict
from onemodel_ep.errors import StrictModeError, UsageError

pytestmark = pytest.mark.skipif(not ep.ep_supported(), reason="no plugin kernel registries in this ORT")
ROOT = Path(__file__).resolve().parents[2]


def _f32(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


def _model(nodes, inputs, outputs, inits=()) -> onnx.ModelProto:
    g = helper.make_graph(nodes, "g", inputs, outputs, list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)], ir_version=9)
    onnx.checker.check_model(m, full_check=True)
    return m


def ours_model() -> onnx.ModelProto:
    """Computing nodes OneModel EP serves, and a Reshape (data movement: may run on either EP)."""
    shape = numpy_helper.from_array(np.array([12], np.int64), "shape")
    nodes = [
        helper.make_node("Exp", ["x"], ["e"], name="exp"),
        helper.make_node("Add", ["e", "x"], ["s"], name="add"),
        helper.make_node("Reshape", ["s", "shape"], ["y"], name="flat"),
    ]
    return _model(nodes, [_f32("x", [3, 4])], [_f32("y", [12])], [shape])


def det_model() -> onnx.ModelProto:
    """Det (not an operator of OneModel EP) in the main graph and in an If's then-branch; the rest ours."""
    then_g = helper.make_graph(
        [helper.make_node("Det", ["x"], ["d1"], name="det_in_then"), helper.make_node("Exp", ["d1"], ["t"])],
        "then",
        [],
        [_f32("t", [])],
    )
    else_g = helper.make_graph(
        [helper.make_node("ReduceSum", ["x"], ["r"], name="sum_in_else", keepdims=0)],
        "else",
        [],
        [_f32("r", [])],
    )
    nodes = [
        helper.make_node("Det", ["x"], ["d0"], name="det_main"),
        helper.make_node("Greater", ["d0", "zero"], ["c"], name="positive"),
        helper.make_node("If", ["c"], ["y"], name="branch", then_branch=then_g, else_branch=else_g),
    ]
    zero = numpy_helper.from_array(np.array(0, np.float32), "zero")
    return _model(nodes, [_f32("x", [3, 3])], [_f32("y", [])], [zero])


def matmul_add_model() -> onnx.ModelProto:
    """MatMul -> Add of a constant bias: ORT's MatMulAddFusion makes them one Gemm."""
    w = numpy_helper.from_array(np.arange(32, dtype=np.float32).reshape(8, 4) / 8, "w")
    b = numpy_helper.from_array(np.arange(4, dtype=np.float32), "b")
    nodes = [
        helper.make_node("MatMul", ["x", "w"], ["m"], name="mm"),
        helper.make_node("Add", ["m", "b"], ["y"], name="bias"),
    ]
    return _model(nodes, [_f32("x", [2, 8])], [_f32("y", [2, 4])], [w, b])


def _quiet() -> ort.SessionOptions:
    so = ort.SessionOptions()
    so.log_severity_level = 3
    return so


@pytest.mark.parametrize("via", ["ep", "rewrite"])
def test_a_model_fully_ours_passes_strict_mode(via):
    sess = onemodel_ep.InferenceSession(ours_model(), _quiet(), via=via, strict=True)
    x = np.linspace(-2, 2, 12, dtype=np.float32).reshape(3, 4)
    plain = onemodel_ep.InferenceSession(ours_model(), _quiet(), via=via)
    assert np.array_equal(sess.run(None, {"x": x})[0], plain.run(None, {"x": x})[0])
    assert {n.name for n in sess.report.moved} >= {"exp", "add"}


@pytest.mark.parametrize("via", ["ep", "rewrite"])
@pytest.mark.parametrize("name", ["bert_tiny", "llama_tiny"])
def test_the_test_models_pass_strict_mode(name, via):
    # Every computing node is ours; whatever stays with ORT is data movement: strict mode holds.
    sess = onemodel_ep.InferenceSession(str(ROOT / "testdata" / "models" / f"{name}.onnx"), _quiet(), via=via,
                                        strict=True)
    assert sess.report.moved
    assert all(not computing.is_computing(n.op, "", n.input_types) for n in sess.report.stayed)


@pytest.mark.parametrize("via", ["ep", "rewrite"])
def test_a_stock_only_computing_node_fails_session_creation_naming_each(via):
    with pytest.raises(StrictModeError) as info:
        onemodel_ep.InferenceSession(det_model(), _quiet(), via=via, strict=True)
    e = info.value
    assert isinstance(e, UsageError)
    lines = str(e).splitlines()
    assert lines[0] == f"strict mode: 2 computing node(s) of the model would run outside {ep.EP_NAME}:"
    assert lines[1:] == list(e.nodes) and len(e.nodes) == 2
    by_name = {line.split(":")[0].strip(): line for line in e.nodes}
    assert set(by_name) == {"det_main", "det_in_then"}  # not the served nodes, nor the If itself
    for name, graph in (("det_main", "main"), ("det_in_then", "main/branch.then_branch")):
        line = by_name[name]
        assert "op Det, domain ai.onnx" in line and f"graph {graph}" in line, line
        assert "Det is not an operator of OneModel EP" in line, line  # the EP report's reason


def test_without_strict_the_same_model_runs():
    sess = onemodel_ep.InferenceSession(det_model(), _quiet())
    assert [n.name for n in sess.report.stayed if n.op == "Det"] == ["det_main", "det_in_then"]


def test_check_session_judges_a_plain_ort_session():
    # With strict=True the EP itself refuses the session (tests/ep/test_strict_ep.py); check_session judges a
    # session made without it, ORT's own record of placement included.
    so = ep.ep_session_options(_quiet())
    assert strict.strict_requested(ep.ep_session_options(_quiet(), strict=True))
    assert not strict.strict_requested(so)
    m = det_model()
    sess = ort.InferenceSession(m.SerializeToString(), so, enable_fallback=0)
    with pytest.raises(StrictModeError, match="det_main"):
        strict.check_session(m, sess)
    ok = ours_model()
    strict.check_session(ok, ort.InferenceSession(ok.SerializeToString(), ep.ep_session_options(_quiet())))


def test_strict_options_reach_onemodel_sessions():
    so = _quiet()
    so.add_session_config_entry(ep.STRICT_KEY, "1")
    with pytest.raises(StrictModeError):
        onemodel_ep.InferenceSession(det_model(), so)


def test_computing_nodes_are_all_but_data_movement_and_control_flow():
    for op in ("Reshape", "Transpose", "Gather", "Concat", "Shape", "Identity", "If", "Loop", "Scan"):
        assert not computing.is_computing(op), op
        assert computing.is_computing(op, "com.microsoft"), op
    for op in ("Det", "Add", "MatMul", "Gemm", "Cast", "Range", "ScatterND", "Resize"):
        assert computing.is_computing(op), op
    assert computing.is_computing("FusedGemm", "com.microsoft")
    assert not computing.is_computing("Range", "", ("int64", "int64", "int64"))
    assert computing.is_computing("Range", "", ("float", "float", "float"))
    assert computing.is_computing("Range", "", ("int64", "unknown", "int64"))


def test_the_data_movement_set_is_documented():
    doc = (ROOT / "docs" / "architecture.md").read_text()
    named = computing.DATA_MOVEMENT_OPS | computing.CONTROL_FLOW_OPS | computing.INTEGER_DATA_MOVEMENT_OPS
    missing = sorted(o for o in named if f"`{o}`" not in doc)
    assert not missing, f"docs/architecture.md does not name {missing}"


LEVELS = (ort.GraphOptimizationLevel.ORT_ENABLE_BASIC, ort.GraphOptimizationLevel.ORT_ENABLE_ALL)


@pytest.mark.parametrize("dispatch", ep.DISPATCHES)
@pytest.mark.parametrize("level", LEVELS, ids=["basic", "all"])
def test_report_counts_nodes_ort_fused_where_ort_placed_them(level, dispatch):
    m = matmul_add_model()
    so = _quiet()
    so.graph_optimization_level = level
    so = ep.ep_session_options(so, dispatch=dispatch)
    sess = ort.InferenceSession(m.SerializeToString(), so, enable_fallback=0)
    placed = ep.assignments(sess)
    # What ORT 1.31 does even with ep_session_options' optimisers off: one Gemm of its own, on our EP.
    assert [(a.op, a.ep) for a in placed] == [("Gemm", ep.EP_NAME)], placed
    assert placed[0].name not in {n.name for n in m.graph.node}
    report = ep.ep_report(m, sess, "exact", None)
    assert report.fused == {placed[0].name: ["mm", "bias"]}
    assert [n.name for n in report.moved] == ["mm", "bias"] and not report.stayed
    assert all(n.category == "fused" and placed[0].name in n.reason for n in report.moved)
    # The report's counts are ORT's: each placed node, counted as the model nodes it stands for.
    for ep_name, nodes in ((ep.EP_NAME, report.moved), ("CPUExecutionProvider", report.stayed)):
        ort_count = sum(len(report.fused.get(a.name, [a.name])) for a in placed if a.ep == ep_name)
        assert len(nodes) == ort_count, ep_name
    strict.check_session(m, sess)  # fused onto our EP: strict mode holds


def test_fused_into_follows_values_from_the_named_node_and_leaves_removed_nodes():
    made = [ep.Assignment("mm/MatMulAddFusion", "Gemm", "", ep.EP_NAME)]
    gone = [
        helper.make_node("Add", ["m", "b"], ["y"], name="bias"),  # joined to mm by "m"
        helper.make_node("MatMul", ["x", "w"], ["m"], name="mm"),
        helper.make_node("Identity", ["z"], ["z2"], name="id"),  # joined to nothing gone: removed
    ]
    assert fused.fused_into(gone, made) == [made[0], made[0], None]
    assert fused.fused_into(gone[2:], made) == [None]
