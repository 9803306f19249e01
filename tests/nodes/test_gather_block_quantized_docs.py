"""com.microsoft GatherBlockQuantized with f16 scales (uint8 data) against
tests/reference/gather_block_quantized_docs_reference.py, written from docs/transformer-ops.md alone: bits 2,
4 and 8, with and without packed zero points, rank-3 data, int32 and int64 indices (negative ones), products
past 65504 (f16 infinity) and below half's subnormals, zero indices; bit for bit on every kernel path through
the node API, both ways in at 1 and 2 threads for one case, and one f32-scale control case."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from tests.nodes import node_sessions as S
from tests.reference import gather_block_quantized_docs_reference as R

OP = "com.microsoft.GatherBlockQuantized"


@dataclass(frozen=True)
class Case:
    id: str
    data: tuple[int, ...]
    indices: tuple[int, ...]
    bits: int
    block_size: int
    zp: bool
    idx_type: type = np.int64
    scales: type = np.float16
    scale_range: str = "plain"  # "plain", "huge" (products past 65504), "tiny" (below half's normals)


CASES = [
    Case("4bit_default_zp", (20, 40), (2, 3), 4, 16, False),
    Case("4bit_zp_rank3_int32", (6, 3, 24), (4,), 4, 16, True, np.int32),
    Case("8bit_zp_huge", (7, 40), (3,), 8, 16, True, scale_range="huge"),
    Case("8bit_tiny_subnormal", (5, 64), (2, 2), 8, 32, False, scale_range="tiny"),
    Case("2bit_zp_partial_block", (9, 10), (5,), 2, 16, True),
    Case("zero_indices", (9, 16), (0,), 4, 16, True),
    Case("f32_scales_control", (10, 48), (3,), 4, 32, True, scales=np.float32),
]


def _inputs(c: Case) -> list[np.ndarray]:
    rng = np.random.default_rng(5)
    data = rng.integers(0, 256, c.data).astype(np.uint8)
    q = c.data[-1] * 8 // c.bits
    nb = -(-q // c.block_size)
    s = rng.random((*c.data[:-1], nb)) + 0.01
    if c.scale_range == "huge":
        s = s * 600  # up to 255 * 600 = 153000 > 65504
    if c.scale_range == "tiny":
        s = s * 2e-6  # products in half's subnormal range (below 2^-14)
    scales = s.astype(c.scales)
    d0 = c.data[0]
    idx = rng.integers(-d0, d0, c.indices).astype(c.idx_type)
    ins = [data, idx, scales]
    if c.zp:
        ins.append(rng.integers(0, 256, (*c.data[:-1], -(-nb * c.bits // 8))).astype(np.uint8))
    return ins


def _types(ins: list[np.ndarray]) -> list[int]:
    return [helper.np_dtype_to_tensor_dtype(x.dtype) for x in ins]


def _attrs(c: Case) -> dict[str, int]:
    """quantize_axis: the last axis (the page: "give it for rank > 2")."""
    return {"bits": c.bits, "block_size": c.block_size, "quantize_axis": len(c.data) - 1}


def _want(c: Case, ins: list[np.ndarray]) -> np.ndarray:
    return R.gather_block_quantized(ins[0], ins[1], ins[2], ins[3] if c.zp else None, c.bits, c.block_size)


@pytest.mark.parametrize("c", CASES, ids=[c.id for c in CASES])
def test_gather_block_quantized_docs_bits(c: Case) -> None:
    ins = _inputs(c)
    want = _want(c, ins)
    assert want.dtype == c.scales
    S.assert_node_bits_every_path(c.id, OP, _types(ins), list(ins), [want], onnx_opset=1,
                                  attributes=_attrs(c), name="gbq")


def test_reference_covers_f16_range() -> None:
    """The reference itself: the huge case reaches f16 infinity, the tiny case half's subnormals."""
    c = CASES[2]
    y = _want(c, _inputs(c))
    assert np.isinf(y).any() and np.isfinite(y).any()
    c = CASES[3]
    y = _want(c, _inputs(c))
    sub = (y != 0) & (np.abs(y) < np.float16(2.0 ** -14))
    assert sub.any()


def _feeds(ins: list[np.ndarray]) -> dict[str, np.ndarray]:
    return dict(zip(["data", "indices", "scales", "zero_points"], ins, strict=False))


