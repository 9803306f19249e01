"""Resize `cubic` and `antialias` (float32) against tests/reference/resize_cubic_docs_reference.py, written
from docs/resize.md alone: bit for bit on every kernel path through the node API. Cubic with
`cubic_coeff_a` and `exclude_outside`, several coordinate modes, up and down, rank 2 and NCHW; antialias
linear and cubic downscales (and one upscale, one axis of L == Lout with s != 1); NaN and infinities at
integer source coordinates (one tap of weight 1 keeps the element's bits); a zero-size axis."""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

import onemodel_ep
from onemodel_ep.node import Node
from tests.nodes import node_sessions as S
from tests.reference import resize_cubic_docs_reference as R

PATHS = onemodel_ep.kernel_paths()

# (id, shape, coord, scales, sizes, cubic, antialias, cubic_coeff_a, exclude_outside)
Row = tuple[str, tuple[int, ...], str, list[float] | None, list[int] | None, bool, bool, float, int]
CASES: list[Row] = [
    ("cubic_r2_half_pixel_2x", (5, 6), "half_pixel", [2.0, 2.0], None, True, False, -0.75, 0),
    ("cubic_r2_align_corners_sizes_a05", (7, 5), "align_corners", None, [11, 3], True, False, -0.5, 0),
    ("cubic_r2_asymmetric_nan_inf", (4, 6), "asymmetric", [1.0, 2.0], None, True, False, -0.75, 0),
    ("cubic_nchw_half_pixel_excl", (1, 2, 5, 4), "half_pixel", [1.0, 1.0, 1.5, 2.5], None, True, False,
     -0.75, 1),
    ("cubic_nchw_pytorch_down", (2, 2, 8, 9), "pytorch_half_pixel", None, [2, 2, 3, 4], True, False, -0.5, 0),
    ("cubic_r2_hp_symmetric_excl", (10, 6), "half_pixel_symmetric", [0.6, 1.7], None, True, False, -0.6, 1),
    ("aa_linear_r2_half", (12, 10), "half_pixel", [0.5, 0.5], None, False, True, -0.75, 0),
    ("aa_linear_nchw_sizes_excl", (1, 3, 20, 17), "half_pixel", None, [1, 3, 6, 5], False, True, -0.75, 1),
    ("aa_linear_r2_same_length", (2, 9), "asymmetric", [1.44, 0.7], None, False, True, -0.75, 0),
    ("aa_cubic_r2_half", (16, 14), "half_pixel", [0.5, 0.5], None, True, True, -0.75, 0),
    ("aa_cubic_nchw_align_excl", (1, 2, 15, 19), "align_corners", [1.0, 1.0, 0.6, 0.45], None, True, True,
     -0.5, 1),
    ("aa_cubic_r2_up", (5, 4), "asymmetric", [2.0, 1.5], None, True, True, -0.5, 0),
    ("cubic_r2_zero_rows", (0, 5), "half_pixel", [2.0, 2.0], None, True, False, -0.75, 0),
]


def _x(case_id: str, shape: tuple[int, ...]) -> np.ndarray:
    rng = np.random.default_rng(11)
    x = (rng.standard_normal(shape) * 4).astype(np.float32)
    if case_id == "cubic_r2_asymmetric_nan_inf" and x.size:
        x[0, 2] = np.array(0x7FC12345, np.uint32).view(np.float32)  # a NaN with a payload
        x[1, 3] = np.array(0xFFC00001, np.uint32).view(np.float32)  # a negative NaN
        x[2, 4] = np.float32(np.inf)
        x[3, 1] = np.float32(-0.0)
    return x


