"""Write the one-node ScatterElements and ScatterND models whose timings docs/data-movement.md gives, for
`onemodel bench --model`.

    python tools/bench/scatter_models.py OUT_DIR
    onemodel bench --model OUT_DIR/scatter_nd_rows.onnx --threads 1 --via ep

An LLM's 1x128x768 float activations (fed) updated in place of a KV cache: 32 token rows written by ScatterND
(indices 32x2, updates 32x768), and ScatterElements along the tokens (indices and updates 1x32x768); each with
reduction none and add (opset 18). Indices random (duplicates likely), indices and updates initializers.
"""

from __future__ import annotations

import argparse
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

SHAPE = (1, 128, 768)
# name: (op, indices shape, attributes)
MODELS = {
    "scatter_elements_tokens": ("ScatterElements", (1, 32, 768), {"axis": 1}),
    "scatter_elements_tokens_add": ("ScatterElements", (1, 32, 768), {"axis": 1, "reduction": "add"}),
    "scatter_nd_rows": ("ScatterND", (32, 2), {}),
    "scatter_nd_rows_add": ("ScatterND", (32, 2), {"reduction": "add"}),
}


def scatter_model(op: str, index_shape: tuple[int, ...], attrs: dict[str, object]) -> onnx.ModelProto:
    rng = np.random.default_rng(0)
    if op == "ScatterElements":
        idx = rng.integers(0, SHAPE[1], index_shape)
        upd_shape = index_shape
    else:  # column m indexes data dimension m
        cols = [rng.integers(0, SHAPE[m], index_shape[:-1] + (1,)) for m in range(index_shape[-1])]
        idx = np.concatenate(cols, -1)
        upd_shape = index_shape[:-1] + SHAPE[index_shape[-1] :]
    upd = rng.standard_normal(upd_shape).astype(np.float32)
    inits = [numpy_helper.from_array(idx.astype(np.int64), "i"), numpy_helper.from_array(upd, "u")]
    node = helper.make_node(op, ["x", "i", "u"], ["y"], name=op.lower(), **attrs)
    graph = helper.make_graph(
        [node],
        op.lower(),
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(SHAPE))],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        initializer=inits,
    )
    return helper.make_model(graph, ir_version=9, opset_imports=[helper.make_opsetid("", 18)])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("out_dir")
    args = p.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)
    for name, (op, ishape, attrs) in MODELS.items():
        path = os.path.join(args.out_dir, name + ".onnx")
        onnx.save(scatter_model(op, ishape, attrs), path)
        print(path)


if __name__ == "__main__":
    main()
