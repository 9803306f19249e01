"""LpPool and GlobalLpPool (node_window_pool.c over pool/window_pool_body.inc, docs/pooling-norm.md) through
the execution provider and the rewrite path, bit for bit against the order written in the docs, computed here
in NumPy in binary32 (per output, s = +0, then s + |x| or s + x * x over the window's taps in window order,
padding taps adding nothing, then s or sqrt(s)), on every kernel path by direct calls and on 1 and 2 threads;
stock ONNX Runtime within 2 k float epsilons relative for windows of k taps (it takes pow(|x|, p) and
pow(s, 1 / p) and sums in its own order); p other than 1 and 2 stays with stock; bad attributes and types fail
with node and op named; zero-size inputs.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

import onemodel_ep
from onemodel_ep.node import Node, NodeError
from tests.nodes.movement_cases import Case, model_of
from tests.nodes.test_movement_ops import _ours, _same, _stock

VIAS = ("rewrite", "ep") if onemodel_ep.ep_supported() else ("rewrite",)
F32 = np.float32


def _geometry(shape: tuple[int, ...], a: dict) -> tuple[list[int], list[int], list[int]]:
    """Output sizes and begin/end pads per spatial axis (ONNX's rules, explicit pads or SAME_UPPER/VALID)."""
    k = a["kernel_shape"]
    n = len(k)
    s = a.get("strides", [1] * n)
    d = a.get("dilations", [1] * n)
    pads = a.get("pads", [0] * 2 * n)
    outs, pb, pe = [], list(pads[:n]), list(pads[n:])
    for i in range(n):
        size, ext = shape[2 + i], d[i] * (k[i] - 1) + 1
        if a.get("auto_pad") == "SAME_UPPER":
            o = -(-size // s[i])
            total = max((o - 1) * s[i] + ext - size, 0)
            pb[i], pe[i] = total // 2, total - total // 2
        elif a.get("auto_pad") == "VALID":
            o = (size - ext) // s[i] + 1
            pb[i] = pe[i] = 0
        else:
            span = size + pb[i] + pe[i] - ext
            o = (math.ceil(span / s[i]) if a.get("ceil_mode") else span // s[i]) + 1
            if a.get("ceil_mode") and (o - 1) * s[i] >= size + pb[i]:
                o -= 1
        outs.append(o)
    return outs, pb, pe


def lp_pool_want(x: np.ndarray, a: dict) -> np.ndarray:
    p = a.get("p", 2)
    outs, pb, pe = _geometry(x.shape, a)
    k, n = a["kernel_shape"], len(a["kernel_shape"])
    s = a.get("strides", [1] * n)
    d = a.get("dilations", [1] * n)
    extra = [max(s[i] * outs[i] + d[i] * k[i], x.shape[2 + i] + pb[i] + pe[i]) for i in range(n)]
    xp = np.zeros(x.shape[:2] + tuple(extra[i] + pb[i] for i in range(n)), F32)  # padding: adds +0
    xp[(slice(None), slice(None)) + tuple(slice(pb[i], pb[i] + x.shape[2 + i]) for i in range(n))] = x
    acc = np.zeros(x.shape[:2] + tuple(outs), F32)
    for taps in itertools.product(*(range(ki) for ki in k)):  # window order
        sl = tuple(slice(taps[i] * d[i], taps[i] * d[i] + s[i] * outs[i], s[i]) if outs[i] else slice(0, 0)
                   for i in range(n))
        v = xp[(slice(None), slice(None)) + sl]
        with np.errstate(invalid="ignore", over="ignore"):
            acc = acc + (np.abs(v) if p == 1 else v * v)
    y = acc if p == 1 else np.sqrt(acc)
    return np.where(np.isnan(y), F32(np.nan), y).astype(F32)


def global_lp_want(x: np.ndarray, p: int) -> np.ndarray:
    flat = x.reshape(x.shape[:2] + (int(np.prod(x.shape[2:])),))
    acc = np.zeros(x.shape[:2], F32)
    with np.errstate(invalid="ignore", over="ignore"):
        for i in range(flat.shape[2]):
            acc = acc + (np.abs(flat[..., i]) if p == 1 else flat[..., i] * flat[..., i])
    y = (acc if p == 1 else np.sqrt(acc)).reshape(x.shape[:2] + (1,) * (x.ndim - 2))
    return np.where(np.isnan(y), F32(np.nan), y).astype(F32)


# (opset, shape, attributes)
LP: list[tuple[int, tuple[int, ...], dict]] = [
    (11, (2, 3, 9, 9), {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]}),
    (11, (2, 3, 37), {"kernel_shape": [4], "strides": [3], "p": 1}),
    (11, (1, 2, 5, 6, 7), {"kernel_shape": [2, 2, 3], "p": 2}),
    (11, (1, 4, 7, 8), {"kernel_shape": [3, 3], "auto_pad": "SAME_UPPER", "p": 1}),
    (11, (1, 4, 7, 8), {"kernel_shape": [2, 3], "auto_pad": "VALID", "strides": [2, 1]}),
    (18, (2, 3, 10, 9), {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1], "ceil_mode": 1}),
    (18, (1, 2, 11, 8), {"kernel_shape": [3, 2], "dilations": [2, 1], "p": 1}),
    (18, (1, 64, 56, 56), {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]}),  # many chunks
    (18, (0, 3, 9, 9), {"kernel_shape": [3, 3]}),
    (18, (2, 0, 5, 5), {"kernel_shape": [1, 3]}),
]
GLOBAL: list[tuple[tuple[int, ...], int | None]] = [
    ((2, 3, 7, 7), None), ((1, 5, 1037), 1), ((1, 2, 3, 4, 5), 2), ((2, 3, 0), 2), ((0, 3, 4, 4), 1),
]


