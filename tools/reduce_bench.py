"""Speed of the reduction kernels (called directly through om_test_reduce, one thread, exact mode, the widest
path) against stock ONNX Runtime one-node sessions (intra_op_num_threads=1), interleaved in one process.

Prints, per case, the median time of each and the ratio stock / ours (> 1: ours is faster). "ours" includes
the Python cost of tests/test_reduce_kernel.py's run() (cffi marshalling, output allocation: several
microseconds), so ratios below about 64K elements say little about the kernels.

    python tools/reduce_bench.py [--reps 30] [--max-elems 16777216]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import onnxruntime as ort
from onnx import TensorProto, helper

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from test_reduce_kernel import run  # noqa: E402

import onemodel_ep  # noqa: E402

PATH = onemodel_ep.kernel_paths()[0]


def stock_session(op: str, shape: tuple[int, ...], attrs: dict[str, object], out_shape: list[int],
                  n_extra: int = 0, opset: int = 13) -> ort.InferenceSession:
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(shape))]
    names = ["x"]
    for k in range(n_extra):
        inputs.append(helper.make_tensor_value_info(f"p{k}", TensorProto.FLOAT, [shape[-1]]))
        names.append(f"p{k}")
    node = helper.make_node(op, names, ["y"], **attrs)
    graph = helper.make_graph([node], "g", inputs, [helper.make_tensor_value_info("y", TensorProto.FLOAT,
                                                                                   out_shape)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=8)
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    return ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])


def median_time(fn: Callable[[], object], reps: int) -> float:
    ts = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t)
    return float(np.median(ts))


def bench(label: str, stock: Callable[[], object], ours: Callable[[], object], reps: int) -> None:
    stock()
    ours()
    s, o = [], []
    for _ in range(3):  # interleaved blocks
        s.append(median_time(stock, reps))
        o.append(median_time(ours, reps))
    ts, to = float(np.median(s)), float(np.median(o))
    print(f"{label:40s} stock {ts * 1e6:10.1f} us  ours {to * 1e6:10.1f} us  ratio {ts / to:5.2f}",
          flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=30)
    ap.add_argument("--max-elems", type=int, default=1 << 24)
    a = ap.parse_args()
    rng = np.random.default_rng(0)
    sizes = [s for s in (1 << 10, 1 << 14, 1 << 18, 1 << 20, 1 << 24) if s <= a.max_elems]
    for total in sizes:
        for row in (128, 1024, 4096):
            if total < row:
                continue
            shape = (total // row, row)
            x = rng.standard_normal(shape).astype(np.float32)
            sess = stock_session("Softmax", shape, {"axis": -1}, list(shape))
            bench(f"Softmax {shape}", lambda s=sess, x=x: s.run(None, {"x": x}),
                  lambda x=x: run("Softmax", x, (0, 1), PATH), a.reps)
        for row in (384, 768):
            if total < row:
                continue
            shape = (total // row, row)
            x = rng.standard_normal(shape).astype(np.float32)
            sc = rng.standard_normal(row).astype(np.float32)
            bi = rng.standard_normal(row).astype(np.float32)
            sess = stock_session("LayerNormalization", shape, {"axis": -1, "epsilon": 1e-5}, list(shape), 2,
                                 opset=17)
            feeds = {"x": x, "p0": sc, "p1": bi}
            bench(f"LayerNorm {shape}", lambda s=sess, f=feeds: s.run(None, f),
                  lambda x=x, sc=sc, bi=bi: run("LayerNormalization", x, (0, 1), PATH, scale=sc, bias=bi),
                  a.reps)
        shape = (total // 256, 256)
        x = rng.standard_normal(shape).astype(np.float32)
        for op in ("ReduceSum", "ReduceMean", "ReduceMax"):
            for axis in (1, 0):
                out = [shape[0], 1] if axis == 1 else [1, shape[1]]
                if op == "ReduceSum":
                    init_axes = helper.make_tensor("axes", TensorProto.INT64, [1], [axis])
                    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(shape))]
                    node = helper.make_node(op, ["x", "axes"], ["y"], keepdims=1)
                    graph = helper.make_graph([node], "g", inputs,
                                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, out)],
                                              initializer=[init_axes])
                    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)],
                                              ir_version=8)
                    so = ort.SessionOptions()
                    so.intra_op_num_threads = 1
                    sess = ort.InferenceSession(model.SerializeToString(), so,
                                                providers=["CPUExecutionProvider"])
                else:
                    sess = stock_session(op, shape, {"axes": [axis], "keepdims": 1}, out)
                mask = (0, 1) if axis == 1 else (1, 0)
                bench(f"{op} axis {axis} {shape}", lambda s=sess, x=x: s.run(None, {"x": x}),
                      lambda op=op, x=x, mask=mask: run(op, x, mask, PATH), a.reps)


if __name__ == "__main__":
    main()
