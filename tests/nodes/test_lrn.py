"""LRN (node_lrn.c, docs/pooling-norm.md) through the execution provider and the rewrite path, bit for bit
against the order written in the docs, computed here in NumPy in binary32 (the window's squares summed in
channel order, a = alpha / size, d = bias + a * s, y = x / d^beta), on every kernel path by direct calls and
on 1 and 2 threads. The correctly rounded power d^beta is taken from the library's own Pow node in exact
mode (correctly rounded f32 Pow, tests/kernels' own tests), checked here against binary64 pow rounded to
binary32. float16: x widened, the same binary32 steps, y rounded once to float16; double: the same steps in
binary64 (a = alpha / size with alpha, beta, bias the float attributes widened), the power from the library's
double Pow node (om_pow_exact_f64, within 1 ulp of numpy's). Stock ONNX Runtime (float only; it has no float16
or double LRN kernel) within 2e-6 relative (it slides the window's sum, adding and subtracting, and uses its
own power: a few ulp of the sum, amplified by beta); bad attributes and types (bfloat16, integers) fail with
node and op named at creation; zero-size inputs.
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

VIAS = ("rewrite", "ep") if onemodel_ep.ep_supported() else ("rewrite",)
F32 = np.float32


def pow_exact(d: np.ndarray, beta: float) -> np.ndarray:
    t = TensorProto.DOUBLE if d.dtype == np.float64 else TensorProto.FLOAT
    node = Node("Pow", [t, t], onnx_opset=13, mode="exact", name="pow")
    p = node.run_outputs(d, np.full(d.shape, d.dtype.type(beta), d.dtype))[0]
    with np.errstate(all="ignore"):
        near = np.power(d.astype(np.float64), float(d.dtype.type(beta))).astype(d.dtype)
        # binary32: correctly rounded (nearly always binary64 pow rounded); binary64: within 1 ulp (pow.c)
        close = (p == near) | (np.abs(p - near) <= np.spacing(np.abs(near)))
        agree = (p == near) if d.dtype == F32 else close
    agree |= np.isnan(p) & np.isnan(near)
    least = 0.999 if d.dtype == F32 else 1 - 1e-9
    assert agree.size == 0 or agree.mean() > least, "the library's Pow is not the power"
    return p


def lrn_want(x: np.ndarray, size: int, alpha: float, beta: float, bias: float) -> np.ndarray:
    at = np.float64 if x.dtype == np.float64 else F32  # float16: widened to binary32, rounded once at the end
    xa = x.astype(at)
    c = x.shape[1]
    lo, hi = (size - 1) // 2, (size - 1) - (size - 1) // 2
    a = at(F32(alpha)) / at(size)
    y = np.empty_like(xa)
    with np.errstate(all="ignore"):
        ds = []
        for k in range(c):
            s = np.zeros(xa[:, 0].shape, at)
            for i in range(max(0, k - lo), min(c - 1, k + hi) + 1):
                s = s + xa[:, i] * xa[:, i]  # the product rounded, then the sum
            ds.append(at(F32(bias)) + a * s)
        if c:
            p = pow_exact(np.stack(ds, axis=1), float(F32(beta)))
            y = xa / p
    return np.where(np.isnan(y), at(np.nan), y).astype(x.dtype)


# (shape, size, alpha, beta, bias (None: default))
GEOM: list[tuple[tuple[int, ...], int, float | None, float | None, float | None]] = [
    ((2, 7, 5, 6), 3, None, None, None),
    ((1, 16, 9, 9), 5, 1e-3, 0.75, 2.0),
    ((2, 5, 300), 4, 0.5, 0.6, 1.0),  # an even size: one more channel after than before
    ((3, 9), 7, 2.0, 1.5, 0.5),  # rank 2
    ((1, 3, 2, 2, 3), 9, 1.0, 0.25, 1.0),  # a window wider than C, 3 spatial axes
    ((1, 64, 40, 40), 5, 1e-4, 0.75, 1.0),  # several chunks
    ((0, 4, 3, 3), 3, None, None, None),
    ((2, 0, 3), 3, None, None, None),
    ((2, 3, 0, 5), 3, None, None, None),
]


def lrn_cases() -> list[Case]:
    out = []
    for i, (shape, size, alpha, beta, bias) in enumerate(GEOM):
        rng = np.random.default_rng(i)
        x = (rng.standard_normal(shape) * 3).astype(F32)
        if i == 0:
            x[0, 0, 0, :3] = [np.inf, np.nan, -0.0]
        attrs: dict[str, object] = {"size": size}
        attrs.update({k: v for k, v in (("alpha", alpha), ("beta", beta), ("bias", bias)) if v is not None})
        want = lrn_want(x, size, 1e-4 if alpha is None else alpha, 0.75 if beta is None else beta,
                        1.0 if bias is None else bias)
        out.append(Case("LRN", 13, [x], [False], attrs, [want]))
    return out


def lrn_typed_cases() -> list[Case]:
    """float16 and double: a few geometries (NaN, inf, -0 and a several-chunk one among them)."""
    out = []
    for dt in (np.float16, np.float64):
        for c in (lrn_cases()[i] for i in (0, 2, 3, 5, 7)):
            x = c.inputs[0].astype(dt)
            a = c.attrs
            want = lrn_want(x, int(a["size"]), float(a.get("alpha", 1e-4)), float(a.get("beta", 0.75)),
                            float(a.get("bias", 1.0)))
            out.append(Case("LRN", 13, [x], [False], a, [want]))
    return out


def test_lrn_float16_double_every_way_and_path() -> None:
    cases = lrn_typed_cases()
    every_way_matches(cases, 13)
    direct_every_path_matches(cases)


def test_lrn_opset1_float16() -> None:
    cases = [Case("LRN", 1, c.inputs, c.const, c.attrs, c.want) for c in lrn_typed_cases()[:2]]
    every_way_matches(cases, 1)


def test_lrn_ep_and_rewrite_match_the_docs_order() -> None:
    every_way_matches(lrn_cases(), 13)


def test_lrn_direct_every_path() -> None:
    direct_every_path_matches(lrn_cases())


def test_lrn_close_to_stock() -> None:
    """Stock slides the window's sum and has its own power: within 2e-6 relative, about 16 ulp (5 measured);
    4-D inputs only, the ones stock's kernel takes."""
    cases = [c for c in lrn_cases()
             if c.inputs[0].ndim == 4 and c.inputs[0].size and np.isfinite(c.inputs[0]).all()]
    model, feeds = model_of(cases, 13)
    for c, s in zip(cases, _stock(model, feeds), strict=True):
        np.testing.assert_allclose(s, c.want[0], rtol=2e-6, atol=1e-30, err_msg=c.label())


