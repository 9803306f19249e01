"""ConvInteger and QLinearConv through the execution provider and the rewrite: the bits of
tests/reference/qconv_reference.py (written from docs/quantized-conv.md) on every kernel path and at two
threads, constant and run-time w; stock ORT's bits where it serves the types; the errors, at session creation
where the graph tells them."""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from onemodel_ep.node import Node, NodeError
from tests.nodes.node_sessions import VIAS, assert_exact_bits, runs, session, stock
from tests.reference import qconv_reference as R
from tests.reference.conv_cases import CASES, Case, random_cases
from tests.reference.quant_matmul_reference import int_operand

U8, I8, F32, I32 = TensorProto.UINT8, TensorProto.INT8, TensorProto.FLOAT, TensorProto.INT32
NP = {U8: np.uint8, I8: np.int8}
ELEM = {np.dtype(np.uint8): U8, np.dtype(np.int8): I8, np.dtype(np.float32): F32, np.dtype(np.int32): I32}
TYPES = [(U8, U8, U8), (U8, I8, U8), (I8, I8, I8), (I8, U8, U8), (U8, I8, I8)]  # x, w, y


def model(op: str, names: list[str], feeds: dict[str, np.ndarray], inits: dict[str, np.ndarray], y_type: int,
          attrs: dict[str, Any], opset: int = 13) -> onnx.ModelProto:
    graph = helper.make_graph(
        [helper.make_node(op, names, ["Y"], name="qconv", **attrs)], "g",
        [helper.make_tensor_value_info(k, ELEM[v.dtype], list(v.shape)) for k, v in feeds.items()],
        [helper.make_tensor_value_info("Y", y_type, None)],
        initializer=[numpy_helper.from_array(v, k) for k, v in inits.items()])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=9)


def _every_path(m: onnx.ModelProto, feeds: dict[str, np.ndarray], want: np.ndarray) -> None:
    for what, ys in runs(m, feeds, m.graph.node[0].op_type).items():
        assert_exact_bits(what, ys[0], want)


