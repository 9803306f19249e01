"""NumPy reference of ConvInteger and QLinearConv, written from docs/quantized-conv.md: each output element
the exact integer sum over its window of (x - x_zero_point) * (w - w_zero_point[m]) (padding taps
contribute 0) in int64, wrapped to int32; QLinearConv then adds B[m] modulo 2^32 and requantises with
QLinearMatMul's steps (tests/reference/quant_matmul_reference.py: the multiplier
fl32(fl32(x_scale * w_scale[m]) / y_scale))."""

from __future__ import annotations

from typing import Any

import numpy as np

from tests.reference.conv_reference import output_shape, resolve_pads
from tests.reference.quant_matmul_reference import requantize


def _per_channel(p: np.ndarray | None, m: int) -> np.ndarray:
    """A one-element or per-output-channel parameter as int64 [M]; absent: zeros."""
    if p is None:
        return np.zeros(m, np.int64)
    return np.broadcast_to(p.astype(np.int64).reshape(-1), (m,))


def wrap32(v: np.ndarray) -> np.ndarray:
    return v.astype(np.int64).astype(np.uint64).astype(np.uint32).view(np.int32)


def conv_integer(x: np.ndarray, w: np.ndarray, x_zp: np.ndarray | None = None, w_zp: np.ndarray | None = None,
                 attrs: dict[str, Any] | None = None) -> np.ndarray:
    """y[n, m, o] = sum over (c, kernel position) of (Xp - x_zp)(W[m] - w_zp[m]), wrapped to int32."""
    attrs = attrs or {}
    k = x.ndim - 2
    n, c, spatial = x.shape[0], x.shape[1], list(x.shape[2:])
    m_out, cg, kernel = w.shape[0], w.shape[1], list(w.shape[2:])
    group = int(attrs.get("group", 1))
    strides = list(attrs.get("strides", [1] * k))
    dil = list(attrs.get("dilations", [1] * k))
    auto_pad = attrs.get("auto_pad", "NOTSET")
    begin, end = resolve_pads(auto_pad, spatial, kernel, strides, dil, attrs.get("pads"))
    out = output_shape(spatial, kernel, strides, dil, begin, end)
    xs = x.astype(np.int64) - (0 if x_zp is None else int(x_zp.reshape(-1)[0]))
    xp = np.pad(xs, [(0, 0), (0, 0)] + [(b, e) for b, e in zip(begin, end)])
    ws = w.astype(np.int64) - _per_channel(w_zp, m_out).reshape((m_out,) + (1,) * (k + 1))
    mg = m_out // group
    y = np.zeros((n, m_out, *out), np.int64)
    for kpos in np.ndindex(*kernel):
        sl = tuple(slice(kk * d, kk * d + (o - 1) * s + 1, s) for kk, d, o, s in zip(kpos, dil, out, strides))
        taps = xp[(slice(None), slice(None)) + sl]  # [N, C, out...]
        wk = ws[(slice(None), slice(None)) + tuple(kpos)]  # [M, Cg]
        for g in range(group):
            y[:, g * mg:(g + 1) * mg] += np.einsum("nc...,mc->nm...", taps[:, g * cg:(g + 1) * cg],
                                                   wk[g * mg:(g + 1) * mg])
    del c
    return wrap32(y)


def qlinear_conv(x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp, b=None,
                 attrs: dict[str, Any] | None = None) -> np.ndarray:
    acc = conv_integer(x, w, x_zp, w_zp, attrs)
    m_out = w.shape[0]
    shape = (1, m_out) + (1,) * (x.ndim - 2)
    if b is not None:
        acc = wrap32(acc.astype(np.int64) + b.astype(np.int64).reshape(shape))
    ws = np.asarray(w_scale, np.float32).reshape(-1)
    with np.errstate(all="ignore"):
        mult = (np.float32(np.asarray(x_scale, np.float32).reshape(-1)[0]) * ws) / np.float32(
            np.asarray(y_scale, np.float32).reshape(-1)[0])
    mult = np.broadcast_to(mult.astype(np.float32), (m_out,)).reshape(shape)
    return requantize(acc, mult, np.asarray(y_zp))
