"""QDQ groups on the execution provider (docs/quantized.md, "QDQ groups"): DequantizeLinear nodes -> Conv,
MatMul, Gemm, Add or Mul -> QuantizeLinear run as one fused node computing our QLinearConv,
QLinearMatMul, QGemm, QLinearAdd or QLinearMul. The group's bits are the QOperator model's (the same
ints, scales and zero points) on our EP; the same on every kernel path, thread count and optimisation
level; close to stock ORT, which fuses the same groups at ORT_ENABLE_ALL; a graph that breaks a condition
stays unfused and still runs."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper as nh

import onemodel_ep
from onemodel_ep.qdq_unique import unique_dq
from tests.ep.ep_profile import op_names_run, profile_prefix
from tests.ep.ep_sessions import ep_session, fused_names, nodes_run
from tests.nodes.node_sessions import PATHS, assert_exact_bits

pytestmark = pytest.mark.skipif(not onemodel_ep.ep_supported(), reason="needs the plugin EP (ORT 1.24+)")

LEVELS = (
    ort.GraphOptimizationLevel.ORT_DISABLE_ALL,
    ort.GraphOptimizationLevel.ORT_ENABLE_BASIC,
    ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED,
    ort.GraphOptimizationLevel.ORT_ENABLE_ALL,
)
Q8 = {True: (np.int8, T.INT8), False: (np.uint8, T.UINT8)}


def _model(
    nodes: list[onnx.NodeProto],
    inputs: dict[str, tuple[int, Sequence[int]]],
    y: tuple[int, Sequence[int]],
    inits: list[onnx.TensorProto],
    ms: bool = False,
) -> onnx.ModelProto:
    g = h.make_graph(
        nodes,
        "qdq",
        [h.make_tensor_value_info(k, t, s) for k, (t, s) in inputs.items()],
        [h.make_tensor_value_info("y", *y)],
        inits,
    )
    ops = [h.make_opsetid("", 18)] + ([h.make_opsetid("com.microsoft", 1)] if ms else [])
    m = h.make_model(g, opset_imports=ops)
    m.ir_version = 9
    return m


class Case:
    """One float op with its QDQ form and its QOperator form, from the same ints, scales and zero points."""

    def __init__(
        self,
        op: str,
        signed: bool = False,
        per_channel: bool = False,
        bias: bool = False,
        w_signed: bool = True,
        trans_b: int = 0,
        seed: int = 37,
    ) -> None:
        rng = np.random.default_rng(seed)
        xt, xe = Q8[signed]
        wt, we = Q8[w_signed] if op not in ("Add", "Mul") else Q8[signed]
        yt, ye = Q8[signed]
        lo, hi = (-128, 128) if signed else (0, 256)
        self.op = op
        if op == "Conv":
            xshape, wshape, yshape, n = [1, 3, 9, 7], [5, 3, 3, 3], [1, 5, 9, 7], 5
        elif op in ("MatMul", "Gemm"):
            xshape, yshape, n = [6, 19], [6, 7], 7
            wshape = [7, 19] if trans_b else [19, 7]
        else:
            xshape, wshape, yshape, n = [2, 3, 5], [3, 5], [2, 3, 5], 1
        self.feeds = {"x": rng.integers(lo, hi, xshape).astype(xt)}
        xs = np.float32(rng.uniform(0.01, 0.05))
        ws = rng.uniform(0.002, 0.02, n if per_channel else ()).astype(np.float32)
        wlo, whi = (-128, 128) if wt == np.int8 else (0, 256)
        w = rng.integers(wlo, whi, wshape).astype(wt)
        wz = (
            rng.integers(-3, 4, ws.shape).astype(wt)
            if wt == np.int8
            else rng.integers(120, 136, ws.shape).astype(wt)
        )
        xz = np.array(rng.integers(-5, 6) if signed else rng.integers(120, 136), xt)
        ys = np.float32(rng.uniform(0.05, 0.3) if op != "Mul" else rng.uniform(0.02, 0.05))
        yz = np.array(rng.integers(-5, 6) if signed else rng.integers(100, 140), yt)
        b = rng.integers(-3000, 3000, n).astype(np.int32)
        bs = (xs * ws).astype(np.float32)
        c = [
            nh.from_array(a, k)
            for k, a in (("w", w), ("ws", ws), ("wz", wz), ("xs", xs), ("xz", xz), ("ys", ys), ("yz", yz))
        ]
        if bias:
            c += [nh.from_array(b, "b"), nh.from_array(bs, "bs")]
        axis = {"Conv": 0, "MatMul": 1, "Gemm": 0 if trans_b else 1}.get(op, 1)
        dq = [
            h.make_node("DequantizeLinear", ["x", "xs", "xz"], ["xf"], name="dq_x"),
            h.make_node("DequantizeLinear", ["w", "ws", "wz"], ["wf"], name="dq_w", axis=axis),
        ]
        pin = ["xf", "wf"]
        if bias:
            dq.append(h.make_node("DequantizeLinear", ["b", "bs"], ["bf"], name="dq_b", axis=0))
            pin.append("bf")
        attrs: dict[str, object] = {"Conv": {"pads": [1, 1, 1, 1]}, "Gemm": {"transB": trans_b}}.get(op, {})
        q = h.make_node("QuantizeLinear", ["yf", "ys", "yz"], ["y"], name="q_y")
        ins = {"x": (xe, xshape)}
        if op in ("Add", "Mul"):  # two activations: w is an input too
            c = [t for t in c if t.name != "w"]
            ins["w"] = (we, wshape)
            self.feeds["w"] = w
        self.qdq = _model([*dq, h.make_node(op, pin, ["yf"], name="p", **attrs), q], ins, (ye, yshape), c)
        qop, dom = {
            "Conv": ("QLinearConv", ""),
            "MatMul": ("QLinearMatMul", ""),
            "Gemm": ("QGemm", "com.microsoft"),
            "Add": ("QLinearAdd", "com.microsoft"),
            "Mul": ("QLinearMul", "com.microsoft"),
        }[op]
        qin = ["x", "xs", "xz", "w", "ws", "wz"]
        if op == "Gemm":
            qin += ["b" if bias else "", "ys", "yz"]
        else:
            qin += ["ys", "yz"] + (["b"] if bias else [])
        c2 = [t for t in c if t.name != "bs"]
        self.qop = _model(
            [h.make_node(qop, qin, ["y"], name="qop", domain=dom, **attrs)],
            ins,
            (ye, yshape),
            c2,
            ms=bool(dom),
        )


CASES = {
    "conv_u8_tensor": Case("Conv"),
    "conv_u8_channel_bias": Case("Conv", per_channel=True, bias=True),
    "conv_s8_channel": Case("Conv", signed=True, per_channel=True),
    "conv_s8_tensor_bias_u8w": Case("Conv", signed=True, bias=True, w_signed=False),
    "matmul_u8_tensor": Case("MatMul"),
    "matmul_s8_column": Case("MatMul", signed=True, per_channel=True),
    "gemm_u8_column_bias": Case("Gemm", per_channel=True, bias=True),
    "gemm_s8_tensor_transb": Case("Gemm", signed=True, trans_b=1),
    "gemm_u8_column_bias_transb": Case("Gemm", per_channel=True, bias=True, trans_b=1),
    "add_u8": Case("Add"),
    "add_s8": Case("Add", signed=True),
    "mul_u8": Case("Mul"),
    "mul_s8": Case("Mul", signed=True),
}


def _level_session(
    model: onnx.ModelProto,
    level: ort.GraphOptimizationLevel,
    path: str | None = None,
    threads: int = 1,
    unique: bool = True,
) -> ort.InferenceSession:
    so = ort.SessionOptions()
    if not unique:  # ORT then leaves a shared DequantizeLinear shared (EnsureUniqueDQForNodeUnit off)
        so.add_session_config_entry("session.disable_quant_qdq", "1")
    so.graph_optimization_level = level
    so.intra_op_num_threads = threads
    so.log_severity_level = 3
    so = onemodel_ep.ep_session_options(so, mode="exact", kernel_path=path, custom_ops=False)
    return ort.InferenceSession(model.SerializeToString(), so, enable_fallback=0)


@pytest.mark.parametrize("name", sorted(CASES))
def test_group_is_one_node_with_the_qoperator_bits(name: str) -> None:
    c = CASES[name]
    ran = nodes_run(c.qdq, c.feeds)
    assert len(ran) == 1 and fused_names(ran) == ran, ran
    got = ep_session(c.qdq).run(None, c.feeds)[0]
    want = ep_session(c.qop).run(None, c.feeds)[0]
    assert_exact_bits(f"{name}: QDQ group vs QOperator", got, want)
    # and through onemodel_ep.InferenceSession (unique_dq and fold ahead of the session)
    assert_exact_bits(
        f"{name}: InferenceSession", onemodel_ep.InferenceSession(c.qdq, via="ep").run(None, c.feeds)[0], want
    )


@pytest.mark.parametrize("name", ["conv_u8_channel_bias", "gemm_u8_column_bias", "add_s8"])
def test_same_bits_every_path_thread_count_and_level(name: str) -> None:
    c = CASES[name]
    want = ep_session(c.qop).run(None, c.feeds)[0]
    for path in PATHS:
        assert_exact_bits(f"{name} path {path}", ep_session(c.qdq, path=path).run(None, c.feeds)[0], want)
    assert_exact_bits(f"{name} 2 threads", ep_session(c.qdq, threads=2).run(None, c.feeds)[0], want)
    assert_exact_bits(
        f"{name} dispatch=compile", ep_session(c.qdq, dispatch="compile").run(None, c.feeds)[0], want
    )
    for level in LEVELS:
        assert_exact_bits(f"{name} {level}", _level_session(c.qdq, level).run(None, c.feeds)[0], want)


def _stock(
    model: onnx.ModelProto,
    feeds: dict[str, np.ndarray],
    level: ort.GraphOptimizationLevel = ort.GraphOptimizationLevel.ORT_ENABLE_ALL,
) -> np.ndarray:
    so = ort.SessionOptions()
    so.graph_optimization_level = level
    so.log_severity_level = 3
    return ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"]).run(
        None, feeds
    )[0]


def _off_by_at_most_one(what: str, got: np.ndarray, want: np.ndarray, fraction: float) -> None:
    d = np.abs(got.astype(np.int32) - want.astype(np.int32))
    assert d.max() <= 1 and (d > 0).mean() <= fraction, (what, int(d.max()), float((d > 0).mean()))


@pytest.mark.parametrize("name", sorted(CASES))
def test_close_to_stock(name: str) -> None:
    """Stock ORT fuses the same groups at ORT_ENABLE_ALL into its QLinear kernels, whose requantisation
    (MLAS's fixed-point or float steps) may round a value that lies within one float rounding of a half the
    other way: an output may differ by one code, on at most 2% of the elements."""
    c = CASES[name]
    _off_by_at_most_one(name, ep_session(c.qdq).run(None, c.feeds)[0], _stock(c.qdq, c.feeds), 0.02)


def _ran(model: onnx.ModelProto, f: dict[str, np.ndarray], unique: bool) -> list[str]:
    """The op names ORT ran, element-wise chains and the EP's constant folding off (a QDQ group would still be
    one node; a Conv reading a folded weight would be a compiled node of its own)."""
    so = ort.SessionOptions()
    so.log_severity_level = 3
    so.enable_profiling = True
    so.profile_file_prefix = profile_prefix()  # ORT names the file by the millisecond
    if not unique:
        so.add_session_config_entry("session.disable_quant_qdq", "1")
    so = onemodel_ep.ep_session_options(so, custom_ops=False, fuse=False, fold=False)
    sess = ort.InferenceSession(model.SerializeToString(), so, enable_fallback=0)
    sess.run(None, f)
    return op_names_run(sess)


def test_broken_conditions_stay_unfused() -> None:
    """A DequantizeLinear with two readers (ORT's EnsureUniqueDQForNodeUnit off: session.disable_quant_qdq), a
    scale that is not constant, a bias scale other than x_scale * w_scale: no group; the nodes run one by one,
    as stock ORT's unfused graph does (DISABLE_ALL) to one code, with the same bits at every level."""
    base = CASES["conv_u8_channel_bias"]
    shared = onnx.ModelProto()
    shared.CopyFrom(base.qdq)
    shared.graph.node.append(h.make_node("Relu", ["xf"], ["r"], name="reader2"))
    shared.graph.output.append(h.make_tensor_value_info("r", T.FLOAT, None))
    scale_in = onnx.ModelProto()
    scale_in.CopyFrom(base.qdq)
    xs = next(t for t in scale_in.graph.initializer if t.name == "xs")
    scale_in.graph.initializer.remove(xs)
    scale_in.graph.input.append(h.make_tensor_value_info("xs", T.FLOAT, []))
    bad_bias = onnx.ModelProto()
    bad_bias.CopyFrom(base.qdq)
    bs = next(t for t in bad_bias.graph.initializer if t.name == "bs")
    bs.CopyFrom(nh.from_array((nh.to_array(bs) * np.float32(1.0000001)).astype(np.float32), "bs"))
    feeds_xs = dict(base.feeds, xs=nh.to_array(xs))
    for what, m, f, unique in (
        ("shared DQ", shared, base.feeds, False),
        ("scale input", scale_in, feeds_xs, True),
        ("bias scale", bad_bias, base.feeds, True),
    ):
        ran = _ran(m, f, unique)
        assert "QuantizeLinear" in ran and "Conv" in ran, (what, ran)
        got = _level_session(m, LEVELS[0], unique=unique).run(None, f)[0]
        _off_by_at_most_one(what, got, _stock(m, f, ort.GraphOptimizationLevel.ORT_DISABLE_ALL), 0.02)
        for level in LEVELS[1:]:  # unfused at every level: the same bits
            assert_exact_bits(f"{what} {level}", _level_session(m, level, unique=unique).run(None, f)[0], got)
    # ORT's own copying (the default) gives the shared one's reader a DequantizeLinear of its own: a group
    assert_exact_bits(
        "shared DQ, copied",
        ep_session(shared).run(None, base.feeds)[0],
        ep_session(base.qop).run(None, base.feeds)[0],
    )


def test_unique_dq_gives_each_reader_its_own() -> None:
    """onemodel_ep.qdq_unique: a DequantizeLinear two nodes read becomes two, and the group forms."""
    base = CASES["add_u8"]
    m = onnx.ModelProto()
    m.CopyFrom(base.qdq)
    m.graph.node.append(h.make_node("Relu", ["xf"], ["r"], name="reader2"))
    m.graph.output.append(h.make_tensor_value_info("r", T.FLOAT, None))
    u = unique_dq(m)
    assert [n.op_type for n in u.graph.node].count("DequantizeLinear") == 3
    assert [n.op_type for n in m.graph.node].count("DequantizeLinear") == 2  # a copy: m unchanged
    ran = nodes_run(u, base.feeds)
    assert len(fused_names(ran)) == 1 and "Relu" in ran, ran
    want = ep_session(base.qop).run(None, base.feeds)[0]
    got = onemodel_ep.InferenceSession(m, via="ep").run(None, base.feeds)
    assert_exact_bits("unique_dq group", got[0], want)


def test_qdq_resnet_is_the_qoperator_resnet() -> None:
    """testdata's QDQ ResNet and its QOperator form (same weights and calibration): the same bits, at every
    optimisation level; every Conv, Add and the Gemm a group."""
    qdq = onnx.load("testdata/models/resnet18_small_qdq.onnx")
    qop = onnx.load("testdata/quant/resnet18_small_qop.onnx")
    x = (
        np.random.default_rng(37)
        .standard_normal([d.dim_value or 1 for d in qdq.graph.input[0].type.tensor_type.shape.dim])
        .astype(np.float32)
    )
    f = {qdq.graph.input[0].name: x}
    want = onemodel_ep.InferenceSession(qop, via="ep").run(None, {qop.graph.input[0].name: x})[0]
    assert_exact_bits("QDQ vs QOperator", onemodel_ep.InferenceSession(qdq, via="ep").run(None, f)[0], want)
    for level in LEVELS:
        assert_exact_bits(f"level {level}", _level_session(qdq, level).run(None, f)[0], want)
    n_groups = sum(n.op_type in ("Conv", "Add", "Gemm") for n in qdq.graph.node)
    assert len(fused_names(nodes_run(qdq, f))) >= n_groups


def test_fold_keeps_a_groups_dequantize_only() -> None:
    """onemodel_ep.fold keeps the weight's DequantizeLinear of a group (the group needs it: a MatMul without a
    QuantizeLinear after it is one too, MatMulIntegerToFloat) and folds a weight-only one (a float activation:
    no group)."""
    from onemodel_ep.fold import fold

    c = CASES["matmul_u8_tensor"]
    assert [n.name for n in fold(c.qdq).graph.node] == ["dq_x", "dq_w", "p", "q_y"]
    float_out = onnx.ModelProto()
    float_out.CopyFrom(c.qdq)
    del float_out.graph.node[-1]
    float_out.graph.node[-1].output[0] = "y"
    float_out.graph.output[0].type.tensor_type.elem_type = T.FLOAT
    assert [n.name for n in fold(float_out).graph.node] == ["dq_x", "dq_w", "p"]
    weight_only = onnx.ModelProto()
    weight_only.CopyFrom(float_out)
    del weight_only.graph.node[0]
    weight_only.graph.input[0].name = "xf"
    weight_only.graph.input[0].type.tensor_type.elem_type = T.FLOAT
    assert [n.name for n in fold(weight_only).graph.node] == ["p"]


@pytest.mark.parametrize("name", ["add_u8", "matmul_s8_column", "conv_u8_channel_bias"])
def test_zero_size_dimension(name: str) -> None:
    """A group over an input with a zero-size dimension: an empty output of the QOperator model's shape."""
    c = CASES[name]
    m = onnx.ModelProto()
    m.CopyFrom(c.qdq)
    q = onnx.ModelProto()
    q.CopyFrom(c.qop)
    for model in (m, q):
        for v in (model.graph.input[0], *model.graph.output):
            v.type.tensor_type.shape.dim[0].dim_param = "n"
    f = dict(c.feeds, x=c.feeds["x"][:0])
    assert len(fused_names(nodes_run(m, f))) == 1
    got = ep_session(m).run(None, f)[0]
    assert got.size == 0
    assert_exact_bits(f"{name} zero-size", got, ep_session(q).run(None, f)[0])


def test_gemm_attributes_qgemm_cannot_take_stay_unfused() -> None:
    """Gemm with C and alpha != 1 (QGemm scales C with the product), or with transA = 1: no group; within one
    code of stock's unfused graph."""
    base = CASES["gemm_u8_column_bias"]
    alpha = onnx.ModelProto()
    alpha.CopyFrom(base.qdq)
    alpha.graph.node[3].attribute.append(h.make_attribute("alpha", 0.5))
    ran = _ran(alpha, base.feeds, True)
    assert "Gemm" in ran and "QuantizeLinear" in ran, ran
    got = ep_session(alpha).run(None, base.feeds)[0]
    _off_by_at_most_one("alpha with C", got, _stock(alpha, base.feeds, LEVELS[0]), 0.02)
    no_c = CASES["gemm_s8_tensor_transb"]
    ta = onnx.ModelProto()
    ta.CopyFrom(no_c.qdq)
    ta.graph.node[2].attribute.append(h.make_attribute("transA", 1))
    f = {"x": np.ascontiguousarray(no_c.feeds["x"].T)}
    ta.graph.input[0].type.tensor_type.shape.dim[0].dim_value = f["x"].shape[0]
    ta.graph.input[0].type.tensor_type.shape.dim[1].dim_value = f["x"].shape[1]
    assert "Gemm" in _ran(ta, f, True)
    _off_by_at_most_one("transA", ep_session(ta).run(None, f)[0], _stock(ta, f, LEVELS[0]), 0.02)


def test_qdq_groups_option_leaves_the_nodes_apart() -> None:
    """EP option `qdq_groups` "0" (onemodel diff --per-node's graph-saving session): no group forms, the nodes
    run one by one (none of them a fused node). A bad value: tests/ep/test_ep_options.py."""
    c = CASES["conv_u8_channel_bias"]
    so = ort.SessionOptions()
    so.log_severity_level = 3
    so.enable_profiling = True
    so.profile_file_prefix = profile_prefix()  # ORT names the file by the millisecond
    so = onemodel_ep.ep_session_options(so, custom_ops=False, qdq_groups=False, fold=False)
    sess = ort.InferenceSession(c.qdq.SerializeToString(), so, enable_fallback=0)
    sess.run(None, c.feeds)
    ran = op_names_run(sess)
    assert len(ran) >= 3 and not fused_names(ran), ran


def test_diff_per_node_on_a_qdq_model() -> None:
    """onemodel diff --per-node on the QDQ ResNet: ORT saves the graph of a session without groups; the
    outputs compared are the grouped session's (the user's bits)."""
    r = onemodel_ep.diff_models(
        "testdata/models/resnet18_small_qdq.onnx", shapes={"pixel_values": [1, 3, 64, 64]}, per_node=True,
        via="ep",
    )
    assert r.per_node and r.via == "ep"


# DequantizeLinear -> MatMul with no QuantizeLinear after it: com.microsoft MatMulIntegerToFloat (the builders
# are the rewrite tests', so both ways in are checked on the same graphs).
from tests.python.test_rewrite_qdq_ops import (  # noqa: E402
    FLOAT_BROKEN,
    FLOAT_MATMULS,
    FloatMatMul,
    _float_two_readers,
)


@pytest.mark.parametrize("name", sorted(FLOAT_MATMULS))
def test_float_matmul_group_is_matmul_integer_to_float(name: str) -> None:
    """One fused node (DequantizeLinear x2 and MatMul) with the bits of the MatMulIntegerToFloat node written
    by hand, on our EP, through InferenceSession (via="ep") and through the rewrite: the same bits; the same
    on every kernel path, at two threads, at ORT_DISABLE_ALL and ALL."""
    c = FLOAT_MATMULS[name]()
    qdq, qop = c.qdq(), c.qop()
    ran = nodes_run(qdq, c.feeds)
    assert len(fused_names(ran)) == 1 and not {"MatMul", "DequantizeLinear"} & set(ran), ran
    want = ep_session(qop).run(None, c.feeds)[0]
    assert want.dtype == np.float32
    assert_exact_bits(f"{name}: QDQ group vs its twin", ep_session(qdq).run(None, c.feeds)[0], want)
    for via in ("ep", "rewrite"):
        got = onemodel_ep.InferenceSession(qdq, via=via).run(None, c.feeds)[0]
        assert_exact_bits(f"{name}: InferenceSession via {via}", got, want)
    for path in PATHS:
        assert_exact_bits(f"{name} path {path}", ep_session(qdq, path=path).run(None, c.feeds)[0], want)
    assert_exact_bits(f"{name} 2 threads", ep_session(qdq, threads=2).run(None, c.feeds)[0], want)
    for level in (LEVELS[0], LEVELS[-1]):
        for threads in (1, 2):
            got = _level_session(qdq, level, threads=threads).run(None, c.feeds)[0]
            assert_exact_bits(f"{name} {level} threads {threads}", got, want)


def _close_floats(what: str, got: np.ndarray, want: np.ndarray, ulps: int) -> None:
    """got within `ulps` units in the last place of the largest |want| (stock's MatMulIntegerToFloat scales by
    a_scale * b_scale as we do; its bias Add fusion and float steps may round differently)."""
    assert got.shape == want.shape and got.dtype == want.dtype == np.float32
    unit = np.spacing(np.float32(np.abs(want).max()))
    d = np.abs(got.astype(np.float64) - want.astype(np.float64)).max()
    assert d <= ulps * unit, (what, float(d), float(unit))


@pytest.mark.parametrize("name", sorted(FLOAT_MATMULS))
def test_float_matmul_close_to_stock(name: str, tmp_path: Path) -> None:
    """Stock ORT at ORT_ENABLE_ALL fuses the same group into its MatMulIntegerToFloat where its MatMul
    selector allows (int8 A only where MLAS' QDQIsInt8Allowed holds: not on every x86): then within 2 ulps of
    the largest output; unfused (a float MatMul of the dequantized values), within that product's rounding
    bound, (K + 2) u sum_k |a_ik b_kj| (times |c| after the Mul) per element."""
    c = FLOAT_MATMULS[name]()
    got = ep_session(c.qdq()).run(None, c.feeds)[0]
    so = ort.SessionOptions()
    so.log_severity_level = 3
    so.optimized_model_filepath = str(tmp_path / "stock.onnx")
    sess = ort.InferenceSession(c.qdq().SerializeToString(), so, providers=["CPUExecutionProvider"])
    want = sess.run(None, c.feeds)[0]
    if "MatMulIntegerToFloat" in {n.op_type for n in onnx.load(str(tmp_path / "stock.onnx")).graph.node}:
        _close_floats(name, got, want, 2)
    else:
        d = np.abs(got.astype(np.float64) - want.astype(np.float64))
        bound = (c.k + 2) * 2.0**-24 * c.magnitude + np.spacing(np.abs(want))
        assert (d <= bound).all(), (name, float((d - bound).max()))


def test_float_matmul_broken_conditions_stay_unfused() -> None:
    """A DequantizeLinear with two readers (EnsureUniqueDQForNodeUnit off), a non-constant scale, int8 A with
    uint8 B (ORT's MatMul selector refuses it), the output read by a QuantizeLinear and the graph, the output
    read by an Add alone (ORT's level-1 MatMulAddFusion makes it a Gemm above DISABLE_ALL): no group, the
    MatMul (or Gemm) runs as one node, the same bits at every level, close to stock's unfused graph."""
    shared = FloatMatMul(False, True, True)
    cases: list[tuple[str, onnx.ModelProto, dict[str, np.ndarray], bool]] = [
        ("shared DQ", _float_two_readers(shared), shared.feeds, False)
    ]
    for name, (make, broken) in FLOAT_BROKEN.items():
        c = make()
        f = dict(c.feeds)
        if name.startswith("non-constant"):
            f["a_s"] = nh.to_array(next(t for t in c.inits if t.name == "a_s"))
        cases.append((name, broken(c), f, True))
    for what, m, f, unique in cases:
        ran = _ran(m, f, unique)  # MatMul -> Add: a Gemm (MatMulAddFusion, level 1), with the same bits
        assert {"MatMul", "Gemm"} & set(ran) and not fused_names(ran), (what, ran)
        got = _level_session(m, LEVELS[0], unique=unique).run(None, f)[0]
        _close_floats(what, got, _stock(m, f, LEVELS[0]), 8)
        for level in LEVELS[1:]:
            assert_exact_bits(f"{what} {level}", _level_session(m, level, unique=unique).run(None, f)[0], got)
    # ORT's own copying (the default) gives the shared DequantizeLinear's MatMul a copy of its own: a group
    assert_exact_bits(
        "shared DQ, copied",
        ep_session(_float_two_readers(shared)).run(["p"], shared.feeds)[0],
        ep_session(shared.qop()).run(None, shared.feeds)[0],
    )
