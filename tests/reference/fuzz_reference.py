"""A small, independent NumPy reference of every operator of the spec (docs ops-elementwise), for the fuzzer.

Written from the spec's text only (never from the C kernels). `expected(op, inputs, attrs)` returns the
spec's result; how to compare it with the library's (bit-exact, NaN-as-NaN, or within a tolerance) is
`comparison(op, ...)`. Cases the spec leaves open are reported as `Open` so the fuzzer skips the comparison
of those elements (never the cross-path bit identity). The float64 formulas of the transcendental operators
are the table of tests/reference/unary64.py, which reference.py shares.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from tests.reference.unary64 import PLAIN64, act64, gelu64

F16, F32, F64 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)
FLOATS = (F16, F32, F64)
BOOL = np.dtype(np.bool_)
CANON = {F16: 0x7E00, F32: 0x7FC00000, F64: 0x7FF8000000000000}
TRANSCENDENTAL = frozenset(
    {"Exp", "Log", "Tanh", "Sigmoid", "Erf", "Gelu", "Sin", "Cos", "Softplus", "Mish", "Elu", "Selu", "Celu"}
)
# The sign of a zero produced by a clamp is not specified (clamp(-0, 0, 1)).
ZERO_SIGN_OPEN = frozenset({"HardSigmoid"})
# Spec: Pow is "not exact" (platform pow).
INEXACT = TRANSCENDENTAL | {"Pow"}


class Unsupported(ValueError):
    """The spec rejects this node."""


def is_float(dt: np.dtype) -> bool:
    return np.dtype(dt) in FLOATS


def _ubits(x: np.ndarray) -> np.ndarray:
    x = np.ascontiguousarray(x)
    return x.view(np.uint8) if x.dtype == BOOL else x.view(np.dtype(f"u{x.dtype.itemsize}"))


def _work(dt: np.dtype) -> np.dtype:
    """Half precision is computed in single precision and rounded once."""
    return F32 if dt == F16 else dt


def _ints(x: np.ndarray) -> list[int]:
    return [int(v) for v in np.asarray(x).ravel().tolist()]


def _wrap_to(vals: Sequence[int], dt: np.dtype, shape: tuple[int, ...]) -> np.ndarray:
    n = dt.itemsize * 8
    u = np.array([v % (1 << n) for v in vals], dtype=np.dtype(f"u{dt.itemsize}")).reshape(shape)
    return u.view(dt)


def _int_binary(op: str, a: np.ndarray, b: np.ndarray, fmod: int) -> np.ndarray:
    a, b = np.broadcast_arrays(a, b)
    out: list[int] = []
    for x, y in zip(_ints(a), _ints(b)):
        if op == "Add":
            r = x + y
        elif op == "Sub":
            r = x - y
        elif op == "Mul":
            r = x * y
        elif y == 0:
            r = 0  # x / 0 and x % 0 are 0
        elif op == "Div":
            q = abs(x) // abs(y)
            r = q if (x < 0) == (y < 0) else -q  # toward zero; MIN / -1 wraps below
        else:  # Mod
            q = abs(x) // abs(y)
            t = x - (q if (x < 0) == (y < 0) else -q) * y  # sign of the dividend
            r = t if fmod == 1 else (t + y if t != 0 and (t < 0) != (y < 0) else t)
        out.append(r)
    return _wrap_to(out, a.dtype, a.shape)


def _float_binary(op: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    dt = a.dtype
    w = _work(dt)
    f = {"Add": np.add, "Sub": np.subtract, "Mul": np.multiply, "Div": np.divide, "Mod": np.fmod}[op]
    with np.errstate(all="ignore"):
        return np.asarray(f(a.astype(w), b.astype(w))).astype(dt)


def _maxmin(a: np.ndarray, b: np.ndarray, is_max: bool) -> np.ndarray:
    a, b = np.broadcast_arrays(a, b)
    with np.errstate(all="ignore"):
        first = (a > b) if is_max else (a < b)  # on equality: the second operand
    if is_float(a.dtype):
        first = (first & ~np.isnan(b)) | np.isnan(a)
    return np.where(first, a, b)


def _saturate_trunc(x: np.ndarray, dt: np.dtype) -> np.ndarray:
    """float -> integer: truncate toward zero, saturate, NaN gives 0."""
    info = np.iinfo(dt)
    vals: list[int] = []
    with np.errstate(all="ignore"):
        x64 = np.asarray(x, dtype=np.float64)
    for v in x64.ravel().tolist():
        if math.isnan(v):
            vals.append(0)
        elif v >= info.max:
            vals.append(int(info.max))
        elif v <= info.min:
            vals.append(int(info.min))
        else:
            vals.append(int(v))  # int() truncates; |v| < 2^64 here, exact
    return np.array(vals, dtype=object).astype(dt).reshape(np.shape(x))


def _bf16_from_f64(x: np.ndarray) -> np.ndarray:
    """Round to nearest even to bfloat16 (as uint16 bits); overflow gives infinity. Via f32 is exact only when
    the f64 value is an f32 already, so round from f64 directly."""
    out = np.empty(x.shape, dtype=np.uint16)
    flat = out.reshape(-1)
    for i, v in enumerate(np.asarray(x, dtype=np.float64).ravel().tolist()):
        if math.isnan(v):
            flat[i] = 0x7FC0  # sign of a NaN is not specified; compared as NaN
            continue
        if abs(v) >= 2.0**128:  # beyond bfloat16's (and float's) range whatever the rounding
            v = math.copysign(math.inf, v)
        f = np.float64(v)
        # bf16 = f32 with 16 fraction bits dropped; do the rounding on the f64 with 8-bit significand.
        if v == 0 or math.isinf(v):
            b = np.array([v], dtype=np.float32).view(np.uint32)[0] >> 16
            flat[i] = int(b)
            continue
        m, e = math.frexp(abs(v))  # v = m * 2^e, 0.5 <= m < 1
        emin = -125  # smallest normal bf16 is 2^-126 = 0.5 * 2^-125
        bits = 8 if e >= emin else 8 - (emin - e)
        # Python's round is half to even; ldexp is exact. Below half the smallest subnormal: zero.
        r = round(math.ldexp(m, bits)) if bits >= 0 else 0
        q = math.ldexp(r, e - bits)
        q32 = np.array([math.copysign(q, f)], dtype=np.float64)
        with np.errstate(all="ignore"):
            q32f = q32.astype(np.float32)  # exact (q fits bf16) unless it overflows, then inf
        if abs(q) > 3.3895313892515355e38:
            q32f = np.array([math.copysign(math.inf, v)], dtype=np.float32)
        flat[i] = int(q32f.view(np.uint32)[0] >> 16)
    return out


def _f64_from_bf16(bits16: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):  # signaling NaNs
        return (np.asarray(bits16, dtype=np.uint32) << 16).view(np.float32).astype(np.float64)


def cast(x: np.ndarray, src_bf16: bool, to: np.dtype | None, to_bf16: bool) -> np.ndarray:
    """The spec's Cast table. bfloat16 tensors travel as uint16 bit patterns (src_bf16 / to_bf16)."""
    if src_bf16:
        x = _f64_from_bf16(x)
        src_float = True
    else:
        src_float = is_float(x.dtype)
    if to_bf16:
        if x.dtype == BOOL:
            x = x.astype(np.float64)
        elif not src_float:  # round the exact integer to bfloat16's 8 significant bits (never overflows)
            x = np.array([_round_int(v, 8) for v in _ints(x)], dtype=np.float64).reshape(x.shape)
        with np.errstate(all="ignore"):
            x = np.asarray(x, dtype=np.float64)
        return _bf16_from_f64(x)
    assert to is not None
    if to == BOOL:
        with np.errstate(all="ignore"):
            return np.asarray(x != 0) if x.dtype != BOOL else x.copy()
    if x.dtype == BOOL:
        return x.astype(to)
    if src_float:
        if is_float(to):
            with np.errstate(all="ignore"):
                return np.asarray(x, dtype=np.float64).astype(to)  # f64 -> f16/f32: one rounding, RNE
        return _saturate_trunc(x, to)
    if is_float(to):
        # integer -> float, round to nearest even from the exact integer
        mant = {F16: 11, F32: 24, F64: 53}[to]
        big = float(np.finfo(to).max)
        vals = [_round_int(v, mant) for v in _ints(x)]
        return np.array([math.copysign(math.inf, v) if abs(v) > big else v for v in vals],
                        dtype=to).reshape(x.shape)
    return _wrap_to(_ints(x), to, x.shape)


