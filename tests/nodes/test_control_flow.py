"""Control-flow bodies (Scan, Loop, If, and one of them nested in another) whose retargeted nodes produce
the body's outputs: rewritten, they run wherever stock ORT runs them, whether or not the body declares its
outputs' shapes, with the same values (within float tolerance: the exact kernels round correctly, stock
ORT's Tanh and Exp need not), bit for bit the same with and without the declared shapes.

ORT infers no output shape for a custom op; a Scan body whose outputs come from one and declare no shape
failed with "Subgraph must have the shape set for all outputs". The rewriter carries the shapes ONNX
inference finds into the rewritten graphs (rewriter._carry_shapes)."""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

import onemodel_ep

F = TensorProto.FLOAT
I64 = TensorProto.INT64
B = TensorProto.BOOL
STEPS = 6


def _vi(name: str, t: int, shape: list[int] | None) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(name, t, shape)


def _chain(state: str, x: str, out: str, p: str) -> list[onnx.NodeProto]:
    """out = Exp(-(Tanh(state) * x + state)): five retargeted nodes, the last one producing `out`."""
    return [
        helper.make_node("Tanh", [state], [f"{p}a"], name=f"{p}tanh"),
        helper.make_node("Mul", [f"{p}a", x], [f"{p}b"], name=f"{p}mul"),
        helper.make_node("Add", [f"{p}b", state], [f"{p}c"], name=f"{p}add"),
        helper.make_node("Neg", [f"{p}c"], [f"{p}d"], name=f"{p}neg"),
        helper.make_node("Exp", [f"{p}d"], [out], name=f"{p}exp"),
    ]


# A builder makes one control-flow node over the outer values s0 [4], xs [6, 4], x1 = xs[0], c (bool):
# builder(prefix, shaped, inner builder or None, **{"state": input value, "out": output name}).
Builder = Callable[..., onnx.NodeProto]


def _scan(p: str, shaped: bool, inner: Builder | None = None) -> onnx.NodeProto:
    """Scan over xs with state s0; the body runs the chain (and `inner`'s node on its result)."""
    sh = [4] if shaped else None
    nodes = _chain(f"{p}s_in", f"{p}x_t", f"{p}e", p)
    if inner is not None:
        nodes.append(inner(f"{p}in_", shaped, None, state=f"{p}e", out=f"{p}s_out"))
    else:
        nodes.append(helper.make_node("Sigmoid", [f"{p}e"], [f"{p}s_out"], name=f"{p}sig"))
    nodes.append(helper.make_node("Abs", [f"{p}s_out"], [f"{p}y_t"], name=f"{p}abs"))
    body = helper.make_graph(
        nodes,
        f"{p}body",
        [_vi(f"{p}s_in", F, sh), _vi(f"{p}x_t", F, sh)],
        [_vi(f"{p}s_out", F, sh), _vi(f"{p}y_t", F, sh)],
    )
    return helper.make_node(
        "Scan", ["s0", "xs"], [f"{p}final", f"{p}ys"], num_scan_inputs=1, body=body, name=f"{p}scan"
    )


def _loop(
    p: str, shaped: bool, inner: Builder | None = None, *, state: str = "s0", out: str = ""
) -> onnx.NodeProto:  # noqa: E501
    """Loop of STEPS (2 when nested) iterations over a state; scan output: Abs of the state."""
    sh = [4] if shaped else None
    nodes = _chain(f"{p}s_in", "x1", f"{p}e", p)
    if inner is not None:
        nodes.append(inner(f"{p}in_", shaped, None, state=f"{p}e", out=f"{p}s_out"))
    else:
        nodes.append(helper.make_node("Sigmoid", [f"{p}e"], [f"{p}s_out"], name=f"{p}sig"))
    nodes += [
        helper.make_node("Abs", [f"{p}s_out"], [f"{p}y_t"], name=f"{p}abs"),
        helper.make_node("Identity", [f"{p}cond_in"], [f"{p}cond_out"], name=f"{p}id"),
    ]
    body = helper.make_graph(
        nodes,
        f"{p}body",
        [_vi(f"{p}i", I64, []), _vi(f"{p}cond_in", B, []), _vi(f"{p}s_in", F, sh)],
        [_vi(f"{p}cond_out", B, []), _vi(f"{p}s_out", F, sh), _vi(f"{p}y_t", F, sh)],
    )
    trips = "trips" if not out else "trips2"
    outs = [f"{p}final", f"{p}ys"] if not out else [out, f"{p}ys"]
    return helper.make_node("Loop", [trips, "yes", state], outs, body=body, name=f"{p}loop")


