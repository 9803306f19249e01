"""com.microsoft's Gelu family: Gelu, BiasGelu, FastGelu (with and without bias) and QuickGelu.

Each case runs as a one-node model, unmodified, through both ways in (the rewrite to ai.onemodel, and OneModel
as an execution provider where ORT supports it) on every kernel path at one thread and the default path at two
threads; every run must give the bits of tests/reference/reference_transformer_ops.py (written from
docs/transformer-ops.md). Stock ORT agrees within 2e-6 relative plus 1e-6 * max(1, |x|) absolute: its Gelu,
FastGelu and QuickGelu use MLAS's approximations of erf, tanh and the logistic, a few ulp from the correctly
rounded values ours gives, and the logistic's absolute error near 0 (~1e-6) is multiplied by x in QuickGelu
(and FastGelu stock evaluates the polynomial argument in another order). At x = -inf stock's Gelu gives NaN,
ours the limit -0: stock is compared on finite x only.
"""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from onemodel_ep.node import Node, NodeError
from tests.nodes.node_sessions import VIAS, assert_bits, runs, session, stock
from tests.reference import reference_transformer_ops as RT

F32 = np.dtype(np.float32)
MS = "com.microsoft"
SHAPES = [(2, 7, 64), (3, 37), (2, 4100), (5, 1)]  # (2, 4100): chunks across rows, a 1-wide row


def _model(op: str, x: np.ndarray, bias: np.ndarray | None = None, bias_input: bool = False,
           x_shape: list | None = None, **attrs: object) -> onnx.ModelProto:
    """A one-node com.microsoft model of x (a graph input, shape x_shape or x's) and bias (an input when
    bias_input, else an initializer)."""
    ins = ["x"] + (["b"] if bias is not None else [])
    node = helper.make_node(op, ins, ["y"], name="n0", domain=MS, **attrs)
    shape = x_shape if x_shape is not None else list(x.shape)
    tp = int(helper.np_dtype_to_tensor_dtype(x.dtype))
    inputs = [helper.make_tensor_value_info("x", tp, shape)]
    inits = []
    if bias is not None and bias_input:
        inputs.append(helper.make_tensor_value_info("b", tp, list(bias.shape)))
    elif bias is not None:
        inits.append(numpy_helper.from_array(bias, "b"))
    y = helper.make_tensor_value_info("y", tp, None)
    graph = helper.make_graph([node], "g", inputs, [y], initializer=inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid(MS, 1)],
                             ir_version=10)


def _data(shape: tuple[int, ...], seed: int, scale: float = 3.0) -> np.ndarray:
    x = (np.random.default_rng(seed).standard_normal(shape) * scale).astype(F32)
    flat = x.reshape(-1)
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40, -1e-40, 30.0, -30.0, 1e30], F32)
    flat[: min(flat.size, specials.size)] = specials[: flat.size]
    return x


def _close(got: np.ndarray, theirs: np.ndarray, x: np.ndarray) -> None:
    """Within the module's tolerance of stock ORT where x is finite."""
    fin = np.isfinite(x)
    np.testing.assert_array_equal(np.isnan(got[fin]), np.isnan(theirs[fin]))
    keep = fin & np.isfinite(theirs)
    g, t = got[keep].astype(np.float64), theirs[keep].astype(np.float64)
    a = np.abs(x[keep].astype(np.float64))
    bad = np.abs(g - t) > 2e-6 * np.abs(t) + 1e-6 * np.maximum(1.0, a)
    assert not bad.any(), (g[bad][:5], t[bad][:5], a[bad][:5])


def _check(model: onnx.ModelProto, feeds: dict[str, np.ndarray], op: str, want: np.ndarray) -> np.ndarray:
    every = runs(model, feeds, op)
    for where, got in every.items():
        assert_bits(f"{op}, {where}", got[0], want)
    return next(iter(every.values()))[0]


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("op", ["Gelu", "FastGelu"])
def test_gelu_forms_every_way_path_and_thread_count(op: str, shape: tuple[int, ...]) -> None:
    x = _data(shape, sum(shape))
    want = RT.gelu(x, form="erf" if op == "Gelu" else "tanh")
    model = _model(op, x)
    ours = _check(model, {"x": x}, op, want)
    _close(ours, stock(model, {"x": x})[0], x)


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("op", ["BiasGelu", "FastGelu"])
@pytest.mark.parametrize("bias_input", [False, True], ids=["bias_initializer", "bias_input"])
def test_bias_forms_every_way_path_and_thread_count(op: str, shape: tuple[int, ...],
                                                    bias_input: bool) -> None:
    x = _data(shape, 7 + sum(shape))
    b = (np.random.default_rng(3).standard_normal(shape[-1:]) * 0.5).astype(F32)
    want = RT.gelu(x, b, form="erf" if op == "BiasGelu" else "tanh")
    model = _model(op, x, b, bias_input)
    feeds = {"x": x, **({"b": b} if bias_input else {})}
    ours = _check(model, feeds, op, want)
    _close(ours, stock(model, feeds)[0], x)


