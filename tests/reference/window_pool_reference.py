"""An independent reference for MaxPool and AveragePool (the windowed pools), written from the contract in
docs/pooling-norm.md ("MaxPool and AveragePool (windowed pools)") alone, no library code read.

Shape, per spatial axis (kernel K, stride s, dilation d, input D, dilated span dk = d (K - 1) + 1): NOTSET
takes the pads (b, e), VALID none; L = D + b + e - dk must be >= 0; ceil_mode 0 gives O = floor(L / s) + 1,
ceil_mode 1 gives O = ceil(L / s) + 1, less one when (O - 1) s >= D + b. SAME_UPPER / SAME_LOWER (d = 1 only):
O = ceil(D / s), total = max(0, (O - 1) s + K - D), b = floor(total / 2) (UPPER) or ceil(total / 2) (LOWER), e
= total - b.

Taps of output o on an axis: p_j = o s - b + j d, j = 0 .. K - 1; real when 0 <= p_j < D, in the padded range
when -b <= p_j < D + e. The window is the product of the axes' taps in window order (row-major over j, the
last axis fastest); only real taps are read.

MaxPool Y: over the real taps, in the input type: floats NaN (canonical) if any tap is NaN, else the largest,
+0 above -0, -inf for no real tap; int8/uint8 the largest, the type's least value for no real tap. Indices:
the first real tap in window order whose value is Y (the first NaN for a NaN Y, the first tap with Y's bits
otherwise), flat over X: (n C + c) prod(D) + q, q row-major (storage_order 0) or column-major (1); -1 for no
real tap.

AveragePool Y: in A (f32 for f16/f32, f64 for f64), s = +0, then s = s + x for each real tap in window order
(one rounding each), Y = s / cnt (one rounding), cnt the product over the axes of the real taps
(count_include_pad 0) or of the taps in the padded range (1), converted to A exactly; f16 is one rounding of
the f32 Y; a NaN Y is the canonical quiet NaN.

The windows are evaluated for every output element at once, one tap position of window order at a time: each
numpy step on f32 / f64 arrays is one IEEE operation rounded to nearest even, so the order is the contract's.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

AUTO_PADS = ("NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID")
F16, F32, F64 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)
I8, U8 = np.dtype(np.int8), np.dtype(np.uint8)
FLOATS = (F16, F32, F64)
MAX_POOL_TYPES = FLOATS + (I8, U8)
AVERAGE_POOL_TYPES = FLOATS


@dataclass(frozen=True)
class Axis:
    """One spatial axis's geometry: input extent D, kernel K, stride s, dilation d, pads b (begin) and
    e (end), output extent O."""

    size: int  # D
    kernel: int  # K
    stride: int  # s
    dilation: int  # d
    begin: int  # b
    end: int  # e
    out: int  # O

    def taps(self, j: int) -> np.ndarray:
        """p_j for every output position o: o s - b + j d."""
        return np.arange(self.out, dtype=np.int64) * self.stride - self.begin + j * self.dilation

    def real(self, p: np.ndarray) -> np.ndarray:
        return (p >= 0) & (p < self.size)

    def in_padded_range(self, p: np.ndarray) -> np.ndarray:
        return (p >= -self.begin) & (p < self.size + self.end)


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def geometry(
    spatial: Sequence[int],
    kernel_shape: Sequence[int],
    strides: Sequence[int] | None = None,
    dilations: Sequence[int] | None = None,
    pads: Sequence[int] | None = None,
    auto_pad: str = "NOTSET",
    ceil_mode: int = 0,
) -> list[Axis]:
    """The per-axis geometry by the contract's shape rules; a ValueError for what the contract refuses."""
    k = len(kernel_shape)
    if k not in (1, 2, 3) or len(spatial) != k:
        raise ValueError(f"kernel_shape {list(kernel_shape)} does not fit spatial dims {list(spatial)}")
    kernel = [int(v) for v in kernel_shape]
    strides_ = [1] * k if strides is None else [int(v) for v in strides]
    dil = [1] * k if dilations is None else [int(v) for v in dilations]
    pads_ = [0] * (2 * k) if pads is None else [int(v) for v in pads]
    if min(kernel) < 1 or len(strides_) != k or min(strides_) < 1 or len(dil) != k or min(dil) < 1:
        raise ValueError(f"kernel_shape {kernel}, strides {strides_}, dilations {dil}: k values >= 1 each")
    if auto_pad not in AUTO_PADS:
        raise ValueError(f"auto_pad must be one of {AUTO_PADS}, got {auto_pad!r}")
    if ceil_mode not in (0, 1):
        raise ValueError(f"ceil_mode must be 0 or 1, got {ceil_mode}")
    if auto_pad == "NOTSET" and (len(pads_) != 2 * k or min(pads_) < 0
                                 or any(pads_[i] >= kernel[i % k] for i in range(2 * k))):
        raise ValueError(f"pads {pads_}: 2k values, each >= 0 and < its axis's kernel {kernel}")
    axes = []
    for i in range(k):
        size, kern, s, d = int(spatial[i]), kernel[i], strides_[i], dil[i]
        if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
            if d != 1:
                raise ValueError(f"{auto_pad} with dilation {d} > 1 is not served")
            out = _ceil_div(size, s)
            total = max(0, (out - 1) * s + kern - size)
            b = total // 2 if auto_pad == "SAME_UPPER" else _ceil_div(total, 2)
            axes.append(Axis(size, kern, s, d, b, total - b, out))
            continue
        b, e = (pads_[i], pads_[k + i]) if auto_pad == "NOTSET" else (0, 0)
        span = size + b + e - (d * (kern - 1) + 1)  # L
        if span < 0:
            raise ValueError(f"axis {i}: the kernel spans more than the padded input (L = {span})")
        if ceil_mode == 0:
            out = span // s + 1
        else:
            out = _ceil_div(span, s) + 1
            if (out - 1) * s >= size + b:
                out -= 1  # the last window would start in the end padding
        axes.append(Axis(size, kern, s, d, b, e, out))
    return axes


