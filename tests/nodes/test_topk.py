"""TopK (node_topk.c, kernels/topk.c) against the contract in docs/shape-ops.md "TopK", computed with NumPy
(tests/reference/topk_reference.py: stable argsort on the stated key), bit for bit: every axis (negative too),
largest and smallest, sorted 1 and 0 (both give the contract's order), k from 0 to the axis length, ties (few
distinct values, -0.0 beside +0.0), NaNs of either sign, every numeric type, contiguous and strided axes, many
parallel chunks on 1 and 2 threads, every kernel path, both ways in (EP and rewrite), k as attribute
(opset 1) and as input (constant or fed); against stock ONNX Runtime where stock has a kernel and its
comparator is a total order (no NaN); bad k, attributes and axes give errors naming node, op and problem;
zero-size dimensions.
"""

from __future__ import annotations

import numpy as np
import onnx
import pytest

import onemodel_ep
from onemodel_ep.node import Node, NodeError
from tests.nodes.case_runs import VIAS
from tests.nodes.movement_cases import BF16, Case, model_of, onnx_type
from tests.nodes.test_movement_ops import _ours, _same, _stock
from tests.reference.topk_reference import topk_reference

NUMERIC = tuple(np.dtype(t) for t in (np.float32, np.float64, np.float16, np.int8, np.uint8, np.int16,
                                      np.uint16, np.int32, np.uint32, np.int64, np.uint64))
F32, I64 = onnx.TensorProto.FLOAT, onnx.TensorProto.INT64


def data(shape: tuple[int, ...], dt: np.dtype, seed: int, nans: bool = False) -> np.ndarray:
    """Few distinct values (ties everywhere), the type's extremes; floats with -0.0 beside +0.0, infinities
    and, with nans, NaNs of either sign."""
    rng = np.random.default_rng(seed)
    v = rng.integers(-3, 4, shape)
    if dt.kind == "u":
        v = v + 3
    if dt.kind in "iu":
        x = v.astype(dt)
        info = np.iinfo(dt)
        x[rng.random(shape) < 0.05] = info.max
        x[rng.random(shape) < 0.05] = info.min
        return x
    x = v.astype(np.float32)
    x[rng.random(shape) < 0.1] = -0.0
    x[rng.random(shape) < 0.03] = np.inf
    x[rng.random(shape) < 0.03] = -np.inf
    if nans:
        x[rng.random(shape) < 0.05] = np.nan
        x[rng.random(shape) < 0.02] = -np.nan
    return x.astype(dt)


SHAPES = [((3, 4, 5), 0), ((3, 4, 5), 1), ((3, 4, 5), 2), ((3, 4, 5), -1), ((3, 4, 5), -3), ((7,), 0),
          ((2, 300, 3), 1), ((1, 1000), -1), ((4, 1), 1), ((2, 0, 3), 2), ((0, 5), 1)]


