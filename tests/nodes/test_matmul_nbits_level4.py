"""com.microsoft MatMulNBits at accuracy_level 4: the int8 contract of docs/quantized.md ("accuracy_level 4:
the int8 contract"), bit for bit against tests/reference/reference_nbits_int8.py (written from that text), on
every way in, kernel path and thread count; row i independent of M; close to stock ORT, which also quantizes A
to int8 per block at level 4; f32 zero points and the other levels keep the f32 contract."""

from __future__ import annotations

import numpy as np
import pytest

import onemodel_ep
from tests.nodes.node_sessions import assert_exact_bits, runs, session, stock
from tests.nodes.test_matmul_nbits import _inputs, _model, _weights
from tests.reference import reference_linalg as RL
from tests.reference import reference_nbits as RQ
from tests.reference import reference_nbits_int8 as R8

OP = "MatMulNBits"
F32 = np.float32


def _want(a: np.ndarray, w: dict[str, np.ndarray], K: int, N: int, bits: int, bs: int) -> np.ndarray:
    return R8.matmul_nbits_int8(a, w["B"], w["scales"], w.get("zero_points"), w.get("bias"), K, N, bits, bs)


def _case(shape: tuple[int, ...], K: int, N: int, bits: int, bs: int, zp: str, bias: bool, seed: int,
          ) -> tuple[dict[str, np.ndarray], np.ndarray]:
    w = _weights(K, N, bits, bs, zp, seed)
    if bias:
        w["bias"] = np.random.default_rng(seed + 1).standard_normal(N).astype(F32)
    return w, np.random.default_rng(seed + 2).standard_normal(shape).astype(F32)


def _level4(a: np.ndarray, w: dict[str, np.ndarray], K: int, N: int, bits: int, bs: int, level: int = 4,
            dynamic: bool = False):
    if dynamic:
        feeds = {"A": a, **w}
        return _model(feeds, {}, _inputs(w), dynamic=True, K=K, N=N, bits=bits, block_size=bs,
                      accuracy_level=level)
    return _model({"A": a}, w, _inputs(w), K=K, N=N, bits=bits, block_size=bs, accuracy_level=level)


def _one(model, feeds) -> np.ndarray:
    return session(model, "rewrite", None, 1).run(None, feeds)[0]


def test_every_way_path_and_thread_count() -> None:
    """Two representative cases through every way in, path and thread count: the reference's bits."""
    for shape, K, N, bits, bs, zp, bias in [((5, 100), 100, 37, 4, 32, "uint8", True),
                                            ((3, 300), 300, 20, 8, 64, "none", False)]:
        w, a = _case(shape, K, N, bits, bs, zp, bias, K + N)
        want = _want(a, w, K, N, bits, bs)
        for where, got in runs(_level4(a, w, K, N, bits, bs), {"A": a}, OP).items():
            assert_exact_bits(f"{OP} level 4, {where}", got[0], want)


CASES = [  # (A shape, K, N, bits, block_size, zero points, bias)
    ((1, 64), 64, 48, 4, 32, "uint8", False),
    ((2, 3, 96), 96, 40, 4, 16, "none", False),        # rank 3, default zero point 8
    ((7, 300), 300, 33, 8, 64, "uint8", True),         # 8 bits, K tail
    ((4, 130), 130, 20, 8, 128, "none", False),        # default zero point 128
    ((70,), 70, 9, 4, 256, "uint8", False),            # 1-D A; one block of 256
    ((6, 512), 512, 70, 4, 128, "uint8", True),        # panels of 16 columns and a tail
    ((9, 256), 256, 17, 8, 256, "uint8", True),        # 8 bits, block 256: the int32 bound's edge
    ((0, 64), 64, 8, 4, 32, "uint8", False),           # M = 0
]


@pytest.mark.parametrize(("shape", "K", "N", "bits", "bs", "zp", "bias"), CASES, ids=str)
def test_reference_bits(shape, K, N, bits, bs, zp, bias) -> None:
    w, a = _case(shape, K, N, bits, bs, zp, bias, sum(shape) + K + N + bits)
    got = _one(_level4(a, w, K, N, bits, bs), {"A": a})
    assert_exact_bits(f"{OP} level 4 {shape}", got, _want(a, w, K, N, bits, bs))


