"""Constant folding inside the execution provider (docs/constant-folding.md, "In the EP"): a group of nodes
OneModel serves whose inputs are all constant is one fused node, computed once at session creation by the
same kernels; its outputs are the unfolded nodes' (EP option fold="0") and fold.py's, bit for bit, on every
kernel path and thread count; nothing of it runs per call; outputs over the limit, graph outputs and failing
members are not folded away."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

import onemodel_ep
from onemodel_ep._lib import lib
from onemodel_ep.ep import EP_NAME, ep_report, ep_session_options
from onemodel_ep.fold import FOLD_MAX_BYTES
from tests.ep.ep_profile import profile_events, profile_prefix
from tests.nodes.node_sessions import PATHS, assert_exact_bits

pytestmark = [
    pytest.mark.skipif(not onemodel_ep.ep_supported(), reason="needs the plugin EP (ORT 1.24+)"),
    pytest.mark.skipif(not hasattr(lib, "om_test_ep_fold_runs"), reason="needs ONEMODEL_TEST_ENTRIES=1"),
]

W = (np.arange(24, dtype=np.float32).reshape(4, 6) * np.float32(0.37) - np.float32(3.1)).astype(np.float32)
SILERO = Path("/work/tp/x/silero_vad/data/silero_vad.onnx")
SILERO_IN = Path("/work/tp/silero_in.npz")


def _i64(name: str, v: list[int]) -> onnx.TensorProto:
    return numpy_helper.from_array(np.array(v, np.int64), name)


def _model(nodes: list[onnx.NodeProto], inputs: list[onnx.ValueInfoProto], outputs: list[str],
           inits: list[onnx.TensorProto]) -> onnx.ModelProto:
    g = helper.make_graph(nodes, "g", inputs, [helper.make_tensor_value_info(o, TensorProto.FLOAT, None)
                                               for o in outputs], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 9
    return onnx.shape_inference.infer_shapes(m)


def chain() -> onnx.ModelProto:
    """initializer w -> Slice -> Concat (with w) -> Unsqueeze -> Add with the graph input x."""
    nodes = [
        helper.make_node("Slice", ["w", "s", "e", "ax"], ["sl"], name="slice"),
        helper.make_node("Concat", ["sl", "w"], ["cc"], axis=1, name="concat"),
        helper.make_node("Unsqueeze", ["cc", "ua"], ["un"], name="unsq"),
        helper.make_node("Add", ["x", "un"], ["y"], name="add"),
    ]
    inits = [numpy_helper.from_array(W, "w"), _i64("s", [1]), _i64("e", [4]), _i64("ax", [1]),
             _i64("ua", [0])]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 9])
    return _model(nodes, [x], ["y"], inits)


def chain_reference(x: np.ndarray) -> np.ndarray:
    """docs/constant-folding.md: the folded value is the nodes' own; Slice/Concat/Unsqueeze move bytes, Add is
    one IEEE addition per element."""
    return x + np.expand_dims(np.concatenate([W[:, 1:4], W], axis=1), 0)


def feeds() -> dict[str, np.ndarray]:
    return {"x": np.random.default_rng(35).standard_normal((1, 4, 9)).astype(np.float32)}


def plain(model: onnx.ModelProto, fold: bool = True, path: str | None = None, threads: int = 1,
          profile: bool = False, strict: bool = False, dispatch: str = "registry") -> ort.InferenceSession:
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.log_severity_level = 3
    so.enable_profiling = profile
    so.profile_file_prefix = profile_prefix()  # ORT names the file by the millisecond
    so = ep_session_options(so, kernel_path=path, custom_ops=False, fold=fold, strict=strict,
                            dispatch=dispatch)
    return ort.InferenceSession(model.SerializeToString(), so, enable_fallback=0)


def folded_nodes() -> int:
    return int(lib.om_test_ep_fold_runs(1))


def nodes_run(sess: ort.InferenceSession, f: dict[str, np.ndarray], times: int) -> list[dict[str, object]]:
    """ORT's profile events of the nodes run in `times` runs."""
    for _ in range(times):
        sess.run(None, f)
    events = profile_events(sess)
    return [e for e in events if e.get("cat") == "Node" and str(e.get("name", "")).endswith("_kernel_time")]


