"""The rules that differ between x86-64 and AArch64 hardware, each pinned on every kernel path of this
machine.

Exact mode promises the same bits on both; these are the places where the two ISAs (or their C ABIs) would
give different answers if the library leaned on them (docs/exact-mode.md, "ARM64"):
- contraction: GCC contracts a*b + c into one fused operation by default on AArch64; the build passes
  -ffp-contract=off, and HardSwish and HardSigmoid must round their product and their sum separately;
- the caller's floating-point environment: flush-to-zero, default-NaN and the rounding mode (MXCSR on x86,
  FPCR on AArch64) are reset for each kernel call and restored after it;
- float-to-integer conversion of out-of-range values (CVTTPS2DQ gives INT_MIN, FCVTZS saturates): Cast follows
  the spec's saturation rules on both, relying on neither;
- integer division by zero (x86 traps, SDIV gives 0): Div and Mod give 0, MIN / -1 wraps;
- char signedness (signed on x86, unsigned on AArch64): int8 values keep their sign;
- long double (80-bit on x86, 128-bit on AArch64): the library does not use it.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import platform
import re
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from onnx import TensorProto

import onemodel_ep
from onemodel_ep.node import Node

PATHS = onemodel_ep.kernel_paths()
MACHINE = platform.machine().lower()
X86 = MACHINE in ("x86_64", "amd64")
ARM64 = MACHINE in ("aarch64", "arm64")
F32, F64, F16 = TensorProto.FLOAT, TensorProto.DOUBLE, TensorProto.FLOAT16
CSRC = Path(__file__).resolve().parents[2] / "provider" / "csrc"


def _bits(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a).view(f"u{a.dtype.itemsize}")


# ---- contraction -------------------------------------------------------------------------------------------
def _act_inputs() -> np.ndarray:
    rng = np.random.default_rng(26)
    return rng.uniform(-4.0, 4.0, 1 << 16).astype(np.float32)


@pytest.mark.parametrize("path", PATHS)
def test_hardswish_rounds_product_and_sum_separately(path):
    x = _act_inputs()
    c, half = np.float32(0.16666667), np.float32(0.5)
    hs = np.clip(x * c + half, np.float32(0), np.float32(1))  # numpy: x*c rounded, then + 0.5 rounded
    want = x * hs
    fused = (x.astype(np.float64) * np.float64(c) + 0.5).astype(np.float32)  # x*c exact, one rounding
    fused_want = x * np.clip(fused, np.float32(0), np.float32(1))
    assert np.count_nonzero(_bits(fused_want) != _bits(want)) > 100  # the inputs tell the two apart
    got = Node("HardSwish", [F32], onnx_opset=14, kernel_path=path).run(x)
    assert np.array_equal(_bits(got), _bits(want)), path


@pytest.mark.parametrize("path", PATHS)
def test_hardsigmoid_rounds_product_and_sum_separately(path):
    x = _act_inputs()
    alpha, beta = np.float32(0.2), np.float32(0.5)
    want = np.clip(alpha * x + beta, np.float32(0), np.float32(1))
    fused = np.clip((np.float64(alpha) * x.astype(np.float64) + 0.5).astype(np.float32), np.float32(0),
                    np.float32(1))
    assert np.count_nonzero(_bits(fused) != _bits(want)) > 100
    got = Node("HardSigmoid", [F32], onnx_opset=6, kernel_path=path).run(x)
    assert np.array_equal(_bits(got), _bits(want)), path


# ---- the caller's floating-point environment ---------------------------------------------------------------
def _libm() -> ctypes.CDLL:
    name = ctypes.util.find_library("m")
    if not name or platform.system() != "Linux":
        pytest.skip("needs glibc's fenv functions")
    return ctypes.CDLL(name)


@contextlib.contextmanager
def _caller_env(kind: str) -> Iterator[None]:
    """The calling thread's FP environment set to flush-to-zero (x86: FTZ and DAZ in MXCSR; AArch64: FZ and
    DN in FPCR) or to round upward, restored afterwards. glibc's fenv_t: x86-64 keeps MXCSR at byte 28;
    AArch64's is {fpcr, fpsr}."""
    m = _libm()
    saved = ctypes.create_string_buffer(64)
    assert m.fegetenv(saved) == 0
    try:
        if kind == "upward":
            assert m.fesetround(0x800 if X86 else 0x400000) == 0
        else:
            env = ctypes.create_string_buffer(saved.raw, 64)
            if X86:
                mx = int.from_bytes(env.raw[28:32], "little") | 0x8040
                ctypes.memmove(ctypes.addressof(env) + 28, mx.to_bytes(4, "little"), 4)
            else:
                fpcr = int.from_bytes(env.raw[0:4], "little") | (1 << 24) | (1 << 25)
                ctypes.memmove(ctypes.addressof(env), fpcr.to_bytes(4, "little"), 4)
            assert m.fesetenv(env) == 0
        yield
    finally:
        m.fesetenv(saved)


