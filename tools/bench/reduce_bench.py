"""Speed of the reduction kernels (called directly through om_test_reduce, one thread, one kernel path, exact
mode unless --fast) against stock ONNX Runtime one-node sessions (intra_op_num_threads=1), interleaved in one
process.

Prints, per case, the median time of each and the ratio stock / ours (> 1: ours is faster). "ours" is one cffi
call into om_test_reduce with its arguments and output prepared once (as the node layer writes into the
output ORT allocates from its arena); "stock" is InferenceSession.run with a fresh output. Both include a
few microseconds of Python call overhead, which dominates below about 16K elements.

    python tools/bench/reduce_bench.py [--reps 30] [--sizes 1024,65536,1048576,16777216] [--path 512] [--fast]
        [--only Softmax,ReduceMax]
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable

import numpy as np
import onnxruntime as ort
from onnx import TensorProto, helper

import onemodel_ep
from onemodel_ep._lib import PATH_NAMES, ffi, native_test_entry


def stock_session(op: str, shape: tuple[int, ...], attrs: dict[str, object], out_shape: list[int],
                  n_extra: int = 0, opset: int = 13, axes: int | None = None) -> ort.InferenceSession:
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(shape))]
    names = ["x"]
    for k in range(n_extra):
        inputs.append(helper.make_tensor_value_info(f"p{k}", TensorProto.FLOAT, [shape[-1]]))
        names.append(f"p{k}")
    init = []
    if axes is not None:  # opset 13 ReduceSum: axes as an input
        init.append(helper.make_tensor("axes", TensorProto.INT64, [1], [axes]))
        names.append("axes")
    node = helper.make_node(op, names, ["y"], **attrs)
    graph = helper.make_graph([node], "g", inputs, [helper.make_tensor_value_info("y", TensorProto.FLOAT,
                                                                                   out_shape)],
                              initializer=init)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=8)
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    return ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])


def ours_call(op: str, x: np.ndarray, mask: tuple[int, ...], path: str, mode: int,
              scale: np.ndarray | None = None, bias: np.ndarray | None = None) -> Callable[[], object]:
    """One om_test_reduce call with every argument prepared (the output allocated once)."""
    if op.startswith("Reduce"):
        y = np.empty([d for d, k in zip(x.shape, mask, strict=True) if not k], x.dtype)
    else:
        y = np.empty(x.shape, x.dtype)
    keep = (x, scale, bias, y)

    def ptr(a: np.ndarray | None) -> object:
        return ffi.NULL if a is None else ffi.from_buffer(a)

    args = (op.encode(), PATH_NAMES.index(path), 1, mode, x.ndim, ffi.new("int64_t[]", list(x.shape)),
            ffi.new("uint8_t[]", list(mask)), 0, 0, 1e-5, ptr(x), ptr(scale), ptr(bias), ptr(y), ffi.NULL,
            ffi.NULL)
    fn = native_test_entry("om_test_reduce")

    def call() -> object:
        if fn(*args) != 0:
            raise RuntimeError(f"om_test_reduce({op}, {x.shape}, {mask}) failed")
        return keep

    return call


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
    print(f"{label:44s} stock {ts * 1e6:10.1f} us  ours {to * 1e6:10.1f} us  ratio {ts / to:5.2f}",
          flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=30, help="calls per timed block (fewer above 1M elements)")
    ap.add_argument("--sizes", default="1024,65536,1048576,16777216", help="total elements, comma-separated")
    ap.add_argument("--path", default=onemodel_ep.kernel_paths()[0], choices=onemodel_ep.kernel_paths())
    ap.add_argument("--fast", action="store_true", help="fast mode instead of exact")
    ap.add_argument("--only", default="", help="comma-separated op names (default: all)")
    a = ap.parse_args()
    mode = 1 if a.fast else 0
    only = set(a.only.split(",")) if a.only else None
    rng = np.random.default_rng(0)
    print(f"path {a.path}, {'fast' if a.fast else 'exact'} mode, load average {os.getloadavg()}", flush=True)

    def want(op: str) -> bool:
        return only is None or op in only

    for total in (int(s) for s in a.sizes.split(",")):
        reps = a.reps if total <= 1 << 20 else max(3, a.reps // 10)
        for op in ("Softmax", "LogSoftmax"):
            if not want(op):
                continue
            for row in (128, 1024, 4096):
                if total < row:
                    continue
                shape = (total // row, row)
                x = rng.standard_normal(shape).astype(np.float32)
                sess = stock_session(op, shape, {"axis": -1}, list(shape))
                bench(f"{op} {shape}", lambda s=sess, x=x: s.run(None, {"x": x}),
                      ours_call(op, x, (0, 1), a.path, mode), reps)
        for row in (384, 768):
            if total < row or not want("LayerNormalization"):
                continue
            shape = (total // row, row)
            x = rng.standard_normal(shape).astype(np.float32)
            sc = rng.standard_normal(row).astype(np.float32)
            bi = rng.standard_normal(row).astype(np.float32)
            sess = stock_session("LayerNormalization", shape, {"axis": -1, "epsilon": 1e-5}, list(shape), 2,
                                 opset=17)
            feeds = {"x": x, "p0": sc, "p1": bi}
            bench(f"LayerNorm {shape}", lambda s=sess, f=feeds: s.run(None, f),
                  ours_call("LayerNormalization", x, (0, 1), a.path, mode, sc, bi), reps)
        shape = (max(1, total // 256), 256)
        x = rng.standard_normal(shape).astype(np.float32)
        for op in ("ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin"):
            if not want(op):
                continue
            for axis in (1, 0):
                out = [shape[0], 1] if axis == 1 else [1, shape[1]]
                if op == "ReduceSum":
                    sess = stock_session(op, shape, {"keepdims": 1}, out, axes=axis)
                else:
                    sess = stock_session(op, shape, {"axes": [axis], "keepdims": 1}, out)
                mask = (0, 1) if axis == 1 else (1, 0)
                bench(f"{op} axis {axis} {shape}", lambda s=sess, x=x: s.run(None, {"x": x}),
                      ours_call(op, x, mask, a.path, mode), reps)


if __name__ == "__main__":
    main()
