"""GatherElements and GatherND (node_gather_elements.c, node_gather_nd.c, docs/data-movement.md) through the
execution provider and the rewrite path against the contract computed here in NumPy and against stock ONNX
Runtime and onnx.reference where they serve the type, byte for byte: every stored type, int32 and int64
indices (GatherElements), negative indices and the ends of each range, every axis, batch_dims, indices as
initializers and fed at run time, zero-size inputs, outputs of more than one parallel chunk on 1 and 2
threads; every kernel path by direct calls. An index out of range fails the run naming node and op, through
every way in; bad shapes and attributes fail with node and op named.
"""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper

import onemodel_ep
from onemodel_ep.node import Node, NodeError
from tests.nodes.case_runs import compiled_dispatch_matches, direct_every_path_matches, every_way_matches
from tests.nodes.movement_cases import BF16, STORED, Case, bits
from tests.nodes.one_node import one_node_model, quiet_session
from tests.nodes.test_movement_depth_space import reference_and_stock_match
from tests.nodes.test_movement_ops import _same

VIAS = ("rewrite", "ep") if onemodel_ep.ep_supported() else ("rewrite",)


def gather_elements(x: np.ndarray, idx: np.ndarray, axis: int) -> np.ndarray:
    axis %= x.ndim
    cut = tuple(slice(None) if d == axis else slice(0, s) for d, s in enumerate(idx.shape))
    v = idx.astype(np.int64)
    return np.take_along_axis(x[cut], np.where(v < 0, v + x.shape[axis], v), axis)


def gather_nd(x: np.ndarray, idx: np.ndarray, b: int) -> np.ndarray:
    k = idx.shape[-1]
    out = np.empty(idx.shape[:-1] + x.shape[b + k :], x.dtype)
    for pos in np.ndindex(*idx.shape[:-1]):
        t = tuple(int(v) + (x.shape[b + m] if v < 0 else 0) for m, v in enumerate(idx[pos]))
        out[pos] = x[pos[:b] + t]
    return out


def _indices(rng: np.random.Generator, shape: tuple[int, ...], size: int, dtype: type) -> np.ndarray:
    """Random indices in [-size, size - 1], the two ends included where there is room."""
    v = rng.integers(-size, size, shape) if size else np.zeros(shape, np.int64)
    flat = v.reshape(-1)
    if flat.size >= 2 and size:
        flat[0], flat[-1] = -size, size - 1
    return v.astype(dtype)


# (data shape, indices shape, axis (None: no attribute))
GE_BASE = [
    ((3, 4), (3, 4), None),
    ((5, 7), (2, 9), 1),
    ((2, 3, 4), (2, 3, 6), -1),
    ((4, 3, 5), (7, 2, 5), 0),
    ((2, 5, 3), (1, 4, 2), -2),
    ((6,), (10,), 0),
    ((3, 0), (3, 0), 1),
    ((0, 3), (0, 5), 1),
    ((3, 4), (0, 4), 0),
    ((1, 128, 768), (1, 128, 300), 2),
    ((1, 300, 300), (1, 40, 300), 1),
]
# (data shape, indices shape (the last: k), batch_dims (None: no attribute))
ND_BASE = [
    ((3, 4), (2, 2), None),
    ((3, 4, 5), (6, 1), 0),
    ((2, 3, 4), (2, 5, 2), 1),
    ((2, 3, 4, 5), (2, 3, 1), 2),
    ((4, 5), (2, 3, 2), None),
    ((2, 6, 3), (2, 2), 1),
    ((3, 0, 2), (4, 1), None),
    ((3, 4), (0, 2), None),
    ((1, 128, 768), (1, 64, 1), 1),
    ((300, 200), (4000, 2), None),
]


def _types(i: int, opset: int) -> tuple[np.dtype, ...]:
    types = tuple(t for t in STORED if t != BF16 or opset >= 13)
    return types if i < 2 else (types[(i * 5) % len(types)], types[(i * 5 + 3) % len(types)])


