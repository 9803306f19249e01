"""com.microsoft EmbedLayerNormalization (node_embed_layernorm.c over reduce/'s om_skip_add and om_layernorm):
docs/transformer-ops.md's contract bit for bit against tests/reference/reference_embed_layernorm.py (written
from the doc) on every kernel path, both ways in, 1 and 2 threads; within tolerance of stock ORT; ids out of
range, bad shapes and bad attributes refused naming node, op and problem; zero-size dimensions."""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from onemodel_ep.node import Node, NodeError
from tests.nodes import node_sessions as S
from tests.reference.reference_embed_layernorm import embed_layer_norm

F32, I32 = TensorProto.FLOAT, TensorProto.INT32
NAMES = ["input_ids", "segment_ids", "word_embedding", "position_embedding", "segment_embedding", "gamma",
         "beta", "mask", "position_ids"]
OUTS = ["output", "mask_index", "embedding_sum"]

# (name, B, S, H, vocabulary V, positions P, segments G (0: none), mask, position_ids rows (0: none))
CASES: list[tuple[Any, ...]] = [
    ("bert", 2, 7, 32, 50, 16, 2, True, 0),
    ("no-segment", 3, 5, 20, 30, 8, 0, False, 0),
    ("pos-ids-1s", 2, 6, 48, 40, 12, 3, True, 1),
    ("pos-ids-bs", 2, 4, 17, 25, 9, 2, True, 2),
    ("wide", 1, 3, 300, 20, 3, 2, False, 0),
]


def _inputs(case: tuple[Any, ...], seed: int) -> list[np.ndarray | None]:
    _, B, Sq, H, V, P, G, mask, prows = case
    rng = np.random.default_rng(seed)

    def r(*shape: int) -> np.ndarray:
        return rng.standard_normal(shape).astype(np.float32)

    m = None
    if mask:
        m = rng.integers(-1, 3, (B, Sq)).astype(np.int32)  # 2 and -1 are not counted (stock ORT counts 1s)
    return [
        rng.integers(0, V, (B, Sq)).astype(np.int32),
        rng.integers(0, G, (B, Sq)).astype(np.int32) if G else None,
        r(V, H), r(P, H), r(G, H) if G else None,
        r(H) + np.float32(1), r(H), m,
        rng.integers(0, P, (prows, Sq)).astype(np.int32) if prows else None,
    ]


def _types(ins: list[np.ndarray | None]) -> list[int]:
    types = [0 if x is None else I32 if x.dtype == np.int32 else F32 for x in ins]
    while types and types[-1] == 0:
        types.pop()
    return types


def _ref(ins: list[np.ndarray | None], epsilon: float = 1e-12) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    ids, seg_ids, w, p, seg, g, b, m, pos = ins
    assert ids is not None and w is not None and p is not None and g is not None and b is not None
    return embed_layer_norm(ids, seg_ids, w, p, seg, g, b, m, pos, epsilon)


def _node(ins: list[np.ndarray | None], path: str | None = None, **attrs: Any) -> Node:
    return Node("com.microsoft.EmbedLayerNormalization", _types(ins), attributes=attrs, kernel_path=path,
                name="eln")


def _args(ins: list[np.ndarray | None]) -> list[np.ndarray | None]:
    return ins[: len(_types(ins))]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("path", S.PATHS)
def test_node_bits_reference(case: tuple[Any, ...], path: str) -> None:
    ins = _inputs(case, seed=1)
    got = _node(ins, path).run_outputs(*_args(ins), n_outputs=3)
    for what, g, w in zip(OUTS, got, _ref(ins)):
        S.assert_exact_bits(f"{path} {what}", g, w)


def test_epsilon_attribute() -> None:
    ins = _inputs(CASES[0], seed=5)
    got = _node(ins, epsilon=0.25).run_outputs(*_args(ins), n_outputs=1)
    S.assert_exact_bits("epsilon", got[0], _ref(ins, 0.25)[0])


