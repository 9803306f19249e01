"""Range (node_range.c) and Size (node_shape.c) through the execution provider and the rewrite path
against stock ONNX Runtime, byte for byte, and against the arithmetic node_range.c documents, computed here
in NumPy: an exact integer count and start + i * delta for int32 and int64; for float and double the count
ceil((double)(limit - start) / delta) with the difference rounded to the element type, and the running sum
y[i + 1] = y[i] + delta in the element type. Every type, inputs as initializers, fed at run time and mixed,
shape [1] inputs (direct calls: stock ORT's kernel takes them, ONNX's shape inference does not), empty
ranges, 1 and 2 threads; at the integer extremes, and where stock ORT's double quotient rounds (int64 spans
above 2^53), the exact ONNX definition; bad inputs give errors naming node and op. Size: every stored type
at every opset where ONNX redefined it, ranks 0 to 3, zero-size dimensions, input fed or an initializer.
Tile: every stored type at opsets 6 and 13 against np.tile, repeats fed or an initializer, zero repeats and
zero-size inputs, rank 0, an output of more than one parallel chunk on 1 and 2 threads.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import onnx
import onnxruntime as ort
import pytest

import onemodel_ep
from onemodel_ep import ep
from onemodel_ep.node import Node, NodeError
from tests.nodes.movement_cases import Case, bits, model_of, onnx_type, types_at
from tests.nodes.test_movement_ops import _ours, _same, _split, _stock

VIAS = ("rewrite", "ep") if onemodel_ep.ep_supported() else ("rewrite",)
TYPES = (np.dtype(np.int32), np.dtype(np.int64), np.dtype(np.float32), np.dtype(np.float64))

# (start, limit, delta) of every type
COMMON = [(3, 9, 3), (10, 4, -2), (5, 5, 1), (5, 1, 1), (1, 5, -1), (-7, 1000, 3), (0, 1, 7),
          (1000, -1000, -7)]
# of the float types: running sums that round, a sum that stalls (1e8 + 1 == 1e8 in float), signed zeros,
# subnormals, a count on a rounding boundary
FLOAT = [(0.1, 1.0, 0.1), (-7.25, 101.5, 0.1), (1.0, 1.5, 0.0001), (1e8, 1e8 + 10, 1.0), (-0.0, 3.0, 1.0),
         (0.5, -2.5, -0.75), (0.0, 5e-44, 1e-45), (2.5, 2.4, 0.1), (0.0, 1.0, 1.0 / 3.0),
         (-1e-30, 1e-30, 1e-31)]


def range_want(start: np.ndarray, limit: np.ndarray, delta: np.ndarray) -> np.ndarray:
    """Range as node_range.c documents it."""
    dt = start.dtype
    s, lim, d = start.reshape(()).item(), limit.reshape(()).item(), delta.reshape(()).item()
    if dt.kind == "i":
        n = max(-((s - lim) // d), 0)  # ceil((limit - start) / delta), exact
        return np.array([s + i * d for i in range(n)], dtype=object).astype(dt).reshape(n)
    span = dt.type(lim) - dt.type(s)  # rounded to the element type
    n = max(math.ceil(float(span) / float(d)), 0)
    out = np.empty(n, dt)
    y = dt.type(s)
    for i in range(n):
        out[i] = y
        y = dt.type(y + dt.type(d))
    return out


def _scalars(dt: np.dtype, values: tuple[float, ...], shape: tuple[int, ...] = ()) -> list[np.ndarray]:
    return [np.array(v, dtype=dt).reshape(shape) for v in values]


def range_cases(shape1: bool = False) -> list[Case]:
    """Each (type, values) once with its inputs fed, as initializers, or mixed (in turn); shape1: every fifth
    case's inputs of shape [1] (stock ORT's kernel takes them, ONNX's shape inference does not)."""
    consts = ([False] * 3, [True] * 3, [False, True, False], [True, False, True])
    cases = []
    k = 0
    for dt in TYPES:
        for values in COMMON + (FLOAT if dt.kind == "f" else []):
            shape = (1,) if shape1 and k % 5 == 4 else ()
            x = _scalars(dt, values, shape)
            cases.append(Case("Range", 11, list(x), consts[k % 4], {}, [range_want(*x)]))
            k += 1
    return cases


def test_range_documented_arithmetic_is_stock_orts() -> None:
    cases = range_cases()
    model, feeds = model_of(cases, 11)
    for c, s in zip(cases, _stock(model, feeds)):
        _same(f"stock ORT vs the documented arithmetic: {c.label()}", s, c.want[0])


