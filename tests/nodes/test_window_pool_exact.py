"""OneModel's MaxPool and AveragePool, bit for bit against the independent reference
(tests/reference/window_pool_reference.py, written from docs/pooling-norm.md's contract alone).

Each case is a one-node model (X a graph input of declared shape) run through both ways in (the rewrite and,
where ORT supports it, the execution provider) on every kernel path at one thread and the default path at two
(tests/nodes/node_sessions.py); the node must run on OneModel's kernels and every output must have the
reference's bits: Y's NaN the canonical quiet NaN of its type, signed zeros as the contract says, Indices
equal. Cases: a fixed list over every attribute (1-D, 2-D, 3-D; strides, dilations, asymmetric pads, every
auto_pad, ceil_mode with a dropped and a partial last window, storage_order, count_include_pad; tails of odd
extents; zero-size N, C and D; windows without a real tap), seeded random geometries, and specials (NaN
payloads anywhere in a window, infinities, signed zeros, subnormals, overflow to inf and inf - inf, the
integer ends), in every type the op table lists for the op.

A test is skipped, with the reason, while the library does not serve the op (it is not in
onemodel_ep.op_table()). The reference itself is checked without the library: against the contract's
worked examples, against an exact (math.fsum) float64 average within the contract's error bound, and against
stock ORT where the contract says the two agree (shapes; MaxPool's Y and Indices without NaN or signed zeros).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import helper

import onemodel_ep
from tests.nodes import node_sessions as NS
from tests.reference import window_pool_reference as W

TABLE = onemodel_ep.op_table()
SERVED = {op: TABLE.get(op) for op in ("MaxPool", "AveragePool")}
F16, F32, F64, I8, U8 = W.F16, W.F32, W.F64, W.I8, W.U8
SEED = 20261203
OPSET = 19  # AveragePool's dilations from 19; MaxPool's definition of opset 12


@dataclass(frozen=True)
class Case:
    name: str
    x_shape: tuple[int, ...]
    attrs: dict[str, object] = field(default_factory=dict)

    def __str__(self) -> str:
        return self.name


def need(op: str, dtype: np.dtype) -> None:
    info = SERVED[op]
    if info is None:
        pytest.skip(f"onemodel_ep does not serve {op}: it is not in onemodel_ep.op_table()")
    if int(helper.np_dtype_to_tensor_dtype(dtype)) not in info.input0_types:
        pytest.skip(f"onemodel_ep's {op} does not serve {dtype} (op_table()['{op}'].input0_types)")


def pool_model(op: str, dtype: np.dtype, shape: tuple[int, ...], attrs: dict[str, object], *,
               indices: bool = False, opset: int = OPSET) -> onnx.ModelProto:
    elem = int(helper.np_dtype_to_tensor_dtype(dtype))
    outs = [helper.make_tensor_value_info("y", elem, None)]
    if indices:
        outs.append(helper.make_tensor_value_info("i", onnx.TensorProto.INT64, None))
    node = helper.make_node(op, ["x"], ["y", "i"][: len(outs)], name="pool", **attrs)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", elem, list(shape))], outs)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=10)


assert_exact = NS.assert_exact_bits  # a NaN must have the reference's bits too


def max_attrs(attrs: dict[str, object]) -> dict[str, object]:
    return {k: v for k, v in attrs.items() if k != "count_include_pad"}


def avg_attrs(attrs: dict[str, object]) -> dict[str, object]:
    return {k: v for k, v in attrs.items() if k != "storage_order"}


def check_max(case: Case, x: np.ndarray, opset: int = OPSET) -> None:
    need("MaxPool", x.dtype)
    attrs = max_attrs(case.attrs)
    y, idx = W.max_pool(x, **attrs)
    for with_indices in (False, True):
        model = pool_model("MaxPool", x.dtype, x.shape, attrs, indices=with_indices, opset=opset)
        for how, outs in NS.runs(model, {"x": x}, "MaxPool").items():
            what = f"MaxPool {case.name} {x.dtype} opset {opset}, {how}"
            assert_exact(f"{what}, Y", outs[0], y)
            if with_indices:
                assert_exact(f"{what}, Indices", outs[1], idx)


def check_avg(case: Case, x: np.ndarray, opset: int = OPSET) -> None:
    need("AveragePool", x.dtype)
    attrs = avg_attrs(case.attrs)
    y = W.average_pool(x, **attrs)
    model = pool_model("AveragePool", x.dtype, x.shape, attrs, opset=opset)
    for how, outs in NS.runs(model, {"x": x}, "AveragePool").items():
        assert_exact(f"AveragePool {case.name} {x.dtype} opset {opset}, {how}", outs[0], y)


# ---- data -------------------------------------------------------------------------------------------------

def data(shape: tuple[int, ...], dtype: np.dtype, seed: int, specials: bool = False) -> np.ndarray:
    """Seeded values: for floats, normals with full mantissas over 17 binades (so the sums round and their
    order shows) mixed with a few coarse values (equal maxima within windows); with `specials`, NaN (quiet
    and signalling, either sign, with payloads), +-inf, +-0 and subnormals sprinkled in."""
    rng = np.random.default_rng(seed)
    if dtype in (I8, U8):
        info = np.iinfo(dtype)
        x = rng.integers(info.min, int(info.max) + 1, size=shape, dtype=np.int64)
        ends = rng.random(shape)
        x = np.where(ends < 0.1, info.min, np.where(ends > 0.9, info.max, x))
        return x.astype(dtype)
    full = rng.standard_normal(shape) * np.exp2(rng.integers(-8, 9, shape))  # full mantissas: sums round
    coarse = np.round(rng.standard_normal(shape) * 4) / 4  # few values: ties within windows
    x = np.where(rng.random(shape) < 0.3, coarse, full).astype(dtype)
    if specials and x.size:
        u = np.dtype(f"u{dtype.itemsize}")
        bits = x.view(u).reshape(-1)
        info = np.finfo(dtype)
        nans = {F16: (0x7E00, 0xFE01, 0x7C01), F32: (0x7FC00000, 0xFFC00123, 0x7F800001),
                F64: (0x7FF8000000000000, 0xFFF8000000000123, 0x7FF0000000000001)}[dtype]
        tiny = float(info.smallest_subnormal)
        others = np.array([np.inf, -np.inf, 0.0, -0.0, tiny, -tiny], dtype).view(u)
        pool = [*(u.type(v) for v in nans), *others]
        pick = rng.random(bits.size) < 0.15
        bits[pick] = np.array(pool, u)[rng.integers(0, len(pool), int(pick.sum()))]
    return x


# ---- cases ------------------------------------------------------------------------------------------------

def _c(name: str, shape: tuple[int, ...], **attrs: object) -> Case:
    return Case(name, shape, dict(attrs))


CASES = [
    _c("1d_k3", (2, 3, 11), kernel_shape=[3]),
    _c("1d_k1_s3", (1, 2, 10), kernel_shape=[1], strides=[3]),
    _c("1d_k2_s2_ceil", (1, 2, 7), kernel_shape=[2], strides=[2], ceil_mode=1),
    _c("1d_k3_s2_d2_pads12", (2, 2, 13), kernel_shape=[3], strides=[2], dilations=[2], pads=[1, 2]),
    _c("1d_k3_s2_ceil_partial", (1, 3, 6), kernel_shape=[3], strides=[2], ceil_mode=1),
    _c("1d_k3_s2_ceil_pads_incl", (1, 3, 6), kernel_shape=[3], strides=[2], ceil_mode=1, pads=[1, 1],
       count_include_pad=1),
    _c("1d_ceil_dropped", (1, 1, 5), kernel_shape=[2], strides=[3], pads=[1, 1], ceil_mode=1),
    _c("1d_same_upper", (1, 2, 9), kernel_shape=[4], strides=[2], auto_pad="SAME_UPPER"),
    _c("1d_same_lower", (1, 2, 9), kernel_shape=[4], strides=[2], auto_pad="SAME_LOWER"),
    _c("1d_same_lower_incl", (1, 2, 9), kernel_shape=[4], strides=[2], auto_pad="SAME_LOWER",
       count_include_pad=1),
    _c("1d_valid", (1, 2, 9), kernel_shape=[4], strides=[3], auto_pad="VALID"),
    _c("1d_no_real_tap", (1, 2, 2), kernel_shape=[2], dilations=[3], pads=[1, 1]),
    _c("1d_no_real_tap_incl", (1, 2, 2), kernel_shape=[2], dilations=[3], pads=[1, 1], count_include_pad=1),
    _c("1d_long_tail", (1, 1, 70), kernel_shape=[5], strides=[1], pads=[2, 3]),
    _c("2d_3x3_s2_p1", (2, 4, 12, 12), kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]),
    _c("2d_3x3_s2_p1_incl", (1, 4, 11, 13), kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1],
       count_include_pad=1),
    _c("2d_2x2_s2", (1, 3, 8, 9), kernel_shape=[2, 2], strides=[2, 2]),
    _c("2d_asym_pads", (1, 2, 7, 9), kernel_shape=[3, 2], strides=[1, 2], pads=[0, 1, 2, 0]),
    _c("2d_asym_pads_incl", (1, 2, 7, 9), kernel_shape=[3, 2], strides=[1, 2], pads=[0, 1, 2, 0],
       count_include_pad=1),
    _c("2d_dil", (1, 2, 10, 11), kernel_shape=[3, 2], dilations=[2, 3], pads=[2, 1, 1, 1]),
    _c("2d_ceil_storage1", (2, 2, 7, 8), kernel_shape=[3, 3], strides=[2, 3], ceil_mode=1, storage_order=1),
    _c("2d_storage1_pads", (1, 3, 6, 5), kernel_shape=[2, 3], pads=[1, 2, 1, 0], storage_order=1),
    _c("2d_same_upper_s1", (1, 2, 7, 6), kernel_shape=[3, 3], auto_pad="SAME_UPPER"),
    _c("2d_same_lower_s2", (1, 2, 7, 6), kernel_shape=[3, 2], strides=[2, 2], auto_pad="SAME_LOWER",
       count_include_pad=1),
    _c("2d_valid_ceil", (1, 2, 9, 7), kernel_shape=[2, 3], strides=[2, 2], auto_pad="VALID", ceil_mode=1),
    _c("2d_1x1", (1, 5, 3, 4), kernel_shape=[1, 1]),
    _c("2d_wide_rows", (1, 2, 5, 67), kernel_shape=[2, 3], strides=[1, 1], pads=[1, 1, 0, 2]),
    # rows longer than one block of the kernels' column maxima (2048 keys): borders inside and across blocks;
    # a window wider than a block (the window loop instead)
    _c("1d_rows_over_blocks", (1, 2, 4100), kernel_shape=[3], pads=[1, 2]),
    _c("1d_rows_over_blocks_s2_d3", (1, 1, 5003), kernel_shape=[3], strides=[2], dilations=[3], pads=[2, 1]),
    _c("1d_window_over_a_block", (1, 2, 2300), kernel_shape=[2], dilations=[2100], pads=[1, 1]),
    _c("2d_many_channels", (1, 37, 6, 6), kernel_shape=[3, 3], pads=[1, 1, 1, 1], storage_order=1),
    _c("3d_2x2x2_s2", (1, 2, 4, 5, 6), kernel_shape=[2, 2, 2], strides=[2, 2, 2]),
    _c("3d_3x3x3_p1_ceil", (1, 2, 5, 4, 6), kernel_shape=[3, 3, 3], strides=[2, 2, 2],
       pads=[1, 1, 1, 1, 1, 1], ceil_mode=1, count_include_pad=1),
    _c("3d_dil_storage1", (2, 1, 6, 5, 7), kernel_shape=[2, 2, 3], dilations=[2, 1, 2],
       pads=[1, 0, 1, 0, 1, 2], storage_order=1),
    _c("3d_same_upper", (1, 2, 3, 5, 4), kernel_shape=[2, 3, 2], strides=[1, 2, 3], auto_pad="SAME_UPPER"),
    _c("zero_n", (0, 3, 6, 6), kernel_shape=[2, 2]),
    _c("zero_c", (2, 0, 6, 6), kernel_shape=[2, 2], pads=[1, 1, 1, 1]),
    _c("zero_d_padding_holds_kernel", (1, 2, 0), kernel_shape=[3], pads=[2, 2]),
    _c("zero_d_same_upper", (1, 2, 0, 4), kernel_shape=[2, 3], strides=[1, 2], auto_pad="SAME_UPPER"),
    _c("zero_d_same_lower", (1, 2, 5, 0), kernel_shape=[2, 2], auto_pad="SAME_LOWER", count_include_pad=1),
    _c("zero_d_padding_holds_kernel_incl", (1, 2, 0, 3), kernel_shape=[3, 2], pads=[2, 1, 2, 0],
       count_include_pad=1),
]


def random_cases(seed: int, count: int) -> list[Case]:
    """Seeded geometries, each one the contract serves (no error, no SAME with dilation)."""
    rng = np.random.default_rng(seed)
    out: list[Case] = []
    while len(out) < count:
        k = int(rng.integers(1, 4))
        shape = (int(rng.integers(1, 3)), int(rng.integers(1, 5)), *(int(v) for v in rng.integers(1, 10, k)))
        kernel = [int(v) for v in rng.integers(1, 4, k)]
        attrs: dict[str, object] = {"kernel_shape": kernel,
                                    "strides": [int(v) for v in rng.integers(1, 4, k)],
                                    "ceil_mode": int(rng.integers(0, 2)),
                                    "storage_order": int(rng.integers(0, 2)),
                                    "count_include_pad": int(rng.integers(0, 2))}
        auto_pad = str(rng.choice(W.AUTO_PADS))
        attrs["auto_pad"] = auto_pad
        if auto_pad == "NOTSET":
            attrs["pads"] = [int(rng.integers(0, kernel[i % k])) for i in range(2 * k)]
        if auto_pad not in ("SAME_UPPER", "SAME_LOWER"):
            attrs["dilations"] = [int(v) for v in rng.integers(1, 3, k)]
        try:
            W.geometry(shape[2:], **{a: v for a, v in attrs.items()  # type: ignore[arg-type]
                                     if a not in ("storage_order", "count_include_pad")})
        except ValueError:
            continue
        out.append(Case(f"rand{len(out)}", shape, attrs))
    return out


RANDOM = random_cases(SEED, 30)
FLOAT_TYPES = [F32, F16, F64]


@pytest.mark.parametrize("dtype", FLOAT_TYPES + [I8, U8], ids=str)
@pytest.mark.parametrize("case", CASES, ids=str)
def test_max_pool_cases(case: Case, dtype: np.dtype) -> None:
    check_max(case, data(case.x_shape, dtype, SEED + 1, specials=False))


@pytest.mark.parametrize("dtype", FLOAT_TYPES, ids=str)
@pytest.mark.parametrize("case", CASES, ids=str)
def test_average_pool_cases(case: Case, dtype: np.dtype) -> None:
    check_avg(case, data(case.x_shape, dtype, SEED + 2, specials=False))


@pytest.mark.parametrize("dtype", FLOAT_TYPES, ids=str)
@pytest.mark.parametrize("case", CASES, ids=str)
def test_specials(case: Case, dtype: np.dtype) -> None:
    """NaN (either sign, payloads, signalling), +-inf, +-0 and subnormals among the taps."""
    x = data(case.x_shape, dtype, SEED + 3, specials=True)
    if SERVED["MaxPool"] is not None:
        check_max(case, x)
    if SERVED["AveragePool"] is not None:
        check_avg(case, x)
    if all(v is None for v in SERVED.values()):
        pytest.skip("onemodel_ep serves neither MaxPool nor AveragePool")


@pytest.mark.parametrize("dtype", FLOAT_TYPES + [I8, U8], ids=str)
@pytest.mark.parametrize("case", RANDOM, ids=str)
def test_random(case: Case, dtype: np.dtype) -> None:
    x = data(case.x_shape, dtype, SEED + 4, specials=dtype in FLOAT_TYPES)
    check_max(case, x)
    if dtype in FLOAT_TYPES:
        check_avg(case, x)


@pytest.mark.parametrize("dtype", FLOAT_TYPES, ids=str)
def test_signed_zeros(dtype: np.dtype) -> None:
    """Windows of zeros only: MaxPool gives +0 and the first +0's index when both signs occur, -0 and the
    first tap when only -0; AveragePool gives +0 (s starts at +0)."""
    x = np.array([[[-0.0, 0.0, -0.0, -0.0, -0.0, 0.0, 0.0, -0.0]]], dtype)
    case = _c("zeros", x.shape, kernel_shape=[2], strides=[1], pads=[1, 1])
    y, idx = W.max_pool(x, kernel_shape=[2], strides=[1], pads=[1, 1])
    assert [math.copysign(1, v) for v in y.reshape(-1)] == [-1, 1, 1, -1, -1, 1, 1, 1, -1]
    assert idx.reshape(-1).tolist() == [0, 1, 1, 2, 3, 5, 5, 6, 7]
    assert not np.signbit(W.average_pool(x, kernel_shape=[2], pads=[1, 1])).any()
    check_max(case, x)
    check_avg(case, x)


@pytest.mark.parametrize("dtype", FLOAT_TYPES, ids=str)
def test_overflow_and_cancellation(dtype: np.dtype) -> None:
    """Sums past the largest finite value (inf), inf + -inf (NaN), and a sum that only the order keeps finite:
    [max, max, -max] overflows left to right."""
    big = np.finfo(dtype).max
    x = np.array([[[big, big, -big, np.inf, -np.inf, 1.0, big / 2, big / 2, -big]]], dtype)
    case = _c("overflow", x.shape, kernel_shape=[3], strides=[1])
    y = W.average_pool(x, kernel_shape=[3])
    if dtype != F16:  # f16's range ends inside f32's: the f32 sum stays finite
        assert np.isinf(y[0, 0, 0]) and np.isnan(y[0, 0, 3])
    check_avg(case, x)
    check_max(case, x)


@pytest.mark.parametrize("dtype", [I8, U8], ids=str)
def test_integer_ends_and_empty_windows(dtype: np.dtype) -> None:
    """All taps the least value (the index is the first tap's), and windows without a real tap (the least
    value, index -1)."""
    least = np.iinfo(dtype).min
    x = np.full((1, 2, 2), least, dtype)
    case = _c("least", x.shape, kernel_shape=[2], dilations=[3], pads=[1, 1])
    y, idx = W.max_pool(x, kernel_shape=[2], dilations=[3], pads=[1, 1])
    assert (y == least).all() and (idx == -1).all()
    check_max(case, x)
    case2 = _c("least_real", x.shape, kernel_shape=[2], pads=[1, 1])
    y2, idx2 = W.max_pool(x, kernel_shape=[2], pads=[1, 1])
    assert idx2.tolist() == [[[0, 0, 1], [2, 2, 3]]]
    check_max(case2, x)


@pytest.mark.parametrize("op,opset,attrs", [
    ("MaxPool", 8, {"kernel_shape": [3, 2], "strides": [2, 1], "pads": [1, 0, 1, 1], "storage_order": 1}),
    ("MaxPool", 10, {"kernel_shape": [3, 2], "dilations": [2, 1], "ceil_mode": 1, "pads": [1, 0, 1, 1]}),
    ("MaxPool", 11, {"kernel_shape": [2, 2], "auto_pad": "SAME_LOWER", "strides": [2, 2]}),
    ("AveragePool", 7, {"kernel_shape": [3, 2], "pads": [1, 0, 2, 1], "count_include_pad": 1}),
    ("AveragePool", 10, {"kernel_shape": [3, 3], "strides": [2, 2], "ceil_mode": 1, "pads": [1, 1, 1, 1]}),
    ("AveragePool", 11, {"kernel_shape": [3, 2], "auto_pad": "SAME_UPPER", "count_include_pad": 1}),
], ids=lambda v: str(v) if not isinstance(v, dict) else "")
def test_older_opsets(op: str, opset: int, attrs: dict[str, object]) -> None:
    case = Case(f"{op}{opset}", (2, 3, 7, 8), attrs)
    x = data(case.x_shape, F32, SEED + 5, specials=True)
    (check_max if op == "MaxPool" else check_avg)(case, x, opset)


@pytest.mark.parametrize("op", ["MaxPool", "AveragePool"])
def test_same_with_dilation_stays_with_ort(op: str) -> None:
    need(op, F32)
    model = pool_model(op, F32, (1, 2, 9), {"kernel_shape": [2], "dilations": [2], "auto_pad": "SAME_UPPER"})
    for via in NS.VIAS:
        sess = NS.session(model, via, None, 1)
        assert sess.report.moved == [], (via, sess.report.summary())


@pytest.mark.parametrize("op", ["MaxPool", "AveragePool"])
def test_kernel_longer_than_padded_input_is_an_error(op: str) -> None:
    """L = D + b + e - dk < 0: an error naming node and op, never a partial window (stock's answer)."""
    need(op, F32)
    with pytest.raises(ValueError):
        W.geometry([3], [3], dilations=[2], pads=[1, 0])
    model = pool_model(op, F32, (1, 2, 3), {"kernel_shape": [3], "dilations": [2], "pads": [1, 0]})
    x = data((1, 2, 3), F32, SEED + 6)
    for via in NS.VIAS:
        with pytest.raises(Exception) as err:
            NS.session(model, via, None, 1).run(None, {"x": x})
        assert "pool" in str(err.value) and op in str(err.value), (via, str(err.value))


# ---- the reference itself, without the library -------------------------------------------------------------

def test_reference_contract_examples() -> None:
    """The contract's worked examples: a NaN anywhere wins with its index; +0 over -0; an empty window."""
    for row, want_idx in (([np.nan, 1, 2, 3], 0), ([1, 2, 3, np.nan], 3), ([1, -np.nan, 3, np.nan], 1)):
        y, idx = W.max_pool(np.array([[row]], F32), kernel_shape=[4])
        assert y.view(np.uint32).tolist() == [[[0x7FC00000]]] and idx.tolist() == [[[want_idx]]]
    y, idx = W.max_pool(np.array([[[-0.0, 0.0, -1.0]]], F32), kernel_shape=[3])
    assert not np.signbit(y).any() and idx.tolist() == [[[1]]]
    x = np.array([[[5.0, 7.0]]], F32)
    y, idx = W.max_pool(x, kernel_shape=[2], dilations=[3], pads=[1, 1])
    assert y.tolist() == [[[-np.inf]]] and idx.tolist() == [[[-1]]]
    assert np.isnan(W.average_pool(x, kernel_shape=[2], dilations=[3], pads=[1, 1])).all()
    assert W.average_pool(x, kernel_shape=[2], dilations=[3], pads=[1, 1], count_include_pad=1).tolist() == \
        [[[0.0]]]
    # ceil_mode: D 6, K 3, s 2 -> 3 windows, the last [4, 6) with one tap past the end (not counted)
    x = np.arange(6, dtype=F32).reshape(1, 1, 6)
    assert W.average_pool(x, kernel_shape=[3], strides=[2], ceil_mode=1, count_include_pad=1).tolist() == \
        [[[1.0, 3.0, 4.5]]]
    # ceil_mode's dropped window: D 5, K 2, s 3, pads 1, 1 -> L 5, O = 3 - 1 (the third would start at 5)
    assert [a.out for a in W.geometry([5], [2], [3], None, [1, 1], "NOTSET", 1)] == [2]
    # the order is sequential from +0: 1 + 2^24 + 1 in f32 is 2^24 (each +1 rounds away), not 2^24 + 2
    x = np.array([[[1.0, 2.0**24, 1.0]]], F32)
    assert W.average_pool(x, kernel_shape=[3]).tolist() == [[[np.float32(2.0**24) / np.float32(3)]]]
    # storage_order 1: column-major offsets over [D1, D2] = [2, 3]
    x = np.arange(6, dtype=F32).reshape(1, 1, 2, 3)
    _, idx = W.max_pool(x, kernel_shape=[2, 3], storage_order=1)
    assert idx.tolist() == [[[[5]]]]  # (p1, p2) = (1, 2): 1 + 2 * 2


def exact_average(x: np.ndarray, kernel: list[int], strides: list[int], dil: list[int], begin: list[int],
                  end: list[int], out: list[int], include: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per output element, by explicit loops: the exact (fsum) mean S / cnt in float64, sum |x| / cnt and the
    number m of real taps."""
    n, c = x.shape[:2]
    sp = x.shape[2:]
    mean = np.zeros((n, c, *out))
    mag = np.zeros((n, c, *out))
    taps = np.zeros(tuple(out), np.int64)
    for o in np.ndindex(*out):
        pos = [[o[i] * strides[i] - begin[i] + j * dil[i] for j in range(kernel[i])] for i in range(len(out))]
        real = [[p for p in ps if 0 <= p < sp[i]] for i, ps in enumerate(pos)]
        padded = [[p for p in ps if -begin[i] <= p < sp[i] + end[i]] for i, ps in enumerate(pos)]
        cnt = math.prod(len(r) for r in (padded if include else real))
        taps[o] = math.prod(len(r) for r in real)
        for nc in np.ndindex(n, c):
            vals = [float(x[nc + t]) for t in itertools.product(*real)]
            mean[nc + o] = math.fsum(vals) / cnt if cnt else math.nan
            mag[nc + o] = math.fsum(abs(v) for v in vals) / cnt if cnt else 0.0
    return mean, mag, taps


@pytest.mark.parametrize("dtype", FLOAT_TYPES, ids=str)
@pytest.mark.parametrize("case", CASES + RANDOM[:20], ids=str)
def test_reference_average_within_the_contract_bound(case: Case, dtype: np.dtype) -> None:
    """|Y - S / cnt| <= gamma_m sum |x| / cnt (A's unit roundoff u, m real taps), plus the f16 output's one
    rounding; S / cnt the exact mean in float64 (fsum, one rounding)."""
    attrs = avg_attrs(case.attrs)
    x = data(case.x_shape, dtype, SEED + 2)
    y = W.average_pool(x, **attrs)
    axes = W.geometry(x.shape[2:], **max_attrs(avg_attrs(attrs)))  # type: ignore[arg-type]
    mean, mag, m = exact_average(x.astype(F64), [a.kernel for a in axes], [a.stride for a in axes],
                                 [a.dilation for a in axes],
                                 [a.begin for a in axes], [a.end for a in axes], [a.out for a in axes],
                                 bool(attrs.get("count_include_pad", 0)))
    u = 2.0**-53 if dtype == F64 else 2.0**-24
    gamma = m * u / (1 - m * u)
    bound = gamma * mag + abs(mean) * (2.0**-11 if dtype == F16 else u) + 1e-300
    got = y.astype(F64)
    assert got.shape == mean.shape
    assert (np.isnan(got) == np.isnan(mean)).all()
    ok = np.isnan(mean) | (np.abs(got - mean) <= bound)
    assert ok.all(), (case.name, got[~ok][:4], mean[~ok][:4])


def stock_runs(model: onnx.ModelProto, x: np.ndarray) -> list[np.ndarray] | None:
    """Stock ORT's outputs, or None where stock refuses the model (an error the contract records)."""
    try:
        return NS.stock(model, {"x": x})
    except (ort.capi.onnxruntime_pybind11_state.Fail, ort.capi.onnxruntime_pybind11_state.InvalidArgument,
            ort.capi.onnxruntime_pybind11_state.RuntimeException):
        return None


@pytest.mark.parametrize("case", CASES + RANDOM, ids=str)
def test_reference_against_stock(case: Case) -> None:
    """Where stock ORT runs the model: the same shapes; MaxPool's Y and Indices bit for bit (f32 without NaN
    and without zeros, where the contract says the two agree; windows with a real tap); AveragePool within
    1e-6 of the windows' mean magnitude."""
    if str(case.attrs.get("auto_pad", "NOTSET")).startswith("SAME") and any(
            s > k for s, k in zip(case.attrs.get("strides", []), case.attrs["kernel_shape"])):  # type: ignore
        pytest.skip("SAME with a stride above the kernel: stock ORT errs or reads shifted windows")
    x = data(case.x_shape, F32, SEED + 7)
    x[x == 0] = 0.5
    attrs = max_attrs(case.attrs)
    y, idx = W.max_pool(x, **attrs)
    got = stock_runs(pool_model("MaxPool", F32, x.shape, attrs, indices=True), x)
    real = idx >= 0  # windows without a real tap aside: stock's MaxPool gives -FLT_MAX, the contract -inf
    if got is not None:
        assert got[0].shape == y.shape and got[1].shape == idx.shape, case.name
        assert_exact(f"stock MaxPool {case.name}, Y", got[0][real], y[real])
        assert_exact(f"stock MaxPool {case.name}, Indices", got[1][real], idx[real])
    attrs = avg_attrs(case.attrs)
    ya = W.average_pool(x, **attrs)
    got = stock_runs(pool_model("AveragePool", F32, x.shape, attrs), x)
    if got is not None:
        assert got[0].shape == ya.shape
        tol = 1e-6 * max(1.0, float(np.abs(x).max(initial=0.0)))
        assert np.allclose(got[0][real], ya[real], rtol=0, atol=tol, equal_nan=True), case.name
