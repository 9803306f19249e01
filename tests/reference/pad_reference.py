"""Pad as docs/shape-ops.md states it, on NumPy's `np.pad` rather than the per-axis index maps node_pad.c
builds: negative pads crop first (a slice), then `np.pad` with the mode (`reflect` and `wrap` are NumPy's for
any pad size). The data are padded as unsigned integers of their width, so every bit pattern (NaN payloads,
signed zeros) and the constant's bits go through unchanged."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

_UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


class PadError(ValueError):
    """The inputs are an error by the contract (a crop beyond a dimension, reflect or wrap over nothing)."""


def pad_reference(
    x: np.ndarray,
    pads: Sequence[int],
    mode: str = "constant",
    value: np.ndarray | None = None,
    axes: Sequence[int] | None = None,
) -> np.ndarray:
    r = x.ndim
    listed = list(range(r)) if axes is None else [int(a) + r if a < 0 else int(a) for a in axes]
    m = len(listed)
    if len(pads) != 2 * m or len(set(listed)) != m or any(not 0 <= a < r for a in listed):
        raise PadError(f"pads {list(pads)} / axes {axes} do not fit rank {r}")
    b, e = [0] * r, [0] * r
    for i, a in enumerate(listed):
        b[a], e[a] = int(pads[i]), int(pads[m + i])
    u = x.view(_UINT[x.dtype.itemsize])
    keep = []
    for d in range(r):
        lo, hi = -min(b[d], 0), x.shape[d] + min(e[d], 0)
        if hi < lo:
            raise PadError(f"axis {d}: pads crop more than its {x.shape[d]} elements")
        keep.append(slice(lo, hi))
    u = u[tuple(keep)]
    widths = [(max(b[d], 0), max(e[d], 0)) for d in range(r)]
    if mode == "constant":
        cv = 0 if value is None else value.reshape(-1)[:1].view(u.dtype)[0]
        out = np.pad(u, widths, mode="constant", constant_values=cv)
    elif u.size == 0:
        if any(w != (0, 0) and u.shape[d] == 0 for d, w in enumerate(widths)):
            raise PadError(f"mode {mode} over an axis that keeps nothing")
        out = np.zeros([u.shape[d] + sum(widths[d]) for d in range(r)], u.dtype)
    else:
        out = np.pad(u, widths, mode=mode)
    return np.ascontiguousarray(out).view(x.dtype)
