"""com.microsoft GroupQueryAttention against tests/reference/gqa_reference.py, a reference written from
docs/attention.md alone by a reviewer who did not read the kernels: output and the whole present_key /
present_value bit for bit on every kernel path, both ways in, 1 and 2 threads (packed and separate QKV,
groups of 1 to 4 query heads, rotary halves and pairs over the whole head and part of it, prefill, padded
batched prefill, a later chunk, batched decode with a longer cache buffer, scale, softcap, local_window_size);
stock ORT within 1e-5 of the largest output magnitude (stock sums the scores by GEMM in another order and
uses an approximate exponential; the Softmax weights are within about 1e-6, the output a weighted mean of
values of size about 1); a bad seqlens_k a clear error."""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from tests.nodes import node_sessions as S
from tests.reference import gqa_reference as G

NAMES = ["query", "key", "value", "past_key", "past_value", "seqlens_k", "total_sequence_length",
         "cos_cache", "sin_cache"]
OUTS = ["output", "present_key", "present_value"]


def _attrs(at: G.Attrs) -> dict[str, Any]:
    d: dict[str, Any] = {"num_heads": at.num_heads, "kv_num_heads": at.kv_num_heads}
    for k in ("scale", "do_rotary", "rotary_interleaved", "softcap"):
        if getattr(at, k):
            d[k] = getattr(at, k)
    if at.local_window_size != -1:
        d["local_window_size"] = at.local_window_size
    return d


def _inputs(at: G.Attrs, B: int, S_: int, H: int, L: int, lens: list[int], total: int, packed: bool,
            rot_half: int, seed: int) -> list[np.ndarray | None]:
    rng = np.random.default_rng(seed)
    N, K = at.num_heads, at.kv_num_heads

    def r(*shape: int) -> np.ndarray:
        return rng.standard_normal(shape).astype(np.float32)

    q, k, v = (r(B, S_, (N + 2 * K) * H), None, None) if packed else (r(B, S_, N * H), r(B, S_, K * H),
                                                                        r(B, S_, K * H))
    pk, pv = (r(B, K, L, H), r(B, K, L, H)) if L else (None, None)
    cos = sin = None
    if at.do_rotary:
        ang = rng.uniform(-7, 7, (max(total, L) + 3, rot_half))
        cos, sin = np.cos(ang).astype(np.float32), np.sin(ang).astype(np.float32)
    return [q, k, v, pk, pv, np.array(lens, np.int32) - 1, np.array(total, np.int32), cos, sin]


def _model(at: G.Attrs, ins: list[np.ndarray | None]) -> onnx.ModelProto:
    names = [n if x is not None else "" for n, x in zip(NAMES, ins)]
    while names[-1] == "":
        names.pop()
    node = helper.make_node("GroupQueryAttention", names, OUTS, domain="com.microsoft", name="gqa",
                            **_attrs(at))
    vis = [helper.make_tensor_value_info(n, TensorProto.INT32 if x.dtype == np.int32 else TensorProto.FLOAT,
                                         list(x.shape)) for n, x in zip(NAMES, ins) if x is not None]
    outs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in OUTS]
    graph = helper.make_graph([node], "g", vis, outs)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                   helper.make_opsetid("com.microsoft", 1)], ir_version=10)


def _valid_rows(out: np.ndarray, lens: list[int], S_: int, total: int) -> np.ndarray:
    """The output rows the page specifies: a first prompt's rows s < T_b (the others are padding)."""
    if S_ != total:
        return out
    return np.concatenate([out[b, :min(t, S_)].ravel() for b, t in enumerate(lens)])


