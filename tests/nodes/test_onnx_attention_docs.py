"""ONNX Attention (opsets 23, 24) against tests/reference/onnx_attention_docs_reference.py, written from
docs/attention.md alone: Y, present_key and present_value bit for bit on every kernel path through the node
API. 3-D and 4-D inputs, GQA and MQA head groups, past KV, causal (with S > L, over a past, with
nonpad_kv_seqlen), bool and float masks with broadcast, a fully masked row, softcap, scale, opset 24
nonpad_kv_seqlen with padding rows of infinities and NaNs (never read)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.nodes import node_sessions as S
from tests.nodes import onnx_attention_models as M
from tests.nodes.onnx_attention_models import DocsCase as Case
from tests.reference import onnx_attention_docs_reference as R

CASES = [
    Case("mha_3d", R.Attrs(q_num_heads=2, kv_num_heads=2), B=2, S=3, L=5, qh=2, kvh=2, H=8, Hv=8),
    Case("gqa_3d_causal_past", R.Attrs(is_causal=1, q_num_heads=4, kv_num_heads=2), B=2, S=3, L=3, qh=4,
         kvh=2, H=16, Hv=16, P=4),
    Case("mqa_4d_decode_bool_mask", R.Attrs(), B=2, S=1, L=1, qh=4, kvh=1, H=24, Hv=24, rank=4, P=20,
         mask="bool:B11T"),
    Case("float_mask_scale_softcap_hv", R.Attrs(q_num_heads=2, kv_num_heads=1, scale=0.3, softcap=5.0), B=1,
         S=4, L=6, qh=2, kvh=1, H=12, Hv=7, mask="float:ST"),
    Case("bool_mask_full_row_causal_4d", R.Attrs(is_causal=1), B=2, S=4, L=4, qh=2, kvh=2, H=8, Hv=8,
         rank=4, mask="bool:BNST"),
    Case("causal_s_gt_l", R.Attrs(is_causal=1, q_num_heads=3, kv_num_heads=3), B=1, S=5, L=3, qh=3, kvh=3,
         H=4, Hv=4),
    Case("nonpad_causal_empty_row", R.Attrs(is_causal=1, q_num_heads=2, kv_num_heads=1), B=2, S=3, L=6,
         qh=2, kvh=1, H=8, Hv=8, nonpad=(6, 2)),
    Case("nonpad_softcap_float_mask_4d", R.Attrs(scale=0.25, softcap=2.0), B=2, S=2, L=40, qh=4, kvh=2,
         H=8, Hv=6, rank=4, mask="float:1NST", nonpad=(33, 40)),
]


def _inputs(c: Case, pad_value: float = np.nan) -> list[np.ndarray | None]:
    """The case's inputs; nonpad_kv_seqlen's padding key rows inf, value rows pad_value."""
    rng = np.random.default_rng(7)

    def arr(*shape: int) -> np.ndarray:
        return (rng.standard_normal(shape) * 1.5).astype(np.float32)

    if c.rank == 3:
        q, k, v = arr(c.B, c.S, c.qh * c.H), arr(c.B, c.L, c.kvh * c.H), arr(c.B, c.L, c.kvh * c.Hv)
    else:
        q, k, v = arr(c.B, c.qh, c.S, c.H), arr(c.B, c.kvh, c.L, c.H), arr(c.B, c.kvh, c.L, c.Hv)
    if c.nonpad:  # padding key rows: never read (docs: keys j >= n_s)
        for b, n in enumerate(c.nonpad):
            kk = k[b, n:] if c.rank == 3 else k[b, :, n:]
            vv = v[b, n:] if c.rank == 3 else v[b, :, n:]
            kk[...] = np.inf
            vv[...] = pad_value
    mask = None
    if c.mask:
        kind, letters = c.mask.split(":")
        shape = c.mask_shape(letters)
        if kind == "bool":
            mask = rng.random(shape) < 0.7
            if c.id.startswith("bool_mask_full_row"):
                mask[0, 1, 2, :] = False  # a fully masked row
        else:
            mask = (rng.standard_normal(shape) * 2).astype(np.float32)
            mask[..., 0, 1] = -np.inf
    past_k = arr(c.B, c.kvh, c.P, c.H) if c.P else None
    past_v = arr(c.B, c.kvh, c.P, c.Hv) if c.P else None
    ins: list[np.ndarray | None] = [q, k, v, mask, past_k, past_v]
    if c.nonpad:
        ins.append(np.array(c.nonpad, np.int64))
    while ins[-1] is None:
        ins.pop()
    return ins


F16_IDS = ("gqa_3d_causal_past", "float_mask_scale_softcap_hv", "nonpad_softcap_float_mask_4d")
BITS_CASES = [(c, np.float32) for c in CASES] + [(c, np.float16) for c in CASES if c.id in F16_IDS]


@pytest.mark.parametrize(("c", "dtype"), BITS_CASES,
                         ids=[f"{c.id}-{np.dtype(t).name}" for c, t in BITS_CASES])
def test_onnx_attention_docs_bits(c: Case, dtype: type) -> None:
    """f32 inputs, and float16 ones (the page's "float16"): the reference's bits on every path."""
    ins = [x.astype(dtype) if x is not None and x.dtype == np.float32 else x for x in _inputs(c)]
    want = _want(c, ins)
    assert want[0].dtype == dtype
    S.assert_node_bits_every_path(c.id, "Attention", M.input_types(ins), ins, want, onnx_opset=c.opset,
                                  attributes=M.node_attrs(c.at), name="att")


def test_reference_rows_without_keys_are_zero() -> None:
    """The reference itself: the nonpad case's batch row 1 (2 keys, S = 3, causal: offset -1) has no key at
    query row 0 (+0), and the fully masked row of the bool-mask case is +0 too."""
    c = CASES[6]
    ins = _inputs(c)
    y = R.attention(ins[0], ins[1], ins[2], c.at, nonpad=ins[6])[0]  # type: ignore[arg-type]
    assert (y[1, 0].view(np.uint32) == 0).all() and np.isfinite(y).all()
    c = CASES[4]
    ins = _inputs(c)
    y = R.attention(ins[0], ins[1], ins[2], c.at, ins[3])[0]  # type: ignore[arg-type]
    assert (y[0, 1, 2].view(np.uint32) == 0).all() and (y[0, 1, 1] != 0).any()


def _want(c: Case, ins: list[np.ndarray | None]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    q, k, v = ins[0], ins[1], ins[2]
    assert q is not None and k is not None and v is not None
    pad = ins + [None] * (7 - len(ins))
    return R.attention(q, k, v, c.at, pad[3], pad[4], pad[5], pad[6])


@pytest.mark.parametrize("cid", ["gqa_3d_causal_past", "nonpad_softcap_float_mask_4d"])
def test_onnx_attention_docs_every_way(cid: str) -> None:
    """Both ways in (EP, rewrite), every path at 1 thread and the default at 2: the reference's bits."""
    c = next(c for c in CASES if c.id == cid)
    ins = _inputs(c)
    S.assert_runs_bits(cid, *M.model(ins, c.at, c.opset), "Attention", _want(c, ins))


@pytest.mark.parametrize("c", CASES, ids=[c.id for c in CASES])
def test_onnx_attention_docs_vs_stock(c: Case) -> None:
    """The reference against stock ORT 1.31.1: presents the same bits; Y within 1e-5 times the largest |v|
    (stock's GEMMs and its Softmax round differently; docs/attention.md states this bound). Stock reads the
    padding value rows past nonpad_kv_seqlen (weight 0 times NaN), so they are finite here."""
    ins = _inputs(c, pad_value=0.0)
    want = _want(c, ins)
    got = S.stock(*M.model(ins, c.at, c.opset))
    vmax = float(np.abs(want[2][np.isfinite(want[2])]).max())
    np.testing.assert_allclose(got[0], want[0], rtol=0, atol=1e-5 * vmax)
    for g, w in zip(got[1:], want[1:], strict=True):
        S.assert_exact_bits(f"{c.id} stock present", g, w)
