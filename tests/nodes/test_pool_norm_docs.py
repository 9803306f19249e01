"""LpPool and GlobalLpPool (p >= 3; float16, float, double) and LRN (float16, double) against
tests/reference/pool_norm_docs_reference.py, written from docs/pooling-norm.md alone. float16 and float: bit
for bit on every kernel path through the node API (strides, pads, dilations, ceil_mode, 1-D to 3-D, inf and
NaN inputs, zero-size batches); double: the page specifies binary64 Pow only "within 1 ulp", so every output
must lie in the set that allows (and be the same bits on every path and at 1 and 2 threads)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pytest
from onnx import TensorProto, helper

import onemodel_ep
from onemodel_ep.node import Node, NodeError
from tests.nodes import node_sessions as S
from tests.reference import pool_norm_docs_reference as R

PATHS = onemodel_ep.kernel_paths()
H16, F32, F64 = np.float16, np.float32, np.float64


def _tt(dt: type) -> int:
    return helper.np_dtype_to_tensor_dtype(np.dtype(dt))


@dataclass(frozen=True)
class Pool:
    id: str
    shape: tuple[int, ...]
    dtype: type
    p: int
    kernel: tuple[int, ...] = ()  # () = GlobalLpPool
    attrs: dict[str, list[int] | int] = field(default_factory=dict)
    special: bool = False


POOLS = [
    Pool("f32_p3_2d_stride_pads_ceil", (2, 3, 7, 8), F32, 3, (3, 3),
         {"strides": [2, 2], "pads": [1, 0, 1, 1], "ceil_mode": 1}, special=True),
    Pool("f16_p3_1d_dilated", (1, 4, 19), H16, 3, (3,), {"dilations": [2], "pads": [1, 2]}),
    Pool("f16_p4_3d", (1, 2, 4, 5, 3), H16, 4, (2, 3, 2), {"strides": [1, 2, 1]}),
    Pool("f32_p7_1d_large_values", (2, 2, 11), F32, 7, (4,), {"strides": [3]}),
    Pool("global_f32_p5", (2, 3, 6, 7), F32, 5),
    Pool("global_f16_p3_3d", (1, 3, 3, 4, 5), H16, 3, special=True),
    Pool("f32_p3_zero_batch", (0, 3, 5, 5), F32, 3, (2, 2)),
]


def _pool_input(c: Pool) -> np.ndarray:
    rng = np.random.default_rng(3)
    scale = 40.0 if "large" in c.id else 2.0
    x = (rng.standard_normal(c.shape) * scale).astype(c.dtype)
    if c.special and x.size:  # an inf in one window, a NaN in another
        x.reshape(x.shape[0], x.shape[1], -1)[0, 1, 0] = np.inf
        x.reshape(x.shape[0], x.shape[1], -1)[0, 2, -1] = np.nan
    return x


def _pool_node(c: Pool, path: str | None, dtype: type | None = None) -> Node:
    if c.kernel:
        attrs = {"kernel_shape": list(c.kernel), "p": c.p, **c.attrs}
        return Node("LpPool", [_tt(dtype or c.dtype)], onnx_opset=18, attributes=attrs, kernel_path=path,
                    name="lp")
    return Node("GlobalLpPool", [_tt(dtype or c.dtype)], onnx_opset=2, attributes={"p": c.p},
                kernel_path=path, name="glp")


def _pool_want(c: Pool, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    if not c.kernel:
        return R.global_lp_pool(x, c.p)
    a = c.attrs
    return R.lp_pool(x, c.p, c.kernel, a.get("strides"), a.get("pads"), a.get("dilations"),  # type: ignore
                     int(a.get("ceil_mode", 0)))  # type: ignore[arg-type]


@pytest.mark.parametrize("c", POOLS, ids=[c.id for c in POOLS])
def test_lp_pool_docs_bits(c: Pool) -> None:
    x = _pool_input(c)
    want, _ = _pool_want(c, x)
    assert want.dtype == c.dtype
    for path in PATHS:
        S.assert_exact_bits(f"{c.id} path {path}", _pool_node(c, path).run(x), want)


@pytest.mark.parametrize("kernel", [(2, 3), ()], ids=["lp_pool", "global"])
def test_lp_pool_docs_double_within_contract(kernel: tuple[int, ...]) -> None:
    """double, p = 3, inputs k / 8 (|x|^3 exact in binary64: the page's "exact integer powers first"): the
    window sums are then the reference's exactly, and y = Pow(s, R) must be a binary64 within 1 ulp of the
    real s^R (R = RN64(1/3)); the same bits on every path."""
    c = Pool("f64", (2, 2, 5, 6), F64, 3, kernel)
    rng = np.random.default_rng(9)
    x = (rng.integers(-40, 41, c.shape) / 8).astype(F64)
    _, s = _pool_want(c, x)
    r = F64(1) / F64(3)
    outs = [_pool_node(c, path).run(x) for path in PATHS]
    for path, got in zip(PATHS, outs, strict=True):
        S.assert_exact_bits(f"f64 {kernel} path {path} vs {PATHS[0]}", got, outs[0])
    got = outs[0]
    for i in np.ndindex(s.shape):
        allowed = {0} if s[i] == 0 else R.pow64_candidates(float(s[i]), float(r))
        assert int(np.array(got[i]).view(np.uint64)) in allowed, (i, got[i], s[i])


def test_lp_pool_docs_bad_p() -> None:
    with pytest.raises(NodeError, match="lp"):
        Node("LpPool", [TensorProto.FLOAT], onnx_opset=18, attributes={"kernel_shape": [2], "p": 0},
             name="lp")


def _pool_model(c: Pool) -> object:
    node = helper.make_node("LpPool", ["x"], ["y"], name="lp", kernel_shape=list(c.kernel), p=c.p, **c.attrs)
    t = _tt(c.dtype)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", t, list(c.shape))],
                              [helper.make_tensor_value_info("y", t, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)], ir_version=9)


def test_lp_pool_docs_every_way() -> None:
    c = POOLS[1]
    x = _pool_input(c)
    want, _ = _pool_want(c, x)
    for where, got in S.runs(_pool_model(c), {"x": x}, "LpPool").items():  # type: ignore[arg-type]
        S.assert_exact_bits(f"{c.id} {where}", got[0], want)


@dataclass(frozen=True)
class Lrn:
    id: str
    shape: tuple[int, ...]
    dtype: type
    size: int
    alpha: float = 1e-4
    beta: float = 0.75
    bias: float = 1.0


LRNS = [
    Lrn("f16_size3_defaults", (2, 5, 4, 3), H16, 3),
    Lrn("f16_size4_even_attrs_rank3", (1, 7, 9), H16, 4, alpha=0.3, beta=0.6, bias=2.0),
    Lrn("f16_size5_rank2_big", (3, 8), H16, 5, alpha=2e-3, beta=1.3, bias=0.5),
    Lrn("f64_size5", (2, 6, 3, 2), F64, 5, alpha=1e-2, beta=0.75, bias=1.5),
    Lrn("f64_size2_rank3", (1, 4, 5), F64, 2, alpha=0.7, beta=0.3, bias=1.0),
]


def _lrn_input(c: Lrn) -> np.ndarray:
    rng = np.random.default_rng(4)
    scale = 300.0 if "big" in c.id else 3.0
    x = (rng.standard_normal(c.shape) * scale).astype(c.dtype)
    if c.dtype == H16:
        x.reshape(-1)[5] = np.nan  # its window's outputs are the canonical NaN 0x7E00
    return x


def _lrn_node(c: Lrn, path: str | None) -> Node:
    return Node("LRN", [_tt(c.dtype)], onnx_opset=13, kernel_path=path, name="lrn",
                attributes={"size": c.size, "alpha": c.alpha, "beta": c.beta, "bias": c.bias})


@pytest.mark.parametrize("c", [c for c in LRNS if c.dtype == H16], ids=[c.id for c in LRNS if c.dtype == H16])
def test_lrn_docs_f16_bits(c: Lrn) -> None:
    x = _lrn_input(c)
    want, _, _ = R.lrn(x, c.size, c.alpha, c.beta, c.bias)
    assert np.isnan(want).any() and (want.view(np.uint16)[np.isnan(want)] == 0x7E00).all()
    for path in PATHS:
        S.assert_exact_bits(f"{c.id} path {path}", _lrn_node(c, path).run(x), want)


@pytest.mark.parametrize("c", [c for c in LRNS if c.dtype == F64], ids=[c.id for c in LRNS if c.dtype == F64])
def test_lrn_docs_double_within_contract(c: Lrn) -> None:
    """double: d follows the page's order exactly; p = Pow(d, beta) any binary64 within 1 ulp of the real
    d^beta, so y = RN64(x / p) must be one of those quotients; the same bits on every path."""
    x = _lrn_input(c)
    _, d, beta = R.lrn(x, c.size, c.alpha, c.beta, c.bias)
    outs = [_lrn_node(c, path).run(x) for path in PATHS]
    for path, got in zip(PATHS, outs, strict=True):
        S.assert_exact_bits(f"{c.id} path {path} vs {PATHS[0]}", got, outs[0])
    got = outs[0]
    for i in np.ndindex(x.shape):
        allowed = R.lrn64_allowed(float(x[i]), float(d[i]), float(beta))
        assert int(np.array(got[i]).view(np.uint64)) in allowed, (i, got[i], x[i], d[i])


def test_lrn_docs_zero_size_and_bad_size() -> None:
    c = LRNS[0]
    x = np.zeros((0, 5, 2, 2), H16)
    assert _lrn_node(c, None).run(x).shape == x.shape
    with pytest.raises(NodeError, match="lrn"):
        Node("LRN", [TensorProto.FLOAT16], onnx_opset=13, attributes={"size": 0}, name="lrn")
