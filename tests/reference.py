"""An independent NumPy reference of the element-wise rules of docs ops-elementwise (the spec).

Written from the spec only, never from the C kernels. `evaluate(op, inputs, attributes, mode)` gives what the
library must return; for the pure IEEE and integer operators that is bit-exact (in exact mode, NaN is the
canonical quiet NaN), for the transcendentals it is the true value rounded to float32 (computed in float64),
which the library must match within the spec's tolerance.

Rules implemented here:
  - NaN results in exact mode are the positive quiet NaN with no payload (0x7E00 f16, 0x7FC00000 f32,
    0x7FF8000000000000 f64); fast mode may leave any NaN.
  - f16 arithmetic is done in f32 and rounded to f16 once per operation.
  - integers wrap (two's complement); Div truncates toward zero; x / 0 and x % 0 give 0; MIN / -1 is MIN and
    MIN % -1 is 0; Mod fmod=0 is the floor modulus (sign of the divisor), fmod=1 the truncated one (sign of
    the dividend, C fmod for floats); Mod fmod=0 on floats is rejected.
  - Max/Min: NaN in either operand gives NaN (the first operand's if both); on equality the second operand.
  - Sign: -1, 0, +1; both zeros give +0; NaN gives NaN.
  - Sum, Mean, Max, Min fold their inputs left to right with broadcasting at each step; Mean is the sum
    divided by n (one rounded division).
  - Gelu(-inf) is -0 (the limit).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

FLOAT_DTYPES = (np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64))
CANONICAL_NAN_BITS = {
    np.dtype(np.float16): 0x7E00,
    np.dtype(np.float32): 0x7FC00000,
    np.dtype(np.float64): 0x7FF8000000000000,
}
UINT_OF = {
    np.dtype(np.float16): np.dtype(np.uint16),
    np.dtype(np.float32): np.dtype(np.uint32),
    np.dtype(np.float64): np.dtype(np.uint64),
}
TRANSCENDENTAL = frozenset({"Exp", "Log", "Tanh", "Sigmoid", "Erf", "Gelu"})


class Unsupported(ValueError):
    """The spec rejects this node (or the reference does not know the op)."""


def is_float(dtype: Any) -> bool:
    return np.dtype(dtype) in FLOAT_DTYPES


def canonical_nan(dtype: Any) -> np.generic:
    dt = np.dtype(dtype)
    return np.array(CANONICAL_NAN_BITS[dt], dtype=UINT_OF[dt]).view(dt)[()]


def canonicalize(x: np.ndarray) -> np.ndarray:
    """Every NaN of a float array replaced by the canonical quiet NaN (a copy); other dtypes unchanged."""
    if not is_float(x.dtype):
        return x
    out = np.array(x, copy=True)
    out[np.isnan(out)] = canonical_nan(out.dtype)
    return out


def bits(x: np.ndarray) -> np.ndarray:
    """The raw bits of an array, as unsigned integers of the same width (bool as uint8)."""
    x = np.ascontiguousarray(x)
    if x.dtype == np.bool_:
        return x.view(np.uint8)
    return x.view(np.dtype(f"u{x.dtype.itemsize}"))


# --------------------------------------------------------------------------------------------- integers


def _wrap(values: Sequence[int], dtype: np.dtype, shape: tuple[int, ...]) -> np.ndarray:
    """Python ints wrapped modulo 2^n into `dtype`."""
    nbits = dtype.itemsize * 8
    mask = (1 << nbits) - 1
    u = np.array([v & mask for v in values], dtype=np.dtype(f"u{dtype.itemsize}")).reshape(shape)
    return u.view(dtype) if dtype.kind == "i" else u


def _int_map2(a: np.ndarray, b: np.ndarray, f: Callable[[int, int], int]) -> np.ndarray:
    a, b = np.broadcast_arrays(a, b)
    vals = [f(int(x), int(y)) for x, y in zip(a.ravel().tolist(), b.ravel().tolist())]
    return _wrap(vals, a.dtype, a.shape)


def _trunc_div(x: int, y: int) -> int:
    if y == 0:
        return 0
    q = abs(x) // abs(y)
    return q if (x < 0) == (y < 0) else -q


def _trunc_mod(x: int, y: int) -> int:
    if y == 0:
        return 0
    return x - _trunc_div(x, y) * y


def _floor_mod(x: int, y: int) -> int:
    if y == 0:
        return 0
    return x % y  # Python's % is the floor modulus


# --------------------------------------------------------------------------------------------- floats


def _compute_dtype(dt: np.dtype) -> np.dtype:
    """f16 is computed in f32 and rounded once."""
    return np.dtype(np.float32) if dt == np.float16 else dt


def _float_bin(a: np.ndarray, b: np.ndarray, f: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> np.ndarray:
    dt = a.dtype
    cd = _compute_dtype(dt)
    with np.errstate(all="ignore"):
        r = f(a.astype(cd), b.astype(cd))
        return np.asarray(r, dtype=cd).astype(dt)


def _max_min_pair(a: np.ndarray, b: np.ndarray, is_max: bool) -> np.ndarray:
    a, b = np.broadcast_arrays(a, b)
    with np.errstate(all="ignore"):
        pick_a = a > b if is_max else a < b
    if is_float(a.dtype):
        an, bn = np.isnan(a), np.isnan(b)
        # NaN in either operand gives NaN: the first operand's if it is NaN, else the second's.
        pick_a = (pick_a & ~bn) | an
    return np.where(pick_a, a, b)


def _binary(op: str, a: np.ndarray, b: np.ndarray, fmod: int) -> np.ndarray:
    if a.dtype != b.dtype:
        raise Unsupported(f"{op}: mixed element types {a.dtype} and {b.dtype}")
    dt = a.dtype
    if is_float(dt):
        if op == "Add":
            return _float_bin(a, b, np.add)
        if op == "Sub":
            return _float_bin(a, b, np.subtract)
        if op == "Mul":
            return _float_bin(a, b, np.multiply)
        if op == "Div":
            return _float_bin(a, b, np.divide)
        if op == "Mod":
            if fmod != 1:
                raise Unsupported("Mod with fmod=0 on a float type is rejected (the spec requires fmod=1)")
            return _float_bin(a, b, np.fmod)
    else:
        if op in ("Add", "Sub", "Mul"):
            f = {"Add": np.add, "Sub": np.subtract, "Mul": np.multiply}[op]
            with np.errstate(all="ignore"):
                return np.asarray(f(*np.broadcast_arrays(a, b)), dtype=dt)
        if op == "Div":
            return _int_map2(a, b, _trunc_div)
        if op == "Mod":
            return _int_map2(a, b, _trunc_mod if fmod == 1 else _floor_mod)
    raise Unsupported(f"reference has no binary rule for {op}")


# --------------------------------------------------------------------------------------------- unary


def _sign(x: np.ndarray) -> np.ndarray:
    one, zero = np.array(1, x.dtype), np.array(0, x.dtype)
    if x.dtype.kind == "u":
        return np.where(x > 0, one, zero)
    minus = np.array(-1, x.dtype)
    r = np.where(x > 0, one, np.where(x < 0, minus, zero))
    if is_float(x.dtype):
        r = np.where(np.isnan(x), x, r)
    return np.asarray(r, dtype=x.dtype)


def _erf(x: np.ndarray) -> np.ndarray:
    return np.array([math.erf(v) for v in x.ravel().tolist()], dtype=np.float64).reshape(x.shape)


def _erfc(x: np.ndarray) -> np.ndarray:
    return np.array(
        [math.erfc(v) if not math.isnan(v) else math.nan for v in x.ravel().tolist()], dtype=np.float64
    ).reshape(x.shape)


def _sigmoid64(x: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        return 1.0 / (1.0 + np.exp(-x))


def _gelu64(x: np.ndarray, approximate: str) -> np.ndarray:
    with np.errstate(all="ignore"):
        if approximate == "tanh":
            z = math.sqrt(2.0 / math.pi) * (x + 0.044715 * x * x * x)
            r = x * _sigmoid64(2.0 * z)  # 0.5 * x * (1 + tanh z), without the cancellation
        else:
            r = 0.5 * x * _erfc(-x / math.sqrt(2.0))  # 0.5 * x * (1 + erf(x / sqrt 2))
        r = np.where(np.isneginf(x), -0.0, r)  # the limit (the spec's choice; ORT gives NaN)
        r = np.where(np.isposinf(x), np.inf, r)
    return r


def _transcendental(op: str, x: np.ndarray, attributes: dict[str, Any]) -> np.ndarray:
    if x.dtype != np.float32:
        raise Unsupported(f"{op} takes float32 only")
    with np.errstate(all="ignore"):
        x64 = x.astype(np.float64)
        if op == "Exp":
            r = np.exp(x64)
        elif op == "Log":
            r = np.log(x64)
        elif op == "Tanh":
            r = np.tanh(x64)
        elif op == "Sigmoid":
            r = _sigmoid64(x64)
        elif op == "Erf":
            r = _erf(x64)
        else:
            approx = attributes.get("approximate", "none")
            if isinstance(approx, bytes):
                approx = approx.decode()
            r = _gelu64(x64, str(approx))
        return r.astype(np.float32)


def _unary(op: str, x: np.ndarray, attributes: dict[str, Any]) -> np.ndarray:
    dt = x.dtype
    if op in TRANSCENDENTAL:
        return _transcendental(op, x, attributes)
    if op == "Neg":
        if dt.kind == "u":
            raise Unsupported("Neg takes signed types only")
        if is_float(dt):
            return np.negative(x)
        with np.errstate(all="ignore"):
            return np.asarray(np.negative(x), dtype=dt)  # MIN wraps to MIN
    if op == "Abs":
        if is_float(dt):
            return np.abs(x)
        if dt.kind == "u":
            return x.copy()
        with np.errstate(all="ignore"):
            return np.asarray(np.where(x < 0, np.negative(x), x), dtype=dt)  # |MIN| wraps to MIN
    if op == "Sign":
        return _sign(x)
    raise Unsupported(f"reference has no unary rule for {op}")


# --------------------------------------------------------------------------------------------- variadic


def _fold(op: str, inputs: Sequence[np.ndarray]) -> np.ndarray:
    acc = np.array(inputs[0], copy=True)
    for nxt in inputs[1:]:
        if op in ("Max", "Min"):
            acc = _max_min_pair(acc, nxt, op == "Max")
        else:
            if not is_float(acc.dtype):
                raise Unsupported(f"{op} takes float types only")
            acc = _float_bin(acc, nxt, np.add)
    if op == "Mean":
        n = len(inputs)
        acc = _float_bin(acc, np.array(n, dtype=acc.dtype), np.divide)
    return np.asarray(acc)


# --------------------------------------------------------------------------------------------- entry


BINARY = frozenset({"Add", "Sub", "Mul", "Div", "Mod"})
UNARY = frozenset({"Neg", "Abs", "Sign"}) | TRANSCENDENTAL
VARIADIC = frozenset({"Max", "Min", "Sum", "Mean"})
KNOWN_OPS = BINARY | UNARY | VARIADIC


def evaluate(
    op: str, inputs: Sequence[np.ndarray], attributes: dict[str, Any] | None = None, mode: str = "exact"
) -> np.ndarray:
    """The spec's result of `op` on `inputs`; NaNs canonical in exact mode."""
    attributes = attributes or {}
    ins = [np.asarray(x) for x in inputs]
    if op in BINARY:
        if len(ins) != 2:
            raise Unsupported(f"{op} takes 2 inputs")
        r = _binary(op, ins[0], ins[1], int(attributes.get("fmod", 0)))
    elif op in UNARY:
        if len(ins) != 1:
            raise Unsupported(f"{op} takes 1 input")
        r = _unary(op, ins[0], attributes)
    elif op in VARIADIC:
        if not ins:
            raise Unsupported(f"{op} takes at least 1 input")
        if any(x.dtype != ins[0].dtype for x in ins):
            raise Unsupported(f"{op}: mixed element types")
        r = _fold(op, ins)
    else:
        raise Unsupported(f"reference has no rule for {op}")
    r = np.asarray(r)
    return canonicalize(r) if mode == "exact" else r


