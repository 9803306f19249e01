"""ConvTranspose float16 against tests/reference/conv_transpose_docs_reference.py, written from docs/conv.md's
ConvTranspose section alone: 1-D to 3-D, strides, dilations, pads, output_padding, groups, auto_pad
SAME_UPPER / SAME_LOWER / VALID, output_shape past the taps, bias, more than 256 channels a group (the tree),
an inf weight, sums past 65504, a zero batch; bit for bit on every kernel path through the node API, and
both ways in at 1 and 2 threads for one case."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pytest
from onnx import TensorProto, helper

import onemodel_ep
from onemodel_ep.node import Node
from tests.nodes import node_sessions as S
from tests.reference import conv_transpose_docs_reference as R

PATHS = onemodel_ep.kernel_paths()
H16 = np.float16


@dataclass(frozen=True)
class Case:
    id: str
    x: tuple[int, ...]
    w: tuple[int, ...]
    bias: bool = True
    attrs: dict[str, object] = field(default_factory=dict)
    special: str = ""


CASES = [
    Case("2d_stride2_pads_bias", (2, 3, 5, 4), (3, 4, 3, 3), attrs={"strides": [2, 2], "pads": [1, 0, 0, 1]}),
    Case("1d_dil2_stride3_outpad", (1, 2, 7), (2, 3, 4), attrs={"strides": [3], "dilations": [2],
                                                                 "output_padding": [1]}),
    Case("2d_group2_same_upper", (1, 4, 3, 5), (4, 3, 2, 3), attrs={"group": 2, "strides": [2, 1],
                                                                     "auto_pad": "SAME_UPPER"}),
    Case("3d_valid_nobias", (1, 2, 3, 2, 3), (2, 2, 2, 2, 2), bias=False, attrs={"auto_pad": "VALID"}),
    Case("output_shape_past_taps_same_lower", (1, 2, 4, 4), (2, 2, 3, 3),
         attrs={"strides": [2, 2], "output_shape": [10, 9], "auto_pad": "SAME_LOWER"}),
    Case("1d_300_channels_tree", (1, 300, 3), (300, 2, 2), attrs={"strides": [2]}),
    Case("inf_weight_overflow", (1, 2, 4, 4), (2, 2, 2, 2), attrs={"strides": [1, 1]}, special="inf"),
    Case("zero_batch", (0, 2, 4, 4), (2, 3, 3, 3)),
    Case("cancellation_shows_f32_order", (1, 1, 24), (1, 1, 3), bias=False, special="cancel"),
]


def _inputs(c: Case) -> list[np.ndarray]:
    rng = np.random.default_rng(17)
    x = rng.standard_normal(c.x).astype(H16)
    w = (rng.standard_normal(c.w) * 0.5).astype(H16)
    m = c.w[1] * int(c.attrs.get("group", 1))  # type: ignore[call-overload]
    ins = [x, w]
    if c.bias:
        ins.append(rng.standard_normal(m).astype(H16))
    if c.special == "cancel":  # y[o] = (x[o] * 64 + x[o-1] * w1) - x[o-2] * 64 with x 2047 or 2048: partial
        x[...] = rng.integers(2047, 2049, c.x).astype(H16)  # sums near 2^17 (f32 grid 2^-7 or 2^-6) cancel
        w[0, 0] = np.array([64, -0.026702880859375, -64], H16)  # to about 9, so the adds' order shows in f16
    if c.special == "inf":
        w[0, 1, 0, 0] = np.inf  # reaches only the outputs of that tap
        x[0, 1] = 3000  # channel 1's terms: past 65504 in the f16 output, not in the f32 sums
    return ins


def _want(c: Case, ins: list[np.ndarray]) -> np.ndarray:
    a = c.attrs

    def t(key: str) -> tuple[int, ...] | None:
        v = a.get(key)
        return tuple(v) if v is not None else None  # type: ignore[arg-type]

    group = int(a.get("group", 1))  # type: ignore[call-overload]
    return R.conv_transpose(ins[0], ins[1], ins[2] if c.bias else None, group=group,
                            strides=t("strides"), dilations=t("dilations"), pads=t("pads"),
                            output_padding=t("output_padding"), auto_pad=str(a.get("auto_pad", "NOTSET")),
                            output_shape=t("output_shape"))


@pytest.mark.parametrize("c", CASES, ids=[c.id for c in CASES])
def test_conv_transpose_docs_f16_bits(c: Case) -> None:
    ins = _inputs(c)
    want = _want(c, ins)
    assert want.dtype == H16
    for path in PATHS:
        node = Node("ConvTranspose", [TensorProto.FLOAT16] * len(ins), onnx_opset=11,
                    attributes=dict(c.attrs),
                    kernel_path=path, name="ct")
        S.assert_exact_bits(f"{c.id} path {path}", node.run(*ins), want)


def test_reference_edges() -> None:
    """The reference itself: the inf case has inf (the tap's outputs) and finite outputs, and values past
    65504; the output_shape case has positions no tap reaches (bias only)."""
    c = next(c for c in CASES if c.id == "inf_weight_overflow")
    ins = _inputs(c)
    y = _want(c, ins).astype(np.float32)
    assert np.isinf(y).any() and np.isfinite(y).any()
    c = next(c for c in CASES if c.id == "output_shape_past_taps_same_lower")
    ins = _inputs(c)
    y = _want(c, ins)
    assert y.shape == (1, 2, 10, 9)
    assert (y[0, :, -1, :] == ins[2][:, None]).all()


def _model(c: Case, ins: list[np.ndarray]) -> object:
    names = ["x", "w", "b"][:len(ins)]
    node = helper.make_node("ConvTranspose", names, ["y"], name="ct", **c.attrs)
    f16 = TensorProto.FLOAT16
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info(n, f16, list(v.shape))
                                            for n, v in zip(names, ins, strict=True)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT16, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11)], ir_version=9)


def test_conv_transpose_docs_f16_every_way() -> None:
    c = CASES[2]
    ins = _inputs(c)
    want = _want(c, ins)
    feeds = dict(zip(["x", "w", "b"], ins, strict=False))
    for where, got in S.runs(_model(c, ins), feeds, "ConvTranspose").items():  # type: ignore[arg-type]
        S.assert_exact_bits(f"{c.id} {where}", got[0], want)