def values(shape: tuple[int, ...], seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape) * np.exp2(rng.integers(-4, 4, shape))).astype(F32)


def lp_cases(opset: int) -> list[Case]:
    out = []
    for i, (o, shape, a) in enumerate(LP):
        if o != opset:
            continue
        x = values(shape, i)
        if i == 0:
            x[0, 0, 0, :3] = [np.inf, np.nan, -0.0]
        out.append(Case("LpPool", opset, [x], [False], a, [lp_pool_want(x, a)]))
    if opset == 18:
        for i, (shape, p) in enumerate(GLOBAL):
            x = values(shape, 100 + i)
            a = {} if p is None else {"p": p}
            out.append(Case("GlobalLpPool", opset, [x], [False], a, [global_lp_want(x, p or 2)]))
    return out


@pytest.mark.parametrize("opset", (11, 18))
@pytest.mark.parametrize("via", VIAS)
@pytest.mark.parametrize("threads", (1, 2))
def test_lp_pool_ep_and_rewrite_match_the_docs_order(opset: int, via: str, threads: int) -> None:
    cases = lp_cases(opset)
    model, feeds = model_of(cases, opset)
    sess = _ours(model, via, threads)
    stayed = [str(n) for n in sess.report.nodes if not n.moved]
    assert not stayed, stayed
    for c, g in zip(cases, sess.run(None, feeds), strict=True):
        _same(f"{via} threads {threads}: {c.label()}", g, c.want[0])


def test_lp_pool_direct_every_path() -> None:
    for c in lp_cases(11) + lp_cases(18):
        for path in onemodel_ep.kernel_paths():
            node = Node(c.op, [TensorProto.FLOAT], onnx_opset=c.opset, attributes=c.attrs, kernel_path=path,
                        name="m")
            _same(f"{c.label()} path {path}", node.run_outputs(*c.inputs)[0], c.want[0])


@pytest.mark.parametrize("opset", (11, 18))
def test_lp_pool_close_to_stock(opset: int) -> None:
    """Stock takes pow(|x|, p), sums in its order and takes pow(s, 1 / p): within 2 k float epsilons relative
    for windows of k taps."""
    cases = [c for c in lp_cases(opset) if c.inputs[0].size and np.isfinite(c.inputs[0]).all()]
    model, feeds = model_of(cases, opset)
    for c, s in zip(cases, _stock(model, feeds), strict=True):
        k = int(np.prod(c.attrs["kernel_shape"])) if "kernel_shape" in c.attrs else c.inputs[0][0, 0].size
        rtol = 2 * k * float(np.finfo(F32).eps)
        np.testing.assert_allclose(s, c.want[0], rtol=rtol, atol=1e-30, err_msg=c.label())


@pytest.mark.parametrize(
    "op,t,attrs,msg",
    [
        ("LpPool", TensorProto.FLOAT, {"kernel_shape": [2, 2], "p": 3}, "attribute p is 3; only 1 and 2"),
        ("GlobalLpPool", TensorProto.FLOAT, {"p": 0}, "attribute p is 0"),
        ("LpPool", TensorProto.DOUBLE, {"kernel_shape": [2, 2]}, "type"),
        ("GlobalLpPool", TensorProto.FLOAT16, {}, "type"),
        ("LpPool", TensorProto.FLOAT, {}, "kernel_shape is required"),
        ("LpPool", TensorProto.FLOAT, {"kernel_shape": [2, 2], "pads": [2, 0, 0, 0]}, "pads"),
        ("LpPool", TensorProto.FLOAT, {"kernel_shape": [2, 2], "strides": [0, 1]}, "strides"),
    ],
)
def test_lp_pool_creation_errors(op: str, t: int, attrs: dict, msg: str) -> None:
    with pytest.raises(NodeError, match=msg) as e:
        Node(op, [t], onnx_opset=18, attributes=attrs, name="bad")
    assert "'bad'" in str(e.value) and op in str(e.value)


@pytest.mark.parametrize("op,shape", [("LpPool", (2, 3, 4)), ("GlobalLpPool", (2, 3))])
def test_lp_pool_bad_rank_at_run(op: str, shape: tuple[int, ...]) -> None:
    attrs = {"kernel_shape": [2, 2]} if op == "LpPool" else {}
    node = Node(op, [TensorProto.FLOAT], onnx_opset=18, attributes=attrs, name="bad")
    with pytest.raises(NodeError, match=f"'bad'.*{op}.*rank {len(shape)}"):
        node.run_outputs(np.ones(shape, F32))


@pytest.mark.parametrize("via", VIAS)
def test_lp_pool_p3_stays_with_stock(via: str) -> None:
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 4, 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    nodes = [helper.make_node("LpPool", ["x"], ["y"], name="p3", kernel_shape=[2, 2], p=3)]
    model = helper.make_model(helper.make_graph(nodes, "g", [x], [y]), ir_version=8,
                              opset_imports=[helper.make_opsetid("", 18)])
    so = ort.SessionOptions()
    so.log_severity_level = 3
    sess = onemodel_ep.InferenceSession(model, sess_options=so, via=via)
    assert [n.moved for n in sess.report.nodes] == [False]
    xv = values((1, 2, 4, 4), 7)
    assert sess.run(None, {"x": xv})[0].shape == (1, 2, 3, 3)
