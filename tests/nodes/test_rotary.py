"""RotaryEmbedding: ONNX's (opset 23) and com.microsoft's.

Each case runs as a one-node model, unmodified, through both ways in (the rewrite to ai.onemodel, and OneModel
as an execution provider where ORT supports it) on every kernel path at one thread and the default path at two
threads; every run must give the bits of tests/reference/reference_transformer_ops.py (written from
docs/transformer-ops.md). Stock ORT computes the same four products and two sums per pair in f32; it agrees
within 1e-6 relative plus 1e-6 absolute (its compiler may contract a product and a sum into one fused
multiply-add, which rounds once fewer).
"""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from onemodel_ep.node import Node, NodeError
from tests.nodes.node_sessions import VIAS, assert_bits, runs, session, stock
from tests.reference import reference_transformer_ops as RT

F32 = np.dtype(np.float32)
I64 = np.dtype(np.int64)
MS = "com.microsoft"
MS_TYPES = [TensorProto.FLOAT, TensorProto.INT64, TensorProto.FLOAT, TensorProto.FLOAT]


def _tp(a: np.ndarray) -> int:
    return int(helper.np_dtype_to_tensor_dtype(a.dtype))


def _model(ms: bool, x: np.ndarray, cos: np.ndarray, sin: np.ndarray, pos: np.ndarray | None,
           x_shape: list | None = None, **attrs: object) -> onnx.ModelProto:
    """A one-node model: x and position_ids graph inputs, the caches initializers."""
    names = ["x", "pos", "cos", "sin"] if ms else ["x", "cos", "sin"] + (["pos"] if pos is not None else [])
    node = helper.make_node("RotaryEmbedding", names, ["y"], name="n0", domain=MS if ms else "", **attrs)
    shape = x_shape if x_shape is not None else list(x.shape)
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)]
    if pos is not None:
        inputs.append(helper.make_tensor_value_info("pos", TensorProto.INT64, list(pos.shape)))
    inits = [numpy_helper.from_array(cos, "cos"), numpy_helper.from_array(sin, "sin")]
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    graph = helper.make_graph([node], "g", inputs, [y], initializer=inits)
    imports = [helper.make_opsetid("", 23)] + ([helper.make_opsetid(MS, 1)] if ms else [])
    return helper.make_model(graph, opset_imports=imports, ir_version=10)


def _caches(rows: int, half: int, seed: int,
            batch_seq: tuple[int, int] | None = None) -> tuple[np.ndarray, ...]:
    shape = (*batch_seq, half) if batch_seq else (rows, half)
    ang = np.random.default_rng(seed).uniform(0, 100, shape)
    return np.cos(ang).astype(F32), np.sin(ang).astype(F32)


def _x(shape: tuple[int, ...], seed: int) -> np.ndarray:
    return (np.random.default_rng(seed).standard_normal(shape) * 2).astype(F32)


def _close(got: np.ndarray, theirs: np.ndarray) -> None:
    np.testing.assert_allclose(got, theirs, rtol=1e-6, atol=1e-6)


def _check(model: onnx.ModelProto, feeds: dict[str, np.ndarray], want: np.ndarray) -> np.ndarray:
    every = runs(model, feeds, "RotaryEmbedding")
    for where, got in every.items():
        assert_bits(f"RotaryEmbedding, {where}", got[0], want)
    return next(iter(every.values()))[0]


# (x shape, num_heads, rotary_embedding_dim, position form)
MS_CASES = [
    ((2, 3, 4 * 16), 4, 0, "bs"),
    ((2, 3, 4 * 16), 0, 0, "bs"),  # head size from the caches' width
    ((1, 5, 2 * 32), 2, 16, "bs"),  # partial rotary: elements 16.. copied
    ((2, 4, 3, 8), 0, 0, "bs"),  # (B, N, S, H)
    ((2, 4, 3, 8), 4, 4, "one"),
    ((3, 2, 3 * 8), 3, 0, "one"),
    ((2, 3, 2 * 8), 2, 0, "scalar"),  # a rank-0 position_ids
    ((2, 300, 2 * 64), 2, 0, "bs"),  # several parallel blocks
]


