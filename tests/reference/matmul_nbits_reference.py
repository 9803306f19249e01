"""An independent reference for com.microsoft MatMulNBits, written from the contract of docs/quantized.md
("MatMulNBits (com.microsoft, opset 1): the contract") and the product of docs/exact-linalg.md ("MatMul and
Gemm") alone, without reading the kernels; and a packer that lays out B and zero_points as that contract
states.

Steps, in the doc's order and precision: q(n, k) unpacked from B's blob (n, kb), least significant bits first;
the scale s(n, kb) = scales[n * k_blocks + kb]; the zero point (absent: 2^(bits-1); packed uint8; or f32);
w = fl32(d * s) with d = q - z an exact integer (integer zero point), or d = fl32(q - z) then w = fl32(d * s)
(f32 zero point); then each y[i, n] is one fma chain per block of 256 k from +0 in increasing k (fma32: a
correct rounding) and the block sums added in the doc's tree (the binary counter's, earlier + later), both
from tests/reference/gemm_reference.py (a docs-only reference), then + bias[n] (one f32 addition), and a NaN
written as 0x7FC00000.
"""

from __future__ import annotations

import numpy as np

from tests.reference.gemm_reference import block_tree_sum, fma32

KB = 256  # the product's block of k (docs/exact-linalg.md), unrelated to block_size


def k_blocks(k: int, block_size: int) -> int:
    return -(-k // block_size)


def zp_bytes(k: int, block_size: int, bits: int) -> int:
    return -(-k_blocks(k, block_size) * bits // 8)


# ---- layout: the packer and its inverse ----------------------------------------------------------------

def pack_weights(q: np.ndarray, block_size: int, bits: int, rng: np.random.Generator | None = None
                 ) -> np.ndarray:
    """B [N, k_blocks, blob_size] uint8 from q [N, K] (integers in [0, 2^bits)); blob (n, kb) holds k =
    kb * block_size + j at byte j (8 bits) or in byte j div 2, low nibble for even j, high for odd j (4 bits).
    The padding past K is random bits when `rng` is given (the contract never reads it), else 0."""
    n, k = q.shape
    kbs = k_blocks(k, block_size)
    padded = np.zeros((n, kbs * block_size), np.uint8)
    if rng is not None:
        padded[:] = rng.integers(0, 1 << bits, padded.shape, dtype=np.uint8)
    padded[:, :k] = q
    blocks = padded.reshape(n, kbs, block_size)
    if bits == 8:
        return blocks.copy()
    return (blocks[:, :, 0::2] | (blocks[:, :, 1::2] << 4)).astype(np.uint8)


def pack_zero_points(z: np.ndarray, bits: int, rng: np.random.Generator | None = None) -> np.ndarray:
    """zero_points [N * zp_bytes] uint8 from z [N, k_blocks]: per row zp_bytes bytes, byte kb (8 bits), or
    byte kb div 2 with the low nibble for even kb and the high for odd kb (4 bits); a trailing unused nibble
    is random when `rng` is given, else 0."""
    n, kbs = z.shape
    if bits == 8:
        return z.astype(np.uint8).reshape(-1).copy()
    nbytes = -(-kbs // 2)
    padded = np.zeros((n, 2 * nbytes), np.uint8)
    if rng is not None:
        padded[:] = rng.integers(0, 16, padded.shape, dtype=np.uint8)
    padded[:, :kbs] = z
    return (padded[:, 0::2] | (padded[:, 1::2] << 4)).astype(np.uint8).reshape(-1)


def unpack_weights(b: np.ndarray, k: int, block_size: int, bits: int) -> np.ndarray:
    """q [N, K] (int64) read from B as the contract states, element by element from its formulas."""
    n, kbs, _ = b.shape
    kk = np.arange(k)
    kb, j = kk // block_size, kk % block_size
    if bits == 8:
        return b[:, kb, j].astype(np.int64)
    byte = b[:, kb, j // 2].astype(np.int64)
    return np.where(j % 2 == 0, byte & 0x0F, byte >> 4)


def zero_point_grid(zero_points: np.ndarray | None, n: int, kbs: int, bits: int) -> np.ndarray:
    """z(n, kb) as [N, k_blocks]: int64 for absent (2^(bits-1)) or uint8 zero points, f32 for f32 ones."""
    if zero_points is None:
        return np.full((n, kbs), 1 << (bits - 1), np.int64)
    flat = zero_points.reshape(-1)
    if flat.dtype == np.float32:
        return flat.reshape(n, kbs)
    per_row = -(-kbs * bits // 8)
    rows = flat.reshape(n, per_row).astype(np.int64)
    kb = np.arange(kbs)
    if bits == 8:
        return rows[:, kb]
    byte = rows[:, kb // 2]
    return np.where(kb % 2 == 0, byte & 0x0F, byte >> 4)


# ---- arithmetic ----------------------------------------------------------------------------------------

def dequantize(b: np.ndarray, scales: np.ndarray, zero_points: np.ndarray | None, k: int, block_size: int,
               bits: int) -> np.ndarray:
    """W^T as [N, K] f32: fl32(d * s) with d exact (integer zero point) or fl32(q - z) (f32 zero point)."""
    n, kbs, _ = b.shape
    q = unpack_weights(b, k, block_size, bits)
    kb = np.arange(k) // block_size
    s = scales.reshape(-1).astype(np.float32).reshape(n, kbs)[:, kb]
    z = zero_point_grid(zero_points, n, kbs, bits)[:, kb]
    with np.errstate(all="ignore"):
        if z.dtype == np.float32:
            d = q.astype(np.float32) - z  # q < 256: exact in f32; one rounded subtraction
        else:
            d = (q - z).astype(np.float32)  # |d| <= 255: exact
        return d * s


def matmul_nbits(a: np.ndarray, b: np.ndarray, scales: np.ndarray, zero_points: np.ndarray | None,
                 bias: np.ndarray | None, *, k: int, n: int, bits: int, block_size: int) -> np.ndarray:
    """Y = A · W (+ bias), Y of A's shape with the last dimension N."""
    if k < 1 or a.shape[-1] != k or b.shape != (n, k_blocks(k, block_size), block_size * bits // 8):
        raise ValueError(f"shapes do not fit K={k}, N={n}: A {list(a.shape)}, B {list(b.shape)}")
    wt = dequantize(b, scales, zero_points, k, block_size, bits)  # [N, K]
    a2 = a.reshape(-1, k).astype(np.float32)
    m = a2.shape[0]
    sums = []
    for k0 in range(0, k, KB):
        s = np.zeros((m, n), np.float32)
        for kk in range(k0, min(k0 + KB, k)):
            s = fma32(a2[:, kk][:, None], wt[:, kk][None, :], s)
        sums.append(s)
    with np.errstate(all="ignore"):
        y = block_tree_sum(sums, lambda below, top: (below + top).astype(np.float32))
    if bias is not None:
        with np.errstate(all="ignore"):
            y = (y + bias.astype(np.float32)[None, :]).astype(np.float32)
    y = np.array(y, np.float32)
    y.view(np.uint32)[np.isnan(y)] = np.uint32(0x7FC00000)
    return y.reshape(*a.shape[:-1], n)