def _round_int(v: int, mant: int) -> float:
    """An integer rounded to nearest even to `mant` significant bits (as a Python float, exact)."""
    if v == 0:
        return 0.0
    n = abs(v)
    shift = n.bit_length() - mant
    if shift > 0:
        q, r = divmod(n, 1 << shift)
        half = 1 << (shift - 1)
        if r > half or (r == half and q & 1):
            q += 1
        n = q << shift
    f = float(n)  # n < 2^65 has at most `mant` significant bits: exact
    return f if v > 0 else -f


def _clip(x: np.ndarray, lo: Any, hi: Any) -> np.ndarray:
    with np.errstate(all="ignore"):
        r = np.where(x < lo, lo, x)
        r = np.where(r > hi, hi, r)  # the upper bound wins if lo > hi
    return np.asarray(r, dtype=x.dtype)


def _extreme(dt: np.dtype, hi: bool) -> Any:
    if is_float(dt):
        return np.finfo(dt).max if hi else np.finfo(dt).min
    return np.iinfo(dt).max if hi else np.iinfo(dt).min


def _f32(v: Any) -> np.float32:
    return np.float32(v)


def _transcendental(op: str, x: np.ndarray, attrs: dict[str, Any]) -> np.ndarray:
    with np.errstate(all="ignore"):  # NaN and inf inputs are the point here
        x64 = x.astype(np.float64)
        if op in PLAIN64:
            r = PLAIN64[op](x64)
        elif op in ("Elu", "Selu", "Celu"):  # the spec's formulas; Selu and Celu give +0 at +-0
            alpha = float(_f32(attrs.get("alpha", 1.67326319217681884765625 if op == "Selu" else 1.0)))
            gamma = float(_f32(attrs.get("gamma", 1.05070102214813232421875))) if op == "Selu" else 1.0
            r = act64(op, x64, alpha, gamma)
        else:
            r = gelu64(x64, attrs.get("approximate", "none"))
        return np.asarray(r).astype(np.float32)  # overflow to inf is the rounding wanted


