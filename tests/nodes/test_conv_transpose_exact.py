"""OneModel's ConvTranspose, bit for bit against the independent reference
tests/reference/conv_transpose_reference.py (written from docs/conv.md's "ConvTranspose" contract alone).

Each case is a one-node ConvTranspose model (W and B initializers) run through both ways in (the rewrite, and
the execution provider where ORT supports it) on every kernel path, exact mode, at one thread, and at two
threads on the default path (the EP); the node must run on OneModel's kernels and the output must have the
reference's bits (the same NaN positions, every NaN the canonical quiet NaN, every other element's bits
equal). Cases: 1-D, 2-D, 3-D; group, depthwise and channel multipliers; strides (also larger than the kernel),
dilations, asymmetric pads, output_padding, every auto_pad, output_shape (also beyond the taps), kernel_shape;
Cg <= 256 and Cg > 256 (two to four channel blocks); seeded random cases; specials (an infinite weight,
NaN payloads, -0.0 partial sums and bias, overflow, subnormals); float16 (f32's order on widened inputs,
rounded once) on a few cases, its NaN and overflow included.

The reference itself is checked here too (these tests run without the kernel): bit for bit against a scalar
loop written literally from the contract (MPFR's fma, the block tree by its definition), within the
contract's error bound of a float64 scatter (the ONNX definition: each input element times the kernel added
at j s + kk d, then cropped by the pads), and, for shapes and values, against stock ONNX Runtime.

The kernel tests skip, with the reason, while the library does not serve ConvTranspose (it is not in
onemodel_ep.op_table()).
"""

from __future__ import annotations

import math
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gmpy2
import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import helper, numpy_helper

import onemodel_ep
from tests.reference import conv_transpose_reference as CT
from tests.reference.conv_cases import ONNX_TYPE, assert_same_bits, sample

ROW = onemodel_ep.op_table().get("ConvTranspose")
PATHS = onemodel_ep.kernel_paths()
VIAS = ("rewrite", "ep") if onemodel_ep.ep_supported() else ("rewrite",)
F16, F32, F64 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)
U = {F32: 2.0**-24, F64: 2.0**-53}
SEED = 20261205


@dataclass(frozen=True)
class Case:
    name: str
    x_shape: tuple[int, ...]
    w_shape: tuple[int, ...]  # [C, M/G, K...]
    bias: bool
    attrs: dict[str, Any] = field(default_factory=dict)
    ort_differs: str = ""  # why stock ORT 1.31.1 gives another shape or refuses ("" when it agrees)

    @property
    def group(self) -> int:
        return int(self.attrs.get("group", 1))


