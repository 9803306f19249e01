"""NonZero (node_nonzero.c, docs/data-movement.md) through the execution provider and the rewrite path against
the contract computed here in NumPy (the coordinates of the elements whose bits, sign bit left out for the
float types, are not all zero, in row-major order, as a [rank, count] int64 tensor; rank 0 reads as [1]) and
against stock ONNX Runtime where it serves the type, byte for byte: every stored type, -0.0 and NaN, all zero,
all nonzero, zero-size dimensions, inputs of several parallel blocks on 1 and 2 threads; every kernel path by
direct calls. Bad inputs fail with node and op named."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper

import onemodel_ep
from onemodel_ep.node import Node, NodeError
from tests.nodes.case_runs import one_way_matches
from tests.nodes.movement_cases import BF16, FLOATS, STORED, Case, bits, model_of, onnx_type
from tests.nodes.one_node import assert_left_to_stock, one_node_model
from tests.nodes.test_movement_ops import _same, _split, _stock

VIAS = ("rewrite", "ep") if onemodel_ep.ep_supported() else ("rewrite",)
FLOAT_TYPES = FLOATS + (BF16,)


def nonzero_mask(x: np.ndarray) -> np.ndarray:
    """The contract's test of an element: its bits, the sign bit out for the float types, not all zero."""
    if x.dtype == np.bool_:
        return x.view(np.uint8) != 0
    u = x.view(f"u{x.dtype.itemsize}")
    if x.dtype in FLOAT_TYPES:
        return (u & ~(np.array(1, u.dtype) << (8 * x.dtype.itemsize - 1))) != 0
    return u != 0


def nonzero_want(x: np.ndarray) -> np.ndarray:
    m = nonzero_mask(x.reshape(x.shape or (1,)))
    return np.array(np.nonzero(m), np.int64).reshape(m.ndim, -1)


def sparse(shape: tuple[int, ...], t: np.dtype, seed: int, keep: float) -> np.ndarray:
    """Random bits with about 1 - keep of the elements zero (+0 or, for the float types, -0)."""
    x = bits(shape, t, seed).reshape(-1).copy()
    rng = np.random.default_rng(seed + 1000)
    drop = rng.random(x.size) >= keep
    if t == np.bool_:
        x[drop] = False
        return x.reshape(shape)
    u = x.view(np.uint8).reshape(x.size, t.itemsize)
    u[drop] = 0
    if t in FLOAT_TYPES:  # half of the zeros -0.0: the sign byte's top bit (little-endian: the last byte)
        u[drop & (rng.random(x.size) < 0.5), -1] = 0x80
    return x.reshape(shape)


BASE: list[tuple[tuple[int, ...], float]] = [
    ((3, 4), 0.5),
    ((7,), 0.3),
    ((), 1.0),
    ((), 0.0),
    ((2, 3, 4, 5), 0.2),
    ((5, 6), 0.0),
    ((4, 3), 1.0),
    ((0, 3), 0.5),
    ((2, 0, 4), 0.5),
    ((3, 70001), 0.01),  # several parallel blocks
    ((300, 700), 0.6),
]


def nonzero_cases(opset: int = 13) -> list[Case]:
    types = [t for t in STORED if t != BF16 or opset >= 13]
    out = []
    for i, (shape, keep) in enumerate(BASE):
        chosen = types if i < 2 else (types[(i * 5) % len(types)], types[(i * 5 + 3) % len(types)])
        for j, t in enumerate(chosen):
            x = sparse(shape, t, 17 * i + j, keep)
            out.append(Case("NonZero", opset, [x], [False], {}, [nonzero_want(x)]))
    return out


def test_nonzero_contract_is_stock_orts_where_stock_serves_the_type() -> None:
    compared = set()
    for c in _split(nonzero_cases())[0]:
        model, feeds = model_of([c], 13)
        try:
            got = _stock(model, feeds)[0]
        except Exception as e:  # noqa: BLE001 - a type stock ORT has no NonZero kernel for
            assert "NOT_IMPLEMENTED" in str(e) or "Could not find an implementation" in str(e), str(e)
            continue
        _same(f"stock ORT vs the contract: {c.label()}", got, c.want[0])
        compared.add(c.inputs[0].dtype)
    assert {np.dtype(np.float32), np.dtype(np.float16), np.dtype(np.bool_)} <= compared, compared


def test_nonzero_float_zero_and_nan() -> None:
    """-0.0 is zero, NaN and the smallest subnormal are not."""
    x = np.array([0.0, -0.0, np.nan, -np.nan, 1e-45, -np.inf], np.float32)
    got = Node("NonZero", [TensorProto.FLOAT], onnx_opset=13, name="m").run_outputs(x)[0]
    _same("nonzero of [0, -0, nan, -nan, 1e-45, -inf]", got, np.array([[2, 3, 4, 5]], np.int64))


@pytest.mark.parametrize("via", VIAS)
@pytest.mark.parametrize("threads", (1, 2))
@pytest.mark.parametrize("opset", (9, 13))
def test_nonzero_ep_and_rewrite_match_contract(via: str, threads: int, opset: int) -> None:
    one_way_matches(nonzero_cases(opset), opset, via, threads)


def test_nonzero_direct_every_type_and_path() -> None:
    for c in nonzero_cases():
        for path in onemodel_ep.kernel_paths():
            node = Node("NonZero", [onnx_type(c.inputs[0].dtype)], onnx_opset=13, kernel_path=path, name="m")
            _same(f"{c.label()} path {path}", node.run_outputs(*c.inputs)[0], c.want[0])


def test_nonzero_case_types_cover_the_stored_types() -> None:
    assert {c.inputs[0].dtype for c in nonzero_cases()} == set(STORED)


@pytest.mark.parametrize(
    "types,opset,msg",
    [
        ([TensorProto.FLOAT], 8, "opset"),
        ([TensorProto.BFLOAT16], 12, "bfloat16 needs opset 13"),
        ([TensorProto.STRING], 13, "type"),
    ],
)
def test_nonzero_creation_errors(types: list[int], opset: int, msg: str) -> None:
    with pytest.raises(NodeError, match=msg) as e:
        Node("NonZero", types, onnx_opset=opset, name="bad")
    assert "'bad'" in str(e.value) and "NonZero" in str(e.value)


@pytest.mark.parametrize("via", VIAS)
def test_nonzero_of_a_string_input_stays_stock(via: str) -> None:
    x = helper.make_tensor_value_info("x", TensorProto.STRING, [3])
    y = helper.make_tensor_value_info("y", TensorProto.INT64, None)
    node = helper.make_node("NonZero", ["x"], ["y"], name="strings")
    # left to stock; stock ORT has no string NonZero: it must say so, naming the node
    assert_left_to_stock(one_node_model(node, [x], [y], 13), via, ["NonZero"])