def gather_elements_cases(opset: int) -> list[Case]:
    out = []
    for i, (xs, ishape, axis) in enumerate(GE_BASE):
        for j, t in enumerate(_types(i, opset)):
            rng = np.random.default_rng(100 * i + j)
            x = bits(xs, t, 17 * i + j)
            a = 0 if axis is None else axis
            idx = _indices(rng, ishape, xs[a], np.int32 if (i + j) % 2 else np.int64)
            attrs = {} if axis is None else {"axis": axis}
            want = gather_elements(x, idx, a)
            out.append(Case("GatherElements", opset, [x, idx], [False, (i + j) % 3 == 0], attrs, [want]))
    return out


def gather_nd_cases(opset: int) -> list[Case]:
    out = []
    for i, (xs, ishape, b) in enumerate(ND_BASE):
        if b is not None and opset < 12:
            continue
        for j, t in enumerate(_types(i, opset)):
            rng = np.random.default_rng(200 * i + j)
            x = bits(xs, t, 19 * i + j)
            bd = b or 0
            k = ishape[-1]
            cols = [_indices(rng, ishape[:-1] + (1,), xs[bd + m], np.int64) for m in range(k)]
            idx = np.concatenate(cols, axis=-1) if cols else np.zeros(ishape, np.int64)
            attrs = {} if b is None else {"batch_dims": b}
            out.append(
                Case("GatherND", opset, [x, idx], [False, (i + j) % 3 == 0], attrs, [gather_nd(x, idx, bd)])
            )
    return out


CASES = {"GatherElements": gather_elements_cases, "GatherND": gather_nd_cases}
PARAMS = [
    ("GatherElements", 11),
    ("GatherElements", 13),
    ("GatherND", 11),
    ("GatherND", 12),
    ("GatherND", 13),
]


@pytest.mark.parametrize("op,opset", PARAMS)
def test_contract_is_stock_orts_and_onnx_reference(op: str, opset: int) -> None:
    reference_and_stock_match(CASES[op](opset), opset, _reference_serves)


def _reference_serves(c: Case) -> bool:
    """onnx.reference's GatherElements wants indices of data's size in every dimension but the axis (ONNX and
    stock ORT allow fewer), an axis of 0 or more (it slices shapes at axis + 1) and at most 64 along it
    (np.choose)."""
    if c.op != "GatherElements":
        return True
    x, idx = c.inputs[0], c.inputs[1]
    assert x is not None and idx is not None
    axis = int(c.attrs.get("axis", 0))  # type: ignore[call-overload]
    return (
        0 <= axis
        and x.shape[axis] <= 64
        and all(d == axis or x.shape[d] == idx.shape[d] for d in range(x.ndim))
    )


@pytest.mark.parametrize("op,opset", PARAMS)
def test_ep_and_rewrite_match_contract(op: str, opset: int) -> None:
    every_way_matches(CASES[op](opset), opset)


@pytest.mark.parametrize("op,opset", PARAMS)
def test_direct_every_type_and_path(op: str, opset: int) -> None:
    direct_every_path_matches(CASES[op](opset))


@pytest.mark.skipif("ep" not in VIAS, reason="ORT without plugin execution providers")
@pytest.mark.parametrize("op", list(CASES))
def test_compiled_dispatch_matches(op: str) -> None:
    compiled_dispatch_matches(CASES[op](13), 13)


def test_cases_cover_the_stored_types() -> None:
    for op, cases in CASES.items():
        assert {c.inputs[0].dtype for c in cases(13)} == set(STORED), op


F32, I32, I64 = TensorProto.FLOAT, TensorProto.INT32, TensorProto.INT64


