"""ONNX Attention, opsets 23 and 24 (node_onnx_attention.c over node/mha_core.c, attention/ and reduce/'s
Softmax): docs/attention.md's contract ("ONNX Attention") bit for bit against
tests/reference/reference_onnx_attention.py (written from the doc) on every kernel path, both ways in, 1 and 2
threads; within tolerance of float64 and of stock ORT; prefill in one call or in chunks over past, and a
sequence alone or in a padded batch, the same bits; bad input refused naming node, op and problem; zero-size
dimensions."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pytest
from onnx import TensorProto

from onemodel_ep.node import Node, NodeError
from tests.nodes import node_sessions as S
from tests.nodes import onnx_attention_models as M
from tests.reference import reference_onnx_attention as A

F32, F16, BOOL, I64 = TensorProto.FLOAT, TensorProto.FLOAT16, TensorProto.BOOL, TensorProto.INT64


@dataclass(frozen=True)
class Case:
    name: str
    at: A.Attrs
    form: str  # "3d" or "4d"
    B: int
    S: int
    L: int
    qh: int
    kvh: int
    H: int
    Hv: int = 0  # 0: H
    P: int = 0  # past rows
    mask: str = ""  # "": none; "bool:<shape>" / "float:<shape>" with shape letters of b n s t, "1" for one
    nonpad: tuple[int, ...] = ()
    dead_row: bool = False  # a bool mask's row all False
    opset: int = 23


CASES = [
    Case("mha-3d", A.Attrs(2, 2), "3d", 2, 5, 5, 2, 2, 16),
    Case("gqa-causal-past", A.Attrs(4, 2, is_causal=1), "3d", 2, 3, 3, 4, 2, 16, P=5),
    Case("mqa-decode-bool", A.Attrs(), "4d", 2, 1, 1, 4, 1, 24, P=20, mask="bool:b11t"),
    Case("float-mask-softcap", A.Attrs(scale=0.3, softcap=2.5), "4d", 1, 4, 6, 2, 2, 8, Hv=12,
         mask="float:st"),
    Case("bool-dead-row-causal", A.Attrs(2, 1, is_causal=1), "3d", 2, 4, 4, 2, 1, 16, mask="bool:bnst",
         dead_row=True),
    Case("causal-more-rows", A.Attrs(is_causal=1), "4d", 1, 6, 4, 2, 2, 16),
    Case("nonpad-causal", A.Attrs(is_causal=1), "4d", 2, 3, 8, 2, 1, 16, nonpad=(5, 2), opset=24),
    Case("nonpad-float-mask", A.Attrs(4, 4, is_causal=1, softcap=1.5), "3d", 2, 2, 7, 4, 4, 8,
         mask="float:1nst", nonpad=(7, 4), opset=24),
    Case("long-rows", A.Attrs(), "4d", 1, 2, 300, 1, 1, 64, mask="float:st"),
]


def _r(rng: np.random.Generator, *shape: int) -> np.ndarray:
    return rng.standard_normal(shape).astype(np.float32)


def _inputs(c: Case, seed: int) -> list[np.ndarray | None]:
    rng = np.random.default_rng(seed)
    Hv = c.Hv or c.H
    T = c.P + c.L
    if c.form == "3d":
        q, k, v = _r(rng, c.B, c.S, c.qh * c.H), _r(rng, c.B, c.L, c.kvh * c.H), _r(rng, c.B, c.L, c.kvh * Hv)
    else:
        q, k, v = _r(rng, c.B, c.qh, c.S, c.H), _r(rng, c.B, c.kvh, c.L, c.H), _r(rng, c.B, c.kvh, c.L, Hv)
    mask = None
    if c.mask:
        kind, letters = c.mask.split(":")
        shape = M.mask_shape(letters, c.B, c.qh, c.S, T)
        if kind == "bool":
            mask = rng.random(shape) < 0.7
            mask[..., :1] = True
            if c.dead_row:
                mask[-1, -1, 1, :] = False
        else:
            mask = (rng.standard_normal(shape) * 2).astype(np.float32)
    nonpad = np.array(c.nonpad, np.int64) if c.nonpad else None
    pk = _r(rng, c.B, c.kvh, c.P, c.H) if c.P else None
    pv = _r(rng, c.B, c.kvh, c.P, Hv) if c.P else None
    return [q, k, v, mask, pk, pv, nonpad]


def _ref(c: Case, ins: list[np.ndarray | None], f64: bool = False) -> tuple[np.ndarray, ...]:
    q, k, v, mask, pk, pv, nonpad = ins
    assert q is not None and k is not None and v is not None
    return A.attention(c.at, q, k, v, mask, pk, pv, nonpad, f64=f64)


def _node(c: Case, ins: list[np.ndarray | None], path: str | None = None, name: str = "attn") -> Node:
    return Node("Attention", M.input_types(ins), attributes=M.node_attrs(c.at), kernel_path=path,
                onnx_opset=c.opset, name=name)


def _run(node: Node, ins: list[np.ndarray | None]) -> list[np.ndarray]:
    return node.run_outputs(*ins[: len(M.input_types(ins))])


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
@pytest.mark.parametrize("path", S.PATHS)
def test_node_bits_reference(case: Case, path: str) -> None:
    ins = _inputs(case, seed=1)
    got = _run(_node(case, ins, path), ins)
    for what, g, w in zip(("Y", "present_key", "present_value"), got, _ref(case, ins)):
        S.assert_exact_bits(f"{path} {what}", g, w)


def test_dead_rows_are_zero() -> None:
    """A row whose keys are all masked (bool mask all False, no key under causal with nonpad, a float mask
    all -inf) is +0, as the spec's errata and stock ORT 1.31.1 have it, not NaN."""
    c = next(x for x in CASES if x.name == "bool-dead-row-causal")
    y = _run(_node(c, _inputs(c, 1)), _inputs(c, 1))[0]
    assert np.all(y[-1, 1, -c.H:].view(np.uint32) == 0)
    c = next(x for x in CASES if x.name == "nonpad-causal")  # batch row 1: offset 2 - 3 = -1, row 0 empty
    y = _run(_node(c, _inputs(c, 1)), _inputs(c, 1))[0]
    assert np.all(y[1, :, 0].view(np.uint32) == 0) and np.any(y[1, :, 1] != 0)
    c = next(x for x in CASES if x.name == "float-mask-softcap")  # a float mask row all -inf
    ins = _inputs(c, 1)
    assert ins[3] is not None
    ins[3][2] = -np.inf
    y = _run(_node(c, ins), ins)[0]
    assert np.all(y[:, :, 2].view(np.uint32) == 0) and np.all(y[:, :, 1] != 0)
    S.assert_exact_bits("float -inf row", y, _ref(c, ins)[0])