def test_extreme_rows_and_weights() -> None:
    """Rows with NaN, inf, all zeros, tiny (subnormal scale, or scale 0) and huge values, q at the extremes
    (q_w 255 against z 0, |q_a| 127 on every k of a 256-block): the reference's bits."""
    K, N, bits, bs = 256, 24, 8, 256
    w = _weights(K, N, bits, bs, "uint8", 3)
    w["B"][:4] = 255
    w["zero_points"][:4] = 0
    a = np.random.default_rng(4).standard_normal((9, K)).astype(F32)
    a[0] = 1.0  # every q_a = 127
    a[1, 5] = np.nan
    a[2, 7] = -np.inf
    a[3] = 0.0
    a[4] *= F32(1e-42)  # subnormal A: scale subnormal or 0
    a[5] = F32(1e-45) * np.sign(a[5])
    a[6] *= F32(1e37)
    a[7, :128] = -0.0
    got = _one(_level4(a, w, K, N, bits, bs), {"A": a})
    want = _want(a, w, K, N, bits, bs)
    assert_exact_bits(f"{OP} level 4 extremes", got, want)
    assert np.isnan(got[1]).all() and np.isnan(got[2]).all() and (got[3] == 0).all()


def test_row_independent_of_batch() -> None:
    """Row i of a run with M rows is the run of row i alone (M = 1 ... 13), on every path."""
    K, N, bits, bs = 160, 35, 4, 32
    w, a = _case((13, K), K, N, bits, bs, "uint8", True, 11)
    model = _model({"A": a}, w, _inputs(w), dynamic=True, K=K, N=N, bits=bits, block_size=bs,
                   accuracy_level=4)
    for path in onemodel_ep.kernel_paths():
        sess = session(model, "rewrite", path, 1)
        whole = sess.run(None, {"A": a})[0]
        for m in (1, 4, 13):
            part = sess.run(None, {"A": a[:m]})[0]
            assert_exact_bits(f"path {path}, M = {m}", part, whole[:m])


def test_weights_at_run_time_same_bits() -> None:
    K, N, bits, bs = 100, 21, 4, 16
    w, a = _case((3, K), K, N, bits, bs, "uint8", True, 13)
    want = _one(_level4(a, w, K, N, bits, bs), {"A": a})
    got = _one(_level4(a, w, K, N, bits, bs, dynamic=True), {"A": a, **w})
    assert_exact_bits(f"{OP} level 4, weights at run time", got, want)


@pytest.mark.parametrize("level", [0, 1, 2, 3])
def test_other_levels_keep_the_f32_contract(level: int) -> None:
    K, N, bits, bs = 100, 19, 4, 32
    w, a = _case((3, K), K, N, bits, bs, "uint8", True, 17)
    W = RQ.dequantize(w["B"], w["scales"], w["zero_points"], K, N, bits, bs)
    want = RL.gemm(a, W, w["bias"])
    assert_exact_bits(f"{OP} level {level}", _one(_level4(a, w, K, N, bits, bs, level), {"A": a}), want)


def test_float_zero_points_keep_the_f32_contract_at_level_4() -> None:
    K, N, bits, bs = 70, 17, 4, 32
    w, a = _case((3, K), K, N, bits, bs, "float", True, 19)
    W = RQ.dequantize(w["B"], w["scales"], w["zero_points"], K, N, bits, bs)
    assert_exact_bits(f"{OP} level 4 f32 zp", _one(_level4(a, w, K, N, bits, bs), {"A": a}),
                      RL.gemm(a, W, w["bias"]))


@pytest.mark.parametrize(("K", "N", "bits", "bs", "zp"),
                         [(1024, 96, 4, 32, "uint8"), (512, 64, 8, 64, "none"), (300, 40, 4, 16, "none")])
def test_close_to_stock_level_4(K, N, bits, bs, zp) -> None:
    """Stock ORT at level 4 quantizes A the same way (its q_a = rne(a * fl32(127 / amax)) could differ from
    ours by one at a rounding tie) and sums the blocks in its own order: within 1e-6 of sum_k |a_ik w_kj|
    (measured at most 1.3e-7, median 2-4 ulps: the same q_a, only the float summation order differs), far
    inside the 2^-8 of A's int8 rounding that separates level 4 from level 0."""
    w, a = _case((8, K), K, N, bits, bs, zp, False, K + bits)
    model = _level4(a, w, K, N, bits, bs)
    ours = _one(model, {"A": a}).astype(np.float64)
    theirs = stock(model, {"A": a})[0].astype(np.float64)
    W = RQ.dequantize(w["B"], w["scales"], w.get("zero_points"), K, N, bits, bs).astype(np.float64)
    scale = np.abs(a).astype(np.float64) @ np.abs(W)
    rel = np.abs(ours - theirs) / scale
    assert rel.max() <= 1e-6, float(rel.max())
