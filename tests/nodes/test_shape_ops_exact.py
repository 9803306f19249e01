"""OneModel's Pad, ArgMax and ArgMin, bit for bit against the independent reference
(tests/reference/shape_ops_reference.py, written from docs/shape-ops.md's contract alone).

Each case is a one-node model run through both ways in (the rewrite and, where ORT supports it, the execution
provider) on every kernel path at one thread and the default path at two (tests/nodes/node_sessions.py); the
node must run on OneModel's kernels and the output must have the reference's bits exactly (Pad copies NaN
payloads, signalling NaNs, signed zeros and subnormals as they are; ArgMax and ArgMin write int64). Pad: every
mode, negative pads (crops), pads longer than the kept extent (reflect and wrap around several times), `axes`
with negative entries, constant_value present or absent, pads as an initializer or a graph input, zero-size
dims, a scalar, in every type the op table lists (bfloat16: ArgMax and ArgMin through the library's node
API, ORT's Python API cannot feed it; Pad's by the reference tests only), over the opsets the contract
names. ArgMax / ArgMin: every axis (negative too), keepdims, select_last_index, ties (signed zeros among
them), NaN anywhere, infinities.

A test is skipped, with the reason, while the library does not serve the op (it is not in
onemodel_ep.op_table()). The reference itself is checked without the library against numpy (np.pad,
np.argmax, np.argmin), which the contract names as the model of each rule.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import onnx
import pytest
from onnx import helper, numpy_helper

import onemodel_ep
from onemodel_ep.node import Node, NodeError
from tests.nodes import node_sessions as NS
from tests.reference import shape_ops_reference as S

TABLE = onemodel_ep.op_table()
SEED = 20261203
BF16 = S.BF16
# ORT's Python API cannot feed or read bfloat16: ArgMax / ArgMin run it through the library's node API
# (test_arg_bfloat16_node_api); Pad's bfloat16 is checked by the reference tests only (the node API cannot
# size Pad's output without the pads' data).
ALL_TYPES = [np.dtype(t) for t in (np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32,
                                   np.int64, np.uint64, np.float16, np.float32, np.float64)]
ARG_TYPES = [t for t in ALL_TYPES if t != np.dtype(np.bool_)]
LATE_TYPES = (np.dtype(np.bool_), BF16)  # Pad: from opset 13; ArgMax / ArgMin: bfloat16 from 13


def elem(dtype: np.dtype) -> int:
    return int(helper.np_dtype_to_tensor_dtype(dtype))


def need(op: str, dtype: np.dtype) -> None:
    info = TABLE.get(op)
    if info is None:
        pytest.skip(f"onemodel_ep does not serve {op}: it is not in onemodel_ep.op_table()")
    if elem(dtype) not in info.input0_types:
        pytest.skip(f"onemodel_ep's {op} does not serve {dtype} (op_table()['{op}'].input0_types)")


assert_exact = NS.assert_exact_bits  # a NaN must have the reference's bits too


def values(shape: tuple[int, ...], dtype: np.dtype, seed: int) -> np.ndarray:
    """Random bit patterns of the type (every NaN payload, signed zero, subnormal and infinity can occur)."""
    rng = np.random.default_rng(seed)
    if dtype == np.dtype(np.bool_):
        return rng.integers(0, 2, shape).astype(bool)
    u = np.dtype(f"u{dtype.itemsize}")
    return rng.integers(0, np.iinfo(u).max, shape, dtype=u, endpoint=True).view(dtype)


# ---- Pad ---------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class PadCase:
    name: str
    shape: tuple[int, ...]
    pads: tuple[int, ...]
    mode: str = "constant"
    axes: tuple[int, ...] | None = None
    constant: bool = False  # a constant_value input

    def __str__(self) -> str:
        return self.name


PAD_CASES = [
    PadCase("2d_constant", (3, 4), (1, 2, 0, 3)),
    PadCase("2d_constant_value", (3, 4), (2, 0, 1, 1), constant=True),
    PadCase("2d_crop_and_pad", (5, 6), (-1, 2, 2, -3), constant=True),
    PadCase("3d_edge", (2, 3, 4), (0, 1, 2, 1, 0, 3), "edge"),
    PadCase("3d_edge_crop", (2, 5, 4), (0, -2, 2, 1, 1, -1), "edge"),
    PadCase("2d_reflect", (3, 4), (2, 3, 1, 2), "reflect"),
    PadCase("1d_reflect_many_periods", (3,), (7, 9), "reflect"),
    PadCase("2d_reflect_n1", (1, 3), (2, 0, 3, 1), "reflect"),
    PadCase("2d_reflect_crop", (6, 5), (-2, 3, 4, -1), "reflect"),
    PadCase("2d_wrap", (3, 4), (2, 5, 4, 3), "wrap"),
    PadCase("1d_wrap_many_periods", (2,), (7, 4), "wrap"),
    PadCase("2d_wrap_crop", (6, 5), (-1, 6, 3, -2), "wrap"),
    PadCase("4d_nchw_constant", (2, 3, 5, 4), (0, 0, 1, 2, 0, 0, 2, 1), constant=True),
    PadCase("5d_edge", (1, 2, 3, 2, 3), (0, 1, 1, 0, 2, 1, 0, 2, 1, 0), "edge"),
    PadCase("1d_long_tail", (67,), (5, 13), "reflect"),
    PadCase("zero_dim_constant", (0, 3), (2, 1, 1, 0), constant=True),
    PadCase("zero_dim_edge_unpadded", (0, 3), (0, 1, 0, 2), "edge"),
    PadCase("crop_to_empty_constant", (3, 2), (-2, 1, -1, 1), constant=True),
    PadCase("crop_to_empty_edge", (3, 2), (-2, 1, -1, 1), "edge"),
    PadCase("zero_pads", (2, 3), (0, 0, 0, 0), "reflect"),
    PadCase("scalar", (), ()),
    PadCase("axes_subset", (2, 3, 4), (1, 2, 3, 0), axes=(2, 0), constant=True),
    PadCase("axes_negative", (2, 3, 4), (2, -1, 1, 3), "reflect", axes=(-1, 1)),
    PadCase("axes_one_wrap", (2, 3, 4), (5, 7), "wrap", axes=(-2,)),
    PadCase("axes_empty", (2, 3), (), "edge", axes=()),
]


def pad_model(case: PadCase, dtype: np.dtype, opset: int, pads_as_input: bool = False,
              const: np.ndarray | None = None) -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    pads = np.array(case.pads, np.int64)
    inits, inputs = [], [helper.make_tensor_value_info("x", elem(dtype), list(case.shape))]
    feeds: dict[str, np.ndarray] = {}
    if pads_as_input:
        inputs.append(helper.make_tensor_value_info("pads", onnx.TensorProto.INT64, [len(case.pads)]))
        feeds["pads"] = pads
    else:
        inits.append(numpy_helper.from_array(pads, "pads"))
    names = ["x", "pads"]
    if const is not None:
        inits.append(numpy_helper.from_array(const.reshape(()) if opset >= 13 else const.reshape(1), "cv"))
        names.append("cv")
    if case.axes is not None:
        if const is None:
            names.append("")
        inits.append(numpy_helper.from_array(np.array(case.axes, np.int64), "axes"))
        names.append("axes")
    node = helper.make_node("Pad", names, ["y"], name="pad", mode=case.mode)
    graph = helper.make_graph([node], "g", inputs, [helper.make_tensor_value_info("y", elem(dtype), None)],
                              initializer=inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=10), feeds


def pad_opsets(case: PadCase, dtype: np.dtype) -> list[int]:
    opsets = [11, 13, 18, 19, 21, 23]
    if case.mode == "wrap":
        opsets = [o for o in opsets if o >= 19]
    if case.axes is not None:
        opsets = [o for o in opsets if o >= 18]
    if dtype in LATE_TYPES:
        opsets = [o for o in opsets if o >= 13]
    return opsets


def check_pad(case: PadCase, dtype: np.dtype, opset: int, pads_as_input: bool = False) -> None:
    need("Pad", dtype)
    x = values(case.shape, dtype, SEED + len(case.name))
    const = values((), dtype, SEED + 99) if case.constant else None
    want = S.pad(x, case.pads, const, case.axes, case.mode)
    model, feeds = pad_model(case, dtype, opset, pads_as_input, const)
    for how, outs in NS.runs(model, {"x": x, **feeds}, "Pad").items():
        assert_exact(f"Pad {case.name} {dtype} opset {opset}, {how}", outs[0], want)


@pytest.mark.parametrize("dtype", ALL_TYPES, ids=str)
@pytest.mark.parametrize("case", PAD_CASES, ids=str)
def test_pad(case: PadCase, dtype: np.dtype) -> None:
    check_pad(case, dtype, pad_opsets(case, dtype)[-1])


@pytest.mark.parametrize("case", PAD_CASES, ids=str)
def test_pad_every_opset(case: PadCase) -> None:
    """float32 and bool (from 13) at each opset the contract names that has the case's inputs."""
    for dtype in (np.dtype(np.float32), np.dtype(np.bool_)):
        for opset in pad_opsets(case, dtype)[:-1]:
            check_pad(case, dtype, opset)


