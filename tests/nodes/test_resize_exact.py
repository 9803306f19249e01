"""Resize and Upsample against tests/reference/resize_docs_reference.py, a reference written from
docs/resize.md alone by a reviewer who did not read the kernels: bit for bit on every kernel path, both ways
in, 1 and 2 threads; every coordinate mode and nearest mode the page serves, linear on ranks 1 to 5 and with
`axes`, opset 10 and Upsample's "simple" rounding, sizes and scales (constant and run-time), zero-size and
identity axes, every stored type for nearest (bit patterns, NaN payloads); stock ORT the same bits for nearest
and within the page's error bound for linear; unserved attributes left to stock, bad scales a clear error."""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

import onemodel_ep
from tests.nodes import node_sessions as S
from tests.nodes.resize_models import resize_model
from tests.reference import resize_docs_reference as R

COORDS = ("half_pixel", "half_pixel_symmetric", "pytorch_half_pixel", "align_corners", "asymmetric")
NEAREST = ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil")


_model = resize_model


def _x(shape: tuple[int, ...], dtype: Any = np.float32, seed: int = 3) -> np.ndarray:
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    if dt == np.bool_:
        return rng.integers(0, 2, shape).astype(np.bool_)
    if dt.kind in "iu" or dt.kind == "f" and dt.itemsize == 2:
        return rng.integers(0, 256, (*shape, dt.itemsize), dtype=np.uint8).view(dt).reshape(shape)
    return (rng.standard_normal(shape) * 3).astype(dt)


def _check(x: np.ndarray, attrs: dict[str, Any], scales: list[float] | None, sizes: list[int] | None,
           want: np.ndarray, *, opset: int = 19, const: bool = True, op: str = "Resize") -> np.ndarray | None:
    """Every way in, path and thread count give want's bits; returns stock ORT's output, or None where stock
    ORT has no kernel for it (bool, int64, uint16 nearest at opset 19) or refuses it (linear on rank 1, or on
    3-D/4-D with an outer scale other than 1: "'Linear' mode only supports ...")."""
    elem = int(helper.np_dtype_to_tensor_dtype(x.dtype))
    model, feeds = _model(x.shape, elem, attrs, scales, sizes, opset=opset, const=const, op=op)
    feeds["x"] = x
    for where, got in S.runs(model, feeds, op).items():
        S.assert_exact_bits(f"{op} {attrs} {where}", got[0], want)
    try:
        return S.stock(model, feeds)[0]
    except Exception as e:  # stock ORT's own refusals, by their messages
        if any(m in str(e) for m in ("Could not find an implementation", "mode only supports",
                                     "upsamplebase.h")):
            return None
        raise


def _stock_differs(shape: tuple[int, ...], scales: list[float] | None, sizes: list[int] | None,
                   axes: list[int] | None, coord: str) -> str:
    """Why stock ORT 1.31.1's nearest is not the page's on this geometry ("" where it is): found by these
    tests, reported against docs/resize.md (which says stock gives our bits)."""
    geo = R.geometry(shape, scales, sizes, axes)
    if any(ax.resized and ax.L == ax.Lout for ax in geo):
        return "stock ORT copies an axis whose output length equals its input length (L = 2, s = 1.2)"
    if coord == "half_pixel_symmetric" and shape == (2, 1, 7, 6):
        return "L = 7, s = f32(0.6): the page's xs(0) = 0.50000018 (index 1), stock ORT picks index 0"
    return ""


