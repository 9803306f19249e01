"""OneHot (node_one_hot.c, docs/data-movement.md) through the execution provider and the rewrite path against
the contract computed here in NumPy (y = on where an index, as the whole number it is, equals the position
along the new axis, else off; depth truncated; a negative index counted from depth from opset 11, matching
nothing before) and against stock ONNX Runtime where it serves the types, byte for byte: index types integer
and float (fractions, NaN, out of range), depth constant or fed, of an integer or float type, values of every
stored type (bits copied), every axis, zero-size indices and depth 0, rows of several parallel groups on 1 and
2 threads; every kernel path by direct calls. Bad inputs fail with node and op named.
"""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper

import onemodel_ep
from onemodel_ep.node import Node, NodeError
from tests.nodes.case_runs import one_way_matches
from tests.nodes.movement_cases import BF16, STORED, Case, bits, model_of, onnx_type
from tests.nodes.one_node import one_node_model, quiet_session
from tests.nodes.test_movement_ops import _same, _split, _stock

VIAS = ("rewrite", "ep") if onemodel_ep.ep_supported() else ("rewrite",)
INDEX_TYPES = tuple(t for t in STORED if t != np.bool_)
I64_LIMIT = 2.0**63


def index_values(idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each index as int64 and whether it has that value (a float: finite, whole and in int64's range)."""
    if idx.dtype.kind == "f" or idx.dtype == BF16:
        f = idx.astype(np.float64)
        with np.errstate(invalid="ignore"):
            ok = np.isfinite(f) & (f >= -I64_LIMIT) & (f < I64_LIMIT)
            ok &= np.where(ok, f, 0) == np.trunc(np.where(ok, f, 0))
        return np.where(ok, f, 0).astype(np.int64), ok
    if idx.dtype == np.uint64:
        ok = idx <= np.iinfo(np.int64).max
        return np.where(ok, idx, 0).astype(np.int64), ok
    return idx.astype(np.int64), np.ones(idx.shape, bool)


def depth_value(depth: np.ndarray) -> int:
    d = depth.reshape(-1)[0]
    return int(np.trunc(d.astype(np.float64))) if depth.dtype.kind == "f" or depth.dtype == BF16 else int(d)


def one_hot_want(idx: np.ndarray, depth: int, values: np.ndarray, axis: int, opset: int) -> np.ndarray:
    v, ok = index_values(idx)
    if opset >= 11:
        v = np.where(v < 0, v + depth, v)
    r = idx.ndim
    ax = axis + r + 1 if axis < 0 else axis
    hit = ok[..., None] & (v[..., None] == np.arange(depth, dtype=np.int64))
    hit = np.moveaxis(hit, -1, ax)
    u = values.view(f"u{values.dtype.itemsize}")
    return np.where(hit, u[1], u[0]).astype(u.dtype).view(values.dtype)


def indices(shape: tuple[int, ...], t: np.dtype, depth: int, seed: int) -> np.ndarray:
    """Indices in [-depth - 2, depth + 2) (unsigned: [0, depth + 2)), a fraction or NaN here and there."""
    rng = np.random.default_rng(seed)
    lo = 0 if t.kind == "u" else -depth - 2
    x = rng.integers(lo, depth + 2, shape).astype(np.float64)
    if t.kind == "f" or t == BF16:
        frac = rng.random(shape) < 0.1
        x = np.where(frac, x + 0.5, x)
        x = np.where(rng.random(shape) < 0.05, np.nan, x)
    return x.astype(t)


# (indices shape, depth, axis (None: attribute absent), depth type, depth const, opset)
BASE: list[tuple[tuple[int, ...], float, int | None, np.dtype, bool, int]] = [
    ((5,), 4, None, np.dtype(np.int64), True, 11),
    ((3, 4), 6, 0, np.dtype(np.int64), False, 11),
    ((2, 3, 4), 5, 1, np.dtype(np.float32), True, 11),
    ((2, 3), 3.9, -2, np.dtype(np.float32), False, 11),
    ((4, 2), 7, -3, np.dtype(np.int32), True, 9),
    ((0, 3), 4, 1, np.dtype(np.int64), False, 11),
    ((3, 2), 0, None, np.dtype(np.int64), True, 11),
    ((700, 300), 9, 1, np.dtype(np.int64), True, 11),
    ((40, 50), 200, -1, np.dtype(np.uint8), False, 9),
]


def one_hot_cases() -> list[Case]:
    out = []
    for i, (shape, depth, axis, dt, dconst, opset) in enumerate(BASE):
        for j in range(2 if i else len(STORED)):
            it = INDEX_TYPES[(3 * i + j) % len(INDEX_TYPES)]
            vt = STORED[j] if i == 0 else STORED[(5 * i + 7 * j) % len(STORED)]
            d = int(depth)
            idx = indices(shape, it, d, 31 * i + j)
            vals = bits((2,), vt, 97 * i + j)
            attrs = {} if axis is None else {"axis": axis}
            darr = np.array(depth, dt).reshape((1,) if (i + j) % 3 == 2 else ())
            want = one_hot_want(idx, depth_value(darr), vals, -1 if axis is None else axis, opset)
            const = [False, dconst, (i + j) % 2 == 0]
            out.append(Case("OneHot", opset, [idx, darr, vals], const, attrs, [want]))
    return out


# (indices, depth, values) types stock ORT 1.31.1 has a OneHot kernel for
STOCK_TYPES = [(np.int64, np.int64, np.int64), (np.int64, np.int64, np.float32),
               (np.int32, np.float32, np.float32), (np.float32, np.int64, np.int64),
               (np.float32, np.float32, np.float32), (np.int64, np.float32, np.int32)]


def stock_type_cases() -> list[Case]:
    out = []
    for k, (it, dt, vt) in enumerate(STOCK_TYPES):
        idx = indices((6, 7), np.dtype(it), 5, 500 + k)
        vals = bits((2,), np.dtype(vt), 600 + k)
        depth = np.array(5.5 if np.dtype(dt).kind == "f" else 5, dt)
        out.append(Case("OneHot", 11, [idx, depth, vals], [False, k % 2 == 0, False], {"axis": k % 3 - 1},
                        [one_hot_want(idx, 5, vals, k % 3 - 1, 11)]))
    return out


def test_one_hot_contract_is_stock_orts_where_stock_serves_the_types() -> None:
    compared = 0
    for c in _split(one_hot_cases())[0] + stock_type_cases():
        if c.opset < 11 or depth_value(c.inputs[1]) == 0:  # stock differs (docs)
            continue
        model, feeds = model_of([c], c.opset)
        try:
            got = _stock(model, feeds)[0]
        except Exception as e:  # noqa: BLE001 - a type combination stock ORT has no OneHot kernel for
            assert "NOT_IMPLEMENTED" in str(e) or "Could not find an implementation" in str(e), str(e)
            continue
        _same(f"stock ORT vs the contract: {c.label()}", got, c.want[0])
        compared += 1
    assert compared >= len(STOCK_TYPES), compared


def test_one_hot_stock_differs_only_where_the_docs_say() -> None:
    """Stock ORT counts OneHot-9's negative indices from depth (ONNX: they match nothing)."""
    idx, vals = np.array([0, -1, 3, 5], np.int64), np.array([0, 1], np.float32)
    c9 = Case("OneHot", 9, [idx, np.array(4, np.int64), vals], [False, True, True], {},
              [one_hot_want(idx, 4, vals, -1, 9)])
    stock = _stock(*model_of([c9], 9))[0]
    assert stock[1, 3] == 1 and c9.want[0][1, 3] == 0
    assert np.array_equal(np.delete(stock, 1, 0), np.delete(c9.want[0], 1, 0))


@pytest.mark.parametrize("via", VIAS)
@pytest.mark.parametrize("threads", (1, 2))
def test_one_hot_ep_and_rewrite_match_contract(via: str, threads: int) -> None:
    for opset in (9, 11):
        one_way_matches([c for c in one_hot_cases() if c.opset == opset], opset, via, threads)


def test_one_hot_direct_every_type_and_path() -> None:
    for c in one_hot_cases():
        types = [onnx_type(x.dtype) for x in c.inputs if x is not None]
        for path in onemodel_ep.kernel_paths():
            node = Node("OneHot", types, onnx_opset=c.opset, attributes=c.attrs, kernel_path=path, name="m")
            _same(f"{c.label()} path {path}", node.run_outputs(*c.inputs)[0], c.want[0])


def test_one_hot_case_types_cover_the_stored_types() -> None:
    cases = one_hot_cases()
    assert {c.inputs[2].dtype for c in cases} == set(STORED)
    assert {c.inputs[0].dtype for c in cases} >= {np.dtype(np.int64), np.dtype(np.float32), BF16}


I64, F32 = TensorProto.INT64, TensorProto.FLOAT
IDX = np.array([0, 2], np.int64)
VALS = np.array([0, 1], np.float32)


@pytest.mark.parametrize(
    "depth,values,msg",
    [
        (np.array([3, 4], np.int64), VALS, "input 1 \\(depth\\) has 2 elements, must have one"),
        (np.array(-1, np.int64), VALS, "input 1 \\(depth\\) is not a whole number in \\[0, 2\\^62\\)"),
        (np.zeros((1, 1), np.int64), VALS, "input 1 \\(depth\\) must be a scalar or 1-D"),
        (np.array(3, np.int64), np.zeros(3, np.float32), "input 2 \\(values\\) must have shape \\[2\\]"),
        (np.array(3, np.int64), None, "input 0 \\(indices\\) has rank 0; OneHot needs rank 1 or more"),
    ],
)
def test_one_hot_run_errors(depth: np.ndarray, values: np.ndarray | None, msg: str) -> None:
    node = Node("OneHot", [I64, I64, F32], onnx_opset=11, name="bad")
    with pytest.raises(NodeError, match=msg) as e:
        node.run_outputs(IDX if values is not None else IDX[0], depth, VALS if values is None else values)
    assert "'bad'" in str(e.value) and "OneHot" in str(e.value)


def test_one_hot_nan_depth_is_an_error() -> None:
    node = Node("OneHot", [I64, F32, F32], onnx_opset=11, name="bad")
    with pytest.raises(NodeError, match="'bad'.*OneHot.*depth"):
        node.run_outputs(IDX, np.array(np.nan, np.float32), VALS)


@pytest.mark.parametrize(
    "types,opset,msg",
    [
        ([I64, I64, F32], 8, "opset"),
        ([TensorProto.BOOL, I64, F32], 11, "type"),
        ([I64, TensorProto.BOOL, F32], 11, "input 1 \\(depth\\) has element type bool"),
        ([I64, I64, TensorProto.STRING], 11, "type"),
        ([I64, I64], 11, "input"),
    ],
)
def test_one_hot_creation_errors(types: list[int], opset: int, msg: str) -> None:
    with pytest.raises(NodeError, match=msg) as e:
        Node("OneHot", types, onnx_opset=opset, name="bad")
    assert "'bad'" in str(e.value) and "OneHot" in str(e.value)


@pytest.mark.parametrize("via", VIAS)
def test_one_hot_axis_out_of_range_is_refused_at_creation(via: str) -> None:
    ins = [helper.make_tensor_value_info("i", I64, [2, 3]), helper.make_tensor_value_info("v", F32, [2])]
    depth = helper.make_tensor("d", I64, [], [4])
    y = helper.make_tensor_value_info("y", F32, None)
    node = helper.make_node("OneHot", ["i", "d", "v"], ["y"], name="far", axis=3)
    model = one_node_model(node, ins, [y], 11, [depth])
    with pytest.raises(Exception, match="far.*OneHot.*axis"):
        sess = quiet_session(model, via)
        sess.run(None, {"i": np.zeros((2, 3), np.int64), "v": VALS})
