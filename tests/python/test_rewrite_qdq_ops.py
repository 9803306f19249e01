"""QDQ groups in the rewrite for Sigmoid, LeakyRelu, AveragePool, GlobalAveragePool, Softmax and Concat
(onemodel_ep/qdq_groups.py, docs/qdq-groups-rewrite.md, the contract of docs/quantized.md's "QDQ groups"):
DequantizeLinear -> P -> QuantizeLinear becomes P's com.microsoft QLinear op, so the QDQ graph gives, bit for
bit, the rewrite of its QOperator form, written here by hand from the contract's table; and DequantizeLinear /
QuantizeLinear nodes without a zero point group too, as if the model carried a zero of x's type."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto as T
from onnx import helper, numpy_helper

import onemodel_ep
from onemodel_ep import cli
from onemodel_ep.digests import model_feeds
from onemodel_ep.fold import fold
from onemodel_ep.qdq_groups import GROUPED, find_groups
from onemodel_ep.report import RewriteReport
from tests.nodes.node_sessions import PATHS, assert_exact_bits, session
from tests.python.test_rewrite_qdq import Case

ROOT = Path(__file__).resolve().parents[2]
BERT = ROOT / "testdata" / "models" / "bert_tiny_qdq.onnx"
NP = {T.INT8: np.int8, T.UINT8: np.uint8}
RNG = np.random.default_rng(3737)
QDQ_OPS = {"DequantizeLinear", "QuantizeLinear"}


def _scale(lo: float = 0.01, hi: float = 0.05) -> np.ndarray:
    return np.array(RNG.uniform(lo, hi), dtype=np.float32)


def _zp(t: int) -> np.ndarray:
    return np.array(RNG.integers(-20, 20) + (128 if t == T.UINT8 else 0), dtype=NP[t])


@dataclass
class Group:
    """DequantizeLinear of each input -> P -> QuantizeLinear, and the same written as P's QLinear op."""

    op: str
    t: int
    shapes: list[tuple[int, ...]]
    attrs: dict[str, object] = field(default_factory=dict)
    opset: int = 19
    qlinear_attrs: dict[str, object] = field(default_factory=dict)  # the QLinear op's, by the contract
    constant: int = -1  # an input that is a constant initializer (not a graph input)

    def __post_init__(self) -> None:
        info = np.iinfo(NP[self.t])
        self.xs = [RNG.integers(info.min, info.max + 1, size=s).astype(NP[self.t]) for s in self.shapes]
        self.scales = [_scale() for _ in self.shapes]
        self.zps = [_zp(self.t) for _ in self.shapes]
        self.ys, self.yz = _scale(0.003, 0.02) if self.op in ("Sigmoid", "Softmax") else _scale(), _zp(self.t)
        self.feeds = {f"x{i}": x for i, x in enumerate(self.xs) if i != self.constant}

    def _graph(self, nodes: list[onnx.NodeProto], inits: list[onnx.TensorProto],
               out_t: int) -> onnx.ModelProto:
        inputs = [helper.make_tensor_value_info(f"x{i}", self.t, x.shape)
                  for i, x in enumerate(self.xs) if i != self.constant]
        if self.constant >= 0:
            inits.append(numpy_helper.from_array(self.xs[self.constant], f"x{self.constant}"))
        graph = helper.make_graph(nodes, self.op, inputs, [helper.make_tensor_value_info("y", out_t, None)],
                                  inits)
        opsets = [helper.make_opsetid("", self.opset), helper.make_opsetid("com.microsoft", 1)]
        return helper.make_model(graph, opset_imports=opsets, ir_version=9)

    def qdq(self, dq_zp: bool = True, q_zp: bool = True) -> onnx.ModelProto:
        inits = [numpy_helper.from_array(self.ys, "ys")]
        nodes = []
        for i in range(len(self.xs)):
            inits.append(numpy_helper.from_array(self.scales[i], f"s{i}"))
            ins = [f"x{i}", f"s{i}"]
            if dq_zp:
                inits.append(numpy_helper.from_array(self.zps[i], f"z{i}"))
                ins.append(f"z{i}")
            nodes.append(helper.make_node("DequantizeLinear", ins, [f"f{i}"], name=f"dq{i}"))
        nodes.append(helper.make_node(self.op, [f"f{i}" for i in range(len(self.xs))], ["p"], name="p",
                                      **self.attrs))
        q_ins, q_attrs = ["p", "ys"], {}
        if q_zp:
            inits.append(numpy_helper.from_array(self.yz, "yz"))
            q_ins.append("yz")
        elif self.t == T.INT8:
            q_attrs["output_dtype"] = T.INT8
        nodes.append(helper.make_node("QuantizeLinear", q_ins, ["y"], name="q", **q_attrs))
        return self._graph(nodes, inits, self.t)

    def qop(self, zero: bool = False) -> onnx.ModelProto:
        """P's QLinear op; zero: every zero point 0 (what the QDQ graph without zero points means)."""
        inits = [numpy_helper.from_array(self.ys, "ys"),
                 numpy_helper.from_array(np.zeros((), NP[self.t]) if zero else self.yz, "yz")]
        triples = []
        for i in range(len(self.xs)):
            inits.append(numpy_helper.from_array(self.scales[i], f"s{i}"))
            inits.append(numpy_helper.from_array(np.zeros((), NP[self.t]) if zero else self.zps[i], f"z{i}"))
            triples += [f"x{i}", f"s{i}", f"z{i}"]
        ins = ["ys", "yz", *triples] if self.op == "Concat" else [*triples, "ys", "yz"]
        node = helper.make_node(f"QLinear{self.op}", ins, ["y"], domain="com.microsoft", **self.qlinear_attrs)
        return self._graph([node], inits, self.t)


