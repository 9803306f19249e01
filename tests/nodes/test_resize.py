"""Resize and Upsample (node_resize.c over resize/resize.c): docs/resize.md's contract, every way in, kernel
path and thread count alike, against tests/reference/resize_reference.py (written from the doc) bit for bit;
against ONNX's reference (onnx.reference) exactly for nearest and within a tolerance for linear; against stock
ORT exactly for nearest and within a few ulp of the largest input for linear; and the nodes not served
(cubic, antialias, tf_crop_and_resize) left to stock with the reason, bad scales or sizes an error naming node
and op."""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

import onemodel_ep
from onemodel_ep.node import probe
from tests.nodes import node_sessions as S
from tests.nodes.resize_models import resize_model
from tests.reference import resize_reference as RR

F32 = np.dtype(np.float32)
COORDS = ("half_pixel", "half_pixel_symmetric", "pytorch_half_pixel", "align_corners", "asymmetric")
NEAREST = ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil")


def _model(x: np.ndarray, attrs: dict[str, Any], scales: list[float] | None, sizes: list[int] | None,
           opset: int = 19, const: bool = True,
           op: str = "Resize") -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    """A one-node model; scales or sizes an initializer (const) or a graph input; the feeds hold x too."""
    elem = int(helper.np_dtype_to_tensor_dtype(x.dtype))
    model, feeds = resize_model(x.shape, elem, attrs, scales, sizes, opset=opset, const=const, op=op)
    return model, {"x": x, **feeds}


def _data(shape: tuple[int, ...], dtype: np.dtype, seed: int = 5) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if dtype == np.bool_:
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    if dtype.kind in "iu":  # random bytes: every bit pattern
        return rng.integers(0, 256, size=(*shape, dtype.itemsize), dtype=np.uint8).view(dtype).reshape(shape)
    return (rng.standard_normal(shape) * 4.0).astype(dtype)


def _every_way(model: onnx.ModelProto, feeds: dict[str, np.ndarray], want: np.ndarray,
               op: str = "Resize") -> None:
    for where, got in S.runs(model, feeds, op).items():
        S.assert_exact_bits(f"{op} {where} vs the reference", got[0], want)


def _nice(shape: tuple[int, ...], scales: list[float] | None) -> bool:
    """Whether every axis's L * s is a whole number: ONNX's reference then agrees on the geometry
    (docs/resize.md, where stock ORT and ONNX's reference differ)."""
    return scales is None or all(float(np.float32(s)) * n == int(float(np.float32(s)) * n)
                                 for s, n in zip(scales, shape, strict=True))