def node_or_skip(op: str, types: list[int], opset: int, attributes: dict[str, object]) -> Node:
    try:
        return Node(op, types, onnx_opset=opset, attributes=attributes, name="n")
    except NodeError as err:
        pytest.skip(f"the node API does not build {op} for bfloat16: {err}")


@pytest.mark.parametrize("dtype", [np.dtype(np.float32), np.dtype(np.uint16)], ids=str)
@pytest.mark.parametrize("case", PAD_CASES, ids=str)
def test_pad_pads_as_graph_input(case: PadCase, dtype: np.dtype) -> None:
    check_pad(case, dtype, pad_opsets(case, dtype)[-1], pads_as_input=True)


@pytest.mark.parametrize("case,problem", [
    (PadCase("crop_beyond", (3, 2), (-2, 0, -2, 0)), "crop"),
    (PadCase("reflect_empty", (3, 0), (0, 1, 0, 1), "reflect"), "reflect"),
    (PadCase("edge_empty", (0, 3), (2, 1, 1, 0), "edge"), "edge"),
    (PadCase("edge_cropped_empty", (3, 2), (-3, 0, 1, 0), "edge"), "edge"),
    (PadCase("wrap_empty", (0, 2), (1, 0, 0, 0), "wrap"), "wrap"),
    (PadCase("axes_twice", (2, 3), (1, 1, 1, 1), axes=(1, -1)), "axis"),
    (PadCase("axes_out_of_range", (2, 3), (1, 1), axes=(2,)), "axis"),
    (PadCase("pads_length", (2, 3), (1, 1, 1)), "pads"),
], ids=lambda v: str(v))
def test_pad_errors(case: PadCase, problem: str) -> None:
    """What the contract calls an error: the reference refuses, and the library's error names node and op."""
    dtype = np.dtype(np.float32)
    need("Pad", dtype)
    with pytest.raises(ValueError):
        S.pad(np.zeros(case.shape, dtype), case.pads, None, case.axes, case.mode)
    model, feeds = pad_model(case, dtype, 19)
    x = np.zeros(case.shape, dtype)
    for via in NS.VIAS:
        with pytest.raises(Exception) as err:  # noqa: PT011 - creation or run, either is the contract's
            NS.session(model, via, None, 1).run(None, {"x": x, **feeds})
        assert "pad" in str(err.value) and "Pad" in str(err.value), (via, problem, str(err.value))


