"""An independent reference for the RMS and residual normalisations: SimplifiedLayerNormalization,
RMSNormalization, com.microsoft's SkipLayerNormalization and SkipSimplifiedLayerNormalization.

Written from docs/exact-linalg.md ("The RMS and residual forms") alone, in numpy, literal: numpy's float32 and
float64 operations are IEEE operations rounded once each, and the sums are reference_linalg's `sum16` (the
documented 16-lane order). f16 and bf16 inputs convert to f32 exactly and the results round once to the input
type. Returns numpy arrays of the operator's output types.
"""

from __future__ import annotations

import numpy as np

from tests.reference.reference_linalg import norm_rows, sum16


def rms_norm(x: np.ndarray, scale: np.ndarray, axis: int = -1,
             epsilon: float = 1e-5) -> tuple[np.ndarray, np.ndarray]:
    """SimplifiedLayerNormalization / RMSNormalization (stash_type 1): (Y, inv_std_var); inv_std_var in the
    accumulation type A, shape X's dims before axis and 1 from it."""
    x = np.asarray(x)
    A, xr, (sc,), stats = norm_rows(x, axis, scale)
    with np.errstate(all="ignore"):
        var = sum16(xr * xr) / A.type(xr.shape[-1])                # each square rounded, then sum16, then / n
        inv = A.type(1.0) / np.sqrt(var + A.type(np.float32(epsilon)))  # three rounded steps
        y = (xr * inv[..., None]) * sc                              # (x_i * inv) * scale_i
    return y.reshape(x.shape).astype(x.dtype), inv.astype(A).reshape(stats)


def _rows(a: np.ndarray) -> np.ndarray:
    """a as rows of its last dimension (any dimension may be 0)."""
    return a.reshape(int(np.prod(a.shape[:-1], dtype=np.int64)), a.shape[-1])


def skip_sum(x: np.ndarray, skip: np.ndarray, bias: np.ndarray | None) -> np.ndarray:
    """input_skip_bias_sum: (x + skip) + bias, each add rounded; skip broadcast over input's leading rows."""
    x, k = np.asarray(x), np.asarray(skip)
    rows = _rows(x)
    k = _rows(k)
    idx = np.arange(rows.shape[0]) % max(k.shape[0], 1)
    with np.errstate(all="ignore"):
        s = rows + k[idx]
        if bias is not None:
            s = s + np.asarray(bias)
    return s.reshape(x.shape)


def skip_layer_norm(x: np.ndarray, skip: np.ndarray, gamma: np.ndarray, beta: np.ndarray | None = None,
                    bias: np.ndarray | None = None, epsilon: float = 1e-12,
                    simplified: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """SkipLayerNormalization (simplified=False) and SkipSimplifiedLayerNormalization (True, beta None):
    (output, mean, inv_std_var, input_skip_bias_sum); mean is +0 for the simplified form."""
    s = skip_sum(x, skip, bias)
    rows = _rows(s)
    nA = np.float32(s.shape[-1])
    eps = np.float32(epsilon)
    with np.errstate(all="ignore"):
        if simplified:
            mean = np.zeros(rows.shape[0], np.float32)
            d = rows
        else:
            mean = sum16(rows) / nA
            d = rows - mean[:, None]
        var = sum16(d * d) / nA
        inv = np.float32(1.0) / np.sqrt(var + eps)
        y = (d * inv[:, None]) * np.asarray(gamma)
        if beta is not None:
            y = y + np.asarray(beta)
    stats = s.shape[:-1] + (1,)
    return y.reshape(s.shape), mean.reshape(stats), inv.reshape(stats), s
