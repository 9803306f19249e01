"""The Reduce nodes (node_reduce.c): axes as attribute, constant input and run-time input, keepdims,
noop_with_empty_axes, zero-size dimensions, NaN/inf, integer wrap, errors; every kernel path and both ways in.

Values are compared bit for bit with tests/reference/reference_linalg.py (written from docs/exact-linalg.md),
except the f64 results of ReduceLogSum and ReduceLogSumExp (the reference's exp and log are correctly rounded,
ours within an ulp): those are the same bits everywhere and within a bound of the reference. Stock ORT
confirms the semantics: close for floats, equal for integers, where it runs the type.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

import onemodel_ep
from onemodel_ep import ep
from onemodel_ep._lib import ffi, lib
from onemodel_ep.node import Node, NodeError
from tests.reference import reference_linalg as R

PATHS = onemodel_ep.kernel_paths()
VIAS = ("rewrite", "ep") if onemodel_ep.ep_supported() else ("rewrite",)
OPS = R.REDUCE_OPS
F16, F32, F64 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)
BF16 = np.dtype(ml_dtypes.bfloat16)
INTS = tuple(np.dtype(t) for t in (np.int32, np.int64, np.uint32, np.uint64))
INT8S = (np.dtype(np.int8), np.dtype(np.uint8))  # ReduceMax, ReduceMin
U64 = 2.0**-53


def onnx_type(dtype: np.dtype) -> int:
    return TensorProto.BFLOAT16 if dtype == BF16 else int(helper.np_dtype_to_tensor_dtype(dtype))


def int_types(op: str) -> tuple[np.dtype, ...]:
    if op not in R.REDUCE_INTEGER:
        return ()
    return INTS + (INT8S if op in ("ReduceMax", "ReduceMin") else ())


def axes_input_since(op: str) -> int:
    return 13 if op == "ReduceSum" else 18


def make_input(op: str, shape: tuple[int, ...], dtype: np.dtype, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if dtype.kind in "iu":
        lo = 0 if dtype.kind == "u" else -100
        x = np.asarray(rng.integers(lo, 100, shape)).astype(dtype)
        if x.size:
            x.reshape(-1)[0] = np.iinfo(dtype).max  # sums, products and squares wrap
        return x
    if op in ("ReduceLogSum", "ReduceProd"):
        return np.asarray(rng.uniform(0.5, 1.5, shape)).astype(dtype)
    return np.asarray(rng.standard_normal(shape) * 3).astype(dtype)


SPECIALS = np.array([[np.nan, 1.0, 2.0, 3.0], [np.inf, 1.0, 2.0, 3.0], [-np.inf, 1.0, 2.0, 3.0],
                     [np.inf, -np.inf, 0.0, 1.0], [-0.0, -0.0, -0.0, -0.0], [0.0, -0.0, 0.0, -0.0],
                     [-np.inf, -np.inf, -np.inf, -np.inf], [0.0, 0.0, 0.0, 0.0]])

# (shape, axes, keepdims): None is no axes (every axis reduced)
SHAPES = [
    ((3, 17, 5), [1], 1), ((3, 17, 5), [0, 2], 0), ((3, 17, 5), [-1], 1), ((2, 3, 4, 5), [1, 3], 0),
    ((2, 3, 4, 5), [-4, 2], 1), ((3, 17, 5), None, 0), ((3, 17, 5), None, 1), ((4, 33), [0], 0),
    ((70, 600), [1], 0), ((600, 70), [0], 1),  # more than one parallel chunk
    ((1, 7, 1, 3), [0, 2], 0), ((), None, 0), ((5,), [0], 1),
    ((0, 5), [1], 1), ((4, 0), [1], 0), ((3, 0, 2), None, 0), ((3, 0, 2), [0, 2], 1),  # zero-size dimensions
]


def want_of(op: str, x: np.ndarray, axes: list[int] | None, keep: int, noop: int) -> np.ndarray:
    if noop and not axes:  # no axis reduced: each element alone (a copy for Sum, Mean, Max, Min, Prod)
        if op in ("ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd"):
            return x.copy()
        return R.reduce(op, x[..., None], [x.ndim], 0)
    r = x.ndim
    ax = sorted({a + r if a < 0 else a for a in (axes or range(r))})
    if x.size == 0 and all(x.shape[a] for a in range(r) if a not in ax):
        return empty_reduction(op, x, ax, keep)
    return R.reduce(op, x, axes, keep)


# The value of a reduction over an empty set (docs/reductions.md; the reference leaves it undefined).
EMPTY_FLOAT = {"ReduceSum": 0.0, "ReduceSumSquare": 0.0, "ReduceL1": 0.0, "ReduceL2": 0.0, "ReduceProd": 1.0,
               "ReduceMax": -np.inf, "ReduceMin": np.inf, "ReduceMean": np.nan, "ReduceLogSum": -np.inf,
               "ReduceLogSumExp": -np.inf}


def empty_reduction(op: str, x: np.ndarray, ax: list[int], keep: int) -> np.ndarray:
    shape = tuple(1 if a in ax else x.shape[a] for a in range(x.ndim) if keep or a not in ax)
    if x.dtype.kind in "iu":
        info = np.iinfo(x.dtype)
        value = {"ReduceProd": 1, "ReduceMax": info.min, "ReduceMin": info.max}.get(op, 0)
        return np.full(shape, value, dtype=x.dtype)
    return np.full(shape, EMPTY_FLOAT[op], dtype=F64).astype(x.dtype)


def bound_of(op: str, x: np.ndarray, want: np.ndarray) -> np.ndarray | None:
    if x.dtype != F64 or op not in R.REDUCE_TRANSCENDENTAL:
        return None
    n = x.size // max(1, want.size)
    return 4 * (n + 4) * U64 * (np.abs(want) + 1)


def check(what: str, got: np.ndarray, want: np.ndarray, bound: np.ndarray | None) -> None:
    assert got.dtype == want.dtype and got.shape == want.shape, (what, got.dtype, got.shape, want.dtype,
                                                                want.shape)
    if bound is None:
        bad = ~R.bits_equal(got, want)
        assert not bad.any(), (f"{what}: {int(bad.sum())} of {bad.size} differ, first at "
                               f"{tuple(np.argwhere(bad)[0])}: {got[bad][0]!r} vs {want[bad][0]!r}")
    else:
        same = (got == want) | (np.isnan(got) & np.isnan(want))
        with np.errstate(invalid="ignore"):  # inf - inf where both are the same infinity
            assert np.all(same | (np.abs(got - want) <= bound)), what


# ---- direct calls (no ORT): every op, type, axes form and kernel path -------------------------------------


def direct_cases(op: str) -> list[tuple[np.dtype, tuple[int, ...], list[int] | None, int]]:
    out = []
    for t in (F32, F16, BF16, F64) + int_types(op):
        for i, (shape, axes, keep) in enumerate(SHAPES):
            if t in (F32, F16) or i % 3 == 0:
                out.append((t, shape, axes, keep))
    return out


def direct_node(op: str, t: np.dtype, form: str, axes: list[int] | None, keep: int, noop: int | None,
                path: str) -> Node:
    attrs: dict[str, object] = {"keepdims": keep}
    if noop is not None:
        attrs["noop_with_empty_axes"] = noop
    if form == "attr":
        if axes is not None:
            attrs["axes"] = axes
        return Node(op, [onnx_type(t)], onnx_opset=13 if op != "ReduceSum" else 11, attributes=attrs,
                    kernel_path=path, name="r")
    types = [onnx_type(t)] + ([TensorProto.INT64] if axes is not None else [])
    return Node(op, types, onnx_opset=18, attributes=attrs, kernel_path=path, name="r")


@pytest.mark.parametrize("op", OPS)
def test_direct_every_type_shape_and_path(op: str) -> None:
    for t, shape, axes, keep in direct_cases(op):
        x = make_input(op, shape, t, len(shape) * 10 + keep)
        want = want_of(op, x, axes, keep, 0)
        bound = bound_of(op, x, want)
        for form in ("attr", "input"):
            if form == "attr" and op == "ReduceSum" and t == BF16:
                continue  # ReduceSum's attribute form ends at opset 12, bfloat16 starts at 13
            first = None
            for path in PATHS:
                node = direct_node(op, t, form, axes, keep, None, path)
                ins = [x] + ([np.array(axes, np.int64)] if form == "input" and axes is not None else [])
                got = node.run_outputs(*ins)[0]
                what = f"{op} {t} {shape} axes={axes} keep={keep} {form} path {path}"
                check(what, got, want, bound)
                if first is None:
                    first = got
                else:
                    assert got.tobytes() == first.tobytes(), what


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("t", [F32, F16, BF16, F64])
def test_direct_specials(op: str, t: np.dtype) -> None:
    x = SPECIALS.astype(t)
    want = R.reduce(op, x, [1], 0)
    for path in PATHS:
        got = direct_node(op, t, "input", [1], 0, None, path).run_outputs(x, np.array([1], np.int64))[0]
        check(f"{op} {t} specials path {path}", got, want, bound_of(op, x, want))
        nan = np.isnan(got.astype(F64))
        if nan.any():  # exact mode's NaN is the canonical quiet NaN
            canon = {2: 0x7FC0 if t == BF16 else 0x7E00, 4: 0x7FC00000, 8: 0x7FF8000000000000}[t.itemsize]
            assert np.all(got.view(f"u{t.itemsize}")[nan] == canon), (op, t, path)


def test_integer_wrap() -> None:
    x = np.array([[2**31 - 1, 1, 5], [-(2**31), -1, 3]], np.int32)
    i32, i64 = TensorProto.INT32, TensorProto.INT64
    node = Node("ReduceSum", [i32, i64], onnx_opset=18, attributes={"keepdims": 0})
    got = node.run_outputs(x, np.array([1], np.int64))[0]
    assert got.tolist() == [-(2**31) + 5, -(2**31) + 2]  # 2^31 + 5 and -2^31 + 2, wrapped
    u = np.array([[2**32 - 1, 2]], np.uint32)
    node = Node("ReduceProd", [TensorProto.UINT32], onnx_opset=11, attributes={"axes": [1], "keepdims": 0})
    assert node.run(u).tolist() == [2**32 - 2]


@pytest.mark.parametrize("op", ["ReduceSum", "ReduceMax", "ReduceL2"])
@pytest.mark.parametrize("noop", [0, 1])
def test_direct_empty_axes_and_noop(op: str, noop: int) -> None:
    x = make_input(op, (3, 4), F32, 5)
    for axes in ([], None):
        types = [TensorProto.FLOAT] + ([TensorProto.INT64] if axes is not None else [])
        node = Node(op, types, onnx_opset=18, attributes={"noop_with_empty_axes": noop, "keepdims": 0})
        ins = [x] + ([np.array(axes, np.int64)] if axes is not None else [])
        got = node.run_outputs(*ins)[0]
        check(f"{op} axes={axes} noop={noop}", got, want_of(op, x, axes, 0, noop), None)


def test_constant_axes_are_read_once() -> None:
    """A constant axes input is taken at creation: the output shape then needs no input data."""
    node = Node("ReduceSum", [TensorProto.FLOAT, TensorProto.INT64], onnx_opset=18)
    assert lib.om_node_input_shapes_output(node._ptr, 1) == 1
    axes = np.array([0], np.int64)
    shape = ffi.new("int64_t[]", [1])
    err = ffi.new("char[]", 512)
    assert lib.om_node_set_constant_input(node._ptr, 1, ffi.cast("void*", axes.ctypes.data), shape, 1, err,
                                          512) == 0
    assert lib.om_node_input_shapes_output(node._ptr, 1) == 0
    x = make_input("ReduceSum", (3, 4), F32, 1)
    got = node.run(x, axes)
    check("constant axes", got, R.reduce("ReduceSum", x, [0], 1), None)


# ---- errors -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "op,types,opset,attrs,msg",
    [
        ("ReduceSum", [TensorProto.FLOAT], 11, {"keepdims": 2}, "keepdims must be 0 or 1"),
        ("ReduceSum", [TensorProto.FLOAT, TensorProto.INT64], 18, {"noop_with_empty_axes": 3},
         "noop_with_empty_axes must be 0 or 1"),
        ("ReduceMean", [TensorProto.FLOAT], 18, {"axes": [0]}, "attribute axes is not defined from opset 18"),
        ("ReduceSum", [TensorProto.FLOAT], 13, {"axes": [0]}, "attribute axes is not defined from opset 13"),
        ("ReduceMean", [TensorProto.FLOAT, TensorProto.INT64], 13, {},
         "input 1 \\(axes\\) is defined from opset 18"),
        ("ReduceMean", [TensorProto.FLOAT], 13, {"noop_with_empty_axes": 1},
         "noop_with_empty_axes is defined from opset 18"),
        ("ReduceMax", [TensorProto.FLOAT], 13, {"axes": [1, 1, 64]},
         "axis 64 is out of range for every input rank"),
        ("ReduceL2", [TensorProto.INT32], 13, {}, "unsupported element type int32"),
        ("ReduceMax", [TensorProto.BOOL], 20, {}, "unsupported element type bool"),
        ("ReduceSum", [TensorProto.INT8], 13, {}, "unsupported element type int8"),
        ("ReduceMax", [TensorProto.INT8], 11, {}, "int8 needs opset 12"),
        ("ReduceSum", [TensorProto.BFLOAT16], 11, {}, "bfloat16 needs opset 13"),
        ("ReduceSum", [TensorProto.FLOAT, TensorProto.INT32], 13, {},
         "unsupported element type int32 for input 1"),
    ],
)
def test_creation_errors(op: str, types: list[int], opset: int, attrs: dict[str, object], msg: str) -> None:
    with pytest.raises(NodeError, match=msg) as e:
        Node(op, types, onnx_opset=opset, attributes=attrs, name="bad")
    assert "'bad'" in str(e.value) and op in str(e.value)


@pytest.mark.parametrize(
    "axes,msg",
    [([3], "axis 3 is out of range for input 0 of rank 3"), ([-4], "axis -4 is out of range"),
     ([1, -2, 3], "axis 3 is out of range"), ([0, 0, -65], "axis -65 is out of range for every input rank")],
)
def test_run_time_axes_errors(axes: list[int], msg: str) -> None:
    node = Node("ReduceSum", [TensorProto.FLOAT, TensorProto.INT64], onnx_opset=18, name="bad")
    with pytest.raises(NodeError, match=msg) as e:
        node.run_outputs(np.zeros((2, 3, 4), np.float32), np.array(axes, np.int64))
    assert "'bad'" in str(e.value) and "ReduceSum" in str(e.value)


def test_axes_input_must_be_1d() -> None:
    node = Node("ReduceSum", [TensorProto.FLOAT, TensorProto.INT64], onnx_opset=18, name="bad")
    with pytest.raises(NodeError, match="input 1 \\(axes\\) must be 1-D"):
        node.run_outputs(np.zeros((2, 3), np.float32), np.array([[0]], np.int64))


# ---- through ORT: both ways in, threads 1 and 2, the best path and the one-lane path -----------------------

ORT_FLOATS = (F32, F16, F64)


OrtCase = tuple[np.dtype, tuple[int, ...], list[int] | None, int, int | None]


def ort_cases(op: str, form: str) -> list[OrtCase]:
    """(type, shape, axes, keepdims, noop) for one model."""
    out: list[OrtCase] = []
    for t in ORT_FLOATS + int_types(op):
        for i, (shape, axes, keep) in enumerate(SHAPES):
            if shape == () and form != "attr":
                continue
            if t == F32 or i % 4 == 0 or shape in ((70, 600), (600, 70)):
                out.append((t, shape, axes, keep, None))
        if form != "attr":
            for noop in (0, 1):
                out.append((t, (3, 4), [], 1, noop))
                out.append((t, (3, 4), None, 0, noop))
    return out


def ort_model(op: str, form: str, cases: list) -> tuple[onnx.ModelProto, dict[str, np.ndarray], list]:
    """One model with a node per case; the feeds and (want, bound) per output."""
    opset = (11 if op == "ReduceSum" else 13) if form == "attr" else 18
    nodes, inputs, outputs, inits, feeds, wants = [], [], [], [], {}, []
    for k, (t, shape, axes, keep, noop) in enumerate(cases):
        x = make_input(op, shape, t, k)
        xn, yn = f"x{k}", f"y{k}"
        feeds[xn] = x
        inputs.append(helper.make_tensor_value_info(xn, onnx_type(t), list(shape)))
        outputs.append(helper.make_tensor_value_info(yn, onnx_type(t), None))
        attrs: dict[str, object] = {"keepdims": keep}
        if noop is not None:
            attrs["noop_with_empty_axes"] = noop
        names = [xn]
        if form == "attr" and axes is not None:
            attrs["axes"] = axes
        elif form == "const" and axes is not None:
            inits.append(numpy_helper.from_array(np.array(axes, np.int64), f"a{k}"))
            names.append(f"a{k}")
        elif form == "input":
            feeds[f"a{k}"] = np.array(axes if axes is not None else [], np.int64)
            inputs.append(helper.make_tensor_value_info(f"a{k}", TensorProto.INT64, [None]))
            names.append(f"a{k}")
        nodes.append(helper.make_node(op, names, [yn], name=f"r{k}", **attrs))
        # a run-time axes input of None is fed empty: noop_with_empty_axes decides as for absent axes
        want = want_of(op, x, axes, keep, noop or 0)
        wants.append((want, bound_of(op, x, want)))
    graph = helper.make_graph(nodes, "reduce", inputs, outputs, initializer=inits)
    model = helper.make_model(graph, ir_version=9, opset_imports=[helper.make_opsetid("", opset)])
    return model, feeds, wants


def session(model: onnx.ModelProto, via: str, path: str, threads: int) -> onemodel_ep.InferenceSession:
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.log_severity_level = 3
    return onemodel_ep.InferenceSession(model, sess_options=so, mode="exact", kernel_path=path, via=via)


@pytest.mark.parametrize("form", ["attr", "const", "input"])
@pytest.mark.parametrize("op", OPS)
def test_ort_matches_reference_both_ways_threads_paths(op: str, form: str) -> None:
    cases = ort_cases(op, form)
    model, feeds, wants = ort_model(op, form, cases)
    first: list[np.ndarray] | None = None
    for via in VIAS:
        for path in dict.fromkeys([PATHS[0], "scalar"]):
            for threads in (1, 2):
                sess = session(model, via, path, threads)
                assert all(n.moved for n in sess.report.nodes), [str(n) for n in sess.report.stayed]
                got = sess.run(None, feeds)
                where = f"{op} {form} via {via} path {path} threads {threads}"
                for k, (g, (w, b)) in enumerate(zip(got, wants)):
                    check(f"{where} case {cases[k][:4]}", g, w, b)
                if first is None:
                    first = got
                for g, f in zip(got, first):
                    assert g.tobytes() == f.tobytes(), where
    if "ep" in VIAS:  # the EP's other dispatch: each claimed node compiled on its own
        so = ort.SessionOptions()
        so.log_severity_level = 3
        so.intra_op_num_threads = 2
        options = ep.ep_session_options(so, "exact", PATHS[0], "compile")
        sess = ort.InferenceSession(model.SerializeToString(), options, enable_fallback=0)
        got = sess.run(None, feeds)
        for k, (g, f) in enumerate(zip(got, first or [])):
            assert g.tobytes() == f.tobytes(), f"{op} {form} dispatch=compile case {cases[k][:4]}"


def _stock_session(model: onnx.ModelProto) -> ort.InferenceSession | None:
    try:
        return ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    except Exception as e:  # stock ORT has no kernel for every type ONNX allows
        if "NOT_IMPLEMENTED" in str(e) or "Could not find an implementation" in str(e):
            return None
        raise


@pytest.mark.parametrize("form", ["attr", "input"])
@pytest.mark.parametrize("op", OPS)
def test_close_to_stock_ort(op: str, form: str) -> None:
    compared = 0
    for t in ORT_FLOATS + int_types(op):
        cases = [(t, s, a, k, None) for s, a, k in SHAPES[:9] if s != ()]
        model, feeds, _ = ort_model(op, form, cases)
        if t.kind in "iu":  # no wrapping: stock ORT's integer arithmetic is not specified past overflow
            rng = np.random.default_rng(3)
            feeds = {k: (v if k.startswith("a") else rng.integers(0, 4, v.shape).astype(t))
                     for k, v in feeds.items()}
        stock = _stock_session(model)
        if stock is None:
            continue
        want = stock.run(None, feeds)
        got = session(model, "rewrite", PATHS[0], 1).run(None, feeds)
        for (tt, shape, axes, keep, _), g, w in zip(cases, got, want):
            assert g.shape == w.shape and g.dtype == w.dtype, (op, tt, shape, axes, keep)
            if t.kind in "iu":
                assert np.array_equal(g, w), (op, tt, shape, axes, keep)
            else:
                tol = {F16: 4e-3, F32: 2e-6, F64: 1e-13}[t]
                scale = max(1.0, float(np.max(np.abs(w.astype(F64))))) if w.size else 1.0
                np.testing.assert_allclose(g.astype(F64), w.astype(F64), rtol=tol, atol=tol * scale,
                                           err_msg=f"{op} {tt} {shape} axes={axes} keep={keep}")
        compared += 1
    assert compared >= 2, f"{op}: stock ORT ran fewer than two types"


# ---- errors through ORT; what stays with stock ORT --------------------------------------------------------


def _one(op: str, opset: int, axes: list[int] | None, form: str, t: int = TensorProto.FLOAT,
         **attrs: object) -> onnx.ModelProto:
    """A model of one Reduce node 'red' on x[2, 3, 4], its axes in the given form."""
    inputs = [helper.make_tensor_value_info("x", t, [2, 3, 4])]
    names, inits = ["x"], []
    if form == "attr" and axes is not None:
        attrs["axes"] = axes
    elif form == "const" and axes is not None:
        inits.append(numpy_helper.from_array(np.array(axes, np.int64), "axes"))
        names.append("axes")
    elif form == "input":
        inputs.append(helper.make_tensor_value_info("axes", TensorProto.INT64, [None]))
        names.append("axes")
    node = helper.make_node(op, names, ["y"], name="red", **attrs)
    outputs = [helper.make_tensor_value_info("y", t, None)]
    graph = helper.make_graph([node], "g", inputs, outputs, initializer=inits)
    return helper.make_model(graph, ir_version=9, opset_imports=[helper.make_opsetid("", opset)])


@pytest.mark.parametrize("axes", [[3], [0, -3, -4]])
def test_constant_axes_error_at_session_creation(axes: list[int]) -> None:
    """The rank is declared and the axes constant: the rewritten model fails when the session is created."""
    model = _one("ReduceSum", 18, axes, "const")
    with pytest.raises(Exception, match="node 'red' \\(op ReduceSum\\): ax") as e:
        session(model, "rewrite", PATHS[0], 1)
    assert "out of range" in str(e.value)


def test_run_time_axes_error_at_run() -> None:
    x = np.zeros((2, 3, 4), np.float32)
    for via in VIAS:
        sess = session(_one("ReduceMean", 18, None, "input"), via, PATHS[0], 1)
        with pytest.raises(Exception, match="node 'red' \\(op ReduceMean\\): axis 5 is out of range"):
            sess.run(None, {"x": x, "axes": np.array([5], np.int64)})


@pytest.mark.parametrize("op,t,opset,why", [
    ("ReduceL2", TensorProto.INT32, 18, "unsupported element type int32"),
    ("ReduceLogSumExp", TensorProto.INT64, 18, "unsupported element type int64"),
    ("ReduceMax", TensorProto.BOOL, 20, "unsupported element type bool"),
])
def test_unserved_types_stay_with_stock_with_a_reason(op: str, t: int, opset: int, why: str) -> None:
    model = _one(op, opset, [1], "const", t)
    report = onemodel_ep.RewriteReport("exact", None)
    onemodel_ep.rewrite(model, report=report)
    (node,) = report.nodes
    assert not node.moved and node.category == "type" and why in node.reason
    if "ep" in VIAS:
        try:
            sess = session(model, "ep", PATHS[0], 1)
        except Exception as e:  # stock ORT itself may have no kernel for the type either
            assert "NOT_IMPLEMENTED" in str(e) or "implementation" in str(e), e
            return
        (node,) = [n for n in sess.report.nodes if n.op == op]
        assert not node.moved and why in node.reason


@pytest.mark.parametrize("op", ["ReduceMax", "ReduceMin"])
def test_max_min_opset_20_floats_and_int8_are_served(op: str) -> None:
    """Opset 20 only adds bool (which stays with stock ORT); its float and int8 nodes are ours."""
    for t, dtype in ((TensorProto.FLOAT, F32), (TensorProto.INT8, np.dtype(np.int8))):
        model = _one(op, 20, [1], "const", t)
        x = make_input(op, (2, 3, 4), dtype, 9)
        for via in VIAS:
            sess = session(model, via, PATHS[0], 1)
            assert all(n.moved for n in sess.report.nodes), [str(n) for n in sess.report.nodes]
            got = sess.run(None, {"x": x})[0]
            check(f"{op} opset 20 {dtype} via {via}", got, R.reduce(op, x, [1], 1), None)


def test_high_rank_is_coalesced_or_gathered() -> None:
    """Rank 20 with two runs (reduced, kept) is served by coalescing; 18 alternating runs (more than a plan
    takes) by gathering the input into [kept, reduced] order first."""
    x = make_input("ReduceSum", (2,) * 20, F32, 4)
    node = Node("ReduceSum", [TensorProto.FLOAT], onnx_opset=11, attributes={"axes": list(range(10))})
    check("rank 20", node.run(x), R.reduce("ReduceSum", x, list(range(10)), 1), None)
    y = make_input("ReduceSum", (2,) * 18, F32, 5)
    for op in ("ReduceSum", "ReduceMax", "ReduceLogSumExp"):
        node = Node(op, [TensorProto.FLOAT], onnx_opset=11, attributes={"axes": list(range(0, 18, 2))})
        check(f"{op} rank 18 alternating", node.run(y), R.reduce(op, y, list(range(0, 18, 2)), 1), None)
