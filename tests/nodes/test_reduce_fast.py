"""Fast mode of the reduction nodes (Reduce*, Softmax, LogSoftmax, LayerNormalization) on every kernel path,
as docs/reductions.md ("Fast mode") states it:

- Every op without an f32 exp or log (ReduceSum, Mean, Max, Min, Prod, SumSquare, L1, L2, LayerNormalization,
  any float type), Softmax and LogSoftmax (whose row exponential and log are the same in both modes), and the
  f64 forms of all of them, give exact mode's bits on every path (NaN results are NaN, their bits not fixed).
  Softmax and LogSoftmax, in both modes, are within their stated bound of a float64 evaluation.
- ReduceLogSumExp and ReduceLogSum in f32, f16 and bf16 follow exact mode's order of
  operations (tests/reference/reference_linalg.py) with each exp and log taken from the path's fast f32 Exp
  and Log kernels (the Exp and Log nodes in fast mode on the same path): bit for bit. Their results depend on
  the path only through those kernels.
- Against a float64 evaluation of each op's formula on the same rounded differences t = x - m, the f32
  results are within the bound the doc states (fast Exp and Log within their ulp bounds, docs/
  exact-transcendentals.md; sum16's gamma_h with h = ceil(n / 16) + 3; one rounding of the last step).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import ml_dtypes
import numpy as np
import pytest
from onnx import TensorProto

import onemodel_ep
from onemodel_ep.node import Node
from tests.reference import reference_linalg as R
from tests.reference.transcendental32 import fast_ulp

PATHS = onemodel_ep.kernel_paths()
F16, F32, F64 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)
BF16 = np.dtype(ml_dtypes.bfloat16)
ONNX = {F16: TensorProto.FLOAT16, F32: TensorProto.FLOAT, F64: TensorProto.DOUBLE, BF16: TensorProto.BFLOAT16}
U = 2.0**-24  # f32 unit roundoff
TINY = 2.0**-149  # f32 subnormal ulp
SEED = 20261202
EXACT_IN_FAST = ("ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceSumSquare",
                 "ReduceL1", "ReduceL2", "Softmax", "LogSoftmax")
WITH_EXP_LOG = ("ReduceLogSumExp", "ReduceLogSum")
REXP_ULP = 0.94325  # Softmax's row exponential, both modes (docs/exact-linalg.md, tools/c_tool.py rexp_check)


def _rows(rng: np.random.Generator, n: int) -> np.ndarray:
    """Rows of length n: random of several scales, -inf entries, all -inf but one, all -inf, +inf, NaN,
    one dominant element (the others' exponentials below 2^-34, so s rounds to exactly 1 and Softmax's
    outputs are the fast exponentials themselves, normal and subnormal)."""
    out = [rng.standard_normal(n) * 4, rng.uniform(-100.0, 5.0, n), rng.standard_normal(n) * 0.01]
    r = rng.standard_normal(n) * 3
    r[rng.random(n) < 0.3] = -np.inf
    r[rng.integers(n)] = 1.5  # at least one finite element
    out.append(r)
    r = np.full(n, -np.inf)
    r[rng.integers(n)] = -7.25
    out.append(r)
    if n <= 4096:
        out += [np.full(n, -np.inf), np.where(np.arange(n) == n // 2, np.inf, 1.0),
                np.where(np.arange(n) == n - 1, np.nan, 2.0)]
    for lo, hi in ((-87.0, -24.0), (-103.9, -87.4)):  # normal and subnormal exponentials
        r = rng.uniform(lo, hi, n)
        r[rng.integers(n)] = 0.0
        out.append(r)
    return np.stack(out).astype(F32)


# (n, row count multiplier): tails of 16, the 2048-element block limit, the 1024-element pieces of long rows
LENGTHS = [1, 3, 16, 17, 37, 255, 1030, 2047, 2049, 5000, 1 << 17]


def _inputs() -> list[tuple[str, np.ndarray, int]]:
    """(label, x, axis): contiguous rows (axis -1) and the same rows strided (axis 0)."""
    rng = np.random.default_rng(SEED)
    out = []
    for n in LENGTHS:
        x = _rows(rng, n)
        out.append((f"n={n}", x, -1))
        if n <= 5000:
            out.append((f"n={n} strided", np.ascontiguousarray(x.T), 0))
    return out


INPUTS = _inputs()


def _inputs_as(dtype: np.dtype) -> Iterator[tuple[str, np.ndarray, int]]:
    """INPUTS converted to dtype (overflow to inf); rows longer than 5000 in float32 only."""
    for label, x32, axis in INPUTS:
        if x32.shape[axis] > 5000 and dtype != F32:
            continue
        with np.errstate(over="ignore"):
            x = x32.astype(dtype)
        yield label, x, axis


def _node(op: str, dtype: np.dtype, axis: int, mode: str, path: str, n_in: int = 1) -> Node:
    if op.startswith("Reduce"):
        return Node(op, [ONNX[dtype], TensorProto.INT64], onnx_opset=18, attributes={"keepdims": 0},
                    mode=mode, kernel_path=path)
    if op == "LayerNormalization":
        return Node(op, [ONNX[dtype]] * n_in, onnx_opset=17, attributes={"axis": axis, "epsilon": 1e-5},
                    mode=mode, kernel_path=path)
    return Node(op, [ONNX[dtype]], onnx_opset=13, attributes={"axis": axis}, mode=mode, kernel_path=path)


def _run(op: str, x: np.ndarray, axis: int, mode: str, path: str) -> np.ndarray:
    node = _node(op, x.dtype, axis, mode, path)
    if op.startswith("Reduce"):
        return node.run_outputs(x, np.array([axis], np.int64))[0]
    return node.run(x)


def _want(op: str, x: np.ndarray, axis: int) -> np.ndarray:
    if op == "Softmax":
        return R.softmax(x, axis, 13)
    if op == "LogSoftmax":
        return R.log_softmax(x, axis, 13)
    return R.reduce(op, x, [axis], keepdims=0)


def _assert_bits(what: str, got: np.ndarray, want: np.ndarray) -> None:
    assert got.dtype == want.dtype and got.shape == want.shape, (what, got.dtype, got.shape, want.shape)
    bad = ~R.bits_equal(got, want)
    if bad.any():
        i = np.flatnonzero(bad.ravel())[:4]
        raise AssertionError(f"{what}: {int(bad.sum())} of {bad.size} differ, e.g. got "
                             f"{got.ravel()[i].tolist()} want {want.ravel()[i].tolist()}")


def _logsum_input(x: np.ndarray) -> np.ndarray:
    """ReduceLogSum's rows: |x| (NaN stays NaN), so that the sums are >= 0 and their logs defined."""
    return np.abs(x)


