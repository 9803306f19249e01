"""DepthToSpace and SpaceToDepth (node_depth_space.c, docs/data-movement.md) through the execution provider
and the rewrite path against the contract computed here in NumPy (a reshape and transpose of the input's bits)
and against stock ONNX Runtime and onnx.reference where they serve the type, byte for byte: every stored type,
both DepthToSpace modes and every opset form (1, 11, 13), block sizes 1 to 5, zero-size inputs, outputs of
more than one parallel chunk on 1 and 2 threads; every kernel path by direct calls. Bad inputs fail with node
and op named.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

import onemodel_ep
from onemodel_ep.node import Node, NodeError
from tests.nodes.case_runs import compiled_dispatch_matches, direct_every_path_matches, every_way_matches
from tests.nodes.movement_cases import BF16, STORED, Case, bits, model_of
from tests.nodes.test_movement_ops import _same, _split, _stock

VIAS = ("rewrite", "ep") if onemodel_ep.ep_supported() else ("rewrite",)
OPSETS = (1, 11, 13)


def depth_to_space(x: np.ndarray, b: int, crd: bool) -> np.ndarray:
    n, c, h, w = x.shape
    q = c // (b * b)
    if crd:
        return x.reshape(n, q, b, b, h, w).transpose(0, 1, 4, 2, 5, 3).reshape(n, q, h * b, w * b)
    return x.reshape(n, b, b, q, h, w).transpose(0, 3, 4, 1, 5, 2).reshape(n, q, h * b, w * b)


def space_to_depth(x: np.ndarray, b: int) -> np.ndarray:
    n, c, h, w = x.shape
    return (
        x.reshape(n, c, h // b, b, w // b, b)
        .transpose(0, 3, 5, 1, 2, 4)
        .reshape(n, c * b * b, h // b, w // b)
    )


# (shape, blocksize, mode (None: no attribute)) for DepthToSpace; SpaceToDepth takes the same shapes with H
# and W scaled by the block and C divided by its square.
BASE = [
    ((1, 8, 3, 5), 2, None),
    ((2, 12, 2, 3), 2, "CRD"),
    ((1, 27, 4, 2), 3, "DCR"),
    ((2, 3, 3, 4), 1, "CRD"),
    ((1, 50, 2, 3), 5, "CRD"),
    ((0, 4, 2, 2), 2, "DCR"),
    ((1, 4, 0, 3), 2, None),
    ((1, 16, 70, 130), 2, "CRD"),
    ((1, 64, 40, 40), 2, None),
]


def _types(i: int, opset: int) -> tuple[np.dtype, ...]:
    types = tuple(t for t in STORED if t != BF16 or opset >= 13)
    return types if i < 2 else (types[(i * 5) % len(types)], types[(i * 5 + 3) % len(types)])


def depth_space_cases(op: str, opset: int) -> list[Case]:
    out = []
    for i, (shape, b, mode) in enumerate(BASE):
        if op == "DepthToSpace" and mode is not None and opset < 11:
            mode = None if mode == "DCR" else "skip"
        if mode == "skip":
            continue
        for j, t in enumerate(_types(i, opset)):
            if op == "DepthToSpace":
                x = bits(shape, t, 13 * i + j)
                attrs: dict[str, object] = {"blocksize": b} | ({} if mode is None else {"mode": mode})
                want = depth_to_space(x, b, mode == "CRD")
            else:
                n, c, h, w = shape
                x = bits((n, c // (b * b), h * b, w * b), t, 13 * i + j)
                attrs, want = {"blocksize": b}, space_to_depth(x, b)
            out.append(Case(op, opset, [x], [False], attrs, [want]))
    return out


PARAMS = [(op, opset) for op in ("DepthToSpace", "SpaceToDepth") for opset in OPSETS]


def reference_and_stock_match(
    cases: list[Case], opset: int, reference_serves: Callable[[Case], bool] = lambda c: True
) -> None:
    """Each case's contract is onnx.reference's bytes (where reference_serves it), and stock ORT's where it
    has a kernel for the type."""
    compared = set()
    for c in _split(cases)[0]:
        model, feeds = model_of([c], opset)
        if reference_serves(c):
            got = ReferenceEvaluator(model).run(None, feeds)[0]
            _same(f"onnx.reference vs the contract: {c.label()}", got, c.want[0])
        try:
            got = _stock(model, feeds)[0]
        except Exception as e:  # noqa: BLE001 - a type stock ORT has no kernel for (at opset 1, float16 gets
            # ORT's inserted Cast, whose opset-1 form takes `to` as a string: an invalid graph)
            known = ("NOT_IMPLEMENTED", "Could not find an implementation", "InsertedPrecisionFreeCast")
            assert any(k in str(e) for k in known), str(e)
            continue
        if (
            c.inputs[0].dtype == np.float16
        ):  # stock ORT casts to float and back: signalling NaNs come back quiet
            assert got.shape == c.want[0].shape and np.array_equal(got, c.want[0], equal_nan=True), c.label()
            continue
        _same(f"stock ORT vs the contract: {c.label()}", got, c.want[0])
        compared.add(c.inputs[0].dtype)
    assert np.dtype(np.float32) in compared, compared


@pytest.mark.parametrize("op,opset", PARAMS)
def test_contract_is_stock_orts_and_onnx_reference(op: str, opset: int) -> None:
    reference_and_stock_match(depth_space_cases(op, opset), opset)


@pytest.mark.parametrize("op,opset", PARAMS)
def test_ep_and_rewrite_match_contract(op: str, opset: int) -> None:
    every_way_matches(depth_space_cases(op, opset), opset)


@pytest.mark.parametrize("op,opset", PARAMS)
def test_direct_every_type_and_path(op: str, opset: int) -> None:
    direct_every_path_matches(depth_space_cases(op, opset))


@pytest.mark.skipif("ep" not in VIAS, reason="ORT without plugin execution providers")
@pytest.mark.parametrize("op", ("DepthToSpace", "SpaceToDepth"))
def test_compiled_dispatch_matches(op: str) -> None:
    compiled_dispatch_matches(depth_space_cases(op, 13), 13)


def test_cases_cover_the_stored_types() -> None:
    for op in ("DepthToSpace", "SpaceToDepth"):
        assert {c.inputs[0].dtype for c in depth_space_cases(op, 13)} == set(STORED)


F32 = TensorProto.FLOAT


@pytest.mark.parametrize(
    "op,opset,attrs,msg",
    [
        ("DepthToSpace", 13, {}, "attribute 'blocksize' is required"),
        ("SpaceToDepth", 13, {"blocksize": 0}, "blocksize 0 must be 1 or more"),
        ("DepthToSpace", 13, {"blocksize": -2}, "blocksize -2 must be 1 or more"),
        ("DepthToSpace", 13, {"blocksize": 2, "mode": "XYZ"}, '\'mode\' must be "DCR" or "CRD"'),
        ("DepthToSpace", 1, {"blocksize": 2, "mode": "CRD"}, "'mode' is not in opset 1"),
    ],
)
def test_creation_errors(op: str, opset: int, attrs: dict[str, object], msg: str) -> None:
    with pytest.raises(NodeError, match=msg) as e:
        Node(op, [F32], onnx_opset=opset, attributes=attrs, name="bad")
    assert "'bad'" in str(e.value) and op in str(e.value)


@pytest.mark.parametrize(
    "op,shape,msg",
    [
        ("DepthToSpace", (1, 6, 2, 2), "C = 6 is not a multiple of blocksize \\* blocksize"),
        ("DepthToSpace", (8, 2, 2), "input 0 has rank 3; DepthToSpace needs rank 4"),
        ("SpaceToDepth", (1, 1, 3, 4), "H = 3 and W = 4 must be multiples of blocksize 2"),
        ("SpaceToDepth", (1, 1, 4, 4, 1), "input 0 has rank 5; SpaceToDepth needs rank 4"),
    ],
)
def test_run_errors(op: str, shape: tuple[int, ...], msg: str) -> None:
    node = Node(op, [F32], onnx_opset=13, attributes={"blocksize": 2}, name="bad")
    with pytest.raises(NodeError, match=msg) as e:
        node.run_outputs(np.zeros(shape, np.float32))
    assert "'bad'" in str(e.value) and op in str(e.value)


def _one_node(op: str, shape: list[int | str], attrs: dict[str, object]) -> onnx.ModelProto:
    x = helper.make_tensor_value_info("x", F32, shape)
    y = helper.make_tensor_value_info("y", F32, None)
    node = helper.make_node(op, ["x"], ["y"], name="blk", **attrs)
    return helper.make_model(
        helper.make_graph([node], "g", [x], [y]), ir_version=8, opset_imports=[helper.make_opsetid("", 13)]
    )


@pytest.mark.parametrize("via", VIAS)
def test_declared_rank_three_is_refused_at_creation(via: str) -> None:
    so = ort.SessionOptions()
    so.log_severity_level = 3
    with pytest.raises(Exception, match="blk.*DepthToSpace.*(rank|4-dimensional)"):
        sess = onemodel_ep.InferenceSession(
            _one_node("DepthToSpace", [4, 2, 2], {"blocksize": 2}), sess_options=so, via=via
        )
        sess.run(None, {"x": np.zeros((4, 2, 2), np.float32)})


@pytest.mark.parametrize("via", VIAS)
def test_bad_channel_count_is_a_run_error_naming_node_and_op(via: str) -> None:
    so = ort.SessionOptions()
    so.log_severity_level = 3
    sess = onemodel_ep.InferenceSession(
        _one_node("DepthToSpace", ["n", "c", "h", "w"], {"blocksize": 2}), sess_options=so, via=via
    )
    assert all(n.moved for n in sess.report.nodes)
    with pytest.raises(Exception, match="blk.*DepthToSpace.*C = 6 is not a multiple"):
        sess.run(None, {"x": np.zeros((1, 6, 2, 2), np.float32)})
    got = sess.run(None, {"x": np.arange(16, dtype=np.float32).reshape(1, 4, 2, 2)})[0]  # still usable
    _same(
        "after the error", got, depth_to_space(np.arange(16, dtype=np.float32).reshape(1, 4, 2, 2), 2, False)
    )
