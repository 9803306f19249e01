"""com.microsoft GatherBlockQuantized with uint8 data (node_gather_block_quantized.c): the contract of
docs/transformer-ops.md bit for bit against tests/reference/reference_gather_block_quantized.py on every
kernel path, both ways in, 1 and 2 threads, and equal to stock ORT (the same exact difference and one rounded
product); bad attributes, types, shapes and indices refused naming node, op and problem; zero-size
dimensions."""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from onemodel_ep.node import Node, NodeError
from tests.nodes import node_sessions as S
from tests.reference.reference_gather_block_quantized import gather_block_quantized, gather_block_quantized4

U8, I32, I64 = TensorProto.UINT8, TensorProto.INT32, TensorProto.INT64
F32, F16, BF16 = TensorProto.FLOAT, TensorProto.FLOAT16, TensorProto.BFLOAT16
NAMES = ["data", "indices", "scales", "zero_points"]

# (name, data shape (packed), indices shape, bits, block_size, zero points, index type)
CASES: list[tuple[Any, ...]] = [
    ("embed-4bit", (50, 48), (2, 7), 4, 32, False, I64),
    ("4bit-zp", (20, 40), (5,), 4, 16, True, I32),
    ("8bit-zp-3d", (6, 3, 40), (2, 2), 8, 16, True, I64),
    ("2bit", (9, 24), (4,), 2, 32, True, I32),
    ("8bit-default-block", (7, 300), (3,), 8, 128, False, I32),
]


