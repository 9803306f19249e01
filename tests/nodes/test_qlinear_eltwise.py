"""com.microsoft QLinearAdd, QLinearMul, QLinearSigmoid and QLinearLeakyRelu through the execution provider
and the rewrite: the bits of tests/reference/qlinear_reference.py (written from
docs/quantized-elementwise.md) on every kernel path and at two threads, uint8 and int8, broadcasting,
constant and run-time parameters, absent zero points; stock ORT within one step (it computes in fixed point
or another float order; docs/quantized-elementwise.md counts the differences); the errors, named.
"""

from __future__ import annotations

import numpy as np
import onnx
import pytest

from onemodel_ep.node import Node, NodeError
from tests.nodes.node_sessions import assert_exact_bits, runs, stock
from tests.nodes.qlinear_models import F32, I8, MS, U8, ints, model, scale
from tests.reference import qlinear_reference as R

BIN_NAMES = ["A", "A_scale", "A_zero_point", "B", "B_scale", "B_zero_point", "C_scale", "C_zero_point"]
UN_NAMES = ["X", "X_scale", "X_zero_point", "Y_scale", "Y_zero_point"]


def _every_path(m: onnx.ModelProto, feeds: dict[str, np.ndarray], want: np.ndarray) -> None:
    for what, ys in runs(m, feeds, m.graph.node[0].op_type).items():
        assert_exact_bits(what, ys[0], want)


def _near_stock(m: onnx.ModelProto, feeds: dict[str, np.ndarray], want: np.ndarray, most: float) -> None:
    """Stock ORT within one step everywhere, and differing in at most a fraction `most` of the elements."""
    got = stock(m, feeds)[0]
    diff = np.abs(got.astype(np.int32) - want.astype(np.int32))
    assert diff.max(initial=0) <= 1, "stock ORT more than one step away"
    assert (diff != 0).mean() <= most if diff.size else True, f"{(diff != 0).mean():.4f} of elements differ"


def _bin_values(rng, t, sa, sb, c_zp):
    v = {"A": ints(rng, t, sa), "B": ints(rng, t, sb), "A_scale": scale(rng, 0.01, 0.05),
         "B_scale": scale(rng, 0.01, 0.05), "C_scale": scale(rng, 0.02, 0.08)}
    for k in ("A_zero_point", "B_zero_point", "C_zero_point"):
        v[k] = ints(rng, t, ()) if c_zp or k != "C_zero_point" else None
    return v


BIN_SHAPES = [((3, 50), (3, 50)), ((2, 3, 17), (17,)), ((1,), (4, 33)), ((5, 1, 7), (1, 6, 1)), ((), ()),
              ((0, 4), (4,)), ((2, 40000), (2, 40000))]


@pytest.mark.parametrize("op", ["QLinearAdd", "QLinearMul"])
@pytest.mark.parametrize("t", [U8, I8])
@pytest.mark.parametrize("sa,sb", BIN_SHAPES)
@pytest.mark.parametrize("c_zp", [True, False])
def test_binary(op, t, sa, sb, c_zp):
    """Every zero point given, or C's left out (the last input: the one stock ORT lets a model omit; a
    middle one, named "", fails its type inference)."""
    rng = np.random.default_rng(len(sa) * 11 + len(sb) + t + 5 * c_zp + len(op))
    v = _bin_values(rng, t, sa, sb, c_zp)
    f = R.qlinear_add if op == "QLinearAdd" else R.qlinear_mul
    want = f(*(v[k] for k in BIN_NAMES))
    names = [k for k in BIN_NAMES if v[k] is not None]
    vals = {k: x for k, x in v.items() if x is not None}
    for feeds in (("A", "B"), ("A",) + tuple(k for k in vals if k != "A")):
        m = model(op, names, vals, feeds, t)
        fv = {k: vals[k] for k in feeds}
        _every_path(m, fv, want)
    _near_stock(model(op, names, vals, ("A", "B"), t), {"A": v["A"], "B": v["B"]}, want, 0.02)


def test_binary_saturates_and_ties():
    """Scales that put every sum on a half (ties to even) and past both ends (saturation)."""
    a = np.arange(256, dtype=np.uint8)
    b = np.arange(256, dtype=np.uint8)[::-1].copy()
    v = {"A": a, "B": b, "A_scale": np.array(0.5, np.float32), "A_zero_point": np.array(0, np.uint8),
         "B_scale": np.array(0.25, np.float32), "B_zero_point": np.array(3, np.uint8),
         "C_scale": np.array(1.0, np.float32), "C_zero_point": np.array(7, np.uint8)}
    for op, f in (("QLinearAdd", R.qlinear_add), ("QLinearMul", R.qlinear_mul)):
        want = f(*(v[k] for k in BIN_NAMES))
        assert want.min() == 0 or op == "QLinearAdd"
        _every_path(model(op, BIN_NAMES, v, ("A", "B"), U8), {"A": a, "B": b}, want)


