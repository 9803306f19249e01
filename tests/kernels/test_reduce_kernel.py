"""The reduction kernels (provider/csrc/reduce) called directly through om_test_reduce, against
tests/reference/reference_linalg.py (docs/exact-linalg.md's order of operations, written independently of the
kernels).

Exact mode: every kernel path, every chunking of the work (including chunk edges inside a row of inner
positions, and chunks run last to first) gives the reference's bits; f64 results that use exp or log (the
library's double-double evaluations, the reference's correctly rounded ones) are the same bits on every path
and within a few ulp of the reference.
"""

from __future__ import annotations

import numpy as np
import pytest

import onemodel_ep
from onemodel_ep._lib import PATH_NAMES, ffi, native_test_entry
from tests.reference import reference_linalg as R

PATHS = onemodel_ep.kernel_paths()
I8, I16, I32, I64 = np.dtype(np.int8), np.dtype(np.int16), np.dtype(np.int32), np.dtype(np.int64)
U8, U16, U32, U64 = np.dtype(np.uint8), np.dtype(np.uint16), np.dtype(np.uint32), np.dtype(np.uint64)
ONNX_TYPE = {R.F32: 1, U8: 2, I8: 3, U16: 4, I16: 5, I32: 6, I64: 7, R.F16: 10, R.F64: 11, U32: 12, U64: 13,
             R.BF16: 16}
INTS = (I8, I16, I32, I64, U8, U16, U32, U64)
EXACT, FAST = 0, 1
SEED = 20261201


def _ptr(a: np.ndarray | None) -> object:
    return ffi.NULL if a is None else ffi.from_buffer(a)


def run(op: str, x: np.ndarray, mask: tuple[int, ...], path: str, *, mode: int = EXACT, chunk: int = 0,
        reverse: bool = False, scale: np.ndarray | None = None, bias: np.ndarray | None = None,
        epsilon: float = 1e-5) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
    """om_test_reduce: Reduce ops give the kept dimensions; Softmax and LayerNorm outputs have x's shape
    (LayerNorm also Mean and InvStdDev, one per row, in the stash type)."""
    x = np.ascontiguousarray(x)
    dims = ffi.new("int64_t[]", list(x.shape) or [1])
    m = ffi.new("uint8_t[]", list(mask) or [0])
    mean = inv = None
    if op.startswith("Reduce"):
        y = np.full([d for d, k in zip(x.shape, mask, strict=True) if not k], 7, x.dtype)
    else:
        y = np.full(x.shape, 7, x.dtype)
        if op == "LayerNormalization":
            rows = int(np.prod([d for d, k in zip(x.shape, mask, strict=True) if not k], dtype=np.int64))
            mean = np.full(rows, 7, R.acc_type(x.dtype))
            inv = np.full(rows, 7, R.acc_type(x.dtype))
    reduce = native_test_entry("om_test_reduce")
    rc = reduce(op.encode(), PATH_NAMES.index(path), ONNX_TYPE[x.dtype], mode, x.ndim, dims, m,
                chunk, int(reverse), epsilon, _ptr(x), _ptr(scale), _ptr(bias), _ptr(y),
                _ptr(mean), _ptr(inv))
    assert rc == 0, f"om_test_reduce({op}, {x.dtype}, {x.shape}, {mask}) returned {rc}"
    return y, mean, inv


def same_bits(got: np.ndarray, want: np.ndarray) -> None:
    ok = R.bits_equal(got, np.asarray(want).astype(got.dtype).reshape(got.shape))
    if not np.all(ok):
        i = np.flatnonzero(~ok.ravel())[:5]
        raise AssertionError(f"{int((~ok).sum())} of {ok.size} differ, e.g. at {i.tolist()}: "
                             f"got {got.ravel()[i].tolist()} want {np.asarray(want).ravel()[i].tolist()}")


def ulps(got: np.ndarray, want: np.ndarray) -> float:
    g, w = got.astype(np.float64).ravel(), want.astype(np.float64).ravel()
    both_nan = np.isnan(g) & np.isnan(w)
    same = (g == w) | both_nan
    if np.all(same):
        return 0.0
    d = np.abs(g - w)[~same]
    return float(np.max(d / np.spacing(np.abs(w[~same]))))


def gen(dtype: np.dtype, shape: tuple[int, ...], rng: np.random.Generator,
        positive: bool = False) -> np.ndarray:
    if dtype in INTS:
        info = np.iinfo(dtype)
        lo, hi = (0, min(info.max, 200)) if positive else (max(info.min, -100), min(info.max, 100))
        return rng.integers(lo, hi, size=shape, endpoint=True).astype(dtype)
    v = rng.standard_normal(shape) * 2.0
    if positive:
        v = np.abs(v) + 0.01
    return v.astype(dtype)