def _stock(m: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> np.ndarray | None:
    try:
        return stock(m, feeds)[0]
    except Exception as e:  # stock ORT has no kernel for these types, or refuses SAME_* with dilations
        if any(s in str(e) for s in ("NOT_IMPLEMENTED", "Could not find an implementation", "not supported")):
            return None
        raise


def _conv_integer_case(case: Case, tx: int, tw: int, seed: int, zp: str):
    rng = np.random.default_rng(seed)
    x, w = int_operand(rng, NP[tx], case.x_shape), int_operand(rng, NP[tw], case.w_shape)
    x_zp = int_operand(rng, NP[tx], ()) if zp != "none" else None
    w_zp = None if zp == "none" else int_operand(rng, NP[tw], (case.w_shape[0],) if zp == "channel" else ())
    return x, w, x_zp, w_zp


def _names(names: list[str], given: dict[str, Any]) -> list[str]:
    out = [k if given.get(k) is not None else "" for k in names]
    while out[-1] == "":
        out.pop()
    return out


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_conv_integer(case: Case) -> None:
    i = CASES.index(case)
    tx, tw, _ = TYPES[i % len(TYPES)]
    zp = ("tensor", "channel", "none")[i % 3]
    x, w, x_zp, w_zp = _conv_integer_case(case, tx, tw, 100 + i, zp)
    want = R.conv_integer(x, w, x_zp, w_zp, case.attrs)
    params = {"x_zp": x_zp, "w_zp": w_zp}
    names = _names(["x", "w", "x_zp", "w_zp"], {"x": x, "w": w, **params})
    inits = {k: v for k, v in params.items() if v is not None}
    for w_const in (True, False) if i % 2 else (True,):
        feeds = {"x": x} if w_const else {"x": x, "w": w}
        m = model("ConvInteger", names, feeds, {**inits, **({"w": w} if w_const else {})}, I32, case.attrs)
        got = _stock(m, feeds) if zp != "channel" else None
        if got is not None:
            assert got.tobytes() == want.tobytes(), "stock differs"
        _every_path(m, feeds, want)


def _qlinear_params(rng: np.random.Generator, tx: int, tw: int, ty: int, m_out: int, terms: int,
                    per_channel: bool, bias: bool) -> dict[str, np.ndarray]:
    shape = (m_out,) if per_channel else ()
    p = {"x_scale": np.array(rng.uniform(0.005, 0.05), np.float32), "x_zp": int_operand(rng, NP[tx], ()),
         "w_scale": rng.uniform(0.005, 0.05, shape).astype(np.float32),
         "w_zp": int_operand(rng, NP[tw], shape) if tw == U8 else np.zeros(shape, np.int8),
         "y_scale": np.array(rng.uniform(0.5, 4.0) * np.sqrt(max(terms, 1)) * 0.02, np.float32),
         "y_zp": int_operand(rng, NP[ty], ())}
    if bias:
        p["B"] = rng.integers(-(1 << 12), 1 << 12, m_out).astype(np.int32)
    return p


QNAMES = ["x", "x_scale", "x_zp", "w", "w_scale", "w_zp", "y_scale", "y_zp", "B"]


def _qlinear_run(case: Case, tx: int, tw: int, ty: int, seed: int, per_channel: bool, w_const: bool,
                 compare_stock: bool = True) -> None:
    rng = np.random.default_rng(seed)
    x, w = int_operand(rng, NP[tx], case.x_shape), int_operand(rng, NP[tw], case.w_shape)
    p = _qlinear_params(rng, tx, tw, ty, case.w_shape[0], case.terms, per_channel, case.bias)
    want = R.qlinear_conv(x, p["x_scale"], p["x_zp"], w, p["w_scale"], p["w_zp"], p["y_scale"], p["y_zp"],
                          p.get("B"), case.attrs)
    names = QNAMES if case.bias else QNAMES[:-1]
    feeds = {"x": x} if w_const else {"x": x, "w": w}
    m = model("QLinearConv", names, feeds, {**p, **({"w": w} if w_const else {})}, ty, case.attrs)
    got = _stock(m, feeds) if compare_stock else None
    if got is not None:
        # stock's requantisation (MLAS) is the same binary32 sequence: equal bits
        assert got.tobytes() == want.tobytes(), f"stock differs in {int((got != want).sum())} of {got.size}"
    _every_path(m, feeds, want)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_qlinear_conv(case: Case) -> None:
    i = CASES.index(case)
    tx, tw, ty = TYPES[(i + 1) % len(TYPES)]
    _qlinear_run(case, tx, tw, ty, 200 + i, per_channel=bool(i % 2), w_const=i % 3 != 2)


@pytest.mark.parametrize("case", random_cases(37, 8, max_terms=600), ids=lambda c: c.name)
def test_qlinear_conv_random(case: Case) -> None:
    i = int(case.name.rsplit("_", 1)[1])
    tx, tw, ty = TYPES[i % len(TYPES)]
    _qlinear_run(case, tx, tw, ty, 300 + i, per_channel=bool(i % 2), w_const=True)


def test_resnet_shape_all_paths_identical() -> None:
    """A ResNet-18 layer-2 convolution, 3x3 stride 1 pad 1 over 128 channels at 28x28, per-channel u8 x s8:
    every path and two threads give the reference's bits, and so does stock ORT."""
    case = Case("resnet_l2", (1, 128, 28, 28), (128, 128, 3, 3), True, {"pads": [1, 1, 1, 1]})
    _qlinear_run(case, U8, I8, U8, 7, per_channel=True, w_const=True)


# Depthwise rows long enough for every path's blocks (conv/qdwconv_body.inc: two vectors, one, eight lanes,
# one position; the last block overlapping) and stride-2 rows long enough for its vector split, odd and even
# begin pads, an odd input width, a stride of 3 and dilations.
DW_CASES = [
    Case("dw_row37", (1, 4, 5, 37), (4, 1, 3, 3), True, {"group": 4, "pads": [1, 1, 1, 1]}),
    Case("dw_row12_m2", (2, 2, 3, 12), (4, 1, 1, 3), False, {"group": 2, "pads": [0, 1, 0, 1]}),
    Case("dw_s2_odd_pad", (1, 3, 6, 70), (3, 1, 3, 3), True,
         {"group": 3, "strides": [2, 2], "pads": [0, 1, 1, 0]}),
    Case("dw_s2_odd_width", (1, 2, 5, 41), (2, 1, 3, 5), False,
         {"group": 2, "strides": [1, 2], "pads": [0, 2, 0, 2], "dilations": [1, 2]}),
    Case("dw_s3", (1, 2, 4, 50), (2, 1, 2, 3), True, {"group": 2, "strides": [1, 3], "pads": [1, 0, 0, 1]}),
]


@pytest.mark.parametrize("case", DW_CASES, ids=lambda c: c.name)
def test_depthwise_rows(case: Case) -> None:
    i = DW_CASES.index(case)
    tx, tw, ty = TYPES[i % len(TYPES)]
    _qlinear_run(case, tx, tw, ty, 400 + i, per_channel=bool(i % 2), w_const=i != 1)
    x, w, x_zp, w_zp = _conv_integer_case(case, I8 if i % 2 else U8, tw, 500 + i, "channel")
    m = model("ConvInteger", ["x", "w", "x_zp", "w_zp"], {"x": x}, {"w": w, "x_zp": x_zp, "w_zp": w_zp}, I32,
              case.attrs)
    _every_path(m, {"x": x}, R.conv_integer(x, w, x_zp, w_zp, case.attrs))


def test_byte_transpose_edges() -> None:
    """C, M and the output positions of 16 or more but not multiples of 16 (conv/im2row.c's last whole block
    overlapping the one before, in the channels-last copy and in the output tile's transpose)."""
    case = Case("edges", (1, 20, 9, 7), (24, 20, 1, 1), True)
    _qlinear_run(case, U8, I8, U8, 11, per_channel=True, w_const=True)


def test_conv_integer_wraps_past_int32() -> None:
    """Sums past int32 wrap modulo 2^32 (as MatMulInteger)."""
    x = np.full((1, 40000, 1, 2), 255, np.uint8)
    w = np.full((1, 40000, 1, 1), 255, np.uint8)
    want = R.conv_integer(x, w)
    assert want[0, 0, 0, 0] != 40000 * 255 * 255  # it wrapped
    m = model("ConvInteger", ["x", "w"], {"x": x}, {"w": w}, I32, {})
    for via in VIAS:
        assert session(m, via, None, 1).run(None, {"x": x})[0].tobytes() == want.tobytes()


def test_conv_integer_w_zero_point_alone() -> None:
    """x_zero_point absent ("") and a per-channel w_zero_point: x's zero point is 0."""
    rng = np.random.default_rng(1)
    x, w = int_operand(rng, np.uint8, (2, 4, 6, 5)), int_operand(rng, np.int8, (6, 4, 3, 3))
    w_zp = int_operand(rng, np.int8, (6,))
    attrs = {"pads": [1, 1, 1, 1]}
    want = R.conv_integer(x, w, None, w_zp, attrs)
    m = model("ConvInteger", ["x", "w", "", "w_zp"], {"x": x}, {"w": w, "w_zp": w_zp}, I32, attrs)
    _every_path(m, {"x": x}, want)


def test_zero_size() -> None:
    """N = 0, M = 0 and C = 0: empty outputs, or the empty sum (then bias and zero point)."""
    rng = np.random.default_rng(5)
    for xs, ws in (((0, 3, 5, 5), (4, 3, 3, 3)), ((1, 3, 5, 5), (0, 3, 3, 3)), ((2, 0, 4, 4), (3, 0, 2, 2))):
        case = Case("zero", xs, ws, True, {"pads": [1, 1, 1, 1]})
        x, w = int_operand(rng, np.uint8, xs), int_operand(rng, np.int8, ws)
        p = _qlinear_params(rng, U8, I8, U8, ws[0], 1, True, True)
        want = R.qlinear_conv(x, p["x_scale"], p["x_zp"], w, p["w_scale"], p["w_zp"], p["y_scale"], p["y_zp"],
                              p["B"], case.attrs)
        m = model("QLinearConv", QNAMES, {"x": x}, {**p, "w": w}, U8, case.attrs)
        for via in VIAS:
            assert_exact_bits(via, session(m, via, None, 1).run(None, {"x": x})[0], want)
        wi = R.conv_integer(x, w, p["x_zp"], None, case.attrs)
        mi = model("ConvInteger", ["x", "w", "x_zp"], {"x": x}, {"w": w, "x_zp": p["x_zp"]}, I32, case.attrs)
        for via in VIAS:
            assert_exact_bits(via, session(mi, via, None, 1).run(None, {"x": x})[0], wi)


def test_types_named() -> None:
    with pytest.raises(NodeError, match=r"'q'.*ConvInteger.*x_zero_point has element type int8; it must be "
                                        r"uint8"):
        Node("ConvInteger", [U8, I8, I8], name="q", onnx_opset=10)
    with pytest.raises(NodeError, match=r"'q'.*QLinearConv.*w_scale has element type uint8; it must be "
                                        r"float"):
        Node("QLinearConv", [U8, F32, U8, I8, U8, I8, F32, U8], name="q", onnx_opset=10)
    with pytest.raises(NodeError, match=r"'q'.*QLinearConv.*B has element type float; it must be int32"):
        Node("QLinearConv", [U8, F32, U8, I8, F32, I8, F32, U8, F32], name="q", onnx_opset=10)
    with pytest.raises(NodeError, match=r"'q'.*QLinearConv.*element type undefined for input 2"):
        Node("QLinearConv", [U8, F32, 0, I8, F32, I8, F32, U8], name="q", onnx_opset=10)
    with pytest.raises(NodeError, match=r"'q'.*ConvInteger.*attribute group must be >= 1"):
        Node("ConvInteger", [U8, U8], name="q", onnx_opset=10, attributes={"group": 0})


def test_shapes_named_at_run() -> None:
    n = Node("QLinearConv", [U8, F32, U8, I8, F32, I8, F32, U8, I32], name="q", onnx_opset=10)
    x, w = np.zeros((1, 4, 5, 5), np.uint8), np.zeros((6, 4, 3, 3), np.int8)
    f1, zu, z8 = np.ones((), np.float32), np.zeros((), np.uint8), np.zeros((), np.int8)
    b = np.zeros(6, np.int32)
    with pytest.raises(NodeError, match=r"'q'.*QLinearConv.*w_scale of shape \[5\] must be a scalar or 1-D "
                                        r"of 6 elements \(one per output channel\)"):
        n.run(x, f1, zu, w, np.ones(5, np.float32), z8, f1, zu, b)
    with pytest.raises(NodeError, match=r"'q'.*QLinearConv.*x_scale of shape \[2\] must have one element"):
        n.run(x, np.ones(2, np.float32), zu, w, f1, z8, f1, zu, b)
    with pytest.raises(NodeError, match=r"'q'.*QLinearConv.*B has 5 entries"):
        n.run(x, f1, zu, w, f1, z8, f1, zu, np.zeros(5, np.int32))
    with pytest.raises(NodeError, match=r"'q'.*QLinearConv.*W \[6, 3, 3, 3\] has 3 input channels per group"):
        n.run(x, f1, zu, np.zeros((6, 3, 3, 3), np.int8), f1, z8, f1, zu, b)
    with pytest.raises(NodeError, match=r"'q'.*QLinearConv.*spatial axis 0: the kernel spans 7"):
        n.run(np.zeros((1, 4, 5, 5), np.uint8), f1, zu, np.zeros((6, 4, 7, 3), np.int8), f1, z8, f1, zu, b)


def test_bad_parameters_refused_at_session_creation() -> None:
    x = np.zeros((1, 2, 5, 5), np.uint8)
    p = {"x_scale": np.ones((2,), np.float32), "x_zp": np.zeros((), np.uint8),
         "w": np.zeros((3, 2, 3, 3), np.int8), "w_scale": np.ones((), np.float32),
         "w_zp": np.zeros((), np.int8), "y_scale": np.ones((), np.float32), "y_zp": np.zeros((), np.uint8)}
    m = model("QLinearConv", QNAMES[:-1], {"x": x}, p, U8, {})
    for via in VIAS:
        with pytest.raises(Exception, match=r"'qconv'.*QLinearConv.*x_scale of shape \[2\] must have one "
                                            r"element"):
            session(m, via, None, 1)
    p["x_scale"] = np.ones((), np.float32)
    p["w"] = np.zeros((3, 2, 3, 3, 3), np.int8)
    m = model("QLinearConv", QNAMES[:-1], {"x": x}, p, U8, {})
    for via in VIAS:
        with pytest.raises(Exception, match=r"qconv.*QLinearConv.*(rank|spatial dimensions)"):
            session(m, via, None, 1)


# uint8 x: the row matrix built in qgemm's layout and read in place (a 1x1 convolution over 32 channels reads
# the channels-last X in place, two images of two tiles, the last partial), rows of T not a multiple of 4
# (147: a padded row), im2row runs past 64 bytes and between 33 and 64 (3 and 2 taps of 24 channels); int8 w
# with zero points 0 (no row sums) and uint8 w (row sums of the in-place rows), B folded into the product;
# strides that skip input rows and columns.
IN_PLACE_CASES = [
    Case("inplace_1x1_n2", (2, 32, 17, 19), (40, 32, 1, 1), True),
    Case("runs_3x3_c24", (1, 24, 9, 10), (16, 24, 3, 3), True, {"pads": [1, 1, 1, 1]}),
    Case("stem_t147", (1, 3, 11, 13), (8, 3, 7, 7), True, {"pads": [3, 3, 3, 3], "strides": [2, 2]}),
    # strides wider than the kernel's reach: input rows and columns no tap reads
    Case("sparse_1x1_s2", (2, 20, 9, 11), (12, 20, 1, 1), True, {"strides": [2, 2]}),
    Case("sparse_2x2_s3", (1, 8, 10, 8), (4, 8, 2, 2), True, {"strides": [3, 3], "pads": [1, 0, 0, 1]}),
]


@pytest.mark.parametrize("tw", [I8, U8])
@pytest.mark.parametrize("case", IN_PLACE_CASES, ids=lambda c: c.name)
def test_rows_in_place(case: Case, tw: int) -> None:
    _qlinear_run(case, U8, tw, U8, 600 + IN_PLACE_CASES.index(case), per_channel=True, w_const=True)
