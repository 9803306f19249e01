"""QuantizeLinear and DequantizeLinear of int4, uint4 and the four float8 types (docs/quantized.md,
"4-bit types" and "float8") through the execution provider and the rewrite: the bits of
tests/reference/qdq_narrow_reference.py on every kernel path and at two threads, stock ORT's bits (with the
departures the page lists), and the errors.

ONNX Runtime's Python binding cannot hand these types in or out, so every model is float in, float out:
QuantizeLinear into the narrow type, then DequantizeLinear out of it. A DequantizeLinear of scale 1 widens
exactly, so it shows QuantizeLinear's codes; a QuantizeLinear of scale 1 on values the type holds exactly
makes every code DequantizeLinear is tested on.
"""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from onemodel_ep.fold import fold
from onemodel_ep.node import Node, NodeError
from tests.nodes.node_sessions import PATHS, VIAS, assert_exact_bits, session
from tests.reference import qdq_narrow_reference as N

F8_TYPES = [
    TensorProto.FLOAT8E4M3FN,
    TensorProto.FLOAT8E4M3FNUZ,
    TensorProto.FLOAT8E5M2,
    TensorProto.FLOAT8E5M2FNUZ,
]
INT4_TYPES = [TensorProto.INT4, TensorProto.UINT4]
F32 = TensorProto.FLOAT


def _tensor(name: str, t: int, values: np.ndarray) -> onnx.TensorProto:
    """A constant of type t from its values (int4: the integers; float8: the codes, as uint8)."""
    shape = list(np.shape(values))
    if t in INT4_TYPES:
        return helper.make_tensor(name, t, shape, N.pack4(values).tobytes(), raw=True)
    return helper.make_tensor(name, t, shape, np.asarray(values, np.uint8).tobytes(), raw=True)


def _qdq_model(
    opset: int,
    shape: tuple[int, ...],
    t: int,
    qparams: tuple[np.ndarray, np.ndarray | None],
    dparams: tuple[np.ndarray, np.ndarray | None],
    qattrs: dict[str, object],
    dattrs: dict[str, object],
) -> onnx.ModelProto:
    """x -> QuantizeLinear (scale, zero point: qparams) -> y of type t -> DequantizeLinear (dparams)."""
    if qparams[1] is None and opset < 21:  # no output_dtype before 21: a zero point of 0 gives y's type
        qparams = (qparams[0], np.zeros(np.shape(qparams[0]), np.uint8))
    inits = [
        numpy_helper.from_array(np.asarray(qparams[0], np.float32), "qs"),
        numpy_helper.from_array(np.asarray(dparams[0], np.float32), "ds"),
    ]
    qin, din = ["x", "qs"], ["y", "ds"]
    if qparams[1] is not None:
        inits.append(_tensor("qz", t, qparams[1]))
        qin.append("qz")
    if dparams[1] is not None:
        inits.append(_tensor("dz", t, dparams[1]))
        din.append("dz")
    if qparams[1] is None:
        qattrs = {**qattrs, "output_dtype": t}
    nodes = [
        helper.make_node("QuantizeLinear", qin, ["y"], name="q", **qattrs),
        helper.make_node("DequantizeLinear", din, ["f"], name="dq", **dattrs),
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", F32, list(shape))],
        [helper.make_tensor_value_info("f", F32, list(shape))],
        initializer=inits,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=10)


def _stock(m: onnx.ModelProto, x: np.ndarray) -> np.ndarray:
    so = ort.SessionOptions()
    so.log_severity_level = 3
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL  # keep the Q -> DQ pair
    return ort.InferenceSession(m.SerializeToString(), so, providers=["CPUExecutionProvider"]).run(
        None, {"x": x}
    )[0]


def _assert_stock(stock: np.ndarray, want: np.ndarray, ok: np.ndarray | None = None) -> None:
    """Stock's bits where `ok`, but any NaN for a NaN: stock writes the float8 NaNs' DequantizeLinear as
    -NaN (0xffc00000), OneModel the canonical 0x7fc00000 (docs/exact-mode.md)."""
    ok = np.ones(want.shape, bool) if ok is None else ok
    nan = np.isnan(want)
    assert np.array_equal(np.isnan(stock[ok & nan]), np.ones(int((ok & nan).sum()), bool))
    assert_exact_bits("stock", stock[ok & ~nan], want[ok & ~nan])