@pytest.mark.parametrize("via", VIAS)
@pytest.mark.parametrize("threads", (1, 2))
def test_range_ep_and_rewrite_match_stock_bit_for_bit(via: str, threads: int) -> None:
    cases = range_cases()
    model, feeds = model_of(cases, 11)
    stock = _stock(model, feeds)
    sess = _ours(model, via, threads)
    stayed = [str(n) for n in sess.report.nodes if not n.moved]
    assert not stayed, stayed
    for c, g, s in zip(cases, sess.run(None, feeds), stock):
        _same(f"{via} threads {threads}: {c.label()}", g, s)


def direct_every_path(cases: list[Case]) -> None:
    """Each case called directly (no ORT) on every kernel path against its expected output."""
    for c in cases:
        types = [onnx_type(x.dtype) for x in c.inputs if x is not None]
        for path in onemodel_ep.kernel_paths():
            node = Node(c.op, types, onnx_opset=c.opset, kernel_path=path, name="n")
            _same(f"{c.label()} path {path}", node.run_outputs(*c.inputs)[0], c.want[0])


def test_range_direct_every_path() -> None:
    direct_every_path(range_cases(shape1=True))


@pytest.mark.skipif("ep" not in VIAS, reason="ORT without plugin execution providers")
def test_range_compiled_dispatch_matches() -> None:
    cases = range_cases()
    model, feeds = model_of(cases, 11)
    so = ort.SessionOptions()
    so.log_severity_level = 3
    options = ep.ep_session_options(so, "exact", None, "compile")
    got = ort.InferenceSession(model.SerializeToString(), options, enable_fallback=0).run(None, feeds)
    for g, c in zip(got, cases):
        _same(f"dispatch=compile: {c.label()}", g, c.want[0])


I32_MIN, I32_MAX = -(2**31), 2**31 - 1
# Spans of 2^31 or more (int32) and 2^63 or more (int64), where limit - start does not fit the type, and one
# where stock ORT's double quotient rounds (2^60 + 1: it gives 4 elements): the ONNX definition, exactly.
OVERFLOW = [
    (np.int32, (I32_MIN, I32_MAX, 2**30), [I32_MIN, -(2**30), 0, 2**30]),
    (np.int32, (I32_MAX, I32_MIN, -(2**31)), [I32_MAX, -1]),
    (np.int64, (0, 2**60 + 1, 2**58), [0, 2**58, 2**59, 3 * 2**58, 2**60]),
    (np.int64, (-(2**63), 2**63 - 1, 2**62), [-(2**63), -(2**62), 0, 2**62]),
    (np.int64, (2**63 - 1, -(2**63), -(2**63)), [2**63 - 1, -1]),
]


@pytest.mark.parametrize("via", VIAS)
def test_range_exact_where_stock_overflows(via: str) -> None:
    cases = [Case("Range", 11, _scalars(np.dtype(dt), v), [False, True, False], {}, [np.array(w, dt)])
             for dt, v, w in OVERFLOW]
    for c in cases:
        _same(f"documented arithmetic: {c.label()}", range_want(*c.inputs), c.want[0])
        _same(f"direct: {c.label()}", Node("Range", [onnx_type(c.inputs[0].dtype)] * 3,
                                            onnx_opset=11).run_outputs(*c.inputs)[0], c.want[0])
    model, feeds = model_of(cases, 11)
    for c, g in zip(cases, _ours(model, via, 1).run(None, feeds)):
        _same(f"{via}: {c.label()}", g, c.want[0])


F32, F64, I32, I64 = (onnx.TensorProto.FLOAT, onnx.TensorProto.DOUBLE, onnx.TensorProto.INT32,
                      onnx.TensorProto.INT64)


@pytest.mark.parametrize(
    "types,msg",
    [
        ([F32, F32, F64], "type"),
        ([I64, I64], "input"),
        ([onnx.TensorProto.INT16] * 3, "unsupported element type int16"),
        ([onnx.TensorProto.FLOAT16] * 3, "unsupported element type float16"),
    ],
)
def test_range_creation_errors(types: list[int], msg: str) -> None:
    with pytest.raises(NodeError, match=msg) as e:
        Node("Range", types, onnx_opset=11, name="bad")
    assert "'bad'" in str(e.value) and "Range" in str(e.value)


