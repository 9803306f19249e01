"""Correctly rounded f16 and bf16 references for Exp, Log, Tanh, Sigmoid, Erf, Gelu (none and tanh),
Softplus, Mish, Elu and Selu (ONNX's default parameters), and for Sin and Cos: all 65,536 inputs of each
type, from MPFR (gmpy2), written to testdata/transcendental16_refs.npz (Sin and Cos to
testdata/trig16_refs.npz, `--set trig`).

Method: each 16-bit input is decoded exactly; the function is evaluated in MPFR at 200 bits (the compound
formulas with a handful of correctly rounded operations: relative error well below 2^-190); the result is
rounded to the 16-bit format by integer arithmetic on its exact mantissa and exponent (round_exact: nearest,
ties to even, subnormals, overflow to infinity). When the 200-bit value lies within 2^-140 of a quantum from
a rounding boundary, it is recomputed at 800 and then 3200 bits (Ziv); one still that close is an error. No
rounding through float or any other intermediate format. NaN results are canonical (f16 0x7E00, bf16 0x7FC0);
Gelu(-inf) = -0.

    python -m tests.reference.transcendental16            # writes testdata/transcendental16_refs.npz
    python -m tests.reference.transcendental16 --check    # recomputes and compares with the committed file
    python -m tests.reference.transcendental16 --set trig [--check]   # testdata/trig16_refs.npz (sin, cos)

(from the repository root). tests/kernels/test_transcendentals_16.py reads the file and also recomputes a
random sample with this module.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from fractions import Fraction
from pathlib import Path

import gmpy2
import numpy as np
from gmpy2 import mpfr

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "testdata" / "transcendental16_refs.npz"
FUNCS = ["exp", "log", "tanh", "sigmoid", "erf", "gelu_erf", "gelu_tanh", "softplus", "mish", "elu", "selu"]
# ONNX's defaults (f32 values): Elu alpha 1; Selu alpha, gamma.
SELU_ALPHA, SELU_GAMMA = 1.67326319217681884765625, 1.05070102214813232421875
# Each set of functions and its file (MPFR's sin and cos reduce any argument exactly, at any precision).
SETS = {"main": (FUNCS, OUT), "trig": (["sin", "cos"], ROOT / "testdata" / "trig16_refs.npz")}
FMTS = ["f16", "bf16"]
# precision p (implicit bit included), least normal exponent, largest exponent, exponent field width
FMT = {"f16": (11, -14, 15, 5), "bf16": (8, -126, 127, 8)}
NAN = {"f16": 0x7E00, "bf16": 0x7FC0}
INF = {"f16": 0x7C00, "bf16": 0x7F80}


def decode(fmt: str, b: int) -> str | tuple[int, Fraction]:
    """The exact value of bit pattern b: 'nan', '+inf', '-inf' or (sign, magnitude)."""
    p, emin, _, ebits = FMT[fmt]
    s, e, m = b >> 15, (b >> (p - 1)) & ((1 << ebits) - 1), b & ((1 << (p - 1)) - 1)
    if e == (1 << ebits) - 1:
        return "nan" if m else ("-inf" if s else "+inf")
    if e == 0:
        return s, Fraction(m) * Fraction(2) ** (emin - (p - 1))
    return s, Fraction((1 << (p - 1)) + m) * Fraction(2) ** (e - 1 + emin - (p - 1))


def round_exact(fmt: str, sign: int, m: int, e: int) -> tuple[int, float | None]:
    """Round (-1)^sign m 2^e (m > 0) to fmt, nearest even: (bits, distance from the nearest rounding boundary
    in quanta, None when the value is exactly representable)."""
    p, emin, emax, _ = FMT[fmt]
    sb = 0x8000 if sign else 0
    big_e = m.bit_length() - 1 + e  # 2^big_e <= value < 2^(big_e + 1)
    if big_e > emax:
        return sb | INF[fmt], 1.0
    ep = max(big_e, emin)
    sh = ep - (p - 1) - e  # the quantum is 2^(ep - p + 1)
    if sh <= 0:
        n, dist = m << -sh, None
    else:
        n, rem, half = m >> sh, m & ((1 << sh) - 1), 1 << (sh - 1)
        dist = float(Fraction(abs(rem - half), 1 << sh))
        if rem > half or (rem == half and n & 1):
            n += 1
    # The encoding of n quanta at exponent ep: subnormals, the carry into the next binade and infinity alike.
    return sb | min(((ep - emin) << (p - 1)) + n, INF[fmt]), dist


def _gelu_tanh(x: mpfr) -> mpfr:
    """x/2 (1 + tanh u) = x sigma(2u), u = sqrt(2/pi) (x + 0.044715 x^3)."""
    u2 = 2 * gmpy2.sqrt(2 / gmpy2.const_pi()) * (x + mpfr("0.044715") * x * x * x)
    return x / (1 + gmpy2.exp(-u2))


# The functions without parameters, by name, at x in the current context.
_VALUE: dict[str, Callable[[mpfr], mpfr]] = {
    "exp": gmpy2.exp,
    "log": gmpy2.log,
    "tanh": gmpy2.tanh,
    "sigmoid": lambda x: 1 / (1 + gmpy2.exp(-x)),
    "erf": gmpy2.erf,
    # x Phi(x) = x erfc(-x/sqrt2)/2: no cancellation for x < 0
    "gelu_erf": lambda x: x * gmpy2.erfc(-x / gmpy2.sqrt(mpfr(2))) / 2,
    "gelu_tanh": _gelu_tanh,
    "sin": gmpy2.sin,  # NaN at +-inf; sin(-0) = -0
    "cos": gmpy2.cos,
    # max(x, 0) + log1p(e^-|x|): no overflow of e^x
    "softplus": lambda x: max(x, mpfr(0)) + gmpy2.log1p(gmpy2.exp(-abs(x))),
    # x tanh(log1p(e^x)); e^x overflowing to inf gives tanh(inf) = 1, the limit
    "mish": lambda x: x * gmpy2.tanh(gmpy2.log1p(gmpy2.exp(x))),
}


def value(name: str, x: mpfr, alpha: float | None = None, gamma: float | None = None) -> mpfr:
    """The function at x in the current context (alpha, gamma: Elu's and Selu's, ONNX's defaults if None)."""
    if name in _VALUE:
        return _VALUE[name](x)
    if name == "elu":  # x >= 0: x (-0 stays -0); else alpha expm1(x)
        a = mpfr(1.0 if alpha is None else alpha)
        return x if x >= 0 else a * gmpy2.expm1(x)
    if name == "selu":  # x > 0: gamma x; +-0: +0; else gamma alpha expm1(x)
        a = mpfr(SELU_ALPHA if alpha is None else alpha)
        g = mpfr(SELU_GAMMA if gamma is None else gamma)
        return g * x if x > 0 else mpfr(0) if x == 0 else g * a * gmpy2.expm1(x)
    raise ValueError(name)


def ref(
    name: str, fmt: str, b: int, prec: int = 200, alpha: float | None = None, gamma: float | None = None
) -> int:
    """The correctly rounded result (bits) of function name at the fmt input with bits b."""
    d = decode(fmt, b)
    if d == "nan":
        return NAN[fmt]
    if d == "-inf" and name in ("gelu_erf", "gelu_tanh", "mish"):
        return 0x8000  # the limits of x Phi(x) and of Mish: -0 (MPFR would give -inf * 0 = NaN)
    with gmpy2.context(precision=prec, emin=-16384, emax=16384):  # beyond: 0 or inf in both formats
        if isinstance(d, str):
            x = mpfr(d)
        else:
            x = mpfr(d[1], 256)
            x = -x if d[0] else x
        y = value(name, x, alpha, gamma)
    if gmpy2.is_nan(y):
        return NAN[fmt]
    sign = 1 if gmpy2.is_signed(y) else 0
    if gmpy2.is_infinite(y):
        return (0x8000 if sign else 0) | INF[fmt]
    if y == 0:
        return 0x8000 if sign else 0
    m, e = y.as_mantissa_exp()  # exact (abs(y) would round to the default context's 53 bits)
    bits, dist = round_exact(fmt, sign, abs(int(m)), int(e))
    if dist is not None and dist < 2.0 ** -(prec - 60):
        if prec >= 3200:
            raise AssertionError(f"{name} {fmt} {b:#06x}: within 2^-{prec - 60} of a rounding boundary")
        return ref(name, fmt, b, prec * 4, alpha, gamma)
    return bits


def table(key: str) -> np.ndarray:
    name, fmt = key.rsplit("_", 1)
    return np.array([ref(name, fmt, b) for b in range(65536)], dtype=np.uint16)


def compute_all(jobs: int, funcs: list[str] = FUNCS) -> dict[str, np.ndarray]:
    keys = [f"{n}_{f}" for n in funcs for f in FMTS]
    with ProcessPoolExecutor(max_workers=jobs) as ex:
        return dict(zip(keys, ex.map(table, keys)))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="compare with the committed file instead of writing")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--set", choices=sorted(SETS), default="main", help="which functions (and file)")
    ap.add_argument("--funcs", help="a comma-separated subset: recompute only these, keep the others")
    args = ap.parse_args()
    funcs, out = SETS[args.set]
    if args.funcs:
        if any(f not in funcs for f in args.funcs.split(",")):
            ap.error(f"--funcs: choose from {', '.join(funcs)}")
        funcs = args.funcs.split(",")
    t0 = time.time()
    refs = compute_all(args.jobs, funcs)
    print(f"computed {len(refs)} x 65536 references in {time.time() - t0:.1f} s")
    if args.check:
        old = np.load(out)
        bad = [k for k in refs if not np.array_equal(old[k], refs[k])]
        print("differs: " + ", ".join(bad) if bad else f"{out.name}: identical")
        return 1 if bad else 0
    if args.funcs and out.exists():
        with np.load(out) as old:
            refs = {**{k: old[k] for k in old.files}, **refs}
    np.savez_compressed(out, **refs)
    print(f"wrote {out.relative_to(ROOT)} ({out.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
