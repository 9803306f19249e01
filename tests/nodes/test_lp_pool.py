"""LpPool and GlobalLpPool (node_window_pool.c over pool/window_pool_body.inc and node/lp_power.c,
docs/pooling-norm.md) through the execution provider and the rewrite path, bit for bit against the order
written in the docs, computed here in NumPy in the accumulation type (binary32 for float16, widened, and
float; binary64 for double): per output, s = +0, then s + t over the window's taps in window order with
t = |x|, x * x or (p >= 3) Pow(|x|, p), padding taps adding nothing, then s, sqrt(s) or Pow(s, fl(1 / p)),
float16 rounded once. Pow is the library's own exact Pow node (f32 correctly rounded, f64
om_pow_exact_f64 within 1 ulp; their own tests are tests/kernels'), checked here against numpy's binary64
power.
On every kernel path by direct calls and on 1 and 2 threads; stock ONNX Runtime (float only: it has no
float16 or double LpPool) within 2 k float epsilons relative for windows of k taps (p + 1 for p >= 3: it
takes pow(|x|, p) and pow(s, 1 / p) and sums in its own order); p < 1 fails; bad attributes and types fail
with node and op named; zero-size inputs; opsets 2 and 10 (the row starts at 2, as stock's kernel).
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
from tests.nodes.case_runs import direct_every_path_matches, every_way_matches, one_way_matches
from tests.nodes.movement_cases import Case, model_of
from tests.nodes.test_movement_ops import _same, _stock

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


def _acc(x: np.ndarray) -> type:
    return np.float64 if x.dtype == np.float64 else F32


def lib_pow(base: np.ndarray, e: float) -> np.ndarray:
    """The library's exact Pow of base (binary32 or binary64) by the scalar e of the same type."""
    t = TensorProto.DOUBLE if base.dtype == np.float64 else TensorProto.FLOAT
    if base.size == 0:
        return base.copy()
    node = Node("Pow", [t, t], onnx_opset=13, mode="exact", name="pow")
    got = node.run_outputs(base, np.full(base.shape, e, base.dtype))[0]
    with np.errstate(all="ignore"):
        near = np.power(base.astype(np.float64), float(base.dtype.type(e))).astype(base.dtype)
        ulp = np.spacing(np.abs(near))
        # binary32: correctly rounded, so nearly always binary64 pow rounded; binary64: within 1 ulp (pow.c)
        agree = (got == near) if base.dtype == F32 else (np.abs(got - near) <= ulp) | (got == near)
    agree |= np.isnan(got) & np.isnan(near)
    assert agree.mean() > (0.99 if base.dtype == F32 else 1 - 1e-9), "the library's Pow is not the power"
    return got


def lp_terms(x: np.ndarray, p: int) -> np.ndarray:
    """t = |x|, x * x or Pow(|x|, p) of every element, in the accumulation type."""
    xa = x.astype(_acc(x))
    with np.errstate(invalid="ignore", over="ignore"):
        if p == 1:
            return np.abs(xa)
        if p == 2:
            return xa * xa
    return lib_pow(np.abs(xa), float(p))


def lp_finish(acc: np.ndarray, p: int, dtype: np.dtype) -> np.ndarray:
    """y = s, sqrt(s) or Pow(s, fl(1 / p)), NaN canonical, float16 rounded once."""
    with np.errstate(invalid="ignore"):
        r = float(acc.dtype.type(1) / acc.dtype.type(p))
        y = acc if p == 1 else np.sqrt(acc) if p == 2 else lib_pow(acc, r)
    return np.where(np.isnan(y), acc.dtype.type(np.nan), y).astype(dtype)


def lp_pool_want(x: np.ndarray, a: dict) -> np.ndarray:
    p = a.get("p", 2)
    outs, pb, pe = _geometry(x.shape, a)
    k, n = a["kernel_shape"], len(a["kernel_shape"])
    s = a.get("strides", [1] * n)
    d = a.get("dilations", [1] * n)
    extra = [max(s[i] * outs[i] + d[i] * k[i], x.shape[2 + i] + pb[i] + pe[i]) for i in range(n)]
    at = _acc(x)
    xp = np.zeros(x.shape[:2] + tuple(extra[i] + pb[i] for i in range(n)), at)  # padding: adds +0
    inner = tuple(slice(pb[i], pb[i] + x.shape[2 + i]) for i in range(n))
    xp[(slice(None), slice(None)) + inner] = lp_terms(x, p)
    acc = np.zeros(x.shape[:2] + tuple(outs), at)
    for taps in itertools.product(*(range(ki) for ki in k)):  # window order
        sl = tuple(slice(taps[i] * d[i], taps[i] * d[i] + s[i] * outs[i], s[i]) if outs[i] else slice(0, 0)
                   for i in range(n))
        with np.errstate(invalid="ignore", over="ignore"):
            acc = acc + xp[(slice(None), slice(None)) + sl]
    return lp_finish(acc, p, x.dtype)


def global_lp_want(x: np.ndarray, p: int) -> np.ndarray:
    flat = lp_terms(x, p).reshape(x.shape[:2] + (int(np.prod(x.shape[2:])),))
    acc = np.zeros(x.shape[:2], _acc(x))
    with np.errstate(invalid="ignore", over="ignore"):
        for i in range(flat.shape[2]):
            acc = acc + flat[..., i]
    return lp_finish(acc, p, x.dtype).reshape(x.shape[:2] + (1,) * (x.ndim - 2))


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
    one_way_matches(lp_cases(opset), opset, via, threads)


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