@pytest.mark.parametrize(
    "dt,values,shape0,msg",
    [
        (np.int32, (0, 5, 0), (), "input 2 \\(delta\\) is 0"),
        (np.int64, (0, 5, 0), (), "input 2 \\(delta\\) is 0"),
        (np.float32, (0, 5, -0.0), (), "input 2 \\(delta\\) is 0"),
        (np.float64, (0, 5, 0), (), "input 2 \\(delta\\) is 0"),
        (np.float32, (np.nan, 5, 1), (), "is NaN"),
        (np.float64, (0, np.inf, 1), (), "is infinite"),
        (np.float32, (3e38, -3e38, -1e-38), (), "is infinite"),
        (np.float64, (0, 1e30, 1e-30), (), "2\\^60 elements or more"),
        (np.int64, (0, 2**62, 1), (), "2\\^60 elements or more"),
        (np.int64, (-(2**63), 2**63 - 1, 1), (), "2\\^60 elements or more"),
        (np.float32, (0, 5, 1), (2,), "input 0 \\(start\\) must be a scalar .* shape \\[2\\]"),
        (np.int64, (0, 5, 1), (1, 1), "input 0 \\(start\\) must be a scalar .* rank 2"),
        (np.int32, (0, 5, 1), (0,), "input 0 \\(start\\) must be a scalar .* shape \\[0\\]"),
    ],
)
def test_range_run_errors(dt: type, values: tuple[float, ...], shape0: tuple[int, ...], msg: str) -> None:
    x = _scalars(np.dtype(dt), values)
    x[0] = np.resize(x[0], shape0)
    node = Node("Range", [onnx_type(np.dtype(dt))] * 3, onnx_opset=11, name="bad")
    with pytest.raises(NodeError, match=msg) as e:
        node.run_outputs(*x)
    assert "'bad'" in str(e.value) and "Range" in str(e.value)


def _range_model(const: list[bool], values: tuple[float, ...], dims: list[int] | None = None) -> tuple[
        onnx.ModelProto, dict[str, np.ndarray]]:
    c = Case("Range", 11, _scalars(np.dtype(np.float32), values), const, {}, [np.zeros(0, np.float32)])
    model, feeds = model_of([c], 11)
    if dims is not None:  # declare input 0 with these dims
        model.graph.input[0].type.tensor_type.shape.Clear()
        for d in dims:
            model.graph.input[0].type.tensor_type.shape.dim.add().dim_value = d
    return model, feeds


@pytest.mark.parametrize("via", VIAS)
def test_range_run_error_through_ort_names_node_and_op(via: str) -> None:
    model, feeds = _range_model([True, True, False], (0, 5, 0))
    sess = _ours(model, via, 1)
    assert all(n.moved for n in sess.report.nodes), [str(n) for n in sess.report.nodes]
    with pytest.raises(Exception, match="node 'n0' \\(op Range\\): input 2 \\(delta\\) is 0"):
        sess.run(None, feeds)


@pytest.mark.parametrize("via", VIAS)
@pytest.mark.parametrize(
    "const,values,dims,msg",
    [
        ([True, True, True], (0, 5, 0), None, "input 2 \\(delta\\) is 0"),
        ([False, True, True], (0, 5, 1), [2, 2], "input 0 \\(start\\) must be a scalar, it has rank 2"),
    ],
)
def test_range_creation_errors_through_ort(via: str, const: list[bool], values: tuple[float, ...],
                                          dims: list[int] | None, msg: str) -> None:
    """A constant delta of 0, or an input declared of rank 2: an error at session creation naming node, op
    and problem."""
    model, _ = _range_model(const, values, dims)
    with pytest.raises(Exception, match=f"node 'n0' \\(op Range\\): {msg}"):
        _ours(model, via, 1)


# ---- Size --------------------------------------------------------------------------------------------------
SIZE_OPSETS = (1, 13, 19, 21)
# Stock ORT cannot run an opset-1 model of a float16 Size (the Cast it inserts has opset 1's string `to`):
# the comparison with it takes opset 6 for the first form.
SIZE_ORT_OPSETS = (6, 13, 19, 21)
SIZE_SHAPES = ((), (0,), (7,), (3, 4, 5), (2, 0, 3), (1, 1, 1))


def size_cases(opset: int) -> list[Case]:
    cases = []
    for k, dt in enumerate(types_at("Size", opset)):
        for j, shape in enumerate(SIZE_SHAPES):
            x = bits(shape, dt, 100 * k + j)
            cases.append(Case("Size", opset, [x], [(k + j) % 3 == 0], {}, [np.array(x.size, np.int64)]))
    return cases


def stock_and_ours_match(cases: list[Case], opset: int, threads: tuple[int, ...],
                         stock_want: Callable[[Case], np.ndarray]) -> None:
    """The cases as one model: stock ORT's outputs equal stock_want(case), and ours, through each of VIAS on
    each thread count, every case's want, bit for bit, with no node left to stock ORT."""
    model, feeds = model_of(cases, opset)
    for c, s in zip(cases, _stock(model, feeds)):
        _same(f"stock ORT vs reference: {c.label()}", s, stock_want(c))
    for via in VIAS:
        for n in threads:
            sess = _ours(model, via, n)
            stayed = [str(node) for node in sess.report.nodes if not node.moved]
            assert not stayed, stayed
            for c, g in zip(cases, sess.run(None, feeds)):
                _same(f"{via} threads {n}: {c.label()}", g, c.want[0])


