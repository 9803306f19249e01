"""NumPy reference of com.microsoft QLinearSoftmax, written from docs/quantized-elementwise.md
"QLinearSoftmax" (NumPy's float32 operations are single IEEE operations, correctly rounded; the row sum a
sequential loop)."""

from __future__ import annotations

import numpy as np

from tests.reference import qdq_docs_reference as Q
from tests.reference import transcendental32 as T32

F32 = np.float32


def exp_table(sx) -> np.ndarray:
    """t[d] = exp(fl(-d * X_scale)) for d = 0..255, exp correctly rounded to binary32."""
    d = -np.arange(256, dtype=F32)
    with np.errstate(all="ignore"):
        return T32.reference("exp", (d * F32(sx)).astype(F32)).astype(F32)


def _rows(x: np.ndarray, axis: int, opset: int) -> tuple[np.ndarray, tuple[int, ...], int]:
    """x as [rows, n]: before opset 13 coerced to 2-D at axis; from 13 the one axis moved last."""
    r = x.ndim
    a = axis + r if axis < 0 else axis
    if opset < 13:
        return x.reshape(int(np.prod(x.shape[:a], dtype=np.int64)), -1), x.shape, -1
    moved = np.moveaxis(x, a, -1)
    return moved.reshape(-1, x.shape[a]), moved.shape, a


def qlinear_softmax(x, sx, zx, sy, zy, axis: int | None = None, opset: int = 13) -> np.ndarray:
    """zx cancels (only max - x enters); zy None: 0; axis None: -1 (for every opset)."""
    del zx
    if axis is None:
        axis = -1
    t = exp_table(sx)
    rows, shape, a = _rows(x, axis, opset)
    out = np.empty(rows.shape, x.dtype)
    zya = np.asarray(0 if zy is None else zy, x.dtype)
    with np.errstate(all="ignore"):
        for i, row in enumerate(rows):
            q = row.astype(np.int64)
            v = t[q.max() - q] if q.size else t[:0]
            s = F32(0)
            for e in v:  # sequential, from +0, in the row's order
                s = F32(s + e)
            out[i] = Q.quantize_linear((v / s).astype(F32), np.asarray(sy, F32), zya)
    out = out.reshape(shape)
    return out if a < 0 else np.moveaxis(out, -1, a)
