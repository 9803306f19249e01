"""com.microsoft BiasSoftmax against tests/reference/bias_softmax_docs_reference.py, written from
docs/transformer-ops.md alone: f32 and f16, the axis (negative too, and the pre-opset-13 2-D coercion over
several trailing dimensions), is_inner_broadcast 0 and 1, lower-rank bias, rows past the 8,192-element chunk,
-inf and NaN scores, an all -inf row, the f16 sum kept in f32; bit for bit on every kernel path through the
node API, and both ways in at 1 and 2 threads for one f32 and one f16 case."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest
from onnx import TensorProto, helper

from onemodel_ep.node import Node, NodeError
from tests.nodes import node_sessions as S
from tests.reference import bias_softmax_docs_reference as R

OP = "com.microsoft.BiasSoftmax"


@dataclass(frozen=True)
class Case:
    id: str
    x: tuple[int, ...]
    b: tuple[int, ...]
    axis: int
    inner: int
    dtype: type = np.float32
    special: str = ""


CASES = [
    Case("bert_mask_axis3_inner1", (2, 3, 5, 67), (2, 1, 1, 67), 3, 1),
    Case("head_bias_axis2_inner0", (2, 3, 4, 9), (1, 3, 4, 9), 2, 0),
    Case("lower_rank_bias_inner0", (2, 3, 4, 9), (3, 4, 9), -2, 0, special="inf"),
    Case("coerce_2d_axis1", (3, 2, 5, 7), (1, 2, 5, 7), 1, 0, special="nan"),
    Case("long_rows_axis1", (3, 9000), (1, 9000), 1, 1),
    Case("f16_mask_inner1", (2, 2, 3, 40), (2, 1, 1, 40), -1, 1, np.float16, special="big"),
    Case("f16_inner0_all_neg_inf_row", (2, 3, 17), (3, 17), 1, 0, np.float16, special="inf"),
    Case("zero_rows", (0, 3, 5), (3, 5), 1, 0),
]


def _inputs(c: Case) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(11)
    x = (rng.standard_normal(c.x) * 3).astype(c.dtype)
    b = (rng.standard_normal(c.b) * 2).astype(c.dtype)
    a = c.axis + len(c.x) if c.axis < 0 else c.axis
    d = int(np.prod(c.x[a:]))
    if c.special == "inf":  # a -inf score in row 0, and row 1 with every score -inf
        b.reshape(-1, d)[0, 1] = -np.inf
        x.reshape(-1, d)[1, :] = -np.inf
    if c.special == "nan":  # a NaN bias with a payload and sign: every row taking it is NaN
        b.reshape(-1)[3] = np.array(0xFFC01234, np.uint32).view(np.float32)
    if c.special == "big":  # 2048 + 1 is kept in f32 (a half sum would lose the 1)
        x[0, 0, 0, :4] = 2048
        b[0, 0, 0, :2] = 1
    return x, b


def _type(c: Case) -> int:
    return TensorProto.FLOAT16 if c.dtype == np.float16 else TensorProto.FLOAT


def _attrs(c: Case) -> dict[str, int]:
    return {"axis": c.axis, "is_inner_broadcast": c.inner}


@pytest.mark.parametrize("c", CASES, ids=[c.id for c in CASES])
def test_bias_softmax_docs_bits(c: Case) -> None:
    x, b = _inputs(c)
    want = R.bias_softmax(x, b, c.axis, c.inner)
    assert want.dtype == c.dtype and want.shape == x.shape
    S.assert_node_bits_every_path(c.id, OP, [_type(c)] * 2, [x, b], [want], onnx_opset=1,
                                  attributes=_attrs(c), name="bsm")


def test_reference_keeps_f16_sum_in_f32_and_nan_rows() -> None:
    """The reference itself: 2048 + 1 in f32 makes those two scores larger than their 2048 neighbours (a half
    sum would round 2049 to 2048); a row with a NaN bias is the canonical NaN; an all -inf row is NaN."""
    c = CASES[5]
    x, b = _inputs(c)
    y = R.bias_softmax(x, b, c.axis, c.inner)
    assert y[0, 0, 0, 0] > y[0, 0, 0, 2]
    c = CASES[3]
    x, b = _inputs(c)
    y = R.bias_softmax(x, b, c.axis, c.inner).reshape(3, -1)
    assert (y.view(np.uint32) == 0x7FC00000).all()
    c = CASES[2]
    x, b = _inputs(c)
    y = R.bias_softmax(x, b, c.axis, c.inner).reshape(-1, 36)
    assert np.isnan(y[1]).all() and np.isfinite(y[0]).all() and y[0, 1] == 0


@pytest.mark.parametrize("cid", ["bert_mask_axis3_inner1", "f16_mask_inner1"])
def test_bias_softmax_docs_every_way(cid: str) -> None:
    c = next(c for c in CASES if c.id == cid)
    x, b = _inputs(c)
    want = R.bias_softmax(x, b, c.axis, c.inner)
    node = helper.make_node("BiasSoftmax", ["x", "b"], ["y"], name="bsm", domain="com.microsoft", **_attrs(c))
    model = S.one_node_model(node, {"x": x, "b": b}, _type(c), 17, ir_version=9, ms_opset=True)
    S.assert_runs_bits(cid, model, {"x": x, "b": b}, "BiasSoftmax", [want])


@pytest.mark.parametrize(("x", "b", "axis", "inner"), [
    ((2, 3, 4, 9), (2, 3, 1, 9), 2, 1),  # bias dims from axis on must be data's
    ((2, 3, 4, 9), (1, 3, 4, 9), 2, 1),  # 1s then data's dims is the layout of is_inner_broadcast 0
    ((2, 3, 4, 9), (2, 1, 4, 9), 2, 0),  # data's dims then 1s is the layout of is_inner_broadcast 1
])
def test_bias_softmax_docs_bad_shapes(x: tuple[int, ...], b: tuple[int, ...], axis: int, inner: int) -> None:
    """Shapes the page says fail (at the run for the node API, which declares no shapes): both the node and
    the reference refuse them."""
    xa, ba = np.zeros(x, np.float32), np.zeros(b, np.float32)
    with pytest.raises(ValueError):
        R.bias_softmax(xa, ba, axis, inner)
    node = Node(OP, [TensorProto.FLOAT] * 2, onnx_opset=1,
                attributes={"axis": axis, "is_inner_broadcast": inner}, name="bsm")
    with pytest.raises(NodeError, match="bsm"):
        node.run(xa, ba)
