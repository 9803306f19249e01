"""Writes the bundled example model onemodel_ep/examples/elementwise_demo.onnx.

    python tools/gen/make_examples.py

A small graph that mixes operators OneModel EP serves with one it does not (Atan), so `onemodel run`
shows both sides of the rewrite. Inputs x, y: float32 [2, 8]; z: float32 [8] broadcast over rows.
"""

from __future__ import annotations

from pathlib import Path

import onnx
from onnx import TensorProto, helper

OUT = Path(__file__).resolve().parents[2] / "onemodel_ep" / "examples" / "elementwise_demo.onnx"


def build() -> onnx.ModelProto:
    f = TensorProto.FLOAT
    inputs = [
        helper.make_tensor_value_info("x", f, [2, 8]),
        helper.make_tensor_value_info("y", f, [2, 8]),
        helper.make_tensor_value_info("z", f, [8]),
    ]
    nodes = [
        helper.make_node("Mul", ["x", "y"], ["xy"], name="mul"),
        helper.make_node("Add", ["xy", "z"], ["s"], name="add_broadcast"),
        helper.make_node("Div", ["s", "y"], ["q"], name="div"),
        helper.make_node("Mod", ["q", "z"], ["m"], name="fmod", fmod=1),
        helper.make_node("Max", ["m", "x", "z"], ["mx"], name="max3"),
        helper.make_node("Sigmoid", ["x"], ["sig"], name="sigmoid"),
        helper.make_node("Mean", ["mx", "sig"], ["mean"], name="mean"),
        helper.make_node("Atan", ["mean"], ["soft"], name="atan"),
        helper.make_node("Abs", ["soft"], ["out"], name="abs"),
    ]
    outputs = [
        helper.make_tensor_value_info("out", f, [2, 8]),
        helper.make_tensor_value_info("sig", f, [2, 8]),
    ]
    graph = helper.make_graph(nodes, "elementwise_demo", inputs, outputs)
    model = helper.make_model(graph, ir_version=9, opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(model)
    return model


if __name__ == "__main__":
    OUT.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(build(), str(OUT))
    print(f"wrote {OUT}")
