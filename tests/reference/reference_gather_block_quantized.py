"""An independent reference for com.microsoft GatherBlockQuantized with uint8 data, written from
docs/transformer-ops.md ("GatherBlockQuantized") alone: the packed values unpacked lowest bits first, the rows
gathered along axis 0, y = float32(q - zero_point) * scale rounded once to f32 (f16 scales widened exactly),
then to the scales' type."""

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
    with np.errstate(over="ignore"):  # to f16: past 65504, infinity
        y = ((q - z[..., blk]).astype(np.float32) * scales[..., blk].astype(np.float32)).astype(scales.dtype)
    idx = np.where(indices < 0, indices + data.shape[0], indices)
    return y[idx]


def gather_block_quantized4(q: np.ndarray, indices: np.ndarray, scales: np.ndarray,
                            zero_points: np.ndarray | None, gather_axis: int = 0, quantize_axis: int = 1,
                            block_size: int = 128) -> np.ndarray:
    """uint4 / int4 data given by its values q (data's logical shape; zero_points likewise, scales' shape;
    absent: 0): y = float32(q - zero_point) * scale rounded once to f32, then to the scales' type (f32 or
    f16), the blocks along quantize_axis, gathered along gather_axis."""
    qa = quantize_axis % q.ndim
    blk = np.arange(q.shape[qa]) // block_size
    s = np.take(scales, blk, axis=qa)
    z = 0 if zero_points is None else np.take(zero_points.astype(np.int32), blk, axis=qa)
    with np.errstate(over="ignore"):  # to f16: past 65504, infinity
        y = ((q.astype(np.int32) - z).astype(np.float32) * s.astype(np.float32)).astype(scales.dtype)
    n = q.shape[gather_axis % q.ndim]
    return np.take(y, np.where(indices < 0, indices + n, indices), axis=gather_axis % q.ndim)
