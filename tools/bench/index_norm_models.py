"""Write the one-node NonZero, OneHot, LpNormalization, MeanVarianceNormalization, CumSum, Shrink, LRN,
LpPool and GlobalLpPool bench models.

Their timings are in docs/data-movement.md and docs/pooling-norm.md; run them with `onemodel bench --model`:

    python tools/bench/index_norm_models.py OUT_DIR
    onemodel bench --model OUT_DIR/nonzero_mask.onnx --threads 1 --via ep

NonZero on a bool mask (about half set: `onemodel bench` feeds random 0/1) and on a float feature map (every
element nonzero); OneHot of token ids (fed in [0, 64)) into a float vocabulary axis, last and first;
LpNormalization (L2) along an LLM's hidden size and along the channels of a feature map (a strided axis);
MeanVarianceNormalization with its default axes (per channel) and along the hidden size; CumSum along the
hidden size (one chain a vector), along the tokens (768 chains side by side) and over many short rows; Shrink
and LRN (AlexNet's size 5) over a feature map; LpPool (p = 2) as ResNet's stem pool and GlobalLpPool
over ResNet's last map.
"""

from __future__ import annotations

import numpy as np
import onnx
from model_writer import write_models
from onnx import TensorProto, helper, numpy_helper

# name: (op, input type, input shape, attributes, initializers after the input)
MODELS: dict[str, tuple[str, int, tuple[int, ...], dict[str, object], list[np.ndarray]]] = {
    "nonzero_mask": ("NonZero", TensorProto.BOOL, (1, 512, 512), {}, []),
    "nonzero_fmap": ("NonZero", TensorProto.FLOAT, (1, 64, 80, 80), {}, []),
    "one_hot_tokens": ("OneHot", TensorProto.INT64, (8, 512), {}, [np.array(1000, np.int64),
                                                                   np.array([0, 1], np.float32)]),
    "one_hot_axis0": ("OneHot", TensorProto.INT64, (8, 512), {"axis": 0}, [np.array(256, np.int64),
                                                                            np.array([0, 1], np.float32)]),
    "lp_norm_hidden": ("LpNormalization", TensorProto.FLOAT, (1, 128, 768), {"axis": -1, "p": 2}, []),
    "lp_norm_channels": ("LpNormalization", TensorProto.FLOAT, (1, 64, 80, 80), {"axis": 1, "p": 2}, []),
    "mvn_fmap": ("MeanVarianceNormalization", TensorProto.FLOAT, (2, 64, 40, 40), {}, []),
    "mvn_hidden": ("MeanVarianceNormalization", TensorProto.FLOAT, (1, 128, 768), {"axes": [2]}, []),
    "cumsum_hidden": ("CumSum", TensorProto.FLOAT, (1, 128, 768), {}, [np.array(-1, np.int64)]),
    "cumsum_tokens": ("CumSum", TensorProto.FLOAT, (1, 128, 768), {}, [np.array(1, np.int64)]),
    "shrink_fmap": ("Shrink", TensorProto.FLOAT, (1, 64, 80, 80), {"lambd": 0.5, "bias": 0.25}, []),
    "lrn_fmap": ("LRN", TensorProto.FLOAT, (1, 64, 56, 56), {"size": 5, "alpha": 1e-4, "beta": 0.75}, []),
    "lp_pool_fmap": ("LpPool", TensorProto.FLOAT, (1, 64, 112, 112),
                     {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]}, []),
    "global_lp_pool": ("GlobalLpPool", TensorProto.FLOAT, (1, 512, 7, 7), {}, []),
    "cumsum_short_rows": ("CumSum", TensorProto.FLOAT, (4096, 16), {"exclusive": 1}, [np.array(1, np.int64)]),
}


def model(op: str, t: int, shape: tuple[int, ...], attrs: dict[str, object],
          inits: list[np.ndarray]) -> onnx.ModelProto:
    names = ["x"] + [f"c{k}" for k in range(len(inits))]
    node = helper.make_node(op, names, ["y"], name=op.lower(), **attrs)
    out_type = TensorProto.INT64 if op == "NonZero" else TensorProto.FLOAT
    graph = helper.make_graph(
        [node],
        op.lower(),
        [helper.make_tensor_value_info("x", t, list(shape))],
        [helper.make_tensor_value_info("y", out_type, None)],
        initializer=[numpy_helper.from_array(a, n) for a, n in zip(inits, names[1:])],
    )
    return helper.make_model(graph, ir_version=9, opset_imports=[helper.make_opsetid("", 18)])


def main() -> None:
    made = [(name, lambda spec=spec: model(*spec)) for name, spec in MODELS.items()]
    write_models(__doc__.splitlines()[0], made)


if __name__ == "__main__":
    main()