def scaled_error(got: np.ndarray, expected: np.ndarray) -> float:
    """The spec's metric: max |got - expected| / max(max |expected|, 1e-3) over finite, matching elements.

    Non-finite values must match exactly (NaN matches any NaN, infinities by sign); a mismatch there is inf.
    """
    if got.shape != expected.shape:
        return math.inf
    if got.size == 0:
        return 0.0
    if not is_float(expected.dtype):
        diff = np.abs(got.astype(object) - expected.astype(object))
        mag = max(np.abs(expected.astype(object)).max(), 1)
        return float(diff.max() / mag)
    with np.errstate(all="ignore"):
        g = got.astype(np.float64)
        e = expected.astype(np.float64)
    gn, en = np.isnan(g), np.isnan(e)
    if (gn != en).any():
        return math.inf
    gi, ei = np.isinf(g), np.isinf(e)
    if (gi != ei).any() or (g[gi] != e[ei]).any():
        return math.inf
    fin = ~(en | ei)
    if not fin.any():
        return 0.0
    diff = float(np.abs(g[fin] - e[fin]).max())
    mag = max(float(np.abs(e[fin]).max()), 1e-3)
    return diff / mag


def same_values(got: np.ndarray, expected: np.ndarray, *, zero_sign: bool = True) -> bool:
    """Equal element by element; NaN matches any NaN; with zero_sign, -0 and +0 differ."""
    if got.shape != expected.shape or got.dtype != expected.dtype:
        return False
    if not is_float(expected.dtype):
        return bool((bits(got) == bits(expected)).all())
    gn, en = np.isnan(got), np.isnan(expected)
    if (gn != en).any():
        return False
    with np.errstate(all="ignore"):
        eq = (got == expected) | gn
    if not eq.all():
        return False
    if zero_sign:
        return bool((np.signbit(got[~gn]) == np.signbit(expected[~en])).all())
    return True


def nan_bits_canonical(x: np.ndarray) -> bool:
    """Every NaN of a float array is the canonical quiet NaN."""
    if not is_float(x.dtype):
        return True
    nan = np.isnan(x)
    return bool((bits(x)[nan] == CANONICAL_NAN_BITS[x.dtype]).all())