def test_chain_same_bits_folded_unfolded_foldpy_every_path_and_thread_count() -> None:
    m, f = chain(), feeds()
    want = chain_reference(f["x"])
    assert_exact_bits("fold.py", onemodel_ep.InferenceSession(m, fold=True).run(None, f)[0], want)
    for path in PATHS:
        for fold in (True, False):
            assert_exact_bits(f"fold={fold} path {path}", plain(m, fold, path).run(None, f)[0], want)
    assert_exact_bits("2 threads", plain(m, True, None, 2).run(None, f)[0], want)


def test_group_is_computed_once_at_session_creation() -> None:
    m, f = chain(), feeds()
    before = folded_nodes()
    sess = plain(m, profile=True)
    assert folded_nodes() - before == 3  # Slice, Concat, Unsqueeze: one group, at Compile
    events = nodes_run(sess, f, 5)
    assert folded_nodes() - before == 3  # not again at any run
    ran = {str(e["args"]["op_name"]) for e in events}  # type: ignore[index]
    assert "Slice" not in ran and "Concat" not in ran and "Unsqueeze" not in ran, ran
    assert any(op.startswith(EP_NAME) for op in ran), ran  # the group: one fused node, copying its output
    unfolded = plain(m, fold=False, profile=True)
    assert folded_nodes() - before == 3
    ran = {str(e["args"]["op_name"]) for e in nodes_run(unfolded, f, 1)}  # type: ignore[index]
    assert {"Slice", "Concat", "Unsqueeze", "Add"} <= ran, ran


def test_compile_dispatch_folds_too() -> None:
    m, f = chain(), feeds()
    before = folded_nodes()
    y = plain(m, dispatch="compile").run(None, f)[0]
    assert folded_nodes() - before == 3
    assert_exact_bits("dispatch=compile", y, chain_reference(f["x"]))


def test_report_counts_folded_nodes_as_ours() -> None:
    m = chain()
    report = ep_report(m, plain(m), "exact", None)
    names = ("slice", "concat", "unsq", "add")
    assert [(n.name, n.moved) for n in report.nodes] == [(n, True) for n in names]


def test_strict_mode_accepts_folded_nodes() -> None:
    m, f = chain(), feeds()
    assert_exact_bits("strict", plain(m, strict=True).run(None, f)[0], chain_reference(f["x"]))


def _expand(count: int) -> onnx.ModelProto:
    """A constant Expand of `count` float32 elements read by an Add with the input."""
    nodes = [helper.make_node("Expand", ["c", "shape"], ["big"], name="expand"),
             helper.make_node("Add", ["x", "big"], ["y"], name="add")]
    inits = [numpy_helper.from_array(np.array([1.5], np.float32), "c"), _i64("shape", [count])]
    return _model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])], ["y"], inits)


@pytest.mark.parametrize(("count", "folded"), [(FOLD_MAX_BYTES // 4, 1), (FOLD_MAX_BYTES // 4 + 1, 0)])
def test_outputs_over_the_size_limit_are_not_folded(count: int, folded: int) -> None:
    m, f = _expand(count), {"x": np.array([0.25], np.float32)}
    before = folded_nodes()
    y = plain(m).run(None, f)[0]
    assert folded_nodes() - before == folded
    assert_exact_bits("expand", y, np.full(count, 1.75, np.float32))


def test_graph_output_is_not_folded() -> None:
    nodes = [helper.make_node("Slice", ["w", "s", "e", "ax"], ["sl"], name="slice"),
             helper.make_node("Add", ["x", "sl"], ["y"], name="add")]
    inits = [numpy_helper.from_array(W, "w"), _i64("s", [1]), _i64("e", [4]), _i64("ax", [1])]
    m = _model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 3])], ["y", "sl"], inits)
    f = {"x": np.ones((4, 3), np.float32)}
    before = folded_nodes()
    y, sl = plain(m).run(None, f)
    assert folded_nodes() == before
    assert_exact_bits("slice", sl, W[:, 1:4])
    assert_exact_bits("add", y, f["x"] + W[:, 1:4])


