"""InstanceNormalization and GroupNormalization (node_groupnorm.c): docs/pooling-norm.md's order, every way
in, path and thread count alike.

Each case is a one-node model run through both ways in (the rewrite, and the execution provider where ORT
supports it) on every kernel path at one thread and on the default path at two threads; every run must give
the bits of `_reference` below (the doc's sequence: LayerNormalization's sum16 statistics of each group, then
BatchNormalization's s = scale / sqrt(var + eps), y = ((x - mean) * s) + bias). The reference itself is held
within 1e-5 (f32; f16 2e-3) of a float64 evaluation of ONNX's formula, and stock ORT's InstanceNormalization
(f32) within the same. Bad attributes and shapes give errors naming node, op and problem, or stay with stock.
"""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import helper, numpy_helper

import onemodel_ep
from onemodel_ep.report import RewriteReport
from tests.nodes.node_sessions import VIAS, assert_bits, runs, session
from tests.nodes.node_sessions import stock as stock_run
from tests.reference import reference_linalg as R

F16, F32, F64 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)


def _reference(x: np.ndarray, scale: np.ndarray, bias: np.ndarray, groups: int, epsilon: float = 1e-5,
               per_channel: bool = True) -> np.ndarray:
    """The doc's sequence, in type A (f32 for f16 and f32, f64 for f64)."""
    A = R.acc_type(x.dtype)
    n, c = x.shape[:2]
    g = c // groups
    plane = int(np.prod(x.shape[2:], dtype=np.int64))
    rows = R.to_acc(x).reshape(n, groups, g * plane)
    m = A.type(g * plane)
    eps = A.type(np.float32(epsilon))
    sc, bi = R.to_acc(scale), R.to_acc(bias)
    if not per_channel:  # one value per group, repeated over its channels
        sc, bi = np.repeat(sc, g), np.repeat(bi, g)
    with np.errstate(all="ignore"):
        mean = R.sum16(rows) / m
        d = rows - mean[..., None]
        var = R.sum16(d * d) / m
        s = sc.reshape(1, groups, g) / np.sqrt(var[..., None] + eps)  # [n, groups, g]
        xc = R.to_acc(x).reshape(n, groups, g, plane)
        y = ((xc - mean[..., None, None]) * s[..., None]) + bi.reshape(1, groups, g, 1)
    return y.reshape(x.shape).astype(x.dtype)


def _float64(x: np.ndarray, scale: np.ndarray, bias: np.ndarray, groups: int, epsilon: float,
             per_channel: bool) -> np.ndarray:
    """ONNX's formula in float64: scale * (x - mean) / sqrt(var + epsilon) + bias over each group."""
    n, c = x.shape[:2]
    g = c // groups
    v = x.astype(F64).reshape(n, groups, -1)
    y = ((v - v.mean(-1, keepdims=True)) / np.sqrt(v.var(-1, keepdims=True) + np.float32(epsilon))).reshape(
        n, c, -1)
    sc, bi = scale.astype(F64), bias.astype(F64)
    if not per_channel:
        sc, bi = np.repeat(sc, g), np.repeat(bi, g)
    return (y * sc[:, None] + bi[:, None]).reshape(x.shape)


def _model(op: str, x: np.ndarray, scale: np.ndarray, bias: np.ndarray, opset: int,
           **attrs: object) -> onnx.ModelProto:
    elem = int(helper.np_dtype_to_tensor_dtype(x.dtype))
    node = helper.make_node(op, ["x", "scale", "bias"], ["y"], name="norm", **attrs)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", elem, list(x.shape))],
                              [helper.make_tensor_value_info("y", elem, None)],
                              initializer=[numpy_helper.from_array(scale, "scale"),
                                           numpy_helper.from_array(bias, "bias")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=10)


def _inputs(shape: tuple[int, ...], k: int, dtype: np.dtype, seed: int) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(shape) * 3.0 + 1.5).astype(dtype)
    return x, (rng.standard_normal(k) + 1.0).astype(dtype), rng.standard_normal(k).astype(dtype)