# (name, attrs, B, S, H, L (past rows), T_b per row, total_sequence_length, packed, R/2)
CASES: list[Any] = [
    ("prefill-packed-rotary-halves", G.Attrs(4, 2, do_rotary=1), 1, 7, 16, 0, [7], 7, True, 8),
    ("prefill-separate-norot-g1", G.Attrs(3, 3), 2, 5, 8, 0, [5, 5], 5, False, 0),
    ("prefill-padded-batch", G.Attrs(4, 1, do_rotary=1), 3, 6, 32, 0, [6, 2, 4], 6, True, 8),
    ("prefill-17-keys-sum16-wraps", G.Attrs(2, 1), 1, 19, 24, 0, [19], 19, False, 0),
    ("decode-batch-long-buffer", G.Attrs(4, 2, do_rotary=1), 3, 1, 32, 14, [9, 3, 12], 14, True, 16),
    ("decode-scale-pairs", G.Attrs(6, 3, scale=0.3, do_rotary=1, rotary_interleaved=1), 2, 1, 16, 20,
     [5, 17], 20, False, 8),
    ("decode-grow-past-shorter", G.Attrs(4, 4), 2, 1, 16, 6, [7, 3], 7, False, 0),
    ("chunk-partial-rotary", G.Attrs(4, 2, do_rotary=1), 1, 4, 32, 16, [10], 16, True, 8),
    ("chunk-pairs", G.Attrs(2, 1, do_rotary=1, rotary_interleaved=1), 1, 3, 16, 5, [8], 8, False, 8),
    ("decode-h64-40-keys", G.Attrs(8, 2, do_rotary=1), 2, 1, 64, 40, [40, 23], 40, True, 32),
    ("softcap-decode", G.Attrs(4, 2, do_rotary=1, softcap=1.5), 2, 1, 32, 10, [10, 6], 10, True, 16),
    ("softcap-scale-prefill", G.Attrs(2, 2, scale=0.9, softcap=2.0), 1, 6, 8, 0, [6], 6, False, 0),
    pytest.param("window-prefill", G.Attrs(4, 2, do_rotary=1, local_window_size=3), 1, 9, 16, 0, [9], 9,
                 True, 8),
    pytest.param("window-decode", G.Attrs(2, 1, local_window_size=4), 2, 1, 16, 12, [12, 3], 12, False, 0),
    pytest.param("window-softcap-chunk", G.Attrs(2, 1, softcap=3.0, local_window_size=2), 1, 3, 8, 5, [8],
                 8, False, 0),
    pytest.param("window-1-key", G.Attrs(2, 1, local_window_size=1), 1, 5, 8, 0, [5], 5, False, 0),
    ("window-wider-than-sequence", G.Attrs(2, 1, local_window_size=50), 1, 6, 8, 0, [6], 6, False, 0),
]


def _case_id(c: Any) -> str:
    return str(c.values[0] if hasattr(c, "values") else c[0])


@pytest.mark.parametrize("name, at, B, S_, H, L, lens, total, packed, rh", CASES,
                         ids=[_case_id(c) for c in CASES])
def test_bits_every_way_and_stock(name: str, at: G.Attrs, B: int, S_: int, H: int, L: int, lens: list[int],
                                  total: int, packed: bool, rh: int) -> None:
    ins = _inputs(at, B, S_, H, L, lens, total, packed, rh, seed=len(name))
    q, k, v, pk, pv, sl, tot, cos, sin = ins
    assert q is not None and sl is not None
    want = G.gqa(at, q, k, v, pk, pv, sl, int(total), cos, sin)
    model = _model(at, ins)
    feeds = {n: x for n, x in zip(NAMES, ins) if x is not None}
    for where, got in S.runs(model, feeds, "GroupQueryAttention").items():
        S.assert_exact_bits(f"{name} output {where}", _valid_rows(got[0], lens, S_, total),
                            _valid_rows(want[0], lens, S_, total))
        for what, g, w in zip(OUTS[1:], got[1:], want[1:]):
            S.assert_exact_bits(f"{name} {what} {where}", g, w)
    stock = S.stock(model, feeds)
    w0 = _valid_rows(want[0], lens, S_, total)
    np.testing.assert_allclose(_valid_rows(stock[0], lens, S_, total), w0, rtol=0,
                               atol=1e-5 * max(1.0, float(np.abs(w0).max())), err_msg="stock output")
    for what, g, w in zip(OUTS[1:], stock[1:], want[1:]):
        for b, t in enumerate(lens):  # the rows a sequence owns (stock leaves the others unspecified)
            np.testing.assert_allclose(g[b, :, :t], w[b, :, :t], rtol=0, atol=1e-6, err_msg=f"stock {what}")


def test_window_reference_attends_w_keys() -> None:
    """The reference's window: a query at position p with W = 3 ignores keys p-3 and earlier, so a value
    changed there changes nothing, and the key p-2 (the third most recent) counts."""
    at = G.Attrs(1, 1, local_window_size=3)
    ins = _inputs(at, 1, 6, 8, 0, [6], 6, False, 0, seed=1)
    q, k, v, _, _, sl, _, _, _ = ins
    assert q is not None and k is not None and v is not None and sl is not None
    base = G.gqa(at, q, k, v, None, None, sl, 6, None, None)[0]
    v2 = v.copy()
    v2[0, 2] += 100  # position 2: outside row 5's window (3, 4, 5), inside row 4's (2, 3, 4)
    moved = G.gqa(at, q, k, v2, None, None, sl, 6, None, None)[0]
    assert np.array_equal(moved[0, 5], base[0, 5]) and not np.array_equal(moved[0, 4], base[0, 4])


