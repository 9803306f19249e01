"""com.microsoft MatMulNBits on OneModel's kernels, bit for bit against the independent reference
(tests/reference/matmul_nbits_reference.py, written from docs/quantized.md and docs/exact-linalg.md alone).

B and zero_points are packed by the reference's own packer, from the contract's layout (the padding past K
and a trailing unused zero-point nibble filled with random bits: the contract never reads them). Each case is
a one-node model (B, scales, zero_points, bias initializers; or graph inputs, then on the default path only)
run through onemodel_ep.InferenceSession via the EP and the rewrite on every kernel path (and with 2 threads);
the node must run on OneModel's kernels and Y must have the reference's bits (a NaN only as 0x7FC00000).
Cases: bits 4 and 8, every block_size from 16 to 256, K with tails and past one, two and four product blocks
of 256, N with tails, A of rank 1, 2 and 3 and with no rows, zero points absent / packed uint8 (flat and 2-D)
/ f32, scales flat and 2-D, bias or not, accuracy_level 0 to 3 and 4 with f32 zero points (the f32 contract;
level 4's int8 one is test_matmul_nbits_level4.py); NaN, inf, -0 and subnormal A, scales 0, -0, negative, inf,
NaN, and f32 zero points whose q - z rounds. Skipped, with the reason, while MatMulNBits is not
in op_table().

The packer is checked against ONNX Runtime's own quantizer (quantize_matmul_4bits / _8bits) and the reference
against stock ORT's MatMulNBits within a rounding tolerance (these run without the kernels).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

import onemodel_ep
from tests.nodes.exact_runs import VIAS, run_every_path, same_bits
from tests.reference.gemm_reference import gemm_ref
from tests.reference.matmul_nbits_reference import (
    dequantize,
    k_blocks,
    matmul_nbits,
    pack_weights,
    pack_zero_points,
    unpack_weights,
    zero_point_grid,
    zp_bytes,
)
from tests.reference.reference_linalg import gemm

KEY = "com.microsoft.MatMulNBits"
SEED = 20261203
F32 = np.float32


@dataclass(frozen=True)
class Case:
    name: str
    bits: int
    block: int
    k: int
    n: int
    a_lead: tuple[int, ...]  # A's shape is a_lead + (K,)
    zp: str = "u8"  # none, u8, u8_2d, f32, f32_2d
    bias: bool = True
    scales_2d: bool = False
    level: int = 0


CASES = [
    Case("b4_bs16_k16", 4, 16, 16, 8, (3,)),
    Case("b4_bs16_k17_tail", 4, 16, 17, 5, (2,), zp="none"),
    Case("b4_bs32_k1", 4, 32, 1, 3, (4,)),
    Case("b4_bs32_k37_odd_kblocks", 4, 32, 37, 9, (5,), zp="u8_2d", scales_2d=True),
    Case("b4_bs64_k100", 4, 64, 100, 33, (7,), zp="f32"),
    Case("b4_bs128_k255", 4, 128, 255, 17, (2, 3), bias=False),
    Case("b4_bs256_k256", 4, 256, 256, 4, (3,), zp="f32_2d", scales_2d=True),
    Case("b4_bs32_k257", 4, 32, 257, 6, (2,)),
    Case("b4_bs16_k600_three_kb", 4, 16, 600, 5, (3,), zp="u8"),
    Case("b4_bs64_k1029_five_kb", 4, 64, 1029, 3, (2,), zp="none", bias=False),
    Case("b4_bs128_k1024_four_kb", 4, 128, 1024, 24, (5,), zp="f32"),
    Case("b4_rank1", 4, 32, 70, 11, ()),
    Case("b4_rank3", 4, 16, 48, 7, (2, 2, 3), zp="u8_2d"),
    Case("b4_no_rows", 4, 32, 64, 5, (0,)),
    Case("b4_level3", 4, 32, 96, 13, (4,), level=3),  # levels 0-3: the f32 contract
    Case("f32zp_level4", 4, 32, 96, 13, (4,), level=4, zp="f32"),  # level 4 with f32 zero points: the same
    Case("b4_n1", 4, 64, 130, 1, (9,)),
    Case("b4_n_wide", 4, 32, 40, 70, (2,), zp="none"),
    Case("b8_bs16_k16", 8, 16, 16, 8, (3,)),
    Case("b8_bs16_k19_tail", 8, 16, 19, 5, (2,), zp="none"),
    Case("b8_bs32_k70", 8, 32, 70, 9, (5,), zp="u8_2d", scales_2d=True),
    Case("b8_bs64_k300", 8, 64, 300, 17, (3,), zp="f32"),
    Case("b8_bs128_k129", 8, 128, 129, 6, (2, 2), bias=False),
    Case("b8_bs256_k513", 8, 256, 513, 4, (2,), zp="f32_2d", scales_2d=True),
    Case("b8_bs32_k1029_five_kb", 8, 32, 1029, 3, (2,), zp="u8"),
    Case("b8_rank1", 8, 16, 33, 7, ()),
    Case("b8_no_rows", 8, 64, 64, 3, (2, 0)),
    Case("b8_level1", 8, 64, 128, 10, (3,), level=1, zp="none"),
]


@dataclass
class Data:
    a: np.ndarray
    b: np.ndarray
    scales: np.ndarray
    zp: np.ndarray | None
    bias: np.ndarray | None


def make_data(case: Case, seed: int) -> Data:
    rng = np.random.default_rng(seed)
    kbs = k_blocks(case.k, case.block)
    q = rng.integers(0, 1 << case.bits, (case.n, case.k), dtype=np.uint8)
    if q.size >= 2:
        q.flat[:2] = [0, (1 << case.bits) - 1]
    b = pack_weights(q, case.block, case.bits, rng)
    scales = (rng.uniform(0.5, 2.0, (case.n, kbs)) * 2.0 ** rng.integers(-8, 2, (case.n, kbs))
              * np.where(rng.random((case.n, kbs)) < 0.3, -1, 1)).astype(F32)
    scales = scales if case.scales_2d else scales.reshape(-1)
    zp: np.ndarray | None = None
    if case.zp.startswith("u8"):
        z = rng.integers(0, 1 << case.bits, (case.n, kbs), dtype=np.uint8)
        zp = pack_zero_points(z, case.bits, rng)
        if case.zp == "u8_2d":
            zp = zp.reshape(case.n, zp_bytes(case.k, case.block, case.bits))
    elif case.zp.startswith("f32"):
        zf = (rng.uniform(0, (1 << case.bits) - 1, (case.n, kbs))).astype(F32)
        zp = zf if case.zp == "f32_2d" else zf.reshape(-1)
    a = rng.normal(0, 1, case.a_lead + (case.k,)).astype(F32)
    bias = rng.normal(0, 4, case.n).astype(F32) if case.bias else None
    return Data(a, b, scales, zp, bias)


def want(case: Case, d: Data) -> np.ndarray:
    return matmul_nbits(d.a, d.b, d.scales, d.zp, d.bias, k=case.k, n=case.n, bits=case.bits,
                        block_size=case.block)


def make_model(case: Case, d: Data, *, weights_as_inputs: bool
               ) -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    """One MatMulNBits node; A a graph input, the others initializers (or graph inputs)."""
    named = [("A", d.a), ("B", d.b), ("scales", d.scales), ("zero_points", d.zp), ("g_idx", None),
             ("bias", d.bias)]
    while named[-1][1] is None:
        named.pop()
    names, inputs, inits, feeds = [], [], [], {}
    for i, (name, v) in enumerate(named):
        if v is None:
            names.append("")
            continue
        names.append(name)
        if i == 0 or weights_as_inputs:
            inputs.append(helper.make_tensor_value_info(name, helper.np_dtype_to_tensor_dtype(v.dtype),
                                                        list(v.shape)))
            feeds[name] = v
        else:
            inits.append(numpy_helper.from_array(v, name))
    node = helper.make_node("MatMulNBits", names, ["Y"], name="nbits", domain="com.microsoft", K=case.k,
                            N=case.n, bits=case.bits, block_size=case.block, accuracy_level=case.level)
    y = helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)
    graph = helper.make_graph([node], "g", inputs, [y], initializer=inits)
    model = helper.make_model(graph, ir_version=9, opset_imports=[helper.make_opsetid("", 17),
                                                                  helper.make_opsetid("com.microsoft", 1)])
    return model, feeds


def check(case: Case, d: Data, what: str, weights_as_inputs: tuple[bool, ...] = (False, True)) -> None:
    if KEY not in onemodel_ep.op_table():
        pytest.skip(f"onemodel_ep does not serve {KEY}: it is not in onemodel_ep.op_table()")
    expect = want(case, d)
    for as_inputs in weights_as_inputs:
        model, feeds = make_model(case, d, weights_as_inputs=as_inputs)
        run_every_path(model, feeds, [expect], f"{what}, weights as inputs {as_inputs}",
                       every_path=not as_inputs)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_matmul_nbits_bit_for_bit(case: Case) -> None:
    check(case, make_data(case, SEED + CASES.index(case)), case.name)


def test_rows_do_not_depend_on_m() -> None:
    """Row i's output is the same bits whether A has 1, 5 or 64 rows (each compared with the reference, whose
    rows are independent by construction)."""
    case = Case("rows", 4, 32, 300, 19, (64,), zp="u8")
    d = make_data(case, SEED + 50)
    for m in (1, 5, 64):
        c = Case(f"rows_m{m}", case.bits, case.block, case.k, case.n, (m,), zp=case.zp)
        check(c, Data(d.a[:m], d.b, d.scales, d.zp, d.bias), c.name, weights_as_inputs=(False,))


@pytest.mark.parametrize("bits", [4, 8])
def test_specials(bits: int) -> None:
    """A with NaN (payloads too), +-inf, -0 and subnormals; scales 0, -0, negative, +inf, NaN, subnormal and
    huge (products overflow); a zero d with a negative or infinite scale (-0, NaN weights)."""
    case = Case(f"specials{bits}", bits, 16, 80, 12, (6,), zp="u8")
    d = make_data(case, SEED + 60 + bits)
    a = d.a
    a[0, 3] = np.nan
    a[1, 5] = np.inf
    a[2, 7] = -np.inf
    a.view(np.uint32)[3, 0] = 0xFFC00456
    a[4, :] = -0.0
    a[5, :] = np.array([1e-41, -3e-39, 2.0 ** -149, 1.0], F32)[np.arange(case.k) % 4]
    s = d.scales.reshape(case.n, -1)
    s[0, 0], s[1, 1], s[2, 2], s[3, 0], s[4, 1] = 0.0, -0.0, np.inf, np.nan, 1e-42
    s[5, :] = 3e38
    s[6, :] = -s[6, :]
    zq = d.zp
    assert zq is not None
    q = unpack_weights(d.b, case.k, case.block, bits)
    z = zero_point_grid(zq, case.n, k_blocks(case.k, case.block), bits)
    z[2, 2] = q[2, 2 * case.block]  # d = 0 against an infinite scale: NaN weight
    z[6, :] = q[6, np.arange(z.shape[1]) * case.block]  # d = 0 with a negative scale: -0
    zp = pack_zero_points(z.astype(np.uint8), bits)
    check(case, Data(a, d.b, d.scales, zp, d.bias), case.name)


def test_f32_zero_point_rounds() -> None:
    """f32 zero points where q - z rounds (z with bits below q's ulp, e.g. 200 - 0.1), NaN and inf ones."""
    case = Case("f32zp", 8, 32, 96, 6, (4,), zp="f32")
    d = make_data(case, SEED + 70)
    assert d.zp is not None
    zp = d.zp.reshape(case.n, -1)
    zp[0, :] = np.float32(0.1)
    zp[1, :] = np.float32(1e-30)
    zp[2, :] = np.float32(-3.3333333e-8)
    zp[3, 0], zp[4, 1], zp[5, 2] = np.nan, np.inf, np.float32(255.5)
    check(case, d, case.name)


# ---- the packer against ORT's quantizer, the reference against stock ORT --------------------------------

@pytest.mark.parametrize("bits", [4, 8])
@pytest.mark.parametrize("block,k,n", [(16, 16, 3), (32, 37, 5), (64, 200, 4), (128, 129, 2), (256, 300, 3)])
@pytest.mark.parametrize("symmetric", [False, True])
def test_layout_matches_ort_quantizer(bits: int, block: int, k: int, n: int, symmetric: bool) -> None:
    """ONNX Runtime's quantizer (quantize_matmul_4bits / _8bits, what MatMulNBitsQuantizer writes) packs a
    float W [K, N]; reading its B, scales and zero points as the contract states gives back W within half a
    scale step (a whole step when symmetric: the clamped end); and re-packing what was read with our packer
    gives ORT's bytes (apart from the padding)."""
    from onnxruntime.capi._pybind_state import quantize_matmul_4bits, quantize_matmul_8bits

    rng = np.random.default_rng(SEED + k + n + bits)
    w = rng.normal(0, 1, (k, n)).astype(F32)
    kbs = k_blocks(k, block)
    padded = np.pad(w, ((0, kbs * block - k), (0, 0)))
    packed = np.zeros((n, kbs, block * bits // 8), np.uint8)
    scales = np.zeros((n, kbs), F32)
    zp = np.zeros((n, -(-kbs * bits // 8)), np.uint8)
    quantize = quantize_matmul_4bits if bits == 4 else quantize_matmul_8bits
    quantize(packed, padded, scales, zp, block, n, k, symmetric)
    zps = None if symmetric else zp
    wt = dequantize(packed, scales, zps, k, block, bits)
    step = np.abs(scales)[:, np.arange(k) // block]
    # symmetric: ORT's scale maps the largest magnitude to -2^(bits-1), so the other end clamps at
    # 2^(bits-1) - 1, a whole step short
    steps = 1.0 if symmetric else 0.5
    assert np.all(np.abs(wt.astype(np.float64) - w.T) <= steps * step * (1 + 2.0 ** -20) + 1e-30)
    q = unpack_weights(packed, k, block, bits)
    repacked = pack_weights(q.astype(np.uint8), block, bits)
    head = packed.reshape(n, -1)[:, : k * bits // 8]
    assert np.array_equal(repacked.reshape(n, -1)[:, : k * bits // 8], head)
    if not symmetric:
        z = zero_point_grid(zp, n, kbs, bits)
        assert np.array_equal(pack_zero_points(z.astype(np.uint8), bits).reshape(zp.shape) & _used(kbs, bits),
                              zp & _used(kbs, bits))


def _used(kbs: int, bits: int) -> np.ndarray:
    """Per zero-point byte, the mask of the bits a zero point uses (4 bits, odd k_blocks: the last high
    nibble is unused)."""
    nbytes = -(-kbs * bits // 8)
    mask = np.full(nbytes, 0xFF, np.uint8)
    if bits == 4 and kbs % 2:
        mask[-1] = 0x0F
    return mask


@pytest.mark.parametrize("case", [c for c in CASES if c.level == 0 and not c.zp.startswith("f32")
                                  and 0 not in c.a_lead], ids=lambda c: c.name)
def test_reference_matches_stock_ort(case: Case) -> None:
    """Stock ORT's MatMulNBits (accuracy_level 0: f32 compute) on the same packed inputs agrees with the
    reference within a rounding bound: |stock - ref| <= 2 gamma_(K+4) sum_k |a w| + |bias| 2^-23."""
    d = make_data(case, SEED + CASES.index(case))
    expect = want(case, d)
    model, feeds = make_model(case, d, weights_as_inputs=False)
    stock_sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    stock = stock_sess.run(None, feeds)[0]
    wt = dequantize(d.b, d.scales, d.zp, case.k, case.block, case.bits).astype(np.float64)
    mag = np.abs(d.a.reshape(-1, case.k).astype(np.float64)) @ np.abs(wt.T)
    u = 2.0 ** -24
    g = (case.k + 4) * u / (1 - (case.k + 4) * u)
    bias = np.zeros(case.n) if d.bias is None else np.abs(d.bias.astype(np.float64))
    tol = 2 * g * mag + 2 * u * (bias + np.abs(expect.reshape(-1, case.n)))
    diff = np.abs(stock.reshape(-1, case.n).astype(np.float64) - expect.reshape(-1, case.n))
    assert stock.shape == expect.shape and np.all(diff <= tol)


@pytest.mark.parametrize("case", [c for c in CASES if c.k > 256 or c.name.startswith("b4_bs16")],
                         ids=lambda c: c.name)
def test_reference_is_the_gemm_of_the_dequantized_weights(case: Case) -> None:
    """The doc's "the same bits as our Gemm of A, W and C = bias": the reference against
    tests/reference/gemm_reference.py's gemm_ref and reference_linalg.py's gemm (whose tree is the recursive
    definition: split at the largest power of two below the count) on the dequantized W."""
    d = make_data(case, SEED + CASES.index(case))
    wt = np.ascontiguousarray(dequantize(d.b, d.scales, d.zp, case.k, case.block, case.bits).T)
    a2 = d.a.reshape(-1, case.k)
    mine = want(case, d).reshape(-1, case.n)
    same_bits(mine, gemm_ref(a2, wt, cin=d.bias), f"{case.name}: gemm_ref")
    same_bits(mine, np.asarray(gemm(a2, wt, d.bias), np.float32), f"{case.name}: reference_linalg.gemm")


def test_b_that_does_not_fit_is_an_error_naming_node_and_op() -> None:
    """B's blob size not block_size * bits / 8: an error naming the node ('nbits') and the op, when the
    session is created or at the run; never a result."""
    if KEY not in onemodel_ep.op_table():
        pytest.skip(f"onemodel_ep does not serve {KEY}: it is not in onemodel_ep.op_table()")
    case = Case("bad_b", 4, 32, 64, 5, (3,))
    d = make_data(case, SEED + 80)
    d.b = np.ascontiguousarray(d.b[:, :, :-1])
    model, feeds = make_model(case, d, weights_as_inputs=False)
    for via in VIAS:
        with pytest.raises(Exception) as err:
            onemodel_ep.InferenceSession(model, mode="exact", via=via).run(None, feeds)
        assert "nbits" in str(err.value) and "MatMulNBits" in str(err.value), (via, str(err.value))


@pytest.mark.parametrize("what", ["g_idx", "bits2"])
def test_not_served_stays_with_stock(what: str) -> None:
    """The contract's refusals: a node with g_idx or with bits = 2 is not claimed (it stays with stock ORT,
    which runs it; a block_size of 512, also refused, stock ORT 1.31.1 refuses too)."""
    if KEY not in onemodel_ep.op_table():
        pytest.skip(f"onemodel_ep does not serve {KEY}: it is not in onemodel_ep.op_table()")
    bits, block = (2, 32) if what == "bits2" else (4, 32)
    case = Case(what, bits, block, 64, 3, (2,), zp="none", bias=False)
    rng = np.random.default_rng(SEED + 90)
    kbs = k_blocks(case.k, block)
    b = rng.integers(0, 256, (case.n, kbs, block * bits // 8), dtype=np.uint8)
    scales = rng.uniform(0.5, 1, case.n * kbs).astype(F32)
    d = Data(rng.normal(0, 1, (2, case.k)).astype(F32), b, scales, None, None)
    model, feeds = make_model(case, d, weights_as_inputs=False)
    if what == "g_idx":
        node = model.graph.node[0]
        node.input.extend(["", "g_idx"])
        model.graph.initializer.append(numpy_helper.from_array(np.arange(case.k, dtype=np.int32) // block,
                                                               "g_idx"))
    for via in VIAS:
        sess = onemodel_ep.InferenceSession(model, mode="exact", via=via)
        assert len(sess.report.moved) == 0, (via, sess.report.summary())
        assert sess.run(None, feeds)[0].shape == (2, case.n)