_TR16: dict[str, np.ndarray] = {}


def _transcendental16(op: str, x: np.ndarray, attrs: dict[str, Any]) -> np.ndarray:
    """f16, or bf16 as uint16 bits (attrs `bf16_in`): the correctly rounded result, bit for bit, from the MPFR
    table of tests/reference/transcendental16.py."""
    if not _TR16:
        for name in ("transcendental16_refs.npz", "trig16_refs.npz"):
            with np.load(Path(__file__).resolve().parents[2] / "testdata" / name) as f:
                _TR16.update({k: f[k] for k in f.files})
    name = op.lower() if op != "Gelu" else "gelu_" + ("tanh" if attrs.get("approximate") == "tanh" else "erf")
    bf16 = bool(attrs.get("bf16_in", False))
    table = _TR16[f"{name}_{'bf16' if bf16 else 'f16'}"]
    r = table[np.asarray(x, order="C").view(np.uint16)]  # (ascontiguousarray makes rank 0 rank 1)
    return r if bf16 else r.view(np.float16)


def _c99_pow(b: np.ndarray, e: np.ndarray) -> np.ndarray:
    """np.power on float64 with C99 Annex F's pow(x, 0) = 1 and pow(1, y) = 1 for every x and y, NaN included,
    set explicitly: NumPy 2.4's float64 power on AArch64 gives NaN for some of those elements."""
    r = np.asarray(np.power(b, e))  # an array even for rank-0 operands (np.power gives a scalar then)
    return np.where((e == 0) | (b == 1), 1.0, r)


def _pow(base: np.ndarray, exp: np.ndarray) -> np.ndarray:
    dt = base.dtype
    b, e = np.broadcast_arrays(base, exp)
    with np.errstate(all="ignore"):
        if dt == F32:
            r = _c99_pow(b.astype(np.float64), e.astype(np.float32).astype(np.float64)).astype(np.float32)
        elif dt == F64:
            r = _c99_pow(b.astype(np.float64), e.astype(np.float64))
        else:
            r64 = _c99_pow(b.astype(np.float64), e.astype(np.float64))
            return _saturate_trunc(r64, dt)
    return np.asarray(r, dtype=dt)


