"""com.microsoft QGemm written from docs/quantized-matmul.md ("QGemm (com.microsoft, 1)" and the steps of
MatMulIntegerToFloat and QLinearMatMul it names) alone, as an independent check of that page: its author has
not read the kernels nor tests/reference/qgemm_reference.py.

1. acc = sum_k (A'[i, k] - za) * (B'[k, j] - zb_j), exact, then modulo 2^32 (int64 here: |terms| < 2^16, so
   no int64 overflow below K = 2^47).
2. acc = acc + C (broadcast), modulo 2^32.
3. m_j = fl32(fl32(alpha * a_scale) * s_j); with y_scale, m_j = fl32(m_j / y_scale).
4. Float Y: fl32(fl32(acc) * m_j), a NaN written as 0x7FC00000. Requantised Y: v = fl32(fl32(acc) * m_j),
   clamped to [qmin - z, qmax - z] (a NaN to the lower bound), rounded half to even, plus z.
Every binary32 step is one numpy float32 operation (round to nearest even, subnormals kept).
"""

from __future__ import annotations

import numpy as np

F = np.float32
CANONICAL_NAN32 = np.uint32(0x7FC00000)
RANGES = {np.dtype(np.uint8): (0, 255), np.dtype(np.int8): (-128, 127)}


def _wrap32(x: np.ndarray) -> np.ndarray:
    """int64 values modulo 2^32 as two's-complement int32."""
    return x.astype(np.int64).astype(np.int32)  # numpy keeps the low 32 bits


def _column(param: np.ndarray | None, n: int, dtype: type) -> np.ndarray:
    """A one-element or 1-D-of-N parameter as a row of N (absent: 0)."""
    if param is None:
        return np.zeros((1, n), dtype)
    p = np.asarray(param)
    if p.size == 1:
        return np.full((1, n), p.reshape(-1)[0], dtype)
    if p.shape != (n,):
        raise ValueError(f"per-column parameter of shape {list(p.shape)} for N = {n}")
    return p.astype(dtype).reshape(1, n)


def accumulator(a: np.ndarray, a_zero_point: np.ndarray | None, b: np.ndarray,
                b_zero_point: np.ndarray | None, c: np.ndarray | None, trans_a: int = 0,
                trans_b: int = 0) -> np.ndarray:
    """Steps 1 and 2: the int32 accumulator [M, N]."""
    a2 = (a.T if trans_a else a).astype(np.int64)
    b2 = (b.T if trans_b else b).astype(np.int64)
    m, n = a2.shape[0], b2.shape[1]
    za = 0 if a_zero_point is None else int(np.asarray(a_zero_point).reshape(-1)[0])
    zb = _column(b_zero_point, n, np.int64)
    acc = _wrap32((a2 - za) @ (b2 - zb))  # exact in int64, then modulo 2^32
    if c is not None:
        c64 = np.broadcast_to(np.asarray(c, np.int64), (m, n))
        acc = _wrap32(acc.astype(np.int64) + c64)
    return acc


def multiplier(alpha: float, a_scale: np.ndarray, b_scale: np.ndarray, n: int,
               y_scale: np.ndarray | None = None) -> np.ndarray:
    """Step 3: m_j as a row of N binary32 values."""
    s = _column(b_scale, n, F)
    with np.errstate(all="ignore"):
        m = (F(alpha) * F(np.asarray(a_scale, F).reshape(-1)[0])) * s
        if y_scale is not None:
            m = m / F(np.asarray(y_scale, F).reshape(-1)[0])
    return m.astype(F)


def qgemm(a: np.ndarray, a_scale: np.ndarray, a_zero_point: np.ndarray | None, b: np.ndarray,
          b_scale: np.ndarray, b_zero_point: np.ndarray | None, c: np.ndarray | None = None,
          y_scale: np.ndarray | None = None, y_zero_point: np.ndarray | None = None, *, alpha: float = 1.0,
          trans_a: int = 0, trans_b: int = 0) -> np.ndarray:
    """QGemm's Y: float without y_zero_point, else y_zero_point's type."""
    if y_zero_point is not None and y_scale is None:
        raise ValueError("y_zero_point without y_scale")
    acc = accumulator(a, a_zero_point, b, b_zero_point, c, trans_a, trans_b)
    m_j = multiplier(alpha, a_scale, b_scale, acc.shape[1], y_scale)
    with np.errstate(all="ignore"):
        v = acc.astype(F) * m_j  # int32 -> binary32 (one rounding), then one binary32 multiplication
    if y_zero_point is None:
        v = v.copy()
        v[np.isnan(v)] = CANONICAL_NAN32.view(F)
        return v
    zp = np.asarray(y_zero_point)
    qmin, qmax = RANGES[zp.dtype]
    z = int(zp.reshape(-1)[0])
    lo, hi = F(qmin - z), F(qmax - z)
    c1 = np.where(v >= lo, v, lo)  # a NaN v fails the comparison: lo
    c2 = np.where(c1 <= hi, c1, hi)
    r = np.rint(c2).astype(np.int64)  # half to even, exact (|c| <= 510)
    return (r + z).astype(zp.dtype)
