"""Resize mode cubic and antialias=1 (docs/resize.md, "cubic and antialias") against a NumPy reference
written from that page: bit for bit; every way in, kernel path and 1 or 2 threads on two cases; stock ORT
1.31.1 the same bits or within a stated number of ulp; ranks and scale patterns stock ORT refuses for cubic
refused here too, bad attributes left to stock, zero-size axes."""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto

from onemodel_ep.node import probe
from tests.nodes import node_sessions as S
from tests.nodes.resize_models import resize_model
from tests.reference import resize_docs_reference as G

F = np.float32
CANON_NAN = np.array(0x7FC00000, np.uint32).view(np.float32)
COORDS = ("half_pixel", "half_pixel_symmetric", "pytorch_half_pixel", "align_corners", "asymmetric")


# ---- the reference (docs/resize.md): taps per output index, then one step per resized axis, last first ----

def _cubic_taps(xs: np.float32, L: int, a: np.float32, exclude: bool) -> list[tuple[int, np.float32]]:
    n0 = F(np.floor(xs))
    r = F(xs - n0)
    p, q, u = F(r + F(1)), F(F(1) - r), F(F(2) - r)
    a2, a3, a5, a8, a4 = F(a + F(2)), F(a + F(3)), F(F(5) * a), F(F(8) * a), F(F(4) * a)
    c = [F(F(F(F(F(a * p) - a5) * p) + a8) * p - a4),
         F(F(F(F(a2 * r) - a3) * r) * r + F(1)),
         F(F(F(F(a2 * q) - a3) * q) * q + F(1)),
         F(F(F(F(F(a * u) - a5) * u) + a8) * u - a4)]
    idx = [int(n0) - 1 + t for t in range(4)]
    if exclude:
        c = [F(0) if not 0 <= k < L else w for k, w in zip(idx, c)]
        total = F(F(F(c[0] + c[1]) + c[2]) + c[3])
        c = [F(w / total) for w in c]
    return [(min(max(k, 0), L - 1), w) for k, w in zip(idx, c) if w != 0]


def _kernel(cubic: bool, a: np.float32, x: np.float32) -> np.float32:
    x = F(abs(x))
    if not cubic:
        return F(F(1) - x) if x < 1 else F(0)
    if x < 1:
        return F(F(F(F(F(a + F(2)) * x) - F(a + F(3))) * x) * x + F(1))
    if x < 2:
        return F(F(F(F(F(x - F(5)) * x) + F(8)) * x - F(4)) * a)
    return F(0)


def _aa_taps(cubic: bool, xs: np.float32, s: np.float32, L: int, a: np.float32,
             exclude: bool) -> list[tuple[int, np.float32]]:
    g = F(F(1) / s)
    half = F(F(4 if cubic else 2) * F(0.5))
    support = F(half * g) if g >= 1 else half
    inv = F(F(1) / g) if g >= 1 else F(1)
    window = 2 * int(np.ceil(support)) + 1
    c = F(F(0.5) + xs)
    lo = int(np.floor(F(F(c - support) + F(0.5))))
    hi = int(np.floor(F(F(c + support) + F(0.5))))
    hi = lo + min(max(hi - lo, 0), window)
    if exclude:
        lo, hi = min(max(lo, 0), L), min(max(hi, 0), L)
    f = {j: _kernel(cubic, a, F(F(F(F(j) - c) + F(0.5)) * inv)) for j in range(lo, hi)}
    total = F(0)
    for j in range(lo, hi):
        total = F(total + f[j])
    inside = [j for j in range(lo, hi) if 0 <= j < L]
    if not exclude and inside:
        for j in range(lo, hi):
            if j < 0:
                f[0] = F(f[0] + f[j])
        for j in range(lo, hi):
            if j > L - 1:
                f[L - 1] = F(f[L - 1] + f[j])
    scale = F(1) if total == 0 else F(F(1) / total)
    taps = [(j, F(f[j] * scale)) for j in inside]
    return [(j, w) for j, w in taps if w != 0]


def _step(y: np.ndarray, axis: int, taps: list[list[tuple[int, np.float32]]]) -> np.ndarray:
    """One 1-D step along axis: output index i from taps[i] (docs/resize.md's S)."""
    parts = []
    for tl in taps:
        if not tl:
            v = np.zeros_like(np.take(y, [0], axis=axis)) if y.shape[axis] else None
            assert v is not None
        elif len(tl) == 1 and tl[0][1] == 1:
            v = np.take(y, [tl[0][0]], axis=axis)
        else:
            v = np.take(y, [tl[0][0]], axis=axis) * tl[0][1]
            for k, w in tl[1:]:
                v = v + np.take(y, [k], axis=axis) * w
            v = np.where(np.isnan(v), CANON_NAN, v)
        parts.append(v.astype(F))
    if not parts:
        shape = list(y.shape)
        shape[axis] = 0
        return np.zeros(shape, F)
    return np.concatenate(parts, axis=axis)