def test_zero_size_values() -> None:
    """An empty constant Slice, folded, feeds a Concat with the input: the input back."""
    nodes = [helper.make_node("Slice", ["w", "s", "e", "ax"], ["sl"], name="slice"),
             helper.make_node("Unsqueeze", ["sl", "ua"], ["un"], name="unsq"),
             helper.make_node("Concat", ["x", "un"], ["y"], axis=2, name="concat")]
    inits = [numpy_helper.from_array(W, "w"), _i64("s", [2]), _i64("e", [2]), _i64("ax", [1]),
             _i64("ua", [0])]
    m = _model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 3])], ["y"], inits)
    f = {"x": np.random.default_rng(1).standard_normal((1, 4, 3)).astype(np.float32)}
    before = folded_nodes()
    y = plain(m).run(None, f)[0]
    assert folded_nodes() - before == 2
    assert_exact_bits("concat", y, f["x"])


def test_failing_member_fails_at_run_as_unfolded() -> None:
    """A constant Gather with an index out of range: the session is created, each run fails naming the node,
    as the unfolded node does."""
    nodes = [helper.make_node("Gather", ["w", "idx"], ["g"], axis=0, name="gather_bad"),
             helper.make_node("Add", ["x", "g"], ["y"], name="add")]
    inits = [numpy_helper.from_array(W, "w"), _i64("idx", [7])]
    m = _model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 6])], ["y"], inits)
    f = {"x": np.ones((1, 6), np.float32)}
    for fold in (True, False):
        sess = plain(m, fold=fold)
        with pytest.raises(Exception, match="gather_bad") as err:
            sess.run(None, f)
        assert "out of range" in str(err.value) or "index" in str(err.value), (fold, str(err.value))


def test_subgraph_constant_chain() -> None:
    """An If whose branches hold a constant chain over their own initializers: same bits folded or not."""
    def branch(name: str, scale: float) -> onnx.GraphProto:
        nodes = [helper.make_node("Slice", ["wb", "s", "e", "ax"], ["sl" + name], name="slice_" + name),
                 helper.make_node("Mul", ["sl" + name, "k"], ["m" + name], name="mul_" + name),
                 helper.make_node("Add", ["x", "m" + name], ["o" + name], name="add_" + name)]
        inits = [numpy_helper.from_array(W, "wb"), _i64("s", [1]), _i64("e", [4]), _i64("ax", [1]),
                 numpy_helper.from_array(np.array(scale, np.float32), "k")]
        out = helper.make_tensor_value_info("o" + name, TensorProto.FLOAT, [4, 3])
        return helper.make_graph(nodes, name, [], [out], inits)
    nodes = [helper.make_node("If", ["c"], ["y"], then_branch=branch("t", 0.5), else_branch=branch("e", 3.0),
                              name="if")]
    m = _model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 3]),
                       helper.make_tensor_value_info("c", TensorProto.BOOL, [])], ["y"], [])
    x = np.random.default_rng(2).standard_normal((4, 3)).astype(np.float32)
    before = folded_nodes()
    sess = plain(m)
    assert folded_nodes() - before == 4  # Slice and Mul of each branch
    for c, k in ((True, 0.5), (False, 3.0)):
        f = {"x": x, "c": np.array(c)}
        want = x + W[:, 1:4] * np.float32(k)
        assert_exact_bits(f"branch {c}", sess.run(None, f)[0], want)
        assert_exact_bits(f"branch {c} unfolded", plain(m, fold=False).run(None, f)[0], want)


