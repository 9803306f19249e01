"""The one-node Resize (or Upsample) model the Resize tests share (test_resize.py, test_resize_exact.py,
test_resize_cubic.py): scales or sizes an initializer (const) or a graph input, fed by the returned feeds."""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx
from onnx import TensorProto, helper


def resize_model(x_shape: tuple[int, ...], elem: int, attrs: dict[str, Any], scales: list[float] | None,
                 sizes: list[int] | None, *, opset: int = 19, const: bool = True, op: str = "Resize",
                 declare_rank: bool = True) -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    """Y = op(x, scales or sizes) over x of element type `elem` (its shape declared unless not declare_rank);
    the feeds hold scales or sizes where they are a graph input (const=False), not x."""
    feeds: dict[str, np.ndarray] = {}
    ins = [helper.make_tensor_value_info("x", elem, list(x_shape) if declare_rank else None)]
    inits = []
    if scales is not None:
        val, name, kind = np.array(scales, np.float32), "scales", TensorProto.FLOAT
    else:
        val, name, kind = np.array(sizes, np.int64), "sizes", TensorProto.INT64
    if const:
        inits.append(helper.make_tensor(name, kind, list(val.shape), val.ravel().tolist()))
    else:
        ins.append(helper.make_tensor_value_info(name, kind, list(val.shape)))
        feeds[name] = val
    if op == "Upsample" or opset < 11:
        inputs = ["x", name]
    else:
        inputs = ["x", "", "scales", ""] if scales is not None else ["x", "", "", "sizes"]
    node = helper.make_node(op, inputs, ["y"], name="rs", **attrs)
    graph = helper.make_graph([node], "g", ins, [helper.make_tensor_value_info("y", elem, None)], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=8), feeds
