"""ONNX Attention float16 against tests/reference/onnx_attention_f16_docs_reference.py, written from
docs/attention.md's float16 paragraph alone: 3-D and 4-D, GQA over a past, a bool mask with a fully masked
row, a float16 mask with -inf and broadcast, scale and softcap, opset 24 nonpad_kv_seqlen with causal, scores
far past f16's range (kept in f32), outputs in half's subnormal range; Y and the presents bit for bit on every
kernel path through the node API, both ways in at 1 and 2 threads for one case, stock ORT within 4e-3 of the
largest |Y| (stock keeps f16 intermediates: docs/attention.md's bound)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.nodes import node_sessions as S
from tests.nodes import onnx_attention_models as M
from tests.nodes.onnx_attention_models import DocsCase as Case
from tests.reference import onnx_attention_f16_docs_reference as R

H16 = np.float16


CASES = [
    Case("mha_3d", R.Attrs(q_num_heads=2, kv_num_heads=2), B=2, S=3, L=5, qh=2, kvh=2, H=8, Hv=8),
    Case("gqa_3d_causal_past", R.Attrs(is_causal=1, q_num_heads=4, kv_num_heads=2), B=1, S=3, L=3, qh=4,
         kvh=2, H=16, Hv=16, P=5),
    Case("bool_mask_full_row_4d", R.Attrs(), B=2, S=4, L=6, qh=2, kvh=1, H=8, Hv=5, rank=4, mask="bool:BNST"),
    Case("f16_mask_softcap_scale", R.Attrs(q_num_heads=2, kv_num_heads=1, scale=0.3, softcap=5.0), B=1, S=4,
         L=7, qh=2, kvh=1, H=12, Hv=7, mask="float:1NST"),
    Case("nonpad_causal_opset24", R.Attrs(is_causal=1), B=2, S=2, L=9, qh=2, kvh=2, H=8, Hv=8, rank=4,
         nonpad=(9, 4)),
    Case("scores_past_f16_range", R.Attrs(q_num_heads=1, kv_num_heads=1, scale=1.0), B=1, S=3, L=4, qh=1,
         kvh=1, H=32, Hv=4, scale_q=200.0),
    Case("outputs_subnormal", R.Attrs(q_num_heads=2, kv_num_heads=2), B=1, S=2, L=5, qh=2, kvh=2, H=8, Hv=8,
         scale_v=3e-6),
    Case("zero_batch", R.Attrs(q_num_heads=2, kv_num_heads=1), B=0, S=3, L=4, qh=2, kvh=1, H=8, Hv=8),
]


def _inputs(c: Case) -> list[np.ndarray | None]:
    rng = np.random.default_rng(23)

    def arr(scale: float, *shape: int) -> np.ndarray:
        return (rng.standard_normal(shape) * scale).astype(H16)

    if c.rank == 3:
        q = arr(c.scale_q, c.B, c.S, c.qh * c.H)
        k = arr(c.scale_q, c.B, c.L, c.kvh * c.H)
        v = arr(c.scale_v, c.B, c.L, c.kvh * c.Hv)
    else:
        q = arr(c.scale_q, c.B, c.qh, c.S, c.H)
        k = arr(c.scale_q, c.B, c.kvh, c.L, c.H)
        v = arr(c.scale_v, c.B, c.kvh, c.L, c.Hv)
    mask = None
    if c.mask:
        kind, letters = c.mask.split(":")
        shape = c.mask_shape(letters)
        if kind == "bool":
            mask = rng.random(shape) < 0.6
            mask[1, 0, 2, :] = False  # a fully masked row: Y +0
        else:
            mask = (rng.standard_normal(shape) * 2).astype(H16)
            mask[..., 1, 2] = -np.inf
    past_k = arr(c.scale_q, c.B, c.kvh, c.P, c.H) if c.P else None
    past_v = arr(c.scale_v, c.B, c.kvh, c.P, c.Hv) if c.P else None
    ins: list[np.ndarray | None] = [q, k, v, mask, past_k, past_v]
    if c.nonpad:  # keys at and past nonpad[b] are never read: infinities and NaNs there
        for b, n in enumerate(c.nonpad):
            k[b, :, n:] = np.inf
            v[b, :, n:] = np.nan
        ins.append(np.array(c.nonpad, np.int64))
    while ins[-1] is None:
        ins.pop()
    return ins


@pytest.mark.parametrize("c", CASES, ids=[c.id for c in CASES])
def test_onnx_attention_f16_docs_bits(c: Case) -> None:
    ins = _inputs(c)
    pad = ins + [None] * (7 - len(ins))
    want = _want_of(c)
    assert all(w.dtype == H16 for w in want)
    pk, pv = R.presents_from_inputs(ins[1], ins[2], c.kvh, pad[4], pad[5])  # type: ignore[arg-type]
    S.assert_exact_bits(f"{c.id} reference present_key", want[1], pk)
    S.assert_exact_bits(f"{c.id} reference present_value", want[2], pv)
    S.assert_node_bits_every_path(c.id, "Attention", M.input_types(ins), ins, want, onnx_opset=c.opset,
                                  attributes=M.node_attrs(c.at), name="att")


def test_reference_f16_edges() -> None:
    """The reference itself: the scores case's products exceed 65504 (an f16 score would be inf) yet Y is
    finite; the subnormal case has Y below half's normals; the fully masked row is +0."""
    c = next(c for c in CASES if c.id == "scores_past_f16_range")
    ins = _inputs(c)
    q, k = ins[0].astype(np.float32), ins[1].astype(np.float32)  # type: ignore[union-attr]
    assert np.abs(np.einsum("bsh,blh->bsl", q, k)).max() > 65504
    y = _want_of(c)[0]
    assert np.isfinite(y).all()
    y = _want_of(next(c for c in CASES if c.id == "outputs_subnormal"))[0]
    assert ((y != 0) & (np.abs(y) < H16(2.0 ** -14))).any()
    y = _want_of(next(c for c in CASES if c.id == "bool_mask_full_row_4d"))[0]
    assert (y[1, 0, 2].view(np.uint16) == 0).all() and (y[1, 0, 1] != 0).any()


def _want_of(c: Case) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    ins = _inputs(c)
    pad = ins + [None] * (7 - len(ins))
    return R.attention_f16(ins[0], ins[1], ins[2], c.at, pad[3], pad[4], pad[5], pad[6])  # type: ignore


def test_onnx_attention_f16_docs_every_way() -> None:
    c = next(c for c in CASES if c.id == "f16_mask_softcap_scale")
    S.assert_runs_bits(c.id, *M.model(_inputs(c), c.at, c.opset), "Attention", _want_of(c))


@pytest.mark.parametrize("cid", ["mha_3d", "gqa_3d_causal_past", "f16_mask_softcap_scale"])
def test_onnx_attention_f16_docs_vs_stock(cid: str) -> None:
    """Stock ORT 1.31.1 runs f16 with f16 intermediates: within 4e-3 of the largest |Y| (the page's figure),
    presents the same bits."""
    c = next(c for c in CASES if c.id == cid)
    want = _want_of(c)
    got = S.stock(*M.model(_inputs(c), c.at, c.opset))
    ymax = float(np.abs(want[0].astype(np.float32)).max())
    np.testing.assert_allclose(got[0].astype(np.float32), want[0].astype(np.float32), rtol=0,
                               atol=4e-3 * ymax)
    for g, w in zip(got[1:], want[1:], strict=True):
        S.assert_exact_bits(f"{cid} stock present", g, w)
