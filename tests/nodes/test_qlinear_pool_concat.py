"""com.microsoft QLinearGlobalAveragePool and QLinearConcat through the execution provider and the rewrite:
the bits of tests/reference/qlinear_reference.py (written from docs/quantized-elementwise.md) on every kernel
path and at two threads, uint8 and int8, channels first and last, zero-size dimensions; stock ORT within one
step; the errors, named.
"""

from __future__ import annotations

import numpy as np
import onnx
import pytest

from onemodel_ep.node import Node, NodeError
from tests.nodes.node_sessions import assert_exact_bits, runs, stock
from tests.nodes.qlinear_models import F32, I8, MS, U8, ints, model, scale
from tests.reference import qlinear_reference as R

POOL_NAMES = ["X", "x_scale", "x_zero_point", "y_scale", "y_zero_point"]


def _every_path(m: onnx.ModelProto, feeds: dict[str, np.ndarray], want: np.ndarray) -> None:
    for what, ys in runs(m, feeds, m.graph.node[0].op_type).items():
        assert_exact_bits(what, ys[0], want)


def _stock_diff(m: onnx.ModelProto, feeds: dict[str, np.ndarray], want: np.ndarray) -> np.ndarray:
    got = stock(m, feeds)[0]
    assert got.shape == want.shape
    return np.abs(got.astype(np.int32) - want.astype(np.int32))


@pytest.mark.parametrize("t", [U8, I8])
@pytest.mark.parametrize("shape", [(2, 3, 7, 9), (1, 64, 56, 56), (3, 5, 11), (2, 4, 3, 2, 5), (0, 3, 4, 4),
                                   (2, 0, 4, 4)])
@pytest.mark.parametrize("channels_last", [0, 1])
def test_global_average_pool(t, shape, channels_last):
    rng = np.random.default_rng(sum(shape) + t + 7 * channels_last)
    v = {"X": ints(rng, t, shape), "x_scale": scale(rng, 0.01, 0.1), "x_zero_point": ints(rng, t, ()),
         "y_scale": scale(rng, 0.005, 0.05), "y_zero_point": ints(rng, t, ())}
    want = R.qlinear_global_average_pool(*(v[k] for k in POOL_NAMES), channels_last=bool(channels_last))
    for feeds in (("X",), tuple(POOL_NAMES)):
        m = model("QLinearGlobalAveragePool", POOL_NAMES, v, feeds, t, channels_last=channels_last)
        _every_path(m, {k: v[k] for k in feeds}, want)
    m = model("QLinearGlobalAveragePool", POOL_NAMES, v, ("X",), t, channels_last=channels_last)
    spatial = shape[1:-1] if channels_last else shape[2:]
    if want.size and np.prod(spatial):  # no positions: stock refuses the infinite multiplier, ours gives qmin
        assert _stock_diff(m, {"X": v["X"]}, want).max() <= 1
    elif want.size:
        assert (want == np.iinfo(want.dtype).min).all()


def _concat_values(rng, t, shapes, same_params):
    v = {"Y_scale": scale(rng, 0.02, 0.05), "Y_zero_point": ints(rng, t, ())}
    names = ["Y_scale", "Y_zero_point"]
    triples = []
    for i, s in enumerate(shapes):
        x = ints(rng, t, s)
        sx = v["Y_scale"] if same_params and i == 0 else scale(rng, 0.01, 0.1)
        zx = v["Y_zero_point"] if same_params and i == 0 else ints(rng, t, ())
        v[f"x{i}"], v[f"s{i}"], v[f"z{i}"] = x, sx, zx
        names += [f"x{i}", f"s{i}", f"z{i}"]
        triples.append((x, sx, zx))
    return v, names, triples


CONCAT_CASES = [  # shapes, axis
    ([(2, 3, 4), (2, 5, 4)], 1),
    ([(2, 3, 4), (2, 3, 1), (2, 3, 7)], -1),
    ([(1, 8), (3, 8), (0, 8)], 0),
    ([(4, 10000), (4, 20000)], 1),
    ([(5,)], 0),
]