def _close(what: str, got: np.ndarray, want64: np.ndarray, scale: np.ndarray, bias: np.ndarray,
           groups: int) -> None:
    tol = 2e-3 if got.dtype == F16 else 1e-5
    c = got.shape[1]
    mag = np.abs(scale.astype(F64)) + np.abs(bias.astype(F64))
    if mag.size != c:
        mag = np.repeat(mag, c // groups)
    mag = (mag + 1.0).reshape((1, c) + (1,) * (got.ndim - 2))
    err = np.abs(got.astype(F64) - want64) / mag
    assert np.all(err <= tol), (what, float(np.max(err)))


def _check(op: str, shape: tuple[int, ...], dtype: np.dtype, opset: int, groups: int | None = None,
           epsilon: float = 1e-5, against_stock: bool = False) -> None:
    c = shape[1]
    per_channel = op == "InstanceNormalization" or opset >= 21
    g = c if groups is None else groups
    x, scale, bias = _inputs(shape, c if per_channel else g, dtype, int(np.prod(shape)) + opset)
    attrs: dict[str, object] = {"epsilon": epsilon}
    if op == "GroupNormalization":
        attrs["num_groups"] = g
    model = _model(op, x, scale, bias, opset, **attrs)
    want = _reference(x, scale, bias, g, epsilon, per_channel)
    for where, got in runs(model, {"x": x}, op).items():
        assert_bits(f"{op} {where} vs the reference", got[0], want)
    if not x.size:
        return
    exact = _float64(x, scale, bias, g, epsilon, per_channel)
    _close(f"{op} reference vs float64", want, exact, scale, bias, g)
    if against_stock:
        _close(f"{op} stock vs float64", stock_run(model, {"x": x})[0], exact, scale, bias, g)


SHAPES = [(2, 3, 7, 7), (1, 8, 37), (1, 4, 3, 5, 6), (3, 16, 33, 9), (1, 2, 1, 1), (0, 3, 4, 4), (2, 3, 0, 5)]


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("opset", [6, 22])
def test_instance_norm_f32(shape: tuple[int, ...], opset: int) -> None:
    _check("InstanceNormalization", shape, F32, opset, against_stock=True)


@pytest.mark.parametrize("dtype", [F16, F64], ids=str)
@pytest.mark.parametrize("shape", [SHAPES[0], SHAPES[3]], ids=str)
def test_instance_norm_f16_f64(dtype: np.dtype, shape: tuple[int, ...]) -> None:
    _check("InstanceNormalization", shape, dtype, 6, epsilon=1e-3)


@pytest.mark.parametrize("shape,groups", [((2, 6, 7, 9), 2), ((1, 32, 9, 11), 8), ((2, 6, 37), 6),
                                          ((2, 6, 37), 1), ((3, 8), 4), ((1, 4, 0, 3), 2)], ids=str)
@pytest.mark.parametrize("opset", [18, 21])
def test_group_norm_f32(shape: tuple[int, ...], groups: int, opset: int) -> None:
    _check("GroupNormalization", shape, F32, opset, groups)


@pytest.mark.parametrize("dtype", [F16, F64], ids=str)
@pytest.mark.parametrize("opset", [18, 21])
def test_group_norm_f16_f64(dtype: np.dtype, opset: int) -> None:
    _check("GroupNormalization", (2, 12, 9, 10), dtype, opset, 3, epsilon=1e-3)


def test_group_norm_is_instance_norm_when_one_channel_a_group() -> None:
    x, scale, bias = _inputs((2, 5, 11, 13), 5, F32, 7)
    feed = {"x": x}
    a = session(_model("InstanceNormalization", x, scale, bias, 21), "rewrite", None, 1).run(None, feed)[0]
    b = session(_model("GroupNormalization", x, scale, bias, 21, num_groups=5), "rewrite", None, 1).run(
        None, feed)[0]
    assert_bits("GroupNormalization(G = C) vs InstanceNormalization", b, a)


def test_nan_inf_stay_in_their_group() -> None:
    x, scale, bias = _inputs((1, 4, 5, 5), 4, F32, 3)
    x[0, 1, 2, 2] = np.nan
    x[0, 3, 0, 0] = np.inf
    model = _model("InstanceNormalization", x, scale, bias, 6)
    want = _reference(x, scale, bias, 4)
    assert np.isnan(want[0, 1]).all() and np.isnan(want[0, 3]).all() and np.isfinite(want[0, [0, 2]]).all()
    for where, outs in runs(model, {"x": x}, "InstanceNormalization").items():
        got = outs[0]
        assert_bits(f"specials {where}", got, want)
        assert (got[np.isnan(got)].view(np.uint32) == 0x7FC00000).all(), where  # the canonical NaN


def test_bad_inputs_are_errors_naming_node_and_op() -> None:
    x, scale, bias = _inputs((1, 6, 4, 4), 6, F32, 1)
    cases = [
        (_model("GroupNormalization", x, scale, bias, 21, num_groups=4), "do not divide"),
        (_model("GroupNormalization", x, scale[:3], bias[:3], 21, num_groups=3), "input 1 (scale)"),
        (_model("GroupNormalization", x, scale, bias, 18, num_groups=3), "num_groups"),
        (_model("InstanceNormalization", x, scale[:5], bias, 6), "input 1 (scale)"),
    ]
    for model, words in cases:
        for via in VIAS:
            with pytest.raises(Exception) as e:
                session(model, via, None, 1).run(None, {"x": x})
            msg = str(e.value)
            assert "norm" in msg and "Normalization" in msg and words in msg, (via, msg)


def test_unserved_attributes_stay_with_stock() -> None:
    x, scale, bias = _inputs((1, 6, 4, 4), 6, F32, 2)
    for model, words in [(_model("GroupNormalization", x, scale, bias, 21, num_groups=3, stash_type=0),
                          "stash_type")]:
        report = RewriteReport("exact", None)
        onemodel_ep.rewrite(model, report=report)
        assert not report.moved and words in report.summary(), report.summary()


def test_instance_norm_rank_two_is_an_error_at_session_creation() -> None:
    x, scale, bias = _inputs((3, 6), 6, F32, 4)
    for via in VIAS:
        with pytest.raises(Exception) as e:
            session(_model("InstanceNormalization", x, scale, bias, 6), via, None, 1)
        msg = str(e.value)
        assert "'norm'" in msg and "InstanceNormalization" in msg and "rank 3 or more" in msg, (via, msg)
