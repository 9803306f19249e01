"""Pad (node_pad.c) against the contract in docs/shape-ops.md, computed with NumPy's np.pad
(tests/reference/pad_reference.py), and against stock ONNX Runtime byte for byte where stock serves the case
(stock 1.31 refuses reflect pads beyond the kept extent less one, which np.pad and we serve):
every mode at every opset ORT 1.31 runs (11, 13, 18, 19, 21, 23), every stored type, pads and
constant_value fed or initializers, the axes input (18 on, int32 and int64, negative), negative pads
(crops), zero-size inputs, large reflect and wrap pads, rows wider than one parallel chunk and outputs of
many chunks on 1 and 2 threads, every kernel path, the EP's registry and compiled dispatch and the rewrite;
bad inputs give errors naming node, op and problem.
"""

from __future__ import annotations

import numpy as np
import onnx
import pytest

from onemodel_ep.node import Node, NodeError
from tests.nodes.case_runs import (
    VIAS,
    compiled_dispatch_matches,
    direct_every_path_matches,
    every_way_matches,
)
from tests.nodes.movement_cases import BF16, Case, bits, model_of, onnx_type, types_at
from tests.nodes.test_movement_ops import _ours, _same, _split, _stock
from tests.reference.pad_reference import PadError, pad_reference

OPSETS = (11, 13, 18, 19, 21, 23)
MODES = ("constant", "reflect", "edge", "wrap")
# the types stock ORT's Pad has a kernel for (bool from opset 13)
STOCK = {np.dtype(t) for t in (np.float32, np.float64, np.int32, np.int64, np.uint32, np.uint64, np.int8,
                                np.uint8, np.bool_)}

# (input shape, pads, axes or None): each with every mode its opset has
BASE = [
    ((2, 3, 4), [0, 1, 2, 1, 0, 3], None),
    ((1, 3, 5, 5), [0, 0, 1, 1, 0, 0, 1, 1], None),
    ((4, 5), [-1, 2, 0, -2], None),  # crops and pads on one axis each
    ((5, 6), [-1, 2, -1, 3], None),
    ((7,), [3, 2], None),
    ((2, 3), [0, 0, 0, 0], None),
    ((3, 1, 4), [1, 2, 1, 1, 3, 2], None),  # reflect over an extent of 1
    ((2, 3, 4), [1, 2, 0, 1], [-1, 0]),  # axes (opset 18 on)
    ((3, 4, 5), [2, 1], [1]),
]


def _types(opset: int) -> tuple[np.dtype, ...]:
    return tuple(t for t in types_at("Pad", opset) if t != np.bool_ or opset >= 13)


def _value(dt: np.dtype, seed: int) -> np.ndarray:
    return bits((), dt, seed)


def _reflect_within(shape: tuple[int, ...], pads: list[int], axes: list[int] | None) -> bool:
    """Whether every reflect pad is at most the kept extent less one (stock ORT refuses more)."""
    listed = list(range(len(shape))) if axes is None else [a % len(shape) for a in axes]
    m = len(listed)
    for i, a in enumerate(listed):
        b, e = pads[i], pads[m + i]
        n = shape[a] + min(b, 0) + min(e, 0)
        if max(b, 0) > n - 1 or max(e, 0) > n - 1:
            return False
    return True


def pad_cases(opset: int, stock_only: bool = False) -> list[Case]:
    """Each base case in every mode of the opset, the types in turn (every type for the first two); pads
    and constant_value fed or initializers in turn."""
    modes = MODES if opset >= 19 else MODES[:3]
    types = _types(opset)
    cases = []
    k = 0
    for i, (shape, pads, axes) in enumerate(BASE):
        if axes is not None and opset < 18:
            continue
        chosen = types if i < 2 else (types[(i * 5) % len(types)], types[(i * 5 + 3) % len(types)])
        for dt in chosen:
            if stock_only and dt not in STOCK:
                continue
            for mode in modes:
                if stock_only and mode == "reflect" and not _reflect_within(shape, pads, axes):
                    continue
                x = bits(shape, dt, 100 + k)
                value = _value(dt, 7 + k) if mode == "constant" and k % 2 == 0 else None
                ins: list[np.ndarray | None] = [x, np.array(pads, np.int64), value]
                if axes is not None:
                    ins.append(np.array(axes, np.int64))  # int32: test_pad_axes_int32 (ONNX's inference
                    # of Pad refuses an int32 axes initializer)
                elif ins[-1] is None:
                    ins.pop()
                const = [False] + [k % 3 != 0, k % 3 == 2, True][: len(ins) - 1]
                want = pad_reference(x, pads, mode, value, axes)
                cases.append(Case("Pad", opset, ins, const, {"mode": mode}, [want]))
                k += 1
    return cases


