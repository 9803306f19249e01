"""Write a silero-vad-like model: constant Split / Concat / Add / Unsqueeze chains feeding MatMuls, for
`onemodel bench --model` and the constant-folding tests (docs/constant-folding.md).

    python tools/bench/constant_chain_model.py OUT.onnx [--layers 3] [--hidden 64]
    onemodel bench --model OUT.onnx --threads 1 --via ep

As silero-vad's exporter writes its LSTM weights, each layer's gate weights are an initializer split into
four gate blocks (sizes from a Constant node) and concatenated back in another gate order, its two biases
one initializer split in two and added, then unsqueezed (axes from a Constant node): eight nodes whose
inputs are all constant. The data path per layer is MatMul, Add, Sigmoid and a MatMul back to `hidden`.
"""

from __future__ import annotations

import argparse

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

CONSTANT_NODES_PER_LAYER = 8
DATA_NODES_PER_LAYER = 4


def _ints(name: str, values: list[int]) -> onnx.NodeProto:
    return helper.make_node("Constant", [], [name], name=name,
                            value=numpy_helper.from_array(np.array(values, np.int64)))


def _layer(k: int, x: str, hidden: int, rng: np.random.Generator) -> tuple[list[onnx.NodeProto],
                                                                           list[onnx.TensorProto], str]:
    """Layer k's nodes and initializers over the value `x` ([1, hidden]); the name of its output."""
    p = f"l{k}_"
    g = [f"{p}gate{i}" for i in range(4)]
    w = rng.standard_normal((hidden, 4 * hidden)).astype(np.float32) / 8
    bias = rng.standard_normal(8 * hidden).astype(np.float32)
    proj = rng.standard_normal((4 * hidden, hidden)).astype(np.float32) / 16
    inits = [numpy_helper.from_array(w, p + "w"), numpy_helper.from_array(bias, p + "bias"),
             numpy_helper.from_array(proj, p + "proj")]
    nodes = [
        _ints(p + "gate_sizes", [hidden] * 4),
        helper.make_node("Split", [p + "w", p + "gate_sizes"], g, name=p + "split_w", axis=1),
        helper.make_node("Concat", [g[0], g[3], g[1], g[2]], [p + "w_ifgo"], name=p + "concat_w", axis=1),
        _ints(p + "bias_sizes", [4 * hidden] * 2),
        helper.make_node("Split", [p + "bias", p + "bias_sizes"], [p + "b_ih", p + "b_hh"],
                         name=p + "split_b", axis=0),
        helper.make_node("Add", [p + "b_ih", p + "b_hh"], [p + "b"], name=p + "add_b"),
        _ints(p + "axes", [0]),
        helper.make_node("Unsqueeze", [p + "b", p + "axes"], [p + "b2"], name=p + "unsqueeze_b"),
        helper.make_node("MatMul", [x, p + "w_ifgo"], [p + "xw"], name=p + "matmul"),
        helper.make_node("Add", [p + "xw", p + "b2"], [p + "pre"], name=p + "add"),
        helper.make_node("Sigmoid", [p + "pre"], [p + "act"], name=p + "sigmoid"),
        helper.make_node("MatMul", [p + "act", p + "proj"], [p + "out"], name=p + "project"),
    ]
    return nodes, inits, p + "out"


def constant_chain_model(layers: int = 3, hidden: int = 64, seed: int = 0) -> onnx.ModelProto:
    """The model: input x [1, hidden] float, output y [1, hidden]; `layers` layers as the module says."""
    rng = np.random.default_rng(seed)
    nodes: list[onnx.NodeProto] = []
    inits: list[onnx.TensorProto] = []
    x = "x"
    for k in range(layers):
        n, i, x = _layer(k, x, hidden, rng)
        nodes += n
        inits += i
    nodes.append(helper.make_node("Identity", [x], ["y"], name="output"))
    graph = helper.make_graph(
        nodes, "constant_chains",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, hidden])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, hidden])],
        initializer=inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--layers", type=int, default=3)
    ap.add_argument("--hidden", type=int, default=64)
    a = ap.parse_args()
    onnx.save(constant_chain_model(a.layers, a.hidden), a.out)


if __name__ == "__main__":
    main()
