"""The LLM normalisations: SimplifiedLayerNormalization, RMSNormalization and com.microsoft's
SkipLayerNormalization and SkipSimplifiedLayerNormalization.

Each case runs as a one-node model, unmodified, through both ways in (the rewrite to ai.onemodel, and OneModel
as an execution provider where ORT supports it) on every kernel path at one thread and on the default path at
two threads; every run must give the bits of tests/reference/reference_llm_norms.py (written from
docs/exact-linalg.md), and stock ORT agrees within 1e-5 (scaled by the values' magnitude).
"""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

import onemodel_ep
from onemodel_ep import ep
from onemodel_ep.node import Node, NodeError
from tests.nodes.node_sessions import VIAS, assert_bits, runs, session, stock
from tests.reference import reference_llm_norms as RN

F16, F32, F64 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)
MS = "com.microsoft"


def _elem(dtype: np.dtype) -> int:
    return int(helper.np_dtype_to_tensor_dtype(dtype))


def _model(op: str, domain: str, feeds: dict[str, np.ndarray], inits: dict[str, np.ndarray],
           inputs: list[str], outputs: list[tuple[str, np.dtype]], opset: int = 17, dynamic: bool = False,
           **attrs: object) -> onnx.ModelProto:
    """A one-node model; `inputs` names the node's inputs in order ("" absent), `outputs` (name, type) its
    outputs ("" absent); dynamic: the feeds' dimensions symbolic."""
    node = helper.make_node(op, inputs, [n for n, _ in outputs], name="n0", domain=domain, **attrs)
    graph = helper.make_graph(
        [node], "g",
        [helper.make_tensor_value_info(k, _elem(v.dtype), [f"{k}{i}" for i in range(v.ndim)] if dynamic
                                       else list(v.shape)) for k, v in feeds.items()],
        [helper.make_tensor_value_info(n, _elem(t), None) for n, t in outputs if n],
        initializer=[numpy_helper.from_array(v, k) for k, v in inits.items()],
    )
    imports = [helper.make_opsetid("", opset)] + ([helper.make_opsetid(MS, 1)] if domain == MS else [])
    return helper.make_model(graph, opset_imports=imports, ir_version=10)


def _check(model: onnx.ModelProto, feeds: dict[str, np.ndarray], op: str,
           want: list[np.ndarray]) -> list[np.ndarray]:
    every = runs(model, feeds, op)
    for where, got in every.items():
        assert len(got) == len(want), where
        for k, (g, w) in enumerate(zip(got, want)):
            assert_bits(f"{op} output {k}, {where}", g, w)
    return next(iter(every.values()))


def _close(got: np.ndarray, theirs: np.ndarray) -> None:
    """Within 1e-5 of stock ORT's output `theirs`, relative to its largest magnitude."""
    assert got.dtype == theirs.dtype and got.shape == theirs.shape
    scale = max(1.0, float(np.max(np.abs(theirs.astype(np.float64)), initial=0.0)))
    np.testing.assert_allclose(got.astype(np.float64), theirs.astype(np.float64), rtol=0, atol=1e-5 * scale)


def _data(shape: tuple[int, ...], seed: int, scale: float = 2.0, dtype: np.dtype = F32) -> np.ndarray:
    return (np.random.default_rng(seed).standard_normal(shape) * scale + 0.5).astype(dtype)


# ---- SimplifiedLayerNormalization and RMSNormalization --------------------------------------------------

RMS_CASES = [  # (shape, axis, scale shape)
    ((4, 7, 64), -1, (64,)),
    ((3, 37), -1, (37,)),
    ((2, 5, 6), 1, (5, 6)),
    ((2, 5, 6), 1, (1, 6)),  # Scale broadcast to the normalised shape
    ((600, 96), -1, (96,)),  # several chunks at two threads
    ((5, 1), -1, (1,)),
]