# the other types and p: (op, opset, shape, dtype, attributes)
MORE: list[tuple[str, int, tuple[int, ...], type, dict]] = [
    ("LpPool", 18, (2, 3, 9, 9), F32, {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1] * 4, "p": 3}),
    ("LpPool", 18, (1, 2, 11, 8), F32, {"kernel_shape": [3, 2], "dilations": [2, 1], "p": 4, "ceil_mode": 1}),
    ("LpPool", 11, (2, 3, 37), F32, {"kernel_shape": [4], "strides": [3], "p": 7}),
    ("LpPool", 18, (1, 64, 30, 30), F32, {"kernel_shape": [3, 3], "p": 3}),  # several chunks of both passes
    ("LpPool", 18, (2, 3, 9, 9), np.float16, {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1], "p": 1}),
    ("LpPool", 18, (2, 3, 9, 9), np.float16, {"kernel_shape": [3, 3], "strides": [2, 2]}),
    ("LpPool", 11, (1, 2, 5, 6, 7), np.float16, {"kernel_shape": [2, 2, 3], "p": 3}),
    ("LpPool", 18, (2, 3, 9, 9), np.float64, {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1], "p": 1}),
    ("LpPool", 18, (1, 4, 7, 8), np.float64, {"kernel_shape": [3, 3], "auto_pad": "SAME_UPPER"}),
    ("LpPool", 18, (2, 3, 37), np.float64, {"kernel_shape": [4], "strides": [3], "p": 3}),
    ("LpPool", 18, (0, 3, 9, 9), np.float64, {"kernel_shape": [3, 3], "p": 3}),
    ("GlobalLpPool", 18, (2, 3, 7, 7), F32, {"p": 3}),
    ("GlobalLpPool", 18, (1, 5, 1037), np.float16, {"p": 2}),
    ("GlobalLpPool", 18, (1, 2, 3, 4, 5), np.float64, {"p": 5}),
    ("GlobalLpPool", 18, (2, 3, 0), np.float16, {"p": 3}),
    ("LpPool", 2, (2, 3, 9, 9), F32, {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1] * 4, "p": 3}),
    ("LpPool", 10, (1, 4, 7, 8), F32, {"kernel_shape": [2, 3], "auto_pad": "VALID", "strides": [2, 1]}),
    ("GlobalLpPool", 2, (2, 3, 7, 7), np.float64, {"p": 3}),
]


def more_cases(opset: int) -> list[Case]:
    out = []
    for i, (op, o, shape, dt, a) in enumerate(MORE):
        if o != opset:
            continue
        x = values(shape, 300 + i).astype(dt)
        if x.size and x.ndim == 4:
            x[0, 0, 0, :3] = [np.inf, np.nan, -0.0]
        want = lp_pool_want(x, a) if op == "LpPool" else global_lp_want(x, int(a.get("p", 2)))
        out.append(Case(op, opset, [x], [False], a, [want]))
    return out


@pytest.mark.parametrize("opset", (2, 10, 11, 18))
def test_lp_pool_types_and_p_every_way(opset: int) -> None:
    every_way_matches(more_cases(opset), opset)


def test_lp_pool_types_and_p_every_path() -> None:
    direct_every_path_matches(more_cases(2) + more_cases(10) + more_cases(11) + more_cases(18))


def test_lp_pool_p3_close_to_stock() -> None:
    """Stock runs float only: within (p + 1) k float epsilons relative for windows of k taps (its own pow of
    each tap and of the sum, its own summation order)."""
    cases = [c for o in (2, 10, 11, 18) for c in more_cases(o)
             if c.inputs[0].dtype == F32 and c.inputs[0].size and np.isfinite(c.inputs[0]).all()]
    assert cases
    for o in (2, 10, 11, 18):
        mine = [c for c in cases if c.opset == o]
        if not mine:
            continue
        model, feeds = model_of(mine, o)
        for c, s in zip(mine, _stock(model, feeds), strict=True):
            k = int(np.prod(c.attrs["kernel_shape"])) if "kernel_shape" in c.attrs else c.inputs[0][0, 0].size
            rtol = (int(c.attrs.get("p", 2)) + 1) * k * float(np.finfo(F32).eps)
            np.testing.assert_allclose(s, c.want[0], rtol=rtol, atol=1e-30, err_msg=c.label())


@pytest.mark.parametrize(
    "op,t,attrs,msg",
    [
        ("LpPool", TensorProto.FLOAT, {"kernel_shape": [2, 2], "p": -1}, "p is -1; it must be 1 or more"),
        ("GlobalLpPool", TensorProto.FLOAT, {"p": 0}, "attribute p is 0"),
        ("LpPool", TensorProto.FLOAT16, {"kernel_shape": [2, 2], "p": 0}, "attribute p is 0"),
        ("LpPool", TensorProto.BFLOAT16, {"kernel_shape": [2, 2]}, "type"),
        ("GlobalLpPool", TensorProto.INT32, {}, "type"),
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
def test_lp_pool_opset1_float_p_stays_with_stock(via: str) -> None:
    """Opset 1's p is a float attribute: not ours (stock ONNX Runtime registers LpPool from opset 2; the node
    is left to it, which refuses or runs it, never us)."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 4, 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    nodes = [helper.make_node("GlobalLpPool", ["x"], ["y"], name="p1", p=2.0)]
    model = helper.make_model(helper.make_graph(nodes, "g", [x], [y]), ir_version=8,
                              opset_imports=[helper.make_opsetid("", 1)])
    so = ort.SessionOptions()
    so.log_severity_level = 3
    try:
        sess = onemodel_ep.InferenceSession(model, sess_options=so, via=via)
    except Exception as e:  # noqa: BLE001 - stock has no opset-1 kernel: refused at creation, naming the op
        assert "GlobalLpPool" in str(e), str(e)
        return
    assert [n.moved for n in sess.report.nodes] == [False]
