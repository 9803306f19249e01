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
  - Comparisons: NaN compares false with everything (Equal(NaN, NaN) is false); output bool; bool inputs
    are "nonzero is true". Not, And, Or, Xor on bool.
  - Where selects the bits (a selected -0 stays -0; a selected NaN is canonical in exact mode); broadcasting
    over all three inputs.
  - Cast, CastLike: float -> float rounds once to nearest even (f16 and bf16 included, never through an
    intermediate format), overflow to inf; float -> int truncates and saturates, NaN gives 0; float -> bool
    is x != 0 (NaN true, -0 false); int -> int wraps; int -> float rounds once (u64 unsigned); int -> bool is
    x != 0; bool -> any is 0 or 1. CastLike takes the type of input 1 and never reads its values.
  - Clip: min(max(x, lo), hi), the upper bound wins when lo > hi, NaN passes through. Before opset 11 the
    bounds are the float attributes min/max (defaults: lowest/highest finite FLOAT); from 11 optional
    single-value inputs, an omitted one the element type's finite extreme (Clip(+inf) is the type's max).
  - Reciprocal, Sqrt, Floor, Ceil: IEEE (Floor and Ceil keep the sign of x); Round: half to even, keeps the
    sign of zero; f16 through f32, rounded once.
  - LeakyRelu x < 0 ? alpha*x : x (0.01; f32, f64: alpha in the element type; f16: the f32 alpha, the
    product rounded once to f16); PRelu the same with the slope input (broadcast to X's shape, never beyond;
    integers wrap, unsigned x passes); Relu x < 0 ? 0 : x (-0 and NaN pass; signed integers too);
    ThresholdedRelu x > alpha ? x : 0 (1.0; NaN gives 0; x compared with the f32 alpha exactly); Softsign
    x / (1 + |x|), the sum and the quotient each rounded (f16: in f32, then once to f16), +-inf give +-1;
    IsNaN, IsInf (detect_positive, detect_negative, default 1) on f16, f32, f64, bf16, output bool;
    HardSigmoid clamp(alpha*x + beta, 0, 1), product and sum each rounded (0.2, 0.5); HardSwish
    x * clamp(x * 0.16666667f + 0.5f, 0, 1), each operation rounded in f32.
  - Pow: an f32 base takes the exponent rounded to f32, an f64 base to f64; an integer base computes in f64
    (base and exponent rounded to f64) and converts back like Cast (truncate, saturate, NaN gives 0).
    Exponent 0 gives 1 (NaN base included), exponent 2 is x * x (one rounded product), otherwise the
    correctly rounded pow (MPFR, C99 Annex F special values). The library may be 1 ulp off: `pow_within`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import gmpy2
import ml_dtypes
import numpy as np
from onnx import helper

from tests.reference.unary64 import PLAIN64, act64, gelu64

BF16 = np.dtype(ml_dtypes.bfloat16)
F16, F32, F64 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)
FLOAT_DTYPES = (F16, F32, F64, BF16)  # bf16 is stored (Cast, CastLike, Where), never computed on
CANONICAL_NAN_BITS = {F16: 0x7E00, F32: 0x7FC00000, F64: 0x7FF8000000000000, BF16: 0x7FC0}
UINT_OF = {
    F16: np.dtype(np.uint16),
    F32: np.dtype(np.uint32),
    F64: np.dtype(np.uint64),
    BF16: np.dtype(np.uint16),
}
# significand bits (with the hidden one), exponent of the smallest normal, largest finite value
FLOAT_FORMATS = {
    F16: (11, -14, 65504.0),
    BF16: (8, -126, float(ml_dtypes.finfo(BF16).max)),
    F32: (24, -126, float(np.finfo(np.float32).max)),
    F64: (53, -1022, float(np.finfo(np.float64).max)),
}
TRANSCENDENTAL = frozenset(
    {"Exp", "Log", "Tanh", "Sigmoid", "Erf", "Gelu", "Sin", "Cos", "Softplus", "Mish", "Elu", "Selu", "Celu"}
)
SELU_ALPHA, SELU_GAMMA = 1.67326319217681884765625, 1.05070102214813232421875  # ONNX's defaults (f32 values)


def act_params(op: str, attributes: dict[str, Any]) -> tuple[float, float]:
    """Elu's, Selu's or Celu's (alpha, gamma) as the f32 values the node holds (gamma: Selu only)."""
    alpha = attributes.get("alpha", SELU_ALPHA if op == "Selu" else 1.0)
    return float(np.float32(alpha)), float(np.float32(attributes.get("gamma", SELU_GAMMA)))


