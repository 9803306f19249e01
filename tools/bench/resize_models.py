"""One-node Resize models for `onemodel bench --model`: 2x nearest and 2x bilinear (half_pixel) upsampling of
1x64x80x80 and 1x256x20x20 float inputs, 2x bicubic of 1x3x224x224 and 0.5x antialiased linear and cubic
downscaling of 1x3x224x224 (docs/resize.md's speed figures), each with an .npz of its input.

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
IMAGE = (1, 3, 224, 224)
# (file name's mode part, mode, antialias, the scale of H and W)
IMAGE_CASES = (("cubic", "cubic", 0, 2.0), ("linear_aa_half", "linear", 1, 0.5),
               ("cubic_aa_half", "cubic", 1, 0.5))


def model_of(mode: str, shape: tuple[int, ...], scale: float = 2.0, antialias: int = 0) -> onnx.ModelProto:
    scales = helper.make_tensor("scales", TensorProto.FLOAT, [4], [1.0, 1.0, scale, scale])
    node = helper.make_node("Resize", ["x", "", "scales"], ["y"], mode=mode,
                            **({"antialias": antialias} if antialias else {}))
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
    cases = [(mode, mode, shape, 2.0, 0) for mode in MODES for shape in SHAPES]
    cases += [(name, mode, IMAGE, scale, aa) for name, mode, aa, scale in IMAGE_CASES]
    for name, mode, shape, scale, aa in cases:
        stem = os.path.join(args.out, f"resize_{name}_{'x'.join(map(str, shape))}")
        onnx.save(model_of(mode, shape, scale, aa), stem + ".onnx")
        np.savez(stem + ".npz", x=rng.standard_normal(shape).astype(np.float32))
        print(stem)


if __name__ == "__main__":
    main()
