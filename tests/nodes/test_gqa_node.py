"""com.microsoft GroupQueryAttention (node_gqa.c over attention/ and reduce/'s Softmax): docs/attention.md's
contract bit for bit against tests/reference/reference_gqa.py (written from the doc) on every kernel path,
both ways in, 1 and 2 threads; the batch and cache invariance bit for bit (a sequence alone or batched with
others, prefilled in one call or in chunks, any cache buffer length, a shared past/present buffer); within
tolerance of a float64 evaluation and of stock ORT; bad input refused naming node, op and problem."""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

import onemodel_ep
from onemodel_ep.node import Node, NodeError
from tests.nodes import node_sessions as S
from tests.reference import reference_gqa as G

F32, I32 = TensorProto.FLOAT, TensorProto.INT32
NAMES = [
    "query",
    "key",
    "value",
    "past_key",
    "past_value",
    "seqlens_k",
    "total_sequence_length",
    "cos_cache",
    "sin_cache",
]


def _attrs(at: G.Attrs) -> dict[str, Any]:
    d: dict[str, Any] = {"num_heads": at.num_heads, "kv_num_heads": at.kv_num_heads}
    if at.scale:
        d["scale"] = at.scale
    if at.do_rotary:
        d["do_rotary"] = 1
    if at.rotary_interleaved:
        d["rotary_interleaved"] = 1
    if at.local_window_size != -1:
        d["local_window_size"] = at.local_window_size
    if at.softcap:
        d["softcap"] = at.softcap
    return d


def _feeds(
    at: G.Attrs,
    B: int,
    Sq: int,
    H: int,
    L: int,
    seqlens: list[int],
    total: int,
    packed: bool,
    seed: int,
    rot_half: int = 8,
    max_pos: int = 64,
) -> list[np.ndarray | None]:
    """The nine inputs (None: absent): random q, k, v, past (L rows, BNSH), rotary caches."""
    rng = np.random.default_rng(seed)
    N, KH = at.num_heads, at.kv_num_heads

    def r(*shape: int) -> np.ndarray:
        return rng.standard_normal(shape).astype(np.float32)

    if packed:
        q, k, v = r(B, Sq, (N + 2 * KH) * H), None, None
    else:
        q, k, v = r(B, Sq, N * H), r(B, Sq, KH * H), r(B, Sq, KH * H)
    pk = r(B, KH, L, H) if L else None
    pv = r(B, KH, L, H) if L else None
    cos = sin = None
    if at.do_rotary:
        ang = rng.uniform(0, 6.3, (max_pos, rot_half))
        cos, sin = np.cos(ang).astype(np.float32), np.sin(ang).astype(np.float32)
    return [q, k, v, pk, pv, np.array(seqlens, np.int32) - 1, np.array(total, np.int32), cos, sin]


def _ref(at: G.Attrs, ins: list[np.ndarray | None], f64: bool = False) -> tuple[np.ndarray, ...]:
    q, k, v, pk, pv, sl, tot, cos, sin = ins
    assert q is not None and sl is not None and tot is not None
    return G.gqa(at, q, k, v, pk, pv, sl, int(tot), cos, sin, f64=f64)


def _node(at: G.Attrs, ins: list[np.ndarray | None], path: str | None = None) -> Node:
    types = [0 if x is None else (TensorProto.INT32 if x.dtype == np.int32 else F32) for x in ins]
    return Node(
        "com.microsoft.GroupQueryAttention", types, attributes=_attrs(at), kernel_path=path, name="gqa"
    )


def _valid(
    out: np.ndarray, pk: np.ndarray, pv: np.ndarray, ins: list[np.ndarray | None], Sq: int
) -> list[np.ndarray]:
    """The rows the contract specifies for comparison: output rows of valid tokens, present rows below T_b."""
    sl, tot = ins[5], ins[6]
    assert sl is not None and tot is not None
    first = Sq == int(tot)
    outs, pks, pvs = [], [], []
    for b, t in enumerate(sl + 1):
        n_valid = min(int(t), Sq) if first else Sq
        outs.append(out[b, :n_valid].ravel())
        pks.append(pk[b, :, :t].ravel())
        pvs.append(pv[b, :, :t].ravel())
    return [np.concatenate(outs), np.concatenate(pks), np.concatenate(pvs)]


