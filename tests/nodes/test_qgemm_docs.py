"""com.microsoft QGemm through the library's Node API on every kernel path, bit for bit (NaN payloads
included) against tests/reference/qgemm_docs_reference.py, written from docs/quantized-matmul.md alone."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pytest

import onemodel_ep
from onemodel_ep.node import Node, onnx_type_of
from tests.nodes.node_sessions import assert_exact_bits
from tests.reference.qgemm_docs_reference import qgemm

PATHS = onemodel_ep.kernel_paths()
F32, U8, I8, I32 = np.float32, np.uint8, np.int8, np.int32


@dataclass
class Case:
    name: str
    m: int
    k: int
    n: int
    a_type: type = U8
    b_type: type = I8
    per_column: bool = False
    c_shape: tuple[int, ...] | None = None  # None: no C; the shape of C (given as [M, N] form, see _c)
    y_type: type | None = None  # None: float Y; else requantised to this type
    y_scale: bool = False  # float Y divided by y_scale (without y_zero_point)
    attrs: dict[str, float] = field(default_factory=dict)


CASES = [
    Case("u8 x s8, per-tensor, float Y", 5, 9, 6),
    Case("u8 x u8, per-column, C [N], alpha, transB, uint8 Y", 4, 17, 7, b_type=U8, per_column=True,
         c_shape=(7,), y_type=U8, attrs={"alpha": 0.37, "transB": 1}),
    Case("s8 x s8, transA, C [M, 1], int8 Y", 6, 11, 5, a_type=I8, c_shape=(6, 1), y_type=I8,
         attrs={"transA": 1}),
    Case("s8 x u8, both transposed, C [M, N], float Y / y_scale", 3, 8, 4, a_type=I8, b_type=U8,
         per_column=True, c_shape=(3, 4), y_scale=True, attrs={"transA": 1, "transB": 1, "alpha": -1.75}),
    Case("C [] and int8 Y from uint8 A", 3, 5, 4, c_shape=(), y_type=I8),
    Case("C [1], per-column float Y", 2, 300, 3, per_column=True, c_shape=(1,)),
    Case("C [1, N], requantised uint8 from s8 x s8", 4, 64, 9, a_type=I8, c_shape=(1, 9), y_type=U8,
         per_column=True),
    Case("K = 0 with C", 3, 0, 4, per_column=True, c_shape=(3, 4), attrs={"alpha": 2.5}),
    Case("K = 0 requantised", 3, 0, 4, c_shape=(4,), y_type=U8),
    Case("M = 0", 0, 5, 4, c_shape=(4,)),
    Case("N = 0", 3, 5, 0, y_type=I8),
]


def _inputs(case: Case, rng: np.random.Generator) -> list[np.ndarray | None]:
    def ints(dtype: type, shape: tuple[int, ...]) -> np.ndarray:
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)

    ta, tb = int(case.attrs.get("transA", 0)), int(case.attrs.get("transB", 0))
    a = ints(case.a_type, (case.k, case.m) if ta else (case.m, case.k))
    b = ints(case.b_type, (case.n, case.k) if tb else (case.k, case.n))
    a_scale = np.array(rng.uniform(0.001, 0.05), F32)
    a_zp = ints(case.a_type, ())
    cols = (case.n,) if case.per_column else ()
    b_scale = rng.uniform(0.001, 0.05, cols).astype(F32)
    b_zp = ints(case.b_type, cols)
    c = None if case.c_shape is None else rng.integers(-(2**20), 2**20, case.c_shape).astype(I32)
    y_scale = y_zp = None
    if case.y_type is not None or case.y_scale:
        y_scale = np.array(rng.uniform(0.5, 4.0) * (case.k + 1), F32)
    if case.y_type is not None:
        y_zp = ints(case.y_type, ())
    return [a, a_scale, a_zp, b, b_scale, b_zp, c, y_scale, y_zp]


def _check(what: str, inputs: list[np.ndarray | None], attrs: dict[str, float]) -> np.ndarray:
    """Y on every path against the reference's; `inputs` in QGemm's order, trailing absent ones left out."""
    a, a_scale, a_zp, b, b_scale, b_zp, c, y_scale, y_zp = [*inputs, *[None] * (9 - len(inputs))]
    want = qgemm(a, a_scale, a_zp, b, b_scale, b_zp, c, y_scale, y_zp, alpha=attrs.get("alpha", 1.0),
                 trans_a=int(attrs.get("transA", 0)), trans_b=int(attrs.get("transB", 0)))
    while inputs and inputs[-1] is None:  # trailing absent optional inputs are left out
        inputs = inputs[:-1]
    types = [0 if x is None else onnx_type_of(x) for x in inputs]
    for path in PATHS:
        node = Node("com.microsoft.QGemm", types, onnx_opset=1, attributes=dict(attrs), kernel_path=path)
        assert_exact_bits(f"{what} on {path}", node.run(*inputs), want)
    return want


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_every_path(case: Case) -> None:
    rng = np.random.default_rng(sum(case.name.encode()))
    _check(case.name, _inputs(case, rng), case.attrs)


def test_wrapping_sums_and_c() -> None:
    """Sums and C past int32 wrap modulo 2^32 (step 2), never saturate."""
    k = 40000  # 40000 * 255 * 128 > 2^31
    a = np.full((2, k), 255, U8)
    b = np.full((k, 3), -128, I8)
    c = np.array([2**31 - 5, -(2**31), 7], I32)
    one = np.array(1.0, F32)
    for zp in (np.array(0, U8), np.array(3, U8)):
        want = _check("wrap", [a, one, zp, b, np.array(1.0, F32), np.array(0, I8), c], {})
        exact = (255 - int(zp)) * -128 * k + np.array([2**31 - 5, -(2**31), 7], np.int64)
        assert np.array_equal(want, ((exact + 2**31) % 2**32 - 2**31).astype(F32)[None].repeat(2, 0))


def test_half_way_rounding_and_saturation() -> None:
    """Requantisation: half to even, clamping to [qmin - z, qmax - z] before adding z, NaN to qmin."""
    a = np.arange(-20, 20, dtype=I8).reshape(1, 40)
    b = np.eye(40, dtype=I8)[:, :40]  # acc = a
    one = np.array(1.0, F32)
    for y_zp in (np.array(3, I8), np.array(250, U8), np.array(0, U8)):
        for alpha in (0.5, 12.75):  # .5 ties; a large alpha saturates
            zero = np.array(0, I8)
            inputs = [a, one, zero, b, one, zero, None, one, y_zp]
            _check(f"ties alpha {alpha} z {y_zp}", inputs, {"alpha": alpha})


def test_special_scales() -> None:
    """inf, NaN and -0 scales: a float NaN is 0x7FC00000; requantised +inf -> qmax, -inf and NaN -> qmin."""
    rng = np.random.default_rng(3)
    a = rng.integers(0, 256, (3, 6), dtype=U8)
    b = rng.integers(-128, 128, (6, 5), dtype=I8)
    b_scale = np.array([np.inf, -np.inf, np.nan, -0.0, 0.25], F32)
    b_zp = np.array([0, 1, -1, 5, 0], I8)
    a_zp = np.array(100, U8)
    for a_scale in (np.array(0.5, F32), np.array(-0.0, F32), np.array(np.inf, F32)):
        _check(f"float, a_scale {a_scale}", [a, a_scale, a_zp, b, b_scale, b_zp], {})
        _check(f"uint8, a_scale {a_scale}", [a, a_scale, a_zp, b, b_scale, b_zp, None, np.array(0.5, F32),
                                             np.array(128, U8)], {})
    _check("y_scale 0", [a, np.array(0.5, F32), a_zp, b, np.array(0.25, F32), np.array(0, I8), None,
                         np.array(0.0, F32), np.array(10, U8)], {})
