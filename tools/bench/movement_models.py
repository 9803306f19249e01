"""Write the one-node Split, Trilu, DepthToSpace, SpaceToDepth, GatherElements, GatherND, ScatterElements
and ScatterND models whose timings docs/data-movement.md gives, for `onemodel bench --model`.

    python tools/bench/movement_models.py OUT_DIR
    onemodel bench --model OUT_DIR/split_qkv_128.onnx --threads 1 --via ep

Split in shapes as LLM and silero-vad exporters write them: a fused QKV projection split into Q, K and V on
the last axis (prefill of 128 and 2048 tokens, one decode step), and a 24-way split of attention heads. Trilu
as an LLM's causal mask is built: the upper triangle of a square float matrix above the diagonal (k = 1).
DepthToSpace (both modes) and SpaceToDepth on a 64-channel 80x80 map, block 2, as super-resolution heads use
them; GatherElements and GatherND on an LLM's 1x128x768 activations (indices random, initializers).
ScatterND writes 32 token rows of those activations (indices 32x2, updates 32x768) as a KV cache update does,
ScatterElements 1x32x768 along the tokens; each with reduction none and add.
"""

from __future__ import annotations

import argparse
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

# name: (input shape, axis, sizes)
MODELS = {
    "split_qkv_128": ((1, 128, 3072), -1, [1024, 1024, 1024]),
    "split_qkv_2048": ((1, 2048, 3072), -1, [1024, 1024, 1024]),
    "split_qkv_decode": ((1, 1, 3072), -1, [1024, 1024, 1024]),
    "split_24_heads": ((1, 24, 128, 64), 1, [1] * 24),
}


SCATTER_SHAPE = (1, 128, 768)
# name: (op, indices shape, attributes)
SCATTER_MODELS = {
    "scatter_elements_tokens": ("ScatterElements", (1, 32, 768), {"axis": 1}),
    "scatter_elements_tokens_add": ("ScatterElements", (1, 32, 768), {"axis": 1, "reduction": "add"}),
    "scatter_nd_rows": ("ScatterND", (32, 2), {}),
    "scatter_nd_rows_add": ("ScatterND", (32, 2), {"reduction": "add"}),
}


def split_model(shape: tuple[int, ...], axis: int, sizes: list[int]) -> onnx.ModelProto:
    """Split of a float input of `shape` on `axis` into `sizes` (an initializer input)."""
    outs = [f"y{k}" for k in range(len(sizes))]
    node = helper.make_node("Split", ["x", "split"], outs, name="split", axis=axis)
    graph = helper.make_graph(
        [node],
        "split",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(shape))],
        [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in outs],
        initializer=[numpy_helper.from_array(np.array(sizes, np.int64), "split")],
    )
    return helper.make_model(graph, ir_version=9, opset_imports=[helper.make_opsetid("", 18)])


# name: (square matrix side, k)
TRILU_MODELS = {"trilu_mask_128": (128, 1), "trilu_mask_2048": (2048, 1)}


def trilu_model(side: int, k: int) -> onnx.ModelProto:
    """Trilu (upper) of a float side x side input, k an initializer."""
    node = helper.make_node("Trilu", ["x", "k"], ["y"], name="trilu", upper=1)
    graph = helper.make_graph(
        [node],
        "trilu",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [side, side])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        initializer=[numpy_helper.from_array(np.array(k, np.int64), "k")],
    )
    return helper.make_model(graph, ir_version=9, opset_imports=[helper.make_opsetid("", 18)])


# name: (op, input shape, attributes)
BLOCK_MODELS = {
    "depth_to_space_dcr": ("DepthToSpace", (1, 64, 80, 80), {"blocksize": 2}),
    "depth_to_space_crd": ("DepthToSpace", (1, 64, 80, 80), {"blocksize": 2, "mode": "CRD"}),
    "space_to_depth": ("SpaceToDepth", (1, 16, 160, 160), {"blocksize": 2}),
}
# name: (op, data shape, indices shape, attributes); each index uniform over its dimension
GATHER_MODELS = {
    "gather_elements_last": ("GatherElements", (1, 128, 768), (1, 128, 768), {"axis": -1}),
    "gather_elements_tokens": ("GatherElements", (1, 128, 768), (1, 128, 768), {"axis": 1}),
    "gather_nd_rows": ("GatherND", (1, 128, 768), (1, 128, 1), {"batch_dims": 1}),
    "gather_nd_pairs": ("GatherND", (1, 128, 768), (1, 4096, 2), {"batch_dims": 1}),
}