BEYOND = "an output_shape beyond the full size: stock ORT 1.31.1 refuses some"
SAME_NEG = "SAME with stride > the kernel's span: the contract's O = D s, stock ORT's O = full size"
CASES = [
    Case("1d", (2, 3, 7), (3, 2, 3), True),
    Case("1d_stride2_pads", (1, 3, 9), (3, 4, 4), True, {"strides": [2], "pads": [1, 2]}),
    Case("1d_outpad_dil", (1, 2, 6), (2, 3, 3), False,
         {"strides": [3], "dilations": [2], "output_padding": [2]}),
    Case("1d_outpad_over_stride", (1, 2, 4), (2, 2, 2), True,
         {"strides": [2], "dilations": [3], "output_padding": [2]},
         ort_differs="stock ORT 1.31.1 refuses output_padding >= stride"),
    Case("2d_3x3", (1, 3, 5, 6), (3, 4, 3, 3), True),
    Case("2d_up2_pad1_outpad1", (2, 4, 4, 5), (4, 3, 3, 3), True,
         {"strides": [2, 2], "pads": [1, 1, 1, 1], "output_padding": [1, 1]}),
    Case("2d_asym_dil", (1, 2, 5, 4), (2, 3, 2, 3), True,
         {"strides": [1, 2], "dilations": [2, 1], "pads": [0, 1, 2, 0]}),
    Case("2d_stride_over_kernel", (1, 2, 3, 4), (2, 2, 2, 1), True, {"strides": [3, 2]}),
    Case("2d_group2", (2, 4, 4, 3), (4, 3, 3, 2), True,
         {"group": 2, "strides": [2, 1], "pads": [1, 0, 0, 1]}),
    Case("2d_depthwise", (1, 5, 6, 7), (5, 1, 3, 3), True,
         {"group": 5, "strides": [2, 2], "pads": [1, 1, 1, 1]}),
    Case("2d_depthwise_x2", (1, 3, 5, 5), (3, 2, 4, 4), False, {"group": 3, "strides": [2, 2]}),
    Case("2d_same_upper", (1, 2, 4, 5), (2, 3, 3, 4), True, {"auto_pad": "SAME_UPPER", "strides": [2, 2]}),
    Case("2d_same_lower", (1, 2, 4, 5), (2, 3, 3, 4), True, {"auto_pad": "SAME_LOWER", "strides": [2, 2]}),
    Case("2d_same_lower_dil", (1, 2, 3, 4), (2, 2, 2, 3), True,
         {"auto_pad": "SAME_LOWER", "strides": [1, 2], "dilations": [2, 1]}),
    Case("2d_same_upper_total_neg", (1, 2, 3, 4), (2, 2, 2, 3), True,
         {"auto_pad": "SAME_UPPER", "strides": [3, 2]}, ort_differs=SAME_NEG),
    Case("2d_same_lower_total_neg", (1, 2, 3, 2), (2, 2, 1, 1), True,
         {"auto_pad": "SAME_LOWER", "strides": [3, 2]}, ort_differs=SAME_NEG),
    Case("2d_valid", (1, 3, 4, 4), (3, 2, 3, 2), True, {"auto_pad": "VALID", "strides": [2, 3]}),
    Case("2d_output_shape", (1, 2, 3, 4), (2, 2, 3, 3), True, {"strides": [2, 2], "output_shape": [7, 8]}),
    Case("2d_output_shape_same_upper", (1, 2, 3, 4), (2, 2, 3, 3), True,
         {"strides": [2, 2], "output_shape": [6, 8], "auto_pad": "SAME_UPPER"}),
    Case("2d_output_shape_same_lower", (1, 2, 3, 4), (2, 2, 3, 3), True,
         {"strides": [2, 2], "output_shape": [6, 8], "auto_pad": "SAME_LOWER"}),
    Case("2d_output_shape_over_pads", (1, 2, 3, 4), (2, 2, 3, 3), True,
         {"strides": [2, 2], "output_shape": [6, 7], "pads": [2, 2, 2, 2]}),
    Case("2d_output_shape_beyond_taps", (1, 2, 3, 4), (2, 2, 2, 2), True,
         {"strides": [3, 3], "output_shape": [9, 12]}),
    Case("2d_kernel_shape_attr", (1, 2, 4, 4), (2, 2, 2, 3), True,
         {"kernel_shape": [2, 3], "strides": [2, 2]}),
    # last axis kernel 2, stride 2, no pads (U-Net's 2x upsample): both k2 in one interleaving pass
    Case("1d_up2", (2, 3, 7), (3, 2, 2), True, {"strides": [2]}),
    Case("2d_up2", (1, 3, 4, 5), (3, 4, 2, 2), True, {"strides": [2, 2]}),
    Case("2d_up2_h_pads", (1, 2, 5, 3), (2, 3, 3, 2), True, {"strides": [2, 2], "pads": [1, 0, 1, 0]}),
    Case("2d_up2_outpad_w", (1, 2, 3, 4), (2, 2, 2, 2), True, {"strides": [2, 2], "output_padding": [0, 1]}),
    Case("3d_up2", (1, 2, 2, 3, 4), (2, 2, 2, 2, 2), True, {"strides": [2, 2, 2]}),
    Case("2d_Cg256", (1, 256, 2, 3), (256, 2, 2, 2), True, {"strides": [2, 1]}),
    Case("2d_Cg300_2blocks", (1, 300, 2, 2), (300, 2, 3, 3), True, {"strides": [2, 2], "pads": [1, 0, 0, 1]}),
    Case("2d_Cg600_group2", (1, 1200, 2, 2), (1200, 1, 2, 2), False, {"group": 2, "strides": [2, 2]}),
    Case("2d_Cg780_3blocks", (1, 780, 2, 2), (780, 2, 2, 1), True, {"strides": [1, 2]}),
    Case("3d", (1, 2, 3, 3, 4), (2, 2, 2, 3, 2), True,
         {"strides": [2, 1, 2], "pads": [1, 0, 0, 0, 1, 1], "output_padding": [1, 0, 0]}),
    Case("3d_group_same", (1, 4, 2, 3, 3), (4, 1, 2, 2, 3), False,
         {"group": 2, "auto_pad": "SAME_UPPER", "strides": [2, 2, 1]}),
    Case("batch0", (0, 3, 4, 4), (3, 2, 3, 3), True, {"strides": [2, 2]}),
]