def _window_order(axes: Sequence[Axis]) -> Iterator[tuple[int, ...]]:
    """The window's tap offsets (j_1, ..., j_k), row-major, the last axis fastest."""
    return itertools.product(*(range(a.kernel) for a in axes))


def _outer(parts: Sequence[np.ndarray]) -> np.ndarray:
    """Per-axis arrays [O_i] combined into [O_1, ..., O_k] by a logical AND (bool) or a product (int)."""
    k = len(parts)
    out = parts[0].reshape((-1,) + (1,) * (k - 1))
    for i in range(1, k):
        p = parts[i].reshape((1,) * i + (-1,) + (1,) * (k - 1 - i))
        out = out & p if out.dtype == bool else out * p
    return out


def _tap(x: np.ndarray, axes: Sequence[Axis], j: tuple[int, ...]
         ) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    """The tap j of every output window: the values [N, C, O...] (read at clipped positions, meaningful only
    where real), the real mask [O...] and the positions p per axis."""
    ps = [a.taps(jj) for a, jj in zip(axes, j)]
    real = _outer([a.real(p) for a, p in zip(axes, ps)])
    clipped = [np.clip(p, 0, max(a.size - 1, 0)) for a, p in zip(axes, ps)]
    if x.size == 0:
        vals = np.zeros(x.shape[:2] + real.shape, x.dtype)
    else:
        vals = x[(slice(None), slice(None)) + np.ix_(*clipped)]
    return vals, real, ps


def _spatial_offset(axes: Sequence[Axis], ps: Sequence[np.ndarray], storage_order: int) -> np.ndarray:
    """q of each tap [O...]: row-major (storage_order 0) or column-major (1) over the spatial dims."""
    k = len(axes)
    q = np.zeros(tuple(a.out for a in axes), np.int64)
    for i in range(k):
        others = range(i + 1, k) if storage_order == 0 else range(i)
        stride = int(np.prod([axes[m].size for m in others], dtype=np.int64))
        q = q + _outer([np.ones(a.out, np.int64) if m != i else ps[i] * stride for m, a in enumerate(axes)])
    return q


GEOMETRY_ATTRS = ("kernel_shape", "strides", "dilations", "pads", "auto_pad", "ceil_mode")