def mask_of(rank: int, axes: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(1 if d in axes else 0 for d in range(rank))


# shapes and reduced axes: last axis, first axis, middle, several (adjacent and not), all, tails of 16
REDUCE_CASES = [
    ((37,), (0,)),
    ((5, 33), (1,)),
    ((33, 5), (0,)),
    ((3, 17, 4), (1,)),
    ((4, 3, 20), (0, 2)),
    ((2, 3, 4, 5), (1, 3)),
    ((2, 3, 4, 5), (0, 1)),
    ((6, 7, 3), (0, 1, 2)),
    ((3, 300), (0,)),
    ((2, 40, 260), (1,)),
    ((1, 1, 9), (0, 1)),
]


@pytest.mark.parametrize("op", R.REDUCE_OPS)
@pytest.mark.parametrize("dtype", [R.F32, R.F64, R.F16, R.BF16], ids=str)
@pytest.mark.parametrize("case", REDUCE_CASES, ids=lambda c: f"{c[0]}-{c[1]}")
def test_reduce_float_bits(op: str, dtype: np.dtype, case: tuple[tuple[int, ...], tuple[int, ...]]) -> None:
    shape, axes = case
    rng = np.random.default_rng(SEED + len(shape) * 7 + sum(axes))
    x = gen(dtype, shape, rng, positive=op == "ReduceLogSum")
    if op == "ReduceProd":
        x = (np.abs(x.astype(np.float64)) * 0.25 + 0.8).astype(dtype)  # products of O(1) factors
    want = R.reduce(op, x, axes, keepdims=0)
    outs = [run(op, x, mask_of(len(shape), axes), p)[0] for p in PATHS]
    for p, y in zip(PATHS, outs, strict=True):
        same_bits(y, outs[0])  # every path the same bits
        if dtype == R.F64 and op in R.REDUCE_TRANSCENDENTAL:
            assert ulps(y, want) <= 4, p
        else:
            same_bits(y, want)


@pytest.mark.parametrize("op", R.REDUCE_INTEGER)
@pytest.mark.parametrize("dtype", INTS, ids=str)
def test_reduce_int(op: str, dtype: np.dtype) -> None:
    rng = np.random.default_rng(SEED)
    for shape, axes in REDUCE_CASES[:8]:
        x = gen(dtype, shape, rng)
        want = R.reduce(op, x, axes, keepdims=0)
        for p in PATHS:
            y = run(op, x, mask_of(len(shape), axes), p)[0]
            np.testing.assert_array_equal(y, want, err_msg=f"{op} {dtype} {shape} {axes} {p}")


def test_reduce_int_wraps() -> None:
    x = np.array([[2**31 - 1, 1, 5], [-(2**31), -1, 3]], np.int32)
    for p in PATHS:
        np.testing.assert_array_equal(run("ReduceSum", x, (0, 1), p)[0], R.reduce("ReduceSum", x, (1,), 0))
        np.testing.assert_array_equal(run("ReduceL1", x, (0, 1), p)[0], R.reduce("ReduceL1", x, (1,), 0))
        np.testing.assert_array_equal(run("ReduceProd", x, (0, 1), p)[0], R.reduce("ReduceProd", x, (1,), 0))
        np.testing.assert_array_equal(run("ReduceMean", x, (1, 0), p)[0], R.reduce("ReduceMean", x, (0,), 0))


@pytest.mark.parametrize("op", R.REDUCE_OPS)
def test_reduce_chunking(op: str) -> None:
    """Any split of the output units (inside a row of inner positions too), in any order: the same bits."""
    rng = np.random.default_rng(SEED + 1)
    for shape, axes in [((3, 50, 21), (1,)), ((40, 6), (1,)), ((4, 5, 6, 7), (0, 2))]:
        x = gen(R.F32, shape, rng, positive=op == "ReduceLogSum")
        mask = mask_of(len(shape), axes)
        whole = run(op, x, mask, PATHS[0])[0]
        for chunk, rev in [(1, False), (5, True), (16, False), (22, True)]:
            same_bits(run(op, x, mask, PATHS[-1], chunk=chunk, reverse=rev)[0], whole)


def test_sum16_lane_order() -> None:
    """Cancellation that only sum16's lanes and tree give: 1e8 in lane 0, -1e8 in lane 1, ones elsewhere."""
    x = np.ones(40, np.float32)
    x[0], x[1], x[16] = 1e8, -1e8, 3.0
    for p in PATHS:
        got = run("ReduceSum", x, (1,), p)[0]
        same_bits(got, R.sum16(x))
        same_bits(run("ReduceSum", x.reshape(40, 1), (1, 0), p)[0], R.sum16(x))  # strided form
    assert float(R.sum16(x)) != float(np.sum(x.astype(np.float64)))  # the case separates the orders


SPECIAL_ROWS = [
    [0.0, -0.0, -0.0],
    [-0.0, -0.0],
    [np.nan, 1.0, 2.0],
    [np.inf, 1.0, -np.inf],
    [-np.inf, -np.inf],
    [np.inf, np.inf, 3.0],
    [3e38, 3e38, -1.0],
    [1e-45, -1e-45, 0.0],
]


@pytest.mark.parametrize("op", R.REDUCE_OPS)
@pytest.mark.parametrize("strided", [False, True])
def test_reduce_specials(op: str, strided: bool) -> None:
    for row in SPECIAL_ROWS:
        x = np.array(row * 6, np.float32)  # 12 to 24 elements: a tail in the lanes
        want = R.reduce(op, x, (0,), keepdims=0)
        for p in PATHS:
            got = run(op, x.reshape(-1, 1), (1, 0), p)[0] if strided else run(op, x, (1,), p)[0]
            same_bits(got.reshape(()), want)


@pytest.mark.parametrize("op", ["ReduceMax", "ReduceMin", "Softmax", "LogSoftmax"])
def test_maxmin_mixed_rows(op: str) -> None:
    """Rows of every length up to 140 drawn from {+0, -0, +-1, +-inf, NaN} and ordinary values, specials at
    random positions (four vectors in flight, tails), and longer rows (Softmax's one-row-at-a-time forms from
    512 and 2048 elements): max/min with NaN anywhere and +0 > -0 in any order."""
    rng = np.random.default_rng(SEED + 5)
    pool = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, -0.5, 0.5], np.float32)
    for n in list(range(1, 70)) + [127, 128, 129, 140, 511, 512, 1000, 2047, 2048, 2100]:
        rows = []
        for kind in range(6):
            if kind == 0:  # zeros only: the sign rule decides
                r = rng.choice(pool[:2], n)
            elif kind == 1:  # zeros and negatives (max) or positives (min)
                r = rng.choice(pool[[0, 1, 3, 7]] if op != "ReduceMin" else pool[[0, 1, 2, 8]], n)
            elif kind == 2:  # one NaN somewhere
                r = rng.standard_normal(n).astype(np.float32)
                r[rng.integers(n)] = np.nan
            elif kind == 3:  # negative NaN bits
                r = rng.standard_normal(n).astype(np.float32)
                r.view(np.uint32)[rng.integers(n)] = 0xFFC00001
            else:
                r = rng.choice(pool, n)
            rows.append(np.asarray(r, np.float32))
        x = np.stack(rows)
        if op.startswith("Reduce"):
            want = R.reduce(op, x, (1,), keepdims=0)
        else:
            want = (R.softmax if op == "Softmax" else R.log_softmax)(x, 1, 13)
        for p in PATHS:
            same_bits(run(op, x, (0, 1), p)[0], want)