def test_f64_closeness() -> None:
    """Within 2e-5 (times the largest magnitude) of the same formulas in float64: the sums are short."""
    for case in CASES:
        ins = _inputs(case, seed=2)
        g = _run(_node(case, ins), ins)[0]
        w = _ref(case, ins, f64=True)[0]
        np.testing.assert_allclose(g, w, rtol=0, atol=2e-5 * max(1.0, float(np.abs(w).max())),
                                   err_msg=case.name)


def _tolerance(w: np.ndarray) -> float:
    """Stock ORT sums in another order (MLAS GEMMs with FMA, its own exp and tanh): 1e-5 of the largest
    magnitude, about 100 f32 ulps of the outputs here (values of size 1, rows of at most 300 keys)."""
    return 1e-5 * max(1.0, float(np.abs(w).max()))


SESSION_CASES = [c for c in CASES if c.name in ("mqa-decode-bool", "nonpad-float-mask")]


@pytest.mark.parametrize("case", SESSION_CASES, ids=[c.name for c in SESSION_CASES])
def test_sessions_bits(case: Case) -> None:
    """Both ways in, every path at 1 thread, the default at 2: the reference's bits."""
    ins = _inputs(case, seed=3)
    S.assert_runs_bits(case.name, *M.model(ins, case.at, case.opset), "Attention", _ref(case, ins))


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_close_to_stock(case: Case) -> None:
    """One session (the execution provider where ORT has it), against stock ORT 1.31.1's CPU kernel."""
    ins = _inputs(case, seed=4)
    model, feeds = M.model(ins, case.at, case.opset)
    sess = S.session(model, S.VIAS[-1], None, 1)
    assert [n.op for n in sess.report.moved] == ["Attention"], sess.report.summary()
    got = sess.run(None, feeds)
    for what, g, w in zip(M.OUTS, got, S.stock(model, feeds)):
        np.testing.assert_allclose(g, w, rtol=0, atol=_tolerance(w), err_msg=f"{case.name} {what}")