@pytest.mark.parametrize("op", ["QLinearSigmoid", "QLinearLeakyRelu"])
@pytest.mark.parametrize("t", [U8, I8])
@pytest.mark.parametrize("shape", [(2, 3, 17, 19), (70000,), (), (0, 5)])
@pytest.mark.parametrize("const", [True, False])
def test_unary(op, t, shape, const):
    """Every parameter given (stock ORT 1.31.1 aborts on a model without Y_zero_point, and fails the type
    inference of a middle one named ""; test_absent_zero_points covers them on the node)."""
    rng = np.random.default_rng(len(shape) * 7 + t + const + len(op))
    v = {"X": ints(rng, t, shape), "X_scale": scale(rng, 0.02, 0.1), "Y_scale": scale(rng, 0.003, 0.01)}
    v["X_zero_point"] = ints(rng, t, ())
    v["Y_zero_point"] = np.array(-128, np.int8) if t == I8 else np.array(0, np.uint8)
    attrs = {"alpha": 0.1} if op == "QLinearLeakyRelu" else {}
    if op == "QLinearLeakyRelu":
        want = R.qlinear_leaky_relu(*(v[k] for k in UN_NAMES), alpha=0.1)
    else:
        want = R.qlinear_sigmoid(*(v[k] for k in UN_NAMES))
    names = [k if v[k] is not None else "" for k in UN_NAMES]
    vals = {k: x for k, x in v.items() if x is not None}
    feeds = ("X",) if const else tuple(vals)
    m = model(op, names, vals, feeds, t, **attrs)
    _every_path(m, {k: vals[k] for k in feeds}, want)
    _near_stock(m, {k: vals[k] for k in feeds}, want, 0.02)


@pytest.mark.parametrize("t", [U8, I8])
def test_absent_zero_points(t):
    """The node with its optional zero points absent: 0, on every path."""
    import onemodel_ep

    rng = np.random.default_rng(t)
    x, b = ints(rng, t, (3, 70)), ints(rng, t, (70,))
    s1, s2, s3 = scale(rng, 0.01, 0.05), scale(rng, 0.01, 0.05), scale(rng, 0.02, 0.08)
    cases = [("QLinearAdd", [t, F32, 0, t, F32, 0, F32], (x, s1, None, b, s2, None, s3),
              R.qlinear_add(x, s1, None, b, s2, None, s3, None)),
             ("QLinearMul", [t, F32, 0, t, F32, 0, F32, 0], (x, s1, None, b, s2, None, s3, None),
              R.qlinear_mul(x, s1, None, b, s2, None, s3, None)),
             ("QLinearSigmoid", [t, F32, 0, F32], (x, s1, None, s3),
              R.qlinear_sigmoid(x, s1, None, s3, None)),
             ("QLinearLeakyRelu", [t, F32, 0, F32, 0], (x, s1, None, s3, None),
              R.qlinear_leaky_relu(x, s1, None, s3, None))]
    for op, types, args, want in cases:
        for path in onemodel_ep.kernel_paths():
            got = Node(f"{MS}.{op}", types, name="q", onnx_opset=1, kernel_path=path).run(*args)
            assert_exact_bits(f"{op} {path}", got, want)


def test_leaky_relu_default_alpha():
    x = np.arange(256, dtype=np.uint8)
    v = {"X": x, "X_scale": np.array(0.05, np.float32), "X_zero_point": np.array(128, np.uint8),
         "Y_scale": np.array(0.01, np.float32), "Y_zero_point": np.array(200, np.uint8)}
    want = R.qlinear_leaky_relu(*(v[k] for k in UN_NAMES))
    m = model("QLinearLeakyRelu", UN_NAMES, v, ("X",), U8)
    _every_path(m, {"X": x}, want)
    assert stock(m, {"X": x})[0].tobytes() == want.tobytes()


def test_errors_named():
    with pytest.raises(NodeError, match=r"'q'.*QLinearAdd.*B_zero_point has element type int8; it must be "
                                        r"uint8"):
        Node(f"{MS}.QLinearAdd", [U8, F32, U8, U8, F32, I8, F32, U8], name="q", onnx_opset=1)
    with pytest.raises(NodeError, match=r"'q'.*QLinearMul.*input 6 \(C_scale\) is missing"):
        Node(f"{MS}.QLinearMul", [U8, F32, U8, U8, F32, U8], name="q", onnx_opset=1)
    with pytest.raises(NodeError, match=r"'q'.*QLinearSigmoid.*Y_scale has element type uint8; it must be "
                                        r"float"):
        Node(f"{MS}.QLinearSigmoid", [I8, F32, I8, U8, I8], name="q", onnx_opset=1)
    with pytest.raises(NodeError, match=r"unsupported element type float for input 0"):
        Node(f"{MS}.QLinearLeakyRelu", [F32, F32, F32, F32, F32], name="q", onnx_opset=1)
    n = Node(f"{MS}.QLinearAdd", [U8, F32, U8, U8, F32, U8, F32, U8], name="q", onnx_opset=1)
    one, z = np.ones((), np.float32), np.zeros((), np.uint8)
    with pytest.raises(NodeError, match=r"'q'.*B_scale of shape \[3\] must have one element"):
        n.run(np.zeros(3, np.uint8), one, z, np.zeros(3, np.uint8), np.ones(3, np.float32), z, one, z)
    with pytest.raises(NodeError, match=r"'q'.*A and B do not broadcast"):
        n.run(np.zeros(3, np.uint8), one, z, np.zeros(4, np.uint8), one, z, one, z)


def test_constant_per_channel_scale_refused_at_creation():
    """A constant scale of more than one element fails the session's creation, both ways, with a message
    naming node, op and input (per-tensor parameters only)."""
    from tests.nodes.node_sessions import VIAS, session

    v = {"X": np.zeros((2, 3), np.uint8), "X_scale": np.ones(3, np.float32),
         "X_zero_point": np.zeros((), np.uint8), "Y_scale": np.ones((), np.float32),
         "Y_zero_point": np.zeros((), np.uint8)}
    m = model("QLinearLeakyRelu", UN_NAMES, v, ("X",), U8)
    msg = r"node 'q' \(op QLinearLeakyRelu\): X_scale of shape \[3\] must have one element"
    for via in VIAS:
        with pytest.raises(Exception, match=msg):
            session(m, via, None, 1)