@pytest.mark.parametrize(
    "op,itype,x,idx,attrs,msg",
    [
        (
            "GatherElements",
            np.int64,
            (3, 4),
            [[0, 4]],
            {"axis": 1},
            "index 4 \\(element 1 of input 1\\) is out of range for axis 1 of size 4 \\(allowed: -4 to 3\\)",
        ),
        (
            "GatherElements",
            np.int32,
            (3, 4),
            [[-3], [-4]],
            {},
            "index -4 \\(element 1 of input 1\\) is out of range for axis 0 of size 3",
        ),
        ("GatherElements", np.int64, (0, 4), [[0]], {}, "index 0 .* of size 0"),
        (
            "GatherElements",
            np.int64,
            (3, 4),
            [0, 1],
            {},
            "input 1 \\(indices\\) has rank 1, input 0 \\(data\\) rank 2",
        ),
        (
            "GatherElements",
            np.int64,
            (3, 4),
            [[0] * 5],
            {},
            "has 5 along dimension 1, more than input 0 \\(data\\)'s 4",
        ),
        ("GatherElements", np.int64, (3, 4), [[0]], {"axis": 2}, "axis 2 is out of range for rank 2"),
        (
            "GatherND",
            np.int64,
            (3, 4),
            [[1, 4]],
            {},
            "index 4 \\(element 1 of input 1\\) is out of range for data dimension 1 of size 4",
        ),
        ("GatherND", np.int64, (3, 4), [[-4, 0]], {}, "index -4 .* data dimension 0 of size 3"),
        (
            "GatherND",
            np.int64,
            (3, 4),
            [[0, 1, 2]],
            {},
            "last dimension of input 1 \\(indices\\) is 3; it must be 1 to 2",
        ),
        (
            "GatherND",
            np.int64,
            (2, 4),
            [[[0]], [[1]], [[0]]],
            {"batch_dims": 1},
            "batch dimension 0 is 2 in data and 3 in indices",
        ),
        (
            "GatherND",
            np.int64,
            (2, 4),
            [[0], [1]],
            {"batch_dims": 2},
            "batch_dims 2 must be less than the ranks",
        ),
    ],
)
def test_run_errors(
    op: str, itype: type, x: tuple[int, ...], idx: list, attrs: dict[str, object], msg: str
) -> None:
    node = Node(op, [F32, I32 if itype is np.int32 else I64], onnx_opset=13, attributes=attrs, name="bad")
    with pytest.raises(NodeError, match=msg) as e:
        node.run_outputs(np.zeros(x, np.float32), np.array(idx, itype))
    assert "'bad'" in str(e.value) and op in str(e.value)


@pytest.mark.parametrize(
    "op,types,opset,attrs,msg",
    [
        ("GatherND", [F32, I32], 13, {}, "type"),
        ("GatherND", [F32, I64], 11, {"batch_dims": 1}, "'batch_dims' is not in opset 11"),
        ("GatherND", [F32, I64], 13, {"batch_dims": -1}, "batch_dims -1 must be 0 or more"),
        ("GatherElements", [F32, F32], 13, {}, "type"),
        ("GatherElements", [F32, I64], 10, {}, "opset"),
        ("GatherElements", [TensorProto.STRING, I64], 13, {}, "type"),
    ],
)
def test_creation_errors(op: str, types: list[int], opset: int, attrs: dict[str, object], msg: str) -> None:
    with pytest.raises(NodeError, match=msg) as e:
        Node(op, types, onnx_opset=opset, attributes=attrs, name="bad")
    assert "'bad'" in str(e.value) and op in str(e.value)


@pytest.mark.parametrize("via", VIAS)
@pytest.mark.parametrize("op", list(CASES))
def test_index_out_of_range_is_a_run_error_naming_node_and_op(via: str, op: str) -> None:
    x = helper.make_tensor_value_info("x", F32, ["n", "m"])
    i = helper.make_tensor_value_info("i", I64, ["a", "b"])
    y = helper.make_tensor_value_info("y", F32, None)
    node = helper.make_node(op, ["x", "i"], ["y"], name="pick")
    sess = quiet_session(one_node_model(node, [x, i], [y], 13), via)
    assert all(n.moved for n in sess.report.nodes)
    data = np.arange(12, dtype=np.float32).reshape(3, 4)
    with pytest.raises(Exception, match=f"pick.*{op}.*index 7 .* out of range"):
        sess.run(None, {"x": data, "i": np.array([[0, 7]], np.int64)})
    ok = np.array([[2, -1]], np.int64)
    want = gather_elements(data, ok, 0) if op == "GatherElements" else gather_nd(data, ok, 0)
    _same("after the error", sess.run(None, {"x": data, "i": ok})[0], want)  # the session stays usable
