"""MatMulNBits' accuracy_level 4 product (provider/csrc/quant/nbits_int8.h) through its test entry
om_test_nbits_int8, on every kernel path of this CPU with and without the path's extension kernel (the 512
path's AVX-512 VNNI one, which the node picks where the CPU has it, so the other is reached only here): the
bits of tests/reference/reference_nbits_int8.py, written from docs/quantized.md ("accuracy_level 4: the int8
contract"). Needs a build with ONEMODEL_TEST_ENTRIES=1."""

from __future__ import annotations

import numpy as np
import pytest

from onemodel_ep._lib import PATH_NAMES, ffi, kernel_paths, native_test_entry
from tests.nodes.node_sessions import assert_exact_bits
from tests.reference import reference_nbits as RQ
from tests.reference import reference_nbits_int8 as R8

F32 = np.float32
CASES = [  # M, K, N, bits, block_size, zero points, bias
    (5, 300, 37, 4, 32, True, True),    # 4 rows a pass and one more, K tail, a short last panel
    (4, 256, 16, 8, 256, True, False),  # 8 bits (nibble halves without VNNI), block 256
    (3, 200, 33, 8, 64, False, True),   # default zero point 128
    (1, 96, 20, 4, 16, False, False),   # default zero point 8, block 16
]


def _run(path: int, ext: int, a: np.ndarray, w: dict[str, np.ndarray], K: int, N: int, bits: int, bs: int,
         ) -> np.ndarray:
    def ptr(x: np.ndarray | None, t: str) -> object:
        return ffi.NULL if x is None else ffi.cast(t, ffi.from_buffer(x))

    c = np.full((a.shape[0], N), np.nan, F32)
    rc = native_test_entry("om_test_nbits_int8")(
        path, ext, bits, bs, a.shape[0], K, N, ptr(a, "float*"), ptr(w["B"], "uint8_t*"),
        ptr(w["scales"], "float*"), ptr(w.get("zero_points"), "uint8_t*"), ptr(w.get("bias"), "float*"),
        ptr(c, "float*"))
    assert rc == 0
    return c


@pytest.mark.parametrize("case", CASES, ids=str)
def test_every_path_with_and_without_vnni(case) -> None:
    M, K, N, bits, bs, zp, bias = case
    rng = np.random.default_rng(K + N + bits)
    kb = RQ.k_blocks(K, bs)
    w = {"B": RQ.pack_b(rng.integers(0, 1 << bits, (N, K), dtype=np.uint8), bits, bs),
         "scales": (rng.standard_normal(N * kb) * 0.02).astype(F32)}
    if zp:
        w["zero_points"] = RQ.pack_zero_points(rng.integers(0, 1 << bits, (N, kb), dtype=np.uint8), bits)
    if bias:
        w["bias"] = rng.standard_normal(N).astype(F32)
    a = rng.standard_normal((M, K)).astype(F32)
    a[0, :8] *= F32(1e30)  # one block far from the others' scale
    want = R8.matmul_nbits_int8(a, w["B"], w["scales"], w.get("zero_points"), w.get("bias"), K, N, bits, bs)
    for name in kernel_paths():
        for ext in (0, 1):
            got = _run(PATH_NAMES.index(name), ext, a, w, K, N, bits, bs)
            assert_exact_bits(f"path {name}, ext {ext}", got, want)
