"""ONNX Attention in float16, written from docs/attention.md's "What is served" float16 paragraph alone, by a
reviewer who has not read the kernels: "each f16 input is widened exactly to f32, the f32 order of operations
below runs unchanged, and Y, present_key and present_value are each rounded once to f16 (nearest-even; the
presents are the inputs' values, so their f16 bits are the inputs')". A bool mask stays bool.

The f32 order is tests/reference/onnx_attention_docs_reference.py's `attention` on float32 arrays (written
from the same page's f32 steps alone; the page names it as its docs-only reference); this module only widens,
calls it on f32 inputs and rounds. `presents_from_inputs` builds the presents from the f16 inputs directly
(past's rows, then K's rows of each kv head), which the rounded presents must equal."""

from __future__ import annotations

import numpy as np

from tests.reference import onnx_attention_docs_reference as R32

Attrs = R32.Attrs


def _widen(x: np.ndarray | None) -> np.ndarray | None:
    if x is None or x.dtype != np.float16:
        return x
    return x.astype(np.float32)  # exact


def attention_f16(q: np.ndarray, k: np.ndarray, v: np.ndarray, at: Attrs, mask: np.ndarray | None = None,
                  past_k: np.ndarray | None = None, past_v: np.ndarray | None = None,
                  nonpad: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Y, present_key, present_value, all float16."""
    assert q.dtype == k.dtype == v.dtype == np.float16
    q32, k32, v32 = (x.astype(np.float32) for x in (q, k, v))
    outs = R32.attention(q32, k32, v32, at, _widen(mask), _widen(past_k), _widen(past_v), nonpad)
    for o in outs:
        assert o.dtype == np.float32
    y, pk, pv = (o.astype(np.float16) for o in outs)  # one nearest-even rounding each
    return y, pk, pv


def _kv_heads(x: np.ndarray, n: int) -> np.ndarray:
    """(B, L, n*H) -> (B, n, L, H); a 4-D input is already (B, n, L, H)."""
    if x.ndim == 4:
        return x
    b, length, nh = x.shape
    return x.reshape(b, length, n, nh // n).transpose(0, 2, 1, 3)


def presents_from_inputs(k: np.ndarray, v: np.ndarray, kv_heads: int, past_k: np.ndarray | None,
                         past_v: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """present_key and present_value as the page's "Outputs" paragraph says: past's rows, then K's and V's
    rows of that kv head (bit copies)."""
    kh, vh = _kv_heads(k, kv_heads), _kv_heads(v, kv_heads)
    if past_k is None or past_v is None:
        return np.ascontiguousarray(kh), np.ascontiguousarray(vh)
    return np.concatenate([past_k, kh], axis=2), np.concatenate([past_v, vh], axis=2)