def test_com_microsoft_served_attribute_values() -> None:
    """GenAI's builder writes scale and is_packed_batching = 0: served (scale unused, as in stock ORT's CPU
    kernel)."""
    x = _x((1, 4, 2 * 16), 6)
    cos, sin = _caches(8, 8, 2)
    pos = np.arange(4, dtype=I64)[None, :]
    want = RT.rotary(x, cos, sin, pos, num_heads=2)
    model = _model(True, x, cos, sin, pos, num_heads=2, scale=0.5, is_packed_batching=0, interleaved=0)
    ours = _check(model, {"x": x, "pos": pos}, want)
    _close(ours, stock(model, {"x": x, "pos": pos})[0])


@pytest.mark.parametrize(("shape", "num_heads", "rot", "form"), MS_CASES, ids=str)
@pytest.mark.parametrize("interleaved", [0, 1])
def test_com_microsoft_every_way_path_and_thread_count(shape, num_heads, rot, form, interleaved) -> None:
    x = _x(shape, sum(shape) + interleaved)
    b, s = shape[0], shape[2] if len(shape) == 4 else shape[1]
    h = shape[3] if len(shape) == 4 else (shape[2] // num_heads if num_heads else 16)
    r = rot or h
    cos, sin = _caches(s + 7, r // 2, 5)
    pos = (np.random.default_rng(1).integers(0, s + 7, (b, s)).astype(I64) if form == "bs"
           else np.array([7], I64) if form == "one" else np.array(7, I64))
    attrs = {"interleaved": interleaved, **({"num_heads": num_heads} if num_heads else {}),
             **({"rotary_embedding_dim": rot} if rot else {})}
    want = RT.rotary(x, cos, sin, pos, interleaved=interleaved, num_heads=num_heads, rotary_dim=rot)
    model = _model(True, x, cos, sin, pos, **attrs)
    feeds = {"x": x, "pos": pos}
    ours = _check(model, feeds, want)
    if rot == 0 or rot == h:  # stock leaves the unrotated tail of a partial rotary unwritten in some versions
        _close(ours, stock(model, feeds)[0])


ONNX_CASES = [
    ((2, 4, 3, 16), 0, 0, True),
    ((2, 3, 4 * 16), 4, 0, True),
    ((2, 3, 4 * 16), 4, 8, True),
    ((2, 4, 3, 16), 4, 8, False),
    ((2, 3, 2 * 8), 2, 0, False),
]


@pytest.mark.parametrize(("shape", "num_heads", "rot", "with_pos"), ONNX_CASES, ids=str)
@pytest.mark.parametrize("interleaved", [0, 1])
def test_onnx_every_way_path_and_thread_count(shape, num_heads, rot, with_pos, interleaved) -> None:
    x = _x(shape, sum(shape) + 3 * interleaved)
    b = shape[0]
    s = shape[2] if len(shape) == 4 else shape[1]
    h = shape[3] if len(shape) == 4 else shape[2] // num_heads
    r = rot or h
    if with_pos:
        cos, sin = _caches(s + 5, r // 2, 9)
        pos = np.random.default_rng(2).integers(0, s + 5, (b, s)).astype(I64)
    else:
        cos, sin = _caches(0, r // 2, 9, (b, s))
        pos = None
    attrs = {"interleaved": interleaved, **({"num_heads": num_heads} if num_heads else {}),
             **({"rotary_embedding_dim": rot} if rot else {})}
    want = RT.rotary(x, cos, sin, pos, interleaved=interleaved, num_heads=num_heads, rotary_dim=rot)
    model = _model(False, x, cos, sin, pos, **attrs)
    feeds = {"x": x, **({"pos": pos} if pos is not None else {})}
    ours = _check(model, feeds, want)
    _close(ours, stock(model, feeds)[0])


@pytest.mark.parametrize("ms", [True, False])
def test_zero_size(ms: bool) -> None:
    x = np.zeros((0, 3, 32), F32)
    cos, sin = _caches(4, 8, 1)
    pos = np.zeros((0, 3), I64)
    model = _model(ms, x, cos, sin, pos, num_heads=2)
    for via in VIAS:
        got = session(model, via, None, 1).run(None, {"x": x, "pos": pos})[0]
        assert got.shape == x.shape


@pytest.mark.parametrize(
    ("attrs", "why"),
    [
        ({"interleaved": 2}, "attribute interleaved = 2 must be 0 or 1"),
        ({"rotary_embedding_dim": 6}, "attribute num_heads must be given with rotary_embedding_dim"),
        ({"rotary_embedding_dim": 5, "num_heads": 2}, "attribute rotary_embedding_dim = 5 must be even"),
        ({"num_heads": -1}, "attribute num_heads = -1 must not be negative"),
        ({"is_packed_batching": 1}, "attribute is_packed_batching = 1 is not served"),
    ],
)
def test_bad_attributes_are_refused(attrs: dict, why: str) -> None:
    with pytest.raises(NodeError, match=rf"node 'n0' \(op com.microsoft.RotaryEmbedding\): {why}"):
        Node(f"{MS}.RotaryEmbedding", MS_TYPES, attributes=attrs, name="n0")


def test_other_types_are_left_to_stock() -> None:
    with pytest.raises(NodeError, match=r"unsupported element type float16 for input 0"):
        Node("RotaryEmbedding", [TensorProto.FLOAT16] * 3, onnx_opset=23, name="n0")
    with pytest.raises(NodeError, match=r"unsupported element type int32 for input 3"):
        Node("RotaryEmbedding", [TensorProto.FLOAT] * 3 + [TensorProto.INT32], onnx_opset=23, name="n0")
    with pytest.raises(NodeError, match=r"input 3 has element type float; it must be int64"):
        Node("RotaryEmbedding", [TensorProto.FLOAT] * 4, onnx_opset=23, name="n0")
    with pytest.raises(NodeError, match=r"input 2 has element type int64; it must be float"):
        Node("RotaryEmbedding", [TensorProto.FLOAT] * 2 + [TensorProto.INT64], onnx_opset=23, name="n0")
    with pytest.raises(NodeError, match=r"opset 22 is not served"):
        Node("RotaryEmbedding", [TensorProto.FLOAT] * 3, onnx_opset=22, name="n0")


def test_bad_shapes_and_positions_are_errors_naming_node_and_op() -> None:
    cos, sin = _caches(6, 8, 1)
    x = _x((1, 3, 32), 1)
    onnx_node = Node("RotaryEmbedding", [TensorProto.FLOAT] * 3 + [TensorProto.INT64], onnx_opset=23,
                     name="n0")
    with pytest.raises(NodeError, match=r"\(op RotaryEmbedding\): a rank-3 input needs attribute num_heads"):
        onnx_node.run(x, cos, sin, np.zeros((1, 3), I64))
    with pytest.raises(Exception, match=r"'n0' \(op com.microsoft.RotaryEmbedding\): input 0 has rank 2"):
        session(_model(True, x[0], cos, sin, np.zeros((1, 3), I64), num_heads=2), VIAS[-1], None, 1)
    node = Node(f"{MS}.RotaryEmbedding", MS_TYPES, attributes={"num_heads": 2}, name="n0")
    with pytest.raises(NodeError, match=r"position_ids gives token 1 of batch row 0 the position 6, outside "
                                        r"cos_cache's 6 rows"):
        node.run(x, np.array([[0, 6, 1]], I64), cos, sin)
    with pytest.raises(NodeError, match=r"position_ids gives token 2 of batch row 0 the position 4 \+ token"):
        node.run(x, np.array([4], I64), cos, sin)
    with pytest.raises(NodeError, match=r"position_ids has shape \(1, 2\); it must be \(batch 1, sequence 3"):
        node.run(x, np.zeros((1, 2), I64), cos, sin)
    partial = Node(f"{MS}.RotaryEmbedding", MS_TYPES, attributes={"num_heads": 2, "rotary_embedding_dim": 8},
                   name="n0")
    with pytest.raises(NodeError, match=r"cos_cache's last dimension is 8; it must be rotary dimension / 2"):
        partial.run(x, np.zeros((1, 3), I64), cos, sin)
    with pytest.raises(NodeError, match=r"last dimension 32 is not a whole number of heads \(num_heads 3\)"):
        Node(f"{MS}.RotaryEmbedding", MS_TYPES, attributes={"num_heads": 3}, name="n0").run(
            x, np.zeros((1, 3), I64), cos, sin)
