"""com.microsoft GroupQueryAttention written from docs/attention.md alone (an independent check of that page;
tests/reference/reference_gqa.py is the kernel author's): present_key/present_value, rotary, and per output
element the score sum16 of rounded products, the scale, the softcap, exact-linalg.md's Softmax row
(f32_docs_ops.softmax_row) over the attended keys and the value sum from -0.0 in key order.

The attended keys are the `W` most recent, j = max(0, p - W + 1) .. p, as stock ORT and Hugging Face attend
(the page at the time of writing says `lo = max(0, p - W)`, W + 1 keys: the lead is correcting it);
`window_keys` selects the other reading for a test that needs it."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tests.reference import f32_docs_ops as D

F = np.float32


@dataclass(frozen=True)
class Attrs:
    num_heads: int
    kv_num_heads: int
    scale: float = 0.0
    do_rotary: int = 0
    rotary_interleaved: int = 0
    local_window_size: int = -1
    softcap: float = 0.0


def _rn(v: np.ndarray) -> np.ndarray:
    return np.asarray(v, F)


def rotary(x: np.ndarray, cos: np.ndarray, sin: np.ndarray, interleaved: int) -> np.ndarray:
    """One head's H values at a position whose cache rows are cos, sin (R/2 each)."""
    half = cos.shape[0]
    y = x.copy()
    if interleaved:
        a, e = x[0:2 * half:2], x[1:2 * half:2]
        y[0:2 * half:2] = _rn(_rn(a * cos) - _rn(e * sin))
        y[1:2 * half:2] = _rn(_rn(e * cos) + _rn(a * sin))
    else:
        a, e = x[:half], x[half:2 * half]
        y[:half] = _rn(_rn(a * cos) - _rn(e * sin))
        y[half:2 * half] = _rn(_rn(e * cos) + _rn(a * sin))
    return y.astype(F)


def gqa(at: Attrs, q: np.ndarray, k: np.ndarray | None, v: np.ndarray | None, past_k: np.ndarray | None,
        past_v: np.ndarray | None, seqlens_k: np.ndarray, total: int, cos: np.ndarray | None,
        sin: np.ndarray | None, window_keys: str = "W") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(output [B, S, N H], present_key, present_value [B, K, P, H]); window_keys "W+1": lo = p - W."""
    N, K = at.num_heads, at.kv_num_heads
    B, S, _ = q.shape
    if k is None:
        H = q.shape[2] // (N + 2 * K)
        qh = q[:, :, :N * H].reshape(B, S, N, H)
        kh = q[:, :, N * H:(N + K) * H].reshape(B, S, K, H)
        vh = q[:, :, (N + K) * H:].reshape(B, S, K, H)
    else:
        assert v is not None
        H = q.shape[2] // N
        qh, kh, vh = q.reshape(B, S, N, H), k.reshape(B, S, K, H), v.reshape(B, S, K, H)
    L = past_k.shape[2] if past_k is not None else 0
    P = max(total, L)
    first = S == total
    pres_k = np.zeros((B, K, P, H), F)
    pres_v = np.zeros((B, K, P, H), F)
    out = np.zeros((B, S, N * H), F)
    a = F(at.scale) if at.scale else F(F(1) / np.sqrt(F(H)))
    for b in range(B):
        T_b = int(seqlens_k[b]) + 1
        past_b = 0 if first else T_b - S
        if past_b:
            assert past_k is not None and past_v is not None
            pres_k[b, :, :past_b] = past_k[b, :, :past_b]
            pres_v[b, :, :past_b] = past_v[b, :, :past_b]
        qr = qh[b].copy()
        for s in range(S):
            p = past_b + s
            kr = kh[b, s].copy()
            if at.do_rotary:
                assert cos is not None and sin is not None
                il = at.rotary_interleaved
                qr[s] = np.stack([rotary(qh[b, s, h], cos[p], sin[p], il) for h in range(N)])
                kr = np.stack([rotary(kh[b, s, g], cos[p], sin[p], il) for g in range(K)])
            pres_k[b, :, p] = kr
            pres_v[b, :, p] = vh[b, s]
        for s in range(S):
            p = past_b + s
            W = at.local_window_size
            lo = 0 if W < 1 else max(0, p - W + (1 if window_keys == "W" else 0))
            for h in range(N):
                g = h // (N // K)
                keys = pres_k[b, g, lo:p + 1]  # [n, H]
                vals = pres_v[b, g, lo:p + 1]
                d = D.sum16((qr[s, h][None, :] * keys).astype(F))  # [n]
                t = (d * a).astype(F)
                if at.softcap:
                    c = F(at.softcap)
                    t = (c * D.tanh((t / c).astype(F))).astype(F)
                w = D.softmax_row(t)
                o = np.full(H, -0.0, F)
                for j in range(len(w)):
                    o = (o + (w[j] * vals[j]).astype(F)).astype(F)
                out[b, s, h * H:(h + 1) * H] = o
    return out, pres_k, pres_v