# (input shape, scales, sizes, axes): up, down, mixed, odd ratios, a scale-1 axis, L == Lout with s != 1
GEOS: list[tuple[tuple[int, ...], list[float] | None, list[int] | None, list[int] | None]] = [
    ((1, 2, 5, 7), [1, 1, 2.3, 1.5], None, None),
    ((2, 1, 7, 6), [1, 1, 0.6, 0.5], None, None),
    ((1, 3, 4, 5), None, [1, 3, 9, 3], None),
    ((2, 9), [1.0, 1.7], None, None),
    ((11,), None, [4], None),
    ((1, 2, 3, 4, 5), [1, 1, 2, 0.75, 1.4], None, None),
    ((2, 2, 3), [1, 1.2, 1.0], None, None),
    ((1, 2, 6, 5), None, [7, 1], [2, 3]),
    ((1, 2, 6, 5), [2.5], None, [-1]),
    ((25, 2), [0.04, 1], None, None),
]
GEO_IDS = [f"{g[0]}-{g[1] or g[2]}-axes{g[3]}" for g in GEOS]


def _attrs(geo: Any, **kw: Any) -> dict[str, Any]:
    return {**kw, **({"axes": geo[3]} if geo[3] is not None else {})}


@pytest.mark.parametrize("geo", GEOS, ids=GEO_IDS)
@pytest.mark.parametrize("coord", COORDS)
def test_nearest_every_mode(geo: Any, coord: str) -> None:
    shape, scales, sizes, axes = geo
    x = _x(shape)
    for nearest in NEAREST:
        want = R.resize(x, "nearest", coord, nearest, scales, sizes, axes)
        attrs = _attrs(geo, mode="nearest", coordinate_transformation_mode=coord, nearest_mode=nearest)
        stock = _check(x, attrs, scales, sizes, want)
        if not _stock_differs(shape, scales, sizes, axes, coord):
            assert stock is not None
            S.assert_exact_bits(f"stock {coord} {nearest}", stock, want)


@pytest.mark.parametrize("geo", GEOS, ids=GEO_IDS)
@pytest.mark.parametrize("coord", COORDS)
def test_linear_every_coordinate_mode(geo: Any, coord: str) -> None:
    """Bits against the reference; stock ORT within 3 m ulp of the largest tap (m resized axes): the page
    bounds ours by about 1.5 m ulp of the largest tap from the exact interpolation of the same coordinates,
    and stock ORT's sum of four weighted taps meets a like bound."""
    shape, scales, sizes, axes = geo
    x = _x(shape)
    want = R.resize(x, "linear", coord, "round_prefer_floor", scales, sizes, axes)
    stock = _check(x, _attrs(geo, mode="linear", coordinate_transformation_mode=coord), scales, sizes, want)
    m = sum(ax.resized for ax in R.geometry(shape, scales, sizes, axes))
    if stock is None or any(ax.resized and ax.L == ax.Lout for ax in R.geometry(shape, scales, sizes, axes)):
        return  # stock refuses this linear resize, or copies the L == Lout axis (see _stock_differs)
    assert stock.shape == want.shape
    if want.size:
        tol = 3 * m * float(np.spacing(np.float32(np.abs(x).max())))
        np.testing.assert_allclose(want, stock, rtol=0, atol=tol)


@pytest.mark.parametrize("dtype", [np.float16, np.int8, np.uint8, np.int32, np.int64, np.uint16, np.bool_])
def test_nearest_every_type_bit_copies(dtype: Any) -> None:
    x = _x((2, 3, 5), dtype)
    want = R.resize(x, "nearest", "half_pixel", "round_prefer_ceil", [1, 1.5, 0.6], None)
    attrs = {"mode": "nearest", "nearest_mode": "round_prefer_ceil"}
    stock = _check(x, attrs, [1, 1.5, 0.6], None, want)
    if dtype not in (np.int64, np.uint16, np.bool_):  # stock ORT 1.31.1 has no Resize-19 kernel for these
        assert stock is not None
        S.assert_exact_bits("stock", stock, want)


