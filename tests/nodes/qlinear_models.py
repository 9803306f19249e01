"""One-node com.microsoft QOperator models (QLinearAdd ... QLinearConcat) for the node tests: the node's
inputs named in order ("" absent), the given feeds as graph inputs and the rest as initializers."""

from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from tests.reference.quant_matmul_reference import int_operand

U8, I8, F32 = TensorProto.UINT8, TensorProto.INT8, TensorProto.FLOAT
NP = {U8: np.uint8, I8: np.int8}
ELEM = {np.dtype(np.uint8): U8, np.dtype(np.int8): I8, np.dtype(np.float32): F32}
MS = "com.microsoft"


def model(op: str, names: list[str], values: dict[str, np.ndarray], feeds: tuple[str, ...], y_type: int,
          **attrs: object) -> onnx.ModelProto:
    """com.microsoft `op` on inputs `names`; values[name] for each given one, graph inputs those in feeds."""
    graph = helper.make_graph(
        [helper.make_node(op, names, ["Y"], name="q", domain=MS, **attrs)], "g",
        [helper.make_tensor_value_info(k, ELEM[values[k].dtype], list(values[k].shape)) for k in feeds],
        [helper.make_tensor_value_info("Y", y_type, None)],
        initializer=[numpy_helper.from_array(v, k) for k, v in values.items()
                     if k not in feeds and k in names])
    imports = [helper.make_opsetid("", 13), helper.make_opsetid(MS, 1)]
    return helper.make_model(graph, opset_imports=imports, ir_version=9)


def ints(rng: np.random.Generator, t: int, shape: tuple[int, ...]) -> np.ndarray:
    return int_operand(rng, NP[t], shape)


def scale(rng: np.random.Generator, lo: float, hi: float) -> np.ndarray:
    return np.array(rng.uniform(lo, hi), np.float32)
