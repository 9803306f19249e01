"""An independent reference for the exact ConvTranspose (docs/conv.md, "ConvTranspose"), written from that
contract, the GEMM order it cites (docs/gemm.md, docs/exact-linalg.md) and the ONNX spec alone (no library
code read).

X [N, C, D1..Dk], W [C, M/G, K1..Kk] (input channels first), optional B [M]. For each output element
Y[n, m, o] (g = m div (M/G), mm = m mod (M/G), Cg = C/G), the kernel positions kk are visited in row-major
order; kk contributes when on every axis q = o_i + p_i - kk_i d_i is >= 0, a multiple of s_i, and
j_i = q / s_i < D_i. Its partial sum P_kk is the GEMM's dot product over c in [0, Cg) of
X[n, g Cg + c, j] * W[g Cg + c, mm, kk]: c cut into blocks of 256, per block one fma chain from +0.0 in
increasing c, the block sums added in the binary-counter tree. Then acc = +0.0 and acc = acc + P_kk for each
contributing kk in row-major order (one rounded add each), y = acc + B[m] (one rounded add), a NaN result the
canonical quiet NaN. f32 and f64; f16 is f32's order on X, W and B widened to f32 (exactly), each output
rounded once to f16 (nearest even; a NaN the canonical 0x7E00).

fma is tests/reference/reference_linalg.py's exactly rounded one (f32: the product exact in f64, the sum
rounded to odd in f64, then one rounding to f32; f64: MPFR), itself checked against MPFR; the block tree is
tests/reference/gemm_reference.py's binary counter (its recursive definition is in the scalar loop of
tests/nodes/test_conv_transpose_exact.py, which this reference matches bit for bit).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from tests.reference.gemm_reference import block_tree_sum
from tests.reference.reference_linalg import fma

KB = 256  # the GEMM's block of the reduction over channels (docs/gemm.md)
AUTO_PADS = ("NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID")
TYPES = (np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64))


@dataclass(frozen=True)
class Geometry:
    """The resolved shape rules of one ConvTranspose: per spatial axis stride, dilation, begin pad, output
    size."""

    strides: tuple[int, ...]
    dilations: tuple[int, ...]
    begin: tuple[int, ...]
    out: tuple[int, ...]


def _ints(v: Sequence[int] | None, k: int, default: int, name: str) -> list[int]:
    out = [default] * k if v is None else [int(e) for e in v]
    if len(out) != k:
        raise ValueError(f"{name} must have {k} entries, got {list(out)}")
    return out


def _head_pad(total: int, auto_pad: str) -> int:
    """The begin pad from a total: SAME_UPPER floor(total/2), otherwise total - floor(total/2); 0 when the
    total is negative."""
    if total < 0:
        return 0
    return total // 2 if auto_pad == "SAME_UPPER" else total - total // 2


def geometry(
    in_shape: Sequence[int],
    kernel: Sequence[int],
    *,
    auto_pad: str = "NOTSET",
    dilations: Sequence[int] | None = None,
    output_padding: Sequence[int] | None = None,
    output_shape: Sequence[int] | None = None,
    pads: Sequence[int] | None = None,
    strides: Sequence[int] | None = None,
) -> Geometry:
    """docs/conv.md's shape rules (ONNX's): full_i = s_i (D_i - 1) + a_i + d_i (K_i - 1) + 1; output_shape
    overrides pads (total = full - O, begin pad by auto_pad); SAME_* gives O = D s; VALID O = full;
    NOTSET O = full - p - q. A ValueError for what the contract calls an error."""
    k = len(in_shape)
    if auto_pad not in AUTO_PADS:
        raise ValueError(f"auto_pad must be one of {AUTO_PADS}, got {auto_pad!r}")
    s = _ints(strides, k, 1, "strides")
    d = _ints(dilations, k, 1, "dilations")
    a = _ints(output_padding, k, 0, "output_padding")
    if min(s + d) < 1:
        raise ValueError(f"strides {s} and dilations {d} must be >= 1")
    for i in range(k):
        if not 0 <= a[i] < max(s[i], d[i]):
            raise ValueError(f"output_padding {a} must be in [0, max(stride, dilation)) on every axis")
    full = [s[i] * (in_shape[i] - 1) + a[i] + d[i] * (kernel[i] - 1) + 1 for i in range(k)]
    if output_shape is not None:
        out = _ints(output_shape, k, 0, "output_shape")
        totals = [full[i] - out[i] for i in range(k)]
        if any(totals[i] <= -s[i] for i in range(k)):
            raise ValueError(f"output_shape {out} is beyond what the taps reach (full size {full})")
        begin = [_head_pad(t, auto_pad) for t in totals]
    elif auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        out = [in_shape[i] * s[i] for i in range(k)]
        begin = [_head_pad(full[i] - out[i], auto_pad) for i in range(k)]
    elif auto_pad == "VALID":
        out, begin = full, [0] * k
    else:
        p = _ints(pads, 2 * k, 0, "pads")
        if min(p, default=0) < 0:
            raise ValueError(f"pads {p} must be >= 0")
        begin = p[:k]
        out = [full[i] - p[i] - p[k + i] for i in range(k)]
    if any(o < 1 for o in out):
        raise ValueError(f"output size {out} below 1")
    return Geometry(tuple(s), tuple(d), tuple(begin), tuple(out))


def tree(sums: list[np.ndarray]) -> np.ndarray:
    """docs/exact-linalg.md's tree over the block sums (earlier + later, one rounded addition each), as the
    binary counter of tests/reference/gemm_reference.py builds it."""
    with np.errstate(all="ignore"):
        return block_tree_sum(sums, lambda earlier, later: earlier + later)


def dot_channels(xs: np.ndarray, ws: np.ndarray) -> np.ndarray:
    """The GEMM's dot product over the channel axis: xs [..., Cg, L] (L outputs), ws [..., Cg, Mg] broadcast
    against it as [..., Mg, L]: blocks of 256 channels, one fma chain each from +0.0, the tree over blocks."""
    cg = xs.shape[-2]
    shape = np.broadcast_shapes(xs.shape[:-2], ws.shape[:-2]) + (ws.shape[-1], xs.shape[-1])
    sums = []
    for c0 in range(0, cg, KB):
        acc = np.zeros(shape, xs.dtype)
        for c in range(c0, min(c0 + KB, cg)):
            acc = fma(xs[..., c, None, :], ws[..., c, :, None], acc)
        sums.append(acc)
    return tree(sums) if sums else np.zeros(shape, xs.dtype)


def _taps(o: np.ndarray, begin: int, kk: int, s: int, d: int, size: int) -> tuple[np.ndarray, np.ndarray]:
    """Per output position o on one axis: whether kernel position kk contributes, and its input position j."""
    q = o + begin - kk * d
    ok = (q >= 0) & (q % s == 0) & (q // s < size)
    return ok, np.where(ok, q // s, 0)


def _problems(x: np.ndarray, w: np.ndarray, b: np.ndarray | None, group: int,
              kernel_shape: Sequence[int] | None) -> list[str]:
    """What makes X, W, B, group and kernel_shape unusable together (empty when nothing does)."""
    types_ok = x.dtype in TYPES and w.dtype == x.dtype and (b is None or b.dtype == x.dtype)
    ranks_ok = x.ndim in (3, 4, 5) and w.ndim == x.ndim
    b_type = None if b is None else b.dtype
    found = {
        f"X, W, B must share f16, f32 or f64: {x.dtype}, {w.dtype}, {b_type}": not types_ok,
        f"X and W must both have rank 3, 4 or 5: {x.shape}, {w.shape}": not ranks_ok,
    }
    if ranks_ok:
        m = group * w.shape[1]
        found[f"X {x.shape}, W {w.shape} and group {group} do not fit"] = (
            group < 1 or x.shape[1] != w.shape[0] or x.shape[1] % group != 0)
        found[f"kernel_shape {kernel_shape} is not W's spatial shape {w.shape[2:]}"] = (
            kernel_shape is not None and tuple(kernel_shape) != w.shape[2:])
        b_shape = None if b is None else b.shape
        found[f"B must have shape [{m}], got {b_shape}"] = b_shape is not None and b_shape != (m,)
    return [what for what, bad in found.items() if bad]


def conv_transpose_reference(x: np.ndarray, w: np.ndarray, b: np.ndarray | None = None, *, group: int = 1,
                             kernel_shape: Sequence[int] | None = None, **shape_attrs: Any) -> np.ndarray:
    """ONNX ConvTranspose in the contract's order. Attributes as ONNX names them (absent: left out or None);
    shape_attrs are `geometry`'s: auto_pad, dilations, output_padding, output_shape, pads, strides."""
    x, w = np.asarray(x), np.asarray(w)
    b = None if b is None else np.asarray(b)
    problems = _problems(x, w, b, group, kernel_shape)
    if problems:
        raise ValueError("; ".join(problems))
    if x.dtype == np.float16:  # f32's order on the widened values, rounded once
        wide = conv_transpose_reference(x.astype(np.float32), w.astype(np.float32),
                                        None if b is None else b.astype(np.float32), group=group,
                                        kernel_shape=kernel_shape, **shape_attrs)
        with np.errstate(over="ignore"):
            return wide.astype(np.float16)  # nearest even; NaN -> 0x7E00
    kernel = tuple(int(v) for v in w.shape[2:])
    geo = geometry(x.shape[2:], kernel, **shape_attrs)
    n, c = x.shape[:2]
    cg, mg = c // group, w.shape[1]
    in_sp = x.shape[2:]
    xr = x.reshape(n, group, cg, int(np.prod(in_sp)))  # [N, G, Cg, D1*...*Dk]
    wr = w.reshape(group, cg, mg, -1)  # [G, Cg, Mg, K1*...*Kk]
    acc = np.zeros((n, group, mg, int(np.prod(geo.out))), x.dtype)  # +0.0 for every output
    for t, kk in enumerate(np.ndindex(*kernel)):  # row-major, the last axis fastest
        axes = [_taps(np.arange(geo.out[i]), geo.begin[i], kk[i], geo.strides[i], geo.dilations[i], in_sp[i])
                for i in range(len(kernel))]
        ok = np.ones(geo.out, bool)
        flat_j = np.zeros(geo.out, np.int64)
        for i, (ok_i, j_i) in enumerate(axes):
            view = [1] * len(kernel)
            view[i] = -1
            ok = ok & ok_i.reshape(view)
            flat_j = flat_j * in_sp[i] + j_i.reshape(view)
        where = np.flatnonzero(ok)
        if where.size == 0:
            continue
        xs = xr[:, :, :, flat_j.ravel()[where]]  # [N, G, Cg, L]
        ws = wr[:, :, :, t][None]  # [1, G, Cg, Mg]
        part = dot_channels(xs, ws)  # P_kk, [N, G, Mg, L]
        with np.errstate(all="ignore"):
            acc[..., where] = acc[..., where] + part
    y = acc.reshape((n, group * mg) + geo.out)
    if b is not None:
        with np.errstate(all="ignore"):
            y = y + b.reshape((1, -1) + (1,) * len(kernel))
    y = np.array(y, x.dtype)
    y[np.isnan(y)] = np.nan  # the canonical quiet NaN of the type
    return y