def test_nearest_copies_nan_payloads_and_signed_zeros() -> None:
    bits = np.random.default_rng(9).integers(0, 2**32, (1, 1, 6, 6), dtype=np.uint64).astype(np.uint32)
    bits.ravel()[:6] = [0x7F800001, 0xFFC00123, 0x80000000, 0x00000000, 0x7FBFFFFF, 0xFF800000]
    x = bits.view(np.float32)
    want = R.resize(x, "nearest", "asymmetric", "floor", None, [1, 1, 11, 4])
    _check(x, {"mode": "nearest", "coordinate_transformation_mode": "asymmetric", "nearest_mode": "floor"},
           None, [1, 1, 11, 4], want)


def test_linear_integer_source_takes_one_tap() -> None:
    """asymmetric 2x: even outputs sit on input elements, so a NaN or infinity there reaches only the
    outputs whose taps have weight (docs/resize.md's t == 0 rule)."""
    x = _x((1, 1, 4, 4))
    x[0, 0, 1, 2] = np.nan
    x[0, 0, 3, 0] = np.inf
    want = R.resize(x, "linear", "asymmetric", "", [1, 1, 2, 2], None)
    assert np.isfinite(want[0, 0, 0, 0]) and np.isfinite(want[0, 0, 0, 6])  # beside the NaN, weight 0
    _check(x, {"mode": "linear", "coordinate_transformation_mode": "asymmetric"}, [1, 1, 2, 2], None, want)


@pytest.mark.parametrize("op, opset, scales", [
    ("Resize", 10, [1, 1, 2.5, 1.5]), ("Resize", 10, [1, 1, 3, 1]), ("Resize", 10, [1, 2, 0.7, 0.4]),
    ("Upsample", 9, [1, 1, 2.5, 1.5]), ("Upsample", 9, [1, 1, 3, 1]),  # Upsample refuses s < 1 (below)
])
def test_opset10_and_upsample_simple_rounding(op: str, opset: int, scales: list[float]) -> None:
    x = _x((1, 2, 5, 6))
    for mode in ("nearest", "linear"):
        want = R.resize(x, mode, "asymmetric", "simple", scales, None)
        stock = _check(x, {"mode": mode}, scales, None, want, opset=opset, op=op)
        if mode == "nearest":
            assert stock is not None
            S.assert_exact_bits(f"stock {op} {opset}", stock, want)


@pytest.mark.parametrize("opset", [13, 18])
def test_other_opsets(opset: int) -> None:
    """Resize 13 and 18 read the same attributes (18: axes, keep_aspect_ratio_policy "stretch", antialias 0
    given explicitly) and give the same bits."""
    x = _x((1, 2, 5, 4))
    extra = {"antialias": 0, "keep_aspect_ratio_policy": "stretch"} if opset == 18 else {}
    for mode, coord in (("nearest", "pytorch_half_pixel"), ("linear", "align_corners")):
        want = R.resize(x, mode, coord, "ceil", [1, 1, 1.6, 0.75], None)
        attrs = {"mode": mode, "coordinate_transformation_mode": coord, "nearest_mode": "ceil", **extra}
        _check(x, attrs, [1, 1, 1.6, 0.75], None, want, opset=opset)


def test_runtime_scales_and_sizes() -> None:
    x = _x((1, 2, 4, 6))
    want = R.resize(x, "linear", "half_pixel", "", [1, 1, 1.75, 0.5], None)
    _check(x, {"mode": "linear"}, [1, 1, 1.75, 0.5], None, want, const=False)
    want = R.resize(x, "nearest", "align_corners", "round_prefer_floor", None, [1, 2, 9, 2])
    attrs = {"mode": "nearest", "coordinate_transformation_mode": "align_corners"}
    _check(x, attrs, None, [1, 2, 9, 2], want, const=False)


