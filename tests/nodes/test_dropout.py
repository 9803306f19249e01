"""Dropout at inference (node_dropout.c; docs/shape-ops.md, "Dropout"): output 0 is the input's bits, the
mask all true; training_mode must be false (a constant true fails at session creation, a run-time true at the
run, both naming node and op); the mask before opset 12 is left to stock ORT (at opset 10 stock's is all
false). Every way in, path and 1 or 2 threads, and stock ORT: the same bits (no arithmetic)."""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

import onemodel_ep
from tests.nodes import node_sessions as S


def _model(x: np.ndarray, opset: int, outputs: list[str], ratio: bool = False,
           training: np.ndarray | None | str = None) -> onnx.ModelProto:
    t = helper.np_dtype_to_tensor_dtype(x.dtype)
    ins = ["x", "ratio" if ratio or training is not None else ""]
    inits = [numpy_helper.from_array(np.array(0.3, x.dtype), "ratio")] if ins[1] else []
    graph_in = [helper.make_tensor_value_info("x", t, list(x.shape))]
    if isinstance(training, np.ndarray):
        ins.append("training")
        inits.append(numpy_helper.from_array(training, "training"))
    elif training == "input":
        ins.append("training")
        graph_in.append(helper.make_tensor_value_info("training", TensorProto.BOOL, []))
    while ins and not ins[-1]:
        ins.pop()
    node = helper.make_node("Dropout", ins, outputs, name="drop")
    outs = [helper.make_tensor_value_info(nm, TensorProto.BOOL if k else t, None)
            for k, nm in enumerate(outputs) if nm]
    graph = helper.make_graph([node], "g", graph_in, outs, initializer=inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=10)


@pytest.mark.parametrize("opset", [12, 13, 22])
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
def test_identity_and_an_all_true_mask(opset: int, dtype: type) -> None:
    x = np.random.default_rng(opset).standard_normal((3, 5, 7)).astype(dtype)
    x.flat[3] = np.nan
    training = np.array(False) if opset >= 12 else None
    model = _model(x, opset, ["y", "mask"], ratio=opset >= 12, training=training)
    for where, (y, mask) in S.runs(model, {"x": x}, "Dropout").items():
        S.assert_exact_bits(f"Dropout y {where}", y, x)
        assert mask.dtype == np.bool_ and mask.shape == x.shape and mask.all(), where
    if dtype == np.float32:
        y, mask = S.stock(model, {"x": x})
        S.assert_exact_bits("stock y", y, x)
        assert mask.all()


def test_without_mask_and_zero_size() -> None:
    for shape in ((4, 6), (0, 3)):
        x = np.ones(shape, np.float32)
        model = _model(x, 13, ["y"])
        so = ort.SessionOptions()
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL  # else ORT removes the node
        for via in S.VIAS:
            sess = onemodel_ep.InferenceSession(model, so, mode="exact", via=via)
            assert [n.op for n in sess.report.moved] == ["Dropout"], sess.report.summary()
            (y,) = sess.run(None, {"x": x})
            S.assert_exact_bits(f"{via} {shape}", y, x)


def test_training_mode_true_is_refused_naming_the_node() -> None:
    x = np.ones((2, 3), np.float32)
    constant = _model(x, 13, ["y", "mask"], training=np.array(True))
    for via in S.VIAS:
        with pytest.raises(Exception, match=r"drop.*Dropout.*training_mode"):
            S.session(constant, via, None, 1)
    given = _model(x, 13, ["y", "mask"], training="input")
    for via in S.VIAS:
        sess = S.session(given, via, None, 1)
        assert [n.op for n in sess.report.moved] == ["Dropout"], sess.report.summary()
        y, mask = sess.run(None, {"x": x, "training": np.array(False)})
        S.assert_exact_bits(via, y, x)
        with pytest.raises(Exception, match=r"drop.*Dropout.*training_mode must be one false value"):
            sess.run(None, {"x": x, "training": np.array(True)})


@pytest.mark.parametrize("opset", [7, 10])
def test_the_mask_before_opset_12_stays_with_stock_ort(opset: int) -> None:
    x = np.ones((2, 3), np.float32)
    model = _model(x, opset, ["y", "mask"])
    if opset < 10:
        model.graph.output[1].type.tensor_type.elem_type = TensorProto.FLOAT
    for via in S.VIAS:
        sess = S.session(model, via, None, 1)
        assert not sess.report.moved, sess.report.summary()
        assert "mask output before opset 12" in sess.report.summary()
