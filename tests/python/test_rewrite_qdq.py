"""QDQ groups in the rewrite (onemodel_ep/qdq_groups.py, docs/qdq-groups-rewrite.md): DequantizeLinear ->
Conv / MatMul / Gemm / Add / Mul -> QuantizeLinear becomes one QLinear node, so a QDQ model gives, bit for
bit, the rewrite of its QOperator form (built here by hand, node for node), on every kernel path and at one
and two threads; graphs that break a condition stay node by node and stay within one quantization step of
stock ORT (its float Conv / MatMul sums in another order can move a value across a rounding boundary)."""

from __future__ import annotations

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

ROOT = Path(__file__).resolve().parents[2]
QDQ = ROOT / "testdata" / "models" / "resnet18_small_qdq.onnx"
QOP = ROOT / "testdata" / "quant" / "resnet18_small_qop.onnx"
FUSED = {"QLinearConv", "QLinearMatMul", "com.microsoft.QGemm", "com.microsoft.QLinearAdd",
         "com.microsoft.QLinearMul"}
NP = {T.INT8: np.int8, T.UINT8: np.uint8, T.INT32: np.int32, T.FLOAT: np.float32}
RNG = np.random.default_rng(37)


def _c(name: str, a: np.ndarray) -> onnx.TensorProto:
    return numpy_helper.from_array(a, name)


def _q(t: int, shape: tuple[int, ...]) -> np.ndarray:
    info = np.iinfo(NP[t])
    return RNG.integers(info.min, info.max + 1, size=shape).astype(NP[t])


def _scale(n: int | None) -> np.ndarray:
    s = RNG.uniform(0.002, 0.02, size=n if n is not None else ()).astype(np.float32)
    return s