def _every_run(m: onnx.ModelProto, x: np.ndarray, want: np.ndarray, all_paths: bool = True) -> None:
    plan = [(via, p, 1) for via in VIAS for p in (PATHS if all_paths else [None])] + [
        (v, None, 2) for v in VIAS
    ]
    for via, path, threads in plan:
        sess = session(m, via, path, threads)
        assert [n.op for n in sess.report.moved] == ["QuantizeLinear", "DequantizeLinear"], (
            sess.report.summary()
        )
        assert_exact_bits(f"via {via}, path {path}, {threads} thread(s)", sess.run(None, {"x": x})[0], want)


def _scales(rng: np.random.Generator, pshape: tuple[int, ...]) -> np.ndarray:
    return np.asarray((2.0 ** rng.integers(-3, 3, pshape)) * rng.choice([1.0, 0.37], pshape), np.float32)


LAYOUTS = [  # (x shape, axis, block_size, kind)
    ((61,), 0, 0, "tensor"),
    ((3, 129, 64), 1, 0, "tensor"),  # several chunks, an odd chunk count of bytes in none
    ((5, 7, 7), 1, 0, "axis"),  # an odd element count: the last byte half padding
    ((5, 7, 6), -1, 0, "axis"),
    ((6, 35), 1, 8, "blocked"),
    ((2, 37, 5), 1, 4, "blocked"),
    ((0, 4), 1, 0, "axis"),
]


