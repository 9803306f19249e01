"""Einsum through the library's Node API on every kernel path, bit for bit (NaN payloads included) against
tests/reference/einsum_docs_reference.py, a reference written from docs/einsum.md alone."""

from __future__ import annotations

import zlib

import numpy as np
import pytest

import onemodel_ep
from onemodel_ep.node import Node, onnx_type_of
from tests.nodes.node_sessions import assert_exact_bits
from tests.reference.einsum_docs_reference import einsum

PATHS = onemodel_ep.kernel_paths()
F32 = np.float32


def _spread(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    """float32 values of both signs over 2^-12 .. 2^12: another summation order would show in the bits."""
    mant = rng.uniform(1.0, 2.0, shape)
    exp = rng.integers(-12, 13, shape)
    sign = rng.choice([-1.0, 1.0], shape)
    return (sign * np.ldexp(mant, exp)).astype(F32)


# (name, equation, input shapes)
CASES = [
    ("matmul", "ij,jk->ik", [(5, 7), (7, 6)]),
    ("attention scores", "bhid,bhjd->bhij", [(1, 2, 4, 8), (1, 2, 5, 8)]),
    ("attention context", "bhij,bhjd->bhid", [(2, 2, 4, 5), (2, 2, 5, 8)]),
    ("bilinear", "bn,anm,bm->ba", [(3, 4), (2, 4, 5), (3, 5)]),
    ("outer", "i,j->ij", [(4,), (5,)]),
    ("diagonal then product", "iij,jk->ik", [(3, 3, 6), (6, 2)]),
    ("sum-out of one input", "ijk->ik", [(3, 7, 4)]),
    ("own labels of both inputs summed", "abc,cde->be", [(2, 3, 4), (4, 5, 3)]),
    ("ellipsis broadcast", "...ij,...jk->...ik", [(2, 1, 3, 4), (3, 4, 2)]),
    ("implicit output", "Ba,ac", [(2, 5), (5, 3)]),
    ("implicit output with ellipsis", "...ij,...jk", [(2, 3, 4), (1, 4, 5)]),
    ("ellipsis dims summed (explicit output without them)", "...ij->ji", [(3, 2, 4, 5)]),
    ("K labels of two steps in equation order", "ab,bc,ca->", [(4, 5), (5, 6), (6, 4)]),
    ("scalar output", "i,i->", [(37,)] * 2),
    ("K of three blocks", "ik,kj->ij", [(2, 600), (600, 3)]),
    ("K of five blocks (the tree)", "ik,kj->ij", [(2, 1100), (1100, 3)]),
    ("two K labels in equation order", "ikl,lkj->ij", [(2, 30, 20), (20, 30, 3)]),
    ("sum-out over two blocks", "ij->i", [(3, 700)]),
    ("empty K", "ik,kj->ij", [(2, 0), (0, 3)]),
    ("empty output", "ij,jk->ik", [(0, 4), (4, 3)]),
    ("size-1 broadcast label", "ab,ab->ab", [(3, 1), (3, 4)]),
]


@pytest.mark.parametrize("name,equation,shapes", CASES, ids=[c[0] for c in CASES])
def test_float32_every_path(name: str, equation: str, shapes: list[tuple[int, ...]]) -> None:
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    xs = [_spread(rng, s) for s in shapes]
    want = einsum(equation, *xs)
    for path in PATHS:
        node = Node("Einsum", [onnx_type_of(x) for x in xs], onnx_opset=12, attributes={"equation": equation},
                    kernel_path=path)
        assert_exact_bits(f"{name} {equation} on {path}", node.run(*xs), want)


def _nan(bits: int) -> F32:
    return np.array(bits, np.uint32).view(F32)[()]


def test_signed_zeros_and_nans() -> None:
    """K = 1 products are fma(a, b, +0) (a -0 product gives +0); a NaN a product makes is 0x7FC00000; a copy
    (transpose, diagonal) keeps every bit, the NaN's payload and sign included."""
    a = np.array([-0.0, 1.0, _nan(0xFFC01234), -2.0], F32)
    b = np.array([3.0, -0.0, 0.5], F32)
    m = np.array([[_nan(0x7FA00001), -0.0], [1.5, _nan(0xFFC00007)]], F32)
    z = np.full((2, 3), -0.0, F32)  # a sum-out of -0s starts from +0: +0
    for equation, xs in (("i,j->ij", [a, b]), ("ij->ji", [m]), ("ii->i", [m]), ("ij,jk->ik", [m, m]),
                         ("ij->j", [m]), ("ij->i", [z]), ("ij,jk->ik", [z, z.T])):
        want = einsum(equation, *xs)
        for path in PATHS:
            node = Node("Einsum", [onnx_type_of(x) for x in xs], onnx_opset=12,
                        attributes={"equation": equation}, kernel_path=path)
            assert_exact_bits(f"{equation} on {path}", node.run(*xs), want)
    prod = einsum("i,j->ij", a, b)
    assert prod.view(np.uint32)[0, 0] == 0 and prod.view(np.uint32)[1, 1] == 0  # -0 * 3, 1 * -0: +0
    assert prod.view(np.uint32)[2, 0] == 0x7FC00000
    assert not einsum("ij->i", z).view(np.uint32).any()


def test_float64() -> None:
    """float64: the same steps, each fma in binary64."""
    rng = np.random.default_rng(11)
    xs = [np.ldexp(rng.uniform(-2.0, 2.0, s), rng.integers(-12, 13, s)) for s in [(3, 6, 5), (5, 6, 2)]]
    for equation, args in (("ikl,lkj->ij", xs), ("ijk->j", xs[:1])):
        want = einsum(equation, *args)
        for path in PATHS:
            node = Node("Einsum", [onnx_type_of(x) for x in args], onnx_opset=12,
                        attributes={"equation": equation}, kernel_path=path)
            assert_exact_bits(f"{equation} float64 on {path}", node.run(*args), want)


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_integers_wrap(dtype: type) -> None:
    """Integer products and sums wrap modulo 2^32 (2^64)."""
    info = np.iinfo(dtype)
    rng = np.random.default_rng(7)
    xs = [rng.integers(info.min, info.max, s, dtype=dtype, endpoint=True) for s in [(3, 9), (9, 4)]]
    for equation, args in (("ij,jk->ik", xs), ("ij->", xs[:1]), ("ij,jk,kl->il", [xs[0], xs[1], xs[1].T])):
        want = einsum(equation, *args)
        assert want.dtype == dtype
        for path in PATHS:
            node = Node("Einsum", [onnx_type_of(x) for x in args], onnx_opset=12,
                        attributes={"equation": equation}, kernel_path=path)
            assert_exact_bits(f"{equation} {np.dtype(dtype)} on {path}", node.run(*args), want)