def _inputs(case: tuple[Any, ...], seed: int, scale_type: type = np.float32) -> list[np.ndarray | None]:
    _, dshape, ishape, bits, block, zp, it = case
    rng = np.random.default_rng(seed)
    data = rng.integers(0, 256, dshape).astype(np.uint8)
    Q = dshape[-1] * (8 // bits)
    nb = -(-Q // block)
    per = 8 // bits
    scales = (rng.random(dshape[:-1] + (nb,)) + 0.01).astype(scale_type)
    z = rng.integers(0, 256, dshape[:-1] + (-(-nb // per),)).astype(np.uint8) if zp else None
    idx = rng.integers(-dshape[0], dshape[0], ishape).astype(np.int32 if it == I32 else np.int64)
    return [data, idx, scales, z]


def _attrs(case: tuple[Any, ...]) -> dict[str, Any]:
    a = {"bits": case[3], "block_size": case[4]}
    if len(case[1]) > 2:
        a["quantize_axis"] = len(case[1]) - 1  # the default, 1, is not the last axis
    return a


def _types(ins: list[np.ndarray | None]) -> list[int]:
    m = {np.dtype(np.uint8): U8, np.dtype(np.int32): I32, np.dtype(np.int64): I64, np.dtype(np.float32): F32,
         np.dtype(np.float16): F16}
    return [m[x.dtype] for x in ins if x is not None]


def _ref(case: tuple[Any, ...], ins: list[np.ndarray | None]) -> np.ndarray:
    d, i, s, z = ins
    assert d is not None and i is not None and s is not None
    return gather_block_quantized(d, i, s, z, case[3], case[4])


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("path", S.PATHS)
def test_node_bits_reference(case: tuple[Any, ...], path: str) -> None:
    ins = _inputs(case, seed=1)
    args = [x for x in ins if x is not None]
    got = Node("com.microsoft.GatherBlockQuantized", _types(ins), attributes=_attrs(case), kernel_path=path,
               name="gbq").run_outputs(*args)[0]
    S.assert_exact_bits(path, got, _ref(case, ins))


def _model(case: tuple[Any, ...], ins: list[np.ndarray | None]) -> onnx.ModelProto:
    used = [n for n, x in zip(NAMES, ins) if x is not None]
    node = helper.make_node("GatherBlockQuantized", used, ["y"], domain="com.microsoft", name="gbq",
                            **_attrs(case))
    vis = [helper.make_tensor_value_info(n, t, list(x.shape))
           for n, x, t in zip(used, [x for x in ins if x is not None], _types(ins))]
    y_type = _types(ins)[2]  # the scales'
    graph = helper.make_graph([node], "g", vis, [helper.make_tensor_value_info("y", y_type, None)])
    return helper.make_model(graph, ir_version=10, opset_imports=[helper.make_opsetid("", 17),
                                                                  helper.make_opsetid("com.microsoft", 1)])


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_sessions_bits_and_stock(case: tuple[Any, ...]) -> None:
    """Every way in: the reference's bits; stock ORT: the same bits (one rounded product of exact
    operands)."""
    ins = _inputs(case, seed=3)
    model = _model(case, ins)
    feeds = {n: x for n, x in zip(NAMES, ins) if x is not None}
    want = _ref(case, ins)
    for where, got in S.runs(model, feeds, "GatherBlockQuantized").items():
        S.assert_exact_bits(where, got[0], want)
    S.assert_exact_bits("stock", S.stock(model, feeds)[0], want)


@pytest.mark.parametrize("case", CASES[:4], ids=[c[0] for c in CASES[:4]])
def test_f16_scales_bits_and_stock(case: tuple[Any, ...]) -> None:
    """f16 scales, f16 output: the f32 product rounded once more, to half; stock ORT's bits (its order). The
    first case every way in, path and thread count; the others one session each way in."""
    ins = _inputs(case, seed=5, scale_type=np.float16)
    assert ins[2] is not None
    ins[2].reshape(-1)[:3] = [60000.0, 2.0**-24, 1000.0]  # products past 65504, below half's subnormals
    model = _model(case, ins)
    feeds = {n: x for n, x in zip(NAMES, ins) if x is not None}
    want = _ref(case, ins)
    assert want.dtype == np.float16
    if case is CASES[0]:
        every = S.runs(model, feeds, "GatherBlockQuantized")
    else:
        every = {via: S.session(model, via, None, 1).run(None, feeds) for via in S.VIAS}
    for where, got in every.items():
        S.assert_exact_bits(where, got[0], want)
    S.assert_exact_bits("stock", S.stock(model, feeds)[0], want)


@pytest.mark.parametrize(("types", "attrs", "says"), [
    ([U8, I64, F32], {"bits": 3}, "bits = 3 is not served"),
    ([U8, I64, F32], {"block_size": 24}, "block_size = 24 must be a power of 2"),
    ([U8, I64, F32], {"block_size": 8}, "block_size = 8 must be a power of 2"),
    ([U8, I64, F32], {"gather_axis": 1}, "gather_axis = 1 is not served"),
    ([U8, I64, BF16], {}, "unsupported element type bfloat16 for input 2"),
    ([U8, F32, F32], {}, "indices have type float"),
])
def test_bad_attributes_and_types_refused(types: list[int], attrs: dict[str, Any], says: str) -> None:
    with pytest.raises(NodeError) as e:
        Node("com.microsoft.GatherBlockQuantized", types, attributes=attrs, name="bad")
    msg = str(e.value)
    assert "'bad'" in msg and "op GatherBlockQuantized" in msg and says in msg, msg


def test_bad_shapes_and_indices_fail_naming_node() -> None:
    case = CASES[1]
    ins = _inputs(case, seed=5)
    d, i, s, z = ins
    assert d is not None and i is not None and s is not None and z is not None
    node = Node("com.microsoft.GatherBlockQuantized", _types(ins), attributes=_attrs(case), name="gbq")
    bad_i = i.copy()
    bad_i[2] = 20
    for args, says in (
        ([d, bad_i, s, z], "index 20 (element 2 of input 1) is out of range"),
        ([d, i, s[:, :4], z], "scales [20, 4] do not fit data [20, 40]"),
        ([d, i, s, z[:, :2]], "zero_points [20, 2] do not fit data [20, 40]"),
    ):
        with pytest.raises(NodeError) as e:
            node.run_outputs(*args)
        msg = str(e.value)
        assert "'gbq'" in msg and "op GatherBlockQuantized" in msg and says in msg, msg
    q3 = Node("com.microsoft.GatherBlockQuantized", [U8, I64, F32], attributes={"quantize_axis": 0},
              name="gbq")
    with pytest.raises(NodeError, match="quantize_axis = 0 is not served for data of rank 2"):
        q3.run_outputs(np.zeros((4, 8), np.uint8), np.zeros(1, np.int64), np.ones((4, 1), np.float32))


@pytest.mark.parametrize("dims", [((0, 16), (0,)), ((4, 16), (0, 3)), ((4, 0), (2,))],
                         ids=["rows-0", "indices-0", "values-0"])
def test_zero_size_dimensions(dims: tuple[tuple[int, ...], tuple[int, ...]]) -> None:
    dshape, ishape = dims
    case = ("z", dshape, ishape, 4, 16, False, I64)
    data = np.zeros(dshape, np.uint8)
    idx = np.zeros(ishape, np.int64)
    scales = np.ones(dshape[:-1] + (-(-dshape[-1] * 2 // 16),), np.float32)
    got = Node("com.microsoft.GatherBlockQuantized", [U8, I64, F32], attributes=_attrs(case)).run_outputs(
        data, idx, scales)[0]
    assert got.shape == ishape + (dshape[-1] * 2,) and got.dtype == np.float32


# uint4 / int4 data (ONNX Runtime's 4-bit types: two values a byte, the shape counts values), held as
# initializers: (name, type, data shape, indices shape, gather_axis, quantize_axis, block_size, zero points)
U4, I4 = TensorProto.UINT4, TensorProto.INT4
CASES4: list[tuple[Any, ...]] = [
    ("u4-embed", U4, (50, 64), (2, 7), 0, 1, 32, False),
    ("i4-zp", I4, (20, 40), (5,), 0, -1, 16, True),
    ("u4-zp-axis0", U4, (37, 6, 5), (3,), 1, 0, 16, True),
    ("i4-gather-last", I4, (4, 33, 9), (2, 2), 2, 1, 16, False),
    ("u4-odd", U4, (7, 3, 17), (4,), 0, 2, 128, True),
]


def _case4(case: tuple[Any, ...], seed: int,
           scale_type: type = np.float32) -> tuple[onnx.ModelProto, dict[str, np.ndarray], np.ndarray]:
    """The model (data and zero points as 4-bit initializers), its feeds and the reference's output."""
    name, t, dshape, ishape, ga, qa, block, with_zp = case
    rng = np.random.default_rng(seed)
    lo, hi = (-8, 7) if t == I4 else (0, 15)
    q = rng.integers(lo, hi, dshape, endpoint=True).astype(np.int8)
    if q.size >= 2:
        q.flat[:2] = [lo, hi]
    sshape = list(dshape)
    sshape[qa] = -(-dshape[qa] // block)
    scales = (rng.random(sshape) + 0.01).astype(scale_type)
    st = F16 if scale_type == np.float16 else F32
    z = rng.integers(lo, hi, sshape, endpoint=True).astype(np.int8) if with_zp else None
    n = dshape[ga]
    idx = rng.integers(-n, n, ishape).astype(np.int64)
    inits = [helper.make_tensor("data", t, dshape, q.ravel().tolist())]
    if z is not None:
        inits.append(helper.make_tensor("zero_points", t, sshape, z.ravel().tolist()))
    used = ["data", "indices", "scales"] + (["zero_points"] if z is not None else [])
    node = helper.make_node("GatherBlockQuantized", used, ["y"], domain="com.microsoft", name="gbq",
                            gather_axis=ga, quantize_axis=qa, block_size=block, bits=4)
    vis = [helper.make_tensor_value_info("indices", I64, list(ishape)),
           helper.make_tensor_value_info("scales", st, sshape)]
    graph = helper.make_graph([node], "g", vis, [helper.make_tensor_value_info("y", st, None)],
                              initializer=inits)
    model = helper.make_model(graph, ir_version=10, opset_imports=[helper.make_opsetid("", 17),
                                                                   helper.make_opsetid("com.microsoft", 1)])
    want = gather_block_quantized4(q, idx, scales, z, ga, qa, block)
    return model, {"indices": idx, "scales": scales}, want


@pytest.mark.parametrize("case", CASES4, ids=[c[0] for c in CASES4])
def test_4bit_reference_and_stock_bits(case: tuple[Any, ...]) -> None:
    """One session on the default path: the reference's bits; stock ORT: the same bits."""
    model, feeds, want = _case4(case, seed=7)
    sess = S.session(model, S.VIAS[-1], None, 1)
    assert [n.op for n in sess.report.moved] == ["GatherBlockQuantized"], sess.report.summary()
    S.assert_exact_bits("ours", sess.run(None, feeds)[0], want)
    S.assert_exact_bits("stock", S.stock(model, feeds)[0], want)


@pytest.mark.parametrize("case", CASES4[:3], ids=[c[0] for c in CASES4[:3]])
def test_4bit_f16_scales_reference_and_stock_bits(case: tuple[Any, ...]) -> None:
    model, feeds, want = _case4(case, seed=11, scale_type=np.float16)
    assert want.dtype == np.float16
    for via in S.VIAS:
        sess = S.session(model, via, None, 2)
        assert [n.op for n in sess.report.moved] == ["GatherBlockQuantized"], sess.report.summary()
        S.assert_exact_bits(via, sess.run(None, feeds)[0], want)
    S.assert_exact_bits("stock", S.stock(model, feeds)[0], want)


def test_4bit_every_path_and_thread() -> None:
    model, feeds, want = _case4(CASES4[1], seed=9)
    for where, got in S.runs(model, feeds, "GatherBlockQuantized").items():
        S.assert_exact_bits(where, got[0], want)


@pytest.mark.parametrize(("types", "attrs", "says"), [
    ([U4, I64, F32], {"bits": 8}, "bits = 8 is not served for uint4 data (only 4)"),
    ([I4, I64, F32, U4], {}, "zero_points have type uint4; they must be int4 like data"),
    ([I4, I64, F32, U8], {}, "zero_points have type uint8; they must be int4 like data"),
    ([U4, I64, BF16], {}, "unsupported element type bfloat16 for input 2"),
])
def test_4bit_bad_attributes_and_types_refused(types: list[int], attrs: dict[str, Any], says: str) -> None:
    with pytest.raises(NodeError) as e:
        Node("com.microsoft.GatherBlockQuantized", types, attributes=attrs, name="bad")
    msg = str(e.value)
    assert "'bad'" in msg and "op GatherBlockQuantized" in msg and says in msg, msg


def test_4bit_bad_shapes_and_axes_refused_at_session_creation() -> None:
    """A scales shape that does not fit, a quantize_axis out of range: errors naming node, op and problem."""
    model, feeds, _ = _case4(CASES4[2], seed=2)
    bad = dict(feeds, scales=feeds["scales"][:, :, :4])
    model.graph.input[1].type.tensor_type.ClearField("shape")  # scales: shape unknown until the run
    sess = S.session(model, S.VIAS[-1], None, 1)
    with pytest.raises(Exception, match=r"'gbq'.*GatherBlockQuantized.*scales \[3, 6, 4\] do not fit data"):
        sess.run(None, bad)
    bad_i = dict(feeds, indices=np.array([6, 0, 1], np.int64))
    with pytest.raises(Exception, match=r"'gbq'.*GatherBlockQuantized.*index 6 \(element 0 of input 1\)"):
        sess.run(None, bad_i)
    for attr in model.graph.node[0].attribute:
        if attr.name == "quantize_axis":
            attr.i = 3
    for via in S.VIAS:
        with pytest.raises(Exception, match=r"'gbq'.*GatherBlockQuantized.*quantize_axis = 3 is out of rang"):
            S.session(model, via, None, 1).run(None, feeds)


@pytest.mark.parametrize("dims", [((0, 16), (2,), 1), ((4, 16), (0, 3), 0), ((4, 0, 2), (2,), 0)],
                         ids=["gather-dim-0", "indices-0", "inner-0"])
def test_4bit_zero_size_dimensions(dims: tuple[tuple[int, ...], tuple[int, ...], int]) -> None:
    dshape, ishape, ga = dims
    case = ("z", U4, dshape, ishape, ga, 1 - ga, 16, False)  # gather along 1: 16 values of 0 rows
    model, feeds, want = _case4(case, seed=1)
    sess = S.session(model, S.VIAS[-1], None, 1)
    got = sess.run(None, feeds)[0]
    assert got.shape == want.shape and got.size == 0
