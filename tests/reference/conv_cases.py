"""Conv cases shared by the reference's self-test and the library's bit-for-bit test: shapes and attributes
(1-D, 2-D, 3-D; group and depthwise; strides, dilations, every auto_pad, asymmetric pads; reductions of
T <= 256 and T > 256 terms), seeded data at many scales, one-node ONNX models, and the bit comparison."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import onnx
from onnx import helper, numpy_helper

ONNX_TYPE = {np.dtype(np.float16): onnx.TensorProto.FLOAT16, np.dtype(np.float32): onnx.TensorProto.FLOAT,
             np.dtype(np.float64): onnx.TensorProto.DOUBLE}


@dataclass(frozen=True)
class Case:
    name: str
    x_shape: tuple[int, ...]
    w_shape: tuple[int, ...]
    bias: bool
    attrs: dict[str, Any] = field(default_factory=dict)  # ONNX attribute names; absent = the ONNX default

    @property
    def terms(self) -> int:
        """T = C/G * K1*...*Kk, the length of each output's reduction."""
        return int(np.prod(self.w_shape[1:]))


CASES = [
    Case("1d", (2, 3, 11), (4, 3, 3), True),
    Case("1d_stride_dil_asym", (1, 3, 13), (2, 3, 3), True,
         {"pads": [2, 1], "strides": [2], "dilations": [2]}),
    Case("1d_T500", (1, 100, 20), (2, 100, 5), True, {"pads": [1, 3]}),
    Case("2d_pad1", (1, 3, 8, 9), (5, 3, 3, 3), True, {"pads": [1, 1, 1, 1]}),
    Case("2d_asym_stride_dil", (2, 2, 9, 10), (3, 2, 3, 2), True,
         {"pads": [0, 1, 2, 0], "strides": [2, 1], "dilations": [1, 2]}),
    Case("2d_group2", (2, 4, 7, 6), (6, 2, 3, 2), True, {"group": 2, "pads": [1, 0, 1, 1]}),
    Case("2d_depthwise_same_upper", (1, 6, 9, 9), (6, 1, 3, 3), True, {"group": 6, "auto_pad": "SAME_UPPER"}),
    Case("2d_depthwise_x2", (1, 3, 8, 8), (6, 1, 3, 3), False, {"group": 3, "strides": [2, 2]}),
    Case("2d_same_upper_stride", (1, 2, 8, 7), (3, 2, 4, 3), True,
         {"auto_pad": "SAME_UPPER", "strides": [2, 2]}),
    Case("2d_same_lower_stride_dil", (1, 2, 9, 8), (3, 2, 2, 3), True,
         {"auto_pad": "SAME_LOWER", "strides": [2, 3], "dilations": [2, 1]}),
    Case("2d_same_lower_even_kernel", (2, 1, 6, 5), (2, 1, 4, 2), False, {"auto_pad": "SAME_LOWER"}),
    Case("2d_valid_stride", (1, 3, 10, 9), (2, 3, 3, 3), True, {"auto_pad": "VALID", "strides": [3, 2]}),
    Case("2d_kernel_shape_attr", (1, 2, 6, 6), (2, 2, 2, 3), True,
         {"kernel_shape": [2, 3], "pads": [1, 1, 0, 2]}),
    Case("2d_kernel_over_input", (1, 1, 2, 2), (2, 1, 3, 3), True, {"pads": [1, 1, 1, 1]}),
    Case("2d_pointwise", (3, 16, 5, 5), (8, 16, 1, 1), True),
    Case("2d_T256", (1, 256, 3, 3), (2, 256, 1, 1), True),
    Case("2d_T257", (1, 257, 2, 3), (3, 257, 1, 1), True),
    Case("2d_T360_pad", (1, 40, 6, 6), (3, 40, 3, 3), True, {"pads": [1, 1, 1, 1]}),
    Case("2d_T1170_5blocks", (1, 130, 5, 5), (2, 130, 3, 3), False, {"pads": [1, 0, 0, 1]}),
    Case("2d_group2_T300", (1, 600, 4, 4), (4, 300, 1, 1), True, {"group": 2}),
    # output planes of at most 4 positions (the kernel's transposed product): pointwise and im2col, T over
    # 256, a batch, several column panels of output channels, group 2 (W^T not packed)
    Case("2d_plane1_se", (1, 40, 1, 1), (70, 40, 1, 1), True),
    Case("2d_plane1_T300_batch", (2, 300, 1, 1), (5, 300, 1, 1), False),
    Case("2d_plane4_T576_pad", (2, 64, 2, 2), (130, 64, 3, 3), True, {"pads": [1, 1, 1, 1]}),
    Case("2d_plane2_stride_group2", (1, 8, 3, 4), (6, 4, 2, 2), False, {"group": 2, "strides": [2, 2]}),
    Case("3d_asym_stride", (1, 2, 5, 6, 4), (3, 2, 2, 3, 2), True,
         {"pads": [1, 0, 1, 0, 1, 1], "strides": [1, 2, 1]}),
    Case("3d_group_same_lower", (1, 4, 4, 5, 5), (4, 2, 3, 3, 1), False,
         {"group": 2, "auto_pad": "SAME_LOWER"}),
    Case("3d_dil_T270", (1, 10, 5, 5, 5), (2, 10, 3, 3, 3), True,
         {"dilations": [2, 1, 2], "pads": [2, 1, 0, 2, 1, 2]}),
]


