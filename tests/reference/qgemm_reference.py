"""NumPy reference of com.microsoft QGemm, written from docs/quantized-matmul.md ("QGemm"): A and B transposed
where transA / transB say, the exact integer sum wrapped to int32, C added modulo 2^32, then
m_j = fl32(fl32(alpha * a_scale) * b_scale_j) (divided once by y_scale when given) and the binary32 steps of
MatMulIntegerToFloat (no bias) or QLinearMatMul (NumPy's float32 operations are single IEEE operations)."""

from __future__ import annotations

import numpy as np

from tests.reference.quant_matmul_reference import CANONICAL_NAN, int_sum, requantize


def _f32(x: np.ndarray | float) -> np.ndarray:
    return np.asarray(x, np.float32)


def qgemm(a: np.ndarray, a_scale: np.ndarray, za: np.ndarray | None, b: np.ndarray, b_scale: np.ndarray,
          zb: np.ndarray | None, c: np.ndarray | None = None, y_scale: np.ndarray | None = None,
          zy: np.ndarray | None = None, alpha: float = 1.0, trans_a: int = 0, trans_b: int = 0) -> np.ndarray:
    A = a.T if trans_a else a
    B = b.T if trans_b else b
    acc = int_sum(A, B, za, zb)
    if c is not None:
        wide = acc.astype(np.int64) + np.broadcast_to(c.astype(np.int64), acc.shape)
        acc = wide.astype(np.uint64).astype(np.uint32).view(np.int32)
    bs = _f32(b_scale)
    bs = bs.reshape(()) if bs.size == 1 else bs.reshape(-1)
    with np.errstate(all="ignore"):
        m = (np.float32(alpha) * _f32(a_scale).reshape(())) * bs
        if y_scale is not None:
            m = m / _f32(y_scale).reshape(())
        if zy is not None:
            return requantize(acc, m, zy)
        y = _f32(acc.astype(np.float32) * m)
    bits = y.view(np.uint32).copy()
    bits[np.isnan(y)] = CANONICAL_NAN
    return bits.view(np.float32)