def _model(ins: list[np.ndarray | None], outs: list[str]) -> onnx.ModelProto:
    used = [n if x is not None else "" for n, x in zip(NAMES, ins)]
    while used and used[-1] == "":
        used.pop()
    node = helper.make_node("EmbedLayerNormalization", used, outs, domain="com.microsoft", name="eln",
                            epsilon=1e-12)
    vis = [helper.make_tensor_value_info(n, I32 if x.dtype == np.int32 else F32, list(x.shape))
           for n, x in zip(NAMES, ins) if x is not None]
    ovis = [helper.make_tensor_value_info(n, I32 if n == "mask_index" else F32, None) for n in outs]
    graph = helper.make_graph([node], "g", vis, ovis)
    return helper.make_model(graph, ir_version=10, opset_imports=[helper.make_opsetid("", 17),
                                                                  helper.make_opsetid("com.microsoft", 1)])


def _tolerance(w: np.ndarray) -> float:
    """Stock ORT sums each row sequentially and divides by the standard deviation instead of multiplying by
    its inverse: a few ulps of the output's magnitude; 1e-5 of the largest magnitude bounds it for rows of up
    to 300."""
    return 1e-5 * max(1.0, float(np.abs(w).max()))


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_sessions_bits_and_stock(case: tuple[Any, ...]) -> None:
    """Both ways in, every path, 1 and 2 threads: the reference's bits; within tolerance of stock ORT (the
    embedding sum and mask_index: equal)."""
    ins = _inputs(case, seed=3)
    model = _model(ins, OUTS)
    feeds = {n: x for n, x in zip(NAMES, ins) if x is not None}
    want = _ref(ins)
    for where, got in S.runs(model, feeds, "EmbedLayerNormalization").items():
        for what, g, w in zip(OUTS, got, want):
            S.assert_exact_bits(f"{where} {what}", g, w)
    y, mi, s = S.stock(model, feeds)
    np.testing.assert_allclose(want[0], y, rtol=0, atol=_tolerance(y))
    np.testing.assert_array_equal(want[1], mi)
    S.assert_exact_bits("stock embedding_sum", want[2], s)


@pytest.mark.parametrize(("which", "value", "says"), [
    (0, 50, "input_ids value 50 (element 3) is out of range for word_embedding of 50 rows"),
    (0, -1, "input_ids value -1 (element 3)"),
    (1, 2, "segment_ids value 2 (element 3) is out of range for segment_embedding of 2 rows"),
    (8, 16, "position_ids value 16 (element 3) is out of range for position_embedding of 16 rows"),
])
def test_ids_out_of_range_fail_the_run(which: int, value: int, says: str) -> None:
    ins = _inputs(CASES[0], seed=7)
    ins[8] = np.zeros((1, 7), np.int32)
    bad = ins[which]
    assert bad is not None
    bad.reshape(-1)[3] = value
    with pytest.raises(NodeError) as e:
        _node(ins).run_outputs(*_args(ins), n_outputs=3)
    msg = str(e.value)
    assert "'eln'" in msg and "op EmbedLayerNormalization" in msg and says in msg, msg


def test_id_out_of_range_in_a_session_names_node() -> None:
    ins = _inputs(CASES[1], seed=8)
    ids = ins[0]
    assert ids is not None
    ids[1, 2] = 30
    feeds = {n: x for n, x in zip(NAMES, ins) if x is not None}
    for via in S.VIAS:
        sess = S.session(_model(ins, OUTS[:2]), via, None, 1)
        with pytest.raises(Exception, match=r"node .eln. \(op EmbedLayerNormalization\): input_ids value 30"):
            sess.run(None, feeds)


def test_sequence_longer_than_positions_fails() -> None:
    ins = _inputs(("short", 1, 9, 8, 10, 4, 0, False, 0), seed=9)
    with pytest.raises(NodeError, match="sequence length 9 exceeds position_embedding's 4 rows"):
        _node(ins).run_outputs(*_args(ins))