def _groups() -> dict[str, Callable[[], Group]]:
    cases: dict[str, Callable[[], Group]] = {}
    for t, tn in ((T.UINT8, "u8"), (T.INT8, "s8")):
        cases[f"sigmoid {tn}"] = lambda t=t: Group("Sigmoid", t, [(2, 3, 40)])
        cases[f"leakyrelu {tn}"] = lambda t=t: Group("LeakyRelu", t, [(3, 50)], {"alpha": 0.2},
                                                      qlinear_attrs={"alpha": 0.2})
        cases[f"globalaveragepool {tn}"] = lambda t=t: Group("GlobalAveragePool", t, [(2, 3, 5, 7)],
                                                              qlinear_attrs={"channels_last": 0})
        pool = {"kernel_shape": [3, 3], "pads": [1, 0, 1, 1], "strides": [2, 2], "ceil_mode": 1,
                "count_include_pad": 1}
        cases[f"averagepool {tn} pads ceil count_include_pad"] = lambda t=t, pool=pool: Group(
            "AveragePool", t, [(1, 3, 9, 8)], pool, qlinear_attrs={**pool, "channels_last": 0})
        cases[f"softmax {tn} opset 13 axis 1"] = lambda t=t: Group(
            "Softmax", t, [(2, 6, 5)], {"axis": 1}, 13, {"axis": 1, "opset": 13})
        cases[f"softmax {tn} opset 11 axis 2"] = lambda t=t: Group(
            "Softmax", t, [(2, 3, 4, 5)], {"axis": 2}, 11, {"axis": 2, "opset": 11})
        cases[f"concat {tn} 2 inputs"] = lambda t=t: Group("Concat", t, [(2, 3), (2, 5)], {"axis": 1},
                                                           qlinear_attrs={"axis": 1})
        cases[f"concat {tn} 3 inputs"] = lambda t=t: Group("Concat", t, [(2, 3, 4), (1, 3, 4), (3, 3, 4)],
                                                           {"axis": -3}, qlinear_attrs={"axis": -3})
    cases["softmax u8 opset 11 default axis"] = lambda: Group("Softmax", T.UINT8, [(3, 4, 5)], {}, 11,
                                                              {"axis": 1, "opset": 11})
    cases["softmax u8 opset 13 default axis"] = lambda: Group("Softmax", T.UINT8, [(3, 4, 5)], {}, 13,
                                                              {"axis": -1, "opset": 13})
    cases["averagepool s8 default attributes"] = lambda: Group(
        "AveragePool", T.INT8, [(1, 2, 6, 6)], {"kernel_shape": [2, 2], "dilations": [1, 1]},
        qlinear_attrs={"kernel_shape": [2, 2], "channels_last": 0})
    cases["leakyrelu u8 default alpha"] = lambda: Group("LeakyRelu", T.UINT8, [(4, 9)],
                                                        qlinear_attrs={"alpha": 0.01})
    return cases


