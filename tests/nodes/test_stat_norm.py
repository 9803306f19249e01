"""LpNormalization (node_lp_norm.c, docs/pooling-norm.md) through the execution provider and the rewrite
path, bit for bit against the order written in the docs, computed here in NumPy (the norm a sequential double
sum in index order, cumsum's, then sqrt; each element divided in double, then rounded to the type), on every
kernel path by direct calls and on 1 and 2 threads; close to stock ONNX Runtime (which sums in the element
type in Eigen's order: float within 8 n epsilons relative for vectors of n, double 1e-12); bad attributes and
types fail with node and op named; zero-size inputs, zero vectors, NaN and infinity.
"""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper

import onemodel_ep
from onemodel_ep.node import Node, NodeError
from tests.nodes.case_runs import direct_every_path_matches, every_way_matches
from tests.nodes.movement_cases import Case, model_of
from tests.nodes.one_node import assert_left_to_stock, one_node_model
from tests.nodes.test_movement_ops import _stock
from tests.reference.norm_reference import acc_dtype, sum16

VIAS = ("rewrite", "ep") if onemodel_ep.ep_supported() else ("rewrite",)


def lp_want(x: np.ndarray, axis: int, p: int) -> np.ndarray:
    """The docs' order: s sequential in double along axis (cumsum), norm = s or sqrt(s), y = x / norm in
    double, then rounded to x's type; a zero norm gives +0.0."""
    xd = np.moveaxis(x.astype(np.float64), axis, -1)
    terms = np.abs(xd) if p == 1 else xd * xd
    s = np.cumsum(terms, axis=-1)[..., -1:] if xd.shape[-1] else np.zeros(xd.shape[:-1] + (1,))
    norm = s if p == 1 else np.sqrt(s)
    with np.errstate(invalid="ignore", divide="ignore"):
        q = np.where(norm == 0, 0.0, xd / np.where(norm == 0, 1.0, norm))
    y = np.moveaxis(q, -1, axis).astype(x.dtype)
    return np.where(np.isnan(y), np.array(np.nan, x.dtype), y)  # the canonical quiet NaN, positive


def values(shape: tuple[int, ...], dt: type, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(shape) * np.exp2(rng.integers(-8, 8, shape))).astype(dt)
    return x


# (shape, axis (None: default), p (None: default), dtype)
BASE: list[tuple[tuple[int, ...], int | None, int | None, type]] = [
    ((4, 37), None, None, np.float32),
    ((3, 5, 7), 1, 1, np.float32),
    ((2, 3, 4, 5), 0, 2, np.float64),
    ((6, 9), -2, 1, np.float64),
    ((300, 700), -1, 2, np.float32),
    ((5000, 3), 0, 2, np.float32),
    ((0, 4), -1, 2, np.float32),
    ((3, 0), 1, 1, np.float64),
    ((7,), None, 1, np.float32),
    # contiguous vectors (the last axis) eight at a time and a partial group: p 1 and 2, both types
    ((19, 33), -1, 1, np.float64),
    ((17, 5), 1, 2, np.float64),
    ((21, 40), 1, 1, np.float32),
]


def lp_cases() -> list[Case]:
    out = []
    for i, (shape, axis, p, dt) in enumerate(BASE):
        x = values(shape, dt, i)
        if i == 0 and x.size:
            x[0] = 0.0  # a zero vector: +0.0
            x[1, 3] = -0.0
            x[2, 5] = np.inf
            x[3, 7] = np.nan
        attrs = {k: v for k, v in (("axis", axis), ("p", p)) if v is not None}
        want = lp_want(x, -1 if axis is None else axis, 2 if p is None else p)
        out.append(Case("LpNormalization", 1, [x], [False], attrs, [want]))
    return out


def test_lp_norm_ep_and_rewrite_match_the_docs_order() -> None:
    every_way_matches(lp_cases(), 13)


def test_lp_norm_direct_every_path() -> None:
    direct_every_path_matches(lp_cases())


