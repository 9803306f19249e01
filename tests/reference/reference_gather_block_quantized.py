"""An independent reference for com.microsoft GatherBlockQuantized with uint8 data, written from
docs/transformer-ops.md ("GatherBlockQuantized") alone: the packed values unpacked lowest bits first, the rows
gathered along axis 0, y = float32(q - zero_point) * scale rounded once."""

from __future__ import annotations

import numpy as np


def unpack(a: np.ndarray, bits: int) -> np.ndarray:
    """The 8 / bits values of each byte along the last axis, lowest bits first."""
    per = 8 // bits
    parts = [(a >> (bits * k)) & ((1 << bits) - 1) for k in range(per)]
    return np.stack(parts, axis=-1).reshape(a.shape[:-1] + (a.shape[-1] * per,)).astype(np.int32)


def gather_block_quantized(data: np.ndarray, indices: np.ndarray, scales: np.ndarray,
                           zero_points: np.ndarray | None, bits: int = 4,
                           block_size: int = 128) -> np.ndarray:
    q = unpack(data, bits)
    Q = q.shape[-1]
    blk = np.arange(Q) // block_size
    z = (np.full(scales.shape, 1 << (bits - 1), np.int32) if zero_points is None
         else unpack(zero_points, bits)[..., : scales.shape[-1]])
    y = (q - z[..., blk]).astype(np.float32) * scales[..., blk]
    idx = np.where(indices < 0, indices + data.shape[0], indices)
    return y[idx]