def _act16_mpfr(op: str, x: np.ndarray, attributes: dict[str, Any]) -> np.ndarray:
    """Elu and Selu on f16/bf16 with other than the default parameters: MPFR at 200 bits, rounded once to the
    16-bit format (a gmpy2 context of its precision and exponent range, subnormals included)."""
    alpha, gamma = act_params(op, attributes)
    p = gamma if op == "Selu" else 1.0
    a = gamma * alpha if op == "Selu" else alpha  # exact in double (24 x 24 bits)
    f16 = x.dtype == np.float16
    ctx = gmpy2.ieee(16) if f16 else gmpy2.context(precision=8, emin=-132, emax=128, subnormalize=True)
    out = np.empty(x.shape, np.float64)
    with np.errstate(invalid="ignore"):  # bf16 NaN to float64
        x64 = np.asarray(x).astype(np.float64)
    for i, v in enumerate(x64.ravel().tolist()):
        if math.isnan(v) or v == 0:
            out.flat[i] = v if op == "Elu" or math.isnan(v) else 0.0
            continue
        with gmpy2.context(precision=200):
            em1 = gmpy2.expm1(gmpy2.mpfr(v)) if math.isfinite(v) else gmpy2.mpfr(-1 if v < 0 else v)
            y = gmpy2.mpfr(p) * gmpy2.mpfr(v) if v > 0 else gmpy2.mpfr(a) * em1
        with gmpy2.context(ctx) as c:
            out.flat[i] = float(c.plus(y))
    return out.astype(x.dtype)


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
    with np.errstate(all="ignore"):
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


_TR16: dict[str, np.ndarray] = {}


def _transcendental16(op: str, x: np.ndarray, attributes: dict[str, Any]) -> np.ndarray:
    """float16 and bfloat16: the correctly rounded result, bit for bit, from the MPFR table of
    tests/reference/transcendental16.py (testdata/transcendental16_refs.npz, trig16_refs.npz); Elu and Selu
    with other parameters than the defaults from MPFR directly."""
    if op in ("Elu", "Selu") and act_params(op, attributes) != act_params(op, {}):
        return _act16_mpfr(op, x, attributes)
    if not _TR16:
        for name in ("transcendental16_refs.npz", "trig16_refs.npz"):
            with np.load(Path(__file__).resolve().parents[2] / "testdata" / name) as f:
                _TR16.update({k: f[k] for k in f.files})
    approx = attributes.get("approximate", "none")
    approx = approx.decode() if isinstance(approx, bytes) else str(approx)
    name = op.lower() if op != "Gelu" else "gelu_" + ("tanh" if approx == "tanh" else "erf")
    table = _TR16[f"{name}_{'f16' if x.dtype == np.float16 else 'bf16'}"]
    return table[np.asarray(x, order="C").view(np.uint16)].view(x.dtype)


def _transcendental(op: str, x: np.ndarray, attributes: dict[str, Any]) -> np.ndarray:
    if x.dtype in (np.float16, BF16):
        return _transcendental16(op, x, attributes)
    if x.dtype == np.float64 and op in ("Tanh", "Sigmoid"):  # correctly rounded binary64: MPFR (gmpy2)
        from tests.reference.f64_act import reference as f64_reference

        return f64_reference(op.lower(), x.ravel()).reshape(x.shape)
    if x.dtype != np.float32:
        raise Unsupported(f"{op} takes float32, float16 and bfloat16 only (Tanh and Sigmoid: float64 too)")
    with np.errstate(all="ignore"):
        x64 = x.astype(np.float64)
        if op in PLAIN64:
            r = PLAIN64[op](x64)
        elif op in ("Elu", "Selu", "Celu"):
            r = act64(op, x64, *act_params(op, attributes))
        else:
            approx = attributes.get("approximate", "none")
            if isinstance(approx, bytes):
                approx = approx.decode()
            r = gelu64(x64, str(approx))
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


# --------------------------------------------------------------------------------------------- conversions


def np_dtype_of(onnx_type: int) -> np.dtype:
    return np.dtype(helper.tensor_dtype_to_np_dtype(int(onnx_type)))