GROUPS = _groups()


def _rewrite(model: onnx.ModelProto, path: str | None = None,
             threads: int = 1) -> onemodel_ep.InferenceSession:
    return session(model, "rewrite", path, threads)


def _ops(sess: onemodel_ep.InferenceSession) -> list[str]:
    """The rewritten model's op types, but the Constant nodes the rewriter adds as type witnesses."""
    assert sess.rewritten_model is not None
    return [n.op_type for n in sess.rewritten_model.graph.node
            if not (n.op_type == "Constant" and "__onemodel_" in n.output[0])]


def _stock(model: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> np.ndarray:
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL  # no QDQ fusion of its own
    so.log_severity_level = 3
    return ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"]).run(
        ["y"], feeds)[0]


def _assert_group(name: str, qdq: onnx.ModelProto, qop: onnx.ModelProto, feeds: dict[str, np.ndarray],
                  plan: list[tuple[str | None, int]]) -> np.ndarray:
    """qdq through the rewrite is one QLinear node (no DequantizeLinear, P or QuantizeLinear left) with the
    bits of qop through the rewrite, for each (kernel path, threads) of plan. The output."""
    (fused,) = qop.graph.node
    want_op = f"com.microsoft.{fused.op_type}" if fused.domain else fused.op_type
    for path, threads in plan:
        sess = _rewrite(qdq, path, threads)
        assert _ops(sess) == [want_op], sess.report.summary()
        assert sum(n.category == GROUPED for n in sess.report.nodes) == len(qdq.graph.node)
        (got,) = sess.run(None, feeds)
        want_sess = _rewrite(qop, path, threads)
        assert not want_sess.report.stayed, want_sess.report.summary()
        (want,) = want_sess.run(None, feeds)
        assert_exact_bits(f"{name} path {path} threads {threads}", got, want)
    return got


@pytest.mark.parametrize("name", list(GROUPS))
def test_group_is_the_qlinear_op(name: str) -> None:
    """One session each; the first case and one Softmax and Concat on every kernel path and at two threads."""
    g = GROUPS[name]()
    every = name in ("sigmoid u8", "softmax s8 opset 11 axis 2", "concat u8 3 inputs")
    plan = [(p, 1) for p in PATHS] + [(None, 2)] if every else [(None, 1)]
    got = _assert_group(name, g.qdq(), g.qop(), g.feeds, plan)
    # close to stock ORT's QLinear kernel (ORT's own arithmetic: lookup tables of float results, MLAS'
    # rounding): within one code (a value within a float rounding of a half may round the other way)
    want = _stock(g.qop(), g.feeds)
    assert got.shape == want.shape and np.abs(got.astype(np.int32) - want.astype(np.int32)).max() <= 1


def test_zero_size_concat_input() -> None:
    g = Group("Concat", T.UINT8, [(2, 0), (2, 3)], {"axis": 1}, qlinear_attrs={"axis": 1})
    got = _assert_group("zero-size concat", g.qdq(), g.qop(), g.feeds, [(None, 1)])
    assert got.shape == (2, 3)


