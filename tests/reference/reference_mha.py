"""com.microsoft MultiHeadAttention and Attention as docs/attention.md states them, in NumPy f32 (bit for bit:
each step one rounded f32 operation, sum16, the Softmax row and the GEMM chain from reference_linalg), and in
float64 (the same formulas without rounding, for the error check)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tests.reference import reference_linalg as R

F32 = np.dtype(np.float32)
FLT_LOWEST = float(np.finfo(np.float32).min)  # -FLT_MAX: what the causal mask puts on a future key


@dataclass(frozen=True)
class Attrs:
    num_heads: int
    scale: float = 0.0
    unidirectional: int = 0
    mask_filter_value: float = -10000.0
    qkv_hidden_sizes: tuple[int, int, int] | None = None


def _scale(at: Attrs, H: int, f64: bool) -> np.floating:
    if at.scale != 0:
        return np.float64(np.float32(at.scale)) if f64 else np.float32(at.scale)
    return np.float64(1.0) / np.sqrt(np.float64(H)) if f64 else np.float32(1.0) / np.sqrt(np.float32(H))


def _key_masked(mask: np.ndarray | None, b: int, s: int, B: int, T: int) -> np.ndarray:
    """Keys of query row s of batch row b the key mask masks: (B) key lengths (j >= mask[b]), (2B) also
    j < mask[B + b], (B, T) and (B, S, T) where the value is <= 0."""
    j = np.arange(T)
    if mask is None:
        return np.zeros(T, bool)
    if mask.ndim == 1 and mask.shape[0] == 2 * B:
        return (j >= int(mask[b])) | (j < int(mask[B + b]))
    if mask.ndim == 1:
        return j >= int(mask[b])
    if mask.ndim == 2:
        return mask[b] <= 0
    return mask[b, s] <= 0


def attend(
    at: Attrs,
    q: np.ndarray,
    k: np.ndarray,
    v: np.ndarray,
    past: int,
    mask: np.ndarray | None,
    attn_bias: np.ndarray | None,
    f64: bool = False,
) -> np.ndarray:
    """q (B, N, S, H), the caches k (B, N, T, H) and v (B, N, T, Hv) -> output (B, S, N Hv)."""
    dt = np.dtype(np.float64) if f64 else F32
    B, N, S, H = q.shape
    T, Hv = v.shape[2], v.shape[3]
    a = _scale(at, H, f64)
    f = dt.type(np.float32(at.mask_filter_value))
    out = np.zeros((B, S, N * Hv), dt)
    if T == 0:
        return out
    for b in range(B):
        for n in range(N):
            kk, vv = k[b, n].astype(dt), v[b, n].astype(dt)
            for s in range(S):
                qq = q[b, n, s].astype(dt)
                # what the masks add: f where the key mask masks; the causal mask (query rows s < S - 1)
                # puts -FLT_MAX in its place where j > past + s
                add = np.where(_key_masked(mask, b, s, B, T), f, dt.type(0))
                if at.unidirectional and s < S - 1:
                    add = np.where(np.arange(T) > past + s, dt.type(FLT_LOWEST), add)
                with np.errstate(all="ignore"):
                    if f64:
                        t = (kk @ qq) * a
                    else:
                        t = R.sum16(qq[None, :] * kk) * a
                    t = np.where(add != 0, t + add, t)
                    if attn_bias is not None:
                        t = t + attn_bias[b % attn_bias.shape[0], n % attn_bias.shape[1], s].astype(dt)
                    if f64:
                        e = np.exp(t - t.max())
                        o = (e / e.sum()) @ vv
                    else:
                        w = R.softmax(t.astype(F32))
                        o = np.full(Hv, -0.0, F32)
                        for j in range(T):
                            o = o + w[j] * vv[j]
                out[b, s, n * Hv : (n + 1) * Hv] = o
    return out


def _heads(x: np.ndarray, N: int) -> np.ndarray:
    """(B, L, N W) -> (B, N, L, W)."""
    B, L, D = x.shape
    return x.reshape(B, L, N, D // N).transpose(0, 2, 1, 3)


def mha(
    at: Attrs,
    query: np.ndarray,
    key: np.ndarray,
    value: np.ndarray,
    bias: np.ndarray | None = None,
    key_padding_mask: np.ndarray | None = None,
    attn_bias: np.ndarray | None = None,
    past_key: np.ndarray | None = None,
    past_value: np.ndarray | None = None,
    f64: bool = False,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """output, present_key, present_value of MultiHeadAttention (key, value 3-D or BNSH 4-D)."""
    N = at.num_heads
    D = query.shape[2]
    if bias is not None:
        Dv = bias.shape[0] - 2 * D
        query = query + bias[:D]
        key = key + bias[D : 2 * D]
        value = value + bias[2 * D : 2 * D + Dv]
    q = _heads(query, N)
    k = key if key.ndim == 4 else _heads(key, N)
    v = value if value.ndim == 4 else _heads(value, N)
    past = 0
    if past_key is not None and past_value is not None:
        past = past_key.shape[2]
        k = np.concatenate([past_key, k], axis=2)
        v = np.concatenate([past_value, v], axis=2)
    return attend(at, q, k, v, past, key_padding_mask, attn_bias, f64), k, v


def attention(
    at: Attrs,
    x: np.ndarray,
    weights: np.ndarray,
    bias: np.ndarray | None = None,
    mask_index: np.ndarray | None = None,
    past: np.ndarray | None = None,
    attn_bias: np.ndarray | None = None,
    f64: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """output, present of Attention: the projection is our Gemm (fma chain, then + bias), then attend."""
    N = at.num_heads
    B, S, Din = x.shape
    W = weights.shape[1]
    Dq, Dk, Dv = at.qkv_hidden_sizes or (W // 3, W // 3, W // 3)
    x2 = x.reshape(B * S, Din)
    if f64:
        qkv = x2.astype(np.float64) @ weights.astype(np.float64)
        if bias is not None:
            qkv = qkv + bias
    else:
        qkv = R.gemm(x2, weights, bias) if bias is not None else R.matmul(x2, weights)
    qkv = qkv.reshape(B, S, W)
    q = _heads(qkv[:, :, :Dq], N)
    k = _heads(qkv[:, :, Dq : Dq + Dk], N)
    v = _heads(qkv[:, :, Dq + Dk :], N)
    p = 0
    if past is not None:
        p = past.shape[3]
        k = np.concatenate([past[0].astype(k.dtype), k], axis=2)
        v = np.concatenate([past[1].astype(v.dtype), v], axis=2)
    out = attend(at, q, k, v, p, mask_index, attn_bias, f64)
    present = np.stack([k, v]) if k.shape == v.shape else np.zeros(0, k.dtype)
    return out, present