@pytest.mark.parametrize("opset", OPSETS)
def test_pad_contract_is_stock_orts(opset: int) -> None:
    """The reference (np.pad) agrees with stock ORT on every case stock has a kernel for."""
    cases, _ = _split(pad_cases(opset, stock_only=True))
    model, feeds = model_of(cases, opset)
    for c, s in zip(cases, _stock(model, feeds)):
        _same(f"stock ORT vs the contract: {c.label()}", s, c.want[0])


@pytest.mark.parametrize("opset", OPSETS)
def test_pad_ep_and_rewrite_match_contract_bit_for_bit(opset: int) -> None:
    every_way_matches(pad_cases(opset), opset)


@pytest.mark.parametrize("opset", (13, 19))
def test_pad_direct_every_type_and_path(opset: int) -> None:
    direct_every_path_matches(pad_cases(opset))


@pytest.mark.skipif("ep" not in VIAS, reason="ORT without plugin execution providers")
def test_pad_compiled_dispatch_matches() -> None:
    compiled_dispatch_matches(pad_cases(19), 19)


# Larger and odd shapes: reflect and wrap pads beyond the kept extent (NumPy's repeated reflection), rows
# wider than a parallel chunk (65,536 elements), outputs of many chunks, zero-size inputs.
BIG = [
    ((3,), [7, 8], "reflect"),
    ((3,), [7, 8], "wrap"),
    ((2, 4), [5, 9, 6, 10], "reflect"),
    ((2, 4), [-1, 9, 0, 10], "wrap"),
    ((2, 70001), [1, 3, 0, 2], "constant"),
    ((2, 70001), [0, 2, 1, 3], "edge"),
    ((1, 64, 56, 56), [0, 0, 1, 1, 0, 0, 1, 1], "constant"),
    ((1, 64, 56, 56), [0, 0, 2, 3, 0, 0, 3, 2], "reflect"),
    ((0, 3), [1, 0, 1, 0], "constant"),
    ((0, 3), [0, 1, 0, 1], "edge"),
    ((3, 0), [1, 0, 1, 0], "reflect"),
    ((4, 5), [-2, 0, -2, 0], "wrap"),
]


@pytest.mark.parametrize("via", VIAS)
def test_pad_large_and_odd_shapes(via: str) -> None:
    cases = [Case("Pad", 19, [bits(s, np.dtype(np.float32), k), np.array(p, np.int64)], [False, k % 2 == 0],
                  {"mode": m}, [pad_reference(bits(s, np.dtype(np.float32), k), p, m)])
             for k, (s, p, m) in enumerate(BIG)]
    model, feeds = model_of(cases, 19)
    for threads in (1, 2):
        for c, g in zip(cases, _ours(model, via, threads).run(None, feeds)):
            _same(f"{via} threads {threads}: {c.label()}", g, c.want[0])


def test_pad_axes_int32() -> None:
    x = bits((2, 3, 4), np.dtype(np.float32), 9)
    pads = np.array([1, 2, 0, 1], np.int64)
    want = pad_reference(x, list(pads), "edge", None, [-1, 0])
    node = Node("Pad", [onnx.TensorProto.FLOAT, onnx.TensorProto.INT64, 0, onnx.TensorProto.INT32],
                onnx_opset=18, attributes={"mode": "edge"})
    _same("int32 axes", node.run_outputs(x, pads, None, np.array([-1, 0], np.int32))[0], want)


def test_pad_scalar_is_copied() -> None:
    x = np.array(3.5, np.float32)
    got = Node("Pad", [onnx.TensorProto.FLOAT, onnx.TensorProto.INT64], onnx_opset=13).run_outputs(
        x, np.zeros(0, np.int64))[0]
    _same("rank 0", got, x)


F32, I64, I32 = onnx.TensorProto.FLOAT, onnx.TensorProto.INT64, onnx.TensorProto.INT32


