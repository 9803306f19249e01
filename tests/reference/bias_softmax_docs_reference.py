"""com.microsoft BiasSoftmax (f32, f16) written from docs/transformer-ops.md's "com.microsoft BiasSoftmax"
section alone, by a reviewer who has not read the kernels: data coerced to 2-D at `axis` (N rows of D
elements), bias right-aligned to data's rank, R bias rows; row n takes bias row floor(n / (N / R)) with
is_inner_broadcast = 1 and n mod R with 0; s_i = RN32(x_i + b_i) (f16 widened exactly first), then the f32
Softmax row of docs/exact-linalg.md, which the section names as the definition
(tests/reference/f32_docs_ops.py's `softmax_row`, itself written from that page alone), then f16 rounds each
y_i once to half."""

from __future__ import annotations

import math

import numpy as np

from tests.reference.f32_docs_ops import softmax_row

F32 = np.float32


def bias_rows(n_rows: int, r_rows: int, is_inner_broadcast: int) -> np.ndarray:
    """The bias row of each data row (the page's two formulas)."""
    n = np.arange(n_rows, dtype=np.int64)
    if r_rows == 0:
        return n
    if is_inner_broadcast:
        return n // (n_rows // r_rows)
    return n % r_rows


def bias_softmax(x: np.ndarray, bias: np.ndarray, axis: int, is_inner_broadcast: int) -> np.ndarray:
    """y of data x and bias of one type (f32 or f16); ValueError where the page says the shapes fail."""
    assert x.dtype == bias.dtype and x.dtype in (np.float32, np.float16)
    r = x.ndim
    a = axis + r if axis < 0 else axis
    if not 0 <= a < r or bias.ndim > r:
        raise ValueError("axis out of range or bias of higher rank")
    bshape = (1,) * (r - bias.ndim) + bias.shape
    if bshape[a:] != x.shape[a:]:
        raise ValueError("bias must have data's dimensions from axis on")
    lead_x, lead_b = x.shape[:a], bshape[:a]
    if is_inner_broadcast:  # data's first dimensions, then only 1s
        k = len([d for d in lead_b if d != 1]) and max(i + 1 for i, d in enumerate(lead_b) if d != 1)
        ok = lead_b[:k] == lead_x[:k]
    else:  # only 1s, then data's dimensions
        k = next((i for i, d in enumerate(lead_b) if d != 1), a)
        ok = lead_b[k:] == lead_x[k:]
    if not ok:
        raise ValueError("bias layout does not match is_inner_broadcast")
    n_rows, d = math.prod(lead_x), math.prod(x.shape[a:])
    r_rows = math.prod(lead_b)
    x2 = x.reshape(n_rows, d).astype(F32)  # f16 -> f32 exactly
    b2 = bias.reshape(r_rows, d).astype(F32)
    with np.errstate(all="ignore"):
        s = (x2 + b2[bias_rows(n_rows, r_rows, is_inner_broadcast)]).astype(F32)  # one IEEE f32 add each
    y = softmax_row(s) if n_rows and d else s
    return y.reshape(x.shape).astype(x.dtype)  # f16: one rounding to nearest-even
