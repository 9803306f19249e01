"""The integer matrix-product kernels (quant/qgemm.h) against a NumPy int64 reference taken modulo 2^32.

Every kernel this CPU runs (each path, and the 512 path's AMX-INT8 and AVX-512 VNNI kernels where the CPU has
them) on every
combination of uint8 / int8 operands and zero points (none, one, per row / per column), on shapes with tails
in every dimension (rows past a tile, columns past a panel, K not a multiple of four), with B packed first or
not and the tasks in reverse order: the same bits as the reference, hence as each other.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

from onemodel_ep._lib import PATH_NAMES, ffi, kernel_paths, native_test_entry


def _kernels() -> list[tuple[int, int, str]]:
    """(path index, ext, kernel name) of every distinct kernel this CPU runs."""
    name_of = native_test_entry("om_test_qgemm_kernel")
    out, seen = [], set()
    for p in range(len(PATH_NAMES)):
        for ext in (0, 1, 2):
            n = name_of(p, ext)
            if n != ffi.NULL and ffi.string(n) not in seen:
                seen.add(ffi.string(n))
                out.append((p, ext, ffi.string(n).decode()))
    return out


KERNELS = _kernels()


def reference(a: np.ndarray, b: np.ndarray, za: np.ndarray | None, zb: np.ndarray | None) -> np.ndarray:
    """sum_k (a - za)(b - zb) in int64, wrapped to int32 (two's complement)."""
    a64 = a.astype(np.int64) - (0 if za is None else za.astype(np.int64).reshape(-1, 1))
    b64 = b.astype(np.int64) - (0 if zb is None else zb.astype(np.int64).reshape(1, -1))
    return (a64 @ b64).astype(np.uint64).astype(np.uint32).view(np.int32)


def run(p: int, ext: int, a: np.ndarray, b: np.ndarray, za: np.ndarray | None, zb: np.ndarray | None,
        prepack: int = 0, reverse: int = 0) -> np.ndarray:
    m, k = a.shape
    n = b.shape[1]
    c = np.full((m, n), 0x5A5A5A5A, np.int32)
    a = np.ascontiguousarray(a)
    b = np.ascontiguousarray(b)

    def ptr(x: np.ndarray | None) -> object:
        return ffi.NULL if x is None else ffi.from_buffer(x)

    rc = native_test_entry("om_test_qgemm")(
        p, ext, int(a.dtype == np.int8), int(b.dtype == np.int8), m, n, k, ptr(a), ptr(b), ptr(za),
        0 if za is None or za.size == 1 else 1, ptr(zb), 0 if zb is None or zb.size == 1 else 1, prepack,
        reverse, ffi.cast("int32_t*", ffi.from_buffer(c)))
    assert rc == 0
    return c


def _operand(rng: np.random.Generator, dt: type, shape: tuple[int, ...]) -> np.ndarray:
    info = np.iinfo(dt)
    x = rng.integers(info.min, info.max, shape, dtype=dt, endpoint=True)
    x.flat[:2] = [info.min, info.max]  # the extremes: the largest products
    return x


def _zp(rng: np.random.Generator, dt: type, kind: str, count: int) -> np.ndarray | None:
    if kind == "none":
        return None
    return _operand(rng, dt, (1 if kind == "one" else count,))


@pytest.mark.parametrize("at", [np.uint8, np.int8])
@pytest.mark.parametrize("bt", [np.uint8, np.int8])
@pytest.mark.parametrize("zkind", ["none", "one", "each"])
@pytest.mark.parametrize("shape", [(1, 1, 1), (13, 37, 67), (33, 70, 5), (8, 32, 64), (97, 129, 258),
                                   (64, 64, 256), (40, 33, 200), (37, 45, 16), (21, 9, 17)])
def test_every_kernel_equals_int64_reference(at, bt, zkind, shape):
    m, n, k = shape
    rng = np.random.default_rng(m * 1000 + n + k)
    a, b = _operand(rng, at, (m, k)), _operand(rng, bt, (k, n))
    za, zb = _zp(rng, at, zkind, m), _zp(rng, bt, zkind, n)
    want = reference(a, b, za, zb)
    for p, ext, name in KERNELS:
        for prepack, reverse in ((0, 0), (1, 1)):
            got = run(p, ext, a, b, za, zb, prepack, reverse)
            assert got.tobytes() == want.tobytes(), (name, prepack, reverse)


def test_wraps_modulo_2_32():
    """A sum past int32's range wraps (two's complement), on every kernel: 255 * -128 * 70001 < -2^31."""
    k = 70001
    a = np.full((5, k), 255, np.uint8)
    b = np.full((k, 3), -128, np.int8)
    want = reference(a, b, None, None)
    assert (a.astype(np.int64) @ b.astype(np.int64)).min() < -(2**31)  # the case does overflow
    for p, ext, name in KERNELS:
        assert run(p, ext, a, b, None, None).tobytes() == want.tobytes(), name


def test_k_zero_gives_zero():
    a = np.zeros((3, 0), np.uint8)
    b = np.zeros((0, 4), np.int8)
    for p, ext, _ in KERNELS:
        assert (run(p, ext, a, b, np.array([7], np.uint8), np.array([3], np.int8)) == 0).all()


def test_extension_kernels_present_where_cpu_has_them():
    """The 512 path's extension kernels are there exactly where the CPU has AVX512_VNNI, AMX-INT8 (Linux lets
    every process ask for the tiles)."""
    if not os.path.exists("/proc/cpuinfo"):
        pytest.skip("no /proc/cpuinfo to read the CPU's flags from")
    with open("/proc/cpuinfo") as f:
        flags = f.read()
    names = [n for _, _, n in KERNELS]
    if "512" in kernel_paths():
        assert ("512-vnni" in names) == (" avx512_vnni" in flags)
        assert ("512-amx" in names) == (" amx_int8" in flags and " amx_tile" in flags)