@pytest.mark.parametrize("op", R.REDUCE_OPS)
def test_reduce_empty(op: str) -> None:
    """An empty reduction: Sum +0, Prod 1, Max -inf, Min +inf, Mean NaN, LogSum and LogSumExp -inf."""
    want = {"ReduceProd": 1.0, "ReduceMax": -np.inf, "ReduceMin": np.inf, "ReduceMean": np.nan,
            "ReduceLogSum": -np.inf, "ReduceLogSumExp": -np.inf}.get(op, 0.0)
    for shape, axes in [((3, 0), (1,)), ((0, 4), (0,)), ((2, 0, 3), (1,))]:
        x = np.zeros(shape, np.float32)
        for p in PATHS:
            got = run(op, x, mask_of(len(shape), axes), p)[0]
            same_bits(got, np.full(got.shape, want, np.float32))


SOFTMAX_CASES = [((7,), 0, 13), ((4, 33), 1, 13), ((4, 33), 0, 13), ((3, 20, 5), 1, 13), ((2, 3, 17), 1, 11),
                 ((2, 300, 3), 1, 13), ((5, 1030), 1, 13), ((3, 2, 270), 1, 13)]


def softmax_mask(rank: int, axis: int, opset: int) -> tuple[int, ...]:
    return tuple(1 if (d == axis or (opset < 13 and d >= axis)) else 0 for d in range(rank))