# (name, attrs, B, S, H, L, seqlens, total, packed)
CASES: list[tuple[str, G.Attrs, int, int, int, int, list[int], int, bool]] = [
    ("prefill-packed-rotary", G.Attrs(4, 2, do_rotary=1), 1, 7, 32, 0, [7], 7, True),
    ("prefill-sep-norot", G.Attrs(4, 1), 2, 5, 24, 0, [5, 5], 5, False),
    ("prefill-padded-batch", G.Attrs(4, 2, do_rotary=1), 3, 6, 32, 0, [6, 2, 4], 6, True),
    ("decode-batch", G.Attrs(4, 2, do_rotary=1), 3, 1, 32, 12, [9, 3, 12], 12, True),
    ("decode-shared-len", G.Attrs(6, 3, scale=0.3, do_rotary=1), 2, 1, 16, 20, [5, 17], 20, False),
    ("decode-grow", G.Attrs(4, 4), 2, 1, 16, 6, [7, 3], 7, False),
    ("interleaved", G.Attrs(4, 2, do_rotary=1, rotary_interleaved=1), 2, 1, 32, 10, [10, 4], 10, True),
    ("window-prefill", G.Attrs(4, 2, do_rotary=1, local_window_size=3), 1, 9, 32, 0, [9], 9, True),
    ("window-decode", G.Attrs(2, 1, local_window_size=4), 2, 1, 16, 12, [12, 3], 12, False),
    ("chunk", G.Attrs(4, 2, do_rotary=1), 1, 4, 32, 16, [10], 16, True),
    ("softcap", G.Attrs(4, 2, do_rotary=1, softcap=1.5), 2, 1, 32, 10, [10, 6], 10, True),
    ("softcap-window-prefill", G.Attrs(4, 2, softcap=3.0, local_window_size=2), 1, 6, 16, 0, [6], 6, False),
    ("long-rows", G.Attrs(2, 1), 1, 1, 128, 600, [600], 600, False),
    ("decode-group-of-6", G.Attrs(6, 1), 1, 1, 40, 18, [18], 18, False),  # 4 + 2 heads, keys 4 x 4 + 2, H 40
]
IDS = [c[0] for c in CASES]


@pytest.mark.parametrize("case", CASES, ids=IDS)
@pytest.mark.parametrize("path", S.PATHS)
def test_node_bits_reference(case: tuple[Any, ...], path: str) -> None:
    _, at, B, Sq, H, L, seqlens, total, packed = case
    ins = _feeds(at, B, Sq, H, L, seqlens, total, packed, seed=1, max_pos=max(64, total))
    got = _node(at, ins, path).run_outputs(*ins)
    want = _ref(at, ins)
    for what, g, w in zip(
        ("output", "present_key", "present_value"), _valid(*got, ins, Sq), _valid(*want, ins, Sq)
    ):
        S.assert_exact_bits(f"{path} {what}", g, w)


def test_node_f64_closeness() -> None:
    for _, at, B, Sq, H, L, seqlens, total, packed in CASES:
        ins = _feeds(at, B, Sq, H, L, seqlens, total, packed, seed=2, max_pos=max(64, total))
        got = _valid(*_node(at, ins).run_outputs(*ins), ins, Sq)
        want = _valid(*_ref(at, ins, f64=True), ins, Sq)
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=0, atol=2e-5 * max(1.0, float(np.abs(w).max())))


def _model(at: G.Attrs, ins: list[np.ndarray | None], dynamic: bool = False) -> onnx.ModelProto:
    """A one-node model of these inputs' types (dynamic: every dimension unnamed, else their shapes)."""
    names = [n if x is not None else "" for n, x in zip(NAMES, ins)]
    while names and names[-1] == "":
        names.pop()
    node = helper.make_node(
        "GroupQueryAttention",
        names,
        ["output", "present_key", "present_value"],
        domain="com.microsoft",
        name="gqa",
        **_attrs(at),
    )
    vis = [
        helper.make_tensor_value_info(
            n, I32 if x.dtype == np.int32 else F32, [None] * x.ndim if dynamic else list(x.shape)
        )
        for n, x in zip(NAMES, ins)
        if x is not None
    ]
    outs = [helper.make_tensor_value_info(n, F32, None) for n in ("output", "present_key", "present_value")]
    graph = helper.make_graph([node], "g", vis, outs)
    return helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)],
        ir_version=10,
    )