def one_node_model(op: str, shape: tuple[int, ...], attrs: dict[str, object],
                   index_shape: tuple[int, ...] | None = None) -> onnx.ModelProto:
    """One node of `op` on a float input of `shape`; indices of index_shape (an initializer) when given."""
    inputs, inits = ["x"], []
    if index_shape is not None:
        axis = int(attrs.get("axis", 0)) % len(shape)
        rng = np.random.default_rng(0)
        if op == "GatherElements":
            idx = rng.integers(0, shape[axis], index_shape)
        else:  # GatherND: column m indexes data dimension batch_dims + m
            b = int(attrs.get("batch_dims", 0))
            cols = [rng.integers(0, shape[b + m], index_shape[:-1] + (1,)) for m in range(index_shape[-1])]
            idx = np.concatenate(cols, axis=-1)
        inputs.append("i")
        inits.append(numpy_helper.from_array(idx.astype(np.int64), "i"))
    return x_to_y_model(op, inputs, shape, inits, attrs)


def x_to_y_model(op: str, inputs: list[str], shape: tuple[int, ...], inits: list[onnx.TensorProto],
                 attrs: dict[str, object]) -> onnx.ModelProto:
    """One node of `op` from the float input x of `shape` (other inputs: initializers) to y, opset 18."""
    node = helper.make_node(op, inputs, ["y"], name=op.lower(), **attrs)
    graph = helper.make_graph(
        [node],
        op.lower(),
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(shape))],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        initializer=inits,
    )
    return helper.make_model(graph, ir_version=9, opset_imports=[helper.make_opsetid("", 18)])


def scatter_model(op: str, index_shape: tuple[int, ...], attrs: dict[str, object]) -> onnx.ModelProto:
    """ScatterElements (along axis 1) or ScatterND on SCATTER_SHAPE: random indices (duplicates likely) and
    normal updates, both initializers."""
    rng = np.random.default_rng(0)
    if op == "ScatterElements":
        idx = rng.integers(0, SCATTER_SHAPE[1], index_shape)
        upd_shape = index_shape
    else:  # column m indexes data dimension m
        cols = [rng.integers(0, SCATTER_SHAPE[m], index_shape[:-1] + (1,)) for m in range(index_shape[-1])]
        idx = np.concatenate(cols, -1)
        upd_shape = index_shape[:-1] + SCATTER_SHAPE[index_shape[-1] :]
    upd = rng.standard_normal(upd_shape).astype(np.float32)
    inits = [numpy_helper.from_array(idx.astype(np.int64), "i"), numpy_helper.from_array(upd, "u")]
    return x_to_y_model(op, ["x", "i", "u"], SCATTER_SHAPE, inits, attrs)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("out_dir")
    args = p.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)
    for name, (shape, axis, sizes) in MODELS.items():
        path = os.path.join(args.out_dir, name + ".onnx")
        onnx.save(split_model(shape, axis, sizes), path)
        print(path)
    for name, (side, k) in TRILU_MODELS.items():
        path = os.path.join(args.out_dir, name + ".onnx")
        onnx.save(trilu_model(side, k), path)
        print(path)
    for name, (op, shape, attrs) in BLOCK_MODELS.items():
        path = os.path.join(args.out_dir, name + ".onnx")
        onnx.save(one_node_model(op, shape, attrs), path)
        print(path)
    for name, (op, ishape, attrs) in SCATTER_MODELS.items():
        path = os.path.join(args.out_dir, name + ".onnx")
        onnx.save(scatter_model(op, ishape, attrs), path)
        print(path)
    for name, (op, shape, ishape, attrs) in GATHER_MODELS.items():
        path = os.path.join(args.out_dir, name + ".onnx")
        onnx.save(one_node_model(op, shape, attrs, ishape), path)
        print(path)


if __name__ == "__main__":
    main()