def _node_attrs(coord: str, cubic: bool, antialias: bool, a: float, excl: int) -> dict[str, Any]:
    return {"mode": "cubic" if cubic else "linear", "coordinate_transformation_mode": coord,
            "cubic_coeff_a": a, "exclude_outside": excl, "antialias": int(antialias)}


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_resize_filter_docs_bits(case: Row) -> None:
    cid, shape, coord, scales, sizes, cubic, antialias, a, excl = case
    x, want = _want(case)
    if scales is not None:
        ins: list[np.ndarray | None] = [x, None, np.array(scales, np.float32), None]
        types = [TensorProto.FLOAT, 0, TensorProto.FLOAT, 0]
    else:
        ins = [x, None, None, np.array(sizes, np.int64)]
        types = [TensorProto.FLOAT, 0, 0, TensorProto.INT64]
    for path in PATHS:
        node = Node("Resize", types, onnx_opset=19, attributes=_node_attrs(coord, cubic, antialias, a, excl),
                    kernel_path=path, name="rs")
        S.assert_exact_bits(f"{cid} path {path}", node.run_outputs(*ins)[0], want)


def test_reference_keeps_bits_at_integer_coordinates() -> None:
    """The reference itself: asymmetric 2x along the last axis puts every even output on an input element,
    whose taps reduce to one of weight 1 (its bits, NaN payloads and -0 kept); the odd outputs next to a NaN
    or infinity are the canonical NaN or non-finite."""
    x = _x("cubic_r2_asymmetric_nan_inf", (4, 6))
    y = R.resize(x, "asymmetric", [1.0, 2.0], None, cubic=True, antialias=False)
    u = np.uint32
    assert (y[:, ::2].view(u) == x.view(u)).all()
    assert y[0, 3].view(u) == 0x7FC00000 and y[1, 5].view(u) == 0x7FC00000


def _model(row: Row) -> onnx.ModelProto:
    _, shape, coord, scales, sizes, cubic, antialias, a, excl = row
    if scales is not None:
        init = helper.make_tensor("scales", TensorProto.FLOAT, [len(scales)], scales)
        inputs = ["x", "", "scales"]
    else:
        assert sizes is not None
        init = helper.make_tensor("sizes", TensorProto.INT64, [len(sizes)], sizes)
        inputs = ["x", "", "", "sizes"]
    attrs = _node_attrs(coord, cubic, antialias, a, excl)
    node = helper.make_node("Resize", inputs, ["y"], name="rs", **attrs)
    graph = helper.make_graph(
        [node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(shape))],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], [init])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)], ir_version=8)


def _want(row: Row) -> tuple[np.ndarray, np.ndarray]:
    cid, shape, coord, scales, sizes, cubic, antialias, a, excl = row
    x = _x(cid, shape)
    return x, R.resize(x, coord, scales, sizes, cubic=cubic, antialias=antialias, cubic_coeff_a=a,
                       exclude_outside=excl)


@pytest.mark.parametrize("cid", ["aa_cubic_nchw_align_excl", "cubic_nchw_half_pixel_excl"])
def test_resize_filter_docs_every_way(cid: str) -> None:
    """Both ways in (EP, rewrite), every path at 1 thread and the default at 2: the reference's bits."""
    row = next(c for c in CASES if c[0] == cid)
    x, want = _want(row)
    for where, got in S.runs(_model(row), {"x": x}, "Resize").items():
        S.assert_exact_bits(f"{cid} {where}", got[0], want)


# docs/resize.md's differences from stock ORT 1.31.1: NaN/inf next to an integer coordinate (stock multiplies
# every tap), an axis with L == Lout and s != 1 (stock copies it): not compared; cubic with exclude_outside
# (stock divides the products by the sum): within 2 ulp of the largest input, as the page states.
STOCK_SKIP = ("cubic_r2_asymmetric_nan_inf", "aa_linear_r2_same_length")


@pytest.mark.parametrize("row", [c for c in CASES if c[0] not in STOCK_SKIP], ids=lambda c: c[0])
def test_resize_filter_docs_vs_stock(row: Row) -> None:
    """The reference against stock ORT 1.31.1: the same bits, but for cubic with exclude_outside, 2 ulp of the
    largest input (the page's stated difference)."""
    x, want = _want(row)
    got = S.stock(_model(row), {"x": x})[0]
    if row[5] and not row[6] and row[8]:
        tol = 2 * float(np.spacing(np.abs(x).max()))
        np.testing.assert_allclose(got, want, rtol=0, atol=tol)
    else:
        S.assert_exact_bits(f"{row[0]} stock", got, want)
