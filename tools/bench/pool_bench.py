"""Speed of the pooling and normalisation nodes through OneModel EP (via="ep", exact mode, the widest kernel
path) against stock ONNX Runtime, one-node f32 models, one intra-op thread each, interleaved in one process.

Prints, per case, the median time of each over --reps runs (each run: InferenceSession.run on the same feed,
stock and ours alternating) and the ratio stock / ours (> 1: ours is faster).

    python tools/bench/pool_bench.py [--reps 200] [--only GlobalAveragePool,BatchNormalization]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

import onemodel_ep

# (op, X shape, attributes): the shapes of issue 34
CASES: list[tuple[str, tuple[int, ...], dict[str, object]]] = [
    ("GlobalAveragePool", (1, 512, 7, 7), {}),
    ("GlobalMaxPool", (1, 512, 7, 7), {}),
    ("BatchNormalization", (1, 64, 56, 56), {"epsilon": 1e-5}),
    # ResNet-18's stem pool; CRNN (OCR) pools; MobileNet-v1's final average; a 3x3 average with padding
    ("MaxPool", (1, 64, 112, 112), {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]}),
    ("MaxPool", (1, 64, 32, 100), {"kernel_shape": [2, 2], "strides": [2, 2]}),
    ("MaxPool", (1, 256, 8, 25), {"kernel_shape": [2, 2], "strides": [2, 1], "pads": [0, 1, 0, 0]}),
    ("AveragePool", (1, 1024, 7, 7), {"kernel_shape": [7, 7]}),
    ("AveragePool", (1, 64, 56, 56), {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1], "count_include_pad": 1}),
    # LpPool p 3 (the three passes: |x|^3 by the exact Pow, window sums, Pow(s, 1/3)), a ResNet-stem window
    ("LpPool", (1, 64, 56, 56), {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1], "p": 3}),
    # U-Net / diffusion normalisations (opset 21)
    ("InstanceNormalization", (1, 64, 128, 128), {"epsilon": 1e-5}),
    ("GroupNormalization", (1, 320, 64, 64), {"num_groups": 32, "epsilon": 1e-5}),
]
# Ops whose one-node model takes opset 21 (GroupNormalization's scale and bias per channel) rather than 15
OPSET21 = ("InstanceNormalization", "GroupNormalization")


def model_of(op: str, shape: tuple[int, ...], attrs: dict[str, object]) -> onnx.ModelProto:
    inits = []
    if op == "BatchNormalization":
        rng = np.random.default_rng(3)
        c = shape[1]
        for name, lo, hi in (("scale", 0.5, 2.0), ("bias", -1, 1), ("mean", -1, 1), ("var", 0.1, 3.0)):
            inits.append(numpy_helper.from_array(rng.uniform(lo, hi, c).astype(np.float32), name))
    if op in OPSET21:
        rng = np.random.default_rng(4)
        for name, lo, hi in (("scale", 0.5, 2.0), ("bias", -1, 1)):
            inits.append(numpy_helper.from_array(rng.uniform(lo, hi, shape[1]).astype(np.float32), name))
    node = helper.make_node(op, ["x", *[i.name for i in inits]], ["y"], **attrs)
    vi = helper.make_tensor_value_info
    graph = helper.make_graph([node], op, [vi("x", TensorProto.FLOAT, list(shape))],
                              [vi("y", TensorProto.FLOAT, None)], initializer=inits)
    opset = helper.make_opsetid("", 21 if op in OPSET21 else 15)
    return helper.make_model(graph, opset_imports=[opset], ir_version=8)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=200)
    ap.add_argument("--only", default="")
    args = ap.parse_args()
    only = set(filter(None, args.only.split(",")))
    print(f"onnxruntime {ort.__version__}, one thread, f32, median of {args.reps} interleaved runs")
    print(f"{'op':20} {'shape':18} {'stock us':>9} {'ours us':>9} {'stock/ours':>10}")
    for op, shape, attrs in CASES:
        if only and op not in only:
            continue
        model = model_of(op, shape, attrs)
        so = ort.SessionOptions()
        so.intra_op_num_threads = 1
        so.log_severity_level = 3
        stock = ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
        ours = onemodel_ep.InferenceSession(model, so, mode="exact", via="ep")
        assert [n.op for n in ours.report.moved] == [op], ours.report.summary()
        x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
        feed = {"x": x}
        times: dict[str, list[float]] = {"stock": [], "ours": []}
        for _ in range(10):
            stock.run(None, feed)
            ours.run(None, feed)
        for _ in range(args.reps):
            for name, sess in (("stock", stock), ("ours", ours)):
                t0 = time.perf_counter()
                sess.run(None, feed)
                times[name].append(time.perf_counter() - t0)
        s, o = float(np.median(times["stock"])), float(np.median(times["ours"]))
        print(f"{op:21} {'x'.join(map(str, shape)):18} {s * 1e6:9.1f} {o * 1e6:9.1f} {s / o:10.2f}")


if __name__ == "__main__":
    main()