@pytest.mark.parametrize(("shape", "axis", "scale_shape"), RMS_CASES, ids=str)
@pytest.mark.parametrize("with_inv", [True, False])
def test_simplified_layernorm_every_way_path_and_thread_count(shape, axis, scale_shape, with_inv) -> None:
    x = _data(shape, sum(shape) + axis)
    scale = _data(scale_shape, 3, 0.25) + 0.5
    y, inv = RN.rms_norm(x, scale, axis=axis, epsilon=1e-6)
    outputs = [("y", F32)] + ([("inv", F32)] if with_inv else [])
    model = _model("SimplifiedLayerNormalization", "", {"x": x}, {"scale": scale}, ["x", "scale"], outputs,
                   axis=axis, epsilon=1e-6)
    ours = _check(model, {"x": x}, "SimplifiedLayerNormalization", [y, inv][: len(outputs)])
    for g, s in zip(ours, stock(model, {"x": x})):
        _close(g, s)


@pytest.mark.parametrize("dtype", [F16, F64])
def test_simplified_layernorm_f16_f64(dtype: np.dtype) -> None:
    x = _data((6, 40), 5, dtype=dtype)
    scale = (_data((40,), 6, 0.25) + 0.5).astype(dtype)
    y, _ = RN.rms_norm(x, scale, epsilon=1e-5)
    model = _model("SimplifiedLayerNormalization", "", {"x": x}, {"scale": scale}, ["x", "scale"],
                   [("y", dtype)])
    _check(model, {"x": x}, "SimplifiedLayerNormalization", [y])


def test_rms_normalization_opset_23() -> None:
    x = _data((3, 4, 48), 8)
    scale = _data((48,), 9, 0.25) + 0.5
    y, _ = RN.rms_norm(x, scale, epsilon=1e-5)
    model = _model("RMSNormalization", "", {"x": x}, {"scale": scale}, ["x", "scale"], [("y", F32)], opset=23)
    ours = _check(model, {"x": x}, "RMSNormalization", [y])
    _close(ours[0], stock(model, {"x": x})[0])


def test_rms_normalization_is_not_served_before_opset_23() -> None:
    with pytest.raises(NodeError, match="opset 22 is not served; RMSNormalization is served from opset 23"):
        Node("RMSNormalization", [TensorProto.FLOAT] * 2, onnx_opset=22)


# ---- SkipLayerNormalization and SkipSimplifiedLayerNormalization -----------------------------------------

SKIP_OPS = ("SkipLayerNormalization", "SkipSimplifiedLayerNormalization")
SKIP_SHAPES = [  # (input shape, skip shape)
    ((2, 5, 64), (2, 5, 64)),
    ((2, 5, 64), (5, 64)),       # skip without the batch dimension
    ((3, 4, 37), (1, 4, 37)),    # skip with batch 1
    ((7, 33), (7, 33)),          # 2-D input
    ((4, 200, 96), (4, 200, 96)),  # several chunks at two threads
]


def _skip_inputs(op: str, beta: bool, bias: bool) -> list[str]:
    if op == "SkipLayerNormalization":
        return ["x", "skip", "gamma"] + (["beta"] if beta or bias else []) + (["bias"] if bias else [])
    return ["x", "skip", "gamma"] + (["bias"] if bias else [])


def _skip_case(op: str, xs: tuple[int, ...], ks: tuple[int, ...], beta: bool, bias: bool, seed: int):
    h = xs[-1]
    feeds = {"x": _data(xs, seed), "skip": _data(ks, seed + 1)}
    inits = {"gamma": _data((h,), seed + 2, 0.25) + 0.5}
    simplified = op == "SkipSimplifiedLayerNormalization"
    if beta and not simplified:
        inits["beta"] = _data((h,), seed + 3, 0.5)
    if bias:
        inits["bias"] = _data((h,), seed + 4, 0.5)
    inputs = [n if n in feeds or n in inits else "" for n in _skip_inputs(op, beta, bias)]
    want = RN.skip_layer_norm(feeds["x"], feeds["skip"], inits["gamma"], inits.get("beta"), inits.get("bias"),
                              epsilon=1e-6, simplified=simplified)
    return feeds, inits, inputs, list(want)