@pytest.mark.parametrize("mode", ["nearest", "linear"])
def test_zero_size(mode: str) -> None:
    x = np.zeros((0, 2, 3, 4), np.float32)
    want = R.resize(x, mode, "half_pixel", "round_prefer_floor", [1, 1, 2, 2], None)
    assert want.shape == (0, 2, 6, 8)
    _check(x, {"mode": mode}, [1, 1, 2, 2], None, want)
    want = R.resize(np.zeros((1, 2, 0, 4), np.float32), mode, "half_pixel", "round_prefer_floor", None,
                    [1, 2, 0, 3])
    _check(np.zeros((1, 2, 0, 4), np.float32), {"mode": mode}, None, [1, 2, 0, 3], want)


def _session(model: onnx.ModelProto, via: str) -> onemodel_ep.InferenceSession:
    return S.session(model, via, None, 1)


@pytest.mark.parametrize("attrs", [
    {"mode": "cubic", "coordinate_transformation_mode": "tf_half_pixel_for_nn"},  # see test_resize_cubic.py
    {"mode": "linear", "antialias": 1, "coordinate_transformation_mode": "tf_crop_and_resize"},
    {"mode": "nearest", "coordinate_transformation_mode": "tf_half_pixel_for_nn"},
    {"mode": "nearest", "keep_aspect_ratio_policy": "not_larger"},
])
def test_unserved_left_to_stock(attrs: dict[str, Any]) -> None:
    x = _x((1, 1, 4, 4))
    sizes = [1, 1, 6, 7] if "keep_aspect_ratio_policy" in attrs else None
    scales = None if sizes else [1, 1, 2, 1.5]
    model, feeds = _model(x.shape, TensorProto.FLOAT, attrs, scales, sizes)
    feeds["x"] = x
    for via in S.VIAS:
        sess = _session(model, via)
        assert not sess.report.moved, sess.report.summary()
        S.assert_exact_bits(f"{attrs} {via}", sess.run(None, feeds)[0], S.stock(model, feeds)[0])


@pytest.mark.parametrize("scales, why", [
    ([1, 1, 0, 2], "scale"),
    ([1, 1, float("nan"), 2], "scale"),
    ([1, 1, float("inf"), 2], "scale"),
    ([1, 1, -2, 2], "scale"),
    ([1, 1, 2], "rank|length|scales"),
])
def test_bad_runtime_scales_clear_error(scales: list[float], why: str) -> None:
    x = _x((1, 1, 3, 3))
    model, feeds = _model(x.shape, TensorProto.FLOAT, {"mode": "linear"}, scales, None, const=False)
    feeds["x"] = x
    for via in S.VIAS:
        sess = _session(model, via)
        assert [n.op for n in sess.report.moved] == ["Resize"], sess.report.summary()
        with pytest.raises(Exception, match=rf"(?s)rs.*Resize.*({why})"):
            sess.run(None, feeds)


def test_upsample_scale_below_one_is_an_error() -> None:
    x = _x((1, 1, 3, 3))
    model, feeds = _model(x.shape, TensorProto.FLOAT, {"mode": "nearest"}, [1, 1, 0.5, 1], None, const=False,
                          op="Upsample", opset=9)
    feeds["x"] = x
    for via in S.VIAS:
        sess = _session(model, via)
        assert [n.op for n in sess.report.moved] == ["Upsample"], sess.report.summary()
        with pytest.raises(Exception, match=r"(?s)rs.*Upsample.*scale 0.5 of axis 2 is below 1"):
            sess.run(None, feeds)


def _nan_inf_input() -> np.ndarray:
    x = _x((1, 1, 3, 4))
    xb = x.view(np.uint32)
    xb[0, 0, 0, 1] = 0xFFC00123  # a negative quiet NaN with a payload
    xb[0, 0, 1, 1] = 0x7F800000  # +inf
    xb[0, 0, 1, 2] = 0xFF800000  # -inf beside it: their blend is inf - inf
    return x