WITHOUT_ZP = {  # which zero points the QDQ graph lacks: (DequantizeLinear's, QuantizeLinear's)
    "dq": (False, True), "q": (True, False), "both": (False, False)}


@pytest.mark.parametrize("name", ["sigmoid s8", "concat u8 2 inputs"])
def test_one_type_groups_without_zero_points(name: str) -> None:
    """Without any zero point: a zero of x's type (the QuantizeLinear's: uint8, or output_dtype's)."""
    g = GROUPS[name]()
    g.zps = [np.zeros((), NP[g.t]) for _ in g.xs]
    g.yz = np.zeros((), NP[g.t])
    g.opset = 21  # QuantizeLinear's output_dtype (int8 without a zero point)
    for which, (dq_zp, q_zp) in WITHOUT_ZP.items():
        qdq = g.qdq(dq_zp, q_zp)
        _assert_group(f"{name} without {which} zp", qdq, g.qop(zero=True), g.feeds, [(None, 1)])


def _linear_without(op: str, xt: int, wt: int, yt: int, x_zp: bool, w_zp: bool, y_zp: bool,
                    **attrs: object) -> tuple[Case, onnx.ModelProto]:
    """Case's QDQ graph (tests/python/test_rewrite_qdq.py) with the named zero points absent; Case's zero
    points made 0 so that its QOperator form (which carries them) is what the QDQ graph means."""
    case = Case(op, xt, wt, yt, **attrs)
    case.xz, case.wz, case.yz = (np.zeros_like(z) for z in (case.xz, case.wz, case.yz))
    model = case.qdq(x_zp=x_zp, y_zp=y_zp)
    if not w_zp:
        (dq_w,) = [n for n in model.graph.node if n.name == "dq_w"]
        del dq_w.input[2]
        (wz,) = [t for t in model.graph.initializer if t.name == "w_zp"]
        model.graph.initializer.remove(wz)
    return case, model


LINEAR_WITHOUT_ZP = {  # (B): QLinearConv and QLinearMatMul require every zero point
    "conv u8/s8 per-channel, no x zp": ("Conv", T.UINT8, T.INT8, T.UINT8, False, True, True,
                                        {"pads": [1] * 4}),
    "conv s8/s8 per-channel, no zp at all": ("Conv", T.INT8, T.INT8, T.INT8, False, False, True, {}),
    "conv u8/u8 per-tensor, no q zp": ("Conv", T.UINT8, T.UINT8, T.UINT8, True, True, False,
                                       {"per_channel": False}),
    "matmul u8/s8 per-column, no w zp": ("MatMul", T.UINT8, T.INT8, T.UINT8, True, False, True, {}),
    "matmul u8/s8 per-tensor, none": ("MatMul", T.UINT8, T.INT8, T.UINT8, False, False, False,
                                      {"per_channel": False}),
    "gemm s8/s8, no x zp": ("Gemm", T.INT8, T.INT8, T.INT8, False, True, True, {"transB": 1}),
}


@pytest.mark.parametrize("name", list(LINEAR_WITHOUT_ZP))
def test_linear_groups_without_zero_points(name: str) -> None:
    op, xt, wt, yt, x_zp, w_zp, y_zp, attrs = LINEAR_WITHOUT_ZP[name]
    case, model = _linear_without(op, xt, wt, yt, x_zp, w_zp, y_zp, **attrs)  # type: ignore[arg-type]
    every = name == next(iter(LINEAR_WITHOUT_ZP))
    _assert_group(name, model, case.qop(), case.feeds, [(p, 1) for p in PATHS] + [(None, 2)] if every else
                  [(None, 1)])
    (grp,) = find_groups(model)
    zeros = {t.name: t for t in grp.zeros}
    scales = {t.name: t for t in model.graph.initializer}
    ins = list(grp.fused.input)
    made = [(list(zeros[n].dims), list(scales[ins[k - 1]].dims)) for k, n in enumerate(ins) if n in zeros]
    assert len(made) == (not x_zp) + (not w_zp) + (not y_zp)
    assert all(z == s for z, s in made), made  # as many zeros as scales (a zero point follows its scale)


