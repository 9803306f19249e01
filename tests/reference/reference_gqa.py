"""com.microsoft GroupQueryAttention as docs/attention.md states it, in NumPy f32 (bit for bit: each step one
rounded f32 operation, sum16 and the Softmax row from reference_linalg), and in float64 (the same formulas
without rounding, for the error check)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tests.reference import reference_linalg as R

F32 = np.dtype(np.float32)


@dataclass(frozen=True)
class Attrs:
    num_heads: int
    kv_num_heads: int
    scale: float = 0.0
    do_rotary: int = 0
    rotary_interleaved: int = 0
    local_window_size: int = -1
    softcap: float = 0.0


def rotary(x: np.ndarray, c: np.ndarray, z: np.ndarray, interleaved: int) -> np.ndarray:
    """One head x[H] at one position (c, z: that position's R/2 cos and sin values)."""
    y = x.copy()
    half = c.shape[-1]
    if interleaved:
        ia, ie = np.arange(half) * 2, np.arange(half) * 2 + 1
    else:
        ia, ie = np.arange(half), np.arange(half) + half
    a, e = x[ia], x[ie]
    y[ia] = a * c - e * z
    y[ie] = e * c + a * z
    return y


def _positions(S: int, total: int, seqlens_k: np.ndarray) -> list[int]:
    first = S == total
    return [0 if first else int(t) + 1 - S for t in seqlens_k]


def gqa(
    at: Attrs,
    query: np.ndarray,
    key: np.ndarray | None,
    value: np.ndarray | None,
    past_key: np.ndarray | None,
    past_value: np.ndarray | None,
    seqlens_k: np.ndarray,
    total: int,
    cos: np.ndarray | None = None,
    sin: np.ndarray | None = None,
    f64: bool = False,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """output, present_key, present_value (present rows outside [0, past + S) are +0)."""
    dt = np.dtype(np.float64) if f64 else F32
    N, KH = at.num_heads, at.kv_num_heads
    B, S, D = query.shape
    packed = key is None
    H = D // (N + 2 * KH) if packed else D // N
    G = N // KH
    q4 = query.reshape(B, S, -1, H).astype(dt)
    if packed:
        qh, kh, vh = q4[:, :, :N], q4[:, :, N : N + KH], q4[:, :, N + KH :]
    else:
        assert key is not None and value is not None
        qh = q4
        kh = key.reshape(B, S, KH, H).astype(dt)
        vh = value.reshape(B, S, KH, H).astype(dt)
    L = 0 if past_key is None else past_key.shape[2]
    P = max(total, L)
    pasts = _positions(S, total, seqlens_k)
    pk = np.zeros((B, KH, P, H), dt)
    pv = np.zeros((B, KH, P, H), dt)
    out = np.zeros((B, S, N * H), dt)
    if at.scale != 0:
        a = dt.type(np.float32(at.scale))
    else:
        a = dt.type(1.0) / np.sqrt(dt.type(H)) if f64 else np.float32(1.0) / np.sqrt(np.float32(H))

    def rot(x: np.ndarray, pos: int) -> np.ndarray:
        if not at.do_rotary:
            return x
        assert cos is not None and sin is not None
        return rotary(x, cos[pos].astype(dt), sin[pos].astype(dt), at.rotary_interleaved)

    for b in range(B):
        past = pasts[b]
        if past_key is not None and past_value is not None:
            pk[b, :, :past] = past_key[b, :, :past]
            pv[b, :, :past] = past_value[b, :, :past]
        for s in range(S):
            for g in range(KH):
                pk[b, g, past + s] = rot(kh[b, s, g], past + s)
                pv[b, g, past + s] = vh[b, s, g]
        for s in range(S):
            pos = past + s
            lo = max(0, pos - at.local_window_size + 1) if at.local_window_size > 0 else 0
            for h in range(N):
                g = h // G
                q = rot(qh[b, s, h], pos)
                k, v = pk[b, g, lo : pos + 1], pv[b, g, lo : pos + 1]
                with np.errstate(all="ignore"):
                    if f64:
                        t = (k @ q) * a
                        if at.softcap > 0:
                            t = at.softcap * np.tanh(t / at.softcap)
                        e = np.exp(t - t.max())
                        w = e / e.sum()
                        o = w @ v
                    else:
                        t = R.sum16(q[None, :] * k) * a
                        if at.softcap > 0:
                            c = np.float32(at.softcap)
                            t = c * np.tanh((t / c).astype(np.float64)).astype(F32)  # tanh correctly rounded
                        w = R.softmax(t)
                        o = np.full(H, -0.0, F32)
                        for j in range(len(w)):
                            o = o + w[j] * v[j]
                out[b, s, h * H : (h + 1) * H] = o
    return out, pk, pv
