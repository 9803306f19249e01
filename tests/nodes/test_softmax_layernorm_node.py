"""Softmax, LogSoftmax and LayerNormalization nodes: ONNX semantics, every path and thread count alike.

Each case runs as a one-node model through both ways in (the model rewritten to ai.onemodel, and OneModel as
an execution provider where ORT supports it) on every kernel path at one thread, and on the default path at
two threads (shapes large enough to split into several chunks, a chunk ending inside a row slab); every run
must give the bits of tests/reference/reference_linalg.py (written from docs/exact-linalg.md; f64 Softmax and
LogSoftmax, whose exp and log the contract lets be 1 ulp off, the same bits everywhere and within a bound of
it). Stock ORT agrees within 1e-5 (f16: 2e-3) where it runs the case. bfloat16, which ORT's Python API cannot
feed, runs through the library's node API.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

import onemodel_ep
from onemodel_ep.node import Node, NodeError
from tests.nodes.node_sessions import PATHS, VIAS
from tests.nodes.node_sessions import assert_bits as _assert_bits
from tests.nodes.node_sessions import runs as _runs
from tests.nodes.node_sessions import session as _session
from tests.nodes.node_sessions import stock as _stock
from tests.reference import reference_linalg as R

F16, F32, F64 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)
BF16 = np.dtype(ml_dtypes.bfloat16)
U64 = 2.0**-53


def _elem(dtype: np.dtype) -> int:
    return int(helper.np_dtype_to_tensor_dtype(dtype))


def _model(
    op: str,
    x: np.ndarray,
    outputs: list[tuple[str, np.dtype]],
    opset: int,
    inits: dict[str, np.ndarray] | None = None,
    inputs: list[str] | None = None,
    dynamic: bool = False,
    **attrs: object,
) -> onnx.ModelProto:
    """A one-node model over input x (dynamic: every dimension of x symbolic)."""
    inits = inits or {}
    names = inputs if inputs is not None else ["x", *inits]
    node = helper.make_node(op, names, [n for n, _ in outputs], name="n0", **attrs)
    graph = helper.make_graph(
        [node],
        "g",
        [
            helper.make_tensor_value_info(
                "x", _elem(x.dtype), [f"d{i}" for i in range(x.ndim)] if dynamic else list(x.shape)
            )
        ],
        [helper.make_tensor_value_info(n, _elem(t), None) for n, t in outputs if n],
        initializer=[numpy_helper.from_array(v, k) for k, v in inits.items()],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=10)


def _close_to_stock(model: onnx.ModelProto, feeds: dict[str, np.ndarray], ours: list[np.ndarray]) -> None:
    for i, (s, o) in enumerate(zip(_stock(model, feeds), ours)):
        assert s.dtype == o.dtype and s.shape == o.shape, i
        tol = 2e-3 if o.dtype == F16 else 1e-5
        np.testing.assert_allclose(o.astype(np.float64), s.astype(np.float64), rtol=tol, atol=tol)


def _data(shape: tuple[int, ...], dtype: np.dtype, seed: int, scale: float = 4.0) -> np.ndarray:
    return (np.random.default_rng(seed).standard_normal(shape) * scale).astype(dtype)


# ---- Softmax and LogSoftmax ----------------------------------------------------------------------

SOFTMAX_CASES = [  # (shape, axis, opset)
    ((5, 37), -1, 13),
    ((3, 19, 7), 1, 13),
    ((3, 19, 7), 0, 13),
    ((3, 19, 7), -2, 13),
    ((2, 3, 5, 3), 2, 13),
    ((3, 19, 7), 1, 11),  # coerced to [3, 133]: not the opset-13 reading of axis 1
    ((3, 19, 7), -1, 11),
    ((2, 3, 5), 0, 11),
    ((4, 6), None, 11),  # default axis 1
    ((4, 6, 2), None, 13),  # default axis -1
    ((1,), 0, 13),
    ((300, 37), -1, 13),  # two chunks at two threads
    ((40, 33, 9), 1, 13),  # two chunks, the boundary inside a [33, 9] slab
    ((40, 33, 9), -3, 13),
    ((0, 7), -1, 13),
    ((3, 0, 4), 1, 13),
    ((3, 0, 4), -1, 13),
    ((4, 0), 1, 11),
]


def _softmax_want(op: str, x: np.ndarray, axis: int | None, opset: int) -> np.ndarray:
    fn = R.softmax if op == "Softmax" else R.log_softmax
    ax = axis if axis is not None else (1 if opset < 13 else -1)
    return fn(x, axis=ax, opset=opset)


def _check_softmax(op: str, x: np.ndarray, axis: int | None, opset: int, stock: bool) -> None:
    attrs = {} if axis is None else {"axis": axis}
    model = _model(op, x, [("y", x.dtype)], opset, **attrs)
    want = _softmax_want(op, x, axis, opset)
    runs = _runs(model, {"x": x}, op)
    first = next(iter(runs.values()))[0]
    for where, (got,) in runs.items():
        if x.dtype == F64:  # exp and log within 1 ulp: one set of bits, near the reference
            _assert_bits(f"{op} {where} vs the first run", got, first)
        else:
            _assert_bits(f"{op} {where} vs the reference", got, want)
    if x.dtype == F64 and x.size:
        ax = (axis if axis is not None else (1 if opset < 13 else -1)) % x.ndim
        n = int(np.prod(x.shape[ax:])) if opset < 13 else x.shape[ax]
        bound = 4 * (n + 4) * U64 * (np.abs(want) + (op == "LogSoftmax"))
        assert np.all(np.abs(first - want) <= bound)
    if stock and x.size:
        _close_to_stock(model, {"x": x}, [first])


@pytest.mark.parametrize("op", ["Softmax", "LogSoftmax"])
@pytest.mark.parametrize(("shape", "axis", "opset"), SOFTMAX_CASES, ids=str)
def test_softmax_f32_every_way_in_path_and_thread_count(
    op: str, shape: tuple[int, ...], axis: int | None, opset: int
) -> None:
    x = _data(shape, F32, int(np.prod(shape)) + 3 * (axis or 0) + opset)
    _check_softmax(op, x, axis, opset, stock=True)


@pytest.mark.parametrize("op", ["Softmax", "LogSoftmax"])
@pytest.mark.parametrize("dtype", [F16, F64], ids=str)
@pytest.mark.parametrize(("shape", "axis", "opset"), [SOFTMAX_CASES[i] for i in (0, 1, 5, 12, 15)], ids=str)
def test_softmax_f16_f64(op: str, dtype: np.dtype, shape: tuple[int, ...], axis: int, opset: int) -> None:
    x = _data(shape, dtype, int(np.prod(shape)) + 7)
    _check_softmax(op, x, axis, opset, stock=True)


SPECIAL_ROWS = [
    [-np.inf, 0.0, 1.0, -np.inf, -0.0],
    [np.inf, 1.0, 2.0, 3.0, 4.0],
    [np.nan, 1.0, 2.0, 3.0, 4.0],
    [-np.inf] * 5,
    [88.0, 88.0, -88.0, 87.5, 0.0],
    [-0.0, 0.0, -0.0, 0.0, -0.0],
    [3e38, -3e38, 0.0, 1.0, 2.0],
    [1e-45, -1e-45, 0.0, 0.0, 0.0],
]


@pytest.mark.parametrize("op", ["Softmax", "LogSoftmax"])
@pytest.mark.parametrize("dtype", [F32, F16], ids=str)
@pytest.mark.parametrize("axis", [-1, 0])
def test_softmax_nan_and_inf_rows(op: str, dtype: np.dtype, axis: int) -> None:
    """Rows (axis -1) and columns (axis 0: strided rows) with NaN, infinities, signed zeros, huge values."""
    x = np.array(SPECIAL_ROWS, dtype=np.float64)
    with np.errstate(over="ignore"):  # f16: 3e38 is inf
        x = (x if axis == -1 else x.T.copy()).astype(dtype)
    _check_softmax(op, x, axis, 13, stock=False)


@pytest.mark.parametrize("op", ["Softmax", "LogSoftmax"])
@pytest.mark.parametrize(
    ("shape", "axis", "opset"), [((5, 37), -1, 13), ((3, 19, 7), 1, 13), ((3, 19, 7), 1, 11)], ids=str
)
def test_softmax_bf16_through_the_node_api(op: str, shape: tuple[int, ...], axis: int, opset: int) -> None:
    x = _data(shape, BF16, 11)
    want = _softmax_want(op, x, axis, opset)
    if opset < 13:
        with pytest.raises(NodeError, match="element type bfloat16 needs opset 13"):
            Node(op, [TensorProto.BFLOAT16], onnx_opset=opset, attributes={"axis": axis})
        return
    for p in PATHS:
        got = Node(
            op, [TensorProto.BFLOAT16], onnx_opset=opset, attributes={"axis": axis}, kernel_path=p
        ).run(x)
        _assert_bits(f"{op} bf16 path {p}", got, want)


def test_opset_11_and_13_read_axis_differently() -> None:
    x = _data((3, 19, 7), F32, 5)
    y11 = _runs(_model("Softmax", x, [("y", F32)], 11, axis=1), {"x": x}, "Softmax")
    y13 = _runs(_model("Softmax", x, [("y", F32)], 13, axis=1), {"x": x}, "Softmax")
    a, b = next(iter(y11.values()))[0], next(iter(y13.values()))[0]
    np.testing.assert_allclose(a.reshape(3, -1).sum(-1), 1, rtol=1e-5)
    np.testing.assert_allclose(b.sum(1), 1, rtol=1e-5)
    assert not np.allclose(a, b)


# ---- LayerNormalization --------------------------------------------------------------------------

# (shape, axis, scale shape (None: the normalised shape), bias shape (None: the same; False: none))
LN_CASES = [
    ((5, 37), -1, None, None),
    ((5, 37), 1, None, False),
    ((3, 19, 7), 1, None, None),
    ((3, 19, 7), -2, (1, 7), (7,)),  # Scale and B broadcast to [19, 7]
    ((3, 19, 7), 1, (19, 1), (1,)),
    ((3, 19, 7), 0, None, None),
    ((2, 3, 5, 3), 2, (3,), False),
    ((4, 16), -1, None, None),
    ((1, 1), -1, None, None),
    ((700, 67), -1, None, None),  # two chunks at two threads
    ((0, 5), -1, None, None),
    ((3, 0), -1, None, None),  # n = 0: Y empty, Mean and InvStdDev NaN
    ((3, 2, 0), 1, None, None),
]


def _ln_case(
    shape: tuple[int, ...],
    axis: int,
    scale_shape: tuple[int, ...] | None,
    bias_shape: tuple[int, ...] | None | bool,
    dtype: np.dtype,
    seed: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    rng = np.random.default_rng(seed)
    norm = shape[axis:] if axis >= 0 else shape[len(shape) + axis :]
    x = (rng.standard_normal(shape) * 2 + 1).astype(dtype)
    scale = (1 + 0.25 * rng.standard_normal(scale_shape or norm)).astype(dtype)
    bias = None if bias_shape is False else (0.5 * rng.standard_normal(bias_shape or norm)).astype(dtype)
    return x, scale, bias


def _check_ln(
    x: np.ndarray,
    scale: np.ndarray,
    bias: np.ndarray | None,
    axis: int,
    stats: str,
    stock: bool,
    epsilon: float = 1e-3,
) -> None:
    """stats: which of Mean and InvStdDev the node has ("both", "none", "inv")."""
    inits = {"scale": scale} | ({} if bias is None else {"bias": bias})
    names = {"both": ["y", "mean", "inv"], "none": ["y"], "inv": ["y", "", "inv"]}[stats]
    outputs = [(n, x.dtype if n == "y" else F32) for n in names]
    model = _model("LayerNormalization", x, outputs, 17, inits, axis=axis, epsilon=epsilon)
    y, mean, inv = R.layer_norm(x, scale, bias, axis=axis, epsilon=epsilon)
    full = {"y": y, "mean": mean.astype(F32), "inv": inv.astype(F32)}  # f64: the f64 statistics rounded once
    want = [full[n] for n in names if n]
    runs = _runs(model, {"x": x}, "LayerNormalization")
    for where, got in runs.items():
        assert len(got) == len(want)
        for k, (g, w) in enumerate(zip(got, want)):
            _assert_bits(f"LayerNormalization output {k}, {where}", g, w)
    if stock and x.size:
        _close_to_stock(model, {"x": x}, next(iter(runs.values())))


@pytest.mark.parametrize(("shape", "axis", "scale_shape", "bias_shape"), LN_CASES, ids=str)
def test_layernorm_f32_every_way_in_path_and_thread_count(shape, axis, scale_shape, bias_shape) -> None:
    x, scale, bias = _ln_case(shape, axis, scale_shape, bias_shape, F32, int(np.prod(shape)) + axis + 10)
    _check_ln(x, scale, bias, axis, "both", stock=True)


@pytest.mark.parametrize("dtype", [F16, F64], ids=str)
@pytest.mark.parametrize(
    ("shape", "axis", "scale_shape", "bias_shape"), [LN_CASES[i] for i in (0, 3, 6, 9, 11)], ids=str
)
def test_layernorm_f16_f64(dtype, shape, axis, scale_shape, bias_shape) -> None:
    x, scale, bias = _ln_case(shape, axis, scale_shape, bias_shape, dtype, 17)
    _check_ln(x, scale, bias, axis, "both", stock=True)


@pytest.mark.parametrize("stats", ["none", "inv"])
def test_layernorm_optional_outputs(stats: str) -> None:
    x, scale, bias = _ln_case((6, 23), -1, None, None, F32, 3)
    _check_ln(x, scale, bias, -1, stats, stock=True)


def test_layernorm_nan_inf_rows_and_default_epsilon() -> None:
    x = np.array(
        [
            [np.nan, 1, 2, 3],
            [np.inf, 1, 2, 3],
            [5, 5, 5, 5],
            [-0.0, 0.0, -0.0, 0.0],
            [3e38, -3e38, 1, 2],
            [1e-30, 2e-30, 3e-30, -1e-30],
        ],
        dtype=F32,
    )
    scale = np.array([1.0, -2.0, 0.5, 3.0], F32)
    bias = np.array([0.0, -0.0, 1.0, np.inf], F32)
    _check_ln(x, scale, bias, -1, "both", stock=False, epsilon=1e-5)


def test_layernorm_bf16_through_the_node_api() -> None:
    x, scale, bias = _ln_case((3, 19, 7), 1, (1, 7), (7,), BF16, 9)
    want = R.layer_norm(x, scale, bias, axis=1, epsilon=1e-5)
    for p in PATHS:
        got = Node(
            "LayerNormalization",
            [TensorProto.BFLOAT16] * 3,
            onnx_opset=17,
            attributes={"axis": 1},
            kernel_path=p,
        ).run_outputs(x, scale, bias)
        for k, (g, w) in enumerate(zip(got, want)):
            _assert_bits(f"LayerNormalization bf16 output {k}, path {p}", g, w)


# ---- bad input -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("op", "attrs", "shape", "opset"),
    [
        ("Softmax", {"axis": 2}, (3, 4), 13),
        ("LogSoftmax", {"axis": -3}, (3, 4), 13),
        ("Softmax", {"axis": 2}, (3, 4), 11),
        ("Softmax", {}, (), 13),
        ("LayerNormalization", {"axis": 2}, (3, 4), 17),
        ("LayerNormalization", {"axis": -3}, (3, 4), 17),
    ],
)
def test_axis_out_of_range_is_named(
    op: str, attrs: dict[str, int], shape: tuple[int, ...], opset: int
) -> None:
    ln = op == "LayerNormalization"
    node = Node(op, [TensorProto.FLOAT] * (2 if ln else 1), onnx_opset=opset, attributes=attrs, name="bad")
    x = np.zeros(shape, F32)
    with pytest.raises(
        NodeError, match=r"node 'bad' \(op " + op + r"\): attribute axis -?\d+ is out of range"
    ):
        node.run_outputs(x, np.ones(4, F32)) if ln else node.run(x)


@pytest.mark.parametrize("via", VIAS)
def test_axis_out_of_range_at_session_creation_when_the_shape_is_known(via: str) -> None:
    x = np.zeros((3, 4), F32)
    with pytest.raises(Exception, match=r"(?s)Softmax.*axis.*5"):  # ORT's own check or ours, named
        _session(_model("Softmax", x, [("y", F32)], 13, axis=5), via, None, 1)
    with pytest.raises(Exception, match=r"node 'n0' \(op Softmax\): attribute axis 5 is out of range"):
        _session(_model("Softmax", x, [("y", F32)], 13, axis=5), "rewrite", None, 1)


def test_axis_out_of_range_at_run_time_when_the_rank_is_not_known() -> None:
    x = np.zeros((3, 4), F32)
    model = _model("LogSoftmax", x, [("y", F32)], 13, axis=-3)
    model.graph.input[0].type.tensor_type.ClearField("shape")
    sess = _session(model, "rewrite", None, 1)
    with pytest.raises(Exception, match=r"node 'n0' \(op LogSoftmax\): attribute axis -3 is out of range"):
        sess.run(None, {"x": x})


def test_axis_out_of_range_at_creation_when_only_the_rank_is_known() -> None:
    x = np.zeros((3, 4), F32)
    with pytest.raises(Exception, match=r"node 'n0' \(op LogSoftmax\): attribute axis -3 is out of range"):
        _session(_model("LogSoftmax", x, [("y", F32)], 13, dynamic=True, axis=-3), "rewrite", None, 1)


@pytest.mark.parametrize(
    ("scale_shape", "bias_shape", "which"),
    [
        ((5,), None, "Scale \\[5\\]"),
        ((2, 4), None, "Scale \\[2, 4\\]"),
        ((4,), (3, 4), "B \\[3, 4\\]"),
        ((1, 3, 4), None, "Scale \\[1, 3, 4\\]"),
    ],
)
def test_layernorm_scale_or_bias_that_does_not_broadcast(scale_shape, bias_shape, which) -> None:
    node = Node(
        "LayerNormalization", [TensorProto.FLOAT] * 3, onnx_opset=17, attributes={"axis": -1}, name="ln"
    )
    x = np.zeros((2, 3, 4), F32)
    s = np.ones(scale_shape, F32)
    b = np.zeros(bias_shape or (4,), F32)
    with pytest.raises(
        NodeError,
        match=r"node 'ln' \(op LayerNormalization\): "
        + which
        + r" does not broadcast to the normalised shape \[4\]",
    ):
        node.run_outputs(x, s, b)


@pytest.mark.parametrize("via", VIAS)
def test_layernorm_bad_scale_at_creation_or_at_run_time(via: str) -> None:
    x = np.zeros((2, 3), F32)
    msg = r"node 'n0' \(op LayerNormalization\): Scale \[4\] does not broadcast to the normalised shape \[3\]"
    model = _model("LayerNormalization", x, [("y", F32)], 17, {"scale": np.ones(4, F32)}, axis=-1)
    with pytest.raises(Exception, match=msg):
        _session(model, via, None, 1)
    model = _model("LayerNormalization", x, [("y", F32)], 17, {"scale": np.ones(4, F32)}, dynamic=True)
    sess = _session(model, via, None, 1)
    with pytest.raises(Exception, match=msg):
        sess.run(None, {"x": x})


@pytest.mark.parametrize("stash", [0, 11, 16])
def test_unserved_stash_type_stays_with_stock_ort_with_its_reason(stash: int) -> None:
    with pytest.raises(NodeError, match=f"attribute stash_type {stash} is not served"):
        Node("LayerNormalization", [TensorProto.FLOAT] * 2, onnx_opset=17, attributes={"stash_type": stash})
    x = _data((3, 8), F32, 1)
    model = _model("LayerNormalization", x, [("y", F32)], 17, {"scale": np.ones(8, F32)}, stash_type=stash)
    for via in VIAS:
        rep = _session(model, via, None, 1).report if stash == 0 else None
        if rep is not None:  # stock ORT runs stash_type 0 for float; it refuses 11 and 16 itself
            (stayed,) = rep.stayed
            assert stayed.category == "attribute" and f"stash_type {stash} is not served" in stayed.reason
    report = onemodel_ep.RewriteReport("exact", None)
    onemodel_ep.rewrite(model, report=report)
    (stayed,) = report.stayed
    assert stayed.op == "LayerNormalization" and f"stash_type {stash} is not served" in stayed.reason


@pytest.mark.parametrize(
    ("op", "types", "msg"),
    [
        ("Softmax", [TensorProto.INT32], "unsupported element type int32"),
        ("LogSoftmax", [TensorProto.INT64], "unsupported element type int64"),
        ("LayerNormalization", [TensorProto.INT32] * 2, "unsupported element type int32"),
        ("LayerNormalization", [TensorProto.FLOAT, TensorProto.FLOAT16], "element type float16 of input 1"),
        ("LayerNormalization", [TensorProto.FLOAT], "1 inputs given"),
    ],
)
def test_unsupported_types_and_arity_are_named(op: str, types: list[int], msg: str) -> None:
    with pytest.raises(NodeError, match=msg) as e:
        Node(op, types, onnx_opset=17, name="t")
    assert f"node 't' (op {op})" in str(e.value)


def test_layernorm_before_opset_17_is_not_served() -> None:
    with pytest.raises(NodeError, match="opset 16 is not served"):
        Node("LayerNormalization", [TensorProto.FLOAT] * 2, onnx_opset=16)


@pytest.mark.skipif(
    not onemodel_ep.ep_supported(), reason="this ORT cannot load OneModel as an execution provider"
)
@pytest.mark.parametrize("dispatch", ["registry", "compile"])
@pytest.mark.parametrize(("op", "opset"), [("Softmax", 11), ("LogSoftmax", 11), ("Softmax", 13)])
def test_both_ep_dispatches_read_the_opset(op: str, opset: int, dispatch: str) -> None:
    """The registry has one kernel per side of opset 13; the compiled node takes the graph's opset."""
    from onemodel_ep import ep

    x = _data((3, 19, 7), F32, 2)
    model = _model(op, x, [("y", F32)], opset, axis=1)
    so = ort.SessionOptions()
    so.log_severity_level = 3
    sess = ort.InferenceSession(
        model.SerializeToString(), ep.ep_session_options(so, "exact", None, dispatch), enable_fallback=0
    )
    assert ep.claimed_names(ep.assignments(sess)) == {"n0"}
    _assert_bits(
        f"{op} opset {opset} ({dispatch})", sess.run(None, {"x": x})[0], _softmax_want(op, x, 1, opset)
    )
