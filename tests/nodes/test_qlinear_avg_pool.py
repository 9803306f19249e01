"""com.microsoft QLinearAveragePool through the execution provider and the rewrite: the bits of
tests/reference/qlinear_reference.py (written from docs/quantized-elementwise.md) on every kernel path and
at two threads, uint8 and int8, channels first and last, 1-, 2- and 3-D windows, pads, auto_pad, ceil_mode,
count_include_pad, zero points absent, zero-size dimensions; stock ORT within one step (it sums the
dequantized floats, divides and quantizes; ours is the exact integer sum with one multiplier, so values
near a rounding tie can round apart); the errors, named at session creation.
"""

from __future__ import annotations

import re

import numpy as np
import onnx
import pytest

from onemodel_ep.node import Node, NodeError
from tests.nodes.node_sessions import VIAS, assert_exact_bits, runs, session, stock
from tests.nodes.qlinear_models import F32, I8, MS, U8, ints, model, scale
from tests.reference import qlinear_reference as R

NAMES = ["X", "x_scale", "x_zero_point", "y_scale", "y_zero_point"]
OP = "QLinearAveragePool"

CIP = {"count_include_pad": 1}
CASES = [  # NCHW shape, attributes
    ((2, 3, 9, 11), {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]}),
    ((2, 3, 9, 11), {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1], **CIP}),
    ((2, 4, 13), {"kernel_shape": [4], "strides": [3], "pads": [1, 2], "ceil_mode": 1}),
    ((2, 4, 13), {"kernel_shape": [4], "strides": [3], "pads": [1, 2], "ceil_mode": 1, **CIP}),
    ((1, 2, 5, 6, 7), {"kernel_shape": [2, 3, 2], "strides": [2, 2, 2], "auto_pad": "SAME_UPPER"}),
    ((1, 3, 7, 8), {"kernel_shape": [3, 2], "strides": [2, 3], "auto_pad": "SAME_LOWER", **CIP}),
    ((1, 3, 7, 8), {"kernel_shape": [2, 2], "auto_pad": "VALID"}),
    ((1, 32, 28, 28), {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]}),
    ((1, 8, 7, 7), {"kernel_shape": [7, 7]}),
    ((0, 3, 5, 5), {"kernel_shape": [2, 2]}),
    ((2, 0, 5, 5), {"kernel_shape": [2, 2]}),
]


def _values(rng: np.random.Generator, t: int, shape: tuple[int, ...]) -> dict[str, np.ndarray]:
    return {"X": ints(rng, t, shape), "x_scale": scale(rng, 0.01, 0.1), "x_zero_point": ints(rng, t, ()),
            "y_scale": scale(rng, 0.005, 0.05), "y_zero_point": ints(rng, t, ())}


def _every_path(m: onnx.ModelProto, feeds: dict[str, np.ndarray], want: np.ndarray) -> None:
    for what, ys in runs(m, feeds, OP).items():
        assert_exact_bits(what, ys[0], want)


@pytest.mark.parametrize("t", [U8, I8])
@pytest.mark.parametrize("case", range(len(CASES)))
@pytest.mark.parametrize("channels_last", [0, 1])
def test_average_pool(t, case, channels_last):
    shape, attrs = CASES[case]
    if channels_last:
        shape = (shape[0],) + shape[2:] + (shape[1],)
    rng = np.random.default_rng(100 * case + t + 7 * channels_last)
    v = _values(rng, t, shape)
    want = R.qlinear_average_pool(*(v[k] for k in NAMES), channels_last=channels_last, **attrs)
    for feeds in (("X",), tuple(NAMES)):
        m = model(OP, NAMES, v, feeds, t, channels_last=channels_last, **attrs)
        _every_path(m, {k: v[k] for k in feeds}, want)
    if want.size == 0 and shape[0] != 0:
        return  # zero channels: stock ORT refuses the run ("Only N can be zero")
    m = model(OP, NAMES, v, ("X",), t, channels_last=channels_last, **attrs)
    got = stock(m, {"X": v["X"]})[0]
    assert got.shape == want.shape
    diff = np.abs(got.astype(np.int32) - want.astype(np.int32))
    assert diff.max(initial=0) <= 1


