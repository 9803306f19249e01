"""QuantizeLinear, DequantizeLinear (ONNX and com.microsoft) and DynamicQuantizeLinear through the execution
provider and the rewrite: the bits of tests/reference/qdq_reference.py (written from docs/quantized.md) on
every kernel path and at two threads, the same bits as stock ORT wherever stock follows ONNX's formula, the
inputs where it does not (docs/quantized.md), what stays with stock ORT, and the errors.

Each element is a fixed sequence of IEEE steps (quant/qdq_body.inc), so the path, the vector width, the chunks
and the threads cannot change a bit; these tests check that the bits are the documented ones.
"""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

import onemodel_ep
from onemodel_ep.node import Node, NodeError
from tests.reference import qdq_reference as R

PATHS = onemodel_ep.kernel_paths()
VIAS = ("rewrite", "ep") if onemodel_ep.ep_supported() else ("rewrite",)
RUNS = [(p, 1) for p in PATHS] + [(None, 2)]
MS = "com.microsoft"
SPECIALS = np.array([np.nan, np.inf, -np.inf, 1e10, -1e10, 3e38, -3e38, 1e-45, -0.0, 0.0, 0.5, -0.5, 1.5, 2.5,
                     -2.5, 127.5, 128.5, -128.5, 255.5, 65535.5, -32768.5], np.float32)


def _model(op: str, opset: int, x: np.ndarray, params: list[np.ndarray | None], domain: str = "",
           n_out: int = 1, **attrs: object) -> onnx.ModelProto:
    """One node over input x and constant parameters (None: an absent optional input)."""
    names = ["x"] + ["" if p is None else f"p{k}" for k, p in enumerate(params)]
    while names and names[-1] == "":
        names.pop()
    node = helper.make_node(op, names, [f"y{k}" for k in range(n_out)], name="q", domain=domain, **attrs)
    elem = int(helper.np_dtype_to_tensor_dtype(x.dtype))
    graph = helper.make_graph(
        [node], "g", [helper.make_tensor_value_info("x", elem, list(x.shape))],
        [helper.make_value_info(f"y{k}", onnx.TypeProto()) for k in range(n_out)],
        initializer=[numpy_helper.from_array(p, f"p{k}") for k, p in enumerate(params) if p is not None])
    imports = [helper.make_opsetid("", opset)] + ([helper.make_opsetid(domain, 1)] if domain else [])
    return helper.make_model(graph, opset_imports=imports, ir_version=10)


def _session(m: onnx.ModelProto, via: str, path: str | None, threads: int) -> onemodel_ep.InferenceSession:
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.log_severity_level = 3
    return onemodel_ep.InferenceSession(m, so, mode="exact", kernel_path=path, via=via)


def _stock(m: onnx.ModelProto, x: np.ndarray) -> list[np.ndarray]:
    so = ort.SessionOptions()
    so.log_severity_level = 3
    sess = ort.InferenceSession(m.SerializeToString(), so, providers=["CPUExecutionProvider"])
    return sess.run(None, {"x": x})


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def _check_every_run(m: onnx.ModelProto, x: np.ndarray, want: list[np.ndarray], op: str) -> None:
    for via in VIAS:
        for path, threads in RUNS:
            sess = _session(m, via, path, threads)
            assert [n.op for n in sess.report.moved] == [op], (via, path, sess.report.summary())
            got = sess.run(None, {"x": x})
            for k, w in enumerate(want):
                assert _same(got[k], w), (via, path, threads, k, got[k], w)


def _x(rng: np.random.Generator, shape: tuple[int, ...], spread: float) -> np.ndarray:
    x = (rng.standard_normal(shape) * spread).astype(np.float32)
    flat = x.reshape(-1)
    flat[: min(flat.size, SPECIALS.size)] = SPECIALS[: flat.size]
    return x


