"""Constant folding by OneModel's kernels (onemodel_ep/fold.py, docs/constant-folding.md): what folds, what
stays, and that a folded model gives the unfolded model's bits on every kernel path, both paths."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

import onemodel_ep
from onemodel_ep.ep import assignments, ep_supported
from onemodel_ep.fold import FOLD_MAX_BYTES, FOLDED_REASON, fold
from onemodel_ep.report import RewriteReport

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools" / "bench"))
from constant_chain_model import (  # noqa: E402
    CONSTANT_NODES_PER_LAYER,
    DATA_NODES_PER_LAYER,
    constant_chain_model,
)

VIAS = ["rewrite"] + (["ep"] if ep_supported() else [])
LAYERS = 3
# The chain's nodes other than Constant: Split, Concat, Split, Add, Unsqueeze.
FOLDED_PER_LAYER = 5


def _model(nodes: list[onnx.NodeProto], inits: list[onnx.TensorProto], outputs: list[str],
           inputs: list[onnx.ValueInfoProto] | None = None) -> onnx.ModelProto:
    graph = helper.make_graph(nodes, "g", inputs or [],
                              [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in outputs],
                              initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model


def _ops(model: onnx.ModelProto) -> list[str]:
    return [n.op_type for n in model.graph.node]


def _run(model: onnx.ModelProto, feeds: dict[str, np.ndarray], **options: object) -> list[np.ndarray]:
    sess = onemodel_ep.InferenceSession(model.SerializeToString(), **options)  # type: ignore[arg-type]
    return sess.run(None, feeds)


def _same_bits(a: list[np.ndarray], b: list[np.ndarray]) -> None:
    assert len(a) == len(b)
    for x, y in zip(a, b):
        assert x.dtype == y.dtype and x.shape == y.shape
        assert x.tobytes() == y.tobytes()


def test_chain_folds_to_its_data_path() -> None:
    model = constant_chain_model(LAYERS, 32)
    report = RewriteReport("exact", None)
    folded = fold(model, report=report)
    assert _ops(folded) == ["MatMul", "Add", "Sigmoid", "MatMul"] * LAYERS + ["Identity"]
    per_layer = CONSTANT_NODES_PER_LAYER + DATA_NODES_PER_LAYER
    assert len(model.graph.node) == LAYERS * per_layer + 1  # the model itself is unchanged
    assert [r.category for r in report.nodes] == ["folded"] * (FOLDED_PER_LAYER * LAYERS)
    assert all(r.moved and r.reason == FOLDED_REASON for r in report.nodes)
    names = {t.name for t in folded.graph.initializer}
    for k in range(LAYERS):  # the folded values replace the chain's weights, which nothing reads any more
        assert {f"l{k}_w_ifgo", f"l{k}_b2", f"l{k}_proj"} <= names
        assert not {f"l{k}_w", f"l{k}_bias", f"l{k}_gate0", f"l{k}_b"} & names
    onnx.checker.check_model(folded)


def test_folded_values_are_the_chain_s() -> None:
    model = constant_chain_model(1, 16)
    folded = fold(model)
    inits = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    got = {t.name: numpy_helper.to_array(t) for t in folded.graph.initializer}
    w = np.split(inits["l0_w"], 4, axis=1)
    np.testing.assert_array_equal(got["l0_w_ifgo"], np.concatenate([w[0], w[3], w[1], w[2]], axis=1))
    b_ih, b_hh = np.split(inits["l0_bias"], 2)
    np.testing.assert_array_equal(got["l0_b2"], (b_ih + b_hh)[None, :])  # one float32 addition each


@pytest.mark.parametrize("via", VIAS)
def test_folded_gives_unfolded_bits_every_path(via: str) -> None:
    model = constant_chain_model(LAYERS, 64)
    feeds = {"x": np.random.default_rng(1).standard_normal((1, 64)).astype(np.float32)}
    for path in onemodel_ep.kernel_paths():
        want = _run(model, feeds, via=via, kernel_path=path, fold=False)
        _same_bits(_run(model, feeds, via=via, kernel_path=path), want)
    so = ort.SessionOptions()
    so.intra_op_num_threads = 3
    _same_bits(_run(model, feeds, via=via, sess_options=so), want)
    for mode in ("exact", "fast"):
        _same_bits(_run(model, feeds, via=via, mode=mode), _run(model, feeds, via=via, mode=mode, fold=False))


def test_both_paths_agree_folded() -> None:
    if not ep_supported():
        pytest.skip("the EP path needs onnxruntime 1.24+")
    model = constant_chain_model(LAYERS, 64)
    feeds = {"x": np.random.default_rng(2).standard_normal((1, 64)).astype(np.float32)}
    _same_bits(_run(model, feeds, via="ep"), _run(model, feeds, via="rewrite"))


def test_ep_session_runs_fewer_nodes_and_reports_folds() -> None:
    if not ep_supported():
        pytest.skip("the EP path needs onnxruntime 1.24+")
    model = constant_chain_model(LAYERS, 32)
    folded = onemodel_ep.InferenceSession(model.SerializeToString(), via="ep", strict=True)
    unfolded = onemodel_ep.InferenceSession(model.SerializeToString(), via="ep", fold=False)
    # ORT fuses each layer's MatMul and Add into one Gemm (MatMulAddFusion) and drops the Identity, folded
    # or not: the data path is 3 nodes a layer; unfolded, the chain's 5 non-Constant nodes run too.
    assert len(assignments(folded)) == (DATA_NODES_PER_LAYER - 1) * LAYERS
    assert len(assignments(unfolded)) == (DATA_NODES_PER_LAYER - 1 + FOLDED_PER_LAYER) * LAYERS
    assert {a.ep for a in assignments(folded)} == {onemodel_ep.get_ep_name()}
    cats = [n.category for n in folded.report.nodes]
    assert cats.count("folded") == FOLDED_PER_LAYER * LAYERS and "folded" not in unfolded.report.summary()
    assert [n.name for n in folded.report.nodes if not n.moved] == ["output"]  # the Identity ORT removed


def _nan_payloads() -> np.ndarray:
    bits = np.array([0x7FC00001, 0xFFC12345, 0x7F800000, 0x80000000, 0x3F800000, 0x7FFFFFFF], np.uint32)
    return bits.view(np.float32)


def test_nan_payloads_and_signed_zeros_kept() -> None:
    c = _nan_payloads()
    nodes = [helper.make_node("Identity", ["c"], ["i"], name="id"),
             helper.make_node("Add", ["x", "i"], ["y"], name="add")]
    model = _model(nodes, [numpy_helper.from_array(c, "c")], ["y"],
                   [helper.make_tensor_value_info("x", TensorProto.FLOAT, [6])])
    folded = fold(model)
    assert _ops(folded) == ["Add"]
    assert numpy_helper.to_array(folded.graph.initializer[0]).tobytes() == c.tobytes()
    feeds = {"x": np.full(6, -0.0, np.float32)}
    for via in VIAS:
        _same_bits(_run(model, feeds, via=via), _run(model, feeds, via=via, fold=False))


def _expand_model(n: int) -> onnx.ModelProto:
    nodes = [helper.make_node("Expand", ["one", "shape"], ["big"], name="expand"),
             helper.make_node("Add", ["x", "big"], ["y"], name="add")]
    inits = [numpy_helper.from_array(np.ones(1, np.float32), "one"),
             numpy_helper.from_array(np.array([n, n], np.int64), "shape")]
    return _model(nodes, inits, ["y"], [helper.make_tensor_value_info("x", TensorProto.FLOAT, [n, n])])


def test_size_cap_respected() -> None:
    model = _expand_model(64)  # 64 x 64 float32: 16,384 bytes
    assert _ops(fold(model, max_bytes=16383)) == ["Expand", "Add"]
    assert _ops(fold(model, max_bytes=16384)) == ["Add"]
    big = _expand_model(1100)  # 4.6 MiB, over the default cap
    assert 1100 * 1100 * 4 > FOLD_MAX_BYTES
    assert _ops(fold(big)) == ["Expand", "Add"]


def test_unserved_constant_nodes_are_not_folded() -> None:
    c = numpy_helper.from_array(np.linspace(-1, 1, 8).astype(np.float32), "c")
    nodes = [helper.make_node("Atan", ["c"], ["a"], name="atan"),  # not an op of OneModel EP
             helper.make_node("Neg", ["a"], ["n"], name="neg"),  # served, but its input is not constant
             helper.make_node("Add", ["x", "n"], ["y"], name="add")]
    model = _model(nodes, [c], ["y"], [helper.make_tensor_value_info("x", TensorProto.FLOAT, [8])])
    report = RewriteReport("exact", None)
    assert fold(model, report=report) is model and not report.nodes


def test_overridable_initializer_graph_output_and_external_data_stay(tmp_path: Path) -> None:
    c = numpy_helper.from_array(np.arange(4, dtype=np.float32), "c")
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])
    default = helper.make_tensor_value_info("c", TensorProto.FLOAT, [4])
    overridable = _model([helper.make_node("Neg", ["c"], ["n"], name="neg"),
                          helper.make_node("Add", ["x", "n"], ["y"], name="add")], [c], ["y"], [x, default])
    assert fold(overridable) is overridable
    as_output = _model([helper.make_node("Neg", ["c"], ["y"], name="neg")], [c], ["y"])
    assert fold(as_output) is as_output
    big = numpy_helper.from_array(np.arange(1024, dtype=np.float32), "c")
    external = _model([helper.make_node("Neg", ["c"], ["n"], name="neg"),
                       helper.make_node("Add", ["x", "n"], ["y"], name="add")], [big], ["y"],
                      [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1024])])
    onnx.save(external, tmp_path / "m.onnx", save_as_external_data=True, location="w.bin", size_threshold=0)
    loaded = onnx.load(str(tmp_path / "m.onnx"), load_external_data=False)
    assert fold(loaded) is loaded


def test_subgraphs_fold_and_read_the_outer_scope() -> None:
    k = helper.make_node("Constant", [], ["k"], name="k", value=numpy_helper.from_array(np.float32(2.0)))
    neg = helper.make_node("Neg", ["k"], ["nk"], name="neg")
    then = helper.make_graph([helper.make_node("Neg", ["nk"], ["k2"], name="neg2"),
                              helper.make_node("Mul", ["k2", "nk"], ["t"], name="mul")], "then", [],
                             [helper.make_tensor_value_info("t", TensorProto.FLOAT, [])])
    other = helper.make_graph([helper.make_node("Identity", ["nk"], ["e"], name="id")], "else", [],
                              [helper.make_tensor_value_info("e", TensorProto.FLOAT, [])])
    cond = helper.make_tensor_value_info("cond", TensorProto.BOOL, [])
    node_if = helper.make_node("If", ["cond"], ["y"], name="if", then_branch=then, else_branch=other)
    model = _model([k, neg, node_if], [], ["y"], [cond])
    report = RewriteReport("exact", None)
    folded = fold(model, report=report)
    assert _ops(folded) == ["If"]  # Neg folded, and with it the Constant only it read
    branch = next(a.g for a in folded.graph.node[0].attribute if a.name == "then_branch")
    assert [n.op_type for n in branch.node] == ["Mul"]  # the branch's output stays computed
    assert [t.name for t in branch.initializer] == ["k2"]
    assert [(r.graph, r.name) for r in report.nodes] == [("main", "neg"), ("main/if.then_branch", "neg2")]
    for via in VIAS:
        for flag in (True, False):
            feeds = {"cond": np.array(flag)}
            _same_bits(_run(model, feeds, via=via), _run(model, feeds, via=via, fold=False))


def test_old_ir_and_bad_arguments() -> None:
    model = constant_chain_model(1, 8)
    model.ir_version = 3
    assert fold(model) is model
    with pytest.raises(ValueError, match="mode"):
        fold(model, mode="loose")
    with pytest.raises(TypeError, match="ModelProto"):
        fold(b"not a model")  # type: ignore[arg-type]


@pytest.mark.parametrize("via", VIAS)
def test_model_file_with_external_data_folds(tmp_path: Path, via: str) -> None:
    """A model file whose weights live in a data file: the inline constant chain folds, the external weights
    stay in their file (ORT reads them from the model's folder), the same bits as unfolded."""
    w = numpy_helper.from_array(np.random.default_rng(3).standard_normal((64, 64)).astype(np.float32), "w")
    k = numpy_helper.from_array(np.full(64, 0.5, np.float32), "k")
    nodes = [helper.make_node("Neg", ["k"], ["nk"], name="neg"),
             helper.make_node("MatMul", ["x", "w"], ["xw"], name="matmul"),
             helper.make_node("Add", ["xw", "nk"], ["y"], name="add")]
    model = _model(nodes, [w, k], ["y"], [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 64])])
    path = tmp_path / "m.onnx"
    onnx.save(model, path, save_as_external_data=True, location="w.bin", size_threshold=1024)
    sess = onemodel_ep.InferenceSession(str(path), via=via)
    assert [n.name for n in sess.report.nodes if n.category == "folded"] == ["neg"]
    feeds = {"x": np.random.default_rng(4).standard_normal((2, 64)).astype(np.float32)}
    unfolded = onemodel_ep.InferenceSession(str(path), via=via, fold=False)
    _same_bits(sess.run(None, feeds), unfolded.run(None, feeds))