def test_prefill_in_chunks_same_bits() -> None:
    """A causal prompt of 11 tokens in one call, and in chunks (4 + 7, 1 + 4 + 1 + 5) each over the previous
    call's present: every Y row and the final presents are the same bits (sums in key order from key 0)."""
    c = Case("prompt", A.Attrs(4, 2, is_causal=1), "3d", 1, 11, 11, 4, 2, 16)
    q, k, v = _inputs(c, seed=5)[:3]
    assert q is not None and k is not None and v is not None
    whole = A.Attrs(4, 2, is_causal=1)
    attrs = M.node_attrs(whole)
    node = Node("Attention", [F32, F32, F32, 0, F32, F32], attributes=attrs, onnx_opset=23)
    one = Node("Attention", [F32, F32, F32], attributes=attrs, onnx_opset=23).run_outputs(q, k, v)
    for chunks in ((4, 7), (1, 4, 1, 5)):
        pk = np.zeros((1, 2, 0, 16), np.float32)
        pv = np.zeros((1, 2, 0, 16), np.float32)
        ys = []
        s0 = 0
        for n in chunks:
            part = slice(s0, s0 + n)
            y, pk, pv = node.run_outputs(q[:, part], k[:, part], v[:, part], None, pk, pv)
            ys.append(y)
            s0 += n
        S.assert_exact_bits(f"{chunks} Y", np.concatenate(ys, axis=1), one[0])
        S.assert_exact_bits(f"{chunks} present_key", pk, one[1])
        S.assert_exact_bits(f"{chunks} present_value", pv, one[2])


def test_sequence_alone_or_in_padded_batch_same_bits() -> None:
    """Opset 24's external cache: a sequence of 6 keys alone (a cache of exactly its 6 rows), and as batch row
    1 of 3 whose cache holds 12 rows with nonpad_kv_seqlen = 6 (the other rows of other lengths, its padding
    rows inf and NaN): its Y is the same bits."""
    rng = np.random.default_rng(6)
    at = A.Attrs(is_causal=1)
    node = Node("Attention", [F32, F32, F32, 0, 0, 0, I64], attributes=M.node_attrs(at), onnx_opset=24)
    q1, k1, v1 = _r(rng, 1, 2, 2, 16), _r(rng, 1, 1, 6, 16), _r(rng, 1, 1, 6, 16)
    alone = node.run_outputs(q1, k1, v1, None, None, None, np.array([6], np.int64))[0]
    qb, kb, vb = _r(rng, 3, 2, 2, 16), _r(rng, 3, 1, 12, 16), _r(rng, 3, 1, 12, 16)
    qb[1], kb[1, :, :6], vb[1, :, :6] = q1[0], k1[0], v1[0]
    kb[1, :, 6:] = np.inf  # padding never read
    vb[1, :, 6:] = np.nan
    nonpad = np.array([12, 6, 9], np.int64)
    batch = node.run_outputs(qb, kb, vb, None, None, None, nonpad)[0]
    S.assert_exact_bits("batch row 1", batch[1:2], alone)


def _error(attrs: dict[str, Any], types: list[int], opset: int = 23) -> str:
    with pytest.raises(NodeError) as e:
        Node("Attention", types, attributes=attrs, onnx_opset=opset, name="bad")
    return str(e.value)