def expected(op: str, inputs: Sequence[np.ndarray | None], attrs: dict[str, Any]) -> np.ndarray:
    """The spec's result; bfloat16 (as uint16 bits) only in Cast/CastLike (attrs `bf16_in`, `to_bf16`) and the
    transcendentals (`bf16_in`)."""
    ins = list(inputs)
    x = ins[0]
    assert x is not None
    dt = x.dtype
    if op in ("Add", "Sub", "Mul", "Div", "Mod"):
        b = ins[1]
        assert b is not None
        fmod = int(attrs.get("fmod", 0))
        if op == "Mod" and fmod == 0 and is_float(dt):
            raise Unsupported("Mod fmod=0 on floats")
        if is_float(dt):
            return _float_binary(op, x, b)
        return _int_binary(op, x, b, fmod)
    if op in ("Max", "Min", "Sum", "Mean"):
        acc = x
        for nxt in ins[1:]:
            assert nxt is not None
            acc = _maxmin(acc, nxt, op == "Max") if op in ("Max", "Min") else _float_binary("Add", acc, nxt)
        if op == "Mean":
            acc = _float_binary("Div", np.asarray(acc), np.array(len(ins), dtype=dt))
        return np.array(acc, dtype=dt, copy=True)
    if op == "Neg":
        if is_float(dt):
            return np.negative(x)
        return _wrap_to([-v for v in _ints(x)], dt, x.shape)
    if op == "Abs":
        if is_float(dt):
            return np.abs(x)
        return _wrap_to([abs(v) for v in _ints(x)], dt, x.shape)
    if op == "Sign":
        with np.errstate(all="ignore"):
            if dt.kind == "u":
                r = (x > 0).astype(dt)
            else:
                r = np.where(x > 0, 1, np.where(x < 0, -1, 0)).astype(dt)
        if is_float(dt):
            r = np.where(np.isnan(x), x, r).astype(dt)
        return r
    if op in TRANSCENDENTAL:
        if dt == F64 and op in ("Tanh", "Sigmoid"):  # correctly rounded binary64: MPFR (gmpy2)
            from tests.reference.f64_act import reference

            return reference(op.lower(), x.ravel()).reshape(x.shape)
        if dt == np.float16 or attrs.get("bf16_in"):
            return _transcendental16(op, x, attrs)
        return _transcendental(op, x, attrs)
    if op in ("Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual"):
        b = ins[1]
        f = {"Equal": np.equal, "Less": np.less, "Greater": np.greater, "LessOrEqual": np.less_equal,
             "GreaterOrEqual": np.greater_equal}[op]
        with np.errstate(all="ignore"):
            return np.asarray(f(x, b))
    if op == "Not":
        return np.logical_not(x)
    if op in ("And", "Or", "Xor"):
        f = {"And": np.logical_and, "Or": np.logical_or, "Xor": np.logical_xor}[op]
        return np.asarray(f(x, ins[1]))
    if op == "Where":
        return np.asarray(np.where(x, ins[1], ins[2]))
    if op in ("Cast", "CastLike"):
        to_bf16 = bool(attrs.get("to_bf16", False))
        to = None if to_bf16 else np.dtype(attrs["to_dtype"])
        return cast(x, bool(attrs.get("bf16_in", False)), to, to_bf16)
    if op == "Clip":
        lo = ins[1].reshape(()) if len(ins) > 1 and ins[1] is not None else None
        hi = ins[2].reshape(()) if len(ins) > 2 and ins[2] is not None else None
        if "min" in attrs or "max" in attrs:  # attribute form: defaults are the float extremes
            with np.errstate(over="ignore"):  # float attribute, then dt (the extremes are +-inf in f16)
                lo = np.float32(attrs.get("min", -3.4028234663852886e38)).astype(dt)
                hi = np.float32(attrs.get("max", 3.4028234663852886e38)).astype(dt)
        return _clip(x, _extreme(dt, False) if lo is None else lo, _extreme(dt, True) if hi is None else hi)
    if op in ("Reciprocal", "Sqrt", "Floor", "Ceil", "Round"):
        w = _work(dt)
        f = {"Reciprocal": np.reciprocal, "Sqrt": np.sqrt, "Floor": np.floor, "Ceil": np.ceil,
             "Round": np.rint}[op]
        with np.errstate(all="ignore"):
            return np.asarray(f(x.astype(w))).astype(dt)
    if op == "Pow":
        return _pow(x, ins[1])
    if op in ("IsNaN", "IsInf"):  # on the value (bf16 arrives as its uint16 bits)
        if not (is_float(dt) or attrs.get("bf16_in")):
            raise Unsupported(f"{op} takes floats")
        v = _f64_from_bf16(x) if attrs.get("bf16_in") else x.astype(np.float64)
        if op == "IsNaN":
            return np.isnan(v)
        pos, neg = int(attrs.get("detect_positive", 1)), int(attrs.get("detect_negative", 1))
        if pos not in (0, 1) or neg not in (0, 1):
            raise Unsupported("IsInf: detect_* must be 0 or 1")
        return ((v == math.inf) & bool(pos)) | ((v == -math.inf) & bool(neg))
    if op == "Relu":
        if not is_float(dt) and dt.kind != "i":
            raise Unsupported("Relu: floats and signed integers")
        with np.errstate(all="ignore"):
            return np.where(x < 0, np.zeros((), dt), x).astype(dt)
    if op == "PRelu":
        s = ins[1]
        assert s is not None
        if np.broadcast_shapes(x.shape, s.shape) != x.shape:
            raise Unsupported("PRelu: the slope must not widen X")
        if dt.kind == "u":
            return x.copy()
        if dt.kind == "i":
            prod = _int_binary("Mul", x, np.broadcast_to(s, x.shape), 0)
            return np.where(x < 0, prod, x).astype(dt)
        with np.errstate(all="ignore"):
            return np.where(x < 0, _float_binary("Mul", np.broadcast_to(s, x.shape), x), x).astype(dt)
    if op == "LeakyRelu":
        alpha = _f32(attrs.get("alpha", 0.01))
        with np.errstate(all="ignore"):
            if dt == F16:  # the f32 alpha times x, rounded once to f16 (exact in f64, f64 -> f16 rounds once)
                p = (np.float64(alpha) * x.astype(np.float64)).astype(F16)
            else:
                p = (alpha.astype(dt) * x).astype(dt)
            return np.where(x < 0, p, x).astype(dt)
    if op == "ThresholdedRelu":
        alpha = float(_f32(attrs.get("alpha", 1.0)))
        with np.errstate(all="ignore"):
            return np.where(x.astype(np.float64) > alpha, x, np.zeros((), dt)).astype(dt)
    if op == "Softsign":
        w = _work(dt)
        with np.errstate(all="ignore"):
            xw = x.astype(w)
            r = (xw / (np.abs(xw) + w.type(1))).astype(w)
            return np.where(np.isinf(xw), np.copysign(w.type(1), xw), r).astype(dt)
    if op == "HardSigmoid":
        alpha, beta = _f32(attrs.get("alpha", 0.2)), _f32(attrs.get("beta", 0.5))
        with np.errstate(all="ignore"):
            v = (alpha * x).astype(np.float32) + beta
            return np.minimum(np.maximum(v, np.float32(0)), np.float32(1)).astype(np.float32)
    if op == "HardSwish":
        with np.errstate(all="ignore"):
            v = (x * np.float32(0.16666667)).astype(np.float32) + np.float32(0.5)
            c = np.minimum(np.maximum(v, np.float32(0)), np.float32(1)).astype(np.float32)
            return (x * c).astype(np.float32)
    raise Unsupported(f"no reference for {op}")


def open_elements(op: str, inputs: Sequence[np.ndarray | None], out_shape: tuple[int, ...]) -> np.ndarray:
    """Elements whose value the spec leaves open (compared only across kernel paths)."""
    mask = np.zeros(out_shape, dtype=bool)
    x = inputs[0]
    if x is None or not is_float(x.dtype) or op not in ("HardSigmoid", "Clip"):
        return mask
    # clamp of a NaN (HardSigmoid) and the sign of a zero that equals a bound (Clip) are not specified
    if op == "HardSigmoid":
        return np.broadcast_to(np.isnan(x), out_shape).copy()
    return np.broadcast_to((x == 0), out_shape).copy()


def canonical_nan_bits(dt: np.dtype) -> int:
    return CANON[np.dtype(dt)]


def bits(x: np.ndarray) -> np.ndarray:
    return _ubits(x)