def test_bias_rounds_the_sum_first() -> None:
    """x + b is rounded to f32 before Gelu: values whose exact sum is not an f32 tell the orders apart."""
    x = np.array([[1.0, 3.0, -2.5, 0.75]], F32)
    b = np.array([2.0**-30, 2.0**-25, -(2.0**-26), 2.0**-40], F32)
    rounded = RT.gelu(x, b)
    exact = RT.gelu((x.astype(np.float64) + b).astype(F32))
    np.testing.assert_array_equal(rounded, exact)  # the same here: RN(x + b) is x, as the model must give
    model = _model("BiasGelu", x, b)
    _check(model, {"x": x}, "BiasGelu", rounded)


@pytest.mark.parametrize("alpha", [None, 1.0, -0.5, 2.5e-3])
@pytest.mark.parametrize("shape", [(2, 7, 64), (9001,)], ids=str)
def test_quick_gelu_every_way_path_and_thread_count(alpha: float | None, shape: tuple[int, ...]) -> None:
    x = _data(shape, 11)
    attrs = {} if alpha is None else {"alpha": alpha}
    want = RT.quick_gelu(x, 1.702 if alpha is None else alpha)
    model = _model("QuickGelu", x, **attrs)
    ours = _check(model, {"x": x}, "QuickGelu", want)
    _close(ours, stock(model, {"x": x})[0], x)


@pytest.mark.parametrize("op", ["Gelu", "BiasGelu", "FastGelu", "QuickGelu"])
@pytest.mark.parametrize("shape", [(0, 16), (3, 0), (2, 0, 5)], ids=str)
def test_zero_size(op: str, shape: tuple[int, ...]) -> None:
    x = np.zeros(shape, F32)
    b = np.zeros(shape[-1:], F32) if op == "BiasGelu" else None
    model = _model(op, x, b)
    for via in VIAS:
        got = session(model, via, None, 1).run(None, {"x": x})[0]
        assert got.shape == shape and got.dtype == F32


def test_fast_mode_differs_from_exact_by_little() -> None:
    x = _data((4, 500), 5)
    b = (np.random.default_rng(8).standard_normal(500) * 0.5).astype(F32)
    for op, want in [("BiasGelu", RT.gelu(x, b)), ("FastGelu", RT.gelu(x, b, form="tanh"))]:
        node = Node(f"{MS}.{op}", [TensorProto.FLOAT] * 2, mode="fast", name="n0")
        got = node.run(x, b)
        fin = np.isfinite(want)
        np.testing.assert_allclose(got[fin], want[fin], rtol=1e-5, atol=1e-6)


def test_bad_bias_shapes_are_errors_naming_node_and_op() -> None:
    x = np.ones((2, 8), F32)
    with pytest.raises(Exception, match=r"n0' \(op com.microsoft.BiasGelu\): input 1 \(bias\) has rank 2;"):
        session(_model("BiasGelu", x, np.ones((1, 8), F32)), VIAS[-1], None, 1)
    node = Node(f"{MS}.BiasGelu", [TensorProto.FLOAT] * 2, name="n0")
    with pytest.raises(NodeError, match=r"node 'n0' \(op com.microsoft.BiasGelu\): input 1 \(bias\) has 7 "
                       r"elements; it must have input 0's last dimension, 8"):
        node.run(x, np.ones(7, F32))
    node = Node(f"{MS}.FastGelu", [TensorProto.FLOAT] * 2, name="n0")
    with pytest.raises(NodeError, match=r"op com.microsoft.FastGelu.*has 3 elements"):
        node.run(x, np.ones(3, F32))


@pytest.mark.parametrize("op", ["Gelu", "BiasGelu", "FastGelu", "QuickGelu"])
def test_other_types_are_left_to_stock(op: str) -> None:
    with pytest.raises(NodeError, match=rf"op {op}\): unsupported element type double for input 0"):
        Node(f"{MS}.{op}", [TensorProto.DOUBLE] * (2 if op == "BiasGelu" else 1), name="n0")
    if op == "QuickGelu":  # its alpha is an f32 operand
        with pytest.raises(NodeError, match=r"op QuickGelu\): unsupported element type float16 for input 0"):
            Node(f"{MS}.QuickGelu", [TensorProto.FLOAT16], name="n0")


@pytest.mark.parametrize(("op", "bias"), [("Gelu", False), ("BiasGelu", True), ("FastGelu", False),
                                          ("FastGelu", True)])
def test_float16_every_way_path_and_thread_count(op: str, bias: bool) -> None:
    """f16: every one of the 65,536 inputs (stock ORT's CPU kernels have no f16 to compare with)."""
    x = np.arange(65536, dtype=np.uint32).astype(np.uint16).view(np.float16).reshape(256, 256)
    b = (np.random.default_rng(4).standard_normal(256) * 0.5).astype(np.float16) if bias else None
    want = RT.gelu(x, b, form="tanh" if op == "FastGelu" else "erf")
    model = _model(op, x, b)
    _check(model, {"x": x}, op, want)