# ---- ArgMax / ArgMin -------------------------------------------------------------------------------------

ARG_SHAPES = [((7,), 0), ((3, 5), 1), ((3, 5), 0), ((2, 3, 17), -1), ((4, 6, 5), 1), ((2, 3, 4, 33), 2),
              ((1, 1, 1), -3), ((5, 0, 3), 2)]


def arg_values(shape: tuple[int, ...], dtype: np.dtype, seed: int) -> np.ndarray:
    """Many ties: a handful of distinct values; floats with +-0, +-inf and NaN (payloads, either sign)."""
    rng = np.random.default_rng(seed)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        pool = np.array([info.min, info.max, 0, 1, 2, info.max - 1], dtype)
        return pool[rng.integers(0, len(pool), shape)]
    pool64 = np.array([0.0, -0.0, 1.5, -1.5, np.inf, -np.inf, 3.0, np.nan], np.float64)
    x = pool64[rng.integers(0, len(pool64), shape)].astype(dtype)
    u = np.dtype(f"u{dtype.itemsize}")
    neg_nan = {2: 0xFFC1, 4: 0xFFC00123, 8: 0xFFF8000000000123}[dtype.itemsize]
    bits = x.view(u)
    flip = np.isnan(x.astype(np.float64)) & (rng.random(shape) < 0.5)
    bits[flip] = neg_nan
    return x