@pytest.mark.parametrize(
    ("attrs", "types", "opset", "says"),
    [
        ({"is_causal": 2}, [F32, F32, F32], 23, "is_causal = 2"),
        ({"softcap": -1.0}, [F32, F32, F32], 23, "softcap = -1"),
        ({"scale": 0.0}, [F32, F32, F32], 23, "scale = 0"),
        ({"scale": float("inf")}, [F32, F32, F32], 23, "scale = inf"),
        ({"softmax_precision": 11}, [F32, F32, F32], 23, "softmax_precision = 11"),
        ({"qk_matmul_output_mode": 4}, [F32, F32, F32], 23, "qk_matmul_output_mode = 4"),
        ({"q_num_heads": 0}, [F32, F32, F32], 23, "q_num_heads = 0"),
        ({}, [F32, F32, F32, I64], 23, "(attn_mask) of element type int64 is not served (bool or float, as"),
        ({}, [F32, BOOL, F32], 23, "input 1 (K) of element type bool is not served (float, as Q)"),
        ({}, [F16, F32, F32], 23, "input 1 (K) of element type float is not served (float16, as Q)"),
        ({}, [F16, F16, F16, F32], 23, "(attn_mask) of element type float is not served (bool or float16"),
        ({}, [F32, F32, F32, 0, 0, 0, F32], 24, "input 6 (nonpad_kv_seqlen) of element type float"),
        ({}, [F32, F32, F32, TensorProto.INT32], 23, "unsupported element type int32 for input 3"),
        ({}, [TensorProto.BFLOAT16, F32, F32], 23, "unsupported element type bfloat16 for input 0"),
        ({}, [F32, F32, F32, 0, F32], 23, "past_key and past_value"),
        ({}, [F32, F32, F32, 0, 0, 0, I64], 23, "needs opset 24"),
        ({}, [F32, F32, F32, 0, F32, F32, I64], 24, "nonpad_kv_seqlen with past_key"),
        ({}, [F32, F32, F32], 25, "opset 25 is not served"),
    ],
)
def test_bad_attributes_and_inputs_refused(attrs: dict[str, Any], types: list[int], opset: int,
                                           says: str) -> None:
    msg = _error(attrs, types, opset)
    assert "'bad'" in msg and "op Attention" in msg and says in msg, msg


def test_bad_shapes_name_node_op_and_problem() -> None:
    rng = np.random.default_rng(0)
    three = Node("Attention", [F32, F32, F32], name="bad", onnx_opset=23)
    heads = Node("Attention", [F32, F32, F32, F32], attributes={"q_num_heads": 4, "kv_num_heads": 2},
                 name="bad", onnx_opset=23)
    nonpad = Node("Attention", [F32, F32, F32, 0, 0, 0, I64], name="bad", onnx_opset=24)
    q3, k3 = _r(rng, 2, 3, 32), _r(rng, 2, 5, 16)
    q4, k4 = _r(rng, 2, 4, 3, 8), _r(rng, 2, 2, 5, 8)
    for node, ins, says in (
        (three, [q3, k3, k3], "need the attributes q_num_heads and kv_num_heads"),
        (heads, [q3, k3, k3, _r(rng, 3, 4)], "does not broadcast to"),
        (heads, [q3, _r(rng, 2, 5, 12), k3, _r(rng, 3, 5)], "K has shape [2, 5, 12], expected [2, 5, 16]"),
        (heads, [_r(rng, 2, 3, 30), k3, k3, _r(rng, 3, 5)], "not a positive multiple of 4 heads"),
        (three, [q4, _r(rng, 2, 3, 5, 8), _r(rng, 2, 3, 5, 8)], "4 query heads are not a multiple of 3"),
        (three, [q4, k4, _r(rng, 2, 2, 4, 8)], "input V has shape"),
        (three, [q4, k4[:, :, :, :4], k4], "input K has shape"),
        (nonpad, [q4, k4, k4, None, None, None, np.array([5, 6], np.int64)], "nonpad_kv_seqlen[1] = 6"),
        (nonpad, [q4, k4, k4, None, None, None, np.array([5], np.int64)], "input nonpad_kv_seqlen has shape"),
    ):
        with pytest.raises(NodeError) as e:
            node.run_outputs(*ins)
        msg = str(e.value)
        assert "'bad'" in msg and "op Attention" in msg and says in msg, msg


def test_qk_matmul_output_left_to_stock() -> None:
    """A node asking for qk_matmul_output (output 3) is not claimed: stock ORT runs it, both ways in."""
    c = CASES[0]
    ins = _inputs(c, seed=7)
    model, _ = M.model(ins, c.at, c.opset, ["Y", "pk", "pv", "qk"])
    for via in S.VIAS:
        sess = S.session(model, via, None, 1)
        assert [n.op for n in sess.report.moved] == [], sess.report.summary()
        assert "output 3 is not served" in sess.report.summary(), sess.report.summary()


