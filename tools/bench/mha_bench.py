"""Speed of com.microsoft Attention and MultiHeadAttention through OneModel EP (via="ep", exact mode, the
widest kernel path) against stock ONNX Runtime, one intra-op thread each, run by run interleaved in one
process (gqa_bench's measure): BERT-base shapes (12 heads of 64), Attention as the BERT optimiser writes
it (constant weights and bias, a 1-D mask_index), MultiHeadAttention with separate Q, K, V, bias and a 2-D
key mask.

    python tools/bench/mha_bench.py [--seq 128,384] [--batch 1] [--budget 3] [--path 256] [--thread-time]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import onnx
from gqa_bench import OPSETS, measure  # tools/bench, this script's folder
from onnx import TensorProto, helper, numpy_helper

HEADS, HEAD = 12, 64


def attention_model(b: int, s: int) -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    d = HEADS * HEAD
    rng = np.random.default_rng(0)
    w = numpy_helper.from_array((rng.standard_normal((d, 3 * d)) * 0.03).astype(np.float32), "w")
    bias = numpy_helper.from_array(rng.standard_normal(3 * d).astype(np.float32), "bias")
    node = helper.make_node("Attention", ["x", "w", "bias", "mask"], ["out"], domain="com.microsoft",
                            num_heads=HEADS)
    ins = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [b, s, d]),
           helper.make_tensor_value_info("mask", TensorProto.INT32, [b])]
    outs = [helper.make_tensor_value_info("out", TensorProto.FLOAT, None)]
    graph = helper.make_graph([node], "attention", ins, outs, [w, bias])
    feeds = {"x": rng.standard_normal((b, s, d)).astype(np.float32), "mask": np.full(b, s - 3, np.int32)}
    return helper.make_model(graph, opset_imports=OPSETS, ir_version=10), feeds


def mha_model(b: int, s: int) -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    d = HEADS * HEAD
    rng = np.random.default_rng(1)
    names = ["q", "k", "v", "bias", "mask"]
    node = helper.make_node("MultiHeadAttention", names, ["out"], domain="com.microsoft", num_heads=HEADS)
    feeds = {n: rng.standard_normal((b, s, d)).astype(np.float32) for n in names[:3]}
    feeds["bias"] = rng.standard_normal(3 * d).astype(np.float32)
    mask = np.ones((b, s), np.int32)
    mask[:, -3:] = 0
    feeds["mask"] = mask
    ins = [helper.make_tensor_value_info(n, TensorProto.INT32 if n == "mask" else TensorProto.FLOAT,
                                         list(x.shape)) for n, x in feeds.items()]
    outs = [helper.make_tensor_value_info("out", TensorProto.FLOAT, None)]
    return helper.make_model(helper.make_graph([node], "mha", ins, outs), opset_imports=OPSETS,
                             ir_version=10), feeds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seq", default="128,384", help="sequence lengths (comma-separated)")
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--budget", type=float, default=3.0, help="seconds per case")
    ap.add_argument("--path", default=None, help="our kernel path: 512, 256, 128, scalar (default: widest)")
    ap.add_argument("--thread-time", action="store_true", help="this thread's CPU time, not wall time")
    a = ap.parse_args()
    print(f"heads {HEADS}, head size {HEAD}, batch {a.batch}, 1 thread, exact, path {a.path or 'widest'}")
    print(f"{'case':>24} {'stock ms':>10} {'ours ms':>10} {'stock/ours':>11}")
    for s in (int(x) for x in a.seq.split(",") if x):
        for op, make in (("Attention", attention_model), ("MultiHeadAttention", mha_model)):
            model, feeds = make(a.batch, s)
            clock = time.thread_time if a.thread_time else time.perf_counter
            t_stock, t_ours, ratio = measure(model, feeds, a.budget, op, a.path, clock)
            print(f"{op + ' S=' + str(s):>24} {t_stock * 1e3:10.3f} {t_ours * 1e3:10.3f} {ratio:11.3f}")


if __name__ == "__main__":
    main()