def _if(
    p: str, shaped: bool, inner: Builder | None = None, *, state: str = "s0", out: str = ""
) -> onnx.NodeProto:  # noqa: E501
    """If c: the chain of `state` (or `inner`'s node), else Neg(Sigmoid(state))."""
    sh = [4] if shaped else None
    then_out, else_out = f"{p}t", f"{p}f"
    then_nodes = _chain(state, "x1", f"{p}te", p + "t_")
    if inner is not None:
        then_nodes.append(inner(f"{p}in_", shaped, None))
        then_nodes.append(helper.make_node("Add", [f"{p}te", f"{p}in_final"], [then_out], name=f"{p}tadd"))
    else:
        then_nodes.append(helper.make_node("Sigmoid", [f"{p}te"], [then_out], name=f"{p}tsig"))
    else_nodes = [
        helper.make_node("Sigmoid", [state], [f"{p}fs"], name=f"{p}fsig"),
        helper.make_node("Neg", [f"{p}fs"], [else_out], name=f"{p}fneg"),
    ]
    then_g = helper.make_graph(then_nodes, f"{p}then", [], [_vi(then_out, F, sh)])
    else_g = helper.make_graph(else_nodes, f"{p}else", [], [_vi(else_out, F, sh)])
    return helper.make_node(
        "If", ["c"], [out or f"{p}final"], then_branch=then_g, else_branch=else_g, name=f"{p}if"
    )