@pytest.mark.parametrize("op", ["Softmax", "LogSoftmax"])
@pytest.mark.parametrize("dtype", [R.F32, R.F64, R.F16, R.BF16], ids=str)
@pytest.mark.parametrize("case", SOFTMAX_CASES, ids=lambda c: f"{c[0]}-axis{c[1]}-op{c[2]}")
def test_softmax_bits(op: str, dtype: np.dtype, case: tuple[tuple[int, ...], int, int]) -> None:
    shape, axis, opset = case
    rng = np.random.default_rng(SEED + axis + len(shape))
    x = gen(dtype, shape, rng)
    fn = R.softmax if op == "Softmax" else R.log_softmax
    want = fn(x, axis, opset)
    outs = [run(op, x, softmax_mask(len(shape), axis, opset), p)[0] for p in PATHS]
    for p, y in zip(PATHS, outs, strict=True):
        same_bits(y, outs[0])
        if dtype == R.F64:
            assert ulps(y, want) <= 8, p
        else:
            same_bits(y, want)


@pytest.mark.parametrize("op", ["Softmax", "LogSoftmax"])
def test_softmax_specials_and_chunks(op: str) -> None:
    fn = R.softmax if op == "Softmax" else R.log_softmax
    rows = np.array([r + [0.5] * (3 - len(r)) if len(r) < 3 else r[:3] for r in SPECIAL_ROWS], np.float32)
    x = np.concatenate([rows, np.full((1, 3), -1e30, np.float32), np.array([[80.0, -80.0, 0.0]], np.float32)])
    for axis in (0, 1):
        want = fn(x, axis, 13)
        mask = softmax_mask(2, axis, 13)
        for p in PATHS:
            same_bits(run(op, x, mask, p)[0], want)
            same_bits(run(op, x, mask, p, chunk=2, reverse=True)[0], want)
    big = np.random.default_rng(SEED).standard_normal((3, 40, 9)).astype(np.float32)
    whole = run(op, big, (0, 1, 0), PATHS[0])[0]
    for chunk in (1, 4, 7):
        same_bits(run(op, big, (0, 1, 0), PATHS[-1], chunk=chunk, reverse=chunk == 4)[0], whole)


@pytest.mark.parametrize("dtype", [R.F32, R.F64, R.F16, R.BF16], ids=str)
@pytest.mark.parametrize("shape,axis",
                         [((3, 37), 1), ((2, 3, 20), 1), ((4, 384), 1), ((2, 16), 0), ((5, 1), 1)])
@pytest.mark.parametrize("with_bias", [True, False])
def test_layernorm_bits(dtype: np.dtype, shape: tuple[int, ...], axis: int, with_bias: bool) -> None:
    rng = np.random.default_rng(SEED + axis)
    x = gen(dtype, shape, rng)
    norm = shape[axis:]
    scale = gen(dtype, norm, rng)
    bias = gen(dtype, norm, rng) if with_bias else None
    y_want, mean_want, inv_want = R.layer_norm(x, scale, bias, axis, epsilon=1e-5)
    mask = tuple(1 if d >= axis else 0 for d in range(len(shape)))
    for p in PATHS:
        for chunk in (0, 1):
            y, mean, inv = run("LayerNormalization", x, mask, p, chunk=chunk, reverse=True, scale=scale,
                               bias=bias, epsilon=1e-5)
            same_bits(y, y_want)
            assert mean is not None and inv is not None
            same_bits(mean, mean_want)
            same_bits(inv, inv_want)


def test_fast_mode_close() -> None:
    """Fast mode: the same order with the fast Exp/Log kernels, close to exact."""
    rng = np.random.default_rng(SEED)
    x = rng.standard_normal((8, 200)).astype(np.float32)
    for op in ("Softmax", "LogSoftmax"):
        exact = run(op, x, (0, 1), PATHS[0])[0]
        fast = run(op, x, (0, 1), PATHS[0], mode=FAST)[0]
        np.testing.assert_allclose(fast, exact, rtol=1e-5, atol=1e-6)
    for op in ("ReduceLogSumExp", "ReduceSum"):
        exact = run(op, x, (0, 1), PATHS[0])[0]
        fast = run(op, x, (0, 1), PATHS[0], mode=FAST)[0]
        np.testing.assert_allclose(fast, exact, rtol=1e-5)


def test_unsupported_is_refused() -> None:
    x = np.zeros((2, 3), np.int32)
    dims = ffi.new("int64_t[]", [2, 3])
    m = ffi.new("uint8_t[]", [0, 1])
    reduce = native_test_entry("om_test_reduce")
    for op in ("ReduceL2", "ReduceLogSumExp", "Softmax", "NoSuchOp"):
        rc = reduce(op.encode(), 0, 6, EXACT, 2, dims, m, 0, 0, 0.0, ffi.from_buffer(x), ffi.NULL,
                    ffi.NULL, ffi.from_buffer(np.zeros(6, np.int32)), ffi.NULL, ffi.NULL)
        assert rc == -1, op