@pytest.mark.parametrize(("types", "attrs", "says"), [
    ([I32, I32, F32, F32, 0, F32, F32], {}, "segment_ids and segment_embedding must be both"),
    ([I32, 0, F32, F32, F32, F32, F32], {}, "segment_ids and segment_embedding must be both"),
    ([I32, 0, F32, F32, 0, F32, F32], {"mask_index_type": 2}, "mask_index_type = 2 is not served"),
    ([I32, 0, F32, F32, 0, F32, F32], {"epsilon": -1.0}, "epsilon = -1 must be at least 0"),
    ([I32, 0, F32, I32, 0, F32, F32], {}, "input position_embedding has type int32; it must be float"),
    ([I32, 0, F32, F32, 0, F32, F32, F32], {}, "input mask has type float; it must be int32"),
])
def test_bad_attributes_and_types_refused(types: list[int], attrs: dict[str, Any], says: str) -> None:
    with pytest.raises(NodeError) as e:
        Node("com.microsoft.EmbedLayerNormalization", types, attributes=attrs, name="bad")
    msg = str(e.value)
    assert "'bad'" in msg and "op EmbedLayerNormalization" in msg and says in msg, msg


def test_bad_shapes_name_node_op_and_problem() -> None:
    base = _inputs(CASES[0], seed=10)
    for k, x, says in (
        (2, np.zeros((50, 32, 1), np.float32), "word_embedding [50, 32, 1] must have rank 2"),
        (3, np.zeros((16, 31), np.float32), "position_embedding [16, 31] does not fit the hidden size 32"),
        (5, np.zeros(33, np.float32), "gamma [33] does not fit the hidden size 32"),
        (7, np.zeros((2, 6), np.int32), "mask [2, 6] does not fit input_ids [2, 7]"),
        (8, np.zeros((3, 7), np.int32), "[batch, sequence] or [1, sequence]"),
    ):
        ins = list(base)
        ins[k] = x
        if k != 8:
            ins[8] = None
        with pytest.raises(NodeError) as e:
            _node(ins).run_outputs(*_args(ins))
        msg = str(e.value)
        assert "'eln'" in msg and "op EmbedLayerNormalization" in msg and says in msg, msg


def test_bad_rank_refused_at_session_creation() -> None:
    ins = _inputs(CASES[1], seed=11)
    ins[5] = np.ones((1, 20), np.float32)
    # ORT's own shape inference (com.microsoft's schema) may speak first, naming node, op and gamma too
    said = (r"node .eln. \(op EmbedLayerNormalization\): gamma has rank 2|"
            r"Node \(eln\) Op \(EmbedLayerNormalization\).*gamma should have 1 dimension")
    for via in S.VIAS:
        with pytest.raises(Exception, match=said):
            S.session(_model(ins, OUTS), via, None, 1)


@pytest.mark.parametrize("dims", [(0, 4, 8), (2, 0, 8), (2, 3, 0)], ids=["batch-0", "seq-0", "hidden-0"])
def test_zero_size_dimensions(dims: tuple[int, int, int]) -> None:
    B, Sq, H = dims
    ins = _inputs(("z", B, Sq, H, 5, 4, 2, True, 0), seed=12)
    got = _node(ins).run_outputs(*_args(ins), n_outputs=3)
    for what, g, w in zip(OUTS, got, _ref(ins)):
        S.assert_exact_bits(f"{dims} {what}", g, w)


def test_exact_mode_nan_sum_is_canonical() -> None:
    """A NaN sum is the canonical NaN 0x7fc00000 in exact mode, whatever the input NaN's payload and sign."""
    ins = _inputs(CASES[1], seed=13)
    word, ids = ins[2], ins[0]
    assert word is not None and ids is not None
    word[ids[0, 0], 5] = np.array([0xFFC00123], np.uint32).view(np.float32)[0]
    got = _node(ins).run_outputs(*_args(ins), n_outputs=3)
    assert int(got[2][0, 0].view(np.uint32)[5]) == 0x7FC00000
    assert int(got[2][0, 0].view(np.uint32)[4]) == int(_ref(ins)[2][0, 0].view(np.uint32)[4])
