"""ONNX Attention (opsets 23 and 24) as docs/attention.md ("ONNX Attention") states it, in NumPy f32 (bit for
bit: each step one rounded f32 operation, sum16 and the Softmax row of reference_linalg, tanh correctly
rounded by transcendental32), and in float64 (the same formulas without rounding, for the error check)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tests.reference import reference_linalg as R
from tests.reference import transcendental32 as T32

F32 = np.dtype(np.float32)
CANON_NAN = np.uint32(0x7FC00000)


@dataclass(frozen=True)
class Attrs:
    q_num_heads: int = 0
    kv_num_heads: int = 0
    is_causal: int = 0
    scale: float = 0.0
    softcap: float = 0.0


def _heads(x: np.ndarray, heads: int) -> np.ndarray:
    """(B, L, heads W) -> (B, heads, L, W)."""
    B, L, D = x.shape
    return x.reshape(B, L, heads, D // heads).transpose(0, 2, 1, 3)


def keys(T: int, S: int, s: int, past: int, causal: int, nonpad: int | None) -> int:
    """How many keys (0 .. n-1) query row s attends."""
    n, off = T, past
    if nonpad is not None:
        n, off = min(n, nonpad), nonpad - S
    if causal:
        n = min(n, s + off + 1)
    return max(n, 0)


def _softcap(t: np.ndarray, c: float, f64: bool) -> np.ndarray:
    if f64:
        return c * np.tanh(t / c)
    cf = np.float32(c)
    u = (t / cf).astype(F32)
    return (cf * T32.reference("tanh", u.ravel()).reshape(u.shape)).astype(F32)


def attention(
    at: Attrs,
    Q: np.ndarray,
    K: np.ndarray,
    V: np.ndarray,
    mask: np.ndarray | None = None,
    past_key: np.ndarray | None = None,
    past_value: np.ndarray | None = None,
    nonpad: np.ndarray | None = None,
    f64: bool = False,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Y, present_key, present_value."""
    dt = np.dtype(np.float64) if f64 else F32
    three = Q.ndim == 3
    if three:
        q, k, v = _heads(Q, at.q_num_heads), _heads(K, at.kv_num_heads), _heads(V, at.kv_num_heads)
    else:
        q, k, v = Q, K, V
    past = 0
    if past_key is not None and past_value is not None:
        past = past_key.shape[2]
        k = np.concatenate([past_key, k], axis=2)
        v = np.concatenate([past_value, v], axis=2)
    B, N, S, H = q.shape
    KH, T, Hv = k.shape[1], k.shape[2], v.shape[3]
    G = N // KH
    if at.scale:
        a = dt.type(np.float32(at.scale))
    else:
        a = dt.type(1.0) / np.sqrt(dt.type(H)) if f64 else np.float32(1.0) / np.sqrt(np.float32(H))
    m4 = None if mask is None else np.broadcast_to(mask, (B, N, S, T))
    y = np.zeros((B, N, S, Hv), dt)
    for b in range(B):
        for n in range(N):
            kk, vv = k[b, n // G].astype(dt), v[b, n // G].astype(dt)
            for s in range(S):
                nk = keys(T, S, s, past, at.is_causal, None if nonpad is None else int(nonpad[b]))
                if nk == 0:
                    continue
                qq = q[b, n, s].astype(dt)
                with np.errstate(all="ignore"):
                    t = (kk[:nk] @ qq) * a if f64 else (R.sum16(qq[None, :] * kk[:nk]) * a).astype(F32)
                    if at.softcap > 0:
                        t = _softcap(t, at.softcap, f64)
                    if m4 is not None:
                        mrow = m4[b, n, s, :nk]
                        t = np.where(mrow, t, -np.inf) if mrow.dtype == bool else t + mrow.astype(dt)
                    t = np.asarray(t, dt)
                    if np.all(t == -np.inf):
                        continue
                    if f64:
                        e = np.exp(t - t.max())
                        o = (e / e.sum()) @ vv[:nk]
                    else:
                        w = R.softmax(t)
                        o = np.full(Hv, -0.0, F32)
                        for j in range(nk):
                            o = o + w[j] * vv[j]
                        o = np.where(np.isnan(o), CANON_NAN.view(F32), o)
                y[b, n, s] = o
    if three:
        y = y.transpose(0, 2, 1, 3).reshape(B, S, N * Hv)
    return y, k, v