def test_linear_integer_coordinate_copies_nan_bits() -> None:
    """An integer source coordinate copies the element's bits (a NaN's payload too: docs/resize.md's t == 0
    rule). Only those outputs are compared here; the NaNs interpolation makes are the next test's."""
    x = _nan_inf_input()
    want = R.resize(x, "linear", "asymmetric", "", [1, 1, 2, 2], None)
    wb = want.view(np.uint32)
    assert wb[0, 0, 0, 2] == 0xFFC00123 and wb[0, 0, 2, 0] == x.view(np.uint32)[0, 0, 1, 0]
    model, feeds = _model(x.shape, TensorProto.FLOAT, {"mode": "linear",
                                                       "coordinate_transformation_mode": "asymmetric"},
                          [1, 1, 2, 2], None)
    feeds["x"] = x
    for where, got in S.runs(model, feeds, "Resize").items():
        gb = got[0].view(np.uint32)
        assert (gb[0, 0, 0, 2], gb[0, 0, 2, 0]) == (wb[0, 0, 0, 2], wb[0, 0, 2, 0]), where


def test_linear_nan_results_are_canonical() -> None:
    """A NaN tap of non-zero weight, and +inf blended with -inf: the interpolation's NaN result is the
    canonical NaN (exact-mode.md)."""
    x = _nan_inf_input()
    want = R.resize(x, "linear", "asymmetric", "", [1, 1, 2, 2], None)
    assert want.view(np.uint32)[0, 0, 0, 1] == 0x7FC00000 and want.view(np.uint32)[0, 0, 2, 3] == 0x7FC00000
    _check(x, {"mode": "linear", "coordinate_transformation_mode": "asymmetric"}, [1, 1, 2, 2], None, want)


@pytest.mark.parametrize(("op", "opset", "coord", "scales"), [
    ("Resize", 19, "half_pixel", [1, 1, 1.75, 0.6]),
    ("Upsample", 9, "asymmetric", [1, 1, 2.5, 1.5]),
])
def test_linear_float16_is_the_f32_steps_on_widened_inputs_rounded_once(op: str, opset: int, coord: str,
                                                                       scales: list[float]) -> None:
    """docs/resize.md, float16: the float32 reference on x widened, rounded once; every way in, path and
    thread count. Stock ORT (Cast, its f32 linear, Cast) within one f16 ulp of the largest |x|: its f32 is
    within 3 m f32 ulp of ours (above), far below the half-ulp steps of float16."""
    x = (_x((1, 2, 5, 6)) / 3).astype(np.float16)
    nearest = "simple" if op == "Upsample" else "round_prefer_floor"
    want = R.resize(x.astype(np.float32), "linear", coord, nearest, scales, None).astype(np.float16)
    attrs = {"mode": "linear"}
    if op == "Resize":
        attrs["coordinate_transformation_mode"] = coord
    stock = _check(x, attrs, scales, None, want, opset=opset, op=op)
    assert stock is not None and stock.dtype == np.float16
    tol = float(np.spacing(np.float16(np.abs(x).max())))
    np.testing.assert_allclose(stock.astype(np.float64), want.astype(np.float64), rtol=0, atol=tol)


def test_linear_float16_nan_outputs_are_the_canonical_half_nan() -> None:
    """docs/resize.md, float16: a NaN input (any payload, either sign) is widened to the canonical f32 NaN, so
    a copied NaN (integer coordinate) and a NaN sum both come out as 0x7E00."""
    x = np.ones((1, 1, 2, 4), np.float16)
    x.view(np.uint16)[0, 0, 0, 1] = 0xFD01  # negative NaN with a payload
    want = R.resize(np.where(np.isnan(x), np.float32(np.nan), x.astype(np.float32)), "linear", "asymmetric",
                    "round_prefer_floor", [1, 1, 2, 2], None).astype(np.float16)
    want.view(np.uint16)[np.isnan(want)] = 0x7E00
    assert np.isnan(want).sum() >= 3  # the copy at (0, 2) and sums beside it
    _check(x, {"mode": "linear", "coordinate_transformation_mode": "asymmetric"}, [1, 1, 2, 2], None, want)
