"""Trilu (node_trilu.c, docs/data-movement.md) through the execution provider and the rewrite path against the
contract computed here in NumPy (element (i, j) of each matrix kept when j - i >= k, upper, or <= k, lower,
else all-zero bytes) and against stock ONNX Runtime where it serves the type, byte for byte: every stored
type, k absent, fed or an initializer, a scalar or one element, far outside the matrix (the int64 extremes
included), batches, zero-size matrices, NaN and infinity outside the triangle (+0.0, not a product), rows of
more than one parallel block on 1 and 2 threads; every kernel path by direct calls. Bad inputs fail with node
and op named.
"""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper

import onemodel_ep
from onemodel_ep.node import Node, NodeError
from tests.nodes.case_runs import one_way_matches
from tests.nodes.movement_cases import STORED, Case, bits, model_of, onnx_type
from tests.nodes.one_node import one_node_model, quiet_session
from tests.nodes.test_movement_ops import _same, _split, _stock

VIAS = ("rewrite", "ep") if onemodel_ep.ep_supported() else ("rewrite",)
I64_MAX, I64_MIN = np.iinfo(np.int64).max, np.iinfo(np.int64).min


def trilu_want(x: np.ndarray, k: int, upper: bool) -> np.ndarray:
    """The contract: kept elements as they are, the others all-zero bytes."""
    m, n = x.shape[-2:]
    diff = np.arange(n, dtype=np.int64)[None, :] - np.arange(m, dtype=np.int64)[:, None]
    keep = diff >= k if upper else diff <= k
    out = np.zeros_like(x)
    out[..., keep] = x[..., keep]
    return out


# (shape, k (None: no input), upper (None: no attribute))
BASE = [
    ((4, 5), None, None),
    ((5, 4), 1, 0),
    ((2, 3, 4, 5), -1, 1),
    ((3, 3), 3, 0),
    ((3, 3), -4, 1),
    ((2, 6), 100, 1),
    ((6, 2), -100, 0),
    ((3, 4), I64_MAX, 0),
    ((3, 4), I64_MIN, 1),
    ((3, 4), I64_MIN, 0),
    ((0, 3), 0, 1),
    ((2, 3, 0), 1, 0),
    ((1, 1), 0, None),
    ((3, 300, 257), 5, 1),
    ((1100, 60), -7, 0),
]


def trilu_cases() -> list[Case]:
    out = []
    for i, (shape, k, upper) in enumerate(BASE):
        chosen = STORED if i < 2 else (STORED[(i * 5) % len(STORED)], STORED[(i * 5 + 3) % len(STORED)])
        for j, t in enumerate(chosen):
            x = bits(shape, t, 11 * i + j)
            attrs = {} if upper is None else {"upper": upper}
            inputs: list[np.ndarray | None] = [x]
            const = [False]
            if k is not None:  # a scalar, or (every third) one element
                inputs.append(np.array(k, np.int64).reshape((1,) if (i + j) % 3 == 2 else ()))
                const.append((i + j) % 2 == 0)
            want = trilu_want(x, 0 if k is None else k, upper is None or upper != 0)
            out.append(Case("Trilu", 14, inputs, const, attrs, [want]))
    return out


def test_trilu_contract_is_stock_orts_where_stock_serves_the_type() -> None:
    compared = set()
    for c in _split(trilu_cases())[0]:
        model, feeds = model_of([c], 14)
        try:
            got = _stock(model, feeds)[0]
        except Exception as e:  # noqa: BLE001 - a type stock ORT has no Trilu kernel for
            assert "NOT_IMPLEMENTED" in str(e) or "Could not find an implementation" in str(e), str(e)
            continue
        _same(f"stock ORT vs the contract: {c.label()}", got, c.want[0])
        compared.add(c.inputs[0].dtype)
    assert np.dtype(np.float32) in compared, compared


@pytest.mark.parametrize("via", VIAS)
@pytest.mark.parametrize("threads", (1, 2))
def test_trilu_ep_and_rewrite_match_contract(via: str, threads: int) -> None:
    one_way_matches(trilu_cases(), 14, via, threads)


def test_trilu_direct_every_type_and_path() -> None:
    for c in trilu_cases():
        types = [onnx_type(x.dtype) for x in c.inputs if x is not None]
        for path in onemodel_ep.kernel_paths():
            node = Node("Trilu", types, onnx_opset=14, attributes=c.attrs, kernel_path=path, name="m")
            _same(f"{c.label()} path {path}", node.run_outputs(*c.inputs)[0], c.want[0])


def test_trilu_zero_is_all_zero_bytes() -> None:
    """Infinities and NaNs outside the triangle become +0.0; -0.0 inside stays -0.0."""
    x = np.array([[-0.0, np.inf], [np.nan, -np.inf]], np.float32)
    got = Node("Trilu", [TensorProto.FLOAT], onnx_opset=14, name="m").run_outputs(x)[0]
    _same("upper of [[-0, inf], [nan, -inf]]", got, np.array([[-0.0, np.inf], [0.0, -np.inf]], np.float32))
    assert got.view(np.uint32)[1, 0] == 0


F32, I64 = TensorProto.FLOAT, TensorProto.INT64
Z22 = np.zeros((2, 2), np.float32)


@pytest.mark.parametrize(
    "x,k,msg",
    [
        (np.zeros(5, np.float32), None, "input 0 has rank 1; Trilu needs rank 2 or more"),
        (np.zeros((), np.float32), None, "input 0 has rank 0; Trilu needs rank 2 or more"),
        (Z22, np.array([1, 2], np.int64), "input 1 \\(k\\) has 2 elements, must have one"),
        (Z22, np.zeros(0, np.int64), "input 1 \\(k\\) has 0 elements, must have one"),
        (Z22, np.zeros((1, 1), np.int64), "input 1 \\(k\\) must be a scalar or 1-D"),
    ],
)
def test_trilu_run_errors(x: np.ndarray, k: np.ndarray | None, msg: str) -> None:
    node = Node("Trilu", [F32] + ([I64] if k is not None else []), onnx_opset=14, name="bad")
    with pytest.raises(NodeError, match=msg) as e:
        node.run_outputs(x, *([] if k is None else [k]))
    assert "'bad'" in str(e.value) and "Trilu" in str(e.value)


@pytest.mark.parametrize(
    "types,opset,msg",
    [([F32], 13, "opset"), ([F32, F32], 14, "type"), ([TensorProto.STRING], 14, "type")],
)
def test_trilu_creation_errors(types: list[int], opset: int, msg: str) -> None:
    with pytest.raises(NodeError, match=msg) as e:
        Node("Trilu", types, onnx_opset=opset, name="bad")
    assert "'bad'" in str(e.value) and "Trilu" in str(e.value)


@pytest.mark.parametrize("via", VIAS)
def test_trilu_of_declared_rank_one_is_refused_at_creation(via: str) -> None:
    x = helper.make_tensor_value_info("x", F32, [5])
    y = helper.make_tensor_value_info("y", F32, None)
    node = helper.make_node("Trilu", ["x"], ["y"], name="flat")
    model = one_node_model(node, [x], [y], 14)
    with pytest.raises(Exception, match="flat.*Trilu.*rank"):
        sess = quiet_session(model, via)
        sess.run(None, {"x": np.zeros(5, np.float32)})


def test_trilu_case_types_cover_the_stored_types() -> None:
    assert {c.inputs[0].dtype for c in trilu_cases()} == set(STORED)
