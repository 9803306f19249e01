"""Strict mode read by the execution provider itself (the EP option `strict`, set by
ep_session_options(strict=True)): a plain onnxruntime.InferenceSession fails at creation with one error naming
each computing node the EP leaves to another provider, every graph's, as `node 'NAME' (op DOMAIN:OP): why`; a
model whose computing nodes are all served runs, with the same bits as without strict mode."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from onemodel_ep import ep
from tests.ep.test_strict import _f32, _model, det_model, ours_model

pytestmark = pytest.mark.skipif(not ep.ep_supported(), reason="no plugin kernel registries in this ORT")
ROOT = Path(__file__).resolve().parents[2]
NOT_OURS = "not an operator of OneModel EP"


def _session(
    model: onnx.ModelProto | str, strict: bool = True, dispatch: str = "registry"
) -> ort.InferenceSession:
    so = ort.SessionOptions()
    so.log_severity_level = 3
    so = ep.ep_session_options(so, dispatch=dispatch, strict=strict)
    source = model if isinstance(model, str) else model.SerializeToString()
    return ort.InferenceSession(source, so, enable_fallback=0)


def _refused(model: onnx.ModelProto, dispatch: str = "registry") -> list[str]:
    """The node lines of the EP's strict-mode refusal of `model`, after checking its summary line."""
    with pytest.raises(Exception) as info:
        _session(model, dispatch=dispatch)
    text = str(info.value)
    head, *lines = text[text.index("strict mode:") :].splitlines()
    assert head == f"strict mode: {len(lines)} computing node(s) would run outside {ep.EP_NAME}:", text
    return [line.strip() for line in lines]


def _if_model(then_nodes: list[onnx.NodeProto]) -> onnx.ModelProto:
    """A served main graph (ReduceSum, Greater, If); its then-branch `then_nodes` (writing t), else an Exp."""
    then_g = helper.make_graph(then_nodes, "then", [], [_f32("t", [3, 3])])
    else_g = helper.make_graph(
        [helper.make_node("Exp", ["x"], ["r"], name="exp_in_else")], "else", [], [_f32("r", [3, 3])]
    )
    nodes = [
        helper.make_node("ReduceSum", ["x"], ["s"], name="sum", keepdims=0),
        helper.make_node("Greater", ["s", "zero"], ["c"], name="positive"),
        helper.make_node("If", ["c"], ["y"], name="branch", then_branch=then_g, else_branch=else_g),
    ]
    zero = numpy_helper.from_array(np.array(0, np.float32), "zero")
    return _model(nodes, [_f32("x", [3, 3])], [_f32("y", [3, 3])], [zero])


@pytest.mark.parametrize("dispatch", ep.DISPATCHES)
def test_a_plain_session_names_every_refused_node_of_every_graph(dispatch):
    lines = _refused(det_model(), dispatch)
    assert sorted(lines) == [
        f"node 'det_in_then' (op ai.onnx:Det): {NOT_OURS}",
        f"node 'det_main' (op ai.onnx:Det): {NOT_OURS}",
    ]


def test_a_refused_node_only_in_a_subgraph_fails_the_session():
    then = [
        helper.make_node("Det", ["x"], ["d"], name="det_only_here"),
        helper.make_node("Add", ["x", "d"], ["t"], name="shift"),
    ]
    m = _if_model(then)
    assert _refused(m) == [f"node 'det_only_here' (op ai.onnx:Det): {NOT_OURS}"]


def test_an_op_of_another_domain_we_lack_is_named_with_its_domain():
    nodes = [helper.make_node("Inverse", ["x"], ["y"], name="inv", domain="com.microsoft")]
    g = helper.make_graph(nodes, "g", [_f32("x", [3, 3])], [_f32("y", [3, 3])])
    m = helper.make_model(
        g, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)], ir_version=9
    )
    assert _refused(m) == [f"node 'inv' (op com.microsoft:Inverse): {NOT_OURS}"]


def test_an_unserved_element_type_is_named_with_om_node_creates_reason():
    # Exp over double: an operator of OneModel EP, not over that type (om_node_create's message, unprefixed).
    d = helper.make_tensor_value_info
    nodes = [helper.make_node("Exp", ["x"], ["y"], name="exp64")]
    m = _model(nodes, [d("x", TensorProto.DOUBLE, [4])], [d("y", TensorProto.DOUBLE, [4])])
    (line,) = _refused(m)
    assert line.startswith("node 'exp64' (op ai.onnx:Exp): unsupported element type double for input 0"), line


def test_data_movement_left_to_ort_passes_strict_mode():
    # Range over int16 stays with stock ORT (OneModel serves int32, int64, float, double): integer data
    # movement, which strict mode lets ORT run.
    i16 = TensorProto.INT16
    inputs = [helper.make_tensor_value_info(n, i16, []) for n in ("a", "b", "c")]
    nodes = [helper.make_node("Range", ["a", "b", "c"], ["y"], name="positions")]
    m = _model(nodes, inputs, [helper.make_tensor_value_info("y", i16, [None])])
    one = {k: np.array(v, np.int16) for k, v in (("a", 0), ("b", 5), ("c", 1))}
    assert _session(m).run(None, one)[0].tolist() == [0, 1, 2, 3, 4]
    assert not any(a.ep == ep.EP_NAME for a in ep.assignments(_session(m)))  # left to ORT, not refused


@pytest.mark.parametrize("dispatch", ep.DISPATCHES)
def test_a_fully_served_model_runs_with_the_same_bits(dispatch):
    x = np.linspace(-2, 2, 12, dtype=np.float32).reshape(3, 4)
    got = _session(ours_model(), dispatch=dispatch).run(None, {"x": x})[0]
    want = _session(ours_model(), strict=False, dispatch=dispatch).run(None, {"x": x})[0]
    assert got.tobytes() == want.tobytes()
    m = _if_model([helper.make_node("Exp", ["x"], ["t"], name="exp_in_then")])
    x3 = np.eye(3, dtype=np.float32)
    assert (
        _session(m).run(None, {"x": x3})[0].tobytes() == _session(m, False).run(None, {"x": x3})[0].tobytes()
    )


@pytest.mark.parametrize("name", ["bert_tiny", "llama_tiny"])
def test_the_test_models_pass_strict_mode_in_a_plain_session(name):
    sess = _session(str(ROOT / "testdata" / "models" / f"{name}.onnx"))
    assert any(a.ep == ep.EP_NAME for a in ep.assignments(sess))
