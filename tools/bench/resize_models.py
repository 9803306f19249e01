"""One-node Resize models for `onemodel bench --model`: 2x nearest and 2x bilinear (half_pixel) upsampling of
1x64x80x80 and 1x256x20x20 float inputs (docs/resize.md's speed figures), each with an .npz of its input.

    python tools/bench/resize_models.py [--out build]
    onemodel bench --model build/resize_nearest_1x64x80x80.onnx --inputs build/resize_nearest_1x64x80x80.npz \
        --threads 1 --via ep
"""

from __future__ import annotations

import argparse
import os

import numpy as np
import onnx
from onnx import TensorProto, helper

SHAPES = ((1, 64, 80, 80), (1, 256, 20, 20))
MODES = ("nearest", "linear")


def model_of(mode: str, shape: tuple[int, ...]) -> onnx.ModelProto:
    scales = helper.make_tensor("scales", TensorProto.FLOAT, [4], [1.0, 1.0, 2.0, 2.0])
    node = helper.make_node("Resize", ["x", "", "scales"], ["y"], mode=mode)
    vi = helper.make_tensor_value_info
    graph = helper.make_graph([node], "resize", [vi("x", TensorProto.FLOAT, list(shape))],
                              [vi("y", TensorProto.FLOAT, None)], initializer=[scales])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)], ir_version=8)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="build")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    rng = np.random.default_rng(0)
    for mode in MODES:
        for shape in SHAPES:
            stem = os.path.join(args.out, f"resize_{mode}_{'x'.join(map(str, shape))}")
            onnx.save(model_of(mode, shape), stem + ".onnx")
            np.savez(stem + ".npz", x=rng.standard_normal(shape).astype(np.float32))
            print(stem)


if __name__ == "__main__":
    main()
