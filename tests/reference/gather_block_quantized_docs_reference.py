"""com.microsoft GatherBlockQuantized with uint8 data and f32 or f16 scales, written from
docs/transformer-ops.md's "com.microsoft GatherBlockQuantized" section alone (its uint8 paragraphs and
"f16 scales"), by a reviewer who has not read the kernels.

uint8 data [D0, ..., Dr-1] packs 8 / bits values a byte along the last axis, value k of a byte in bits
[k * bits, (k + 1) * bits) (lowest first); Q = Dr-1 * 8 / bits values a row; block b = floor(t / block_size);
zero point: value b of the zero-point row, packed as data, or 2^(bits - 1) without zero points; scale
s = scales[v, j, b]. Output element: y_t = RN32(float(q_t - z) * float(s)) for f32 scales,
RN16(RN32(float(q_t - z) * float(s))) for f16 scales (s widened exactly). Output shape indices' shape +
[D1, ..., Dr-2] + [Q]; a negative index counts from D0's end."""

from __future__ import annotations

import numpy as np

F32 = np.float32


def unpack(packed: np.ndarray, bits: int) -> np.ndarray:
    """The values of the last axis, 8 / bits a byte, lowest bits first (int64)."""
    per = 8 // bits
    mask = (1 << bits) - 1
    p = packed.astype(np.int64)
    parts = [(p >> (k * bits)) & mask for k in range(per)]
    return np.stack(parts, axis=-1).reshape(*packed.shape[:-1], packed.shape[-1] * per)


def gather_block_quantized(data: np.ndarray, indices: np.ndarray, scales: np.ndarray,
                           zero_points: np.ndarray | None, bits: int, block_size: int) -> np.ndarray:
    assert data.dtype == np.uint8 and scales.dtype in (np.float32, np.float16)
    d0 = data.shape[0]
    q_per_row = data.shape[-1] * 8 // bits
    n_blocks = -(-q_per_row // block_size)
    assert scales.shape == (*data.shape[:-1], n_blocks)
    idx = indices.astype(np.int64).reshape(-1)
    if ((idx < -d0) | (idx >= d0)).any():
        raise IndexError("index out of range")
    v = np.where(idx < 0, idx + d0, idx)
    q = unpack(data, bits)[v]  # [I, D1..Dr-2, Q]
    block = np.arange(q_per_row) // block_size  # the block of each value t
    if zero_points is None:
        z: np.ndarray | int = 1 << (bits - 1)
    else:
        z = unpack(zero_points, bits)[v][..., :n_blocks][..., block]
    s = scales[v].astype(F32)[..., block]  # f16 widened exactly
    diff = (q - z).astype(F32)  # an exact integer in [-255, 255], converted exactly
    with np.errstate(all="ignore"):
        y = (diff * s).astype(F32)  # one f32 rounding
    out_shape = (*indices.shape, *data.shape[1:-1], q_per_row)
    with np.errstate(over="ignore"):
        return y.astype(scales.dtype).reshape(out_shape)  # f16: once more, nearest-even, past 65504 inf


def gather_block_quantized_4bit(values: np.ndarray, indices: np.ndarray, scales: np.ndarray,
                                zero_points: np.ndarray | None, block_size: int, gather_axis: int,
                                quantize_axis: int) -> np.ndarray:
    """uint4 / int4 data given as its logical values (ints, data's shape; the packing is ONNX's), zero points
    likewise (absent: 0). Output [D0..Dg-1] + indices' shape + [Dg+1..Dr-1]; each element
    RN(float(q_e - z) * s), f16 scales rounded once more to f16."""
    r = values.ndim
    g = gather_axis % r
    q = quantize_axis % r
    dq = values.shape[q]
    idx = indices.astype(np.int64)
    dg = values.shape[g]
    if ((idx < -dg) | (idx >= dg)).any():
        raise IndexError("index out of range")
    v = np.where(idx < 0, idx + dg, idx)
    block_of = np.arange(dq) // block_size  # the scale row of each position on the quantize axis
    s_full = np.take(scales.astype(F32), block_of, axis=q)
    z_full = np.zeros(values.shape, np.int64) if zero_points is None else np.take(
        zero_points.astype(np.int64), block_of, axis=q)
    diff = (np.take(values.astype(np.int64), v, axis=g) - np.take(z_full, v, axis=g)).astype(F32)
    with np.errstate(all="ignore"):
        y = (diff * np.take(s_full, v, axis=g)).astype(F32)
        return y.astype(scales.dtype)
