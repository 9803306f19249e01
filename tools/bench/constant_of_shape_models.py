"""Write the ConstantOfShape bench models: Shape(x) -> ConstantOfShape, the "a tensor like x, filled" pattern.

Their timings are in docs/data-movement.md; run them with `onemodel bench --model`:

    python tools/bench/constant_of_shape_models.py OUT_DIR
    onemodel bench --model OUT_DIR/cos_fmap_f32.onnx --threads 1 --via ep

x's batch dimension is symbolic, so that neither stock ORT nor OneModel folds Shape and ConstantOfShape away.
A float feature map's shape filled with 1.0 (409,600 floats, 7 chunks of 65,536), a small mask's shape with
int64 0 (the per-call cost), and an attention bias's with float16 -inf; and expand_fmap_f32, the first one's
output made by Expand instead, for comparison.
"""

from __future__ import annotations

import numpy as np
import onnx
from model_writer import write_models
from onnx import TensorProto, helper, numpy_helper

# name: (x's shape, value)
MODELS: dict[str, tuple[tuple[int, ...], np.ndarray]] = {
    "cos_fmap_f32": ((1, 64, 80, 80), np.array([1.0], np.float32)),
    "cos_mask_i64": ((1, 16), np.array([0], np.int64)),
    "cos_bias_f16": ((1, 12, 128, 128), np.array([-np.inf], np.float16)),
}


def model(shape: tuple[int, ...], value: np.ndarray) -> onnx.ModelProto:
    nodes = [
        helper.make_node("Shape", ["x"], ["s"], name="shape"),
        helper.make_node("ConstantOfShape", ["s"], ["y"], name="constant_of_shape",
                         value=numpy_helper.from_array(value, "value")),
    ]
    out_type = int(helper.np_dtype_to_tensor_dtype(value.dtype))
    graph = helper.make_graph(
        nodes,
        "constant_of_shape",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", *shape[1:]])],
        [helper.make_tensor_value_info("y", out_type, ["batch", *shape[1:]])],
    )
    return helper.make_model(graph, ir_version=9, opset_imports=[helper.make_opsetid("", 21)])


def expand_model(shape: tuple[int, ...], value: np.ndarray) -> onnx.ModelProto:
    """The same output by Shape(x) -> Expand of a constant [1], for comparison."""
    nodes = [
        helper.make_node("Shape", ["x"], ["s"], name="shape"),
        helper.make_node("Expand", ["one", "s"], ["y"], name="expand"),
    ]
    out_type = int(helper.np_dtype_to_tensor_dtype(value.dtype))
    graph = helper.make_graph(
        nodes,
        "expand",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", *shape[1:]])],
        [helper.make_tensor_value_info("y", out_type, ["batch", *shape[1:]])],
        initializer=[numpy_helper.from_array(value, "one")],
    )
    return helper.make_model(graph, ir_version=9, opset_imports=[helper.make_opsetid("", 21)])


def main() -> None:
    made = [(name, lambda spec=spec: model(*spec)) for name, spec in MODELS.items()]
    made.append(("expand_fmap_f32", lambda: expand_model(*MODELS["cos_fmap_f32"])))
    write_models(__doc__.splitlines()[0], made)


if __name__ == "__main__":
    main()