def arg_model(op: str, dtype: np.dtype, shape: tuple[int, ...], opset: int, **attrs: int) -> onnx.ModelProto:
    node = helper.make_node(op, ["x"], ["y"], name="arg", **attrs)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", elem(dtype), list(shape))],
                              [helper.make_tensor_value_info("y", onnx.TensorProto.INT64, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=10)


def check_arg(op: str, x: np.ndarray, opset: int, axis: int, keepdims: int, last: int) -> None:
    need(op, x.dtype)
    fn = S.argmax if op == "ArgMax" else S.argmin
    want = fn(x, axis, keepdims, last)
    attrs = {"axis": axis, "keepdims": keepdims}
    if opset >= 12:
        attrs["select_last_index"] = last
    model = arg_model(op, x.dtype, x.shape, opset, **attrs)
    for how, outs in NS.runs(model, {"x": x}, op).items():
        assert_exact(f"{op} {x.dtype} {x.shape} axis {axis} keepdims {keepdims} last {last} opset {opset}, "
                     f"{how}", outs[0], want)


@pytest.mark.parametrize("op", ["ArgMax", "ArgMin"])
@pytest.mark.parametrize("dtype", ARG_TYPES, ids=str)
def test_arg(op: str, dtype: np.dtype) -> None:
    need(op, dtype)
    for i, (shape, axis) in enumerate(ARG_SHAPES):
        if shape[axis] == 0:
            continue  # n = 0 is an error (test_arg_empty_axis)
        x = arg_values(shape, dtype, SEED + i)
        combos = [(k, last) for k in (0, 1) for last in (0, 1)] if dtype == np.dtype(np.float32) else \
            [(1, 0), (0, 1)]
        for keepdims, last in combos:
            check_arg(op, x, 13, axis, keepdims, last)


@pytest.mark.parametrize("op", ["ArgMax", "ArgMin"])
def test_arg_bfloat16_node_api(op: str) -> None:
    """bfloat16 (select_last_index 0: the node API does not pass that attribute) on every kernel path."""
    need(op, BF16)
    fn = S.argmax if op == "ArgMax" else S.argmin
    for i, (shape, axis) in enumerate(ARG_SHAPES):
        if shape[axis] == 0:
            continue
        x = arg_values(shape, BF16, SEED + i)
        for keepdims in (0, 1):
            attrs: dict[str, object] = {"axis": axis, "keepdims": keepdims}
            node_or_skip(op, [elem(BF16)], 13, attrs)
            for path in NS.PATHS:
                node = Node(op, [elem(BF16)], onnx_opset=13, attributes=attrs, name="n", kernel_path=path)
                got = node.run(x)
                assert_exact(f"{op} bfloat16 {shape} axis {axis} keepdims {keepdims}, path {path}", got,
                             fn(x, axis, keepdims, 0))


@pytest.mark.parametrize("op", ["ArgMax", "ArgMin"])
@pytest.mark.parametrize("opset", [1, 11, 12])
def test_arg_older_opsets(op: str, opset: int) -> None:
    x = arg_values((3, 4, 9), np.dtype(np.float32), SEED + opset)
    for axis in (0, 2) if opset == 1 else (0, -1):
        check_arg(op, x, opset, axis, 1, 0)
        check_arg(op, x, opset, axis, 0, 1 if opset >= 12 else 0)


@pytest.mark.parametrize("op", ["ArgMax", "ArgMin"])
def test_arg_empty_axis(op: str) -> None:
    dtype = np.dtype(np.float32)
    need(op, dtype)
    x = np.zeros((5, 0, 3), dtype)
    with pytest.raises(ValueError):
        (S.argmax if op == "ArgMax" else S.argmin)(x, 1)
    model = arg_model(op, dtype, x.shape, 13, axis=1)
    for via in NS.VIAS:
        with pytest.raises(Exception) as err:  # noqa: PT011 - creation or run, either is the contract's
            NS.session(model, via, None, 1).run(None, {"x": x})
        assert "arg" in str(err.value) and op in str(err.value), (via, str(err.value))


# ---- the reference itself, without the library -----------------------------------------------------------

def test_reference_pad_against_numpy() -> None:
    """Non-negative pads: np.pad in the same mode (NumPy's reflect and wrap are the contract's); negative
    pads crop first (a slice), then pad."""
    np_mode = {"constant": "constant", "edge": "edge", "reflect": "reflect", "wrap": "wrap"}
    for case in PAD_CASES:
        x = values(case.shape, np.dtype(np.float64), SEED).view(np.uint64)
        const = np.array(7, np.uint64) if case.constant else None
        listed = S.pad_axes(x.ndim, case.axes)
        m = len(listed)
        begin, end = [0] * x.ndim, [0] * x.ndim
        for i, a in enumerate(listed):
            begin[a], end[a] = case.pads[i], case.pads[m + i]
        crop = tuple(slice(-min(b, 0), x.shape[d] + min(e, 0)) for d, (b, e) in enumerate(zip(begin, end)))
        kept = x[crop]
        widths = [(max(b, 0), max(e, 0)) for b, e in zip(begin, end)]
        if x.ndim == 0 or (kept.size == 0 and case.mode != "constant"):
            continue  # numpy refuses; the contract's own rule (test_reference_pad_rules)
        kw = {"constant_values": int(const) if const is not None else 0} if case.mode == "constant" else {}
        want = np.pad(kept, widths, mode=np_mode[case.mode], **kw)  # type: ignore[call-overload]
        got = S.pad(x, case.pads, const, case.axes, case.mode)
        assert got.shape == want.shape and (got == want).all(), case.name


def test_reference_pad_rules() -> None:
    """The contract's own rules where numpy has none: empty kept extents, bits kept, rank 0."""
    x = np.zeros((0, 3), np.float32)
    assert S.pad(x, [0, 1, 0, 0], mode="edge").shape == (0, 4)
    assert S.pad(x, [2, 1, 1, 0]).shape == (3, 4)
    with pytest.raises(ValueError):
        S.pad(x, [2, 1, 1, 0], mode="edge")
    snan = np.array([0x7F800001, 0xFFC00123, 0x80000000, 0x00000001], np.uint32).view(np.float32)
    got = S.pad(snan, [1, 2], np.array(-0.0, np.float32), mode="constant").view(np.uint32)
    assert got.tolist() == [0x80000000, 0x7F800001, 0xFFC00123, 0x80000000, 0x00000001, 0x80000000,
                            0x80000000]
    assert S.pad(np.array(5, np.int8), []).tolist() == 5
    with pytest.raises(ValueError):
        S.pad(np.zeros((2, 0)), [0, 0, 0, 1], mode="reflect")


@pytest.mark.parametrize("dtype", [np.dtype(np.float32), np.dtype(np.float16), BF16, np.dtype(np.int64),
                                   np.dtype(np.uint64)], ids=str)
def test_reference_arg_against_numpy(dtype: np.dtype) -> None:
    """np.argmax / np.argmin (the first extreme; NaN as the extreme, the first NaN) on the values; the last
    index from the reversed axis."""
    for i, (shape, axis) in enumerate(ARG_SHAPES):
        if shape[axis] == 0:
            continue
        x = arg_values(shape, dtype, SEED + i)
        v = x.astype(np.float64) if dtype.kind == "f" or dtype == BF16 else x
        n = shape[axis]
        for fn, ref in ((S.argmax, np.argmax), (S.argmin, np.argmin)):
            assert (fn(x, axis, 0, 0) == ref(v, axis=axis)).all()
            rev = n - 1 - ref(np.flip(v, axis=axis), axis=axis)
            assert (fn(x, axis, 0, 1) == rev).all()
            assert fn(x, axis, 1, 0).shape == tuple(1 if d == axis % len(shape) else s
                                                    for d, s in enumerate(shape))
    assert S.argmax(np.array([-0.0, 0.0, -0.0], np.float32), 0, 0, 1).tolist() == 2
    assert S.argmin(np.array([np.inf, np.nan, -np.inf, np.nan], np.float32), 0, 0, 1).tolist() == 3