# (op, beta, bias): SkipSimplifiedLayerNormalization has no beta
SKIP_INPUTS = [(SKIP_OPS[0], beta, bias) for beta in (True, False) for bias in (True, False)] + \
    [(SKIP_OPS[1], False, bias) for bias in (True, False)]


@pytest.mark.parametrize(("op", "beta", "bias"), SKIP_INPUTS, ids=str)
@pytest.mark.parametrize(("xs", "ks"), SKIP_SHAPES, ids=str)
def test_skip_layernorm_every_way_path_and_thread_count(op, beta, bias, xs, ks) -> None:
    feeds, inits, inputs, want = _skip_case(op, xs, ks, beta, bias, sum(xs) + len(ks))
    outputs = [("y", F32), ("", F32), ("", F32), ("sum", F32)]
    model = _model(op, MS, feeds, inits, inputs, outputs, epsilon=1e-6)
    ours = _check(model, feeds, op, [want[0], want[3]])
    for g, s in zip(ours, stock(model, feeds)):
        _close(g, s)


@pytest.mark.parametrize("op", SKIP_OPS)
def test_skip_layernorm_statistics_outputs(op: str) -> None:
    """mean and inv_std_var too (SkipSimplifiedLayerNormalization's mean: +0, as stock ORT's)."""
    feeds, inits, inputs, want = _skip_case(op, (3, 6, 40), (6, 40), True, True, 21)
    outputs = [("y", F32), ("mean", F32), ("inv", F32), ("sum", F32)]
    model = _model(op, MS, feeds, inits, inputs, outputs, epsilon=1e-6)
    got = _check(model, feeds, op, want)
    if op == "SkipSimplifiedLayerNormalization":
        assert not np.signbit(got[1]).any() and not got[1].any()
    for g, s in zip(got, stock(model, feeds)):
        _close(g, s)


@pytest.mark.parametrize("via", VIAS)
@pytest.mark.parametrize("op", SKIP_OPS)
def test_gamma_shape_mismatch_is_named(op: str, via: str) -> None:
    feeds, inits, inputs, _ = _skip_case(op, (2, 3, 16), (2, 3, 16), False, False, 7)
    inits["gamma"] = np.ones(15, F32)
    msg = rf"node 'n0' \(op {op}\): gamma \[15\] must have shape \[16\]"
    model = _model(op, MS, feeds, inits, inputs, [("y", F32)], epsilon=1e-6)
    with pytest.raises(Exception, match=msg):  # shapes known: at session creation
        session(model, via, None, 1)
    model = _model(op, MS, feeds, inits, inputs, [("y", F32)], dynamic=True, epsilon=1e-6)
    sess = session(model, via, None, 1)
    with pytest.raises(Exception, match=msg):
        sess.run(None, feeds)


@pytest.mark.parametrize("via", VIAS)
@pytest.mark.parametrize("op", SKIP_OPS)
def test_gamma_of_rank_2_is_named_at_session_creation(op: str, via: str) -> None:
    feeds = {"x": _data((2, 3, 4), 1), "skip": _data((2, 3, 4), 2), "gamma": np.ones((1, 4), F32)}
    model = _model(op, MS, feeds, {}, ["x", "skip", "gamma"], [("y", F32)], dynamic=True, epsilon=1e-6)
    with pytest.raises(Exception, match=rf"node 'n0' \(op {op}\): gamma has rank 2; it must have rank 1"):
        session(model, via, None, 1)


@pytest.mark.parametrize("op", SKIP_OPS)
def test_skip_that_does_not_fit_is_named(op: str) -> None:
    node = Node(f"{MS}.{op}", [TensorProto.FLOAT] * 3, onnx_opset=1)
    x, skip, gamma = np.ones((2, 3, 4), F32), np.ones((2, 2, 4), F32), np.ones(4, F32)
    with pytest.raises(NodeError, match=rf"\(op {op}\): skip \[2, 2, 4\] does not fit input \[2, 3, 4\]"):
        node.run_outputs(x, skip, gamma)


