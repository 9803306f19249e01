"""ConvTranspose (float16, and float32 for the same order) written from docs/conv.md's "ConvTranspose" section
alone ("Reference: the order of operations (exact mode)" and its shape rules), by a reviewer who has not read
the kernels.

Per output element Y[n, m, o]: the kernel positions kk in row-major order; kk contributes when every axis'
q = o + p - kk * d is >= 0, divisible by s and j = q / s < D; its partial sum P_kk is the GEMM's dot product
over the group's Cg input channels (blocks of 256, an fma chain from +0 per block, the binary-counter tree:
tests/reference/f32_docs_ops.py's `dot`, written from docs/exact-linalg.md alone, which the section names as
the definition); acc = +0, acc = acc + P_kk per contributing kk; y = acc + B[m]; a NaN y is the canonical NaN.
float16: X, W and B widened exactly to f32, every step in f32, y rounded once to f16."""

from __future__ import annotations

import itertools

import numpy as np

from tests.reference.f32_docs_ops import dot

F32 = np.float32


def out_geometry(d: tuple[int, ...], k: tuple[int, ...], s: tuple[int, ...], dil: tuple[int, ...],
                 opad: tuple[int, ...], pads: tuple[int, ...] | None, auto_pad: str,
                 output_shape: tuple[int, ...] | None) -> tuple[list[int], list[int]]:
    """(O_i, p_i) per axis by the section's shape rules."""
    r = len(d)
    o_sizes, begins = [], []
    for i in range(r):
        full = s[i] * (d[i] - 1) + opad[i] + dil[i] * (k[i] - 1) + 1
        if output_shape is not None or auto_pad in ("SAME_UPPER", "SAME_LOWER"):
            o = output_shape[i] if output_shape is not None else d[i] * s[i]
            total = full - o
            if total <= -s[i] and output_shape is not None:
                raise ValueError("output_shape larger than the taps allow")
            p = total // 2 if auto_pad == "SAME_UPPER" else total - total // 2
            p = max(p, 0) if total >= 0 else 0
        elif auto_pad == "VALID":
            o, p = full, 0
        else:
            pp = pads or (0,) * (2 * r)
            o, p = full - pp[i] - pp[r + i], pp[i]
            if o < 1:
                raise ValueError("output size below 1")
        o_sizes.append(o)
        begins.append(p)
    return o_sizes, begins


def conv_transpose(x: np.ndarray, w: np.ndarray, b: np.ndarray | None = None, *, group: int = 1,
                   strides: tuple[int, ...] | None = None, dilations: tuple[int, ...] | None = None,
                   pads: tuple[int, ...] | None = None, output_padding: tuple[int, ...] | None = None,
                   auto_pad: str = "NOTSET", output_shape: tuple[int, ...] | None = None) -> np.ndarray:
    out_t = x.dtype
    assert out_t in (np.float16, np.float32) and w.dtype == out_t
    nsp = x.ndim - 2
    s = strides or (1,) * nsp
    dil = dilations or (1,) * nsp
    opad = output_padding or (0,) * nsp
    n, c = x.shape[:2]
    d = x.shape[2:]
    k = w.shape[2:]
    cg, mg = c // group, w.shape[1]
    o_sizes, p = out_geometry(d, k, s, dil, opad, pads, auto_pad, output_shape)
    xf, wf = x.astype(F32), w.astype(F32)  # exact widening
    y = np.zeros((n, group * mg, *o_sizes), F32)
    for g in range(group):
        xg = np.moveaxis(xf[:, g * cg:(g + 1) * cg], 1, -1)[:, None]  # [N, 1, D..., Cg]
        acc = np.zeros((n, mg, *o_sizes), F32)  # +0
        for kk in itertools.product(*(range(v) for v in k)):  # row-major, last axis fastest
            wv = wf[(slice(g * cg, (g + 1) * cg), slice(None), *kk)].T  # [Mg, Cg]
            part = dot(xg, wv.reshape(1, mg, *([1] * nsp), cg))  # P_kk at every input position [N, Mg, D...]
            js, oks = [], []
            for i in range(nsp):
                q = np.arange(o_sizes[i]) + p[i] - kk[i] * dil[i]
                ok = (q >= 0) & (q % s[i] == 0) & (q // s[i] < d[i])
                js.append(np.where(ok, q // s[i], 0))
                oks.append(ok)
            grid_ok = np.ones(o_sizes, bool)
            for i in range(nsp):
                grid_ok = grid_ok & oks[i].reshape([-1 if a == i else 1 for a in range(nsp)])
            gathered = part[(slice(None), slice(None), *np.ix_(*js))]
            with np.errstate(all="ignore"):
                acc = np.where(grid_ok, (acc + gathered).astype(F32), acc)  # one rounded add per contributor
        y[:, g * mg:(g + 1) * mg] = acc
    if b is not None:
        with np.errstate(all="ignore"):
            y = (y + b.astype(F32).reshape(1, -1, *([1] * nsp))).astype(F32)
    y = np.where(np.isnan(y), F32(np.nan), y)  # canonical quiet NaN
    with np.errstate(over="ignore"):
        return y.astype(out_t)  # f16: one nearest-even rounding (overflow to infinity)