def _params(rng: np.random.Generator, shape: tuple[int, ...], axis: int, block: int, kind: str,
            zdtype: np.dtype | None) -> tuple[np.ndarray, np.ndarray | None]:
    """A scale (powers of two among them, so that x / s has exact ties) and a zero point of `kind`."""
    a = axis % len(shape)
    if kind == "tensor":
        pshape: tuple[int, ...] = ()
    elif kind == "axis":
        pshape = (shape[a],)
    else:
        pshape = tuple(-(-d // block) if i == a else d for i, d in enumerate(shape))
    s = (2.0 ** rng.integers(-3, 3, pshape)).astype(np.float32) * rng.choice([1.0, 0.37, 1.0], pshape)
    s = np.asarray(s, np.float32)
    if zdtype is None:
        return s, None
    lo, hi = R.RANGES[np.dtype(zdtype)]
    return s, rng.integers(lo, hi, pshape, endpoint=True).astype(zdtype)


QCASES = [  # (x shape, axis, block_size, kind, opset)
    ((61,), 0, 0, "tensor", 10),
    ((4, 33), 1, 0, "tensor", 13),
    ((3, 129, 64), 1, 0, "tensor", 13),  # several chunks
    ((5, 7, 6), 1, 0, "axis", 13),
    ((5, 7, 6), -1, 0, "axis", 13),
    ((5, 7, 6), 0, 0, "axis", 19),
    ((6, 35), 1, 8, "blocked", 21),  # blocks along the last axis, a short last block
    ((2, 37, 5), 1, 4, "blocked", 21),  # along a middle axis
    ((9, 4), 0, 2, "blocked", 23),
    ((0, 4), 1, 0, "axis", 13),
]


@pytest.mark.parametrize("shape,axis,block,kind,opset", QCASES)
@pytest.mark.parametrize("zdtype", [None, np.uint8, np.int8, np.uint16, np.int16])
def test_quantize_linear(shape, axis, block, kind, opset, zdtype):
    if zdtype in (np.uint16, np.int16) and opset < 21:
        opset = 21
    rng = np.random.default_rng(sum(shape) * 7 + axis + block)
    x = _x(rng, shape, 300.0 if zdtype in (np.uint16, np.int16) else 60.0)
    s, z = _params(rng, shape, axis, block, kind, zdtype)
    attrs: dict[str, object] = {} if opset < 13 else {"axis": axis}
    if block:
        attrs["block_size"] = block
    m = _model("QuantizeLinear", opset, x, [s, z], **attrs)
    want = R.quantize(x, s, z, np.dtype(zdtype or np.uint8), axis, block)
    if not (kind == "blocked" and axis % len(shape) != len(shape) - 1):  # stock's one departure, below
        assert _same(_stock(m, x)[0], want)
    _check_every_run(m, x, [want], "QuantizeLinear")


def test_quantize_output_dtype_and_com_microsoft():
    rng = np.random.default_rng(5)
    x = _x(rng, (3, 40), 9000.0)
    s = np.float32(0.75)
    for out in (np.int8, np.uint16, np.int16):
        dtype = int(helper.np_dtype_to_tensor_dtype(np.dtype(out)))
        m = _model("QuantizeLinear", 21, x, [s], output_dtype=dtype)
        want = R.quantize(x, s, None, np.dtype(out))
        assert _same(_stock(m, x)[0], want)
        _check_every_run(m, x, [want], "QuantizeLinear")
    for zdtype in (np.uint8, np.int8, np.uint16, np.int16):
        sv, z = _params(rng, (3, 40), 0, 0, "axis", zdtype)
        m = _model("QuantizeLinear", 1, x, [sv, z], domain=MS, axis=0)
        want = R.quantize(x, sv, z, np.dtype(zdtype), 0)
        assert _same(_stock(m, x)[0], want)
        _check_every_run(m, x, [want], "QuantizeLinear")


def test_quantize_special_scales():
    """A scale of 0 (+-inf or NaN quotients), -0, negative, NaN, inf and subnormal, per axis."""
    x = np.tile(SPECIALS, (8, 1)).T.copy()
    s = np.array([0.0, -0.0, -0.5, np.nan, np.inf, 1e-45, 3.0, -np.inf], np.float32)
    z = np.array([0, 10, 128, 255, 3, 7, 200, 1], np.uint8)
    m = _model("QuantizeLinear", 13, x, [s, z], axis=1)
    want = R.quantize(x, s, z, np.dtype(np.uint8), 1)
    assert _same(_stock(m, x)[0], want)
    _check_every_run(m, x, [want], "QuantizeLinear")


def test_stock_departs_blocked_on_a_leading_axis():
    """docs/quantized.md: stock's blocked kernel along a non-last axis converts x / s to int32 before it
    saturates, so 1e10 and +inf become the lowest value; ONNX's formula (and OneModel) give the highest."""
    x = np.tile(np.array([1e10, np.inf, 2.5], np.float32), (4, 1)).T.copy()  # [3, 4]
    s, z = np.ones((2, 4), np.float32), np.zeros((2, 4), np.uint8)
    m = _model("QuantizeLinear", 21, x, [s, z], axis=0, block_size=2)
    want = R.quantize(x, s, z, np.dtype(np.uint8), 0, 2)
    assert want[:2].tolist() == [[255] * 4] * 2
    assert _stock(m, x)[0][:2].tolist() == [[0] * 4] * 2
    _check_every_run(m, x, [want], "QuantizeLinear")


DQCASES = [  # (x dtype, x shape, axis, block, kind, opset)
    (np.uint8, (3, 129, 64), 1, 0, "tensor", 10),
    (np.int8, (5, 7, 6), 1, 0, "axis", 13),
    (np.int8, (5, 7, 6), -1, 0, "axis", 13),
    (np.int32, (4, 50), 0, 0, "axis", 19),
    (np.uint16, (6, 35), 1, 8, "blocked", 21),
    (np.int16, (2, 37, 5), 1, 4, "blocked", 21),
    (np.uint8, (9, 4), 0, 2, "blocked", 23),
]


@pytest.mark.parametrize("dtype,shape,axis,block,kind,opset", DQCASES)
@pytest.mark.parametrize("with_zp", [False, True])
def test_dequantize_linear(dtype, shape, axis, block, kind, opset, with_zp):
    rng = np.random.default_rng(sum(shape) + axis * 3 + block)
    info = np.iinfo(dtype)
    x = rng.integers(info.min, info.max, shape, endpoint=True).astype(dtype)
    x.reshape(-1)[:2] = [info.min, info.max]
    s, z = _params(rng, shape, axis, block, kind, None if dtype == np.int32 else dtype)
    if dtype == np.int32 and with_zp:  # int32: ONNX's zero point is 0
        z = np.zeros(s.shape, np.int32)
    if not with_zp:
        z = None
    attrs: dict[str, object] = {} if opset < 13 else {"axis": axis}
    if block:
        attrs["block_size"] = block
    m = _model("DequantizeLinear", opset, x, [s, z], **attrs)
    want = R.dequantize(x, s, z, axis, block)
    assert _same(_stock(m, x)[0], want)
    _check_every_run(m, x, [want], "DequantizeLinear")


def test_dequantize_exact_difference_special_scales_and_com_microsoft():
    x = np.array([[2**31 - 1, -(2**31), 16777217, -16777219, 0, 5]] * 6, np.int32).T.copy()
    s = np.array([1.0, -0.0, np.inf, np.nan, -3e38, 1e-45], np.float32)
    z = np.array([-10, 7, 0, 0, 3, -2**31], np.int32)
    for m in (_model("DequantizeLinear", 13, x, [s, z], axis=1),
              _model("DequantizeLinear", 1, x, [s, z], domain=MS, axis=1)):
        want = R.dequantize(x, s, z, 1)
        assert want[0, 0] == np.float32(2147483657.0)  # x - z past int32, exact (stock wraps)
        _check_every_run(m, x, [want], "DequantizeLinear")


DQL_INPUTS = {
    "random": lambda rng: (rng.standard_normal((3, 129, 64)) * 4 + 1).astype(np.float32),
    "positive": lambda rng: rng.uniform(0.5, 9, (7, 11)).astype(np.float32),
    "negative": lambda rng: rng.uniform(-9, -0.5, (77,)).astype(np.float32),
    "nan": lambda rng: np.array([np.nan, -1.0, 0.5, np.nan, 2.0, 3.25], np.float32),
    "inf": lambda rng: np.array([-1.0, np.inf, 2.0], np.float32),
    "minus_inf": lambda rng: np.array([-np.inf, 1.0, 2.0], np.float32),
    "subnormal": lambda rng: np.array([1e-45, 0.0], np.float32),
    "ties": lambda rng: np.array([-1.0, 254.0, 0.5, 1.5, 2.5, 126.5], np.float32),
    "all_nan": lambda rng: np.full((5,), np.nan, np.float32),
    "empty": lambda rng: np.zeros((0, 3), np.float32),
}


@pytest.mark.parametrize("name", sorted(DQL_INPUTS))
def test_dynamic_quantize_linear(name):
    x = DQL_INPUTS[name](np.random.default_rng(11))
    m = _model("DynamicQuantizeLinear", 11, x, [], n_out=3)
    want = list(R.dynamic_quantize(x))
    stock = _stock(m, x)
    if name not in ("all_nan", "empty", "nan"):
        assert all(_same(g, w) for g, w in zip(stock, want)), (stock, want)
    _check_every_run(m, x, want, "DynamicQuantizeLinear")


def test_dynamic_quantize_all_zero_scale_is_onnx_reference():
    """All-zero x: y_scale = 1/255 (ONNX's reference implementation); stock ORT 1.31.1 returns 1.0."""
    x = np.zeros((4, 5), np.float32)
    m = _model("DynamicQuantizeLinear", 11, x, [], n_out=3)
    want = list(R.dynamic_quantize(x))
    assert np.float32(want[1]).view(np.uint32) == 0x3B808081
    assert _stock(m, x)[1] == np.float32(1.0)
    _check_every_run(m, x, want, "DynamicQuantizeLinear")


F32, U8, F16 = TensorProto.FLOAT, TensorProto.UINT8, TensorProto.FLOAT16


@pytest.mark.parametrize("op,types,opset,attrs,match", [
    ("QuantizeLinear", [F32, F32, TensorProto.INT16], 19, {}, "int16 needs opset 21"),
    ("QuantizeLinear", [F32, F32, U8], 21, {"output_dtype": TensorProto.INT8}, "differs from the zero point"),
    ("QuantizeLinear", [F32, F32], 21, {"output_dtype": TensorProto.FLOAT4E2M1}, "not served"),
    ("QuantizeLinear", [F32, F32], 23, {"precision": TensorProto.FLOAT16}, "precision"),
    ("QuantizeLinear", [F32, F16], 23, {}, "element type float16 for input 1"),
    ("QuantizeLinear", [F16, F16], 19, {}, "element type float16"),
    ("QuantizeLinear", [F32, F32], 21, {"block_size": -1}, "block_size"),
    ("QuantizeLinear", [F32, F32], 19, {"block_size": 2}, "needs ONNX opset 21"),
    ("DequantizeLinear", [U8, F32, TensorProto.INT8], 13, {}, "must match"),
    ("DequantizeLinear", [U8, F16], 19, {}, "element type float16 for input 1"),
    ("DequantizeLinear", [U8, F32], 23, {"output_dtype": TensorProto.FLOAT16}, "output_dtype"),
    ("DequantizeLinear", [TensorProto.UINT16, F32], 19, {}, "uint16 needs opset 21"),
    ("QuantizeLinear", [F32, F32, U8, TensorProto.INT8], 13, {}, "witness"),
])
def test_refused_at_creation(op, types, opset, attrs, match):
    with pytest.raises(NodeError, match=match) as e:
        Node(op, types, onnx_opset=opset, attributes=attrs, name="qn")
    assert "qn" in str(e.value) and op in str(e.value)


def test_unserved_stays_stock():
    """float16 QuantizeLinear and a float16-scale DequantizeLinear stay with stock ORT, with the reason."""
    x = np.array([1.0, -2.5, 300.0], np.float16)
    m = _model("QuantizeLinear", 19, x, [np.float16(0.5), np.uint8(3)])
    for via in VIAS:
        sess = _session(m, via, None, 1)
        assert not sess.report.moved and "float16" in sess.report.summary()
        assert _same(sess.run(None, {"x": x})[0], _stock(m, x)[0])


@pytest.mark.parametrize("via", VIAS)
@pytest.mark.parametrize("case", ["axis_range", "blocked_rank", "per_axis_length", "zp_shape", "block_count"])
def test_shape_errors_name_node_op_input(via, case):
    x = np.zeros((4, 6), np.float32)
    s6, z6 = np.ones(6, np.float32), np.zeros(6, np.uint8)
    params, attrs = {
        "axis_range": ([s6, z6], {"axis": 2}),
        "blocked_rank": ([s6, z6], {"axis": 1, "block_size": 2}),
        "per_axis_length": ([np.ones(5, np.float32)], {"axis": 1}),
        "zp_shape": ([s6, np.zeros(5, np.uint8)], {"axis": 1}),
        "block_count": ([np.ones((4, 2), np.float32)], {"axis": 1, "block_size": 2}),
    }[case]
    m = _model("QuantizeLinear", 21, x, params, **attrs)
    with pytest.raises(Exception, match=r"node 'q' \(op QuantizeLinear\)"):
        _session(m, via, None, 1).run(None, {"x": x})
