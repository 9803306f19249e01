"""Writes onemodel_ep/examples/diff_demo.onnx, the model `onemodel diff` runs when given none.

    python tools/gen/make_diff_example.py

One input x: float32 [8, 64] (the generated inputs span [-20, 20]), four outputs where stock ORT and OneModel
EP part ways for different reasons:
  sigmoid  Sigmoid(x): far in the negative tail (x near -20) stock ORT's approximation loses accuracy;
  gelu     Gelu(x) (opset 20), exact erf form;
  ratio    Sigmoid(x) / Pow(|x| + 1, 3): a Div/Pow chain; for an exponent of 3 stock ORT computes b*b*b (two
           roundings), OneModel EP's reproducible Pow computes the power itself;
  q8       Cast(Round(x * 8), int8): an out-of-range quantization; stock ORT wraps, OneModel EP saturates.
Sigmoid and Gelu move to OneModel EP only once their kernels are served (see the rewrite report); until then
they stay with stock ORT and those outputs are identical.
"""

from __future__ import annotations

from pathlib import Path

import onnx
from onnx import TensorProto, helper

OUT = Path(__file__).resolve().parents[2] / "onemodel_ep" / "examples" / "diff_demo.onnx"


def build() -> onnx.ModelProto:
    f = TensorProto.FLOAT
    inits = [
        helper.make_tensor("one", f, [], [1.0]),
        helper.make_tensor("expo", f, [], [3.0]),
        helper.make_tensor("scale", f, [], [8.0]),
    ]
    nodes = [
        helper.make_node("Sigmoid", ["x"], ["sigmoid"], name="sigmoid"),
        helper.make_node("Gelu", ["x"], ["gelu"], name="gelu"),
        helper.make_node("Abs", ["x"], ["ax"], name="abs"),
        helper.make_node("Add", ["ax", "one"], ["ax1"], name="add_one"),
        helper.make_node("Pow", ["ax1", "expo"], ["pw"], name="pow"),
        helper.make_node("Div", ["sigmoid", "pw"], ["ratio"], name="div"),
        helper.make_node("Mul", ["x", "scale"], ["xs"], name="scale"),
        helper.make_node("Round", ["xs"], ["xr"], name="round"),
        helper.make_node("Cast", ["xr"], ["q8"], name="quantize", to=TensorProto.INT8),
    ]
    graph = helper.make_graph(
        nodes,
        "diff_demo",
        [helper.make_tensor_value_info("x", f, [8, 64])],
        [
            helper.make_tensor_value_info("sigmoid", f, [8, 64]),
            helper.make_tensor_value_info("gelu", f, [8, 64]),
            helper.make_tensor_value_info("ratio", f, [8, 64]),
            helper.make_tensor_value_info("q8", TensorProto.INT8, [8, 64]),
        ],
        initializer=inits,
    )
    model = helper.make_model(graph, ir_version=9, opset_imports=[helper.make_opsetid("", 20)])
    onnx.checker.check_model(model, full_check=True)
    return model


if __name__ == "__main__":
    OUT.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(build(), str(OUT))
    print(f"wrote {OUT}")