def test_fold_leaves_a_constant_concat_input() -> None:
    """Concat of an activation and a constant's DequantizeLinear: fold would make the constant's
    DequantizeLinear a float initializer and lose the group (rule 6); it leaves the group's nodes."""
    g = Group("Concat", T.INT8, [(2, 3), (2, 4)], {"axis": 1}, qlinear_attrs={"axis": 1}, constant=1)
    model = g.qdq()
    report = RewriteReport("exact", None)
    folded = fold(model, report=report)
    assert not report.nodes and len(folded.graph.node) == len(model.graph.node)
    assert [grp.fused.op_type for grp in find_groups(folded)] == ["QLinearConcat"]
    _assert_group("constant concat input", model, g.qop(), g.feeds, [(None, 1)])


def _two_readers(g: Group) -> onnx.ModelProto:
    """Concat reading one DequantizeLinear twice."""
    model = g.qdq()
    (p,) = [n for n in model.graph.node if n.name == "p"]
    p.input[1] = p.input[0]
    return model


def _per_axis(g: Group) -> onnx.ModelProto:
    model = g.qdq()
    (s0,) = [t for t in model.graph.initializer if t.name == "s0"]
    (z0,) = [t for t in model.graph.initializer if t.name == "z0"]
    s0.CopyFrom(numpy_helper.from_array(np.full(3, g.scales[0], np.float32), "s0"))
    z0.CopyFrom(numpy_helper.from_array(np.full(3, g.zps[0], NP[g.t]), "z0"))
    (dq0,) = [n for n in model.graph.node if n.name == "dq0"]
    dq0.attribute.append(helper.make_attribute("axis", 1))
    return model


def _mixed(g: Group) -> onnx.ModelProto:
    model = g.qdq()
    (yz,) = [t for t in model.graph.initializer if t.name == "yz"]
    yz.CopyFrom(numpy_helper.from_array(np.array(3, np.int8), "yz"))
    model.graph.output[0].type.tensor_type.elem_type = T.INT8
    return model


def _p_output_out(g: Group) -> onnx.ModelProto:
    model = g.qdq()
    model.graph.output.append(helper.make_tensor_value_info("p", T.FLOAT, None))
    return model


BROKEN: dict[str, tuple[Callable[[], Group], Callable[[Group], onnx.ModelProto]]] = {
    "concat reading one DequantizeLinear twice": (
        lambda: Group("Concat", T.UINT8, [(2, 3), (2, 3)], {"axis": 0}), _two_readers),
    "sigmoid per-axis scale": (lambda: Group("Sigmoid", T.UINT8, [(2, 3)]), _per_axis),
    "leakyrelu uint8 in, int8 out": (lambda: Group("LeakyRelu", T.UINT8, [(2, 7)], {"alpha": 0.1}), _mixed),
    "averagepool with dilations": (
        lambda: Group("AveragePool", T.UINT8, [(1, 2, 7, 7)], {"kernel_shape": [2, 2], "dilations": [2, 2]}),
        lambda g: g.qdq()),
    "softmax output a graph output": (lambda: Group("Softmax", T.INT8, [(3, 5)]), _p_output_out),
}