def test_skip_ops_take_float_only() -> None:
    with pytest.raises(NodeError, match="unsupported element type double for input 0"):
        Node(f"{MS}.SkipLayerNormalization", [TensorProto.DOUBLE] * 3, onnx_opset=1)


# ---- the domain: an unmodified model's com.microsoft node is ours ----------------------------------------


@pytest.mark.skipif(not onemodel_ep.ep_supported(), reason="the plugin EP needs ORT 1.24+")
@pytest.mark.parametrize("dispatch", ep.DISPATCHES)
def test_unmodified_skip_layernorm_is_claimed_by_the_ep(dispatch: str) -> None:
    op = "SkipLayerNormalization"
    feeds, inits, inputs, want = _skip_case(op, (2, 5, 32), (5, 32), True, True, 11)
    model = _model(op, MS, feeds, inits, inputs, [("y", F32), ("", F32), ("inv", F32), ("sum", F32)],
                   epsilon=1e-6)
    so = ort.SessionOptions()
    so.log_severity_level = 3
    sess = ort.InferenceSession(model.SerializeToString(), ep.ep_session_options(so, dispatch=dispatch))
    assigned = [(a.op, a.domain, a.ep) for a in ep.assignments(sess)]
    assert assigned == [(op, MS, ep.EP_NAME)], assigned
    for k, (got, w) in enumerate(zip(sess.run(None, feeds), [want[0], want[2], want[3]])):
        assert_bits(f"claimed SkipLayerNormalization output {k}, dispatch {dispatch}", got, w)


def test_the_nodes_after_a_com_microsoft_node_are_served_too() -> None:
    """ONNX shape inference types no com.microsoft output: the library's output types stand in, so the
    MatMul after a SkipLayerNormalization moves too, and both ways in give the same bits."""
    op = "SkipLayerNormalization"
    feeds, inits, inputs, _ = _skip_case(op, (2, 3, 16), (2, 3, 16), True, True, 17)
    inits["w"] = _data((16, 5), 18)
    model = _model(op, MS, feeds, inits, inputs, [("y", F32)], epsilon=1e-6)
    model.graph.node.append(helper.make_node("MatMul", ["y", "w"], ["z"], name="mm"))
    model.graph.output[0].CopyFrom(helper.make_tensor_value_info("z", TensorProto.FLOAT, None))
    got = {}
    for via in VIAS:
        sess = session(model, via, None, 1)
        assert [n.op for n in sess.report.moved] == [op, "MatMul"], sess.report.summary()
        got[via] = sess.run(None, feeds)[0]
    for via in VIAS:
        assert_bits(f"via {via}", got[via], got[VIAS[0]])


def test_rewrite_retargets_to_the_domain_qualified_key() -> None:
    op = "SkipSimplifiedLayerNormalization"
    feeds, inits, inputs, _ = _skip_case(op, (2, 3, 16), (2, 3, 16), False, True, 13)
    model = _model(op, MS, feeds, inits, inputs, [("y", F32)], epsilon=1e-6)
    out = onemodel_ep.rewrite(model)
    node = out.graph.node[0]
    assert (node.domain, node.op_type) == ("ai.onemodel", f"{MS}.{op}")
    assert {a.name: helper.get_attribute_value(a) for a in node.attribute}["onnx_opset"] == 1
    assert model.graph.node[0].domain == MS  # the input model is not edited


def test_op_table_rows_carry_their_domain() -> None:
    table = onemodel_ep.op_table()
    for op in SKIP_OPS:
        row = table[f"{MS}.{op}"]
        assert (row.domain, row.name, row.since_opset, row.max_outputs) == (MS, op, 1, 4)
    assert op not in table  # not a default-domain key
    assert table["SimplifiedLayerNormalization"].domain == ""
    assert table["LayerNormalization"].key == "LayerNormalization"
