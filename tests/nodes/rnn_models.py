"""One-node LSTM, GRU and RNN models and their seeded feeds (ONNX's input order, optional inputs left out or
given as initializers), shared by the recurrent node tests."""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx
from onnx import helper, numpy_helper

GATES = {"LSTM": 4, "GRU": 3, "RNN": 1}
INPUTS = {"LSTM": ["x", "w", "r", "b", "seq", "h0", "c0", "p"], "GRU": ["x", "w", "r", "b", "seq", "h0"],
          "RNN": ["x", "w", "r", "b", "seq", "h0"]}
OUTPUTS = {"LSTM": ["y", "yh", "yc"], "GRU": ["y", "yh"], "RNN": ["y", "yh"]}


def rnn_feeds(op: str, t: int, n: int, i: int, h: int, dirs: int, have: set[str], seed: int,
           seq: list[int] | None = None) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    g = GATES[op]

    def f(*shape: int, scale: float = 0.5) -> np.ndarray:
        return (rng.standard_normal(shape) * scale).astype(np.float32)

    feeds = {"x": f(t, n, i, scale=1.0), "w": f(dirs, g * h, i), "r": f(dirs, g * h, h)}
    if "b" in have:
        feeds["b"] = f(dirs, 2 * g * h)
    if "seq" in have:
        feeds["seq"] = np.array(seq if seq is not None else rng.integers(0, t + 1, n), dtype=np.int32)
    if "h0" in have:
        feeds["h0"] = f(dirs, n, h, scale=1.0)
    if "c0" in have and op == "LSTM":
        feeds["c0"] = f(dirs, n, h, scale=1.0)
    if "p" in have and op == "LSTM":
        feeds["p"] = f(dirs, 3 * h)
    return feeds


def rnn_model(op: str, feeds: dict[str, np.ndarray], attrs: dict[str, Any], outputs: list[str] | None = None,
           constants: tuple[str, ...] = (), opset: int = 14) -> onnx.ModelProto:
    names = INPUTS[op]
    last = max(k for k, nm in enumerate(names) if nm in feeds)
    ins = [nm if nm in feeds else "" for nm in names[: last + 1]]
    outs = outputs if outputs is not None else OUTPUTS[op]
    node = helper.make_node(op, ins, outs, name="rec", **attrs)
    graph_in = [helper.make_tensor_value_info(nm, helper.np_dtype_to_tensor_dtype(v.dtype), list(v.shape))
                for nm, v in feeds.items() if nm not in constants]
    inits = [numpy_helper.from_array(feeds[nm], nm) for nm in constants]
    elem = helper.np_dtype_to_tensor_dtype(feeds["x"].dtype)  # the outputs have X's type
    graph_out = [helper.make_tensor_value_info(nm, elem, None) for nm in outs if nm]
    graph = helper.make_graph([node], "g", graph_in, graph_out, initializer=inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=10)