def _onnx_ref(model: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> np.ndarray:
    return ReferenceEvaluator(model).run(None, feeds)[0]


# (X shape, scales, sizes): up, down and odd scales, sizes, ranks 1 to 5
GEOMS: list[tuple[tuple[int, ...], list[float] | None, list[int] | None]] = [
    ((1, 2, 5, 7), [1, 1, 2, 2], None),
    ((1, 2, 6, 8), [1, 1, 0.5, 0.75], None),
    ((1, 2, 5, 7), [1, 1, 1.5, 2.3], None),
    ((2, 3, 5, 4), None, [2, 3, 9, 3]),
    ((7,), [3.0], None),
    ((3, 4, 5), None, [3, 7, 2]),
    ((1, 2, 3, 4, 5), [1, 1, 2, 1.5, 0.6], None),
]
GEOM_IDS = [f"{s}-{'scales' if sc else 'sizes'}{sc or sz}" for s, sc, sz in GEOMS]


@pytest.mark.parametrize("coord", COORDS)
@pytest.mark.parametrize("nearest", NEAREST)
def test_nearest_every_mode_matches_reference_every_way(coord: str, nearest: str) -> None:
    for shape, scales, sizes in GEOMS[:4]:
        x = _data(shape, F32)
        want = RR.resize(x, "nearest", coord, nearest, scales, sizes)
        model, feeds = _model(x, {"mode": "nearest", "coordinate_transformation_mode": coord,
                                  "nearest_mode": nearest}, scales, sizes)
        _every_way(model, feeds, want)
        np.testing.assert_array_equal(S.stock(model, feeds)[0], want,
                                      err_msg=f"stock {shape} {scales} {sizes}")


@pytest.mark.parametrize(("shape", "scales", "sizes"), GEOMS, ids=GEOM_IDS)
def test_nearest_geometries_against_onnx_reference(shape: tuple[int, ...], scales: list[float] | None,
                                                    sizes: list[int] | None) -> None:
    x = _data(shape, F32)
    model, feeds = _model(x, {"mode": "nearest"}, scales, sizes, const=False)
    want = RR.resize(x, "nearest", "half_pixel", "round_prefer_floor", scales, sizes)
    _every_way(model, feeds, want)
    np.testing.assert_array_equal(S.stock(model, feeds)[0], want)
    if _nice(shape, scales):
        np.testing.assert_array_equal(_onnx_ref(model, feeds), want)


@pytest.mark.parametrize("dtype", [np.float16, np.float64, np.int8, np.uint8, np.int16,
                                   np.int32, np.int64, np.uint64, np.bool_], ids=str)
def test_nearest_every_stored_type_is_a_copy(dtype: Any) -> None:
    x = _data((2, 3, 4, 5), np.dtype(dtype))
    for scales, sizes in (([1, 1, 2, 1.5], None), (None, [1, 3, 3, 9])):
        model, feeds = _model(x, {"mode": "nearest", "nearest_mode": "floor"}, scales, sizes)
        _every_way(model, feeds, RR.resize(x, "nearest", "half_pixel", "floor", scales, sizes))


def test_nearest_copies_nan_payloads_and_signed_zeros() -> None:
    x = np.array([[0x7FC00001, 0xFFC01234, 0x80000000, 0x3F800000]], dtype=np.uint32).view(np.float32)
    model, feeds = _model(x, {"mode": "nearest"}, [1, 2.5], None)
    _every_way(model, feeds, RR.resize(x, "nearest", "half_pixel", "round_prefer_floor", [1, 2.5], None))


@pytest.mark.parametrize("coord", COORDS)
def test_linear_every_coordinate_mode(coord: str) -> None:
    for shape, scales, sizes in GEOMS:
        x = _data(shape, F32)
        want = RR.resize(x, "linear", coord, "", scales, sizes)
        model, feeds = _model(x, {"mode": "linear", "coordinate_transformation_mode": coord}, scales, sizes)
        _every_way(model, feeds, want)
        tol = 4 * float(np.abs(x).max()) * 2.0**-23
        if _nice(shape, scales):
            np.testing.assert_allclose(_onnx_ref(model, feeds), want, rtol=0, atol=tol,
                                       err_msg=f"{shape} onnx")
        if len(shape) == 4 and (scales or sizes)[:2] in ([1, 1], list(shape[:2])):  # stock's bilinear
            np.testing.assert_allclose(S.stock(model, feeds)[0], want, rtol=0, atol=tol,
                                       err_msg=f"{shape} stock")


def test_linear_integer_coordinates_take_one_tap() -> None:
    """2x down by asymmetric lands on input elements: the output is those elements, even beside a NaN or
    infinity (stock ORT and ONNX's reference multiply them by 0 and give NaN)."""
    x = _data((1, 1, 4, 6), F32)
    x[0, 0, 1, 1] = np.nan
    x[0, 0, 3, 3] = np.inf
    attrs = {"mode": "linear", "coordinate_transformation_mode": "asymmetric"}
    model, feeds = _model(x, attrs, [1, 1, 0.5, 0.5], None)
    want = x[:, :, ::2, ::2]
    _every_way(model, feeds, want)
    np.testing.assert_array_equal(RR.resize(x, "linear", "asymmetric", "", [1, 1, 0.5, 0.5], None), want)


def test_axes_attribute_and_runtime_inputs() -> None:
    x = _data((2, 3, 5, 6), F32)
    for mode in ("nearest", "linear"):
        want = RR.resize(x, mode, "half_pixel", "round_prefer_floor", [2.0, 0.5], None, axes=[-1, 2])
        model, feeds = _model(x, {"mode": mode, "axes": [-1, 2]}, [2.0, 0.5], None, const=False)
        _every_way(model, feeds, want)
        positive, _ = _model(x, {"mode": mode, "axes": [3, 2]}, [2.0, 0.5], None, const=False)
        np.testing.assert_allclose(_onnx_ref(positive, feeds), want, rtol=0,
                                   atol=1e-5 * float(np.abs(x).max()))


@pytest.mark.parametrize(("op", "opset"), [("Resize", 10), ("Upsample", 9)])
def test_opset_10_and_upsample_asymmetric_simple_rounding(op: str, opset: int) -> None:
    x = _data((1, 2, 4, 5), F32)
    for mode in ("nearest", "linear"):
        scales = [1, 1, 2, 3] if op == "Upsample" else [1, 1, 0.6, 1.7]
        model, feeds = _model(x, {"mode": mode}, scales, None, opset=opset, op=op)
        want = RR.resize(x, mode, "asymmetric", "simple", scales, None)
        _every_way(model, feeds, want, op)
        stock = S.stock(model, feeds)[0]
        if mode == "nearest":
            np.testing.assert_array_equal(stock, want)
        else:
            np.testing.assert_allclose(stock, want, rtol=0, atol=4 * float(np.abs(x).max()) * 2.0**-23)


def _report(model: onnx.ModelProto) -> str:
    sess = onemodel_ep.InferenceSession(model, mode="exact", via="rewrite")
    assert not sess.report.moved, sess.report.summary()
    return sess.report.summary()


@pytest.mark.parametrize(("attrs", "why"), [
    ({"mode": "cubic", "cubic_coeff_a": float("inf")}, "cubic_coeff_a"),
    ({"mode": "cubic", "coordinate_transformation_mode": "tf_half_pixel_for_nn"}, "tf_half_pixel_for_nn"),
    ({"mode": "nearest", "coordinate_transformation_mode": "tf_crop_and_resize"}, "tf_crop_and_resize"),
    ({"mode": "nearest", "keep_aspect_ratio_policy": "not_larger"}, "keep_aspect_ratio_policy"),
])
def test_not_served_stays_stock_with_the_reason(attrs: dict[str, Any], why: str) -> None:
    x = _data((1, 1, 3, 3), F32)
    model, _ = _model(x, attrs, None, [1, 1, 6, 6])
    assert why in _report(model)


def test_unknown_attribute_values_are_refused_with_the_attribute_named() -> None:
    for attrs, why in (({"mode": "bicubic"}, "attribute mode"), ({"nearest_mode": "even"}, "nearest_mode"),
                       ({"coordinate_transformation_mode": "centre"}, "coordinate_transformation_mode")):
        reason = probe("Resize", [TensorProto.FLOAT, 0, TensorProto.FLOAT], onnx_opset=19, attributes=attrs)
        assert reason is not None and why in reason and "Resize" in reason, reason


def test_linear_on_integers_stays_stock() -> None:
    model, _ = _model(_data((1, 1, 3, 3), np.dtype(np.int32)), {"mode": "linear"}, [1, 1, 2, 2], None)
    assert "linear" in _report(model)


@pytest.mark.parametrize(("scales", "why"), [
    ([1, 1, 0, 2], "greater than 0"), ([1, 1, np.nan, 2], "greater than 0"),
    ([1, 1, np.inf, 2], "greater than 0"), ([1, 2], "one per axis")])
def test_bad_scales_are_errors_naming_node_and_op(scales: list[float], why: str) -> None:
    x = _data((1, 1, 3, 3), F32)
    model, feeds = _model(x, {"mode": "nearest"}, scales, None, const=False)
    for via in S.VIAS:
        sess = S.session(model, via, None, 1)
        assert [n.op for n in sess.report.moved] == ["Resize"]
        with pytest.raises(Exception, match=f"node 'rs' \\(op Resize\\).*{why}"):
            sess.run(None, feeds)


def test_both_scales_and_sizes_is_an_error() -> None:
    x = _data((1, 1, 3, 3), F32)
    node = helper.make_node("Resize", ["x", "", "scales", "sizes"], ["y"], name="rs", mode="nearest")
    graph = helper.make_graph(
        [node], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, 3, 3]),
         helper.make_tensor_value_info("scales", TensorProto.FLOAT, [4]),
         helper.make_tensor_value_info("sizes", TensorProto.INT64, [4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)], ir_version=8)
    feeds = {"x": x, "scales": np.ones(4, np.float32), "sizes": np.array([1, 1, 6, 6], np.int64)}
    for via in S.VIAS:
        with pytest.raises(Exception, match=r"(?i)\brs\b.*\bResize\b.*\bboth\b"):
            S.session(model, via, None, 1).run(None, feeds)
