"""TopK's contract (docs/shape-ops.md "TopK") in NumPy: NaN first, then numeric order (descending for
largest, ascending for smallest) with -0.0 equal to +0.0, ties by the lower index; the first k of that order
along the axis, values copied bit for bit, indices int64. Written from the docs, not the kernel: the order
comes from stable np.argsort passes on float64 values (exact for every float type) or Python integers."""

from __future__ import annotations

import ml_dtypes
import numpy as np


def _order(row: np.ndarray, largest: bool) -> np.ndarray:
    """The indices of a 1-D row in the contract's order."""
    if row.dtype.kind == "f" or row.dtype == np.dtype(ml_dtypes.bfloat16):
        v = row.astype(np.float64)
        nan = np.isnan(v)
        v = np.where(nan, 0.0, v) + 0.0
        rank = -v if largest else v
        # two stable passes: by value, then NaN (group 0) before numbers (group 1)
        by_value = np.argsort(rank, kind="stable")
        return by_value[np.argsort(~nan[by_value], kind="stable")]
    keys = [(-int(e) if largest else int(e)) for e in row.tolist()]
    return np.array(sorted(range(len(keys)), key=lambda i: keys[i]), dtype=np.int64)


def topk_reference(x: np.ndarray, k: int, axis: int, largest: bool) -> tuple[np.ndarray, np.ndarray]:
    """(values, indices) of TopK, sorted (best first)."""
    xm = np.moveaxis(x, axis, -1)
    lead = xm.shape[:-1]
    rows = xm.reshape(-1, xm.shape[-1]) if xm.size else np.zeros((int(np.prod(lead)), xm.shape[-1]), x.dtype)
    idx = np.zeros((rows.shape[0], k), np.int64)
    for r in range(rows.shape[0]):
        idx[r] = _order(rows[r], largest)[:k]
    vals = np.take_along_axis(rows, idx, axis=1) if rows.shape[0] else np.zeros((0, k), x.dtype)
    vals = np.moveaxis(vals.reshape(*lead, k), -1, axis)
    idx = np.moveaxis(idx.reshape(*lead, k), -1, axis)
    return np.ascontiguousarray(vals), np.ascontiguousarray(idx)