@pytest.mark.parametrize("t", [U8, I8])
@pytest.mark.parametrize("shapes,axis", CONCAT_CASES)
@pytest.mark.parametrize("same_params", [False, True])
def test_concat(t, shapes, axis, same_params):
    rng = np.random.default_rng(len(shapes) * 13 + axis + t + same_params)
    v, names, triples = _concat_values(rng, t, shapes, same_params)
    want = R.qlinear_concat(v["Y_scale"], v["Y_zero_point"], triples, axis)
    xs = tuple(k for k in names if k.startswith("x"))
    for feeds in (xs, tuple(names)):
        m = model("QLinearConcat", names, v, feeds, t, axis=axis)
        _every_path(m, {k: v[k] for k in feeds}, want)
    m = model("QLinearConcat", names, v, xs, t, axis=axis)
    diff = _stock_diff(m, {k: v[k] for k in xs}, want)
    assert diff.max(initial=0) <= 1
    if same_params:  # the first input's parameters are Y's: requantised to itself
        first = triples[0][0]
        assert np.array_equal(np.take(want, range(first.shape[axis]), axis=axis), first)


def test_pool_errors_named():
    with pytest.raises(NodeError, match=r"'q'.*QLinearGlobalAveragePool.*y_zero_point has element type int8; "
                                        r"it must be uint8"):
        Node(f"{MS}.QLinearGlobalAveragePool", [U8, F32, U8, F32, I8], name="q", onnx_opset=1)
    with pytest.raises(NodeError, match=r"'q'.*channels_last is 2; it must be 0 or 1"):
        Node(f"{MS}.QLinearGlobalAveragePool", [U8, F32, U8, F32, U8], name="q", onnx_opset=1,
             attributes={"channels_last": 2})
    n = Node(f"{MS}.QLinearGlobalAveragePool", [U8, F32, U8, F32, U8], name="q", onnx_opset=1)
    one, z = np.ones((), np.float32), np.zeros((), np.uint8)
    with pytest.raises(NodeError, match=r"'q'.*X must have rank 3 or more"):
        n.run(np.zeros((2, 3), np.uint8), one, z, one, z)


def test_concat_errors_named():
    with pytest.raises(NodeError, match=r"'q'.*QLinearConcat.*attribute axis is required"):
        Node(f"{MS}.QLinearConcat", [F32, U8, U8, F32, U8], name="q", onnx_opset=1)
    with pytest.raises(NodeError, match=r"'q'.*QLinearConcat.*6 inputs; it takes Y_scale"):
        Node(f"{MS}.QLinearConcat", [F32, U8, U8, F32, U8, U8], name="q", onnx_opset=1,
             attributes={"axis": 0})
    with pytest.raises(NodeError, match=r"X of input 1 has element type int8; it must be uint8"):
        Node(f"{MS}.QLinearConcat", [F32, U8, U8, F32, U8, I8, F32, U8], name="q", onnx_opset=1,
             attributes={"axis": 0})
    n = Node(f"{MS}.QLinearConcat", [F32, U8, U8, F32, U8, U8, F32, U8], name="q", onnx_opset=1,
             attributes={"axis": 1})
    one, z = np.ones((), np.float32), np.zeros((), np.uint8)
    with pytest.raises(NodeError, match=r"'q'.*the shape of X of input 1 does not match"):
        n.run(one, z, np.zeros((2, 3), np.uint8), one, z, np.zeros((3, 3), np.uint8), one, z)
    with pytest.raises(NodeError, match=r"'q'.*axis"):
        n.run(one, z, np.zeros((2,), np.uint8), one, z, np.zeros((2,), np.uint8), one, z)


def test_pool_too_many_positions_named():
    """More than 2^23 positions a channel: the int32 sums could overflow, so the run refuses, naming node and
    op (no wrong answer)."""
    n = Node(f"{MS}.QLinearGlobalAveragePool", [U8, F32, U8, F32, U8], name="q", onnx_opset=1)
    one, z = np.ones((), np.float32), np.zeros((), np.uint8)
    with pytest.raises(NodeError, match=r"QLinearGlobalAveragePool.*8388609 spatial positions, more than"):
        n.run(np.zeros((1, 1, 8388609), np.uint8), one, z, one, z)
    at_limit = np.full((1, 1, 1 << 23), 255, np.uint8)
    got = n.run(at_limit, np.array(0.5, np.float32), z, one, z)
    assert got.tobytes() == R.qlinear_global_average_pool(at_limit, np.float32(0.5), z, one, z).tobytes()


def test_concat_too_many_inputs_named():
    types = [F32, U8] + [U8, F32, U8] * 17
    with pytest.raises(NodeError, match=r"'q'.*QLinearConcat.*53 inputs given, expected 5 to 50"):
        Node(f"{MS}.QLinearConcat", types, name="q", onnx_opset=1, attributes={"axis": 0})