# ---- ops that fast mode computes as exact mode does ------------------------------------------------------


@pytest.mark.parametrize("op", EXACT_IN_FAST + ("LayerNormalization",))
@pytest.mark.parametrize("dtype", [F32, F64, F16, BF16], ids=str)
def test_fast_gives_exact_bits(op: str, dtype: np.dtype) -> None:
    """No f32 exp or log: fast mode is exact mode, on every path (and exact mode is path-independent)."""
    for label, x, axis in _inputs_as(dtype):
        if op == "ReduceProd":
            with np.errstate(invalid="ignore"):
                x = np.where(np.isfinite(x), (np.abs(x.astype(F64)) % 2) * 0.25 + 0.8, x).astype(dtype)
        if op == "LayerNormalization":
            if axis == 0:
                continue  # normalises trailing axes only
            n = x.shape[-1]
            rng = np.random.default_rng(n)
            scale = rng.standard_normal(n).astype(dtype)
            bias = rng.standard_normal(n).astype(dtype)
            want = _node(op, dtype, -1, "exact", PATHS[0], 3).run_outputs(x, scale, bias)
            for p in PATHS:
                got = _node(op, dtype, -1, "fast", p, 3).run_outputs(x, scale, bias)
                for k, (g, w) in enumerate(zip(got, want, strict=True)):
                    _assert_bits(f"{op} {dtype} {label} output {k} path {p}", g, w)
            continue
        want = _run(op, x, axis, "exact", PATHS[0])
        for p in PATHS:
            _assert_bits(f"{op} {dtype} {label} path {p}", _run(op, x, axis, "fast", p), want)


@pytest.mark.parametrize("op", WITH_EXP_LOG)
def test_fast_f64_gives_exact_bits(op: str) -> None:
    """f64 has no fast exp or log (the double-double evaluations serve both modes)."""
    for label, x32, axis in INPUTS:
        if x32.shape[axis] > 5000:
            continue
        x = x32.astype(F64)
        if op == "ReduceLogSum":
            x = _logsum_input(x)
        want = _run(op, x, axis, "exact", PATHS[0])
        for p in PATHS:
            _assert_bits(f"{op} f64 {label} path {p}", _run(op, x, axis, "fast", p), want)


# ---- Softmax, LogSoftmax, ReduceLogSumExp, ReduceLogSum: the exact order with the fast kernels ----------


def _fast_kernel(op: str, path: str) -> Callable[[np.ndarray], np.ndarray]:
    node = Node(op, [TensorProto.FLOAT], onnx_opset=13, mode="fast", kernel_path=path)

    def fn(v: np.ndarray) -> np.ndarray:
        v = np.asarray(v)
        assert v.dtype == F32, v.dtype  # the reference calls exp and log in f32 only for these types
        return node.run(np.ascontiguousarray(v))

    return fn