def test_lp_norm_zero_vector_and_special_values() -> None:
    x = np.array([[0.0, -0.0, 0.0], [3.0, -4.0, 0.0], [np.inf, 1.0, 0.0], [np.nan, 1.0, 2.0]], np.float32)
    got = Node("LpNormalization", [TensorProto.FLOAT], onnx_opset=1, name="m").run_outputs(x)[0]
    assert got[0].view(np.uint32).tolist() == [0, 0, 0]  # +0.0, not NaN
    assert got[1].tolist() == [np.float32(0.6), np.float32(-0.8), 0.0]
    assert np.isnan(got[2, 0]) and got[2, 1] == 0 and np.isnan(got[3]).all()
    neg = np.array([[1.0, 2.0]], np.float32)
    neg.view(np.uint32)[0, 0] = 0xFFC01234  # a negative NaN with a payload: the canonical quiet NaN comes out
    got = Node("LpNormalization", [TensorProto.FLOAT], onnx_opset=1, name="m").run_outputs(neg)[0]
    assert got.view(np.uint32).tolist() == [[0x7FC00000, 0x7FC00000]]


def test_lp_norm_close_to_stock() -> None:
    """Stock sums in the element type in its own order: float within 8 * n ulp-sized steps, double 1e-12."""
    cases = [c for c in lp_cases() if c.inputs[0].size and np.isfinite(c.inputs[0]).all()]
    model, feeds = model_of(cases, 13)
    for c, s in zip(cases, _stock(model, feeds), strict=True):
        x = c.inputs[0]
        n = x.shape[c.attrs.get("axis", -1)]
        rtol = 8 * n * np.finfo(np.float32).eps if x.dtype == np.float32 else 1e-12
        np.testing.assert_allclose(s, c.want[0], rtol=rtol, atol=rtol * 1e-3, err_msg=c.label())


@pytest.mark.parametrize(
    "t,attrs,msg",
    [
        (TensorProto.FLOAT, {"p": 3}, "attribute p is 3; ONNX defines only 1 and 2"),
        (TensorProto.FLOAT, {"p": 0}, "attribute p is 0"),
        (TensorProto.FLOAT16, {}, "type"),
        (TensorProto.INT32, {}, "type"),
    ],
)
def test_lp_norm_creation_errors(t: int, attrs: dict[str, int], msg: str) -> None:
    with pytest.raises(NodeError, match=msg) as e:
        Node("LpNormalization", [t], onnx_opset=1, attributes=attrs, name="bad")
    assert "'bad'" in str(e.value) and "LpNormalization" in str(e.value)


def test_lp_norm_axis_out_of_range_at_run() -> None:
    node = Node("LpNormalization", [TensorProto.FLOAT], onnx_opset=1, attributes={"axis": 2}, name="bad")
    msg = "'bad'.*LpNormalization.*axis 2 is out of range for an input of rank 2"
    with pytest.raises(NodeError, match=msg):
        node.run_outputs(np.ones((2, 3), np.float32))


@pytest.mark.parametrize("via", VIAS)
def test_lp_norm_p3_stays_with_stock(via: str) -> None:
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    node = helper.make_node("LpNormalization", ["x"], ["y"], name="p3", p=3)
    # left to stock, whose own kernel refuses p = 3
    assert_left_to_stock(one_node_model(node, [x], [y], 13), via, ["LpNorm", "p_ == 1 || p_ == 2"])


# ---- MeanVarianceNormalization (node_mvn.c) ---------------------------------------------------------------


def mvn_want(x: np.ndarray, axes: list[int]) -> np.ndarray:
    """The docs' order, in A (f32 for f16 and f32, f64 for f64): each group's row in row-major order of the
    reduced axes, mean = sum16(v) / n, var = sum16((v - mean)^2) / n, d = sqrt(var) + eps, y = (x - mean) / d;
    f16 one rounding of the f32 y; a NaN the canonical quiet NaN."""
    if x.size == 0:
        return x.copy()
    a = acc_dtype(x.dtype)
    r = x.ndim
    red = sorted(ax % r for ax in axes)
    kept = [d for d in range(r) if d not in red]
    v = np.transpose(x.astype(a), kept + red)
    kshape = v.shape[: len(kept)]
    v = v.reshape(kshape + (int(np.prod([x.shape[d] for d in red], dtype=np.int64)),))
    n = a.type(v.shape[-1])
    with np.errstate(all="ignore"):
        mean = sum16(v) / n
        dev = v - mean[..., None]
        var = sum16(dev * dev) / n
        d = np.sqrt(var) + a.type(1e-9)
        y = (v - mean[..., None]) / d[..., None]
    y = np.where(np.isnan(y), a.type(np.nan), y).astype(x.dtype)
    y = y.reshape(kshape + tuple(x.shape[d] for d in red))
    return np.transpose(y, np.argsort(kept + red))


