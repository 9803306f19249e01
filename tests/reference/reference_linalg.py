"""An independent reference for MatMul, Gemm, Softmax, LogSoftmax, LayerNormalization and the Reduce ops.

Written from docs/exact-linalg.md alone (the order of IEEE operations), in numpy, slow and literal:

- f32 fma (`fma32`): the product in f64 (exact: 24 + 24 bits), the f64 sum rounded to odd (the nearest sum
  plus a TwoSum error term: an inexact sum with an even last bit moves one ulp toward the exact value), then
  one rounding to f32; round to odd at 53 bits then to nearest at 24 is one correct rounding (Boldo and
  Melquiond 2008: 53 >= 24 + 2), subnormal f32 results included.
- f64 fma: MPFR (gmpy2) in the IEEE binary64 context, exactly rounded, element by element.
- f32 exp and log: MPFR in the IEEE binary32 context, i.e. correctly rounded (the library's f32 Exp and Log
  are). For f64 the contract allows the library's double-double exp and log 1 ulp; this reference uses the
  correctly rounded f64 values, so f64 Softmax, LogSoftmax, ReduceLogSum and ReduceLogSumExp are compared
  with a bound, everything else bit for bit.
- f32 Softmax and LogSoftmax (f32, f16, bf16 input) take their exponential from `rexp`, the contract's fixed
  sequence of f32 operations (each fma `fma32`), not from the correctly rounded exp; ReduceLogSumExp keeps
  the correctly rounded exp.
- f16 and bf16 inputs convert to f32 exactly, results round once (ties to even) to the input type.

Every function takes and returns numpy arrays of the operator's element types.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import gmpy2
import ml_dtypes
import numpy as np

F16 = np.dtype(np.float16)
BF16 = np.dtype(ml_dtypes.bfloat16)
F32 = np.dtype(np.float32)
F64 = np.dtype(np.float64)
FLOATS = (F16, BF16, F32, F64)

_CTX32 = gmpy2.ieee(32)
_CTX64 = gmpy2.ieee(64)


def acc_type(dtype: np.dtype) -> np.dtype:
    """The accumulation type: f64 for f64, f32 for f32, f16 and bf16."""
    dtype = np.dtype(dtype)
    if dtype not in FLOATS:
        raise TypeError(f"not a floating type: {dtype}")
    return F64 if dtype == F64 else F32


def to_acc(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x)
    return x.astype(acc_type(x.dtype))  # exact for every input type


# ---- fma ----------------------------------------------------------------------------------------------


def round_to_odd_sum(p: np.ndarray, c: np.ndarray) -> np.ndarray:
    """p + c (float64) rounded to odd: exact if representable, else the neighbour with an odd last bit."""
    p = np.asarray(p, dtype=F64)
    c = np.asarray(c, dtype=F64)
    with np.errstate(all="ignore"):
        s = p + c
        bv = s - p  # TwoSum (Knuth): e = (p + c) - s exactly, for finite p, c
        e = (p - (s - bv)) + (c - bv)
    s = np.array(s, dtype=F64, copy=True, order="C")
    e = np.broadcast_to(e, s.shape)
    even = (s.view(np.int64) & 1) == 0
    move = np.isfinite(s) & np.isfinite(e) & (e != 0) & even
    if np.any(move):
        toward = np.where(e > 0, np.inf, -np.inf)
        s = np.where(move, np.nextafter(s, toward), s)
    return s


def fma32(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """fl32(a*b + c), exactly rounded (ties to even), for float32 a, b, c (broadcast).

    a*b is exact in f64 (48 bits, exponent >= -298), p + c rounded to odd in f64 keeps the sticky
    information, and the cast to f32 rounds once more (to nearest), which gives the correct rounding of the
    exact a*b + c, subnormal results included (the f64 grid there is at least 2^29 times finer than f32's).
    inf and NaN follow IEEE (inf*0 and inf - inf give NaN); an exact zero sum is +0 unless both a*b and c are
    -0, as in the f64 addition.
    """
    a, b, c = (np.asarray(v, dtype=F32) for v in (a, b, c))
    with np.errstate(all="ignore"):
        p = a.astype(F64) * b.astype(F64)  # exact
        return round_to_odd_sum(p, c.astype(F64)).astype(F32)


fma_f32 = fma32  # the name the older tests use


def _fma64_one(a: float, b: float, c: float) -> float:
    return float(gmpy2.fma(gmpy2.mpfr(a), gmpy2.mpfr(b), gmpy2.mpfr(c)))


_fma64_u = np.frompyfunc(_fma64_one, 3, 1)


def fma_f64(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """fl64(a*b + c), exactly rounded (MPFR), for float64 a, b, c (broadcast)."""
    a, b, c = (np.asarray(v, dtype=F64) for v in (a, b, c))
    with gmpy2.context(_CTX64), np.errstate(all="ignore"):  # MPFR's own use of the FPU may raise flags
        return np.asarray(_fma64_u(a, b, c), dtype=F64)


def fma(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """The exactly rounded fma in the type of `c` (float32 or float64)."""
    return fma_f64(a, b, c) if np.asarray(c).dtype == F64 else fma32(a, b, c)


# ---- exp and log --------------------------------------------------------------------------------------


def _mpfr_map(fn: Callable[[object], object], x: np.ndarray, ctx: object) -> np.ndarray:
    x = np.asarray(x)
    flat = x.ravel()
    values, inverse = np.unique(flat, return_inverse=True)  # NaNs fold into one entry, fine
    out = np.empty(values.shape, dtype=x.dtype)
    with gmpy2.context(ctx):
        for i, v in enumerate(values):
            out[i] = float(fn(gmpy2.mpfr(float(v))))
    return out[inverse].reshape(x.shape)


def exp(x: np.ndarray) -> np.ndarray:
    """Correctly rounded exp in the type of x (float32 or float64)."""
    x = np.asarray(x)
    return _mpfr_map(gmpy2.exp, x, _CTX64 if x.dtype == F64 else _CTX32)


def log(x: np.ndarray) -> np.ndarray:
    """Correctly rounded log in the type of x (float32 or float64); log(-0) = -inf, log(x<0) = NaN."""
    x = np.asarray(x)
    return _mpfr_map(gmpy2.log, x, _CTX64 if x.dtype == F64 else _CTX32)


# ---- rexp: the f32 exponential of Softmax and LogSoftmax ----------------------------------------------

_S = np.float32(float.fromhex("0x1.8p23"))  # 12582912
_INVLN2 = np.float32(float.fromhex("0x1.715476p0"))
_LN2_HI = np.float32(float.fromhex("0x1.62e4p-1"))
_LN2_LO = np.float32(float.fromhex("0x1.7f7d1cp-20"))
_C0 = np.float32(float.fromhex("0x1p-1"))
_C1 = np.float32(float.fromhex("0x1.5554dep-3"))
_C2 = np.float32(float.fromhex("0x1.55556cp-5"))
_C3 = np.float32(float.fromhex("0x1.120adp-7"))
_C4 = np.float32(float.fromhex("0x1.6ca9aap-10"))
_ONE = np.float32(1.0)
_T_MIN = np.float32(-104.0)


def scale2(p: np.ndarray, kf: np.ndarray) -> np.ndarray:
    """fl32(p * 2^kf), one rounding, for float32 p and float32 integers kf (NaN kf: NaN).

    The product is exact in f64 (p's 24 bits at 2^-149 .. 2^128 times 2^kf, |kf| <= 300, stay inside f64's
    normal range), so the cast to f32 is the only rounding: exact while the result is a normal f32, rounded
    once to the 2^-149 grid (ties to even) below, 0 when under half of 2^-149.
    """
    p = np.asarray(p, dtype=F32)
    kf = np.asarray(kf, dtype=F32)
    if np.any(np.isfinite(kf) & ((kf != np.round(kf)) | (np.abs(kf) > 300))):
        raise ValueError("kf must be an integer in [-300, 300] (or NaN)")
    k = np.where(np.isfinite(kf), kf, F32.type(0.0)).astype(np.int64)
    with np.errstate(all="ignore"):
        r = np.ldexp(p.astype(F64), k)  # exact
        r = np.where(np.isnan(kf), np.nan, r)
        return r.astype(F32)


def rexp(t: np.ndarray) -> np.ndarray:
    """The contract's row exponential (docs/exact-linalg.md, Softmax), step by step in f32 (float32 t).

    Every line is one f32 operation; `fma32` is the correctly rounded fma. Not correctly rounded: the
    contract states at most 0.9432 ulp on [-104, 0] (0.9432447 at t = -5.19842577, tests/
    test_reference_fma32.py).
    """
    t = np.asarray(t, dtype=F32)
    with np.errstate(all="ignore"):
        u = np.where(t < _T_MIN, _T_MIN, t).astype(F32)  # a NaN stays NaN (the comparison is false)
        kf = (fma32(u, _INVLN2, _S) - _S).astype(F32)
        r = fma32(-kf, _LN2_HI, u)
        r = fma32(-kf, _LN2_LO, r)
        q = np.broadcast_to(_C4, r.shape).astype(F32)
        q = fma32(q, r, _C3)
        q = fma32(q, r, _C2)
        q = fma32(q, r, _C1)
        q = fma32(q, r, _C0)
        p = fma32(r, fma32(r, q, _ONE), _ONE)
        return scale2(p, kf)


# ---- sum16, prod16, max, min (over the last axis) ----------------------------------------------------


def _lanes16(v: np.ndarray, start: float, op: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> np.ndarray:
    v = np.asarray(v)
    s = np.full(v.shape[:-1] + (16,), start, dtype=v.dtype)
    with np.errstate(all="ignore"):
        for i in range(v.shape[-1]):
            s[..., i % 16] = op(s[..., i % 16], v[..., i])
        for h in (8, 4, 2, 1):
            s[..., :h] = op(s[..., :h], s[..., h:2 * h])
    return s[..., 0].copy()


def sum16(v: np.ndarray) -> np.ndarray:
    """sum16 over the last axis: 16 partials from -0.0, element i into lane i mod 16, the halving tree."""
    v = np.asarray(v)
    if v.shape[-1] == 0:
        return np.zeros(v.shape[:-1], dtype=v.dtype)  # +0
    return _lanes16(v, -0.0, np.add)


def prod16(v: np.ndarray) -> np.ndarray:
    """prod16 over the last axis: sum16's order with *, partials from 1.0 (n = 0 gives 1)."""
    return _lanes16(np.asarray(v), 1.0, np.multiply)


def _max_or_min(v: np.ndarray, biggest: bool) -> np.ndarray:
    v = np.asarray(v)
    if v.shape[-1] == 0:
        raise ValueError(f"{'max' if biggest else 'min'} of an empty sequence")
    m = (np.max if biggest else np.min)(v, axis=-1)
    if v.dtype.kind == "f":  # the zero that wins (+0 for max, -0 for min) if it stands in the row
        wins = np.any((v == 0) & (np.signbit(v) != biggest), axis=-1)
        win, lose = v.dtype.type(0.0 if biggest else -0.0), v.dtype.type(-0.0 if biggest else 0.0)
        m = np.where(m == 0, np.where(wins, win, lose), m)
    return m


def max_(v: np.ndarray) -> np.ndarray:
    """Max over the last axis: NaN if any NaN, +0 counted greater than -0."""
    return _max_or_min(v, True)


def min_(v: np.ndarray) -> np.ndarray:
    """Min over the last axis: NaN if any NaN, -0 counted less than +0."""
    return _max_or_min(v, False)


# ---- MatMul and Gemm ----------------------------------------------------------------------------------


GEMM_KB = 256  # the K block of MatMul and Gemm (docs/exact-linalg.md)


def _tree(sums: list[np.ndarray]) -> np.ndarray:
    """The block-sum tree of docs/exact-linalg.md: n sums, P the largest power of two below n (n > 1):
    tree(first P) + tree(the rest)."""
    if len(sums) == 1:
        return sums[0]
    p = 1
    while 2 * p < len(sums):
        p *= 2
    with np.errstate(all="ignore"):
        return _tree(sums[:p]) + _tree(sums[p:])


def _chain(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Per block of GEMM_KB k: acc = +0; for k: acc = fma(a[..., i, k], b[..., k, j], acc); the block sums in
    the tree; batch dims broadcast (type A)."""
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    m, k_dim, n = a.shape[-2], a.shape[-1], b.shape[-1]
    if b.shape[-2] != k_dim:
        raise ValueError(f"inner dimensions differ: {a.shape} x {b.shape}")
    sums = []
    for k0 in range(0, k_dim, GEMM_KB):
        acc = np.zeros(batch + (m, n), dtype=a.dtype)
        for k in range(k0, min(k0 + GEMM_KB, k_dim)):
            acc = fma(a[..., :, k, None], b[..., None, k, :], acc)
        sums.append(acc)
    return _tree(sums) if sums else np.zeros(batch + (m, n), dtype=a.dtype)


def matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """ONNX MatMul (1-D promotion, NumPy batch broadcasting), each element one fma chain over k."""
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype != b.dtype:
        raise TypeError(f"MatMul operands differ in type: {a.dtype}, {b.dtype}")
    aa, bb = to_acc(a), to_acc(b)
    a1, b1 = aa.ndim == 1, bb.ndim == 1
    if a1:
        aa = aa[None, :]
    if b1:
        bb = bb[:, None]
    r = _chain(aa, bb)
    if a1:
        r = r[..., 0, :]
    if b1:
        r = r[..., 0]
    return r.astype(a.dtype)


def gemm(a: np.ndarray, b: np.ndarray, c: np.ndarray | None = None, alpha: float = 1.0, beta: float = 1.0,
         trans_a: int = 0, trans_b: int = 0) -> np.ndarray:
    """ONNX Gemm: acc (the fma chain), r = alpha*acc, then r = r + (beta*c) with c broadcast to [M, N]."""
    a, b = np.asarray(a), np.asarray(b)
    dt = a.dtype
    A = acc_type(dt)
    aa, bb = to_acc(a), to_acc(b)
    if trans_a:
        aa = aa.T
    if trans_b:
        bb = bb.T
    acc = _chain(aa, bb)
    al = A.type(np.float32(alpha))  # the f32 attribute, widened exactly
    with np.errstate(all="ignore"):
        r = al * acc
        if c is not None:
            cc = np.broadcast_to(to_acc(np.asarray(c)), r.shape)
            r = r + (A.type(np.float32(beta)) * cc)
    return r.astype(dt)


# ---- Softmax and LogSoftmax ---------------------------------------------------------------------------


def _rows(x: np.ndarray, axis: int, opset: int) -> tuple[np.ndarray, Callable[[np.ndarray], np.ndarray]]:
    """The rows (last axis) the operator works on, and the function putting row results back in x's shape."""
    axis = axis + x.ndim if axis < 0 else axis
    if not 0 <= axis < max(1, x.ndim):
        raise ValueError(f"axis {axis} out of range for rank {x.ndim}")
    if opset >= 13:
        moved = np.moveaxis(x, axis, -1)
        return moved, lambda y: np.moveaxis(y, -1, axis)
    rows = int(np.prod(x.shape[:axis], dtype=np.int64))
    flat = x.reshape(rows, int(np.prod(x.shape[axis:], dtype=np.int64)))  # -1 cannot be solved when rows = 0
    return flat, lambda y: y.reshape(x.shape)


def _softmax(x: np.ndarray, axis: int, opset: int, log_: bool) -> np.ndarray:
    x = np.asarray(x)
    rows, back = _rows(to_acc(x), axis, opset)
    if rows.shape[-1] == 0:
        return x.copy()
    m = max_(rows)
    with np.errstate(all="ignore"):
        d = rows - m[..., None]
        e = exp(d) if rows.dtype == F64 else rexp(d)  # f32 accumulation: the contract's rexp
        s = sum16(e)
        y = d - log(s)[..., None] if log_ else e * (s.dtype.type(1.0) / s)[..., None]  # y = e * (1 / s)
    y = np.where(np.isfinite(m)[..., None], y, np.nan).astype(rows.dtype)
    return back(y).astype(x.dtype)


def softmax(x: np.ndarray, axis: int = -1, opset: int = 13) -> np.ndarray:
    return _softmax(x, axis, opset, log_=False)


def log_softmax(x: np.ndarray, axis: int = -1, opset: int = 13) -> np.ndarray:
    return _softmax(x, axis, opset, log_=True)


# ---- LayerNormalization -------------------------------------------------------------------------------


def norm_rows(x: np.ndarray, axis: int, *params: np.ndarray | None
              ) -> tuple[np.dtype, np.ndarray, list[np.ndarray | None], tuple[int, ...]]:
    """x as rows of its dimensions from `axis` on, in type A, and each parameter (Scale, B; None stays None)
    broadcast to one row: (A, rows, parameters, the statistics' shape: x's with 1 from axis on)."""
    x = np.asarray(x)
    A = acc_type(x.dtype)
    axis = axis + x.ndim if axis < 0 else axis
    norm_shape = x.shape[axis:]
    n = int(np.prod(norm_shape, dtype=np.int64))
    rows = to_acc(x).reshape(x.shape[:axis] + (n,))
    ps = [None if p is None else np.broadcast_to(to_acc(np.asarray(p)), norm_shape).reshape(n)
          for p in params]
    return A, rows, ps, x.shape[:axis] + (1,) * len(norm_shape)


def layer_norm(x: np.ndarray, scale: np.ndarray, bias: np.ndarray | None = None, axis: int = -1,
               epsilon: float = 1e-5) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """ONNX LayerNormalization (stash_type 1): (Y, Mean, InvStdDev); Mean and InvStdDev in type A."""
    x = np.asarray(x)
    A, xr, (sc, bi), stats_shape = norm_rows(x, axis, scale, bias)
    nA = A.type(xr.shape[-1])
    eps = A.type(np.float32(epsilon))
    with np.errstate(all="ignore"):
        mean = sum16(xr) / nA
        d = xr - mean[..., None]
        var = sum16(d * d) / nA
        inv = A.type(1.0) / np.sqrt(var + eps)
        y = (d * inv[..., None]) * sc
        if bi is not None:
            y = y + bi
    return (y.reshape(x.shape).astype(x.dtype), mean.astype(A).reshape(stats_shape),
            inv.astype(A).reshape(stats_shape))


# ---- The Reduce operators -----------------------------------------------------------------------------

REDUCE_OPS = ("ReduceSum", "ReduceMean", "ReduceProd", "ReduceSumSquare", "ReduceL1", "ReduceL2",
              "ReduceLogSum", "ReduceLogSumExp", "ReduceMax", "ReduceMin")
# The ops whose result uses exp or log (bit for bit against this reference only for f32, f16, bf16).
REDUCE_TRANSCENDENTAL = ("ReduceLogSum", "ReduceLogSumExp")
# The ops the contract defines for integer inputs (wrapping sums and products, truncating mean).
REDUCE_INTEGER = ("ReduceSum", "ReduceMean", "ReduceProd", "ReduceSumSquare", "ReduceL1", "ReduceMax",
                  "ReduceMin")


def _int_mean(s: np.ndarray, n: int) -> np.ndarray:
    out = [(abs(int(v)) // n) * (1 if int(v) >= 0 else -1) for v in s.ravel()]
    return np.array(out, dtype=np.int64).astype(s.dtype).reshape(s.shape)


def _reduce_rows_int(op: str, v: np.ndarray) -> np.ndarray:
    dt = v.dtype
    with np.errstate(all="ignore"):
        if op == "ReduceMax":
            return np.max(v, axis=-1)
        if op == "ReduceMin":
            return np.min(v, axis=-1)
        if op == "ReduceProd":
            return np.prod(v, axis=-1, dtype=dt)
        if op == "ReduceSumSquare":
            return np.sum(v * v, axis=-1, dtype=dt)
        if op == "ReduceL1":
            return np.sum(np.abs(v), axis=-1, dtype=dt)
        s = np.sum(v, axis=-1, dtype=dt)
        if op == "ReduceSum":
            return s
        if op == "ReduceMean":
            return _int_mean(s, v.shape[-1])
    raise ValueError(f"{op} is not defined for integer input {dt}")


def _reduce_rows(op: str, v: np.ndarray) -> np.ndarray:
    """One Reduce op over the last axis of v (type A)."""
    A = v.dtype
    with np.errstate(all="ignore"):
        if op == "ReduceSum":
            return sum16(v)
        if op == "ReduceMean":
            return sum16(v) / A.type(v.shape[-1])
        if op == "ReduceProd":
            return prod16(v)
        if op == "ReduceSumSquare":
            return sum16(v * v)
        if op == "ReduceL1":
            return sum16(np.abs(v))
        if op == "ReduceL2":
            return np.sqrt(sum16(v * v))
        if op == "ReduceLogSum":
            return log(sum16(v))
        if op == "ReduceLogSumExp":
            m = max_(v)
            finite = np.isfinite(m)
            shift = np.where(finite, m, A.type(0.0))
            s = log(sum16(exp(v - shift[..., None])))
            return np.where(finite, m + s, s)
        if op == "ReduceMax":
            return max_(v)
        if op == "ReduceMin":
            return min_(v)
    raise ValueError(f"unknown reduce op {op}")


def reduce(op: str, x: np.ndarray, axes: Sequence[int] | None = None, keepdims: int = 1) -> np.ndarray:
    """A Reduce op over `axes` (None or empty: all axes), the reduced elements in row-major order of the
    reduced axes taken in increasing axis order (the last reduced axis varies fastest)."""
    x = np.asarray(x)
    r = x.ndim
    ax = sorted({a + r if a < 0 else a for a in (axes or range(r))})
    if any(not 0 <= a < r for a in ax):
        raise ValueError(f"axes {axes} out of range for rank {r}")
    kept = [a for a in range(r) if a not in ax]
    moved = np.transpose(x, kept + ax)
    kept_shape = tuple(x.shape[a] for a in kept)
    n = int(np.prod([x.shape[a] for a in ax], dtype=np.int64))
    rows = moved.reshape(kept_shape + (n,))
    if x.dtype.kind in "iu":
        out = _reduce_rows_int(op, rows).astype(x.dtype)
    else:
        out = _reduce_rows(op, to_acc(rows)).astype(x.dtype)
    if keepdims:
        out = out.reshape(tuple(1 if a in ax else x.shape[a] for a in range(r)))
    return out


# ---- comparison -------------------------------------------------------------------------------------


def bits_equal(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """Elementwise: the same bits, or both NaN (NaN payloads are not part of the contract)."""
    got, want = np.asarray(got), np.asarray(want)
    if got.dtype != want.dtype or got.shape != want.shape:
        raise AssertionError(f"type/shape differ: {got.dtype}{got.shape} vs {want.dtype}{want.shape}")
    if got.dtype.kind != "f" and got.dtype != BF16:
        return got == want
    u = np.dtype(f"u{got.dtype.itemsize}")
    same = got.view(u) == want.view(u)
    g64, w64 = got.astype(F64), want.astype(F64)
    return same | (np.isnan(g64) & np.isnan(w64))
