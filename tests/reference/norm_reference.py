"""An independent reference for InstanceNormalization and GroupNormalization, written from the contract in
docs/pooling-norm.md ("InstanceNormalization and GroupNormalization") and the sum16 it cites from
docs/exact-linalg.md, without reading the kernels.

In the accumulation type A (f32 for f16 and f32 input, f64 for f64; an f16 converts exactly), each group
(n, j) is the run v of m = g * P elements X[n, j g : (j + 1) g, ...] in row-major order, g = C / G
(InstanceNormalization: G = C), P the product of the spatial sizes (1 when there are none):

    mean = sum16(v) / m,   d_i = v_i - mean,   var = sum16(d_i * d_i) / m
    s_c  = a_c / sqrt(var + epsilon)                 (per channel c of the group; +, sqrt, / each rounded)
    y    = ((x - mean) * s_c) + b_c                  (-, *, + each rounded, never fused)

with m converted to A by one rounding, epsilon the f32 attribute widened exactly, a_c and b_c the channel's
scale and bias (GroupNormalization opsets 18-20: the group's), an f16 output one rounding of the f32 y, and
every NaN result the canonical quiet NaN. numpy's float32 / float64 array operations are the IEEE operations
of their type (one rounding to nearest even each, subnormals kept), and np.sqrt is correctly rounded, so each
line below is one of the contract's steps.
"""

from __future__ import annotations

import numpy as np

F16, F32, F64 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)
TYPES = (F16, F32, F64)
LANES = 16
GROUP_SCALE_PER_GROUP_BEFORE = 21  # GroupNormalization opsets 18-20: scale and bias of shape [G]


def acc_dtype(dtype: np.dtype) -> np.dtype:
    """The accumulation type A: f64 for f64 input, f32 for f16 and f32."""
    if np.dtype(dtype) not in TYPES:
        raise TypeError(f"the contract covers float16, float32 and float64, not {dtype}")
    return F64 if np.dtype(dtype) == F64 else F32


def sum16(v: np.ndarray) -> np.ndarray:
    """docs/exact-linalg.md's 16-lane sum over the last axis of v (already in A): partials s_0..s_15 from
    -0.0, v_i added into s_{i mod 16} in increasing i, then s_l = s_l + s_{l+h} for h = 8, 4, 2, 1; the
    result s_0. An empty sequence gives +0.

    The sequence is padded with -0.0 up to a multiple of 16: s + (-0.0) is s for every s (NaN stays NaN), so
    the padding changes no partial."""
    v = np.asarray(v)
    n = v.shape[-1]
    if n == 0:
        return np.zeros(v.shape[:-1], v.dtype)
    padded = np.concatenate([v, np.full(v.shape[:-1] + (-n % LANES,), -0.0, v.dtype)], axis=-1)
    rows = padded.reshape(v.shape[:-1] + (-1, LANES))
    with np.errstate(all="ignore"):
        s = np.full(v.shape[:-1] + (LANES,), -0.0, v.dtype)
        for r in range(rows.shape[-2]):  # lane l receives v_{16 r + l}: increasing i within every lane
            s = s + rows[..., r, :]
        for h in (8, 4, 2, 1):
            s = np.concatenate([s[..., :h] + s[..., h:2 * h], s[..., h:]], axis=-1)
    return s[..., 0]


def group_statistics(x: np.ndarray, num_groups: int) -> tuple[np.ndarray, np.ndarray]:
    """(mean, var) of every group, shape [N, G], in A: mean = sum16(v) / m, var = sum16(d * d) / m."""
    x = np.asarray(x)
    a = acc_dtype(x.dtype)
    n, c = x.shape[:2]
    m = (c // num_groups) * int(np.prod(x.shape[2:], dtype=np.int64))
    v = x.astype(a).reshape(n, num_groups, m)
    m_a = a.type(m)  # one rounding (exact below 2^24 / 2^53)
    with np.errstate(all="ignore"):
        mean = sum16(v) / m_a
        d = v - mean[..., None]
        var = sum16(d * d) / m_a
    return mean, var


def _normalize(x: np.ndarray, scale_c: np.ndarray, bias_c: np.ndarray, num_groups: int,
               epsilon: float) -> np.ndarray:
    """The contract's steps with per-channel scale and bias (each of C elements)."""
    x = np.asarray(x)
    if x.ndim < 2:
        raise ValueError(f"X must be [N, C, ...], it has rank {x.ndim}")
    n, c = x.shape[:2]
    if num_groups < 1 or c % num_groups:
        raise ValueError(f"C = {c} is not a multiple of num_groups = {num_groups}")
    if scale_c.shape != (c,) or bias_c.shape != (c,):
        raise ValueError(f"scale {scale_c.shape} and bias {bias_c.shape} must be [{c}] per channel")
    a = acc_dtype(x.dtype)
    if x.size == 0:
        return np.empty(x.shape, x.dtype)
    g = c // num_groups
    mean, var = group_statistics(x, num_groups)
    xa = x.astype(a).reshape(n, num_groups, g, -1)  # [N, G, g, P]
    sc = np.asarray(scale_c).astype(a).reshape(num_groups, g)
    bc = np.asarray(bias_c).astype(a).reshape(num_groups, g)
    eps = a.type(np.float32(epsilon))  # the f32 attribute, widened exactly
    with np.errstate(all="ignore"):
        s = sc / np.sqrt(var + eps)[..., None]  # [N, G, g]
        y = ((xa - mean[..., None, None]) * s[..., None]) + bc[..., None]
    y = y.astype(x.dtype).reshape(x.shape)  # f16: one rounding, ties to even
    y[np.isnan(y)] = np.nan  # the canonical quiet NaN of the type
    return y


def instance_normalization(x: np.ndarray, scale: np.ndarray, b: np.ndarray, epsilon: float = 1e-5
                           ) -> np.ndarray:
    """ONNX InstanceNormalization (X [N, C, D1, ...], scale and B [C]) in the contract's order: one group
    per channel."""
    x = np.asarray(x)
    if x.ndim < 3:
        raise ValueError(f"InstanceNormalization needs X of rank 3 or more, got rank {x.ndim}")
    return _normalize(x, np.asarray(scale), np.asarray(b), max(x.shape[1], 1), epsilon)  # C = 0: empty


def group_normalization(x: np.ndarray, scale: np.ndarray, bias: np.ndarray, num_groups: int,
                        epsilon: float = 1e-5, opset: int = 21) -> np.ndarray:
    """ONNX GroupNormalization (X [N, C, ...]; scale and bias [G] at opsets 18-20, [C] from 21) in the
    contract's order."""
    x = np.asarray(x)
    scale, bias = np.asarray(scale), np.asarray(bias)
    if opset < GROUP_SCALE_PER_GROUP_BEFORE:
        if scale.shape != (num_groups,) or bias.shape != (num_groups,):
            raise ValueError(f"opset {opset}: scale {scale.shape} and bias {bias.shape} must be "
                             f"[{num_groups}]")
        g = x.shape[1] // num_groups if num_groups >= 1 else 0
        scale, bias = np.repeat(scale, g), np.repeat(bias, g)  # channel c takes its group's
    return _normalize(x, scale, bias, num_groups, epsilon)