@pytest.mark.parametrize("name", list(BROKEN))
def test_broken_condition_stays_node_by_node(name: str) -> None:
    """No group; the nodes run one by one on our kernels, within one code of stock ORT's unfused graph
    (its float op may round the last bit otherwise, which can move a value across a rounding boundary)."""
    make, broken = BROKEN[name]
    g = make()
    model = broken(g)
    assert find_groups(model) == []
    sess = _rewrite(model)
    ops = _ops(sess)
    assert not any(op.startswith("com.microsoft.QLinear") for op in ops) and not any(
        n.category == GROUPED for n in sess.report.nodes)
    assert not sess.report.stayed, sess.report.summary()
    got = sess.run(["y"], g.feeds)[0]
    want = _stock(model, g.feeds)
    assert got.shape == want.shape and got.dtype == want.dtype
    assert np.abs(got.astype(np.int32) - want.astype(np.int32)).max() <= 1, name


def test_bert_groups_its_softmax(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The QDQ BERT's two DequantizeLinear -> Softmax -> QuantizeLinear become QLinearSoftmax (opset 18's
    axis -1), on `onemodel rewrite` too; the rewritten model runs."""
    model = onnx.load(str(BERT))
    softmaxes = [grp for grp in find_groups(model) if grp.fused.op_type == "QLinearSoftmax"]
    assert len(softmaxes) == 2
    for grp in softmaxes:
        attrs = {a.name: helper.get_attribute_value(a) for a in grp.fused.attribute}
        assert attrs == {"axis": -1, "opset": 18}
    out = tmp_path / "bert.onnx"
    assert cli.main(["rewrite", str(BERT), str(out)]) == 0
    ops = [n.op_type for n in onnx.load(str(out)).graph.node]
    assert ops.count("com.microsoft.QLinearSoftmax") == 2 and "Softmax" not in ops
    assert "QDQ group: one QLinearSoftmax" in capsys.readouterr().out
    feeds = model_feeds(BERT)
    (got, *_) = _rewrite(model).run(None, feeds)
    assert np.all(np.isfinite(got))


class FloatMatMul:
    """DequantizeLinear(A, per tensor) -> MatMul <- DequantizeLinear(B, a constant, per tensor or per column),
    the MatMul's float output the graph's (or read by a float op `then`, Mul or Add), no QuantizeLinear: the
    group of docs/quantized.md's "QDQ groups" that becomes com.microsoft MatMulIntegerToFloat(a, b, a_scale,
    b_scale, a_zp, b_zp); `qop` the same written as that node by hand."""

    def __init__(self, a_signed: bool, b_signed: bool, per_column: bool, then: str | None = None,
                 zero_points: bool = True, seed: int = 41) -> None:
        rng = np.random.default_rng(seed)
        at, bt = (T.INT8 if a_signed else T.UINT8), (T.INT8 if b_signed else T.UINT8)
        m, k, n = 5, 37, 9
        ai, bi = np.iinfo(NP[at]), np.iinfo(NP[bt])
        self.feeds = {"a": rng.integers(ai.min, ai.max + 1, (2, m, k)).astype(NP[at])}
        b = rng.integers(bi.min, bi.max + 1, (k, n)).astype(NP[bt])
        a_s = np.array(rng.uniform(0.01, 0.05), np.float32)
        b_s = rng.uniform(0.002, 0.02, n if per_column else ()).astype(np.float32)
        a_z = np.array(rng.integers(-5, 6) + (0 if a_signed else 128), NP[at])
        b_z = (rng.integers(-3, 4, b_s.shape) + (0 if b_signed else 128)).astype(NP[bt])
        self.at, self.then = at, then
        a_f = (self.feeds["a"].astype(np.float64) - (a_z if zero_points else 0)) * np.float64(a_s)
        b_f = (b.astype(np.float64) - (b_z if zero_points else 0)) * b_s.astype(np.float64)
        self.k, self.magnitude = k, np.abs(a_f) @ np.abs(b_f)  # sum_k |a_ik b_kj|, dequantized
        self.inits = [numpy_helper.from_array(v, name) for name, v in
                      (("b", b), ("a_s", a_s), ("b_s", b_s), ("a_z", a_z), ("b_z", b_z))]
        if then:
            c = rng.uniform(-1, 1, n).astype(np.float32)
            self.inits.append(numpy_helper.from_array(c, "c"))
            if then == "Mul":
                self.magnitude = self.magnitude * np.abs(c.astype(np.float64))
        self.zero_points = zero_points
        self.dq = [
            helper.make_node("DequantizeLinear", ["a", "a_s", "a_z"][:3 if zero_points else 2], ["af"],
                             name="dq_a"),
            helper.make_node("DequantizeLinear", ["b", "b_s", "b_z"][:3 if zero_points else 2], ["bf"],
                             name="dq_b", axis=1),
        ]

    def _model(self, nodes: list[onnx.NodeProto], inits: list[onnx.TensorProto],
               ms: bool = False) -> onnx.ModelProto:
        out = "y" if self.then else "p"
        nodes = [*nodes, helper.make_node(self.then, ["p", "c"], ["y"], name="then")] if self.then else nodes
        g = helper.make_graph(nodes, "qdq_mitf", [helper.make_tensor_value_info("a", self.at, [2, 5, 37])],
                              [helper.make_tensor_value_info(out, T.FLOAT, [2, 5, 9])], inits)
        ops = [helper.make_opsetid("", 19)] + ([helper.make_opsetid("com.microsoft", 1)] if ms else [])
        model = helper.make_model(g, opset_imports=ops)
        model.ir_version = 9
        return model

    def qdq(self) -> onnx.ModelProto:
        return self._model([*self.dq, helper.make_node("MatMul", ["af", "bf"], ["p"], name="mm")],
                           self.inits)

    def qop(self) -> onnx.ModelProto:
        ins = ["a", "b", "a_s", "b_s"] + (["a_z", "b_z"] if self.zero_points else [])
        node = helper.make_node("MatMulIntegerToFloat", ins, ["p"], name="mitf", domain="com.microsoft")
        inits = self.inits if self.zero_points else [t for t in self.inits if t.name not in ("a_z", "b_z")]
        return self._model([node], inits, ms=True)


FLOAT_MATMULS: dict[str, Callable[[], FloatMatMul]] = {
    "u8 a, u8 b per tensor": lambda: FloatMatMul(False, False, False),
    "u8 a, s8 b per column": lambda: FloatMatMul(False, True, True),
    "s8 a, s8 b per column, into Mul": lambda: FloatMatMul(True, True, True, then="Mul"),
    "u8 a, u8 b per column, no zero points, into Mul": lambda: FloatMatMul(False, False, True, then="Mul",
                                                                           zero_points=False),
}


@pytest.mark.parametrize("name", list(FLOAT_MATMULS))
def test_float_matmul_group_is_matmul_integer_to_float(name: str) -> None:
    """The rewrite makes the group one com.microsoft MatMulIntegerToFloat with ORT's input order (a, b,
    a_scale, b_scale, a_zp, b_zp; absent zero points stay absent) and the bits of that node written by hand,
    through the rewrite, on every kernel path and at two threads."""
    c = FLOAT_MATMULS[name]()
    qdq = c.qdq()
    (grp,) = find_groups(qdq)
    assert grp.q == -1 and grp.members == (0, 1, 2)
    (want_node,) = [n for n in c.qop().graph.node if n.op_type == "MatMulIntegerToFloat"]
    assert (grp.fused.domain, grp.fused.op_type) == ("com.microsoft", "MatMulIntegerToFloat")
    assert list(grp.fused.input) == list(want_node.input) and list(grp.fused.output) == ["p"]
    tail = [c.then] if c.then else []
    for path, threads in [(p, 1) for p in PATHS] + [(None, 2)]:
        sess = _rewrite(qdq, path, threads)
        assert _ops(sess) == ["com.microsoft.MatMulIntegerToFloat", *tail], sess.report.summary()
        assert sum(n.category == GROUPED for n in sess.report.nodes) == 3
        want_sess = _rewrite(c.qop(), path, threads)
        assert not want_sess.report.stayed, want_sess.report.summary()
        assert_exact_bits(f"{name} path {path} threads {threads}", sess.run(None, c.feeds)[0],
                          want_sess.run(None, c.feeds)[0])


def _float_two_readers(c: FloatMatMul) -> onnx.ModelProto:
    """dq_a read by the MatMul and a graph output: the rewrite leaves dq_a for that reader, the group forms
    (EnsureUniqueDQForNodeUnit's copy)."""
    model = c.qdq()
    model.graph.output.append(helper.make_tensor_value_info("af", T.FLOAT, None))
    return model


def _float_scale_input(c: FloatMatMul) -> onnx.ModelProto:
    model = c.qdq()
    (s,) = [t for t in model.graph.initializer if t.name == "a_s"]
    model.graph.initializer.remove(s)
    model.graph.input.append(helper.make_tensor_value_info("a_s", T.FLOAT, []))
    return model


def _float_q_and_other(c: FloatMatMul) -> onnx.ModelProto:
    """The MatMul's output read by a QuantizeLinear and by the graph: neither form (ORT: a QuantizeLinear
    child, but not the only reader)."""
    model = c.qdq()
    model.graph.node.append(helper.make_node("QuantizeLinear", ["p", "a_s", "a_z"], ["pq"], name="q"))
    model.graph.output.append(helper.make_tensor_value_info("pq", c.at, None))
    return model


FLOAT_BROKEN: dict[str, tuple[Callable[[], FloatMatMul], Callable[[FloatMatMul], onnx.ModelProto]]] = {
    "non-constant a_scale": (lambda: FloatMatMul(False, True, False), _float_scale_input),
    "s8 a with u8 b (ORT's selector refuses)": (lambda: FloatMatMul(True, False, True), lambda c: c.qdq()),
    "read by a QuantizeLinear and the graph": (lambda: FloatMatMul(False, True, True), _float_q_and_other),
    "read by an Add alone (ORT's MatMulAddFusion)": (lambda: FloatMatMul(False, True, True, then="Add"),
                                                     lambda c: c.qdq()),
}


@pytest.mark.parametrize("name", list(FLOAT_BROKEN))
def test_float_matmul_broken_condition_stays_node_by_node(name: str) -> None:
    """No group: DequantizeLinear, MatMul run as they are, with the bits of the unfused graph (our float
    MatMul is not stock's, so within a few float roundings of stock's unfused graph)."""
    make, broken = FLOAT_BROKEN[name]
    c = make()
    model = broken(c)
    assert find_groups(model) == []
    feeds = dict(c.feeds)
    if name.startswith("non-constant"):
        feeds["a_s"] = numpy_helper.to_array(next(t for t in c.inits if t.name == "a_s"))
    sess = _rewrite(model)
    assert "MatMul" in _ops(sess) and not any(n.category == GROUPED for n in sess.report.nodes)
    out = [model.graph.output[0].name]
    got = sess.run(out, feeds)[0]
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    so.log_severity_level = 3
    want = ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"]).run(
        out, feeds)[0]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 * float(np.abs(want).max()))


def test_float_matmul_shared_dequantize_still_groups() -> None:
    """dq_a also a graph output: the group takes it (the rewrite's EnsureUniqueDQForNodeUnit) and dq_a stays
    for the graph output; the MatMul's bits are MatMulIntegerToFloat's."""
    c = FLOAT_MATMULS["u8 a, s8 b per column"]()
    model = _float_two_readers(c)
    (grp,) = find_groups(model)
    sess = _rewrite(model)
    assert sorted(_ops(sess)) == ["DequantizeLinear", "com.microsoft.MatMulIntegerToFloat"]
    assert_exact_bits("shared dq_a", sess.run(["p"], c.feeds)[0], _rewrite(c.qop()).run(None, c.feeds)[0])
