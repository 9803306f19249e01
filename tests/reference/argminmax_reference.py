"""ArgMax and ArgMin as docs/shape-ops.md states them, on NumPy's argmax and argmin (which return the first
NaN, as the contract does): select_last_index by scanning the reversed axis, keepdims by re-inserting the
axis. float16 compares as NumPy's float16, bfloat16 through its exact float32 values."""

from __future__ import annotations

import ml_dtypes
import numpy as np


def argminmax_reference(x: np.ndarray, op: str, axis: int = 0, keepdims: int = 1,
                        last: int = 0) -> np.ndarray:
    if x.dtype == np.dtype(ml_dtypes.bfloat16):
        x = x.astype(np.float32)
    axis = axis + x.ndim if axis < 0 else axis
    fn = np.argmax if op == "ArgMax" else np.argmin
    if last:
        idx = x.shape[axis] - 1 - fn(np.flip(x, axis), axis=axis)
    else:
        idx = fn(x, axis=axis)
    idx = np.asarray(idx, np.int64)
    return np.expand_dims(idx, axis) if keepdims else idx