SESSION_CASES = [
    c
    for c in CASES
    if c[0] in ("prefill-padded-batch", "decode-batch", "interleaved", "chunk", "softcap", "window-prefill",
                "window-decode", "softcap-window-prefill")
]


@pytest.mark.parametrize("case", SESSION_CASES, ids=[c[0] for c in SESSION_CASES])
def test_sessions_bits_and_stock(case: tuple[Any, ...]) -> None:
    _, at, B, Sq, H, L, seqlens, total, packed = case
    ins = _feeds(at, B, Sq, H, L, seqlens, total, packed, seed=3)
    model = _model(at, ins)
    feeds = {n: x for n, x in zip(NAMES, ins) if x is not None}
    want = _valid(*_ref(at, ins), ins, Sq)
    for where, got in S.runs(model, feeds, "GroupQueryAttention").items():
        for what, g, w in zip(("output", "present_key", "present_value"), _valid(*got, ins, Sq), want):
            S.assert_exact_bits(f"{where} {what}", g, w)
    stock = _valid(*S.stock(model, feeds), ins, Sq)
    for g, w in zip(want, stock):
        np.testing.assert_allclose(g, w, rtol=0, atol=1e-5 * max(1.0, float(np.abs(w).max())))


def _seq(at: G.Attrs, H: int, T: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One sequence's packed QKV rows (T, (N + 2 KH) H), and the rotary caches."""
    rng = np.random.default_rng(seed)
    qkv = rng.standard_normal((T, (at.num_heads + 2 * at.kv_num_heads) * H)).astype(np.float32)
    ang = np.random.default_rng(99).uniform(0, 6.3, (64, 8))
    return qkv, np.cos(ang).astype(np.float32), np.sin(ang).astype(np.float32)


AT = G.Attrs(4, 2, do_rotary=1)
HS = 32


def _prefill(node: Node, rows: list[np.ndarray], cos: np.ndarray, sin: np.ndarray) -> list[np.ndarray]:
    """A first-prompt call of sequences right-padded to the longest."""
    Sq = max(len(r) for r in rows)
    q = np.zeros((len(rows), Sq, rows[0].shape[1]), np.float32)
    for b, r in enumerate(rows):
        q[b, : len(r)] = r
    sl = np.array([len(r) - 1 for r in rows], np.int32)
    return node.run_outputs(q, None, None, None, None, sl, np.array(Sq, np.int32), cos, sin)


def test_batch_invariance_prefill_and_decode() -> None:
    """A sequence's outputs and cache are the same bits alone or batched with others of any length at any
    batch position, at prefill and at the decode step that follows."""
    a, cos, sin = _seq(AT, HS, 9, 10)
    others = [_seq(AT, HS, n, 20 + n)[0] for n in (3, 12, 1)]
    node = Node(
        "com.microsoft.GroupQueryAttention", [F32, 0, 0, 0, 0, I32, I32, F32, F32], attributes=_attrs(AT)
    )
    alone = _prefill(node, [a[:8]], cos, sin)
    for batch, pos in (
        ([a[:8], others[0]], 0),
        ([others[1], a[:8]], 1),
        ([others[0], others[2], a[:8], others[1]], 2),
    ):
        got = _prefill(node, batch, cos, sin)
        S.assert_exact_bits(f"prefill output at {pos}", got[0][pos, :8], alone[0][0])
        S.assert_exact_bits(f"prefill cache at {pos}", got[1][pos, :, :8], alone[1][0, :, :8])
    # decode token 9 with a cache buffer of the sequence's length, and of 40 rows in a batch
    dec = Node(
        "com.microsoft.GroupQueryAttention", [F32, 0, 0, F32, F32, I32, I32, F32, F32], attributes=_attrs(AT)
    )
    one = dec.run_outputs(
        a[None, 8:9], None, None, alone[1], alone[2], np.array([8], np.int32), np.array(9, np.int32), cos, sin
    )
    big_k = np.random.default_rng(5).standard_normal((3, 2, 40, HS)).astype(np.float32)
    big_v = big_k[::-1].copy()
    big_k[1, :, :8], big_v[1, :, :8] = alone[1][0, :, :8], alone[2][0, :, :8]
    q = np.random.default_rng(6).standard_normal((3, 1, a.shape[1])).astype(np.float32)
    q[1, 0] = a[8]
    got = dec.run_outputs(
        q, None, None, big_k, big_v, np.array([30, 8, 39], np.int32), np.array(40, np.int32), cos, sin
    )
    S.assert_exact_bits("decode output", got[0][1], one[0][0])
    S.assert_exact_bits("decode cache", got[1][1, :, :9], one[1][0, :, :9])


def test_chunked_prefill_equals_one_shot() -> None:
    a, cos, sin = _seq(AT, HS, 11, 30)
    node = Node(
        "com.microsoft.GroupQueryAttention", [F32, 0, 0, F32, F32, I32, I32, F32, F32], attributes=_attrs(AT)
    )
    empty = np.zeros((1, 2, 0, HS), np.float32)
    whole = node.run_outputs(
        a[None], None, None, empty, empty, np.array([10], np.int32), np.array(11, np.int32), cos, sin
    )
    for cuts in ((4, 11), (1, 5, 6, 11), (7, 10, 11)):
        pk, pv, start, outs = empty, empty, 0, []
        for end in cuts:
            o, pk, pv = node.run_outputs(
                a[None, start:end],
                None,
                None,
                pk,
                pv,
                np.array([end - 1], np.int32),
                np.array(end, np.int32),
                cos,
                sin,
            )
            outs.append(o[0])
            start = end
        S.assert_exact_bits(f"chunks {cuts} output", np.concatenate(outs), whole[0][0])
        S.assert_exact_bits(f"chunks {cuts} key cache", pk, whole[1])
        S.assert_exact_bits(f"chunks {cuts} value cache", pv, whole[2])


@pytest.mark.skipif(not onemodel_ep.ep_supported(), reason="the execution provider needs ORT 1.24+")
def test_shared_buffer_through_iobinding() -> None:
    """The generator's past_present_share_buffer: past and present bound to one OrtValue of 32 rows."""
    a, cos, sin = _seq(AT, HS, 6, 40)
    buf_k = np.zeros((1, 2, 32, HS), np.float32)
    buf_v = np.zeros((1, 2, 32, HS), np.float32)
    ins: list[np.ndarray | None] = [
        a[None, :5],
        None,
        None,
        buf_k,
        buf_v,
        np.array([4], np.int32),
        np.array(5, np.int32),
        cos,
        sin,
    ]
    model = _model(AT, ins, dynamic=True)
    node = Node(
        "com.microsoft.GroupQueryAttention", [F32, 0, 0, F32, F32, I32, I32, F32, F32], attributes=_attrs(AT)
    )
    want5 = node.run_outputs(*ins)
    want6 = node.run_outputs(
        a[None, 5:6],
        None,
        None,
        want5[1],
        want5[2],
        np.array([5], np.int32),
        np.array(32, np.int32),
        cos,
        sin,
    )
    for via in S.VIAS:
        sess = S.session(model, via, None, 1)
        kv = [ort.OrtValue.ortvalue_from_numpy(np.zeros((1, 2, 32, HS), np.float32)) for _ in range(2)]
        for step, (q, t, tot) in enumerate(((a[None, :5], 5, 5), (a[None, 5:6], 6, 32))):
            io = sess.io_binding()
            io.bind_cpu_input("query", q)
            io.bind_ortvalue_input("past_key", kv[0])
            io.bind_ortvalue_input("past_value", kv[1])
            io.bind_cpu_input("seqlens_k", np.array([t - 1], np.int32))
            io.bind_cpu_input("total_sequence_length", np.array(tot, np.int32))
            io.bind_cpu_input("cos_cache", cos)
            io.bind_cpu_input("sin_cache", sin)
            io.bind_output("output")
            io.bind_ortvalue_output("present_key", kv[0])
            io.bind_ortvalue_output("present_value", kv[1])
            sess.run_with_iobinding(io)
            want = want5 if step == 0 else want6
            S.assert_exact_bits(f"{via} step {step} output", io.copy_outputs_to_cpu()[0], want[0])
            S.assert_exact_bits(f"{via} step {step} cache", kv[0].numpy()[:, :, :t], want[1][:, :, :t])
            S.assert_exact_bits(f"{via} step {step} values", kv[1].numpy()[:, :, :t], want[2][:, :, :t])


def test_bad_input_errors() -> None:
    at = G.Attrs(4, 2)
    ins = _feeds(at, 1, 3, 16, 0, [3], 3, False, seed=4)
    node = _node(at, ins)
    with pytest.raises(NodeError, match=r"node 'gqa' \(op GroupQueryAttention\).*key has dimension 2"):
        node.run_outputs(ins[0], ins[1][:, :, :16], *ins[2:])  # type: ignore[index]
    with pytest.raises(NodeError, match=r"GroupQueryAttention.*seqlens_k\[0\] = 5 is more than"):
        node.run_outputs(*ins[:5], np.array([5], np.int32), *ins[6:])
    with pytest.raises(NodeError, match=r"GroupQueryAttention.*query's last dimension 42 is not a multiple"):
        node.run_outputs(np.zeros((1, 3, 42), np.float32), *ins[1:])
    dec = _feeds(at, 2, 1, 16, 4, [4, 9], 4, False, seed=5)
    with pytest.raises(NodeError, match=r"seqlens_k\[1\] = 8 does not leave room"):
        _node(at, dec).run_outputs(*dec)
    rot = G.Attrs(4, 2, do_rotary=1)
    far = _feeds(rot, 1, 1, 32, 20, [18], 12, True, seed=6, max_pos=16)  # cache of 20 rows, rotary of 16
    with pytest.raises(NodeError, match=r"seqlens_k\[0\] = 17 puts a position past cos_cache's rows"):
        _node(rot, far).run_outputs(*far)


@pytest.mark.parametrize(
    "attrs, why",
    [
        ({"smooth_softmax": 1}, "smooth_softmax = 1 is not served"),
        ({"softcap": -1.0}, "softcap = -1 is not served"),
        ({"local_window_size": 0}, "local_window_size = 0 is not served"),
        ({"kv_num_heads": 3}, "kv_num_heads is required and must divide"),
    ],
)
def test_not_served_attributes(attrs: dict[str, Any], why: str) -> None:
    a = {"num_heads": 4, "kv_num_heads": 2, **attrs}
    with pytest.raises(NodeError, match=rf"node 'gqa' \(op GroupQueryAttention\): attribute {why}"):
        Node("com.microsoft.GroupQueryAttention", [F32, F32, F32, 0, 0, I32, I32], attributes=a, name="gqa")


def test_unserved_inputs_refused() -> None:
    with pytest.raises(NodeError, match=r"input 9 \(position_ids\) is not served"):
        Node(
            "com.microsoft.GroupQueryAttention",
            [F32, F32, F32, 0, 0, I32, I32, 0, 0, TensorProto.INT64],
            attributes={"num_heads": 2, "kv_num_heads": 1},
            name="gqa",
        )


def test_output_qk_left_to_stock() -> None:
    """A GQA node that asks for its fourth output (output_qk), which the library does not write: the node
    refuses it, the EP does not claim the node and the rewrite leaves it, so stock ORT serves it whole; the
    same node with that output absent ("") is ours."""
    with pytest.raises(NodeError, match=r"node 'gqa' \(op GroupQueryAttention\): output 3 is not served"):
        Node("com.microsoft.GroupQueryAttention", [F32, F32, F32, 0, 0, I32, I32],
             attributes={"num_heads": 4, "kv_num_heads": 2}, name="gqa", n_outputs=4)
    at = G.Attrs(4, 2)
    ins = _feeds(at, 1, 1, 16, 3, [3], 3, False, seed=5)
    feeds = {n: x for n, x in zip(NAMES, ins) if x is not None}
    for with_qk in (True, False):
        model = _model(at, ins)
        node = model.graph.node[0]
        node.output.append("qk" if with_qk else "")
        if with_qk:  # stock wants the qk_output mode too (1: the scaled scores before the Softmax)
            node.attribute.append(helper.make_attribute("qk_output", 1))
            model.graph.output.append(helper.make_tensor_value_info("qk", F32, None))
        sess = onemodel_ep.InferenceSession(model.SerializeToString(), via="ep")
        assert [n.moved for n in sess.report.nodes if n.op == "GroupQueryAttention"] == [not with_qk], (
            sess.report.summary())
        got = sess.run(None, feeds)
        stock = S.stock(model, feeds)
        np.testing.assert_allclose(got[0], stock[0], rtol=0, atol=1e-5)
        rewritten = onemodel_ep.InferenceSession(model.SerializeToString(), via="rewrite")
        assert [n.moved for n in rewritten.report.nodes if n.op == "GroupQueryAttention"] == [not with_qk]
        rewritten.run(None, feeds)
