"""ONNX Attention (opsets 23 and 24, float32; float16 widened) written from docs/attention.md alone ("ONNX
Attention (opsets 23 and 24)" and the GQA steps it cites), by a reviewer who has not read the kernels: per
query row the keys 0 .. n_s - 1 (nonpad_kv_seqlen, then causal with its offset), the score sum16 of rounded
products, the scale, the softcap with the correctly rounded f32 tanh, the bool or float mask, an empty or
fully masked row +0, the Softmax row of docs/exact-linalg.md, the values summed from -0.0 in key order, a
NaN written as 0x7fc00000. sum16 and the Softmax row are tests/reference/reference_linalg.py's (the page
names them as the definition), tanh is tests/reference/transcendental32.py's correctly rounded f32
reference."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tests.reference import reference_linalg as RL
from tests.reference import transcendental32 as T32

F = np.float32
CANON_NAN = np.array(0x7FC00000, np.uint32).view(np.float32)


@dataclass(frozen=True)
class Attrs:
    is_causal: int = 0
    q_num_heads: int = 0  # 3-D inputs only
    kv_num_heads: int = 0
    scale: float | None = None
    softcap: float = 0.0


def _heads(x: np.ndarray, n: int) -> np.ndarray:
    """(B, S, n*H) -> (B, n, S, H); a 4-D input is already (B, n, S, H)."""
    if x.ndim == 4:
        return x
    b, s, nh = x.shape
    return x.reshape(b, s, n, nh // n).transpose(0, 2, 1, 3)


def _tanh(x: np.ndarray) -> np.ndarray:
    flat = np.ascontiguousarray(x, F).ravel()
    return T32.reference("tanh", flat).reshape(x.shape)


def attention(q: np.ndarray, k: np.ndarray, v: np.ndarray, at: Attrs, mask: np.ndarray | None = None,
              past_k: np.ndarray | None = None, past_v: np.ndarray | None = None,
              nonpad: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Y, present_key, present_value. float16 (the page's "float16"): every f16 input widened exactly to
    f32, the f32 steps, each output rounded once to f16."""
    if q.dtype == np.float16:
        def wide(x: np.ndarray | None) -> np.ndarray | None:
            return x.astype(F) if x is not None and x.dtype == np.float16 else x

        outs = _attention32(wide(q), wide(k), wide(v), at, wide(mask), wide(past_k), wide(past_v), nonpad)
        y, pk, pv = (o.astype(np.float16) for o in outs)
        return y, pk, pv
    return _attention32(q, k, v, at, mask, past_k, past_v, nonpad)


def _attention32(q: np.ndarray, k: np.ndarray, v: np.ndarray, at: Attrs, mask: np.ndarray | None,
                 past_k: np.ndarray | None, past_v: np.ndarray | None,
                 nonpad: np.ndarray | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    three_d = q.ndim == 3
    qh = at.q_num_heads if three_d else q.shape[1]
    kvh = at.kv_num_heads if three_d else k.shape[1]
    Q, K, V = _heads(q, qh), _heads(k, kvh), _heads(v, kvh)
    B, _, S, H = Q.shape
    Hv = V.shape[3]
    P = 0 if past_k is None else past_k.shape[2]
    pk = K if past_k is None else np.concatenate([past_k, K], axis=2)
    pv = V if past_v is None else np.concatenate([past_v, V], axis=2)
    T = P + K.shape[2]
    a = F(at.scale) if at.scale is not None else F(F(1) / F(np.sqrt(F(H))))
    c = F(at.softcap)
    m4 = None
    if mask is not None:
        m4 = np.broadcast_to(mask.reshape((1,) * (4 - mask.ndim) + mask.shape), (B, qh, S, T))
    group = qh // kvh
    Y = np.zeros((B, qh, S, Hv), F)
    with np.errstate(all="ignore"):
        for b in range(B):
            for n in range(qh):
                g = n // group
                for s in range(S):
                    ns = T
                    if nonpad is not None:
                        ns = min(ns, int(nonpad[b]))
                    if at.is_causal:
                        offset = int(nonpad[b]) - S if nonpad is not None else P
                        ns = min(ns, s + offset + 1)
                    if ns <= 0:
                        continue  # no key: +0
                    qv, kr, vr = Q[b, n, s], pk[b, g, :ns], pv[b, g, :ns]
                    d = RL.sum16((qv[None, :] * kr).astype(F))
                    t = (d * a).astype(F)
                    if c > 0:
                        t = (c * _tanh((t / c).astype(F))).astype(F)
                    if m4 is not None:
                        mrow = m4[b, n, s, :ns]
                        if mrow.dtype == np.bool_:
                            t = np.where(mrow, t, F(-np.inf)).astype(F)
                        else:
                            t = (t + mrow.astype(F)).astype(F)
                    if (t == F(-np.inf)).all():
                        continue  # fully masked: +0
                    w = RL.softmax(t)
                    o = np.full(Hv, -0.0, F)
                    for j in range(ns):
                        o = (o + (w[j] * vr[j]).astype(F)).astype(F)
                    Y[b, n, s] = np.where(np.isnan(o), CANON_NAN, o)
    y = Y.transpose(0, 2, 1, 3).reshape(B, S, qh * Hv) if three_d else Y
    return np.ascontiguousarray(y), np.ascontiguousarray(pk), np.ascontiguousarray(pv)