@pytest.mark.parametrize("op", WITH_EXP_LOG)
@pytest.mark.parametrize("dtype", [F32, F16, BF16], ids=str)
def test_fast_is_the_exact_order_with_the_fast_kernels(op: str, dtype: np.dtype,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    for p in PATHS:
        monkeypatch.setattr(R, "exp", _fast_kernel("Exp", p))
        monkeypatch.setattr(R, "log", _fast_kernel("Log", p))
        for label, x, axis in _inputs_as(dtype):
            if op == "ReduceLogSum":
                x = _logsum_input(x)
            got = _run(op, x, axis, "fast", p)
            _assert_bits(f"{op} {dtype} {label} path {p}", got, _want(op, x, axis))


# ---- the stated bound against a float64 evaluation ------------------------------------------------------


def _gamma(h: int) -> float:
    return h * U / (1 - h * U)


def _bound_ratio(op: str, x: np.ndarray, got: np.ndarray, path: str) -> float:
    """The largest |got - y*| / bound over the finite results of rows x (last axis) of one f32 op; y* the
    float64 value of the formula on the f32 differences t = x - m (the bound: docs/reductions.md, "Fast
    mode"; Softmax and LogSoftmax with the row exponential's bound and the correctly rounded log)."""
    if op in ("Softmax", "LogSoftmax"):
        ee, el = REXP_ULP, 0.5
    else:
        ee, el = fast_ulp("exp", path), fast_ulp("log", path)
    n = x.shape[-1]
    g = _gamma(-(-n // 16) + 3)
    a = 2 * ee * U  # fast Exp: |e - exp(t)| <= a exp(t) + ee 2^-149
    slack = 2.0**-45  # the float64 reference's own error, relative
    finite = np.isfinite(got)
    with np.errstate(all="ignore"):
        if op == "ReduceLogSum":
            s_star = np.sum(x.astype(F64), axis=-1)
            beta = g
            ok_rows = s_star > 0
        else:
            m = np.max(x, axis=-1, keepdims=True)
            t = (x - m).astype(F64)  # f32 subtraction, exact in f64 afterwards
            ex = np.exp(t)
            s_star = np.sum(ex, axis=-1)
            beta = a + g * (1 + a) + (1 + g) * n * ee * TINY
            ok_rows = np.isfinite(m[..., 0])
        bp = beta / (1 - beta)
        log_s = np.log(s_star)
        if op == "Softmax":
            y_star = ex / s_star[..., None]
            d = y_star * (a + beta) / (1 - beta) + ee * TINY / (1 - beta)
            # y = e * RN(1 / s): two roundings
            bound = (1 + U) ** 2 * d + (2 * U + U * U) * y_star + 2.0**-150 + slack * y_star
        else:
            dl = el * 2 * U * (np.abs(log_s) + bp) + el * TINY + bp  # |fast log(s) - log S*|
            if op == "LogSoftmax":
                y_star = t - log_s[..., None]
                dl = dl[..., None]
            elif op == "ReduceLogSumExp":
                y_star = m[..., 0].astype(F64) + log_s
            else:
                y_star = log_s
            rounds = op != "ReduceLogSum"  # the last subtraction or addition rounds once
            bound = dl + (U * (np.abs(y_star) + dl) + 2.0**-150 if rounds else 0.0) + slack * np.abs(y_star)
        err = np.abs(got.astype(F64) - y_star)
        rows = ok_rows[..., None] if got.ndim == x.ndim else ok_rows
        sel = finite & np.broadcast_to(rows, got.shape)
        same = got.astype(F64) == y_star  # -inf outputs (t = -inf) included
        ratio = np.where(sel & ~same, err / np.broadcast_to(bound, got.shape), 0.0)
    assert np.all(np.isfinite(got) | ~np.broadcast_to(rows, got.shape) | np.isinf(y_star)), op
    return float(np.max(ratio)) if ratio.size else 0.0


@pytest.mark.parametrize("op", WITH_EXP_LOG + ("Softmax", "LogSoftmax"))
def test_fast_within_the_stated_bound(op: str) -> None:
    worst = 0.0
    for label, x, axis in INPUTS:
        if axis != -1:
            continue  # the strided rows hold the same values (their bits are tested above)
        if op == "ReduceLogSum":
            x = _logsum_input(x)
        for p in PATHS:
            got = _run(op, x, axis, "fast", p)
            r = _bound_ratio(op, x, got, p)
            assert r <= 1.0, f"{op} {label} path {p}: error {r:.3f} x the bound"
            worst = max(worst, r)
    assert worst > 0.0  # some result is not the float64 value itself
