"""Fused chains headed by a structured producer (Conv, ConvTranspose, Gemm, MatMul) with element-wise members,
per-channel broadcast operands and BatchNormalization (docs/architecture.md, "Fused element-wise chains"): the
same bits as the nodes run one by one (fuse="0") and as the rewrite path, on every kernel path and at 1 and 2
threads."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import onemodel_ep
from tests.ep.ep_sessions import check_fused, fused_names, make_model, nodes_run, run
from tests.nodes.node_sessions import assert_exact_bits, stock

pytestmark = pytest.mark.skipif(not onemodel_ep.ep_supported(), reason="needs the plugin EP (ORT 1.24+)")

F = TensorProto.FLOAT
RNG = np.random.default_rng(3535)


def _const(name: str, a: np.ndarray) -> onnx.TensorProto:
    return numpy_helper.from_array(a, name)


def _randn(*shape: int, scale: float = 1.0) -> np.ndarray:
    return (RNG.standard_normal(shape) * scale).astype(np.float32)


def conv_model(tail: Sequence[onnx.NodeProto], consts: Sequence[onnx.TensorProto] = (), c_in: int = 3,
               c_out: int = 8, bias: bool = True, out: str = "z", extra_outputs: Sequence[str] = (),
               hw: tuple[int | str, int | str] = (37, 41)) -> onnx.ModelProto:
    """x [n, c_in, h, w] -> Conv 3x3 pad 1 (output 'y') -> tail (its last output `out`). The output is
    declared large enough (n taken as 1) for the Conv to head a chain (ep_fuse.c, OM_FUSE_PRODUCER_MIN)."""
    ins = ["x", "W", "B"] if bias else ["x", "W"]
    nodes = [helper.make_node("Conv", ins, ["y"], name="conv", kernel_shape=[3, 3], pads=[1, 1, 1, 1]), *tail]
    cs = [_const("W", _randn(c_out, c_in, 3, 3, scale=0.3))]
    if bias:
        cs.append(_const("B", _randn(c_out)))
    outs: dict[str, tuple[int, Sequence[int | str] | None]] = {out: (F, None)}
    outs.update({k: (F, None) for k in extra_outputs})
    return make_model(nodes, {"x": (F, ["n", c_in, *hw])}, outs, [*cs, *consts])


def bn_consts(c: int) -> list[onnx.TensorProto]:
    return [_const("s", _randn(c)), _const("bb", _randn(c)), _const("mu", _randn(c)),
            _const("var", np.abs(_randn(c)) + 0.1)]


def x_feed(n: int = 2, c: int = 3, h: int = 37, w: int = 41) -> dict[str, np.ndarray]:
    return {"x": _randn(n, c, h, w, scale=2.0)}


def test_conv_relu_every_path_and_close_to_stock() -> None:
    m = conv_model([helper.make_node("Relu", ["y"], ["z"], name="relu")])
    f = x_feed()
    got = check_fused(m, f, 1, every_way=True)
    # the Conv's sums run in another order than stock ORT's (docs/conv.md): a few ulps of the 27-term sums
    np.testing.assert_allclose(got, stock(m, f)[0], rtol=1e-5, atol=1e-5)


def test_conv_bn_hardswish() -> None:
    bn = helper.make_node("BatchNormalization", ["y", "s", "bb", "mu", "var"], ["b"], name="bn", epsilon=1e-3)
    tail = [bn,
            helper.make_node("HardSwish", ["b"], ["z"], name="hswish")]
    m = conv_model(tail, bn_consts(8), bias=False)
    f = x_feed()
    got = check_fused(m, f, 1, every_way=True)
    np.testing.assert_allclose(got, stock(m, f)[0], rtol=1e-4, atol=1e-4)


def test_bn_small_planes_whole_run() -> None:
    """Planes of 12 elements (under the tiled BatchNormalization's 64): the chain runs member by member."""
    tail = [helper.make_node("BatchNormalization", ["y", "s", "bb", "mu", "var"], ["b"], name="bn"),
            helper.make_node("Relu", ["b"], ["z"], name="relu")]
    check_fused(conv_model(tail, bn_consts(8), hw=("h", "w")), x_feed(h=3, w=4), 1)


def test_small_declared_producer_heads_no_chain() -> None:
    """A Conv output declared of 8 x 4 x 4 elements: Relu runs on its own, the same bits as unfused."""
    m = conv_model([helper.make_node("Relu", ["y"], ["z"], name="relu")], hw=(4, 4))
    f = x_feed(h=4, w=4)
    assert nodes_run(m, f) == ["Conv", "Relu"]
    assert_exact_bits("small", run(m, f)[0], run(m, f, fuse=False)[0])


def test_conv_channel_bias_scale_sigmoid() -> None:
    """[C, 1, 1] Add and Mul (gathered per tile), then Sigmoid and Mul by a scalar."""
    tail = [helper.make_node("Add", ["y", "cb"], ["a"], name="add"),
            helper.make_node("Mul", ["a", "cs"], ["b"], name="mul"),
            helper.make_node("Sigmoid", ["b"], ["g"], name="sig"),
            helper.make_node("Mul", ["g", "half"], ["z"], name="mul2")]
    consts = [_const("cb", _randn(8, 1, 1)), _const("cs", _randn(8, 1, 1)), _const("half", np.float32(0.5))]
    check_fused(conv_model(tail, consts), x_feed(), 1, every_way=True)


def test_conv_output_also_graph_output_not_fused() -> None:
    tail = [helper.make_node("Relu", ["y"], ["r"], name="relu"),
            helper.make_node("Exp", ["r"], ["z"], name="exp")]
    m = conv_model(tail, extra_outputs=["y"])
    f = x_feed()
    names = nodes_run(m, f)
    assert "Conv" in names and len(fused_names(names)) == 1  # Relu -> Exp only
    want, got = run(m, f, fuse=False), run(m, f)
    for k in range(2):
        assert_exact_bits(f"output {k}", got[k], want[k])


def test_zero_size_batch() -> None:
    m = conv_model([helper.make_node("Relu", ["y"], ["z"], name="relu")])
    f = x_feed(n=0)
    got = run(m, f)[0]
    assert got.shape == (0, 8, 37, 41)
    assert_exact_bits("zero batch", got, run(m, f, fuse=False)[0])


def test_wider_producer_output_than_chain_output() -> None:
    """Conv (f32) -> Relu -> Cast to f16: the producer's result needs a buffer of its own."""
    tail = [helper.make_node("Relu", ["y"], ["r"], name="relu"),
            helper.make_node("Cast", ["r"], ["z"], name="cast", to=TensorProto.FLOAT16)]
    m = conv_model(tail)
    m.graph.output[0].type.tensor_type.elem_type = TensorProto.FLOAT16
    check_fused(m, x_feed(), 1)


def test_conv_transpose_relu() -> None:
    convt = helper.make_node("ConvTranspose", ["x", "W"], ["y"], name="ct", kernel_shape=[3, 3],
                             strides=[2, 2])
    nodes = [convt,
             helper.make_node("Relu", ["y"], ["z"], name="relu")]
    w = _const("W", _randn(4, 6, 3, 3, scale=0.3))
    m = make_model(nodes, {"x": (F, ["n", 4, 20, 30])}, {"z": (F, None)}, [w])
    check_fused(m, {"x": _randn(1, 4, 20, 30)}, 1)


def test_gemm_relu_every_path() -> None:
    nodes = [helper.make_node("Gemm", ["x", "W", "C"], ["y"], name="gemm", transB=1),
             helper.make_node("Relu", ["y"], ["z"], name="relu")]
    m = make_model(nodes, {"x": (F, [300, 64])}, {"z": (F, None)},
               [_const("W", _randn(96, 64, scale=0.2)), _const("C", _randn(96))])
    f = {"x": _randn(300, 64)}
    got = check_fused(m, f, 1, every_way=True)
    np.testing.assert_allclose(got, stock(m, f)[0], rtol=1e-5, atol=1e-5)


def test_matmul_bias_gelu() -> None:
    """MatMul -> Add [C] bias (gathered: contiguous runs of the bias) -> the erf form of Gelu. Add's output
    feeds Div and Mul, so MatMul -> Add is one chain and Div -> Erf -> Add one more; the last Mul and the
    scaling Mul join whichever chain reads them alone."""
    nodes = [helper.make_node("MatMul", ["x", "W"], ["y"], name="mm"),
             helper.make_node("Add", ["y", "bias"], ["h"], name="bias"),
             helper.make_node("Div", ["h", "sqrt2"], ["d"], name="div"),
             helper.make_node("Erf", ["d"], ["e"], name="erf"),
             helper.make_node("Add", ["e", "one"], ["e1"], name="add1"),
             helper.make_node("Mul", ["h", "e1"], ["p"], name="mul"),
             helper.make_node("Mul", ["p", "half"], ["z"], name="half")]
    consts = [_const("W", _randn(48, 80, scale=0.2)), _const("bias", _randn(80)),
              _const("sqrt2", np.float32(np.sqrt(2.0))), _const("one", np.float32(1.0)),
              _const("half", np.float32(0.5))]
    m = make_model(nodes, {"x": (F, ["b", 70, 48])}, {"z": (F, None)}, consts)
    f = {"x": _randn(2, 70, 48)}
    got = check_fused(m, f, 2, every_way=True)
    np.testing.assert_allclose(got, stock(m, f)[0], rtol=1e-5, atol=1e-5)


def test_matmul_only_is_not_fused_alone() -> None:
    """A producer with no element-wise consumer stays a node of its own."""
    nodes = [helper.make_node("MatMul", ["x", "W"], ["z"], name="mm")]
    m = make_model(nodes, {"x": (F, [3, 16])}, {"z": (F, None)}, [_const("W", _randn(16, 5))])
    assert nodes_run(m, {"x": _randn(3, 16)}) == ["MatMul"]


def test_runtime_shape_error_names_the_producer() -> None:
    """x with 4 channels against W's 3: the fused node fails naming the chain's members and the Conv."""
    m = conv_model([helper.make_node("Relu", ["y"], ["z"], name="relu")])
    m.graph.input[0].type.tensor_type.shape.dim[1].dim_param = "c"
    want = r"fused chain 'conv' \(Conv\) -> 'relu' \(Relu\).*'conv' \(op Conv\)"
    with pytest.raises(Exception, match=want):
        run(m, x_feed(c=4))
