"""Conv nodes: attributes, ONNX shapes and padding, errors, through the execution provider and the rewrite.

Values: against stock ORT (a different order: within 1e-5 scaled) and a float64 convolution within the
documented bound gamma_n * sum|x w| (docs/conv.md); the same bits on every kernel path and thread count. The
bit-exact order is checked against an independent reference in tests/reference/.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

import onemodel_ep
from onemodel_ep.node import Node, NodeError

PATHS = onemodel_ep.kernel_paths()
F32, F16, F64 = TensorProto.FLOAT, TensorProto.FLOAT16, TensorProto.DOUBLE
NP = {F32: np.float32, F16: np.float16, F64: np.float64}


def _resolve(x_shape, w_shape, attrs: dict[str, Any]) -> tuple[list[int], list[int], list[int], list[int]]:
    """Strides, dilations, begin pads and output sizes by ONNX's rules, written out here for the test."""
    k = len(x_shape) - 2
    s = list(attrs.get("strides", [1] * k))
    d = list(attrs.get("dilations", [1] * k))
    mode = attrs.get("auto_pad", "NOTSET")
    pads = list(attrs.get("pads", [0] * 2 * k)) if mode == "NOTSET" else [0] * 2 * k
    begin, out = [], []
    for i in range(k):
        size, ext = x_shape[2 + i], d[i] * (w_shape[2 + i] - 1) + 1
        if mode in ("SAME_UPPER", "SAME_LOWER"):
            o = -(-size // s[i])
            total = max(0, (o - 1) * s[i] + ext - size)
            b = total // 2 if mode == "SAME_UPPER" else total - total // 2
        else:
            b = pads[i]
            o = (size + pads[i] + pads[k + i] - ext) // s[i] + 1
        begin.append(b)
        out.append(o)
    return s, d, begin, out


def _conv64(x, w, b, attrs: dict[str, Any]) -> tuple[np.ndarray, np.ndarray]:
    """The convolution in float64 (exact products, one rounding of the sum) and sum|x w| per output."""
    x, w = x.astype(np.float64), w.astype(np.float64)
    n, c = x.shape[:2]
    m, cg = w.shape[:2]
    g = attrs.get("group", 1)
    s, d, begin, out = _resolve(x.shape, w.shape, attrs)
    k = x.ndim - 2
    y = np.zeros((n, m, *out))
    bound = np.zeros_like(y)
    for o in itertools.product(*[range(v) for v in out]):
        for kk in itertools.product(*[range(v) for v in w.shape[2:]]):
            idx = [o[i] * s[i] + kk[i] * d[i] - begin[i] for i in range(k)]
            if any(j < 0 or j >= x.shape[2 + i] for i, j in enumerate(idx)):
                continue
            for gi in range(g):
                xs = x[(slice(None), slice(gi * cg, (gi + 1) * cg), *idx)]  # [n, cg]
                ws = w[(slice(gi * (m // g), (gi + 1) * (m // g)), slice(None), *kk)]  # [m/g, cg]
                sl = (slice(None), slice(gi * (m // g), (gi + 1) * (m // g)), *o)
                y[sl] += xs @ ws.T
                bound[sl] += np.abs(xs) @ np.abs(ws.T)
    if b is not None:
        y += b.astype(np.float64).reshape([1, m] + [1] * k)
    return y, bound


def _check_bound(got, want, bound, t: int, eps: float, bias) -> None:
    n = min(t, 256) + int(np.ceil(np.log2(max(1, -(-t // 256)))))
    gamma = n * eps / (1 - n * eps)
    slack = gamma * bound + 2 * eps * (np.abs(want) + (0 if bias is None else 1)) + 1e-300
    assert np.all(np.abs(got.astype(np.float64) - want) <= slack)


CASES = [  # x shape, w shape, attributes
    ((2, 3, 9, 8), (4, 3, 3, 3), {}),
    ((1, 4, 7, 7), (6, 4, 3, 3), {"pads": [1, 1, 1, 1], "strides": [2, 2]}),
    ((1, 4, 9, 10), (4, 2, 3, 2), {"group": 2, "dilations": [2, 1], "pads": [0, 1, 2, 0]}),
    ((1, 6, 8, 8), (6, 1, 3, 3), {"group": 6, "pads": [1, 1, 1, 1]}),  # depthwise
    ((1, 5, 6, 7), (3, 5, 1, 1), {}),  # pointwise: X is the column matrix
    ((1, 5, 6, 7), (3, 5, 1, 1), {"strides": [2, 2]}),
    ((2, 3, 11), (4, 3, 4), {"auto_pad": "SAME_UPPER", "strides": [2]}),  # 1-D
    ((2, 3, 11), (4, 3, 4), {"auto_pad": "SAME_LOWER", "strides": [2]}),
    ((1, 3, 10, 9), (2, 3, 4, 3), {"auto_pad": "VALID", "strides": [3, 2]}),
    ((1, 2, 5, 6, 4), (3, 2, 2, 3, 2), {"pads": [1, 0, 1, 0, 2, 1], "strides": [1, 2, 1]}),  # 3-D
    ((1, 64, 6, 5), (5, 64, 3, 3), {"pads": [1, 1, 1, 1]}),  # T = 576: three blocks of the GEMM's tree
    ((1, 1, 3, 3), (2, 1, 5, 5), {"pads": [2, 2, 2, 2]}),  # taps mostly padding
]


def _run_node(x, w, b, attrs, dtype=F32, path=None, opset=11):
    ins = [x, w] if b is None else [x, w, b]
    return Node("Conv", [dtype] * len(ins), onnx_opset=opset, attributes=attrs, kernel_path=path).run(*ins)


@pytest.mark.parametrize("xs,ws,attrs", CASES)
@pytest.mark.parametrize("bias", [False, True])
def test_conv_values_bound_and_every_path(xs, ws, attrs, bias):
    rng = np.random.default_rng(len(xs) * 7 + ws[0])
    x = rng.standard_normal(xs).astype(np.float32)
    w = rng.standard_normal(ws).astype(np.float32)
    b = rng.standard_normal(ws[0]).astype(np.float32) if bias else None
    want, bound = _conv64(x, w, b, attrs)
    got = [_run_node(x, w, b, attrs, path=p) for p in PATHS]
    for g in got:
        assert g.shape == want.shape and g.dtype == np.float32
        assert g.tobytes() == got[0].tobytes()
    _check_bound(got[0], want, bound, int(np.prod(ws[1:])), 2.0**-24, b)


@pytest.mark.parametrize("dtype", [F16, F64])
@pytest.mark.parametrize("xs,ws,attrs", [CASES[1], CASES[3], CASES[10]])
def test_conv_f16_f64(dtype, xs, ws, attrs):
    rng = np.random.default_rng(5)
    x = rng.standard_normal(xs).astype(NP[dtype])
    w = rng.standard_normal(ws).astype(NP[dtype])
    b = rng.standard_normal(ws[0]).astype(NP[dtype])
    got = [_run_node(x, w, b, attrs, dtype=dtype, path=p) for p in PATHS]
    for g in got:
        assert g.dtype == NP[dtype] and g.tobytes() == got[0].tobytes()
    want, bound = _conv64(x, w, b, attrs)
    if dtype == F64:
        _check_bound(got[0], want, bound, int(np.prod(ws[1:])), 2.0**-53, b)
    else:  # f32 accumulation of exact f16 products, then one rounding to f16
        acc, _ = _conv64(x, w, b, attrs)
        err = np.abs(got[0].astype(np.float64) - acc)
        assert np.all(err <= 2.0**-11 * np.abs(acc) + 1e-3 * (bound + 1))


def test_conv_f16_rounds_once_after_the_bias():
    """acc + b in f32, then one rounding: 1 + 2^-11 + 2^-13 rounds up to 1 + 2^-10 in one step, while rounding
    acc first (to 1 + 2^-11, a tie, to even 1.0) and adding 2^-13 would give 1.0."""
    x = np.array([[[1.0], [2.0**-11]]], np.float16)  # [1, 2, 1]
    w = np.array([[[1.0], [1.0]]], np.float16)  # [1, 2, 1]
    b = np.array([2.0**-13], np.float16)
    y = _run_node(x, w, b, {}, dtype=F16)
    assert y.reshape(-1)[0] == np.float16(1 + 2.0**-10)


def test_conv_nan_is_canonical_on_every_path():
    rng = np.random.default_rng(4)
    x = rng.standard_normal((1, 3, 6, 6)).astype(np.float32)
    w = rng.standard_normal((2, 3, 3, 3)).astype(np.float32)
    x.view(np.uint32)[0, 1, 2, 2] = 0x7F800123
    b = np.array([0.5, np.nan], np.float32)
    b.view(np.uint32)[1] = 0xFFC00456
    for p in PATHS:
        y = _run_node(x, w, b, {"pads": [1, 1, 1, 1]}, path=p)
        nan = np.isnan(y)
        assert nan[0, 1].all() and nan[0, 0, 1:4, 1:4].all() and not nan[0, 0, 0, 0]
        assert (y.view(np.uint32)[nan] == 0x7FC00000).all(), p


def test_conv_padding_taps_are_real_terms():
    """An infinite weight times a +0.0 padding tap is NaN, as 'pad with zeros, then convolve' says."""
    x = np.ones((1, 1, 3, 3), np.float32)
    w = np.zeros((1, 1, 3, 3), np.float32)
    w[0, 0, 0, 0] = np.inf
    y = _run_node(x, w, None, {"pads": [1, 1, 1, 1]})
    assert (
        np.isnan(y[0, 0, 0, :]).all() and np.isnan(y[0, 0, :, 0]).all() and (y[0, 0, 1:, 1:] == np.inf).all()
    )


def test_conv_minus_zero_products_give_plus_zero():
    x = -np.zeros((1, 2, 2, 2), np.float32)
    w = np.ones((1, 2, 1, 1), np.float32)
    y = _run_node(x, w, None, {})
    assert (y == 0).all() and not np.signbit(y).any()


def test_conv_zero_batch_and_empty_output():
    w = np.ones((2, 3, 3, 3), np.float32)
    assert _run_node(np.zeros((0, 3, 5, 5), np.float32), w, None, {}).shape == (0, 2, 3, 3)
    assert _run_node(np.zeros((1, 3, 0, 5), np.float32), w, None, {"auto_pad": "SAME_UPPER"}).shape == (
        1,
        2,
        0,
        5,
    )


@pytest.mark.parametrize(
    "xs,ws,bs,attrs,msg",
    [
        ((1, 4, 5, 5), (2, 3, 3, 3), None, {}, "channels per group"),
        ((1, 5, 5, 5), (2, 2, 3, 3), None, {"group": 2}, "not divisible by group 2"),
        ((1, 6, 5, 5), (4, 2, 3, 3), None, {"group": 4}, "not divisible by group"),
        ((1, 6, 5, 5), (3, 3, 3, 3), None, {"group": 2}, "not divisible by group"),
        ((1, 3, 2, 5), (2, 3, 3, 3), None, {}, "more than the padded input"),
        ((1, 3, 5, 5), (2, 3, 3, 3), (3,), {}, "B has 3 entries"),
        ((1, 3, 5, 5), (2, 3, 3), None, {}, "rank"),
        ((1, 3, 5, 5), (2, 3, 3, 3), None, {"kernel_shape": [3, 2]}, "kernel_shape"),
    ],
)
def test_conv_bad_shapes(xs, ws, bs, attrs, msg):
    ins = [np.zeros(xs, np.float32), np.zeros(ws, np.float32)] + ([np.zeros(bs, np.float32)] if bs else [])
    n = Node("Conv", [F32] * len(ins), onnx_opset=11, attributes=attrs, name="cv")
    with pytest.raises(NodeError, match=msg) as e:
        n.run(*ins)
    assert "'cv'" in str(e.value) and "Conv" in str(e.value)


@pytest.mark.parametrize(
    "attrs,msg",
    [
        ({"group": 0}, "group must be >= 1"),
        ({"strides": [1, 0]}, "strides must be >= 1"),
        ({"dilations": [0, 1]}, "dilations must be >= 1"),
        ({"pads": [0, -1, 0, 0]}, "pads must be >= 0"),
        ({"pads": [1, 1, 1]}, "pads has 3 entries"),
        ({"strides": [1, 1], "dilations": [1, 1, 1]}, "dilations has 3 entries"),
        ({"kernel_shape": [1, 1, 1, 1]}, "kernel_shape has 4 entries"),
        ({"auto_pad": "SAME"}, "auto_pad"),
    ],
)
def test_conv_bad_attributes(attrs, msg):
    with pytest.raises(NodeError, match=msg):
        Node("Conv", [F32, F32], onnx_opset=11, attributes=attrs, name="cv")


# ---- through ORT ---------------------------------------------------------------------------------------
def _model(x_shape, w, b, attrs, dtype=F32, opset=17) -> onnx.ModelProto:
    inputs = ["x", "w"] + (["b"] if b is not None else [])
    inits = [numpy_helper.from_array(w, "w")] + ([numpy_helper.from_array(b, "b")] if b is not None else [])
    graph = helper.make_graph(
        [helper.make_node("Conv", inputs, ["y"], name="conv0", **attrs)],
        "g",
        [helper.make_tensor_value_info("x", dtype, x_shape)],
        [helper.make_tensor_value_info("y", dtype, None)],
        initializer=inits,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=10)


def _stock(model: onnx.ModelProto, x: np.ndarray) -> np.ndarray:
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    sess = ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
    return sess.run(None, {"x": x})[0]


ORT_CASES = [CASES[0], CASES[2], CASES[3], CASES[6], CASES[9], CASES[10], CASES[4]]


@pytest.mark.parametrize("xs,ws,attrs", ORT_CASES)
@pytest.mark.parametrize("via", onemodel_ep.session.VIAS)
def test_conv_through_ort_every_path_and_thread_count(xs, ws, attrs, via):
    rng = np.random.default_rng(11)
    x = rng.standard_normal(xs).astype(np.float32)
    w = rng.standard_normal(ws).astype(np.float32)
    b = rng.standard_normal(ws[0]).astype(np.float32)
    model = _model(list(xs), w, b, attrs)
    direct = _run_node(x, w, b, attrs, opset=17)
    for p, threads in itertools.product(PATHS, (1, 2)):
        so = ort.SessionOptions()
        so.intra_op_num_threads = threads
        sess = onemodel_ep.InferenceSession(model, so, kernel_path=p, via=via)
        assert [n.op for n in sess.report.moved] == ["Conv"]
        assert sess.run(None, {"x": x})[0].tobytes() == direct.tobytes(), (p, threads)
    stock = _stock(model, x)
    scale = np.max(np.abs(stock)) + 1
    assert np.max(np.abs(direct - stock)) <= 1e-5 * scale


def test_conv_opset_1_and_dynamic_batch_through_ort():
    rng = np.random.default_rng(12)
    w = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    x = rng.standard_normal((3, 3, 8, 8)).astype(np.float32)
    for opset in (1, 11):
        model = _model(["n", 3, 8, 8], w, None, {"pads": [1, 1, 1, 1]}, opset=opset)
        model.ir_version = 3 if opset == 1 else 10
        for via in onemodel_ep.session.VIAS:
            sess = onemodel_ep.InferenceSession(model, via=via)
            assert [n.op for n in sess.report.moved] == ["Conv"]
            got = sess.run(None, {"x": x})[0]
            assert got.tobytes() == _run_node(x, w, None, {"pads": [1, 1, 1, 1]}, opset=opset).tobytes()
        np.testing.assert_allclose(got, _stock(model, x), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("via", onemodel_ep.session.VIAS)
def test_conv_bad_shapes_fail_at_session_creation(via):
    w = np.zeros((4, 2, 3, 3), np.float32)  # C/G = 2, but X has 3 channels
    model = _model([1, 3, 8, 8], w, None, {})
    with pytest.raises(Exception, match="channels per group") as e:
        onemodel_ep.InferenceSession(model, via=via)
    assert "conv0" in str(e.value)


@pytest.mark.parametrize("via", onemodel_ep.session.VIAS)
def test_conv_f64_served(via):
    rng = np.random.default_rng(13)
    w = rng.standard_normal((2, 3, 3, 3))
    x = rng.standard_normal((1, 3, 6, 6))
    model = _model([1, 3, 6, 6], w, None, {"strides": [2, 2]}, dtype=F64)
    sess = onemodel_ep.InferenceSession(model, via=via)
    assert [n.op for n in sess.report.moved] == ["Conv"]
    assert (
        sess.run(None, {"x": x})[0].tobytes()
        == _run_node(x, w, None, {"strides": [2, 2]}, dtype=F64, opset=17).tobytes()
    )