@pytest.mark.parametrize(
    "t,attrs,msg",
    [
        (TensorProto.FLOAT, {}, "attribute size is required"),
        (TensorProto.FLOAT, {"size": 0}, "attribute size is 0"),
        (TensorProto.FLOAT, {"size": -3}, "attribute size is -3"),
        (TensorProto.DOUBLE, {"size": 0}, "attribute size is 0"),
        (TensorProto.FLOAT16, {}, "attribute size is required"),
        (TensorProto.BFLOAT16, {"size": 3}, "type"),
        (TensorProto.INT32, {"size": 3}, "type"),
    ],
)
def test_lrn_creation_errors(t: int, attrs: dict[str, int], msg: str) -> None:
    with pytest.raises(NodeError, match=msg) as e:
        Node("LRN", [t], onnx_opset=13, attributes=attrs, name="bad")
    assert "'bad'" in str(e.value) and "LRN" in str(e.value)


def test_lrn_rank_one_fails_at_run() -> None:
    node = Node("LRN", [TensorProto.FLOAT], onnx_opset=13, attributes={"size": 3}, name="bad")
    with pytest.raises(NodeError, match="'bad'.*LRN.*rank 1"):
        node.run_outputs(np.ones(4, F32))


@pytest.mark.parametrize("via", VIAS)
def test_lrn_bad_size_names_node_at_session_creation(via: str) -> None:
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 2, 2])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    node = helper.make_node("LRN", ["x"], ["y"], name="badsize", size=0)
    # refused at creation (by us or by stock's own kernel), or left to stock, which refuses it at run
    assert_left_to_stock(one_node_model(node, [x], [y], 13), via, ["size"])