def _model(top: onnx.NodeProto, p: str, extra_outputs: int) -> onnx.ModelProto:
    consts = [
        helper.make_node("Constant", [], ["trips"], value=helper.make_tensor("trips", I64, [], [STEPS])),
        helper.make_node("Constant", [], ["trips2"], value=helper.make_tensor("trips2", I64, [], [2])),
        helper.make_node("Constant", [], ["yes"], value=helper.make_tensor("yes", B, [], [True])),
        helper.make_node("Constant", [], ["zero"], value=helper.make_tensor("zero", I64, [], [0])),
        helper.make_node("Gather", ["xs", "zero"], ["x1"], axis=0, name="x1"),
    ]
    outputs = [_vi(f"{p}final", F, [4])]
    if extra_outputs:
        outputs.append(_vi(f"{p}ys", F, [STEPS, 4] if top.op_type == "Scan" else [None, 4]))
    g = helper.make_graph(
        [*consts, top], "g", [_vi("s0", F, [4]), _vi("xs", F, [STEPS, 4]), _vi("c", B, [])], outputs
    )
    m = helper.make_model(g, ir_version=9, opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(m)
    return m


def _nested(inner_kind: str) -> Builder:
    def build(p: str, shaped: bool, _inner: Builder | None, **kw: str) -> onnx.NodeProto:
        if inner_kind == "scan":
            return _scan(p, shaped)
        if inner_kind == "loop":
            return _loop(p, shaped, state=kw["state"], out=kw["out"])
        return _if(p, shaped, state=kw["state"], out=kw["out"])

    return build


CASES = {
    "scan": lambda shaped: _model(_scan("k_", shaped), "k_", 1),
    "loop": lambda shaped: _model(_loop("k_", shaped), "k_", 1),
    "if": lambda shaped: _model(_if("k_", shaped), "k_", 0),
    "scan_in_if": lambda shaped: _model(_if("k_", shaped, _nested("scan")), "k_", 0),
    "if_in_loop": lambda shaped: _model(_loop("k_", shaped, _nested("if")), "k_", 1),
    "loop_in_scan": lambda shaped: _model(_scan("k_", shaped, _nested("loop")), "k_", 1),
    "if_in_scan": lambda shaped: _model(_scan("k_", shaped, _nested("if")), "k_", 1),
}


def _feeds(cond: bool) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(7)
    return {
        "s0": np.linspace(-1.5, 1.5, 4).astype(np.float32),
        "xs": rng.standard_normal((STEPS, 4)).astype(np.float32),
        "c": np.array(cond),
    }


def _stock(m: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
    s = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
    return s.run(None, feeds)


@pytest.mark.parametrize("cond", [True, False])
@pytest.mark.parametrize("kind", sorted(CASES))
def test_body_runs_rewritten_with_and_without_declared_shapes(kind, cond):
    feeds = _feeds(cond)
    results = {}
    for shaped in (True, False):
        m = CASES[kind](shaped)
        try:
            ref = _stock(m, feeds)
        except Exception as e:  # stock ORT cannot run it either: the rewritten model fails the same way
            with pytest.raises(Exception) as ours:
                onemodel_ep.InferenceSession(m).run(None, feeds)
            assert str(ours.value) == str(e)
            return
        sess = onemodel_ep.InferenceSession(m)
        moved = {n.graph for n in sess.rewrite_report.moved}
        assert any(g != "main" for g in moved), sess.rewrite_report.summary()
        got = sess.run(None, feeds)
        for r, g in zip(ref, got):
            np.testing.assert_allclose(g, r, rtol=1e-5, atol=1e-6)
        results[shaped] = got
    for a, b in zip(results[True], results[False]):
        assert a.tobytes() == b.tobytes()


def test_stock_ort_runs_every_case_but_one():
    """The cases are ones stock ORT runs, except a Loop nested in a Scan without declared shapes: ONNX (and
    ORT) inference drops a Loop's loop-carried shapes, so the Scan body's output has none in stock ORT too."""
    feeds = _feeds(True)
    failing = []
    for kind in sorted(CASES):
        for shaped in (True, False):
            try:
                _stock(CASES[kind](shaped), feeds)
            except Exception as e:
                assert "Subgraph must have the shape set for all outputs" in str(e)
                failing.append((kind, shaped))
    assert failing == [("loop_in_scan", False)]


def test_shapes_are_carried_into_the_body():
    m = CASES["scan"](False)
    out = onemodel_ep.rewrite(m)
    body = out.graph.node[-1].attribute[0].g
    shapes = {vi.name: [d.dim_value for d in vi.type.tensor_type.shape.dim] for vi in body.output}
    assert shapes == {"k_s_out": [4], "k_y_t": [4]}
    carried = {vi.name for vi in body.value_info}
    assert {"k_a", "k_b", "k_c", "k_d", "k_e"} <= carried
    assert not m.graph.node[-1].attribute[0].g.output[0].type.tensor_type.HasField("shape")  # input kept


def test_same_name_in_both_branches_gets_each_branch_shape():
    """Shapes are carried per graph: an If whose branches both produce 'v' with different shapes."""
    then_g = helper.make_graph(
        [helper.make_node("Neg", ["x"], ["v"]), helper.make_node("Abs", ["v"], ["t"])],
        "then",
        [],
        [_vi("t", F, None)],
    )
    else_g = helper.make_graph(
        [
            helper.make_node("Concat", ["x", "x"], ["cat"], axis=0),
            helper.make_node("Neg", ["cat"], ["v"]),
            helper.make_node("Abs", ["v"], ["e"]),
        ],
        "else",
        [],
        [_vi("e", F, None)],
    )
    node = helper.make_node("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g)
    g = helper.make_graph([node], "g", [_vi("x", F, [4]), _vi("c", B, [])], [_vi("y", F, None)])
    m = helper.make_model(g, ir_version=9, opset_imports=[helper.make_opsetid("", 17)])
    out = onemodel_ep.rewrite(m)
    for attr in out.graph.node[0].attribute:
        n = {"then_branch": 4, "else_branch": 8}[attr.name]
        v = {vi.name: vi for vi in attr.g.value_info}["v"]
        assert [d.dim_value for d in v.type.tensor_type.shape.dim] == [n]
    sess = onemodel_ep.InferenceSession(m)
    x = np.arange(4, dtype=np.float32) - 2
    for c, want in ((True, np.abs(x)), (False, np.abs(np.concatenate([x, x])))):
        np.testing.assert_array_equal(sess.run(None, {"x": x, "c": np.array(c)})[0], want)


@functools.cache
def _linear_attention_cases() -> dict[str, tuple[onnx.ModelProto, dict[str, np.ndarray], list[np.ndarray]]]:
    """ONNX's backend cases of LinearAttention's expansion (a Scan whose carried state no ONNX inference
    shapes), at the newest ai.onnx opset this ORT loads (the cases declare 27; every op in them is older)."""
    from onnx.backend.test.case.node import collect_testcases

    cases = {}
    for c in collect_testcases("LinearAttention"):
        if not c.name.endswith("_expanded"):
            continue
        m = c.model
        for imp in m.opset_import:
            if imp.domain in ("", "ai.onnx"):
                imp.version = min(imp.version, onnx.defs.onnx_opset_version(), 24)
        inputs, outputs = c.data_sets[0]
        feeds = dict(zip([i.name for i in m.graph.input], inputs))
        cases[c.name] = (m, feeds, list(outputs))
    return cases


LINEAR_ATTENTION = [
    "test_linear_attention_" + s + "_expanded"
    for s in ("linear", "gated", "gated_per_head_decay", "delta", "gated_delta", "gated_delta_beta_scalar",
              "gated_delta_gqa", "gated_delta_mqa", "decode_step", "prefill_with_past",
              "no_past_explicit_zeros", "explicit_scale", "fp16", "linear_t1_no_past")
]


@pytest.mark.parametrize("name", LINEAR_ATTENTION)
def test_onnx_linear_attention_expansion_runs_rewritten(name):
    """Rewritten, the Scan body's outputs get the shapes ORT's own inference gives (ort_shapes.py): the case
    runs, gives ONNX's expected outputs within float tolerance, and the bits of the EP path."""
    cases = _linear_attention_cases()
    if name not in cases:
        pytest.skip(f"this onnx has no backend case {name}")
    m, feeds, want = cases[name]
    got = onemodel_ep.InferenceSession(m, via="rewrite").run(None, feeds)
    moved = onemodel_ep.InferenceSession(m, via="rewrite").rewrite_report.moved
    assert any(n.graph != "main" for n in moved), "no node of the Scan body was retargeted"
    for g, w in zip(got, want):
        tol = 2e-3 if w.dtype == np.float16 else 1e-5
        np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64), rtol=tol, atol=tol)
    if onemodel_ep.ep_supported():
        ep = onemodel_ep.InferenceSession(m, via="ep").run(None, feeds)
        for g, e in zip(got, ep):
            assert g.tobytes() == e.tobytes()
