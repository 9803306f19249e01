"""Write one-node com.microsoft QOperator models (QLinearAdd, QLinearMul, QLinearSigmoid, QLinearLeakyRelu,
QLinearGlobalAveragePool, QLinearAveragePool (3 x 3, stride 2, pads 1), QLinearConcat) at the shapes
`quantize_static` gives a ResNet-50 / MobileNet activation, and QLinearSoftmax at a BERT-base attention's
[1, 12, 128, 128] (y_scale 1/256, as the quantizer writes), with inputs, for `onemodel bench --model`
(docs/quantized-elementwise.md). uint8 activations, constant per-tensor scales and zero points, as the
QOperator format writes them. Usage:

    python tools/bench/qlinear_models.py [OUT_DIR]        (default build/)
    onemodel bench --model build/qladd_1x256x56x56.onnx --inputs build/qladd_1x256x56x56.npz --threads 1 \\
        --via ep
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from quant_models import _save  # tools/bench, beside this script

MS = "com.microsoft"
U8, F32 = TensorProto.UINT8, TensorProto.FLOAT
X = (1, 256, 56, 56)
ATTENTION = (1, 12, 128, 128)


def _model(op: str, shape: tuple[int, ...]) -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    rng = np.random.default_rng(len(op) + sum(shape))
    x = rng.integers(0, 256, shape, dtype=np.uint8)
    c: dict[str, np.ndarray] = {"s1": np.array(0.0173, np.float32), "z1": np.array(121, np.uint8),
                                "s2": np.array(0.0211, np.float32), "z2": np.array(130, np.uint8),
                                "s3": np.array(0.0302, np.float32), "z3": np.array(118, np.uint8),
                                "s4": np.array(1 / 256, np.float32), "z4": np.array(0, np.uint8)}
    feeds = {"x": x}
    attrs: dict[str, object] = {}
    if op in ("QLinearAdd", "QLinearMul"):
        feeds["b"] = rng.integers(0, 256, shape, dtype=np.uint8)
        ins = ["x", "s1", "z1", "b", "s2", "z2", "s3", "z3"]
    elif op == "QLinearConcat":
        feeds["b"] = rng.integers(0, 256, shape, dtype=np.uint8)
        ins, attrs = ["s3", "z3", "x", "s1", "z1", "b", "s2", "z2"], {"axis": 1}
    elif op == "QLinearSoftmax":
        ins, attrs = ["x", "s1", "z1", "s4", "z4"], {"opset": 13, "axis": -1}
    else:
        ins = ["x", "s1", "z1", "s3", "z3"]
        attrs = {"alpha": 0.1} if op == "QLinearLeakyRelu" else {}
        if op == "QLinearAveragePool":
            attrs = {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]}
    node = helper.make_node(op, ins, ["y"], name="q", domain=MS, **attrs)
    graph = helper.make_graph([node], "q", [helper.make_tensor_value_info(k, U8, list(v.shape))
                                            for k, v in feeds.items()],
                              [helper.make_tensor_value_info("y", U8, None)],
                              initializer=[numpy_helper.from_array(v, k) for k, v in c.items() if k in ins])
    imports = [helper.make_opsetid("", 13), helper.make_opsetid(MS, 1)]
    return helper.make_model(graph, ir_version=9, opset_imports=imports), feeds


MODELS = {"qladd": "QLinearAdd", "qlmul": "QLinearMul", "qlsig": "QLinearSigmoid",
          "qllrelu": "QLinearLeakyRelu", "qlgap": "QLinearGlobalAveragePool", "qlap": "QLinearAveragePool",
          "qlcat": "QLinearConcat", "qlsm": "QLinearSoftmax"}


def main(argv: list[str]) -> int:
    out = Path(argv[0] if argv else "build")
    out.mkdir(parents=True, exist_ok=True)
    for prefix, op in MODELS.items():
        shape = ATTENTION if op == "QLinearSoftmax" else X
        _save(out / f"{prefix}_{'x'.join(map(str, shape))}", *_model(op, shape))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
