"""A reference for the pooling nodes, written from docs/pooling-norm.md alone.

GlobalAveragePool: per (n, c), the spatial slab in row-major order, converted to the accumulation type A
(f32 for f16/f32, f64 for f64), summed by sum16 (docs/exact-linalg.md: 16 partials from -0.0, element i into
partial i mod 16, the tree 8, 4, 2, 1), then one division by the element count m converted to A; an f16 output
is one rounding of the f32 result. GlobalMaxPool: NaN if any element is NaN, otherwise the largest, +0 above
-0. Y keeps the rank of X with every spatial dimension 1.
"""

from __future__ import annotations

import numpy as np

from tests.reference.reference_linalg import max_, sum16, to_acc


def _slabs(x: np.ndarray) -> np.ndarray:
    """X [N, C, D1, ...] as [N, C, m]: each (n, c) slab in row-major order, in the accumulation type."""
    x = np.asarray(x)
    if x.ndim < 3:
        raise ValueError(f"X must be [N, C, D1, ...], it has rank {x.ndim}")
    m = int(np.prod(x.shape[2:], dtype=np.int64))
    return to_acc(x.reshape(x.shape[0], x.shape[1], m))


def _out_shape(x: np.ndarray) -> tuple[int, ...]:
    return tuple(x.shape[:2]) + (1,) * (x.ndim - 2)


def global_average_pool(x: np.ndarray) -> np.ndarray:
    v = _slabs(x)
    a = v.dtype.type
    with np.errstate(all="ignore"):
        y = sum16(v) / a(v.shape[-1])
    return y.astype(np.asarray(x).dtype).reshape(_out_shape(x))


def global_max_pool(x: np.ndarray) -> np.ndarray:
    v = _slabs(x)
    if v.shape[-1] == 0:
        y = np.full(v.shape[:-1], -np.inf, dtype=v.dtype)
    else:
        y = max_(v)
    return y.astype(np.asarray(x).dtype).reshape(_out_shape(x))


def batch_normalization(x: np.ndarray, scale: np.ndarray, bias: np.ndarray, mean: np.ndarray, var: np.ndarray,
                        epsilon: float = 1e-5) -> np.ndarray:
    """Inference BatchNormalization: per channel s = scale / sqrt(var + eps) (eps the f32 attribute, widened
    exactly for f64), per element y = ((x - mean) * s) + B; each step one rounding in A; an f16 output one
    rounding of the f32 result."""
    x = np.asarray(x)
    xa = to_acc(x)
    a = xa.dtype.type
    bc = (1, -1) + (1,) * (x.ndim - 2)  # channel c along axis 1
    with np.errstate(all="ignore"):
        s = to_acc(scale) / np.sqrt(to_acc(var) + a(np.float32(epsilon)))
        y = ((xa - to_acc(mean).reshape(bc)) * s.reshape(bc)) + to_acc(bias).reshape(bc)
    return y.astype(x.dtype)