def reference(x: np.ndarray, *, mode: str, coord: str = "half_pixel", antialias: bool = False,
              exclude: bool = False, a: float = -0.75, scales: list[float] | None = None,
              sizes: list[int] | None = None) -> np.ndarray:
    geo = G.geometry(x.shape, scales, sizes)
    y = x.astype(F)
    if any(ax.Lout == 0 for ax in geo):
        return np.zeros([ax.Lout for ax in geo], F)
    for axis in reversed(range(x.ndim)):
        ax = geo[axis]
        if not ax.resized:
            continue
        taps = []
        for i in range(ax.Lout):
            xs = G.source(coord, i, ax)
            if antialias:
                taps.append(_aa_taps(mode == "cubic", xs, ax.s, ax.L, F(a), exclude))
            else:
                taps.append(_cubic_taps(xs, ax.L, F(a), exclude))
        y = _step(y, axis, taps)
    return y


# ---- models ----

def _model(shape: tuple[int, ...], attrs: dict[str, Any], scales: list[float] | None, sizes: list[int] | None,
           *, const: bool = True, opset: int = 19, declare_rank: bool = True,
           ) -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    return resize_model(shape, TensorProto.FLOAT, attrs, scales, sizes, const=const, opset=opset,
                        declare_rank=declare_rank)


def _x(shape: tuple[int, ...], seed: int = 7) -> np.ndarray:
    return (np.random.default_rng(seed).standard_normal(shape) * 3).astype(F)


def _attrs(mode: str, coord: str, antialias: bool, exclude: bool, a: float) -> dict[str, Any]:
    out: dict[str, Any] = {"mode": mode, "coordinate_transformation_mode": coord}
    if antialias:
        out["antialias"] = 1
    if exclude:
        out["exclude_outside"] = 1
    if a != -0.75:
        out["cubic_coeff_a"] = a
    return out