def named(name: str) -> Case:
    return next(c for c in CASES if c.name == name)


def random_case(rng: np.random.Generator, name: str) -> Case:
    """Seeded: rank 1-3, group 1, 2, 3 or depthwise, kernels 1-4, strides 1-3, dilations 1-2, NOTSET pads up
    to the dilated kernel, output_padding below max(stride, dilation) where stock ORT accepts it (below the
    stride), sometimes Cg over 256, sometimes an output_shape within a stride of the full size."""
    k = int(rng.integers(1, 4))
    differs = ""
    kernel = [int(v) for v in rng.integers(1, 5 if k < 3 else 3, k)]
    strides = [int(v) for v in rng.integers(1, 4, k)]
    dilations = [int(v) for v in rng.integers(1, 3, k)]
    group = int(rng.choice([1, 1, 2, 3, 0]))
    cg = int(rng.integers(1, 5)) if rng.random() < 0.85 else int(rng.integers(257, 400))
    if group == 0:
        group, cg = int(rng.integers(2, 5)), 1
    mg = int(rng.integers(1, 4))
    dims = [int(v) for v in rng.integers(1, 6 if k < 3 else 4, k)]
    if cg > 256:
        dims = [min(d, 2) for d in dims]
    attrs: dict[str, Any] = {"strides": strides}
    if any(v > 1 for v in dilations) or rng.random() < 0.3:
        attrs["dilations"] = dilations
    outpad = [int(rng.integers(0, s)) for s in strides]
    if any(outpad):
        attrs["output_padding"] = outpad
    full = [s * (d - 1) + a + dl * (kk - 1) + 1
            for s, d, a, dl, kk in zip(strides, dims, outpad, dilations, kernel)]
    if rng.random() < 0.25:
        attrs["output_shape"] = [int(f + rng.integers(-2, min(s, 2))) for f, s in zip(full, strides)]
        attrs["output_shape"] = [max(1, o) for o in attrs["output_shape"]]
        attrs["auto_pad"] = str(rng.choice(["NOTSET", "SAME_UPPER", "SAME_LOWER"]))
        if any(o > f for o, f in zip(attrs["output_shape"], full)):
            differs = BEYOND
    else:
        pads = [int(rng.integers(0, (kk - 1) * dl + 1))
                for kk, dl in zip(kernel + kernel, dilations + dilations)]
        pads = [min(p, (f - 1) // 2) for p, f in zip(pads, full + full)]
        attrs["pads"] = pads
    if group != 1:
        attrs["group"] = group
    n = int(rng.integers(1, 3))
    return Case(name, (n, cg * group, *dims), (cg * group, mg, *kernel), bool(rng.random() < 0.6), attrs,
                differs)


def random_cases(seed: int, count: int) -> list[Case]:
    rng = np.random.default_rng(seed)
    return [random_case(rng, f"random{seed}_{i}") for i in range(count)]


def case_data(case: Case, dtype: np.dtype, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    rng = np.random.default_rng(seed)
    x = sample(rng, case.x_shape, dtype)
    w = sample(rng, case.w_shape, dtype)
    b = sample(rng, (case.group * case.w_shape[1],), dtype) if case.bias else None
    return x, w, b


def model(x_shape: tuple[int, ...], w: np.ndarray, b: np.ndarray | None, attrs: dict[str, Any],
          opset: int = 17) -> onnx.ModelProto:
    elem = ONNX_TYPE[w.dtype]
    names = ["x", "w"] + (["b"] if b is not None else [])
    node = helper.make_node("ConvTranspose", names, ["y"], name="ct0", **attrs)
    consts = [numpy_helper.from_array(w, "w")] + ([numpy_helper.from_array(b, "b")] if b is not None else [])
    graph = helper.make_graph([node], "ct", [helper.make_tensor_value_info("x", elem, list(x_shape))],
                              [helper.make_tensor_value_info("y", elem, [None] * len(x_shape))],
                              initializer=consts)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=10)


def session(m: onnx.ModelProto, via: str, path: str | None, threads: int) -> onemodel_ep.InferenceSession:
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.log_severity_level = 3
    return onemodel_ep.InferenceSession(m, so, mode="exact", kernel_path=path, via=via)


def served(dtype: np.dtype) -> None:
    if ROW is None:
        pytest.skip("onemodel_ep does not serve ConvTranspose: it is not in onemodel_ep.op_table()")
    if ONNX_TYPE[dtype] not in ROW.input0_types:
        pytest.skip(f"onemodel_ep's ConvTranspose does not serve {dtype} (op_table()['ConvTranspose'])")


def check(case: Case, x: np.ndarray, w: np.ndarray, b: np.ndarray | None, opset: int = 17) -> None:
    """The case through both ways in on every path at one thread, and the last way in (the EP where ORT has
    it) on the default path at two threads."""
    served(x.dtype)
    want = CT.conv_transpose_reference(x, w, b, **case.attrs)
    m = model(x.shape, w, b, case.attrs, opset)
    runs = [(via, path, 1) for via in VIAS for path in PATHS] + [(VIAS[-1], None, 2)]
    for via, path, threads in runs:
        sess = session(m, via, path, threads)
        assert [n.op for n in sess.report.moved] == ["ConvTranspose"], \
            f"{case.name}: ConvTranspose did not run on OneModel's kernels ({via}):\n{sess.report.summary()}"
        got = sess.run(None, {"x": x})[0]
        assert_same_bits(got, want, f"{case.name} {x.dtype}, {via}, path {path}, {threads} thread(s)")


def case_id(v: object) -> str:
    return v.name if isinstance(v, Case) else str(v)


SMALL_F64 = [c for c in CASES
             if int(np.prod(c.w_shape)) * int(np.prod(c.x_shape[2:])) * c.x_shape[0] <= 20000]


# ---- the kernel, bit for bit ---------------------------------------------------------------------------


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_cases_f32_bit_for_bit(case: Case) -> None:
    x, w, b = case_data(case, F32, SEED)
    check(case, x, w, b)


@pytest.mark.parametrize("case", SMALL_F64, ids=case_id)
def test_cases_f64_bit_for_bit(case: Case) -> None:
    x, w, b = case_data(case, F64, SEED + 1)
    check(case, x, w, b)


@pytest.mark.parametrize("case", random_cases(SEED + 2, 16), ids=case_id)
def test_random_cases_bit_for_bit(case: Case) -> None:
    x, w, b = case_data(case, F32, SEED + 3)
    check(case, x, w, b)


@pytest.mark.parametrize("opset", [11, 22])
def test_opsets(opset: int) -> None:
    case = named("2d_up2_pad1_outpad1")
    x, w, b = case_data(case, F32, SEED + 4)
    check(case, x, w, b, opset)


F16_CASES = ["1d_stride2_pads", "2d_up2_pad1_outpad1", "2d_group2", "2d_depthwise", "2d_output_shape",
             "2d_Cg300_2blocks", "3d", "batch0"]


@pytest.mark.parametrize("name", F16_CASES)
def test_cases_f16_bit_for_bit(name: str) -> None:
    case = named(name)
    x, w, b = case_data(case, F16, SEED + 5)
    if x.size:
        x.flat[0], x.flat[1] = np.float16(np.nan), np.float16(60000.0)  # a NaN, an overflow past 65504
    check(case, x, w, b)


# strided with pads and output_padding; depthwise
SPECIAL_CASES = [named("2d_up2_pad1_outpad1"), named("2d_depthwise")]


@pytest.mark.parametrize("dtype", [F32, F64], ids=str)
@pytest.mark.parametrize("case", SPECIAL_CASES, ids=case_id)
def test_infinite_weight_reaches_only_its_taps(case: Case, dtype: np.dtype) -> None:
    """No padding terms: w = inf makes inf (x > 0) only where its kernel position contributes."""
    x, w, b = case_data(case, dtype, SEED + 6)
    x, w = np.abs(x) + dtype.type(1), np.abs(w)
    w[0, 0, 1, 1] = np.inf
    want = CT.conv_transpose_reference(x, w, b, **case.attrs)
    assert np.isinf(want[0, 0]).any() and np.isfinite(want[0, 0]).any() and not np.isnan(want).any()
    check(case, x, w, b)


@pytest.mark.parametrize("dtype", [F32, F64], ids=str)
@pytest.mark.parametrize("case", SPECIAL_CASES, ids=case_id)
def test_nan_payloads_become_canonical(case: Case, dtype: np.dtype) -> None:
    x, w, b = case_data(case, dtype, SEED + 7)
    u = np.dtype(f"u{dtype.itemsize}")
    x.view(u)[0, 1, 2, 3] = {F32: 0x7F800123, F64: 0x7FF0000000000123}[dtype]
    w.view(u)[2, 0, 1, 1] = {F32: 0xFFC00456, F64: 0xFFF8000000000456}[dtype]
    assert b is not None
    b.view(u)[0] = {F32: 0xFFC00456, F64: 0xFFF8000000000456}[dtype]
    check(case, x, w, b)


@pytest.mark.parametrize("dtype", [F32, F64], ids=str)
@pytest.mark.parametrize("case", SPECIAL_CASES, ids=case_id)
def test_negative_zero_partials_give_plus_zero(case: Case, dtype: np.dtype) -> None:
    """Every product -0.0, every P_kk -0.0, the bias -0.0: acc starts at +0.0, so +0.0 everywhere."""
    for xv, wv in ((-0.0, 1.5), (0.0, -2.0)):
        x = np.full(case.x_shape, xv, dtype)
        w = np.full(case.w_shape, wv, dtype)
        b = np.full(case.group * case.w_shape[1], -0.0, dtype)
        assert (CT.conv_transpose_reference(x, w, b, **case.attrs).view(f"u{dtype.itemsize}") == 0).all()
        check(case, x, w, b)


@pytest.mark.parametrize("dtype", [F32, F64], ids=str)
@pytest.mark.parametrize("case", SPECIAL_CASES + [named("2d_Cg300_2blocks")], ids=case_id)
def test_overflow_and_subnormals(case: Case, dtype: np.dtype) -> None:
    info = np.finfo(dtype)
    rng = np.random.default_rng(SEED + 8)
    x, w, b = case_data(case, dtype, SEED + 8)
    big = np.sqrt(float(info.max)) * 0.75
    tiny = np.sqrt(float(info.smallest_subnormal)) * 4
    x = (np.sign(x.astype(np.float64)) * np.where(rng.random(x.shape) < 0.5, big, tiny)).astype(dtype)
    w = (w.astype(np.float64) * np.where(rng.random(w.shape) < 0.5, big, tiny)).astype(dtype)
    want = CT.conv_transpose_reference(x, w, b, **case.attrs)
    assert np.isinf(want).any() or np.isnan(want).any()
    check(case, x, w, b)


# ---- the reference on its own --------------------------------------------------------------------------


def _fma(a: float, b: float, c: float, bits: int) -> float:
    with gmpy2.context(gmpy2.ieee(bits)):
        return float(gmpy2.fma(gmpy2.mpfr(a), gmpy2.mpfr(b), gmpy2.mpfr(c)))


def _add(a: float, b: float, bits: int) -> float:
    with gmpy2.context(gmpy2.ieee(bits)):
        return float(gmpy2.mpfr(a) + gmpy2.mpfr(b))


def _tree(sums: list[float], bits: int) -> float:
    if len(sums) == 1:
        return sums[0]
    p = 1 << (len(sums) - 1).bit_length() - 1  # the largest power of two below len(sums)
    return _add(_tree(sums[:p], bits), _tree(sums[p:], bits), bits)


def scalar_loop(x: np.ndarray, w: np.ndarray, b: np.ndarray | None, attrs: dict[str, Any]) -> np.ndarray:
    """The contract's bullets, one output element at a time, in MPFR at the type's precision."""
    bits = 64 if x.dtype == F64 else 32
    geo = CT.geometry(x.shape[2:], w.shape[2:], **{k: v for k, v in attrs.items()
                                                    if k not in ("group", "kernel_shape")})
    group = int(attrs.get("group", 1))
    n_, c_ = x.shape[:2]
    cg, mg = c_ // group, w.shape[1]
    y = np.zeros((n_, group * mg, *geo.out), x.dtype)
    for n, m in np.ndindex(n_, group * mg):
        g, mm = divmod(m, mg)
        for o in np.ndindex(*geo.out):
            acc = 0.0
            for kk in np.ndindex(*w.shape[2:]):
                qs = [o[i] + geo.begin[i] - kk[i] * geo.dilations[i] for i in range(len(o))]
                if not all(q >= 0 and q % s == 0 and q // s < d
                           for q, s, d in zip(qs, geo.strides, x.shape[2:])):
                    continue
                j = tuple(q // s for q, s in zip(qs, geo.strides))
                blocks = []
                for c0 in range(0, cg, 256):
                    s_b = 0.0
                    for c in range(c0, min(c0 + 256, cg)):
                        s_b = _fma(float(x[(n, g * cg + c) + j]), float(w[(g * cg + c, mm) + kk]), s_b, bits)
                    blocks.append(s_b)
                acc = _add(acc, _tree(blocks, bits), bits)
            if b is not None:
                acc = _add(acc, float(b[m]), bits)
            y[(n, m) + o] = acc
    y[np.isnan(y)] = np.nan
    return y


LOOP_CASES = [c for c in CASES if c.x_shape[0] > 0 and int(np.prod(c.w_shape[1:])) * c.w_shape[0]
              * int(np.prod(c.x_shape[2:])) <= 40000] + random_cases(SEED + 9, 6)


@pytest.mark.parametrize("dtype", [F32, F64], ids=str)
@pytest.mark.parametrize("case", LOOP_CASES, ids=case_id)
def test_reference_matches_scalar_loop(case: Case, dtype: np.dtype) -> None:
    x, w, b = case_data(case, dtype, SEED + 10)
    assert_same_bits(CT.conv_transpose_reference(x, w, b, **case.attrs), scalar_loop(x, w, b, case.attrs),
                     case.name)


def scatter64(x: np.ndarray, w: np.ndarray, attrs: dict[str, Any]) -> np.ndarray:
    """ConvTranspose by its definition in float64, no bias: every X[n, c, j] times W[c, mm, kk] added at
    output position j s + kk d - p (positions outside [0, O) dropped)."""
    geo = CT.geometry(x.shape[2:], w.shape[2:], **{k: v for k, v in attrs.items()
                                                    if k not in ("group", "kernel_shape")})
    group = int(attrs.get("group", 1))
    n, c = x.shape[:2]
    cg, mg = c // group, w.shape[1]
    k = x.ndim - 2
    kernel = w.shape[2:]
    span = [max(geo.begin[i] + geo.out[i], geo.strides[i] * (x.shape[2 + i] - 1)
                + geo.dilations[i] * (kernel[i] - 1) + 1) for i in range(k)]
    big = np.zeros((n, group, mg, *span))
    xr = x.astype(F64).reshape(n, group, cg, *x.shape[2:])
    wr = w.astype(F64).reshape(group, cg, mg, *kernel)
    for kk in np.ndindex(*kernel):
        contrib = np.einsum("ngc...,gcm->ngm...", xr, wr[(slice(None),) * 3 + kk])
        at = tuple(slice(kk[i] * geo.dilations[i], kk[i] * geo.dilations[i]
                         + geo.strides[i] * (x.shape[2 + i] - 1) + 1, geo.strides[i]) for i in range(k))
        big[(slice(None),) * 3 + at] += contrib
    crop = tuple(slice(geo.begin[i], geo.begin[i] + geo.out[i]) for i in range(k))
    return big[(slice(None),) * 3 + crop].reshape((n, group * mg) + geo.out)


def bound(case: Case, x: np.ndarray, w: np.ndarray, y: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """The contract's gamma_n * sum|x w| (n = min(Cg, 256) + ceil(log2(ceil(Cg/256))) + T, T = K1..Kk) plus
    the bias rounding u |y|, and as much again for float64's own sums."""
    u = U[dtype]
    cg = case.x_shape[1] // case.group
    n = min(cg, 256) + math.ceil(math.log2(-(-cg // 256))) + int(np.prod(case.w_shape[2:]))
    gamma = n * u / (1 - n * u)
    s = scatter64(np.abs(x), np.abs(w), case.attrs)
    return 2 * gamma * s + u * np.abs(y) + 2 * (cg * n) * 2.0**-53 * s


@pytest.mark.parametrize("dtype", [F32, F64], ids=str)
@pytest.mark.parametrize("case", CASES + random_cases(SEED + 2, 20), ids=case_id)
def test_reference_within_bound_of_float64_definition(case: Case, dtype: np.dtype) -> None:
    if dtype == F64 and case not in SMALL_F64:
        pytest.skip("float64 reference (MPFR fma per element) kept to the small cases")
    x, w, b = case_data(case, dtype, SEED + 11)
    got = CT.conv_transpose_reference(x, w, b, **case.attrs)
    want = scatter64(x, w, case.attrs)
    if b is not None:
        want = want + b.astype(F64).reshape((1, -1) + (1,) * (x.ndim - 2))
    assert got.shape == want.shape
    err = np.abs(got.astype(F64) - want)
    lim = bound(case, x, w, want, dtype)
    assert (err <= lim).all(), f"{case.name}: worst excess {np.max(err - lim)}"


@pytest.mark.parametrize("case", CASES + random_cases(SEED + 2, 20), ids=case_id)
def test_reference_against_stock_ort(case: Case) -> None:
    """Stock ORT's CPU ConvTranspose (f32) gives the reference's shape, and values within the bound; where the
    contract and stock ORT 1.31.1 part (ort_differs: stock refuses, or gives another shape), the values only
    when stock runs with the reference's shape."""
    x, w, b = case_data(case, F32, SEED + 12)
    got = CT.conv_transpose_reference(x, w, b, **case.attrs)
    so = ort.SessionOptions()
    so.log_severity_level = 4
    m = model(x.shape, w, b, case.attrs)
    try:
        stock = ort.InferenceSession(m.SerializeToString(), so, providers=["CPUExecutionProvider"]).run(
            None, {"x": x})[0]
    except Exception:  # noqa: BLE001 - stock ORT refuses the case
        if case.ort_differs:
            return
        raise
    if case.ort_differs and stock.shape != got.shape:
        return
    assert stock.shape == got.shape, f"{case.name}: stock {stock.shape}, reference {got.shape}"
    lim = bound(case, x, w, got.astype(F64), F32) * 2
    assert (np.abs(stock.astype(F64) - got.astype(F64)) <= lim).all(), case.name


def test_reference_order_is_not_one_chain() -> None:
    """The partial sums are added to +0.0 one kernel position at a time in row-major order: with 2^24 at the
    first contributing position, each later +1 rounds back to 2^24 (ties to even); with 2^24 last, the ones
    are added first and survive."""
    x = np.ones((1, 1, 1), F32)
    w = np.array([[[2.0**24, 1.0, 1.0]]], F32)  # kk = 0, 1, 2 all reach output 2 when D = 1, K = 3
    y = CT.conv_transpose_reference(x, w)
    assert y.shape == (1, 1, 3) and list(y[0, 0]) == [2.0**24, 1.0, 1.0]  # one kk per output: exact
    x2 = np.ones((1, 1, 3), F32)
    y2 = CT.conv_transpose_reference(x2, w)  # output 2 gets kk = 0 (x[2]), 1 (x[1]), 2 (x[0]): 2^24 + 1 + 1
    assert y2[0, 0, 2] == np.float32(2.0**24)  # each +1 rounds back to 2^24 (ties to even)
    w3 = np.array([[[1.0, 1.0, 2.0**24]]], F32)
    assert CT.conv_transpose_reference(x2, w3)[0, 0, 2] == np.float32(2.0**24 + 2)  # 1 + 1 first


# ---- errors --------------------------------------------------------------------------------------------

W_4x2 = (4, 2, 3, 3)  # C = 4, M/G = 2, a 3x3 kernel
BAD = [
    ("output_padding", {"strides": [2, 1], "output_padding": [2, 0]}, None),  # not < max(stride, dilation)
    ("group", {"group": 3}, None),  # C = 4 not divisible by 3
    ("group0", {"group": 0}, None),
    ("output_shape", {"strides": [2, 2], "output_shape": [5, 5]}, None),  # X 1x1 below: total -2 = -stride
    ("bias", {}, 3),  # B of 3 elements, M = 2
    ("kernel_shape", {"kernel_shape": [2, 2]}, None),
    ("negative_pads", {"pads": [0, -1, 0, 0]}, None),
    ("strides0", {"strides": [0, 1]}, None),
]


CREATE_IN_CHILD = """
import sys, onnx, onnxruntime as ort, onemodel_ep
so = ort.SessionOptions()
so.log_severity_level = 4
for via in sys.argv[2:]:
    try:
        onemodel_ep.InferenceSession(onnx.load(sys.argv[1]), so, via=via)
        print(via, "CREATED")
    except Exception as e:
        print(via, "ERROR", str(e).replace(chr(10), " "))
"""


@pytest.mark.parametrize("what,attrs,bias_len", BAD, ids=[b[0] for b in BAD])
def test_bad_nodes_fail_at_session_creation(what: str, attrs: dict[str, Any], bias_len: int | None,
                                            tmp_path: Path) -> None:
    """docs/conv.md's ConvTranspose errors: with the shapes declared, session creation fails naming node and
    op (stock ORT finds most of these only at the run; group 0 kills its process). Created in a child
    process, so that a crash is a failure of this case rather than of the test run."""
    if ROW is None:
        pytest.skip("onemodel_ep does not serve ConvTranspose: it is not in onemodel_ep.op_table()")
    x_shape = (1, 4, 3, 3) if what != "output_shape" else (1, 4, 1, 1)
    w = np.ones(W_4x2, F32)
    b = None if bias_len is None else np.ones(bias_len, F32)
    path = tmp_path / "bad.onnx"
    onnx.save(model(x_shape, w, b, attrs), str(path))
    child = subprocess.run([sys.executable, "-c", CREATE_IN_CHILD, str(path), *VIAS], capture_output=True,
                           text=True, timeout=120, check=False)
    assert child.returncode == 0, \
        f"{what}: the session creation killed its process (exit {child.returncode}): {child.stderr[-500:]}"
    lines = child.stdout.splitlines()
    assert len(lines) == len(VIAS), child.stdout + child.stderr[-500:]
    for line in lines:
        assert " ERROR " in line and "ct0" in line and "ConvTranspose" in line, f"{what}: {line}"