class Case:
    """A QDQ graph around one op P and, node for node, its QOperator form."""

    def __init__(self, op: str, xt: int = T.UINT8, wt: int = T.INT8, yt: int = T.UINT8,
                 per_channel: bool = True, bias: bool = True, **attrs: object) -> None:
        self.op, self.attrs = op, attrs
        self.inits: list[onnx.TensorProto] = []
        self.inputs: list[onnx.ValueInfoProto] = []
        self.feeds: dict[str, np.ndarray] = {}
        self.nodes: list[onnx.NodeProto] = []
        self.ys, self.yz = _scale(None) * 8, np.array(_q(yt, ()) // 4, dtype=NP[yt])
        self.yt = yt
        if op == "Conv":
            x_shape, w_shape, n_out, axis = (1, 6, 9, 9), (8, 6 // int(attrs.get("group", 1)), 3, 3), 8, 0
        elif op == "MatMul":
            x_shape, w_shape, n_out, axis = (2, 5, 12), (12, 7), 7, 1
        elif op == "Gemm":
            tb = int(attrs.get("transB", 0))
            x_shape, w_shape, n_out, axis = (5, 12), ((7, 12) if tb else (12, 7)), 7, (0 if tb else 1)
        else:  # Add, Mul: two activations
            x_shape, w_shape, n_out, axis = (2, 3, 4), (3, 4), 1, -1
        self.x = self._input("x", xt, x_shape)
        self.xs, self.xz = _scale(None), np.array(_q(xt, ()) // 2, dtype=NP[xt])
        if op in ("Add", "Mul"):
            self.w = self._input("w", wt, w_shape)
            self.ws, self.wz = _scale(None), np.array(_q(wt, ()) // 2, dtype=NP[wt])
            self.w_axis = None
        else:
            self.w = self._init("w", _q(wt, w_shape))
            n = n_out if per_channel else None
            self.ws, self.wz = _scale(n), np.zeros(n if n is not None else (), dtype=NP[wt])
            self.w_axis = axis if per_channel else None
        self.b: str | None = None
        if bias and op in ("Conv", "Gemm"):
            self.b = self._init("b", RNG.integers(-3000, 3000, size=n_out).astype(np.int32))
            self.bs = (np.float32(self.xs) * np.broadcast_to(self.ws, (n_out,))).astype(np.float32)

    def _input(self, name: str, t: int, shape: tuple[int, ...]) -> str:
        self.inputs.append(helper.make_tensor_value_info(name, t, shape))
        self.feeds[name] = _q(t, shape)
        return name

    def _init(self, name: str, a: np.ndarray) -> str:
        self.inits.append(_c(name, a))
        return name

    def _consts(self, prefix: str, scale: np.ndarray, zp: np.ndarray | None) -> list[str]:
        names = [self._init(f"{prefix}_scale", scale)]
        if zp is not None:
            names.append(self._init(f"{prefix}_zp", zp))
        return names

    def qdq(self, *, y_zp: bool = True, x_zp: bool = True, bias_scale: np.ndarray | None = None,
            p_output_out: bool = False) -> onnx.ModelProto:
        self.inits = [t for t in self.inits if t.name in (self.w, self.b)]
        nodes: list[onnx.NodeProto] = []

        def dq(x: str, prefix: str, scale: np.ndarray, zp: np.ndarray | None, axis: int | None) -> str:
            kw = {} if axis is None else {"axis": axis}
            nodes.append(helper.make_node("DequantizeLinear", [x, *self._consts(prefix, scale, zp)],
                                          [f"{x}_f"], name=f"dq_{x}", **kw))
            return f"{x}_f"

        ins = [dq(self.x, "x", self.xs, self.xz if x_zp else None, None),
               dq(self.w, "w", self.ws, self.wz, self.w_axis)]
        if self.b is not None:
            bs = self.bs if bias_scale is None else bias_scale
            ins.append(dq(self.b, "b", bs, None, 0 if bs.ndim else None))
        nodes.append(helper.make_node(self.op, ins, ["p"], name="p", **self.attrs))
        y_consts = self._consts("y", self.ys, self.yz if y_zp else None)
        nodes.append(helper.make_node("QuantizeLinear", ["p", *y_consts], ["y"], name="q"))
        outs = [helper.make_tensor_value_info("y", self.yt if y_zp else T.UINT8, None)]
        if p_output_out:
            outs.append(helper.make_tensor_value_info("p", T.FLOAT, None))
        return self._model(nodes, outs)

    def qop(self) -> onnx.ModelProto:
        """The QOperator form, written from the QLinear ops' own input lists."""
        self.inits = [t for t in self.inits if t.name in (self.w, self.b)]
        xs, xz = self._consts("x", self.xs, self.xz)
        ws, wz = self._consts("w", self.ws, self.wz)
        ys, yz = self._consts("y", self.ys, self.yz)
        ms = {"domain": "com.microsoft"}
        if self.op == "Conv":
            ins = [self.x, xs, xz, self.w, ws, wz, ys, yz] + ([self.b] if self.b else [])
            node = helper.make_node("QLinearConv", ins, ["y"], **self.attrs)
        elif self.op == "MatMul":
            node = helper.make_node("QLinearMatMul", [self.x, xs, xz, self.w, ws, wz, ys, yz], ["y"])
        elif self.op == "Gemm":
            attrs = {k: v for k, v in self.attrs.items() if k != "beta"}
            ins = [self.x, xs, xz, self.w, ws, wz, self.b or "", ys, yz]
            node = helper.make_node("QGemm", ins, ["y"], **attrs, **ms)
        else:
            ins = [self.x, xs, xz, self.w, ws, wz, ys, yz]
            node = helper.make_node(f"QLinear{self.op}", ins, ["y"], **ms)
        return self._model([node], [helper.make_tensor_value_info("y", self.yt, None)])

    def _model(self, nodes: list[onnx.NodeProto], outs: list[onnx.ValueInfoProto]) -> onnx.ModelProto:
        graph = helper.make_graph(nodes, self.op, self.inputs, outs, self.inits)
        opsets = [helper.make_opsetid("", 19), helper.make_opsetid("com.microsoft", 1)]
        return helper.make_model(graph, opset_imports=opsets, ir_version=9)


def _ours(model: onnx.ModelProto | str, path: str | None = None, threads: int = 1,
          via: str = "rewrite") -> onemodel_ep.InferenceSession:
    return session(model if isinstance(model, onnx.ModelProto) else onnx.load(model), via, path, threads)


def _fused_ops(sess: onemodel_ep.InferenceSession) -> list[str]:
    assert sess.rewritten_model is not None
    return [n.op_type for n in sess.rewritten_model.graph.node if n.op_type in FUSED]


def _stock(model: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> np.ndarray:
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL  # no QDQ fusion of its own
    so.log_severity_level = 3
    sess = ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
    return sess.run(["y"], feeds)[0]


CASES = {
    "conv u8/s8 per-channel bias": lambda: Case("Conv", pads=[1, 1, 1, 1]),
    "conv s8/s8 per-tensor no bias": lambda: Case("Conv", T.INT8, T.INT8, T.INT8, per_channel=False,
                                                   bias=False, strides=[2, 2]),
    "conv u8/u8 per-channel bias, grouped": lambda: Case("Conv", T.UINT8, T.UINT8, T.UINT8, group=2),
    "matmul u8/s8 per-column": lambda: Case("MatMul"),
    "matmul s8/u8 per-tensor": lambda: Case("MatMul", T.INT8, T.UINT8, T.INT8, per_channel=False),
    "gemm transB per-channel bias": lambda: Case("Gemm", transB=1),
    "gemm per-column no bias alpha": lambda: Case("Gemm", T.UINT8, T.UINT8, T.UINT8, bias=False, alpha=0.5),
    "gemm per-tensor bias beta": lambda: Case("Gemm", T.INT8, T.INT8, T.INT8, per_channel=False, beta=1.0),
    "add u8": lambda: Case("Add", T.UINT8, T.UINT8, T.UINT8),
    "add s8": lambda: Case("Add", T.INT8, T.INT8, T.INT8),
    "mul u8": lambda: Case("Mul", T.UINT8, T.UINT8, T.UINT8),
    "mul s8": lambda: Case("Mul", T.INT8, T.INT8, T.INT8),
}


@pytest.mark.parametrize("name", list(CASES))
def test_group_is_the_qoperator_form(name: str) -> None:
    """One session each; the first case on every kernel path and at two threads too."""
    case = CASES[name]()
    qdq, qop = case.qdq(), case.qop()
    plan = [(p, 1) for p in PATHS] + [(None, 2)] if name == next(iter(CASES)) else [(None, 1)]
    for path, threads in plan:
        got_sess = _ours(qdq, path, threads)
        assert len(_fused_ops(got_sess)) == 1, got_sess.report.summary()
        assert sum(n.category == GROUPED for n in got_sess.report.nodes) == len(qdq.graph.node)
        want_sess = _ours(qop, path, threads)
        assert not want_sess.report.stayed, want_sess.report.summary()
        (got,) = got_sess.run(None, case.feeds)
        (want,) = want_sess.run(None, case.feeds)
        assert_exact_bits(f"{name} path {path} threads {threads}", got, want)
    # and close to stock's float graph (one quantization step: its float sums, in another order)
    diff = np.abs(got.astype(np.int32) - _stock(qdq, case.feeds).astype(np.int32))
    assert diff.max() <= 1, name


def test_zero_size_add() -> None:
    case = Case("Add", T.UINT8, T.UINT8, T.UINT8)
    case.inputs[0] = helper.make_tensor_value_info("x", T.UINT8, (0, 3, 4))
    case.feeds["x"] = np.zeros((0, 3, 4), np.uint8)
    sess = _ours(case.qdq())
    assert _fused_ops(sess) == ["com.microsoft.QLinearAdd"]
    (got,) = sess.run(None, case.feeds)
    assert got.shape == (0, 3, 4) and got.dtype == np.uint8


def _off_by_one_ulp(case: Case) -> dict[str, object]:
    return {"bias_scale": np.nextafter(case.bs, np.float32(1)).astype(np.float32)}


BROKEN = {  # (case, what the QDQ graph changes): a condition of the contract broken, so no group
    "bias scale not x_scale * w_scale": (lambda: Case("Conv"), _off_by_one_ulp),
    "P's output a graph output": (lambda: Case("Conv"), lambda c: {"p_output_out": True}),
    "Gemm transA": (lambda: Case("Gemm", transA=1, bias=False), None),
    "Gemm alpha with C": (lambda: Case("Gemm", alpha=2.0), None),
    "Gemm beta with C": (lambda: Case("Gemm", beta=0.5), None),
    "MatMul per-row weight": (lambda: Case("MatMul"), None),
    "Add of two types": (lambda: Case("Add", T.UINT8, T.INT8, T.UINT8), None),
}


@pytest.mark.parametrize("name", list(BROKEN))
def test_broken_condition_stays_node_by_node(name: str) -> None:
    make, change = BROKEN[name]
    case = make()
    if name == "Gemm transA":
        case.x = "x"
        case.inputs[0] = helper.make_tensor_value_info("x", T.UINT8, (12, 5))
        case.feeds["x"] = _q(T.UINT8, (12, 5))
    if name == "MatMul per-row weight":
        case.w_axis = 0
        case.ws = _scale(12)
        case.wz = np.zeros(12, np.int8)
    model = case.qdq(**(change(case) if change else {}))  # type: ignore[arg-type]
    assert find_groups(model) == []
    sess = _ours(model)
    assert _fused_ops(sess) == [] and not any(n.category == GROUPED for n in sess.report.nodes)
    got = sess.run(["y"], case.feeds)[0]
    want = _stock(model, case.feeds)
    assert got.shape == want.shape and got.dtype == want.dtype
    assert np.abs(got.astype(np.int32) - want.astype(np.int32)).max() <= 1, name


def test_shared_dequantize_joins_each_group_and_stays_for_others() -> None:
    """x's DequantizeLinear read by the group's Conv and by a float Relu (a graph output): the Conv groups
    (ORT's EnsureUniqueDQForNodeUnit gives each reader a copy), the DequantizeLinear stays for the Relu."""
    case = Case("Conv")
    model = case.qdq()
    model.graph.node.append(helper.make_node("Relu", ["x_f"], ["r"], name="relu"))
    model.graph.output.append(helper.make_tensor_value_info("r", T.FLOAT, None))
    sess = _ours(model)
    assert _fused_ops(sess) == ["QLinearConv"]
    kept = [n.op_type for n in sess.rewritten_model.graph.node if n.op_type in ("DequantizeLinear", "Relu")]
    assert sorted(kept) == ["DequantizeLinear", "Relu"]
    y, r = sess.run(["y", "r"], case.feeds)
    assert_exact_bits("shared DQ group", y, _ours(case.qop()).run(None, case.feeds)[0])
    want_r = np.maximum((case.feeds["x"].astype(np.int32) - int(case.xz)).astype(np.float32) * case.xs, 0)
    assert_exact_bits("shared DQ relu", r, want_r.astype(np.float32))


def test_constant_node_scale_after_p() -> None:
    """The QuantizeLinear's scale a Constant node between P and it: still a group (ORT makes Constant nodes
    initializers, so the EP sees a constant too), and the fused node stands where the QuantizeLinear did."""
    case = Case("MatMul")
    model = case.qdq()
    (ys,) = [t for t in model.graph.initializer if t.name == "y_scale"]
    model.graph.initializer.remove(ys)
    q_at = [n.name for n in model.graph.node].index("q")
    model.graph.node.insert(q_at, helper.make_node("Constant", [], ["y_scale"], value=ys))
    sess = _ours(model)
    assert _fused_ops(sess) == ["QLinearMatMul"]
    assert_exact_bits("constant node scale", sess.run(None, case.feeds)[0],
                      _ours(case.qop()).run(None, case.feeds)[0])


def test_fold_leaves_the_groups() -> None:
    """Constant folding would turn each weight's DequantizeLinear into a float initializer and lose its
    group: it leaves the groups' nodes (and folds nothing else of this model)."""
    model = onnx.load(str(QDQ))
    report = RewriteReport("exact", None)
    folded = fold(model, report=report)
    assert not report.nodes and len(folded.graph.node) == len(model.graph.node)
    assert len(find_groups(model)) == 29


def test_resnet_is_the_qoperator_resnet() -> None:
    """The QDQ ResNet through the rewrite (fold first, as always): 20 QLinearConv, 8 QLinearAdd and one
    QGemm, and the logits of the QOperator ResNet through the rewrite, bit for bit, every path, one and two
    threads."""
    feeds = model_feeds(QDQ)
    for path, threads in [(p, 1) for p in PATHS] + [(None, 2)]:
        sess = _ours(str(QDQ), path, threads)
        ops = _fused_ops(sess)
        assert (ops.count("QLinearConv"), ops.count("com.microsoft.QLinearAdd"), len(ops)) == (20, 8, 29)
        (got,) = sess.run(None, feeds)
        (want,) = _ours(str(QOP), path, threads).run(None, feeds)
        assert_exact_bits(f"resnet path {path} threads {threads}", got, want)


def test_cli_rewrite_writes_the_fused_nodes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "r.onnx"
    assert cli.main(["rewrite", str(QDQ), str(out)]) == 0
    ops = [n.op_type for n in onnx.load(str(out)).graph.node]
    assert ops.count("QLinearConv") == 20 and ops.count("com.microsoft.QGemm") == 1
    printed = capsys.readouterr().out
    assert "QDQ group: one QLinearConv" in printed and "QDQ group: one QGemm" in printed


@pytest.mark.skipif(not onemodel_ep.ep_supported(), reason="the execution provider needs ONNX Runtime 1.24+")
def test_ep_agrees_with_the_rewrite() -> None:
    """The EP fuses the same groups (docs/quantized.md, "QDQ groups"): the two ways in give the QOperator
    form's bits, on every kernel path and at 1 and 2 threads."""
    feeds = model_feeds(QDQ)
    (want,) = _ours(str(QOP)).run(None, feeds)
    (ep,) = _ours(str(QDQ), via="ep").run(None, feeds)
    assert_exact_bits("ep vs the QOperator form", ep, want)
    for path, threads in [(p, 1) for p in PATHS] + [(None, 2)]:
        (ep,) = _ours(str(QDQ), path, threads, via="ep").run(None, feeds)
        (rw,) = _ours(str(QDQ), path, threads).run(None, feeds)
        assert_exact_bits(f"ep vs rewrite path {path} threads {threads}", ep, rw)
