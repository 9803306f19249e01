"""com.microsoft MatMulNBits' weights, written from docs/quantized.md ("MatMulNBits") alone: packing quantized
values and zero points as ONNX Runtime's quantizer lays them out, and dequantizing them as the contract states
(w = fl32((q - z) * s), one rounding; with f32 zero points fl32(fl32(q - z) * s)). The product itself is
reference_linalg.gemm's."""

from __future__ import annotations

import numpy as np


def k_blocks(K: int, block_size: int) -> int:
    return (K + block_size - 1) // block_size


def _pack_row(values: np.ndarray, bits: int) -> np.ndarray:
    """Unsigned values of `bits` bits (last axis) into bytes, least significant bits first (4 bits: the even
    element in the low nibble), an odd count padded with a zero nibble."""
    v = values.astype(np.uint8)
    if bits == 8:
        return v
    if v.shape[-1] % 2:
        v = np.concatenate([v, np.zeros(v.shape[:-1] + (1,), np.uint8)], axis=-1)
    return (v[..., 0::2] | (v[..., 1::2] << 4)).astype(np.uint8)


def pack_b(q: np.ndarray, bits: int, block_size: int) -> np.ndarray:
    """q[N, K] (values below 2^bits) as B [N, k_blocks, blob_size]: per column n and block, the block's values
    packed, the last block padded with zeros."""
    N, K = q.shape
    kb = k_blocks(K, block_size)
    padded = np.zeros((N, kb * block_size), np.uint8)
    padded[:, :K] = q
    return _pack_row(padded.reshape(N, kb, block_size), bits)


def pack_zero_points(z: np.ndarray, bits: int) -> np.ndarray:
    """z[N, k_blocks] as the packed uint8 zero_points, 1-D [N * ceil(k_blocks * bits / 8)]: each column's
    values packed, starting on a byte."""
    return _pack_row(z, bits).reshape(-1)


def _unpack(row: np.ndarray, bits: int, count: int) -> np.ndarray:
    """The first `count` values of `bits` bits in the bytes `row` (last axis), least significant first."""
    if bits == 8:
        return row[..., :count].astype(np.int64)
    lo, hi = row & 0x0F, row >> 4
    both = np.stack([lo, hi], axis=-1).reshape(row.shape[:-1] + (-1,))
    return both[..., :count].astype(np.int64)


def dequantize(b: np.ndarray, scales: np.ndarray, zero_points: np.ndarray | None, K: int, N: int, bits: int,
               block_size: int) -> np.ndarray:
    """W [K, N] (f32) from MatMulNBits' B, scales and zero_points (None: absent; uint8 packed; or f32), as the
    contract states."""
    kb = k_blocks(K, block_size)
    q = _unpack(b.reshape(N, kb, -1), bits, block_size).reshape(N, kb * block_size)[:, :K]
    s = np.repeat(scales.reshape(N, kb), block_size, axis=1)[:, :K]
    if zero_points is not None and zero_points.dtype == np.float32:
        z32 = np.repeat(zero_points.reshape(N, kb), block_size, axis=1)[:, :K]
        d = q.astype(np.float32) - z32  # one f32 rounding
        return (d * s).T.copy()  # another
    if zero_points is None:
        z = np.full((N, kb), 1 << (bits - 1), np.int64)
    else:
        z = _unpack(zero_points.reshape(N, -1), bits, kb)
    d64 = (q - np.repeat(z, block_size, axis=1)[:, :K]).astype(np.float64)  # exact integers
    w = d64 * s.astype(np.float64)  # exact in f64 (at most 9 x 24 significant bits)
    with np.errstate(over="ignore"):
        return w.astype(np.float32).T.copy()  # the one rounding