@pytest.mark.parametrize(
    "types,opset,attrs,msg",
    [
        ([F32, I32], 13, {}, "input 1 \\(pads\\) is int32, it must be int64"),
        ([F32, I64, onnx.TensorProto.DOUBLE], 13, {}, "constant_value\\) is double, input 0 float"),
        ([F32, I64, 0, I64], 13, {}, "axes\\) is defined from opset 18"),
        ([F32, I64, 0, F32], 18, {}, "axes\\) is float"),
        ([F32, I64], 18, {"mode": "wrap"}, "mode wrap is defined from opset 19"),
        ([F32, I64], 19, {"mode": "mirror"}, "attribute mode must be constant, reflect, edge or wrap"),
        ([onnx.TensorProto.BOOL, I64], 11, {}, "bool needs opset 13"),
        ([F32, I64], 10, {}, "opset 10 is not served"),
    ],
)
def test_pad_creation_errors(types: list[int], opset: int, attrs: dict[str, object], msg: str) -> None:
    with pytest.raises(NodeError, match=msg) as e:
        Node("Pad", types, onnx_opset=opset, attributes=attrs, name="bad")
    assert "'bad'" in str(e.value) and "Pad" in str(e.value)


@pytest.mark.parametrize(
    "shape,pads,mode,extra,msg",
    [
        ((2, 3), [1, 1], "constant", [], "input 1 \\(pads\\) has 2 entries, expected 4"),
        ((2, 3), [-3, 0, 0, 0], "constant", [], "pads crop 3 and 0 elements of axis 0, which has 2"),
        ((2, 3), [0, -2, 0, -2], "edge", [], "crop 2 and 2 elements of axis 1, which has 3"),
        ((2, 3), [0, -3, 0, 1], "reflect", [], "mode reflect cannot pad axis 1, which keeps no element"),
        ((0, 3), [1, 0, 0, 0], "wrap", [], "mode wrap cannot pad axis 0"),
        ((0, 3), [0, 0, 1, 0], "edge", [], "mode edge cannot pad axis 0"),
        ((2, 3), [1, 1], "constant", [None, np.array([2], np.int64)], "axis 2 is out of range for rank 2"),
        ((2, 3), [1, 1, 1, 1], "constant", [None, np.array([1, -1], np.int64)], "axis 1 more than once"),
        ((2, 3), [1, 1, 1, 1], "constant", [np.zeros(2, np.float32)], "constant_value\\) has 2 elements"),
        ((2, 3), [2**62, 0, 2**62, 0], "constant", [], "does not fit 64 bits"),
    ],
)
def test_pad_run_errors(shape: tuple[int, ...], pads: list[int], mode: str, extra: list[np.ndarray | None],
                        msg: str) -> None:
    x = np.zeros(shape, np.float32)
    ins = [x, np.array(pads, np.int64), *extra]
    types = [0 if v is None else onnx_type(v.dtype) for v in ins]
    node = Node("Pad", types, onnx_opset=19, attributes={"mode": mode}, name="bad")
    with pytest.raises(NodeError, match=msg) as e:
        node.run_outputs(*ins)
    assert "'bad'" in str(e.value) and "Pad" in str(e.value)


@pytest.mark.parametrize("shape,pads,mode", [((2, 3), [-3, 0, 0, 0], "constant"),
                                             ((2, 3), [0, -3, 0, 1], "reflect"),
                                             ((0, 3), [1, 0, 0, 0], "wrap")])
def test_pad_reference_refuses_what_the_contract_does(shape: tuple[int, ...], pads: list[int],
                                                      mode: str) -> None:
    with pytest.raises(PadError):
        pad_reference(np.zeros(shape, np.float32), pads, mode)


@pytest.mark.parametrize("const", (False, True))
def test_pad_rank_above_32_refused(const: bool) -> None:
    """Without axes, pads has two entries an axis, read as a list of at most 64: rank 33 is either left to
    stock ORT or refused at session creation naming node, op and pads, never run wrongly."""
    x = np.zeros([1] * 33, np.float32)
    c = Case("Pad", 13, [x, np.zeros(66, np.int64)], [False, const], {}, [x])
    model, feeds = model_of([c], 13)
    for via in VIAS:
        try:
            sess = _ours(model, via, 1)
        except Exception as e:  # noqa: BLE001 - ORT's error types differ by way in
            assert "'n0'" in str(e) and "Pad" in str(e) and ("pads" in str(e) or "rank 33" in str(e)), str(e)
            continue
        assert not sess.report.moved, sess.report.summary()
        _same(via, sess.run(None, feeds)[0], x)


def test_pad_bfloat16_direct() -> None:
    x = bits((3, 4), BF16, 5)
    got = Node("Pad", [onnx_type(BF16), onnx.TensorProto.INT64], onnx_opset=13,
               attributes={"mode": "reflect"}).run_outputs(x, np.array([1, 2, 2, 1], np.int64))[0]
    _same("bfloat16 reflect", got, pad_reference(x, [1, 2, 2, 1], "reflect"))