def _model(c: Case, ins: list[np.ndarray]) -> onnx.ModelProto:
    feeds = _feeds(ins)
    node = helper.make_node("GatherBlockQuantized", list(feeds), ["y"], name="gbq", domain="com.microsoft",
                            **_attrs(c))
    out_type = helper.np_dtype_to_tensor_dtype(np.dtype(c.scales))
    return S.one_node_model(node, feeds, out_type, 21, ms_opset=True)


def test_gather_block_quantized_docs_every_way() -> None:
    c = CASES[1]
    ins = _inputs(c)
    S.assert_runs_bits(c.id, _model(c, ins), _feeds(ins), "GatherBlockQuantized", [_want(c, ins)])


@pytest.mark.parametrize("c", [CASES[0], CASES[2]], ids=[CASES[0].id, CASES[2].id])
def test_gather_block_quantized_docs_vs_stock(c: Case) -> None:
    """The page says stock ORT's CPU kernel rounds in the same order: the same bits."""
    ins = _inputs(c)
    S.assert_exact_bits(c.id, S.stock(_model(c, ins), _feeds(ins))[0], _want(c, ins))


@dataclass(frozen=True)
class Case4:
    id: str
    data_type: int
    shape: tuple[int, ...]
    indices: tuple[int, ...]
    gather_axis: int
    quantize_axis: int
    block_size: int
    zp: bool


CASES4 = [
    Case4("uint4_g0_q_last_zp", TensorProto.UINT4, (6, 40), (2, 2), 0, 1, 16, True),
    Case4("int4_g1_q0", TensorProto.INT4, (33, 5, 3), (3,), 1, 0, 16, False),
    Case4("int4_g2_q1_zp", TensorProto.INT4, (2, 20, 7), (4,), -1, 1, 16, True),
]


def _case4(c: Case4) -> tuple[onnx.ModelProto, dict[str, np.ndarray], np.ndarray]:
    """A one-node model with data and zero points as initializers of the 4-bit type, and the reference."""
    rng = np.random.default_rng(13)
    lo, hi = (0, 16) if c.data_type == TensorProto.UINT4 else (-8, 8)
    values = rng.integers(lo, hi, c.shape)
    sshape = list(c.shape)
    q = c.quantize_axis % len(c.shape)
    sshape[q] = -(-c.shape[q] // c.block_size)
    scales = (rng.random(sshape) * 3 + 0.01).astype(np.float16)
    dg = c.shape[c.gather_axis % len(c.shape)]
    idx = rng.integers(-dg, dg, c.indices).astype(np.int64)
    zps = rng.integers(lo, hi, sshape) if c.zp else None
    inits = [helper.make_tensor("data", c.data_type, list(c.shape), values.reshape(-1).tolist())]
    names = ["data", "indices", "scales"]
    if zps is not None:
        inits.append(helper.make_tensor("zero_points", c.data_type, sshape, zps.reshape(-1).tolist()))
        names.append("zero_points")
    node = helper.make_node("GatherBlockQuantized", names, ["y"], name="gbq", domain="com.microsoft", bits=4,
                            block_size=c.block_size, gather_axis=c.gather_axis, quantize_axis=c.quantize_axis)
    h = TensorProto.FLOAT16
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("indices", TensorProto.INT64, None),
                                            helper.make_tensor_value_info("scales", h, None)],
                              [helper.make_tensor_value_info("y", h, None)], initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21),
                                                    helper.make_opsetid("com.microsoft", 1)], ir_version=10)
    want = R.gather_block_quantized_4bit(values, idx, scales, zps, c.block_size, c.gather_axis,
                                         c.quantize_axis)
    return model, {"indices": idx, "scales": scales}, want


@pytest.mark.parametrize("c", CASES4, ids=[c.id for c in CASES4])
def test_gather_block_quantized_docs_4bit_f16(c: Case4) -> None:
    """uint4 and int4 data with f16 scales (the page: "uint8, uint4 and int4 data alike"): the reference's
    bits on every path through the execution provider, and stock ORT's."""
    model, feeds, want = _case4(c)
    for path in S.PATHS:
        sess = S.session(model, S.VIAS[-1], path, 1)
        assert [n.op for n in sess.report.moved] == ["GatherBlockQuantized"], sess.report.summary()
        S.assert_exact_bits(f"{c.id} path {path}", sess.run(None, feeds)[0], want)
    S.assert_exact_bits(f"{c.id} stock", S.stock(model, feeds)[0], want)