needs_env = pytest.mark.skipif(not (X86 or ARM64), reason="the fenv layouts known here: x86-64 and AArch64")


@needs_env
@pytest.mark.parametrize("path", PATHS)
def test_caller_flush_to_zero_does_not_reach_kernels(path):
    rng = np.random.default_rng(7)
    x = (rng.uniform(1, 2, 4099) * 2.0**-130).astype(np.float32)  # subnormal
    y = rng.uniform(0.25, 4, 4099).astype(np.float32)
    t = rng.uniform(-103.0, -87.5, 4099).astype(np.float32)  # e^t subnormal
    mul = Node("Mul", [F32, F32], kernel_path=path)
    exp = Node("Exp", [F32], kernel_path=path)
    want_mul, want_exp = mul.run(x, y), exp.run(t)
    assert np.array_equal(_bits(want_mul), _bits(x * y))
    assert np.count_nonzero(want_exp) > 4000
    with _caller_env("ftz"):
        flushed = x * y  # numpy on this thread: the environment is in force
        got_mul, got_exp = mul.run(x, y), exp.run(t)
    assert np.count_nonzero(flushed) == 0
    assert np.array_equal(_bits(got_mul), _bits(want_mul)), path
    assert np.array_equal(_bits(got_exp), _bits(want_exp)), path


@needs_env
@pytest.mark.parametrize("path", PATHS)
def test_caller_rounding_mode_does_not_reach_kernels(path):
    rng = np.random.default_rng(8)
    x = rng.normal(0, 10, 4099).astype(np.float32)
    y = rng.normal(0, 10, 4099).astype(np.float32)
    add = Node("Add", [F32, F32], kernel_path=path)
    tanh = Node("Tanh", [F32], kernel_path=path)
    want_add, want_tanh = add.run(x, y), tanh.run(x)
    with _caller_env("upward"):
        up = x + y
        got_add, got_tanh = add.run(x, y), tanh.run(x)
    assert np.count_nonzero(_bits(up) != _bits(x + y)) > 100
    assert np.array_equal(_bits(got_add), _bits(want_add)), path
    assert np.array_equal(_bits(got_tanh), _bits(want_tanh)), path


@pytest.mark.skipif(not ARM64, reason="FPCR.DN (default NaN) is an AArch64 bit")
@pytest.mark.parametrize("path", PATHS)
def test_caller_default_nan_does_not_reach_kernels(path):
    """Fast mode keeps the NaN payload the hardware propagates; with FPCR.DN set it would be the default
    NaN."""
    x = np.full(37, 0x7FC12345, dtype=np.uint32).view(np.float32)
    y = np.ones(37, dtype=np.float32)
    add = Node("Add", [F32, F32], mode="fast", kernel_path=path)
    want = add.run(x, y)
    assert (_bits(want) == 0x7FC12345).all()
    with _caller_env("ftz"):
        dn = (x + y).view(np.uint32)
        got = add.run(x, y)
    assert (dn == 0x7FC00000).all()
    assert np.array_equal(_bits(got), _bits(want)), path


# ---- float -> integer, out of range ------------------------------------------------------------------------
INT_TYPES = {
    TensorProto.INT8: np.int8, TensorProto.INT16: np.int16, TensorProto.INT32: np.int32,
    TensorProto.INT64: np.int64, TensorProto.UINT8: np.uint8, TensorProto.UINT16: np.uint16,
    TensorProto.UINT32: np.uint32, TensorProto.UINT64: np.uint64,
}
EDGES = [np.nan, -np.nan, np.inf, -np.inf, 3e38, -3e38, 2.0**31, -(2.0**31), -(2.0**31) - 256, 2.0**32,
         2.0**63, -(2.0**63), 2.0**64, 1e19, -1.5, -0.99, 0.99, 127.9, 128.0, -128.9, -129.0, 255.9, 256.0,
         32767.5, 32768.0, -32769.0, 65535.9, 65536.0, 2147483520.0, 4294967040.0, -0.0, 1.0]


def _saturate(v: float, dt: type) -> int:
    if v != v:
        return 0
    info = np.iinfo(dt)
    if v == np.inf or v >= info.max + 1:
        return int(info.max)
    if v == -np.inf or v <= info.min - 1:
        return int(info.min)
    return int(v)  # truncation toward zero


