"""Conv speed: stock ORT (MLAS, after its NCHWc layout transformer at ORT_ENABLE_ALL) against OneModel EP's
exact kernel, one-node sessions in one process, interleaved (onemodel_ep.bench's `_time_interleaved`).

Each shape is a one-node Conv model, X an input, W and B initializers. A ratio is the median over rounds of
stock time / our time, so > 1 means we are faster. GFLOP/s counts 2 * N * M * O * (C/G) * prod(kernel).

    python tools/bench/conv_bench.py [--threads 1] [--budget 3] [--via ep] [--shapes NAME ...]

Shapes (N=1, f32): ResNet-18's 3x3 convolutions at stride 1 and 2, its 1x1 projections, its 7x7 stem,
MobileNet's depthwise 3x3 and pointwise 1x1, and MobileNetV3-small's at a 64x64 input ("mb3-": 1x1 to 16x16
planes, SE blocks' 1x1 convolutions); ConvTranspose ("ct-" shapes) at U-Net and OCR-head upsamplings
(GFLOP/s: 2 * N * C * (M/G) * H * W * prod(kernel), every term of the scatter); "ct16-" the same in float16.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
import onnx
from gemm_bench import timed_row  # tools/bench, this script's folder
from onnx import TensorProto, helper, numpy_helper

from onemodel_ep.bench import _our_session, _session

# name: (C, H, W, M, kernel, stride, pad, group)
SHAPES = {
    "r18-stem-7x7s2": (3, 224, 224, 64, 7, 2, 3, 1),
    "r18-64x56-3x3": (64, 56, 56, 64, 3, 1, 1, 1),
    "r18-128x28-3x3": (128, 28, 28, 128, 3, 1, 1, 1),
    "r18-256x14-3x3": (256, 14, 14, 256, 3, 1, 1, 1),
    "r18-64x56-3x3s2": (64, 56, 56, 128, 3, 2, 1, 1),
    "r18-64x56-1x1s2": (64, 56, 56, 128, 1, 2, 0, 1),
    "r18-128x28-1x1s2": (128, 28, 28, 256, 1, 2, 0, 1),
    "mb-96x56-1x1": (96, 56, 56, 24, 1, 1, 0, 1),
    "mb-dw-96x56-3x3": (96, 56, 56, 96, 3, 1, 1, 96),
    "mb-dw-144x28-3x3s2": (144, 56, 56, 144, 3, 2, 1, 144),
    # testdata/models/mobilenet_v3_small_half.onnx (64x64 input): small planes, SE blocks at 1x1
    "mb3-stem-3x3s2": (3, 64, 64, 8, 3, 2, 1, 1),
    "mb3-se-288x1-1x1": (288, 1, 1, 72, 1, 1, 0, 1),
    "mb3-48x2-1x1": (48, 2, 2, 288, 1, 1, 0, 1),
    "mb3-24x4-1x1": (24, 4, 4, 120, 1, 1, 0, 1),
    "mb3-16x8-1x1": (16, 8, 8, 48, 1, 1, 0, 1),
    "mb3-8x16-1x1": (8, 16, 16, 40, 1, 1, 0, 1),
    "mb3-dw-288x2-5x5": (288, 2, 2, 288, 5, 1, 2, 288),
    "mb3-dw-120x4-5x5": (120, 4, 4, 120, 5, 1, 2, 120),
    "mb3-dw-40x16-3x3s2": (40, 16, 16, 40, 3, 2, 1, 40),
}

# ConvTranspose: name: (C, H, W, M, kernel, stride, pad, output_padding)
TRANSPOSE_SHAPES = {
    "ct-64x40-k2s2": (64, 40, 40, 32, 2, 2, 0, 0),
    "ct-64x40-k4s2p1": (64, 40, 40, 32, 4, 2, 1, 0),
    "ct-256x20-k3s2p1": (256, 20, 20, 128, 3, 2, 1, 1),
    "ct16-64x40-k4s2p1": (64, 40, 40, 32, 4, 2, 1, 0),
}


def model_for(shape: tuple[int, ...], rng: np.random.Generator) -> tuple[onnx.ModelProto, dict, float]:
    c, h, w, m, k, s, p, g = shape
    f = TensorProto.FLOAT
    wt = rng.standard_normal((m, c // g, k, k)).astype(np.float32) * 0.1
    b = rng.standard_normal(m).astype(np.float32)
    node = helper.make_node("Conv", ["x", "w", "b"], ["y"], pads=[p] * 4, strides=[s, s], group=g)
    graph = helper.make_graph(
        [node],
        "conv",
        [helper.make_tensor_value_info("x", f, [1, c, h, w])],
        [helper.make_tensor_value_info("y", f, None)],
        initializer=[numpy_helper.from_array(wt, "w"), numpy_helper.from_array(b, "b")],
    )
    model = helper.make_model(graph, ir_version=9, opset_imports=[helper.make_opsetid("", 17)])
    oh, ow = (h + 2 * p - k) // s + 1, (w + 2 * p - k) // s + 1
    flops = 2.0 * m * oh * ow * (c // g) * k * k
    return model, {"x": rng.standard_normal((1, c, h, w)).astype(np.float32)}, flops


def transpose_model_for(name: str, shape: tuple[int, ...], rng: np.random.Generator
                        ) -> tuple[onnx.ModelProto, dict, float]:
    c, h, w, m, k, s, p, op = shape
    half = name.startswith("ct16-")
    f, dt = (TensorProto.FLOAT16, np.float16) if half else (TensorProto.FLOAT, np.float32)
    wt = (rng.standard_normal((c, m, k, k)) * 0.1).astype(dt)
    node = helper.make_node("ConvTranspose", ["x", "w", "b"], ["y"], pads=[p] * 4, strides=[s, s],
                            output_padding=[op, op])
    b = rng.standard_normal(m).astype(dt)
    inits = [numpy_helper.from_array(wt, "w"), numpy_helper.from_array(b, "b")]
    graph = helper.make_graph([node], "convt", [helper.make_tensor_value_info("x", f, [1, c, h, w])],
                              [helper.make_tensor_value_info("y", f, None)], initializer=inits)
    model = helper.make_model(graph, ir_version=9, opset_imports=[helper.make_opsetid("", 17)])
    return model, {"x": rng.standard_normal((1, c, h, w)).astype(dt)}, 2.0 * c * m * h * w * k * k


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    names = list(SHAPES) + list(TRANSPOSE_SHAPES)
    ap.add_argument("--shapes", nargs="+", choices=names, default=list(SHAPES))
    ap.add_argument("--threads", nargs="+", type=int, default=[1])
    ap.add_argument("--budget", type=float, default=3.0, help="seconds per shape and thread count")
    ap.add_argument("--via", default="ep", choices=["ep", "rewrite"])
    args = ap.parse_args(argv)
    rng = np.random.default_rng(0)
    cols = ["stock GF/s", "ours GF/s", "stock us", "ours us", "ours/stock"]
    print(f"{'shape':>20} {'thr':>3} " + " ".join(f"{c:>10}" for c in cols))
    for name in args.shapes:
        if name in TRANSPOSE_SHAPES:
            model, feeds, flops = transpose_model_for(name, TRANSPOSE_SHAPES[name], rng)
        else:
            model, feeds, flops = model_for(SHAPES[name], rng)
        for th in args.threads:
            sessions = [_session(model, th, False), _our_session(model, th, "exact", args.via)]
            if not timed_row(name, sessions, feeds, flops, th, args.budget, width=20):
                return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