def round_to_float(x64: np.ndarray, dt: np.dtype) -> np.ndarray:
    """float64 values rounded ONCE to the float format `dt` (nearest even, subnormals, overflow to inf).

    The rounding is done on float64 by exact power-of-two scaling and one np.rint (ties to even), so it never
    goes through an intermediate format (no double rounding, e.g. f64 -> bf16 not via f32).
    """
    x64 = np.asarray(x64, dtype=np.float64)
    dt = np.dtype(dt)
    if dt == F64:
        return x64.copy()
    p, emin, fmax = FLOAT_FORMATS[dt]
    out = np.array(x64, copy=True)
    fin = np.isfinite(x64) & (x64 != 0)
    v = x64[fin]
    _, e = np.frexp(v)  # v = m * 2^e with 0.5 <= |m| < 1: the leading bit has weight 2^(e-1)
    k = np.maximum(e - p, emin - p + 1)  # weight of the last kept bit (the subnormal quantum at most)
    with np.errstate(all="ignore"):
        r = np.ldexp(np.rint(np.ldexp(v, -k)), k)
        out[fin] = np.where(np.abs(r) > fmax, np.copysign(np.inf, v), r)
        return out.astype(dt)  # every value is representable now: exact


def _round_int(v: int, p: int) -> int:
    """A Python int rounded to p significant bits, nearest even."""
    a = abs(v)
    s = a.bit_length() - p
    if s <= 0:
        return v
    q, r = divmod(a, 1 << s)
    half = 1 << (s - 1)
    if r > half or (r == half and q & 1):
        q += 1
    return -(q << s) if v < 0 else q << s


def int_to_float(x: np.ndarray, dt: np.dtype) -> np.ndarray:
    """Integers (any width, u64 unsigned) rounded once to the float format `dt`; overflow to inf."""
    p, _, fmax = FLOAT_FORMATS[np.dtype(dt)]
    vals = [float(_round_int(int(v), p)) for v in np.asarray(x).ravel().tolist()]
    r = np.array([v if abs(v) <= fmax else math.copysign(math.inf, v) for v in vals], dtype=np.float64)
    return r.reshape(np.shape(x)).astype(dt)


def float_to_int(x64: np.ndarray, dt: np.dtype) -> np.ndarray:
    """Floats (as float64) to an integer type: truncate toward zero, saturate, NaN gives 0."""
    ii = np.iinfo(dt)
    x64 = np.asarray(x64, dtype=np.float64)
    with np.errstate(all="ignore"):
        t = np.trunc(x64)
    hi = t >= float(int(ii.max) + 1)  # 2^n: exact in f64
    lo = t < float(ii.min)
    mid = ~np.isnan(t) & ~hi & ~lo
    out = np.zeros(x64.shape, dtype=dt)
    out[hi] = ii.max
    out[lo] = ii.min
    out[mid] = np.array([int(v) for v in t[mid].tolist()], dtype=object).astype(dt)
    return out


def to_float64(x: np.ndarray) -> np.ndarray:
    """A float array (f16, bf16, f32, f64) as float64: exact."""
    with np.errstate(all="ignore"):
        return np.asarray(x).astype(np.float64)


def cast(x: np.ndarray, dt: np.dtype) -> np.ndarray:
    """The spec's Cast of `x` to element type `dt` (NaNs not yet canonical)."""
    x = np.asarray(x)
    src, dt = x.dtype, np.dtype(dt)
    if dt not in FLOAT_DTYPES and dt != np.bool_ and dt.kind not in "iu":
        raise Unsupported(f"Cast to {dt} is not served")
    if src == np.bool_:
        return x.astype(np.uint8).astype(dt)  # 0 or 1
    if is_float(src):
        x64 = to_float64(x)
        if dt == np.bool_:
            return (x64 != 0) | np.isnan(x64)
        if is_float(dt):
            return round_to_float(x64, dt)
        return float_to_int(x64, dt)
    if src.kind not in "iu":
        raise Unsupported(f"Cast from {src} is not served")
    if dt == np.bool_:
        return x != 0
    if is_float(dt):
        return int_to_float(x, dt)
    return _wrap([int(v) for v in x.ravel().tolist()], dt, x.shape)


# --------------------------------------------------------------------------------------------- logic