# (shape, axes (None: default [0, 2, 3]), dtype)
MVN_BASE: list[tuple[tuple[int, ...], list[int] | None, type]] = [
    ((2, 3, 5, 7), None, np.float32),
    ((2, 3, 5, 7), None, np.float64),
    ((3, 4, 9, 11), None, np.float16),
    ((4, 37), [1], np.float32),
    ((4, 6, 37), [-1, 0], np.float64),
    ((2, 5, 3), [1], np.float16),
    ((1, 8, 40, 40), [2, 3], np.float32),
    ((3, 0, 4, 4), None, np.float32),
    ((0, 3, 4, 4), None, np.float32),
    ((6, 1, 1, 1), [0], np.float32),
]


def mvn_cases() -> list[Case]:
    out = []
    for i, (shape, axes, dt) in enumerate(MVN_BASE):
        x = (values(shape, np.float64, 50 + i) * 0.25 + 3.0).astype(dt)
        if i == 0:
            x[0, 1, 2, 3] = np.nan  # NaN throughout its group (channel 1): canonical
        attrs = {} if axes is None else {"axes": axes}
        out.append(Case("MeanVarianceNormalization", 13, [x], [False], attrs,
                        [mvn_want(x, [0, 2, 3] if axes is None else axes)]))
    return out


def test_mvn_ep_and_rewrite_match_the_docs_order() -> None:
    every_way_matches(mvn_cases(), 13)


def test_mvn_direct_every_path() -> None:
    direct_every_path_matches(mvn_cases())


def test_mvn_close_to_stock() -> None:
    """Stock ORT runs ONNX's function (var = E[x^2] - E[x]^2, in the element type): data of mean 3 and spread
    0.25 lose about 8 bits to that cancellation, so float agrees to 2e-4 relative (plus 1e-4 absolute near 0);
    ours is the two-pass variance. (Stock's function fails for double: its epsilon is a float constant.)"""
    cases = [c for c in mvn_cases() if c.inputs[0].size and np.isfinite(c.inputs[0]).all()
             and c.inputs[0].dtype == np.float32]
    model, feeds = model_of(cases, 13)
    for c, s in zip(cases, _stock(model, feeds), strict=True):
        np.testing.assert_allclose(s, c.want[0], rtol=2e-4, atol=1e-4, err_msg=c.label())


@pytest.mark.parametrize(
    "t,attrs,msg",
    [
        (TensorProto.INT32, {}, "type"),
        (TensorProto.FLOAT, {"axes": [1, 1]}, "axes lists an axis twice"),
    ],
)
def test_mvn_creation_errors(t: int, attrs: dict[str, object], msg: str) -> None:
    with pytest.raises(NodeError, match=msg) as e:
        Node("MeanVarianceNormalization", [t], onnx_opset=13, attributes=attrs, name="bad")
    assert "'bad'" in str(e.value) and "MeanVarianceNormalization" in str(e.value)


@pytest.mark.parametrize(
    "shape,axes,msg",
    [((2, 3, 4), None, "axis 3 of attribute axes is out of range for an input of rank 3"),
     ((2, 3), [1, -1], "names axis 1 twice")],
)
def test_mvn_run_errors(shape: tuple[int, ...], axes: list[int] | None, msg: str) -> None:
    attrs = {} if axes is None else {"axes": axes}
    node = Node("MeanVarianceNormalization", [TensorProto.FLOAT], onnx_opset=13, attributes=attrs, name="bad")
    with pytest.raises(NodeError, match=msg) as e:
        node.run_outputs(np.ones(shape, np.float32))
    assert "'bad'" in str(e.value) and "MeanVarianceNormalization" in str(e.value)
