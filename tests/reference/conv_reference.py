"""An independent reference for the exact Conv (docs/conv.md, "Conv arithmetic (exact mode)"), written from
that contract and the ONNX Conv spec alone (no library code read).

X [N, C, D1..Dk] is padded with +0.0 (pads resolved from auto_pad by ONNX's rules); each output element
Y[n, m, o] (g = m div (M/G)) is the sum over t = (c, kk1..kkk), c outermost, kernel positions row-major, of
Xp[n, g*(C/G) + c, o_i*s_i + kk_i*d_i] * W[m, c, kk]: t cut into blocks of 256, per block one fma chain
from +0.0 in increasing t, the block sums added in the binary-counter tree of MatMul and Gemm
(docs/exact-linalg.md), then y = acc + B[m] (one rounded add), in f32 for f32 and f16 (f16 widened exactly,
the result rounded once to f16 after the bias add) and f64 for f64; a NaN result is the canonical quiet NaN.

The chain is vectorised over every output element of every group at once: one fma call per term t. The fma
is exact: f32 is tests/reference/reference_linalg.py's `fma` (the product exact in f64, the f64 sum rounded to
odd, then one rounding to f32: a correct rounding, checked against MPFR by test_reference_fma32.py), f64 is
MPFR's (gmpy2) element by element; the tree is tests/reference/gemm_reference.py's `block_tree_sum`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tests.reference.gemm_reference import block_tree_sum
from tests.reference.reference_linalg import fma

KB = 256  # the block of the reduction (docs/gemm.md)
AUTO_PADS = ("NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID")
TYPES = (np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64))


def resolve_pads(
    auto_pad: str,
    in_shape: Sequence[int],
    kernel: Sequence[int],
    strides: Sequence[int],
    dilations: Sequence[int],
    pads: Sequence[int] | None,
) -> tuple[list[int], list[int]]:
    """(begin, end) pads per spatial axis by ONNX's rules: NOTSET takes `pads` (default zeros), VALID none,
    SAME_* pads to an output of ceil(D/s), the odd pad at the end (UPPER) or the beginning (LOWER)."""
    k = len(in_shape)
    if auto_pad not in AUTO_PADS:
        raise ValueError(f"auto_pad must be one of {AUTO_PADS}, got {auto_pad!r}")
    if auto_pad == "NOTSET":
        p = [0] * (2 * k) if pads is None else [int(v) for v in pads]
        if len(p) != 2 * k or any(v < 0 for v in p):
            raise ValueError(f"pads must be {2 * k} non-negative values, got {pads}")
        return p[:k], p[k:]
    if auto_pad == "VALID":
        return [0] * k, [0] * k
    begin, end = [], []
    for d, kk, s, dil in zip(in_shape, kernel, strides, dilations):
        out = -(-d // s)
        total = max(0, (out - 1) * s + (kk - 1) * dil + 1 - d)
        head = (total + 1) // 2 if auto_pad == "SAME_LOWER" else total // 2
        begin.append(head)
        end.append(total - head)
    return begin, end


def output_shape(
    in_shape: Sequence[int],
    kernel: Sequence[int],
    strides: Sequence[int],
    dilations: Sequence[int],
    begin: Sequence[int],
    end: Sequence[int],
) -> list[int]:
    """O_i = floor((D_i + p_i + q_i - d_i*(K_i - 1) - 1) / s_i) + 1; a ValueError when one is below 1."""
    out = [(d + p + q - dil * (kk - 1) - 1) // s + 1 for d, kk, s, dil, p, q in
           zip(in_shape, kernel, strides, dilations, begin, end)]
    if any(o < 1 for o in out):
        raise ValueError(f"the padded input {list(in_shape)} is smaller than the dilated kernel "
                         f"{list(kernel)}")
    return out


def _check(x: np.ndarray, w: np.ndarray, b: np.ndarray | None, group: int, kernel_shape: Sequence[int] | None
           ) -> None:
    if x.dtype not in TYPES or w.dtype != x.dtype or (b is not None and b.dtype != x.dtype):
        raise TypeError(f"X, W, B must share one of f16/f32/f64: {x.dtype}, {w.dtype}, "
                        f"{None if b is None else b.dtype}")
    if x.ndim not in (3, 4, 5) or w.ndim != x.ndim:
        raise ValueError(f"X and W must both have rank 3, 4 or 5: {x.shape}, {w.shape}")
    m, cg = w.shape[0], w.shape[1]
    if group < 1 or x.shape[1] != cg * group or m % group:
        raise ValueError(f"X {x.shape}, W {w.shape} and group {group} do not fit")
    if kernel_shape is not None and tuple(kernel_shape) != w.shape[2:]:
        raise ValueError(f"kernel_shape {list(kernel_shape)} is not W's spatial shape {w.shape[2:]}")
    if b is not None and b.shape != (m,):
        raise ValueError(f"B must have shape [{m}], got {b.shape}")


def conv_reference(
    x: np.ndarray,
    w: np.ndarray,
    b: np.ndarray | None = None,
    *,
    auto_pad: str = "NOTSET",
    dilations: Sequence[int] | None = None,
    group: int = 1,
    kernel_shape: Sequence[int] | None = None,
    pads: Sequence[int] | None = None,
    strides: Sequence[int] | None = None,
) -> np.ndarray:
    """ONNX Conv (attributes as ONNX names them, None for absent) in the contract's order of operations."""
    x, w = np.asarray(x), np.asarray(w)
    b = None if b is None else np.asarray(b)
    _check(x, w, b, group, kernel_shape)
    k = x.ndim - 2
    kernel = list(w.shape[2:])
    strides = [1] * k if strides is None else [int(v) for v in strides]
    dilations = [1] * k if dilations is None else [int(v) for v in dilations]
    if len(strides) != k or len(dilations) != k or min(strides + dilations) < 1:
        raise ValueError(f"strides {strides} and dilations {dilations} must be {k} positive values")
    begin, end = resolve_pads(auto_pad, x.shape[2:], kernel, strides, dilations, pads)
    out = output_shape(x.shape[2:], kernel, strides, dilations, begin, end)

    acc_t = np.dtype(np.float64) if x.dtype == np.float64 else np.dtype(np.float32)
    n = x.shape[0]
    m, cg = w.shape[:2]
    mg = m // group
    xp = np.pad(x.astype(acc_t), [(0, 0), (0, 0)] + list(zip(begin, end)))  # +0.0 outside
    xp = xp.reshape((n, group, cg) + xp.shape[2:])  # [N, G, C/G, P...]
    wg = w.astype(acc_t).reshape((group, mg, cg) + tuple(kernel))  # [G, M/G, C/G, K...]
    spatial_ones = (1,) * k

    def term(t: int) -> tuple[np.ndarray, np.ndarray]:
        """x_t for every output element [N, G, 1, O...] and w_t for every m [1, G, M/G, 1...]."""
        c_i, rest = divmod(t, int(np.prod(kernel)))
        kk = np.unravel_index(rest, kernel)
        first = [int(kk[i]) * dilations[i] for i in range(k)]
        taps = tuple(slice(first[i], first[i] + (out[i] - 1) * strides[i] + 1, strides[i]) for i in range(k))
        xt = xp[(slice(None), slice(None), c_i) + taps][:, :, None]
        wt = wg[(slice(None), slice(None), c_i) + tuple(int(v) for v in kk)]
        return xt, wt.reshape((1, group, mg) + spatial_ones)

    shape = (n, group, mg) + tuple(out)
    n_terms = cg * int(np.prod(kernel))
    sums = []
    for t0 in range(0, n_terms, KB):
        acc = np.zeros(shape, acc_t)
        for t in range(t0, min(t0 + KB, n_terms)):
            xt, wt = term(t)
            acc = fma(xt, wt, acc)
        sums.append(acc)
    with np.errstate(all="ignore"):
        y = block_tree_sum(sums, lambda lo, hi: lo + hi) if sums else np.zeros(shape, acc_t)
        y = y.reshape((n, m) + tuple(out))
        if b is not None:
            y = y + b.astype(acc_t).reshape((1, m) + spatial_ones)
        y = y.astype(x.dtype)  # f16: one rounding to nearest even
    y[np.isnan(y)] = np.nan  # the canonical quiet NaN of the type
    return y