@pytest.mark.parametrize("src", [F32, F64, F16], ids=["f32", "f64", "f16"])
@pytest.mark.parametrize("to", sorted(INT_TYPES), ids=lambda t: np.dtype(INT_TYPES[t]).name)
@pytest.mark.parametrize("path", PATHS)
def test_cast_float_to_int_saturates(src, to, path):
    sdt = {F32: np.float32, F64: np.float64, F16: np.float16}[src]
    with np.errstate(over="ignore"):
        x = np.array(EDGES * 3, dtype=sdt)  # vector bodies and a tail
    want = np.array([_saturate(float(v), INT_TYPES[to]) for v in x], dtype=INT_TYPES[to])
    got = Node("Cast", [src], onnx_opset=21, attributes={"to": to}, kernel_path=path).run(x)
    assert np.array_equal(got, want), (path, list(zip(x[got != want], got[got != want])))


# ---- integer division by zero ------------------------------------------------------------------------------
@pytest.mark.parametrize("to", sorted(INT_TYPES), ids=lambda t: np.dtype(INT_TYPES[t]).name)
@pytest.mark.parametrize("path", PATHS)
def test_integer_division_by_zero_gives_zero(to, path):
    dt = INT_TYPES[to]
    info = np.iinfo(dt)
    x = np.array([info.min, info.max, 0, 1, 7, info.min, 5] * 9, dtype=dt)
    y = np.array([0, 0, 0, 0, 0, -1 if info.min else 1, 3] * 9, dtype=dt)
    want_div = np.array([0, 0, 0, 0, 0, info.min, 1] * 9, dtype=dt)
    want_mod = np.array([0, 0, 0, 0, 0, 0, 2] * 9, dtype=dt)
    got_div = Node("Div", [to, to], kernel_path=path).run(x, y)
    assert np.array_equal(got_div, want_div), path
    for fmod in (0, 1):
        got = Node("Mod", [to, to], attributes={"fmod": fmod}, kernel_path=path).run(x, y)
        assert np.array_equal(got, want_mod), (path, fmod)


# ---- char signedness ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("path", PATHS)
def test_int8_values_keep_their_sign(path):
    x = np.arange(-128, 128, dtype=np.int8)
    i8 = TensorProto.INT8
    assert np.array_equal(Node("Cast", [i8], attributes={"to": F32}, kernel_path=path).run(x),
                          x.astype(np.float32))
    assert np.array_equal(Node("Cast", [i8], attributes={"to": TensorProto.INT32}, kernel_path=path).run(x),
                          x.astype(np.int32))
    assert np.array_equal(Node("Less", [i8, i8], kernel_path=path).run(x, np.zeros_like(x)), x < 0)
    assert np.array_equal(Node("Sign", [i8], kernel_path=path).run(x), np.sign(x))
    assert np.array_equal(Node("Max", [i8, i8], kernel_path=path).run(x, np.zeros_like(x)), np.maximum(x, 0))
    u = x.view(np.uint8)
    u8 = TensorProto.UINT8
    assert np.array_equal(Node("Cast", [u8], attributes={"to": F32}, kernel_path=path).run(u),
                          u.astype(np.float32))


# ---- long double -------------------------------------------------------------------------------------------
LONG_DOUBLE = (r"\blong\s+double\b|\b__float128\b"  # the types, and floating literals with the L suffix
               r"|(?<![\w.])([0-9]+\.[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?[lL]\b|\b[0-9]+[eE][-+]?[0-9]+[lL]\b")
# (a literal has a digit: a member access such as `l.L` is not one)


def test_library_uses_no_long_double():
    """long double is 80-bit on x86-64 and 128-bit (software) on AArch64: a different result, and slow."""
    hits = []
    for p in sorted(CSRC.rglob("*")):
        if p.suffix in (".c", ".h", ".inc", ".def"):
            code = re.sub(r"/\*.*?\*/|//[^\n]*", "", p.read_text(), flags=re.S)
            if re.search(LONG_DOUBLE, code):
                hits.append(str(p.relative_to(CSRC)))
    assert not hits


@pytest.mark.parametrize("to", sorted(INT_TYPES), ids=lambda t: np.dtype(INT_TYPES[t]).name)
@pytest.mark.parametrize("path", PATHS)
def test_floor_mod_takes_the_divisor_sign(to, path):
    """GCC 12 for AArch64 turned the one-lane int64 mask (r ^ y) < 0 into 1 instead of -1 (the scalar path's
    floor Mod then added 1, not y); the mask is now an arithmetic shift."""
    dt = INT_TYPES[to]
    info = np.iinfo(dt)
    x = np.array([-7, 7, -7, 7, info.min + 1, info.max, 1, -1] * 5, dtype=object)
    y = np.array([3, -3, -3, 3, info.max, info.min + 1, -2, 2] * 5, dtype=object)
    if not info.min:
        x, y = np.abs(x) % info.max, np.abs(y) % info.max + 1
    want = np.array([int(a) - int(b) * (int(a) // int(b)) for a, b in zip(x, y)], dtype=dt)
    got = Node("Mod", [to, to], attributes={"fmod": 0}, kernel_path=path).run(x.astype(dt), y.astype(dt))
    assert np.array_equal(got, want), (path, got, want)