def random_case(rng: np.random.Generator, name: str, max_terms: int = 4096) -> Case:
    """A seeded case: rank 1-3, group 1, 2, 3 or depthwise, kernels 1-3, strides and dilations 1-2, any
    auto_pad (NOTSET with pads up to the dilated kernel's extent), sometimes over 256 terms (up to
    max_terms), attributes at their defaults left out at random."""
    k = int(rng.integers(1, 4))
    kernel = [int(v) for v in rng.integers(1, 4, k)]
    group = int(rng.choice([1, 1, 2, 3, 0]))  # 0: depthwise
    taps = int(np.prod(kernel))
    cg = int(rng.integers(1, 5))
    if rng.random() < 0.25:
        cg = int(rng.integers(257 // taps + 1, max(257 // taps + 2, max_terms // taps + 1)))
    if group == 0:
        group, cg = int(rng.integers(2, 7)), 1
    mg = int(rng.integers(1, 4))
    strides = [int(v) for v in rng.integers(1, 3, k)]
    dilations = [int(v) for v in rng.integers(1, 3, k)]
    auto_pad = str(rng.choice(["NOTSET", "NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"]))
    extent = [(kk - 1) * d for kk, d in zip(kernel, dilations)]
    pads = [int(rng.integers(0, e + 1)) for e in extent + extent] if auto_pad == "NOTSET" else [0] * (2 * k)
    top = 9 if k < 3 else 6
    dims = [max(int(rng.integers(1, top)), extent[i] + 1 - pads[i] - pads[k + i]) for i in range(k)]
    attrs: dict[str, Any] = {}
    if auto_pad != "NOTSET" or rng.random() < 0.3:
        attrs["auto_pad"] = auto_pad
    if any(pads) or (auto_pad == "NOTSET" and rng.random() < 0.3):
        attrs["pads"] = pads
    if any(v != 1 for v in strides) or rng.random() < 0.3:
        attrs["strides"] = strides
    if any(v != 1 for v in dilations) or rng.random() < 0.3:
        attrs["dilations"] = dilations
    if group != 1 or rng.random() < 0.3:
        attrs["group"] = group
    if rng.random() < 0.3:
        attrs["kernel_shape"] = kernel
    n = int(rng.integers(1, 3))
    return Case(name, (n, cg * group, *dims), (mg * group, cg, *kernel), bool(rng.random() < 0.6), attrs)


def random_cases(seed: int, count: int, max_terms: int = 4096) -> list[Case]:
    rng = np.random.default_rng(seed)
    return [random_case(rng, f"random{seed}_{i}", max_terms) for i in range(count)]


def sample(rng: np.random.Generator, shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    """Normals at scales 2^-e .. 2^e (e = 3 for f16, else 8), with +0.0 and -0.0 mixed in."""
    size = int(np.prod(shape))
    e = 3 if np.dtype(dtype) == np.float16 else 8
    v = rng.standard_normal(size) * 2.0 ** rng.integers(-e, e + 1, size)
    pick = rng.integers(0, 16, size)
    v = np.where(pick == 0, 0.0, np.where(pick == 1, -0.0, v))
    return v.astype(dtype).reshape(shape)


def case_data(case: Case, dtype: np.dtype, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    rng = np.random.default_rng(seed)
    x = sample(rng, case.x_shape, dtype)
    w = sample(rng, case.w_shape, dtype)
    b = sample(rng, (case.w_shape[0],), dtype) if case.bias else None
    return x, w, b


def conv_model(
    x_shape: tuple[int, ...],
    w: np.ndarray,
    b: np.ndarray | None,
    attrs: dict[str, Any],
    *,
    weights_as_inputs: bool = False,
    opset: int = 17,
) -> onnx.ModelProto:
    """One Conv node y = Conv(x, w[, b]); w and b initializers, or graph inputs too (weights_as_inputs)."""
    elem = ONNX_TYPE[np.dtype(w.dtype)]
    names = ["x", "w"] + (["b"] if b is not None else [])
    node = helper.make_node("Conv", names, ["y"], name="conv0", **attrs)
    inputs = [helper.make_tensor_value_info("x", elem, list(x_shape))]
    consts = [numpy_helper.from_array(w, "w")] + ([numpy_helper.from_array(b, "b")] if b is not None else [])
    if weights_as_inputs:
        inputs += [helper.make_tensor_value_info(t.name, elem, list(t.dims)) for t in consts]
        consts = []
    y = helper.make_tensor_value_info("y", elem, [None] * len(x_shape))  # rank known, sizes left to ORT
    graph = helper.make_graph([node], "conv", inputs, [y],
                              initializer=consts)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=10)


def feeds(x: np.ndarray, w: np.ndarray, b: np.ndarray | None, weights_as_inputs: bool
          ) -> dict[str, np.ndarray]:
    f = {"x": x}
    if weights_as_inputs:
        f["w"] = w
        if b is not None:
            f["b"] = b
    return f


def assert_same_bits(got: np.ndarray, want: np.ndarray, what: str) -> None:
    """The same dtype, shape, NaN positions and non-NaN bits, and every NaN of `got` the canonical quiet NaN
    of its type (0x7E00 f16, 0x7FC00000 f32, 0x7FF8000000000000 f64)."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, \
        f"{what}: {got.dtype}{list(got.shape)} != {want.dtype}{list(want.shape)}"
    u = np.dtype(f"u{got.itemsize}")
    gb, wb = got.view(u), want.view(u)
    gnan, wnan = np.isnan(got), np.isnan(want)
    canon = np.array(np.nan, got.dtype).view(u)
    bad = (gnan != wnan) | (~gnan & (gb != wb)) | (gnan & (gb != canon))
    if bad.any():
        where = np.argwhere(bad)
        i = tuple(where[0])
        raise AssertionError(f"{what}: {len(where)} of {got.size} elements differ; first at {list(i)}: "
                             f"got {got[i]!r} (0x{int(gb[i]):x}), want {want[i]!r} (0x{int(wb[i]):x})")
