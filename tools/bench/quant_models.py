"""Write one-node MatMulInteger models at BERT-base shapes, with inputs, for `onemodel bench --model`.

As `onnxruntime.quantization.quantize_dynamic` writes them: A uint8 (from DynamicQuantizeLinear) with a scalar
uint8 zero point, B a constant int8 weight with a scalar int8 zero point. Usage:

    python tools/bench/quant_models.py [OUT_DIR]        (default build/)
    onemodel bench --model build/mmi_128x768x768.onnx --inputs build/mmi_128x768x768.npz --threads 1 --via ep
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

SHAPES = ((128, 768, 768), (128, 768, 3072), (128, 3072, 768))  # M, K, N


def matmul_integer_model(m: int, k: int, n: int) -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    rng = np.random.default_rng(m * k + n)
    w = rng.integers(-128, 128, (k, n), dtype=np.int8)
    inits = [numpy_helper.from_array(w, "w"), numpy_helper.from_array(np.array(128, np.uint8), "a_zp"),
             numpy_helper.from_array(np.array(0, np.int8), "w_zp")]
    node = helper.make_node("MatMulInteger", ["a", "w", "a_zp", "w_zp"], ["y"], name="mmi")
    graph = helper.make_graph([node], "mmi", [helper.make_tensor_value_info("a", TensorProto.UINT8, [m, k])],
                              [helper.make_tensor_value_info("y", TensorProto.INT32, [m, n])],
                              initializer=inits)
    model = helper.make_model(graph, ir_version=9, opset_imports=[helper.make_opsetid("", 13)])
    return model, {"a": rng.integers(0, 256, (m, k), dtype=np.uint8)}


def write_models(argv: list[str], prefix: str, shapes: tuple[tuple[int, int, int], ...],
                 build: Callable[[int, int, int], tuple[onnx.ModelProto, dict[str, np.ndarray]]]) -> int:
    """build(M, K, N) for each shape, saved as OUT/<prefix>_MxKxN.onnx and .npz (OUT: argv[0], or build/)."""
    out = Path(argv[0] if argv else "build")
    out.mkdir(parents=True, exist_ok=True)
    for m, k, n in shapes:
        model, feeds = build(m, k, n)
        stem = out / f"{prefix}_{m}x{k}x{n}"
        onnx.save(model, f"{stem}.onnx")
        np.savez(f"{stem}.npz", **feeds)
        print(f"{stem}.onnx {stem}.npz")
    return 0


def main(argv: list[str]) -> int:
    return write_models(argv, "mmi", SHAPES, matmul_integer_model)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