def _pshape(shape: tuple[int, ...], axis: int, block: int, kind: str) -> tuple[int, ...]:
    a = axis % len(shape)
    if kind == "tensor":
        return ()
    if kind == "axis":
        return (shape[a],)
    return tuple(-(-d // block) if i == a else d for i, d in enumerate(shape))


def _attrs(axis: int, block: int) -> dict[str, object]:
    return {"axis": axis, **({"block_size": block} if block else {})}


@pytest.mark.parametrize("t", INT4_TYPES)
@pytest.mark.parametrize("shape,axis,block,kind", LAYOUTS)
@pytest.mark.parametrize("with_zp", [False, True])
def test_int4_quantize_then_dequantize(t, shape, axis, block, kind, with_zp):
    """QuantizeLinear with the layout's scales and zero points, read back exactly (scale 1); then the same
    codes made by a scale-1 QuantizeLinear, dequantized with the layout's scales and zero points."""
    rng = np.random.default_rng(sum(shape) * 3 + axis + block + t)
    lo, hi = N.INT4_RANGES[t]
    ps = _pshape(shape, axis, block, kind)
    s = _scales(rng, ps)
    z = rng.integers(lo, hi, ps, endpoint=True) if with_zp else None
    x = (rng.standard_normal(shape) * 6).astype(np.float32)
    x.reshape(-1)[:8] = [np.nan, np.inf, -np.inf, 2.5, -3.5, 0.5, 1e10, -0.0][: x.size]
    one = np.float32(1)
    m = _qdq_model(21, shape, t, (s, z), (one, None), _attrs(axis, block), {})
    want = N.dequantize4(N.quantize4(x, s, z, t, axis, block), one, None)
    # stock's 4-bit kernels but the per-tensor one convert to int32 before they saturate (docs/quantized.md)
    ok = np.isfinite(x) & (np.abs(x) < 1e9) if kind != "tensor" else np.ones_like(x, bool)
    _assert_stock(_stock(m, x), want, ok)
    _every_run(m, x, want, all_paths=kind != "tensor")
    v = rng.integers(lo, hi, shape, endpoint=True).astype(np.float32)
    m = _qdq_model(21, shape, t, (one, None), (s, z), {}, _attrs(axis, block))
    want = N.dequantize4(v.astype(np.int64), s, z, axis, block)
    _assert_stock(_stock(m, v), want)
    _every_run(m, v, want, all_paths=kind == "tensor")


F8_SPECIALS = np.array(
    [
        np.nan,
        np.inf,
        -np.inf,
        1e10,
        -1e10,
        3e38,
        1e-45,
        -0.0,
        0.0,
        448.0,
        464.0,
        465.0,
        480.0,
        488.0,
        240.0,
        248.0,
        57344.0,
        61440.0,
        61441.0,
        2.0**-10,
        2.0**-9 * 1.5,
        2.0**-17,
        2.0**-18,
        2.0**-16 * 1.5,
        -(2.0**-7),
        0.1,
        -0.3,
    ],
    np.float32,
)


def _f8_x(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    """Random magnitudes over the float8 ranges, with the special values first."""
    x = (rng.standard_normal(shape) * 2.0 ** rng.integers(-20, 17, shape)).astype(np.float32)
    flat = x.reshape(-1)
    flat[: min(flat.size, F8_SPECIALS.size)] = F8_SPECIALS[: flat.size]
    return x


# Stock ORT 1.31.1 without saturation (docs/quantized.md): E4M3FN values that round past 448 with a truncated
# mantissa of 0x7f ([480, 496)) become 448, not NaN; E5M2's finite values past 57344 give NaN, not infinity.
# Only there do the bits differ.
def _stock_f8_differs(
    x: np.ndarray, s: np.ndarray, t: int, saturate: int, axis: int, block: int
) -> np.ndarray:
    with np.errstate(all="ignore"):
        q = np.abs(x / N.R.per_element(s, x.shape, axis, block))
    if saturate or t not in (TensorProto.FLOAT8E4M3FN, TensorProto.FLOAT8E5M2):
        return np.zeros(x.shape, bool)
    if t == TensorProto.FLOAT8E4M3FN:
        return (q >= 480) & (q < 496)
    return np.isfinite(q) & (q >= 61440)


@pytest.mark.parametrize("t", F8_TYPES)
@pytest.mark.parametrize("shape,axis,block,kind", LAYOUTS)
@pytest.mark.parametrize("saturate", [1, 0])
def test_float8_quantize_then_dequantize(t, shape, axis, block, kind, saturate):
    rng = np.random.default_rng(sum(shape) * 5 + axis + block + t + saturate)
    ps = _pshape(shape, axis, block, kind)
    s = _scales(rng, ps)
    x = _f8_x(rng, shape)
    one = np.float32(1)
    zero = np.zeros(ps, np.uint8) if kind == "axis" else None  # a zero point of 0: allowed, and ignored
    m = _qdq_model(
        19 if not block else 21,
        shape,
        t,
        (s, zero),
        (one, None),
        {**_attrs(axis, block), "saturate": saturate},
        {},
    )
    want = N.dequantize_f8(N.quantize_f8(x, s, t, bool(saturate), axis, block), one, t)
    stock = _stock(m, x)
    differs = _stock_f8_differs(x, s, t, saturate, axis, block)
    _assert_stock(stock, want, ~differs)
    _every_run(m, x, want, all_paths=kind == "tensor")
    codes = np.arange(256, dtype=np.uint8)
    v = np.resize(N.from_f8(codes, t), shape) if x.size else np.zeros(shape, np.float32)
    m = _qdq_model(19 if not block else 21, shape, t, (one, None), (s, None), {}, _attrs(axis, block))
    want = N.dequantize_f8(N.quantize_f8(v, one, t), s, t, axis, block)
    _assert_stock(_stock(m, v), want)
    _every_run(m, v, want, all_paths=kind == "axis")


def test_float8_every_code_round_trips():
    """Every non-NaN code widens exactly and converts back to itself, in each type."""
    for t in F8_TYPES:
        codes = np.arange(256, dtype=np.uint8)
        f = N.from_f8(codes, t)
        keep = ~np.isnan(f)
        assert np.array_equal(N.to_f8(f[keep], t, False), codes[keep])
        x = f.reshape(16, 16)
        m = _qdq_model(19, (16, 16), t, (np.float32(1), None), (np.float32(1), None), {}, {})
        want = N.dequantize_f8(N.to_f8(x, t, True), np.float32(1), t)
        _every_run(m, x, want, all_paths=False)


def _run_err(m: onnx.ModelProto, via: str) -> str:
    x = np.zeros(4, np.float32)
    with pytest.raises(Exception) as e:
        session(m, via, None, 1).run(None, {"x": x})
    return str(e.value)


@pytest.mark.parametrize("via", VIAS)
def test_float8_nonzero_zero_point_is_an_error(via):
    m = _qdq_model(
        19, (4,), TensorProto.FLOAT8E4M3FN, (np.float32(1), np.array(0x38)), (np.float32(1), None), {}, {}
    )
    msg = _run_err(m, via)
    assert "node 'q'" in msg and "QuantizeLinear" in msg and "must be 0" in msg, msg


@pytest.mark.parametrize(
    "op,types,opset,attrs,match",
    [
        ("QuantizeLinear", [F32, F32, TensorProto.INT4], 19, {}, "int4 needs opset 21"),
        ("QuantizeLinear", [F32, F32, TensorProto.FLOAT8E5M2], 13, {}, "float8e5m2 needs opset 19"),
        ("QuantizeLinear", [F32, F32], 21, {"output_dtype": TensorProto.FLOAT4E2M1}, "not served"),
        ("QuantizeLinear", [F32, F32, TensorProto.UINT4], 21, {"output_dtype": TensorProto.INT4}, "differs"),
        ("DequantizeLinear", [TensorProto.INT4, F32, TensorProto.UINT4], 21, {}, "must match"),
        ("DequantizeLinear", [TensorProto.FLOAT8E4M3FN, F32, TensorProto.FLOAT8E5M2], 21, {}, "must match"),
        ("DequantizeLinear", [TensorProto.UINT4, F32], 19, {}, "uint4 needs opset 21"),
    ],
)
def test_refused_at_creation(op, types, opset, attrs, match):
    with pytest.raises(NodeError, match=match) as e:
        Node(op, types, onnx_opset=opset, attributes=attrs, name="qn")
    assert "qn" in str(e.value) and op in str(e.value)


def test_com_microsoft_float8_refused():
    """com.microsoft's QuantizeLinear / DequantizeLinear have no float8 types (its schema): refused by
    name."""
    for op, types in (
        ("com.microsoft.QuantizeLinear", [F32, F32, TensorProto.FLOAT8E4M3FN]),
        ("com.microsoft.DequantizeLinear", [TensorProto.FLOAT8E5M2, F32]),
    ):
        with pytest.raises(NodeError, match="float8") as e:
            Node(op, types, name="qn")
        assert "qn" in str(e.value)


def _com_microsoft(m: onnx.ModelProto) -> onnx.ModelProto:
    """The same Q -> DQ model with both nodes in com.microsoft's domain (opset 1)."""
    for n in m.graph.node:
        n.domain = "com.microsoft"
    m.opset_import.append(helper.make_opsetid("com.microsoft", 1))
    return m


@pytest.mark.parametrize("t", INT4_TYPES)
@pytest.mark.parametrize("shape,axis,kind", [((61,), 0, "tensor"), ((5, 7, 7), 1, "axis")])
def test_com_microsoft_int4(t, shape, axis, kind):
    """com.microsoft's QuantizeLinear and DequantizeLinear of int4 / uint4 (ORT's contrib schema, opset 1):
    the ONNX nodes' arithmetic (docs/quantized.md, "4-bit types"), the reference's bits on every path,
    stock's."""
    rng = np.random.default_rng(sum(shape) + axis + t)
    lo, hi = N.INT4_RANGES[t]
    ps = _pshape(shape, axis, 0, kind)
    s = _scales(rng, ps)
    z = rng.integers(lo, hi, ps, endpoint=True)
    x = (rng.standard_normal(shape) * 6).astype(np.float32)
    x.reshape(-1)[:6] = [np.nan, np.inf, -np.inf, 2.5, -3.5, -0.0]
    one = np.float32(1)
    m = _com_microsoft(_qdq_model(21, shape, t, (s, z), (one, np.zeros((), np.int64)), _attrs(axis, 0), {}))
    want = N.dequantize4(N.quantize4(x, s, z, t, axis, 0), one, None)
    ok = np.isfinite(x) if kind != "tensor" else np.ones_like(x, bool)
    _assert_stock(_stock(m, x), want, ok)
    _every_run(m, x, want, all_paths=True)


def test_reference_conversion_matches_ml_dtypes():
    """The reference's float8 conversion against ml_dtypes (which onnx.reference's QuantizeLinear casts with):
    saturate=0 is its plain cast, saturate=1 its cast after a clip to the finite range (onnx.numpy_helper's
    saturate_cast); every non-NaN input, random bit patterns and a dense sweep of the float8 ranges."""
    ml_dtypes = pytest.importorskip("ml_dtypes")
    rng = np.random.default_rng(3)
    bits = np.concatenate(
        [
            rng.integers(0, 2**32, 200_000, dtype=np.uint64).astype(np.uint32),
            np.arange(0x37000000, 0x48000000, 997, dtype=np.uint32),
        ]
    )
    x = np.concatenate([bits, bits | 0x80000000]).view(np.float32)
    x = x[~np.isnan(x)]
    dtypes = {
        TensorProto.FLOAT8E4M3FN: ml_dtypes.float8_e4m3fn,
        TensorProto.FLOAT8E4M3FNUZ: ml_dtypes.float8_e4m3fnuz,
        TensorProto.FLOAT8E5M2: ml_dtypes.float8_e5m2,
        TensorProto.FLOAT8E5M2FNUZ: ml_dtypes.float8_e5m2fnuz,
    }
    for t, d in dtypes.items():
        assert np.array_equal(N.to_f8(x, t, False), x.astype(d).view(np.uint8)), t
        info = ml_dtypes.finfo(d)
        clipped = np.clip(x, np.float32(info.min), np.float32(info.max)).astype(d).view(np.uint8)
        assert np.array_equal(N.to_f8(x, t, True), clipped), t
        codes = np.arange(256, dtype=np.uint8)
        wide = codes.view(d).astype(np.float32)
        assert_exact_bits(f"widen {t}", N.from_f8(codes, t)[~np.isnan(wide)], wide[~np.isnan(wide)])


@pytest.mark.parametrize("t", INT4_TYPES + F8_TYPES)
def test_constant_quantize_folds_or_runs_as_stock(t):
    """A QuantizeLinear -> DequantizeLinear of a constant: folded by onemodel_ep.fold through Node (float8) or
    run on OneModel's kernels (int4, uint4), with stock ORT's values either way."""
    c = np.array([[1.5, -2.25, 7.0], [100.0, -0.1, 3.0]], np.float32)
    nodes = [
        helper.make_node("QuantizeLinear", ["c", "qs"], ["y"], output_dtype=t),
        helper.make_node("DequantizeLinear", ["y", "ds"], ["d"]),
        helper.make_node("Add", ["d", "x"], ["f"]),
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", F32, [2, 3])],
        [helper.make_tensor_value_info("f", F32, [2, 3])],
        [
            numpy_helper.from_array(c, "c"),
            numpy_helper.from_array(np.float32(0.5), "qs"),
            numpy_helper.from_array(np.float32(2.0), "ds"),
        ],
    )
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)], ir_version=10)
    x = np.zeros((2, 3), np.float32)
    if t in INT4_TYPES:
        want = N.dequantize4(N.quantize4(c, np.float32(0.5), None, t), np.float32(2.0), None)
    else:
        want = N.dequantize_f8(N.quantize_f8(c, np.float32(0.5), t), np.float32(2.0), t)
    assert_exact_bits("stock", _stock(m, x), want)
    folded = fold(m)  # float8: the pair folded by Node; int4: it runs (folding carries no 4-bit tensor)
    kept = ["Add"] if t in F8_TYPES else [n.op_type for n in nodes]
    assert [n.op_type for n in folded.graph.node] == kept
    assert_exact_bits("folded", _stock(folded, x), want)
    for via in VIAS:
        assert_exact_bits(via, session(m, via, None, 1).run(None, {"x": x})[0], want)