def _compare(op: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if a.dtype != b.dtype:
        raise Unsupported(f"{op}: mixed element types {a.dtype} and {b.dtype}")
    if a.dtype == BF16:
        raise Unsupported(f"{op} does not take bfloat16")
    if a.dtype == np.bool_:
        if op != "Equal":
            raise Unsupported(f"{op} does not take bool")
        a, b = a != 0, b != 0
    elif is_float(a.dtype):
        a, b = to_float64(a), to_float64(b)  # exact; NaN compares false
    f = {
        "Equal": np.equal,
        "Less": np.less,
        "Greater": np.greater,
        "LessOrEqual": np.less_equal,
        "GreaterOrEqual": np.greater_equal,
    }[op]
    with np.errstate(all="ignore"):
        return np.asarray(f(a, b), dtype=np.bool_)


def _logic(op: str, ins: Sequence[np.ndarray]) -> np.ndarray:
    if any(x.dtype != np.bool_ for x in ins):
        raise Unsupported(f"{op} takes bool only")
    bs = [x != 0 for x in ins]
    if op == "Not":
        return ~bs[0]
    f = {"And": np.logical_and, "Or": np.logical_or, "Xor": np.logical_xor}[op]
    return np.asarray(f(bs[0], bs[1]), dtype=np.bool_)


def _where(c: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    if c.dtype != np.bool_:
        raise Unsupported("Where: the condition must be bool")
    if x.dtype != y.dtype:
        raise Unsupported(f"Where: mixed element types {x.dtype} and {y.dtype}")
    c, x, y = np.broadcast_arrays(c != 0, x, y)
    return np.where(c, x, y).astype(x.dtype)  # selects the bits: -0 stays -0


# --------------------------------------------------------------------------------------------- float unary


def _float_un(x: np.ndarray, f: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    dt = x.dtype
    with np.errstate(all="ignore"):
        return np.asarray(f(x.astype(_compute_dtype(dt))), dtype=_compute_dtype(dt)).astype(dt)


def _clamp01(t: np.ndarray) -> np.ndarray:
    """clamp(t, 0, 1) in t's type; NaN passes through."""
    one, zero = np.array(1, t.dtype), np.array(0, t.dtype)
    with np.errstate(all="ignore"):
        t = np.where(t < 0, zero, t)
        return np.where(t > 1, one, t)


def _activation(op: str, x: np.ndarray, attributes: dict[str, Any]) -> np.ndarray:
    if x.dtype != F32:
        raise Unsupported(f"{op} takes float32 only")
    with np.errstate(all="ignore"):
        if op == "HardSigmoid":
            alpha = np.float32(attributes.get("alpha", 0.2))
            beta = np.float32(attributes.get("beta", 0.5))
            t = (alpha * x).astype(F32)  # rounded product, then rounded sum
            t = (t + beta).astype(F32)
            return _clamp01(t).astype(F32)
        # HardSwish: x * clamp(x * 0.16666667f + 0.5f, 0, 1), each operation rounded in f32
        t = (x * np.float32(0.16666667)).astype(F32)
        t = (t + np.float32(0.5)).astype(F32)
        return (x * _clamp01(t)).astype(F32)


def _relu_family(op: str, ins: Sequence[np.ndarray], attributes: dict[str, Any]) -> np.ndarray:
    x = ins[0]
    dt = x.dtype
    floats = (F16, F32, F64)
    if op == "PRelu":
        s = ins[1]
        if s.dtype != dt:
            raise Unsupported("PRelu: the slope must have the type of X")
        if np.broadcast_shapes(x.shape, s.shape) != x.shape:
            raise Unsupported("PRelu: the slope must broadcast to the shape of X")
        s = np.broadcast_to(s, x.shape)
        if dt in floats:
            return _float_bin(x, s, lambda a, b: np.where(a < 0, b * a, a))
        if dt not in (np.int32, np.int64, np.uint32, np.uint64):
            raise Unsupported(f"PRelu does not take {dt}")
        if dt.kind == "u":
            return x.copy()
        with np.errstate(all="ignore"):
            return np.asarray(np.where(x < 0, s * x, x), dtype=dt)  # the product wraps
    if op == "Relu":
        if dt not in floats and dt not in (np.int8, np.int16, np.int32, np.int64):
            raise Unsupported(f"Relu does not take {dt}")
        with np.errstate(all="ignore"):
            return np.where(x < 0, np.zeros((), dt), x).astype(dt)
    if dt not in floats:
        raise Unsupported(f"{op} takes f16, f32, f64 only")
    if op == "LeakyRelu":  # f16: the f32 alpha times x, exact in f64, rounded once to f16
        alpha = np.float32(attributes.get("alpha", 0.01))
        if dt == F16:
            with np.errstate(all="ignore"):
                p = round_to_float(x.astype(np.float64) * np.float64(alpha), F16)
                return np.where(x < 0, p, x).astype(F16)
        a = np.asarray(alpha).astype(dt)
        return _float_bin(x, np.broadcast_to(a, x.shape), lambda u, v: np.where(u < 0, v * u, u))
    if op == "ThresholdedRelu":
        alpha = float(np.float32(attributes.get("alpha", 1.0)))
        with np.errstate(all="ignore"):
            return np.where(x.astype(np.float64) > alpha, x, np.zeros((), dt)).astype(dt)
    # Softsign: two rounded steps in the compute type (f16: in f32, then rounded once); the limit at +-inf
    cd = _compute_dtype(dt)
    with np.errstate(all="ignore"):
        xc = x.astype(cd)
        d = np.asarray(np.abs(xc) + cd.type(1), dtype=cd)
        r = np.asarray(xc / d, dtype=cd)
        return np.where(np.isinf(xc), np.copysign(cd.type(1), xc), r).astype(dt)


def _float_class(op: str, x: np.ndarray, attributes: dict[str, Any]) -> np.ndarray:
    if x.dtype not in FLOAT_DTYPES:
        raise Unsupported(f"{op} takes float types only")
    with np.errstate(all="ignore"):
        x64 = x.astype(np.float64)
    if op == "IsNaN":
        return np.isnan(x64)
    pos, neg = int(attributes.get("detect_positive", 1)), int(attributes.get("detect_negative", 1))
    if pos not in (0, 1) or neg not in (0, 1):
        raise Unsupported("IsInf: detect_positive and detect_negative must be 0 or 1")
    return (bool(pos) & (x64 == np.inf)) | (bool(neg) & (x64 == -np.inf))


def _float_unary(op: str, x: np.ndarray) -> np.ndarray:
    if x.dtype not in (F16, F32, F64):
        raise Unsupported(f"{op} takes f16, f32, f64 only")
    f = {
        "Reciprocal": np.reciprocal,
        "Sqrt": np.sqrt,
        "Floor": np.floor,  # IEEE floor/ceil keep the sign of x (ceil(-0.7) is -0)
        "Ceil": np.ceil,
        "Round": np.rint,  # half to even, keeps the sign of zero
    }[op]
    return _float_un(x, f)


# --------------------------------------------------------------------------------------------- Clip


def _clip(ins: Sequence[np.ndarray | None], attributes: dict[str, Any], opset: int | None) -> np.ndarray:
    x = ins[0]
    assert x is not None
    dt = x.dtype
    if dt == np.bool_ or dt == BF16:
        raise Unsupported(f"Clip does not take {dt}")
    old_form = opset is not None and opset < 11
    if old_form:  # attributes min/max (float), defaults lowest/highest finite FLOAT
        if not is_float(dt):
            raise Unsupported("Clip before opset 12 takes float types only")
        fmax = float(np.finfo(np.float32).max)
        lo = np.float32(attributes.get("min", -fmax))
        hi = np.float32(attributes.get("max", fmax))
        cd = _compute_dtype(dt)
        lo_a, hi_a = np.asarray(lo).astype(cd), np.asarray(hi).astype(cd)
    else:
        if not is_float(dt) and opset is not None and opset < 12:
            raise Unsupported("Clip takes integer types from opset 12")
        ext = np.finfo(dt) if is_float(dt) else np.iinfo(dt)
        cd = _compute_dtype(dt)
        bounds = []
        for k, default in ((1, ext.min), (2, ext.max)):  # an omitted bound is the type's finite extreme
            b = ins[k] if len(ins) > k else None
            if b is None or b.size == 0:
                bounds.append(np.asarray(default, dtype=dt).astype(cd))
            else:
                if b.dtype != dt or b.size != 1:
                    raise Unsupported("Clip bounds are single values of x's type")
                bounds.append(b.reshape(()).astype(cd))
        lo_a, hi_a = bounds
    with np.errstate(all="ignore"):
        r = x.astype(cd)
        r = np.where(r < lo_a, lo_a, r)  # NaN compares false: passes through
        r = np.where(r > hi_a, hi_a, r)  # the upper bound wins when lo > hi
        return np.asarray(r, dtype=cd).astype(dt)


# --------------------------------------------------------------------------------------------- Pow

POW_BASES = (F32, F64, np.dtype(np.int32), np.dtype(np.int64))
POW_EXPONENTS = (*POW_BASES, np.dtype(np.uint32), np.dtype(np.uint64))
_POW_CTX = {
    # MPFR contexts that round once to the format: precision, exponent range, subnormals
    F32: gmpy2.context(precision=24, emin=-148, emax=128, subnormalize=True, round=gmpy2.RoundToNearest),
    F64: gmpy2.context(precision=53, emin=-1073, emax=1024, subnormalize=True, round=gmpy2.RoundToNearest),
}


def _to_format(x: np.ndarray, dt: np.dtype) -> np.ndarray:
    """A base or exponent converted to the float format `dt` (round to nearest even)."""
    if is_float(x.dtype):
        return round_to_float(to_float64(x), dt)
    return int_to_float(x, dt)


def pow_float(x: float, y: float, dt: np.dtype) -> float:
    """pow(x, y) in format dt (f32/f64 values as Python floats): y == 0 gives 1, y == 2 is x * x, otherwise
    the correctly rounded pow (MPFR; its special values are those of C99 Annex F)."""
    if y == 0:
        return 1.0
    if y == 2:
        with np.errstate(all="ignore"):
            return float(np.asarray(x, dt) * np.asarray(x, dt))
    with _POW_CTX[np.dtype(dt)]:
        return float(gmpy2.mpfr(x, 53) ** gmpy2.mpfr(y, 53))


def _pow(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if a.dtype not in POW_BASES or b.dtype not in POW_EXPONENTS:
        raise Unsupported(f"Pow: base {a.dtype}, exponent {b.dtype} not served")
    bt = a.dtype
    fmt = bt if is_float(bt) else F64  # an integer base computes in f64
    xf = _to_format(a, fmt).astype(np.float64)
    yf = _to_format(b, fmt).astype(np.float64)
    xf, yf = np.broadcast_arrays(xf, yf)
    r = np.array(
        [pow_float(u, v, fmt) for u, v in zip(xf.ravel().tolist(), yf.ravel().tolist())], dtype=np.float64
    ).reshape(xf.shape)
    if is_float(bt):
        return r.astype(bt)  # exact: every value is already in the format
    return float_to_int(r, bt)  # truncate, saturate, NaN gives 0


def ulp_steps(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """Per element, how many representable values apart two float arrays of one type are (0 for two NaNs,
    a huge number for NaN against a number). -0 and +0 are one step apart."""
    u = UINT_OF[np.dtype(want.dtype)]
    nbits = u.itemsize * 8
    g = np.ascontiguousarray(got).view(u).astype(object)
    w = np.ascontiguousarray(want).view(u).astype(object)
    sign = 1 << (nbits - 1)

    def ordered(v: Any) -> Any:
        return sign - 1 - v if v >= sign else v  # -0 -> -1, +0 -> 0, more negative below

    og = np.frompyfunc(ordered, 1, 1)(g) if g.size else g
    ow = np.frompyfunc(ordered, 1, 1)(w) if w.size else w
    steps = np.abs(og - ow).astype(np.float64) if g.size else np.zeros(got.shape)
    gn, wn = np.isnan(got), np.isnan(want)
    return np.where(gn & wn, 0.0, np.where(gn | wn, np.inf, steps))


def pow_within(got: np.ndarray, want: np.ndarray, ulps: int = 1) -> np.ndarray:
    """Per element, whether a Pow result is acceptable against the expected one: floats within `ulps`
    representable steps (infinities and NaN exact); integer bases (computed in f64, truncated) equal, or
    for |want| >= 2^53 (not exact in f64) off by at most `ulps` f64 ulps of want."""
    if is_float(want.dtype):
        ok = ulp_steps(got, want) <= ulps
        inf = np.isinf(want) | np.isinf(got)
        return ok & (~inf | (got.astype(np.float64) == want.astype(np.float64)))
    g = np.array([int(v) for v in got.ravel().tolist()], dtype=object)
    w = np.array([int(v) for v in want.ravel().tolist()], dtype=object)
    res = []
    for gv, wv in zip(g.tolist(), w.tolist()):
        tol = 0 if abs(wv) < 2**53 else ulps * (1 << (abs(wv).bit_length() - 53))
        res.append(abs(gv - wv) <= tol)
    return np.array(res, dtype=np.bool_).reshape(got.shape)


# --------------------------------------------------------------------------------------------- entry


BINARY = frozenset({"Add", "Sub", "Mul", "Div", "Mod"})
UNARY = frozenset({"Neg", "Abs", "Sign"}) | TRANSCENDENTAL
VARIADIC = frozenset({"Max", "Min", "Sum", "Mean"})
COMPARISONS = frozenset({"Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual"})
LOGIC = frozenset({"Not", "And", "Or", "Xor"})
FLOAT_UNARY = frozenset({"Reciprocal", "Sqrt", "Floor", "Ceil", "Round"})
ACTIVATIONS = frozenset({"HardSigmoid", "HardSwish"})
OTHER = frozenset({"Where", "Cast", "CastLike", "Clip", "Pow"})
RELU_FAMILY = frozenset({"Relu", "PRelu", "LeakyRelu", "ThresholdedRelu", "Softsign"})
FLOAT_CLASS = frozenset({"IsNaN", "IsInf"})
KNOWN_OPS = (BINARY | UNARY | VARIADIC | COMPARISONS | LOGIC | FLOAT_UNARY | ACTIVATIONS | OTHER) | (
    RELU_FAMILY | FLOAT_CLASS
)
ARITY = {
    **{op: 2 for op in BINARY | COMPARISONS | {"And", "Or", "Xor", "CastLike", "Pow", "PRelu"}},
    **{op: 1 for op in UNARY | FLOAT_UNARY | ACTIVATIONS | FLOAT_CLASS | {"Not", "Cast"}},
    **{op: 1 for op in RELU_FAMILY - {"PRelu"}},
    "Where": 3,
}


def evaluate(
    op: str,
    inputs: Sequence[np.ndarray | None],
    attributes: dict[str, Any] | None = None,
    mode: str = "exact",
    opset: int | None = None,
) -> np.ndarray:
    """The spec's result of `op` on `inputs`; NaNs canonical in exact mode.

    `opset` matters for Clip only (attribute bounds before 11); None is the newest form. An omitted optional
    input (Clip's bounds) is None.
    """
    attributes = attributes or {}
    ins = [None if x is None else np.asarray(x) for x in inputs]
    if op == "Clip":
        if not 1 <= len(ins) <= 3 or ins[0] is None:
            raise Unsupported("Clip takes 1 to 3 inputs")
        r = _clip(ins, attributes, opset)
        return canonicalize(np.asarray(r)) if mode == "exact" else np.asarray(r)
    if any(x is None for x in ins):
        raise Unsupported(f"{op}: no optional inputs")
    arrs: list[np.ndarray] = [x for x in ins if x is not None]
    if op in ARITY and len(arrs) != ARITY[op]:
        raise Unsupported(f"{op} takes {ARITY[op]} input(s)")
    if op in BINARY:
        r = _binary(op, arrs[0], arrs[1], int(attributes.get("fmod", 0)))
    elif op in UNARY:
        r = _unary(op, arrs[0], attributes)
    elif op in VARIADIC:
        if not arrs:
            raise Unsupported(f"{op} takes at least 1 input")
        if any(x.dtype != arrs[0].dtype for x in arrs):
            raise Unsupported(f"{op}: mixed element types")
        r = _fold(op, arrs)
    elif op in COMPARISONS:
        r = _compare(op, arrs[0], arrs[1])
    elif op in LOGIC:
        r = _logic(op, arrs)
    elif op in FLOAT_UNARY:
        r = _float_unary(op, arrs[0])
    elif op in RELU_FAMILY:
        r = _relu_family(op, arrs, attributes)
    elif op in FLOAT_CLASS:
        r = _float_class(op, arrs[0], attributes)
    elif op in ACTIVATIONS:
        r = _activation(op, arrs[0], attributes)
    elif op == "Where":
        r = _where(arrs[0], arrs[1], arrs[2])
    elif op == "Cast":
        if "to" not in attributes:
            raise Unsupported("Cast needs the attribute 'to'")
        r = cast(arrs[0], np_dtype_of(attributes["to"]))
    elif op == "CastLike":
        r = cast(arrs[0], arrs[1].dtype)  # never reads input 1's values
    elif op == "Pow":
        r = _pow(arrs[0], arrs[1])
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
    with np.errstate(all="ignore"):
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
