"""QLinearConv and ConvInteger speed: stock ORT against OneModel EP's exact kernel, one-node sessions in one
process, interleaved (onemodel_ep.bench's `_time_interleaved`, through gemm_bench's `timed_row`).

Each shape is conv_bench.py's (ResNet-18's 3x3 and 1x1 convolutions, its stem, MobileNet's pointwise and
depthwise), as a one-node model: X uint8 an input, W int8 per output channel, B int32 and the scales and
zero points initializers (QLinearConv), or X uint8 and W int8 with per-tensor zero points (ConvInteger). A
ratio is the median over rounds of stock time / our time, so > 1 means we are faster. GOP/s counts
2 * N * M * O * (C/G) * prod(kernel).

    python tools/bench/qconv_bench.py [--op QLinearConv|ConvInteger] [--threads 1] [--budget 3] [--shapes ...]
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
import onnx
from conv_bench import SHAPES  # tools/bench, this script's folder
from gemm_bench import timed_row
from onnx import TensorProto, helper, numpy_helper

from onemodel_ep.bench import _our_session, _session


def model_for(op: str, shape: tuple[int, ...], rng: np.random.Generator
              ) -> tuple[onnx.ModelProto, dict, float]:
    c, h, w, m, k, s, p, g = shape
    wt = rng.integers(-128, 128, (m, c // g, k, k), dtype=np.int8)
    if op == "QLinearConv":
        inits = {"x_scale": np.array(0.02, np.float32), "x_zp": np.array(120, np.uint8), "w": wt,
                 "w_scale": rng.uniform(0.001, 0.01, m).astype(np.float32), "w_zp": np.zeros(m, np.int8),
                 "y_scale": np.array(0.05 * np.sqrt(c // g * k * k), np.float32),
                 "y_zp": np.array(128, np.uint8),
                 "b": rng.integers(-1000, 1000, m).astype(np.int32)}
        names = ["x", "x_scale", "x_zp", "w", "w_scale", "w_zp", "y_scale", "y_zp", "b"]
        y_type = TensorProto.UINT8
    else:
        inits = {"w": wt, "x_zp": np.array(120, np.uint8), "w_zp": np.array(0, np.int8)}
        names, y_type = ["x", "w", "x_zp", "w_zp"], TensorProto.INT32
    node = helper.make_node(op, names, ["y"], pads=[p] * 4, strides=[s, s], group=g)
    x_info = helper.make_tensor_value_info("x", TensorProto.UINT8, [1, c, h, w])
    graph = helper.make_graph([node], "qconv", [x_info],
                              [helper.make_tensor_value_info("y", y_type, None)],
                              initializer=[numpy_helper.from_array(v, n) for n, v in inits.items()])
    model = helper.make_model(graph, ir_version=9, opset_imports=[helper.make_opsetid("", 17)])
    oh, ow = (h + 2 * p - k) // s + 1, (w + 2 * p - k) // s + 1
    flops = 2.0 * m * oh * ow * (c // g) * k * k
    return model, {"x": rng.integers(0, 256, (1, c, h, w), dtype=np.uint8)}, flops


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--op", default="QLinearConv", choices=["QLinearConv", "ConvInteger"])
    ap.add_argument("--shapes", nargs="+", choices=list(SHAPES), default=list(SHAPES))
    ap.add_argument("--threads", nargs="+", type=int, default=[1])
    ap.add_argument("--budget", type=float, default=3.0, help="seconds per shape and thread count")
    ap.add_argument("--via", default="ep", choices=["ep", "rewrite"])
    args = ap.parse_args(argv)
    rng = np.random.default_rng(0)
    cols = ["stock GO/s", "ours GO/s", "stock us", "ours us", "ours/stock"]
    print(f"{'shape':>20} {'thr':>3} " + " ".join(f"{c:>10}" for c in cols))
    for name in args.shapes:
        model, feeds, flops = model_for(args.op, SHAPES[name], rng)
        for th in args.threads:
            sessions = [_session(model, th, False), _our_session(model, th, "exact", args.via)]
            if not timed_row(name, sessions, feeds, flops, th, args.budget, width=20):
                return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