def test_bad_seqlens_clear_error() -> None:
    at = G.Attrs(4, 2)
    ins = _inputs(at, 2, 1, 16, 4, [4, 9], 4, False, 0, seed=5)  # row 1 claims 8 cached tokens of 4
    model = _model(at, ins)
    feeds = {n: x for n, x in zip(NAMES, ins) if x is not None}
    for via in S.VIAS:
        sess = S.session(model, via, None, 1)
        assert [n.op for n in sess.report.moved] == ["GroupQueryAttention"], sess.report.summary()
        with pytest.raises(Exception, match=r"(?s)gqa.*GroupQueryAttention.*seqlens_k"):
            sess.run(None, feeds)


@pytest.mark.parametrize("attrs", [{"smooth_softmax": 1}, {"local_window_size": 0}, {"softcap": -1.0}])
def test_unserved_attributes_left_to_stock(attrs: dict[str, Any]) -> None:
    at = G.Attrs(2, 1)
    ins = _inputs(at, 1, 3, 8, 0, [3], 3, False, 0, seed=6)
    model = _model(at, ins)
    for k, val in attrs.items():
        model.graph.node[0].attribute.append(helper.make_attribute(k, val))
    for via in S.VIAS:
        sess = S.session(model, via, None, 1)
        assert not sess.report.moved, sess.report.summary()


def test_nan_and_infinity_rows() -> None:
    """An infinite key makes its scores non-finite and a NaN query a NaN row: the page's Softmax gives the
    canonical NaN for every weight there, so every output element of those rows is the canonical NaN; the
    present rows keep the infinity's bits; other rows are untouched."""
    at = G.Attrs(2, 1)
    ins = _inputs(at, 2, 1, 8, 5, [6, 4], 6, False, 0, seed=12)
    q, k, v, pk, pv, sl, _, _, _ = ins
    assert q is not None and k is not None and pk is not None and sl is not None
    pk[0, 0, 2, 3] = np.inf  # batch 0's cached key 2
    q[0, 0, 3] = q[0, 0, 8 + 3] = 1.0  # both query heads score +inf on it: a non-finite maximum
    q.view(np.uint32)[1, 0, 9] = 0xFFC00123  # batch 1, head 1: a NaN with a payload
    want = G.gqa(at, q, k, v, pk, pv, sl, 6, None, None)
    assert (want[0][0].view(np.uint32) == 0x7FC00000).all() and not np.isnan(want[0][1, 0, :8]).any()
    model = _model(at, ins)
    feeds = {n: x for n, x in zip(NAMES, ins) if x is not None}
    for where, got in S.runs(model, feeds, "GroupQueryAttention").items():
        for what, g, w in zip(OUTS, got, want):
            S.assert_exact_bits(f"{what} {where}", g, w)


@pytest.mark.parametrize("S_, L, total", [(1, 4, 5), (3, 0, 3)], ids=["decode", "prefill"])
def test_zero_batch(S_: int, L: int, total: int) -> None:
    """B = 0: empty outputs of the page's shapes (present P = max(total, L) rows) on every way in. Not run
    through stock ORT: its CPU kernel aborts the process on B = 0 (1.31.1)."""
    at = G.Attrs(2, 1)
    ins = _inputs(at, 0, S_, 8, L, [], total, False, 0, seed=1)
    q, k, v, pk, pv, sl, _, _, _ = ins
    assert q is not None and sl is not None
    want = G.gqa(at, q, k, v, pk, pv, sl, total, None, None)
    assert want[1].shape == (0, 1, max(total, L), 8)
    feeds = {n: x for n, x in zip(NAMES, ins) if x is not None}
    for where, got in S.runs(_model(at, ins), feeds, "GroupQueryAttention").items():
        for what, g, w in zip(OUTS, got, want):
            S.assert_exact_bits(f"{what} {where}", g, w)


def test_value_nan_payload_output_is_canonical() -> None:
    """A cached value with a NaN payload: the output elements it reaches are NaN results of step 5's
    arithmetic, which docs/exact-mode.md makes the canonical NaN (docs/attention.md has no NaN rule)."""
    at = G.Attrs(2, 1)
    ins = _inputs(at, 1, 1, 8, 4, [5], 5, False, 0, seed=4)
    pv = ins[4]
    assert pv is not None
    pv.view(np.uint32)[0, 0, 2, 3] = 0xFFC00123
    feeds = {n: x for n, x in zip(NAMES, ins) if x is not None}
    for where, got in S.runs(_model(at, ins), feeds, "GroupQueryAttention").items():
        out = got[0].view(np.uint32)
        assert np.isnan(got[0][0, 0, [3, 11]]).all(), where
        assert (out[np.isnan(got[0])] == 0x7FC00000).all(), where