def _ours(model: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> np.ndarray:
    sess = S.session(model, "rewrite", None, 1)
    assert [n.op for n in sess.report.moved] == ["Resize"], sess.report.summary()
    return sess.run(None, feeds)[0]


def _ulps(got: np.ndarray, want: np.ndarray, x: np.ndarray) -> float:
    if got.size == 0:
        return 0.0
    return float(np.abs(got.astype(np.float64) - want).max() / np.spacing(F(np.abs(x).max())))


# ---- every way in, path and thread count: two representative cases ----

@pytest.mark.parametrize(("shape", "kw", "scales"), [
    ((1, 2, 7, 9), {"mode": "cubic", "coord": "half_pixel", "exclude": True, "a": -0.5}, [1, 1, 2.0, 1.5]),
    ((1, 2, 16, 18), {"mode": "linear", "coord": "half_pixel", "antialias": True}, [1, 1, 0.5, 0.3]),
])
def test_every_way_in_path_and_thread_gives_the_reference_bits(shape: tuple[int, ...], kw: dict[str, Any],
                                                                 scales: list[float]) -> None:
    x = _x(shape)
    kw = {"antialias": False, "exclude": False, "a": -0.75, **kw}
    want = reference(x, scales=scales, **kw)
    model, feeds = _model(shape, _attrs(**kw), scales, None)
    feeds["x"] = x
    for where, got in S.runs(model, feeds, "Resize").items():
        S.assert_exact_bits(f"{kw} {where}", got[0], want)


# ---- one session: the reference's bits, stock ORT's within the stated ulp ----

# (shape, scales or None, sizes or None, attrs, ulp of max|x| stock ORT 1.31.1 may differ by): 0 where stock's
# weights and order are ours; exclude_outside (stock's second axis (v * c) / sum) measured 1 and 0.5; stock's
# NHWC cubic measured 13
CASES: list[tuple[tuple[int, ...], list[float] | None, list[int] | None, dict[str, Any], float]] = [
    *[((2, 3, 7, 9), [1, 1, 2.0, 2.0], None, {"mode": "cubic", "coord": c}, 0.0) for c in COORDS],
    *[((2, 1, 9, 11), [1, 1, 0.6, 0.45], None, {"mode": "cubic", "coord": c}, 0.0) for c in COORDS],
    ((7, 9), [2.0, 3.0], None, {"mode": "cubic"}, 0.0),
    ((5, 6), None, [13, 4], {"mode": "cubic", "a": -0.5}, 0.0),
    ((2, 3, 7, 9), [1, 1, 2.5, 1.7], None, {"mode": "cubic", "exclude": True}, 1.0),
    ((2, 3, 7, 9), [1, 1, 0.6, 0.5], None, {"mode": "cubic", "exclude": True, "a": -0.5}, 1.0),
    ((2, 7, 9, 3), [1, 2.0, 1.5, 1], None, {"mode": "cubic"}, 16.0),  # NHWC: measured 13
    ((2, 3, 16, 18), [1, 1, 0.5, 0.5], None, {"mode": "linear", "antialias": True}, 0.0),
    ((2, 3, 16, 18), [1, 1, 0.5, 0.3], None, {"mode": "cubic", "antialias": True}, 0.0),
    ((2, 3, 16, 18), [1, 1, 2.0, 1.5], None, {"mode": "cubic", "antialias": True}, 0.0),
    ((2, 3, 16, 18), [1, 1, 0.5, 0.3], None, {"mode": "cubic", "antialias": True, "exclude": True}, 0.0),
    ((2, 3, 16, 18), [1, 1, 0.5, 0.3], None,
     {"mode": "linear", "antialias": True, "exclude": True, "coord": "align_corners"}, 0.0),
    ((2, 16, 18, 3), [1, 0.5, 0.7, 1], None, {"mode": "cubic", "antialias": True, "a": -0.5}, 0.0),
    ((16, 18), [0.25, 0.7], None, {"mode": "linear", "antialias": True, "coord": "asymmetric"}, 0.0),
    ((4, 16, 18), [0.5, 0.25, 0.7], None, {"mode": "linear", "antialias": True}, 0.0),
    ((2, 2, 6, 16, 18), [1, 1, 0.5, 0.25, 0.7], None,
     {"mode": "linear", "antialias": True, "coord": "pytorch_half_pixel"}, 0.0),
    ((1, 1, 3, 40), None, [1, 1, 1, 3],
     {"mode": "cubic", "antialias": True, "coord": "half_pixel_symmetric"}, 0.0),
]


@pytest.mark.parametrize(("shape", "scales", "sizes", "kw", "ulp"), CASES)
def test_reference_bits_and_stock_within_ulp(shape: tuple[int, ...], scales: list[float] | None,
                                             sizes: list[int] | None, kw: dict[str, Any], ulp: float) -> None:
    x = _x(shape)
    kw = {"coord": "half_pixel", "antialias": False, "exclude": False, "a": -0.75, **kw}
    want = reference(x, scales=scales, sizes=sizes, **kw)
    model, feeds = _model(shape, _attrs(**kw), scales, sizes)
    feeds["x"] = x
    S.assert_exact_bits(f"{kw}", _ours(model, feeds), want)
    stock = S.stock(model, feeds)[0]
    assert stock.shape == want.shape
    assert _ulps(stock, want, x) <= ulp, (_ulps(stock, want, x), kw)


def test_antialias_linear_on_rank_1_is_served_though_stock_refuses_it() -> None:
    x = _x((40,))
    model, feeds = _model(x.shape, {"mode": "linear", "antialias": 1}, [0.3], None)
    feeds["x"] = x
    S.assert_exact_bits("rank 1", _ours(model, feeds),
                        reference(x, mode="linear", antialias=True, scales=[0.3]))


def test_integer_coordinates_and_nan_neighbours_take_the_element_itself() -> None:
    """2x by asymmetric: every even output index is an input element (weights 0, 1, 0, 0); a NaN or infinity
    next to it does not reach it, and a computed NaN is the canonical one."""
    x = _x((1, 1, 4, 5))
    x[0, 0, 1, 2] = np.array(0x7FC12345, np.uint32).view(F)
    x[0, 0, 2, 3] = np.inf
    x[0, 0, 3, 0] = -0.0
    model, feeds = _model(x.shape, {"mode": "cubic", "coordinate_transformation_mode": "asymmetric"},
                          [1, 1, 2, 2], None)
    feeds["x"] = x
    got = _ours(model, feeds)
    S.assert_exact_bits("cubic asymmetric 2x", got, reference(x, mode="cubic", coord="asymmetric",
                                                              scales=[1, 1, 2, 2]))
    S.assert_exact_bits("even samples", got[:, :, ::2, ::2], x)
    nans = got[np.isnan(got)].view(np.uint32)
    assert (nans[nans != 0x7FC12345] == 0x7FC00000).all() and (nans == 0x7FC00000).any()


# ---- zero-size axes ----

@pytest.mark.parametrize(("shape", "scales", "sizes"), [
    ((1, 0, 4, 5), [1, 1, 2.0, 2.0], None),
    ((1, 1, 4, 5), None, [1, 1, 0, 7]),
    ((0, 5), None, [0, 8]),
])
@pytest.mark.parametrize("antialias", [False, True])
def test_zero_size(shape: tuple[int, ...], scales: list[float] | None, sizes: list[int] | None,
                   antialias: bool) -> None:
    x = _x(shape)
    attrs = {"mode": "cubic", **({"antialias": 1} if antialias else {})}
    model, feeds = _model(shape, attrs, scales, sizes)
    feeds["x"] = x
    got = _ours(model, feeds)
    want = reference(x, mode="cubic", antialias=antialias, scales=scales, sizes=sizes)
    assert got.shape == want.shape and got.size == 0


# ---- refusals ----

@pytest.mark.parametrize("shape", [(9,), (3, 4, 5), (1, 1, 2, 4, 5)])
def test_cubic_on_a_rank_stock_cannot_do_is_refused_at_session_creation(shape: tuple[int, ...]) -> None:
    model, _ = _model(shape, {"mode": "cubic"}, [1.0] * (len(shape) - 1) + [2.0], None)
    for via in S.VIAS:
        with pytest.raises(Exception, match=r"node 'rs' \(op Resize\).*cubic.*rank"):
            S.session(model, via, None, 1)


@pytest.mark.parametrize(("scales", "attrs"), [
    ([1, 2, 2, 2], {}),
    ([2, 1, 2, 2], {"antialias": 1}),
    ([1, 0.5, 2, 1], {}),  # NHWC downscale without antialias: stock refuses it
])
def test_cubic_rank_4_scale_patterns_stock_refuses_are_run_time_errors(scales: list[float],
                                                                        attrs: dict[str, Any]) -> None:
    model, feeds = _model((1, 2, 4, 6), {"mode": "cubic", **attrs}, scales, None, const=False)
    feeds["x"] = _x((1, 2, 4, 6))
    with pytest.raises(Exception, match="upsamplebase.h|only supports"):
        S.stock(model, feeds)
    for via in S.VIAS:
        sess = S.session(model, via, None, 1)
        with pytest.raises(Exception, match=r"node 'rs' \(op Resize\).*cubic on rank 4"):
            sess.run(None, feeds)


@pytest.mark.parametrize(("attrs", "why"), [
    ({"mode": "nearest", "antialias": 1}, "antialias=1 with mode nearest"),
    ({"mode": "cubic", "antialias": 2}, "antialias"),
    ({"mode": "cubic", "exclude_outside": 3}, "exclude_outside"),
    ({"mode": "cubic", "cubic_coeff_a": float("inf")}, "cubic_coeff_a"),
])
def test_bad_attributes_are_left_to_stock_with_the_reason(attrs: dict[str, Any], why: str) -> None:
    reason = probe("Resize", [TensorProto.FLOAT, 0, TensorProto.FLOAT], onnx_opset=19, attributes=attrs)
    assert reason is not None and why in reason and "Resize" in reason, reason


def test_cubic_on_other_types_and_opset_10_is_left_to_stock() -> None:
    for types, opset, why in (([TensorProto.INT32, 0, TensorProto.FLOAT], 19, "cubic on element type"),
                              ([TensorProto.FLOAT, TensorProto.FLOAT], 10, "opset 11")):
        reason = probe("Resize", types, onnx_opset=opset, attributes={"mode": "cubic"})
        assert reason is not None and why in reason, reason


def test_served_for_opsets_11_to_19() -> None:
    for opset in (11, 13, 18, 19):
        assert probe("Resize", [TensorProto.FLOAT, 0, TensorProto.FLOAT], onnx_opset=opset,
                     attributes={"mode": "cubic"}) is None


def test_antialias_on_an_axis_of_unchanged_length_filters_where_stock_copies() -> None:
    """L = 2, s = 1.44: the output length is 2 too but the scale is not 1, so the axis is filtered by the
    formula (docs/resize.md); stock ORT's antialias copies it."""
    x = _x((1, 1, 2, 3))
    scales = [1, 1, 1.44, 1]
    model, feeds = _model(x.shape, {"mode": "cubic", "antialias": 1}, scales, None)
    feeds["x"] = x
    want = reference(x, mode="cubic", antialias=True, scales=scales)
    S.assert_exact_bits("L == Lout", _ours(model, feeds), want)
    S.assert_exact_bits("stock copies", S.stock(model, feeds)[0], x)
    assert not np.array_equal(want, x)


# ---- float16: widened exactly to f32, the f32 steps, the output rounded once (docs/resize.md) ----

F16_CASES: list[tuple[tuple[int, ...], list[float], dict[str, Any]]] = [
    ((1, 2, 7, 9), [1, 1, 2.0, 1.5], {"mode": "cubic", "exclude": True, "a": -0.5}),
    ((1, 2, 16, 18), [1, 1, 0.5, 0.3], {"mode": "linear", "antialias": True}),
    ((2, 3, 16, 18), [1, 1, 0.5, 1.0], {"mode": "cubic", "antialias": True}),
]


def _f16_model(shape: tuple[int, ...], attrs: dict[str, Any], scales: list[float] | None,
               sizes: list[int] | None) -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    return resize_model(shape, TensorProto.FLOAT16, attrs, scales, sizes)


@pytest.mark.parametrize(("shape", "scales", "kw"), F16_CASES[:1])
def test_float16_every_way_gives_the_f32_reference_rounded_once(shape: tuple[int, ...], scales: list[float],
                                                                kw: dict[str, Any]) -> None:
    x = _x(shape).astype(np.float16)
    kw = {"coord": "half_pixel", "antialias": False, "exclude": False, "a": -0.75, **kw}
    want = reference(x.astype(F), scales=scales, **kw).astype(np.float16)
    model, feeds = _f16_model(shape, _attrs(**kw), scales, None)
    feeds["x"] = x
    for where, got in S.runs(model, feeds, "Resize").items():
        S.assert_exact_bits(f"float16 {kw} {where}", got[0], want)


@pytest.mark.parametrize(("shape", "scales", "kw"), F16_CASES)
def test_float16_reference_bits_and_stock_within_one_f16_ulp(shape: tuple[int, ...], scales: list[float],
                                                            kw: dict[str, Any]) -> None:
    """Stock ORT runs float16 Resize as Cast, its f32 Resize, Cast (its float16 fallback): on these cases its
    f32 is ours within 0 ulp (CASES above), so after one rounding each the halves may differ only where the
    two f32 values straddle a rounding boundary: at most one f16 ulp of the largest |x|."""
    x = _x(shape).astype(np.float16)
    kw = {"coord": "half_pixel", "antialias": False, "exclude": False, "a": -0.75, **kw}
    want = reference(x.astype(F), scales=scales, **kw).astype(np.float16)
    model, feeds = _f16_model(shape, _attrs(**kw), scales, None)
    feeds["x"] = x
    S.assert_exact_bits(f"float16 {kw}", _ours(model, feeds), want)
    stock = S.stock(model, feeds)[0]
    assert stock.dtype == np.float16 and stock.shape == want.shape
    tol = float(np.spacing(np.float16(np.abs(x).max())))
    np.testing.assert_allclose(stock.astype(np.float64), want.astype(np.float64), rtol=0, atol=tol)


def test_float16_zero_size_and_rounding_to_infinity() -> None:
    x = np.zeros((1, 2, 0, 4), np.float16)
    model, feeds = _f16_model(x.shape, {"mode": "cubic"}, None, [1, 2, 0, 7])
    feeds["x"] = x
    got = _ours(model, feeds)
    assert got.shape == (1, 2, 0, 7) and got.dtype == np.float16
    # cubic overshoots next to the largest half: the f32 value is above 65520, so it rounds once to infinity
    x = np.array([[0, 65504, 65504, 0, 0]] * 3, np.float16)
    model, feeds = _f16_model(x.shape, {"mode": "cubic"}, [1.0, 2.5], None)
    feeds["x"] = x
    want32 = reference(x.astype(F), mode="cubic", scales=[1.0, 2.5])
    assert (want32 > 65520).any()
    with np.errstate(over="ignore"):  # the overflow to infinity is the point
        want = want32.astype(np.float16)
    assert np.isinf(want).any()
    S.assert_exact_bits("float16 overflow", _ours(model, feeds), want)


def test_double_linear_and_cubic_are_left_to_stock() -> None:
    for mode in ("linear", "cubic"):
        reason = probe("Resize", [TensorProto.DOUBLE, 0, TensorProto.FLOAT], onnx_opset=19,
                       attributes={"mode": mode})
        assert reason is not None and "float16 and float only" in reason and "Resize" in reason, reason
