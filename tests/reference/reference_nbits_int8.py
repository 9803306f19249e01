"""com.microsoft MatMulNBits at accuracy_level 4, written from docs/quantized.md ("accuracy_level 4: the int8
contract") alone: A quantized to int8 per row and block, the exact integer block sums (int64 here), and the
f32 steps acc = fma(float(isum), fl32(sa * sw), acc) from +0 over the blocks, then + bias. The fused
multiply-add is emulated exactly: the product of two f32 is exact in f64, the sum is rounded to odd in f64
(TwoSum's error decides the last bit), and that rounded to f32 is the one rounding of fma (Boldo and
Melquiond, 2008)."""

from __future__ import annotations

import numpy as np

from tests.reference import reference_nbits as RQ

F32 = np.float32


def fma32(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """fl32(a * b + c), one rounding, elementwise on f32 arrays."""
    p = a.astype(np.float64) * b.astype(np.float64)  # exact: 24 + 24 significant bits
    c64 = c.astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        s = p + c64
        bb = s - p
        e = (p - (s - bb)) + (c64 - bb)
        bits = s.view(np.int64).copy()
        fix = np.isfinite(s) & (e != 0) & ((bits & 1) == 0)
        delta = np.where((e > 0) == (s > 0), 1, -1)
        bits[fix] += delta[fix]
        return bits.view(np.float64).astype(F32)


def quantize_a(a: np.ndarray, block_size: int) -> tuple[np.ndarray, np.ndarray]:
    """A [M, K] (f32) into q [M, k_blocks * block_size] (int64, padding 0) and scales [M, k_blocks] (f32)."""
    M, K = a.shape
    kb = RQ.k_blocks(K, block_size)
    q = np.zeros((M, kb * block_size), np.int64)
    sa = np.zeros((M, kb), F32)
    for b in range(kb):
        blk = a[:, b * block_size: min(K, (b + 1) * block_size)]
        amax = np.abs(blk).max(axis=1) if blk.size else np.zeros(M, F32)
        for m in range(M):
            if not np.isfinite(amax[m]):
                sa[m, b] = np.nan
                continue
            s = F32(amax[m]) / F32(127)
            sa[m, b] = s
            if s == 0:
                continue
            x = blk[m] / s  # f32 division, one rounding
            lo = b * block_size
            q[m, lo: lo + blk.shape[1]] = np.clip(np.rint(x), -127, 127).astype(np.int64)
    return q, sa


def matmul_nbits_int8(a: np.ndarray, b: np.ndarray, scales: np.ndarray, zero_points: np.ndarray | None,
                      bias: np.ndarray | None, K: int, N: int, bits: int, block_size: int) -> np.ndarray:
    """Y (f32, A's shape, last dimension N) at accuracy_level 4; zero points absent or packed uint8."""
    a2 = a.reshape(-1, K)
    M = a2.shape[0]
    kb = RQ.k_blocks(K, block_size)
    qa, sa = quantize_a(a2, block_size)
    qw = RQ._unpack(b.reshape(N, kb, -1), bits, block_size).reshape(N, kb * block_size)
    qw[:, K:] = 0
    z = (np.full((N, kb), 1 << (bits - 1), np.int64) if zero_points is None
         else RQ._unpack(zero_points.reshape(N, -1), bits, kb))
    sw = scales.reshape(N, kb).astype(F32)
    acc = np.zeros((M, N), F32)
    for blk in range(kb):
        cols = slice(blk * block_size, (blk + 1) * block_size)
        d = qw[:, cols] - z[:, blk:blk + 1]  # [N, bs], q padding 0 meets A's padding 0
        isum = qa[:, cols] @ d.T  # exact int64, |isum| <= 127 * 255 * 256 < 2^24
        with np.errstate(invalid="ignore", over="ignore"):
            sc = sa[:, blk:blk + 1] * sw[None, :, blk]  # f32 product, one rounding
        acc = fma32(isum.astype(F32), sc, acc)
    if bias is not None:
        with np.errstate(invalid="ignore", over="ignore"):
            acc = acc + bias.astype(F32)[None, :]
    acc[np.isnan(acc)] = np.float32(np.nan)
    return acc.reshape(a.shape[:-1] + (N,))