@pytest.mark.parametrize("opset", SIZE_ORT_OPSETS)
def test_size_ep_and_rewrite_match_stock(opset: int) -> None:
    stock_and_ours_match(_split(size_cases(opset))[0], opset, (1,), lambda c: c.want[0])


@pytest.mark.parametrize("opset", SIZE_OPSETS)
def test_size_direct_every_type(opset: int) -> None:
    """bfloat16 included (from opset 13)."""
    direct_every_path(size_cases(opset))


def test_size_errors() -> None:
    for t, opset, msg in ((onnx.TensorProto.BFLOAT16, 12, "bfloat16 needs opset 13"),
                          (onnx.TensorProto.STRING, 13, "unsupported element type string")):
        with pytest.raises(NodeError, match=msg) as e:
            Node("Size", [t], onnx_opset=opset, name="bad")
        assert "'bad'" in str(e.value) and "Size" in str(e.value)


# ---- Tile --------------------------------------------------------------------------------------------------
TILE_OPSETS = (6, 13)
TILE_BASE = [((3, 4), [2, 3]), ((), []), ((0, 3), [2, 2]), ((3, 4), [0, 1]), ((1, 5, 1), [3, 1, 4]),
             ((2, 3, 4), [1, 1, 1]), ((2, 1, 3, 1, 2), [2, 3, 1, 2, 2])]


def tile_cases(opset: int) -> list[Case]:
    cases = []
    for k, dt in enumerate(types_at("Tile", opset)):
        base = TILE_BASE + ([((257, 300), [1, 2]), ((7, 1), [9999, 3])] if k < 2 else [])
        for j, (shape, reps) in enumerate(base):
            x = bits(shape, dt, 1000 + 100 * k + j)
            r = np.array(reps, np.int64)
            cases.append(Case("Tile", opset, [x, r], [False, (k + j) % 2 == 0], {}, [np.tile(x, reps)]))
    return cases


def quiet16(x: np.ndarray) -> np.ndarray:
    """x with the quiet bit set in its signalling float16 NaNs (other types as they are)."""
    if x.dtype != np.float16:
        return x
    v = x.view(np.uint16)
    snan = ((v & 0x7C00) == 0x7C00) & ((v & 0x03FF) != 0) & ((v & 0x0200) == 0)
    return np.where(snan, v | 0x0200, v).astype(np.uint16).view(np.float16)


@pytest.mark.parametrize("opset", TILE_OPSETS)
def test_tile_ep_and_rewrite_match_stock_bit_for_bit(opset: int) -> None:
    """Stock ORT has no float16 Tile kernel: the Casts it puts around its float one quiet signalling NaNs.
    We copy every bit (as np.tile); stock ORT matches that up to the quiet bit of float16 signalling NaNs."""
    stock_and_ours_match(_split(tile_cases(opset))[0], opset, (1, 2), lambda c: quiet16(c.want[0]))


@pytest.mark.parametrize("opset", TILE_OPSETS)
def test_tile_direct_every_type_and_path(opset: int) -> None:
    """bfloat16 included (from opset 13)."""
    direct_every_path(tile_cases(opset))


@pytest.mark.parametrize(
    "shape,reps,msg",
    [
        ((3, 4), np.array([2, -1], np.int64), "repeats\\[1\\] is -1, negative"),
        ((3, 4), np.array([2], np.int64), "input 1 \\(repeats\\) has 1 entries, input 0 has rank 2"),
        ((3, 4), np.array([[2, 1]], np.int64), "input 1 \\(repeats\\) must be 1-D"),
        ((3, 4), np.array([2**62, 1], np.int64), "dimension 0 of the output .* does not fit 64 bits"),
    ],
)
def test_tile_run_errors(shape: tuple[int, ...], reps: np.ndarray, msg: str) -> None:
    node = Node("Tile", [F32, I64], onnx_opset=13, name="bad")
    with pytest.raises(NodeError, match=msg) as e:
        node.run_outputs(np.zeros(shape, np.float32), reps)
    assert "'bad'" in str(e.value) and "Tile" in str(e.value)


def test_tile_creation_errors() -> None:
    for types, opset, msg in (([onnx.TensorProto.BFLOAT16, I64], 12, "bfloat16 needs opset 13"),
                              ([F32, I32], 13, "unsupported element type int32 for input 1")):
        with pytest.raises(NodeError, match=msg) as e:
            Node("Tile", types, onnx_opset=opset, name="bad")
        assert "'bad'" in str(e.value) and "Tile" in str(e.value)