def cases(opset: int, types: tuple[np.dtype, ...], nans: bool, const_k: bool = False) -> list[Case]:
    out = []
    s = 0
    for shape, axis in SHAPES:
        n = shape[axis]
        for dt in types:
            for k in sorted({0, 1, min(3, n), n // 2, n}):
                if opset < 10 and k == 0:
                    continue  # ONNX's TopK-1 needs k >= 1
                largest = s % 2 if opset >= 11 else 1
                x = data(shape, dt, s, nans and (dt.kind == "f" or dt == BF16))
                attrs: dict[str, object] = {"axis": axis}
                if opset >= 11:
                    attrs.update(largest=largest, sorted=(s // 2) % 2)
                want = list(topk_reference(x, k, axis, bool(largest)))
                if opset < 10:
                    out.append(Case("TopK", opset, [x], [False], {**attrs, "k": k}, want))
                else:
                    kk = np.array([k], np.int64)
                    out.append(Case("TopK", opset, [x, kk], [False, const_k], attrs, want))
                s += 1
    return out


def _run_all(cs: list[Case], opset: int, via: str, threads: int) -> None:
    model, feeds = model_of(cs, opset)
    got = _ours(model, via, threads).run(None, feeds)
    for i, c in enumerate(cs):
        for o in range(2):
            _same(f"{via} threads {threads} output {o}: {c.label()}", got[2 * i + o], c.want[o])


def _moved(cs: list[Case], opset: int, via: str) -> None:
    model, _ = model_of(cs, opset)
    sess = _ours(model, via, 1)
    stayed = [str(n) for n in sess.report.nodes if not n.moved]
    assert not stayed, stayed


@pytest.mark.parametrize("opset,types", [(1, (np.dtype(np.float32), np.dtype(np.float64))),
                                         (10, (np.dtype(np.float32),)), (11, NUMERIC)])
@pytest.mark.parametrize("nans", (False, True))
@pytest.mark.parametrize("const_k", (False, True))
def test_ep_and_rewrite_match_contract(
    opset: int, types: tuple[np.dtype, ...], nans: bool, const_k: bool
) -> None:
    if opset < 10 and const_k:
        pytest.skip("k is an attribute before opset 10")
    cs = cases(opset, types, nans, const_k)
    for via in VIAS:
        _moved(cs, opset, via)
        for threads in (1, 2):
            _run_all(cs, opset, via, threads)


def _stock_types() -> tuple[np.dtype, ...]:
    """The numeric types stock ORT's CPU TopK-11 has a kernel for (asked, not assumed)."""
    out = []
    for dt in NUMERIC:
        model, feeds = model_of(cases(11, (dt,), False)[:1], 11)
        try:
            _stock(model, feeds)
        except Exception:  # noqa: BLE001 - no stock kernel for this type
            continue
        out.append(dt)
    return tuple(out)


def test_contract_is_stock_orts_without_nan() -> None:
    """Where stock ORT's comparator is a total order (no NaN), its sorted answer is ours, bit for bit; its
    unsorted answer (sorted 0: selection order) is the same set, ours in the contract's order."""
    types = _stock_types()
    assert np.dtype(np.float32) in types and np.dtype(np.int64) in types, types
    cs = cases(11, types, nans=False)
    model, feeds = model_of(cs, 11)
    got = _stock(model, feeds)
    for i, c in enumerate(cs):
        v, ix = got[2 * i], got[2 * i + 1]
        if c.attrs["sorted"]:
            _same(f"stock values: {c.label()}", v, c.want[0])
            _same(f"stock indices: {c.label()}", ix, c.want[1])
        else:
            axis = int(c.attrs["axis"])  # type: ignore[call-overload]
            got_set, want_set = np.sort(ix, axis=axis), np.sort(c.want[1], axis=axis)
            _same(f"stock indices as a set: {c.label()}", got_set, want_set)


def test_direct_every_path_bfloat16_included() -> None:
    cs = cases(11, NUMERIC, nans=True)[::7] + cases(24, (BF16,), nans=True)
    for c in cs:
        types = [onnx_type(x.dtype) for x in c.inputs]
        for path in onemodel_ep.kernel_paths():
            node = Node("TopK", types, onnx_opset=c.opset, attributes=c.attrs, kernel_path=path, name="m")
            got = node.run_outputs(*c.inputs)
            for o in range(2):
                _same(f"{c.label()} path {path} output {o}", got[o], c.want[o])


@pytest.mark.parametrize("via", VIAS)
@pytest.mark.parametrize("shape,axis,k", [((64, 3001), -1, 5), ((6, 70000), 1, 300), ((3000, 40), 0, 1000),
                                          ((40, 33, 700), 1, 33)])
def test_large_shapes_on_two_threads(via: str, shape: tuple[int, ...], axis: int, k: int) -> None:
    """Rows over many chunks, axes longer than a chunk, strided axes, NaNs and ties; small and large k."""
    x = data(shape, np.dtype(np.float32), 3, nans=True)
    kk = np.array([k], np.int64)
    cs = [Case("TopK", 11, [x, kk], [False, False], {"axis": axis, "largest": lg},
               list(topk_reference(x, k, axis, bool(lg)))) for lg in (0, 1)]
    for threads in (1, 2):
        _run_all(cs, 11, via, threads)


def test_order_examples() -> None:
    """The contract on a row: NaN first in both directions, signed zeros tie (lower index first), the value's
    bits kept."""
    x = np.array([1.0, np.nan, 5.0, -0.0, 0.0, 5.0, -7.0, -np.nan], np.float32)
    k = np.array([8], np.int64)
    node = Node("TopK", [F32, I64], onnx_opset=11)
    v, i = node.run_outputs(x, k)
    assert i.tolist() == [1, 7, 2, 5, 0, 3, 4, 6]
    assert v.tobytes() == x[i].tobytes()
    v, i = Node("TopK", [F32, I64], onnx_opset=11, attributes={"largest": 0}).run_outputs(x, k)
    assert i.tolist() == [1, 7, 6, 3, 4, 0, 2, 5]
    assert v.tobytes() == x[i].tobytes()


@pytest.mark.parametrize(
    "types,opset,attrs,msg",
    [
        ([F32, I64], 11, {"largest": 2}, "largest and sorted must be 0 or 1"),
        ([F32, I64], 11, {"sorted": -1}, "largest and sorted must be 0 or 1"),
        ([F32], 11, {}, "k is missing"),
        ([F32], 1, {}, "k is missing"),
        ([F32], 1, {"k": -1}, "k is -1, must not be negative"),
        ([F32, I64], 11, {"k": 2}, "both as attribute and as input 1"),
        ([onnx.TensorProto.INT32, I64], 10, {}, "int32 needs opset 11"),
        ([onnx.TensorProto.BFLOAT16, I64], 23, {}, "bfloat16 needs opset 24"),
        ([onnx.TensorProto.BOOL, I64], 11, {}, "unsupported element type bool"),
    ],
)
def test_creation_errors(types: list[int], opset: int, attrs: dict[str, object], msg: str) -> None:
    with pytest.raises(NodeError, match=msg) as e:
        Node("TopK", types, onnx_opset=opset, attributes=attrs, name="bad")
    assert "'bad'" in str(e.value) and "TopK" in str(e.value)


@pytest.mark.parametrize("shape,axis,k,msg", [((2, 3), 2, [1], "axis 2 is out of range for rank 2"),
                                              ((2, 3), 1, [4], "k is 4, above the 3 elements along axis 1"),
                                              ((2, 3), 1, [-1], "k is -1, must not be negative"),
                                              ((2, 3), 1, [1, 2], "input 1 \\(K\\) must have one element"),
                                              ((2, 0), 1, [1], "k is 1, above the 0 elements")])
def test_run_errors(shape: tuple[int, ...], axis: int, k: list[int], msg: str) -> None:
    node = Node("TopK", [F32, I64], onnx_opset=11, attributes={"axis": axis}, name="bad")
    with pytest.raises(NodeError, match=msg) as e:
        node.run_outputs(np.zeros(shape, np.float32), np.array(k, np.int64))
    assert "'bad'" in str(e.value) and "TopK" in str(e.value)


@pytest.mark.skipif("ep" not in VIAS, reason="ORT without plugin execution providers")
@pytest.mark.parametrize("k", (-2, 9))
def test_constant_bad_k_fails_at_session_creation(k: int) -> None:
    """A constant K that can never run fails clearly, naming node and op: at session creation (negative; above
    a declared axis length) or at the first run, never a crash or a wrong answer."""
    x = np.zeros((2, 5), np.float32)
    c = Case("TopK", 11, [x, np.array([k], np.int64)], [False, True], {"axis": 1},
             [x, np.zeros((2, 1), np.int64)])
    model, feeds = model_of([c], 11)
    with pytest.raises(Exception, match="n0.*TopK|TopK.*n0") as e:
        sess = _ours(model, "ep", 1)
        sess.run(None, feeds)
    # k above a declared axis: ORT's shape inference says so first; ours at the first run otherwise
    want = ("negative",) if k < 0 else ("above the 5 elements", "less than the requested k")
    assert any(w in str(e.value) for w in want), str(e.value)