def test_rank_refused_at_session_creation() -> None:
    """A declared rank no input can have (a mask of rank 5, which ONNX's inference lets through) stops the
    session's creation, naming node, op and input."""
    c = replace(CASES[0], mask="bool:11bst")
    ins = _inputs(c, seed=8)
    model, _ = M.model(ins, c.at, c.opset, ["Y"])
    for via in S.VIAS:
        with pytest.raises(Exception, match=r"node .attn. \(op Attention\): input attn_mask has rank 5"):
            S.session(model, via, None, 1)


@pytest.mark.parametrize("dims", [(0, 3, 5), (2, 0, 5), (2, 3, 0)], ids=["batch-0", "seq-0", "keys-0"])
def test_zero_size_dimensions(dims: tuple[int, int, int]) -> None:
    """Zero batch, zero query rows, zero keys: the shapes as stated; with no key Y is +0."""
    B, Sq, L = dims
    c = Case("zero", A.Attrs(is_causal=1), "4d", B, Sq, L, 2, 1, 8, mask="bool:bnst")
    ins = _inputs(c, seed=9)
    got = _run(_node(c, ins), ins)
    for what, g, w in zip(("Y", "present_key", "present_value"), got, _ref(c, ins)):
        S.assert_exact_bits(f"{dims} {what}", g, w)


# ---- float16: every float input widened exactly to f32, the f32 contract, outputs rounded once to f16 ----

F16_CASES = [c for c in CASES if c.name in ("gqa-causal-past", "mqa-decode-bool", "float-mask-softcap",
                                             "nonpad-float-mask")]


def _half(ins: list[np.ndarray | None]) -> list[np.ndarray | None]:
    return [x.astype(np.float16) if x is not None and x.dtype == np.float32 else x for x in ins]


def _ref16(c: Case, ins16: list[np.ndarray | None]) -> list[np.ndarray]:
    """The f32 reference on the f16 inputs widened exactly, each output rounded once to f16."""
    wide = [x.astype(np.float32) if x is not None and x.dtype == np.float16 else x for x in ins16]
    return [o.astype(np.float16) for o in _ref(c, wide)]


@pytest.mark.parametrize("case", F16_CASES, ids=[c.name for c in F16_CASES])
def test_float16_bits_reference_every_path(case: Case) -> None:
    ins = _half(_inputs(case, seed=21))
    want = _ref16(case, ins)
    for path in S.PATHS:
        for what, g, w in zip(("Y", "present_key", "present_value"), _run(_node(case, ins, path), ins), want):
            S.assert_exact_bits(f"{case.name} {path} {what}", g, w)


def test_float16_sessions_bits() -> None:
    """Both ways in, every path at 1 thread, the default at 2."""
    case = F16_CASES[-1]
    ins = _half(_inputs(case, seed=22))
    S.assert_runs_bits(case.name, *M.model(ins, case.at, case.opset), "Attention", _ref16(case, ins))


@pytest.mark.parametrize("case", F16_CASES, ids=[c.name for c in F16_CASES])
def test_float16_close_to_stock(case: Case) -> None:
    """Stock ORT 1.31.1 runs f16 Attention on the CPU with f16 intermediates (the scores and the masked
    scores rounded to f16, its softmax's output rounded to f16 before the product with V): 4e-3 of the largest
    magnitude (measured, seeds 23 to 25: at most 2e-3 at 2.5, one f16 ulp, while ours is within half an ulp of
    the binary64 attention). The presents are copies: the same bits."""
    ins = _half(_inputs(case, seed=23))
    model, feeds = M.model(ins, case.at, case.opset)
    sess = S.session(model, S.VIAS[-1], None, 1)
    assert [n.op for n in sess.report.moved] == ["Attention"], sess.report.summary()
    got = sess.run(None, feeds)
    theirs = S.stock(model, feeds)
    w = theirs[0].astype(np.float32)
    tol = 4e-3 * max(1.0, float(np.abs(w).max()))
    np.testing.assert_allclose(got[0].astype(np.float32), w, rtol=0, atol=tol, err_msg=case.name)
    for what, g, t in zip(M.OUTS[1:], got[1:], theirs[1:]):
        S.assert_exact_bits(f"{case.name} {what} vs stock", g, t)