@pytest.mark.parametrize("t", [U8, I8])
def test_zero_points_absent(t):
    """y_zero_point left out (the last input) through the sessions; x_zero_point left out in the middle (named
    "") on the node only: stock ORT's type inference refuses that model."""
    rng = np.random.default_rng(3 + t)
    v = _values(rng, t, (2, 3, 6, 6))
    attrs = {"kernel_shape": [2, 3], "strides": [1, 2], "pads": [0, 1, 1, 0]}
    want = R.qlinear_average_pool(v["X"], v["x_scale"], v["x_zero_point"], v["y_scale"], None, **attrs)
    m = model(OP, NAMES[:4], v, ("X",), t, **attrs)
    _every_path(m, {"X": v["X"]}, want)
    assert np.abs(stock(m, {"X": v["X"]})[0].astype(np.int32) - want.astype(np.int32)).max() <= 1
    want = R.qlinear_average_pool(v["X"], v["x_scale"], None, v["y_scale"], None, **attrs)
    n = Node(f"{MS}.{OP}", [t, F32, 0, F32], name="q", onnx_opset=1, attributes=attrs)
    assert n.run(v["X"], v["x_scale"], None, v["y_scale"]).tobytes() == want.tobytes()


def test_reference_against_dequantized_average():
    """The reference's arithmetic agrees with the definition (dequantize, average in float64, quantize) within
    one step: a check of the reference itself."""
    rng = np.random.default_rng(11)
    x = ints(rng, U8, (2, 3, 8, 8))
    sx, zx, sy, zy = np.float32(0.05), np.uint8(120), np.float32(0.03), np.uint8(100)
    attrs = {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1], "count_include_pad": 1}
    want = R.qlinear_average_pool(x, sx, zx, sy, zy, **attrs)
    xf = (x.astype(np.float64) - 120) * float(sx)
    padded = np.pad(xf, ((0, 0), (0, 0), (1, 1), (1, 1)))
    avg = np.stack([padded[:, :, i:i + 3, j:j + 3].mean(axis=(2, 3))
                    for i in range(0, 7, 2) for j in range(0, 7, 2)], -1).reshape(2, 3, 4, 4)
    y = np.clip(np.rint(avg / float(sy)) + 100, 0, 255)
    assert np.abs(y - want).max() <= 1


def _node(attrs: dict, types=(U8, F32, U8, F32, U8)) -> Node:
    return Node(f"{MS}.{OP}", list(types), name="q", onnx_opset=1, attributes=attrs)


def test_errors_named():
    with pytest.raises(NodeError, match=r"'q'.*QLinearAveragePool.*kernel_shape is required"):
        _node({})
    with pytest.raises(NodeError, match=r"'q'.*QLinearAveragePool.*dilations"):
        _node({"kernel_shape": [2, 2], "dilations": [2, 2]})
    with pytest.raises(NodeError, match=r"'q'.*QLinearAveragePool.*ceil_mode must be 0 or 1"):
        _node({"kernel_shape": [2, 2], "ceil_mode": 2})
    with pytest.raises(NodeError, match=r"'q'.*QLinearAveragePool.*channels_last must be 0 or 1"):
        _node({"kernel_shape": [2, 2], "channels_last": 3})
    with pytest.raises(NodeError, match=r"'q'.*QLinearAveragePool.*pads 2 and 0 of spatial axis 0"):
        _node({"kernel_shape": [2, 2], "pads": [2, 0, 0, 0]})
    with pytest.raises(NodeError, match=r"'q'.*QLinearAveragePool.*y_zero_point has element type int8"):
        _node({"kernel_shape": [2, 2]}, (U8, F32, U8, F32, I8))
    with pytest.raises(NodeError, match=r"'q'.*QLinearAveragePool.*more than 2\^23 taps"):
        _node({"kernel_shape": [4096, 4096]})
    n = _node({"kernel_shape": [2, 2]})
    one, z = np.ones((), np.float32), np.zeros((), np.uint8)
    with pytest.raises(NodeError, match=r"'q'.*QLinearAveragePool.*X\) has rank 3"):
        n.run(np.zeros((2, 3, 4), np.uint8), one, z, one, z)
    with pytest.raises(NodeError, match=r"'q'.*QLinearAveragePool.*the kernel spans"):
        n.run(np.zeros((1, 1, 1, 4), np.uint8), one, z, one, z)
    with pytest.raises(NodeError, match=r"'q'.*QLinearAveragePool.*x_scale of shape \[2\] must have one"):
        n.run(np.zeros((1, 1, 4, 4), np.uint8), np.ones(2, np.float32), z, one, z)


@pytest.mark.parametrize("via", VIAS)
def test_bad_attribute_named_at_session_creation(via: str) -> None:
    """ceil_mode 5: not claimed (om_node_create refuses it), the node left to stock ORT, the report naming
    node, op and problem."""
    v = _values(np.random.default_rng(5), U8, (1, 2, 6, 6))
    m = model(OP, NAMES, v, ("X",), U8, kernel_shape=[2, 2], ceil_mode=5)
    msg = r"'q' \(op QLinearAveragePool\): attribute ceil_mode must be 0 or 1, got 5"
    sess = session(m, via, None, 1)
    assert not sess.report.moved
    assert re.search(msg, sess.report.stayed[0].reason), sess.report.stayed[0].reason