def test_subgraph_reads_outer_scope_constants() -> None:
    """Branches slicing the main graph's initializer (an outer-scope constant): folded, same bits."""
    def branch(name: str) -> onnx.GraphProto:
        nodes = [helper.make_node("Slice", ["w", "s", "e", "ax"], ["sl" + name], name="slice_" + name),
                 helper.make_node("Add", ["x", "sl" + name], ["o" + name], name="add_" + name)]
        out = helper.make_tensor_value_info("o" + name, TensorProto.FLOAT, [4, 3])
        return helper.make_graph(nodes, name, [], [out], [])
    nodes = [helper.make_node("If", ["c"], ["y"], then_branch=branch("t"), else_branch=branch("e"),
                              name="if")]
    inits = [numpy_helper.from_array(W, "w"), _i64("s", [1]), _i64("e", [4]), _i64("ax", [1])]
    m = _model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 3]),
                       helper.make_tensor_value_info("c", TensorProto.BOOL, [])], ["y"], inits)
    x = np.random.default_rng(3).standard_normal((4, 3)).astype(np.float32)
    before = folded_nodes()
    sess = plain(m)
    assert folded_nodes() - before == 2  # each branch's Slice
    for c in (True, False):
        assert_exact_bits(f"branch {c}", sess.run(None, {"x": x, "c": np.array(c)})[0], x + W[:, 1:4])


def test_structured_reader_takes_the_folded_value_of_its_own_graph_only() -> None:
    """MatMul reading a folded value takes it as a constant input (packed once). The branches name their
    MatMul's B alike ("b"): in one it is folded, in the other computed from the input; each gets its own."""
    def branch(name: str, folded: bool) -> onnx.GraphProto:
        src = ["w", "s", "e", "ax"] if folded else ["xw", "s", "e", "ax"]
        nodes = [helper.make_node("Slice", src, ["b"], name="slice_" + name),
                 helper.make_node("MatMul", ["x", "b"], ["o" + name], name="matmul_" + name)]
        out = helper.make_tensor_value_info("o" + name, TensorProto.FLOAT, [3, 3])
        return helper.make_graph(nodes, name, [], [out], [])
    nodes = [helper.make_node("If", ["c"], ["y"], then_branch=branch("t", True),
                              else_branch=branch("e", False), name="if")]
    w = W[:3, :]  # [3, 6], sliced to its columns 1..3: [3, 3]
    inits = [numpy_helper.from_array(w, "w"), _i64("s", [1]), _i64("e", [4]), _i64("ax", [1])]
    m = _model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 3]),
                       helper.make_tensor_value_info("xw", TensorProto.FLOAT, [3, 6]),
                       helper.make_tensor_value_info("c", TensorProto.BOOL, [])], ["y"], inits)
    rng = np.random.default_rng(4)
    f = {"x": rng.standard_normal((3, 3)).astype(np.float32),
         "xw": rng.standard_normal((3, 6)).astype(np.float32)}
    before = folded_nodes()
    sess = plain(m)
    assert folded_nodes() - before == 1  # the then branch's Slice
    for c in (True, False):
        f["c"] = np.array(c)
        got = sess.run(None, f)[0]
        assert_exact_bits(f"branch {c}", got, plain(m, fold=False).run(None, f)[0])
        b = (w if c else f["xw"])[:, 1:4]
        np.testing.assert_allclose(got, f["x"].astype(np.float64) @ b, rtol=1e-5, atol=1e-6)


@pytest.mark.skipif(not (SILERO.exists() and SILERO_IN.exists()), reason="silero-vad not unpacked here")
def test_silero_vad_plain_session_same_bits_as_fold_py() -> None:
    data = dict(np.load(SILERO_IN))
    ref = onemodel_ep.InferenceSession(str(SILERO), fold=True)
    f = {i.name: data[i.name] for i in ref.get_inputs()}
    want = ref.run(None, f)
    before = folded_nodes()
    sess = plain(onnx.load(SILERO))
    assert folded_nodes() - before >= 90  # the If branches' Slice / Concat / Unsqueeze chains (94 in 6.2.3)
    for k, (got, w) in enumerate(zip(sess.run(None, f), want, strict=True)):
        assert_exact_bits(f"output {k}", got, w)
