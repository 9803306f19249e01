"""Bit-exact numpy references for docs/transformer-ops.md: com.microsoft's Gelu family (Gelu, BiasGelu,
FastGelu, QuickGelu), RotaryEmbedding (ONNX opset 23 and com.microsoft) and FusedMatMul, written from that
document's arithmetic: every f32 add and multiply rounded once (numpy float32 operations), the Gelu forms and
Sigmoid correctly rounded (tests/reference/transcendental32.py, transcendental16.py)."""

from __future__ import annotations

import numpy as np

from tests.reference.transcendental16 import OUT as TABLES16
from tests.reference.transcendental32 import reference as cr32

F32 = np.float32
F16 = np.float16


def _cr16(name: str, x: np.ndarray) -> np.ndarray:
    """The correctly rounded f16 function `name` of x: testdata/transcendental16_refs.npz (MPFR)."""
    with np.load(TABLES16) as t:
        table = t[f"{name}_f16"]
    return table[np.ascontiguousarray(x, F16).view(np.uint16)].view(F16)


def _cr(name: str, x: np.ndarray) -> np.ndarray:
    """The correctly rounded function `name` of x (f32 or f16), any shape."""
    if x.dtype == F16:
        return _cr16(name, x)
    flat = np.ascontiguousarray(x, F32).ravel()
    out = cr32(name, flat)
    if name.startswith("gelu"):  # the limit at -inf: x * Phi(x) -> -0 (the float64 formula gives -inf * 0)
        out[flat == -np.inf] = F32(-0.0)
    return out.reshape(x.shape)


def gelu(x: np.ndarray, bias: np.ndarray | None = None, form: str = "erf") -> np.ndarray:
    """Gelu (form "erf") or FastGelu (form "tanh") of RN(x + bias) (bias along the last axis), or of x; in x's
    type (f32 or f16: numpy's f16 sum is the correctly rounded one)."""
    with np.errstate(all="ignore"):  # inf + -inf, NaN inputs: NaN, as the node gives
        t = x if bias is None else (x + bias).astype(x.dtype)
    return _cr("gelu_erf" if form == "erf" else "gelu_tanh", t)


def quick_gelu(x: np.ndarray, alpha: float = 1.702) -> np.ndarray:
    """RN(x * Sigmoid(RN(alpha * x))), alpha rounded to f32 first."""
    with np.errstate(all="ignore"):  # -inf * 0 at x = -inf: NaN, as the node gives
        t = (F32(alpha) * x).astype(F32)
        return (x * _cr("sigmoid", t)).astype(F32)


def rotary(x: np.ndarray, cos: np.ndarray, sin: np.ndarray, pos: np.ndarray | None, *, interleaved: int = 0,
           num_heads: int = 0, rotary_dim: int = 0) -> np.ndarray:
    """RotaryEmbedding of x, (B, S, N * H) or (B, N, S, H). pos: (B, S) positions, a one-element array (the
    first token's; token s at pos + s), or None (caches of shape (B, S, R / 2)). num_heads 0 on a rank-3 x:
    the head size is twice the caches' width."""
    x = np.asarray(x, F32)
    if x.ndim == 4:
        b, n, s, h = x.shape
        xs = x.transpose(0, 2, 1, 3)
    else:
        b, s, hidden = x.shape
        h = hidden // num_heads if num_heads else 2 * cos.shape[-1]
        n = hidden // h
        xs = x.reshape(b, s, n, h)
    r = rotary_dim or h
    half = r // 2
    if pos is None:
        c, z = cos, sin
    else:
        p = np.asarray(pos, np.int64)
        rows = p.reshape(1, 1) + np.arange(s)[None, :] if p.size == 1 else p
        rows = np.broadcast_to(rows, (b, s))
        c, z = cos[rows], sin[rows]
    c, z = c[:, :, None, :].astype(F32), z[:, :, None, :].astype(F32)
    y = xs.copy()
    ia = np.arange(half) * 2 if interleaved else np.arange(half)
    ie = ia + 1 if interleaved else ia + half
    a, e = xs[..., ia], xs[..., ie]
    y[..., ia] = a * c - e * z
    y[..., ie] = e * c + a * z
    return np.ascontiguousarray(y.transpose(0, 2, 1, 3)) if x.ndim == 4 else y.reshape(x.shape)


def fused_matmul(a: np.ndarray, b: np.ndarray, *, trans_a: int = 0, trans_b: int = 0,
                 alpha: float = 1.0) -> np.ndarray:
    """com.microsoft FusedMatMul: MatMul (docs/exact-linalg.md's blocked chains, batch broadcast) of A and B
    with the last two axes of each swapped where trans_a, trans_b say, then RN(alpha * acc), alpha rounded to
    f32 first. A and B of rank 2 or more."""
    from tests.reference.gemm_reference import gemm_ref

    a = np.swapaxes(a, -1, -2) if trans_a else a
    b = np.swapaxes(b, -1, -2) if trans_b else b
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    ab = np.broadcast_to(a, (*batch, *a.shape[-2:]))
    bb = np.broadcast_to(b, (*batch, *b.shape[-2:]))
    out = np.empty((*batch, a.shape[-2], b.shape[-1]), a.dtype)
    for idx in np.ndindex(*batch):
        out[idx] = gemm_ref(np.ascontiguousarray(ab[idx]), np.ascontiguousarray(bb[idx]),
                            alpha=float(np.float32(alpha)))
    return out


def bias_softmax(x: np.ndarray, bias: np.ndarray, axis: int = 1) -> np.ndarray:
    """com.microsoft BiasSoftmax: s = RN32(x + bias) (f16 widened exactly to f32 first; bias broadcast
    NumPy's way, which the node's accepted layouts are; a NaN sum's row is NaN), then Softmax's f32
    rows of s coerced to 2-D at `axis` (reference_linalg.softmax, opset 11's reading), rounded once to x's
    type."""
    from tests.reference import reference_linalg as RL

    with np.errstate(all="ignore"):
        s = x.astype(F32) + np.broadcast_to(bias, x.shape).astype(F32)
    return RL.softmax(s, axis, opset=11).astype(x.dtype)
