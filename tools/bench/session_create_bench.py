"""Time the creation of a one-node session (MaxPool 1x3x8x8) through OneModel's EP with and without the
library's custom ops registered, and through stock ORT; and of the model rewritten to ai.onemodel in a plain
ORT session with every custom op registered or only the model's (session_options(so, ops=...)): the median
of 30 creations each, in milliseconds.

    python tools/bench/session_create_bench.py
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

import onnx
import onnxruntime as ort
from onnx import TensorProto, helper

from onemodel_ep import ep
from onemodel_ep.custom_ops import custom_op_types, session_options
from onemodel_ep.rewriter import rewrite


def _proto() -> onnx.ModelProto:
    node = helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[2, 2])
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])
    graph = helper.make_graph([node], "g", [x], [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)], ir_version=10)


def median_ms(make: Callable[[], object], n: int = 30) -> float:
    make()  # the library registered, the first session's one-time costs paid
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        make()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1000


def main() -> None:
    m = _proto().SerializeToString()
    for custom_ops in (True, False):
        def make(custom_ops: bool = custom_ops) -> ort.InferenceSession:
            so = ep.ep_session_options(ort.SessionOptions(), custom_ops=custom_ops)
            return ort.InferenceSession(m, so, enable_fallback=0)

        print(f"EP session, custom_ops={custom_ops}: {median_ms(make):.2f} ms")
    stock = median_ms(lambda: ort.InferenceSession(m, providers=["CPUExecutionProvider"]))
    print(f"stock session: {stock:.2f} ms")
    rewritten = rewrite(_proto())
    r = rewritten.SerializeToString()
    own = custom_op_types(rewritten)
    for label, ops in (("every op", None), (f"its ops {own}", own)):
        def make_rewritten(ops: list[str] | None = ops) -> ort.InferenceSession:
            so = session_options(ort.SessionOptions(), ops=ops)
            return ort.InferenceSession(r, so, providers=["CPUExecutionProvider"])

        print(f"rewritten session, {label} registered: {median_ms(make_rewritten):.2f} ms")


if __name__ == "__main__":
    main()