def _prepare(x: np.ndarray, types: Sequence[np.dtype], flag: str, attrs: dict[str, object]
             ) -> tuple[np.ndarray, list[Axis], int]:
    """X checked against the served types and the rank kernel_shape fixes, the geometry from the ONNX
    attributes (the names ONNX gives them) and the op's own 0/1 attribute `flag` (default 0)."""
    unknown = set(attrs) - set(GEOMETRY_ATTRS) - {flag}
    if unknown or "kernel_shape" not in attrs:
        raise ValueError(f"attributes {sorted(attrs)}: kernel_shape is required; unknown: {sorted(unknown)}")
    x = np.asarray(x)
    kernel_shape = [int(v) for v in attrs["kernel_shape"]]  # type: ignore[attr-defined]
    if x.dtype not in types:
        raise TypeError(f"X of type {x.dtype} is not served (one of {[str(t) for t in types]})")
    if x.ndim != len(kernel_shape) + 2:
        raise ValueError(f"X has rank {x.ndim}; kernel_shape {kernel_shape} needs {len(kernel_shape) + 2}")
    value = int(attrs.get(flag, 0))  # type: ignore[call-overload]
    if value not in (0, 1):
        raise ValueError(f"{flag} must be 0 or 1, got {value}")
    geo = {k: v for k, v in attrs.items() if k in GEOMETRY_ATTRS}
    return x, geometry(x.shape[2:], **geo), value  # type: ignore[arg-type]


def max_pool(x: np.ndarray, **attrs: object) -> tuple[np.ndarray, np.ndarray]:
    """MaxPool's (Y, Indices) by the contract; `attrs` as ONNX names them (kernel_shape required, strides,
    dilations, pads, auto_pad, ceil_mode, storage_order)."""
    x, axes, storage_order = _prepare(x, MAX_POOL_TYPES, "storage_order", attrs)
    n, c = x.shape[:2]
    shape = (n, c) + tuple(a.out for a in axes)
    is_float = x.dtype in FLOATS
    least = -np.inf if is_float else np.iinfo(x.dtype).min
    best = np.full(shape, least, x.dtype)
    any_nan = np.zeros(shape, bool)
    # Y: a pass over the real taps (no arithmetic; the order does not matter for the value).
    for j in _window_order(axes):
        v, real, _ = _tap(x, axes, j)
        if is_float:
            any_nan |= real & np.isnan(v)
            larger = (v > best) | ((v == 0) & (best == 0) & ~np.signbit(v))
        else:
            larger = v > best
        best = np.where(real & larger, v, best)
    if is_float:
        best[any_nan] = np.nan  # the canonical quiet NaN of the type
    # Indices: the first real tap in window order whose value is Y.
    u = np.dtype(f"u{x.dtype.itemsize}")
    plane = int(np.prod(x.shape[2:], dtype=np.int64))
    base = (np.arange(n * c, dtype=np.int64) * plane).reshape((n, c) + (1,) * len(axes))
    idx = np.full(shape, -1, np.int64)
    for j in _window_order(axes):
        v, real, ps = _tap(x, axes, j)
        hit = np.isnan(v) & any_nan if is_float else np.zeros(shape, bool)
        hit = hit | (~any_nan & (v.view(u) == best.view(u)))
        take = real & hit & (idx < 0)
        idx = np.where(take, base + _spatial_offset(axes, ps, storage_order), idx)
    return best, idx


def average_pool(x: np.ndarray, **attrs: object) -> np.ndarray:
    """AveragePool's Y by the contract: a sequential sum from +0 in window order, one division by cnt;
    `attrs` as ONNX names them (kernel_shape required, strides, dilations, pads, auto_pad, ceil_mode,
    count_include_pad)."""
    x, axes, count_include_pad = _prepare(x, AVERAGE_POOL_TYPES, "count_include_pad", attrs)
    acc_t = F64 if x.dtype == F64 else F32
    xa = x.astype(acc_t)  # f16 -> f32 exactly
    shape = x.shape[:2] + tuple(a.out for a in axes)
    s = np.zeros(shape, acc_t)  # +0
    with np.errstate(all="ignore"):
        for j in _window_order(axes):
            v, real, _ = _tap(xa, axes, j)
            s = np.where(real, s + v, s)  # one rounding per real tap
        counts = []
        for a in axes:
            taps = np.stack([a.taps(jj) for jj in range(a.kernel)])  # [K, O]
            inside = a.in_padded_range(taps) if count_include_pad else a.real(taps)
            counts.append(inside.sum(axis=0).astype(np.int64))
        cnt = _outer(counts)
        y = s / cnt.astype(acc_t)  # cnt exact in A; one rounding
        y = y.astype(x.dtype)  # f16: one rounding, ties to even
    y[np.isnan(y)] = np.nan  # the canonical quiet NaN of the type
    return y
