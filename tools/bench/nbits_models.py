"""Write one-node com.microsoft MatMulNBits models at LLM shapes, with inputs, for `onemodel bench --model`.

As ONNX Runtime GenAI's builder writes them: A f32 [M, K], B int4 in blocks of 32 with packed uint8 zero
points (asymmetric), scales f32, all initializers: mnb_* at accuracy_level 0 (stock ORT's f32 path), mnb4_* at
level 4 (both quantize A to int8 per block: docs/quantized.md's int8 contract). Decode M = 1, 4, 16 and
prefill M = 128 at K = N = 2048 and 4096. Usage:

    python tools/bench/nbits_models.py [OUT_DIR]        (default build/)
    onemodel bench --model build/mnb_1x4096x4096.onnx --inputs build/mnb_1x4096x4096.npz --threads 1 --via ep
"""

from __future__ import annotations

import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from quant_models import write_models  # tools/bench, beside this script

SHAPES = tuple((m, kn, kn) for kn in (2048, 4096) for m in (1, 4, 16, 128))  # M, K, N
BITS, BLOCK = 4, 32


def matmul_nbits_model(m: int, k: int, n: int,
                       level: int = 0) -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    rng = np.random.default_rng(m * k + n)
    kb = (k + BLOCK - 1) // BLOCK
    b = rng.integers(0, 256, (n, kb, BLOCK * BITS // 8), dtype=np.uint8)
    scales = (rng.standard_normal(n * kb) * 0.01).astype(np.float32)
    zp = rng.integers(0, 256, n * ((kb * BITS + 7) // 8), dtype=np.uint8)
    inits = [numpy_helper.from_array(b, "b"), numpy_helper.from_array(scales, "scales"),
             numpy_helper.from_array(zp, "zp")]
    node = helper.make_node("MatMulNBits", ["a", "b", "scales", "zp"], ["y"], name="mnb",
                            domain="com.microsoft", K=k, N=n, bits=BITS, block_size=BLOCK,
                            accuracy_level=level)
    graph = helper.make_graph([node], "mnb", [helper.make_tensor_value_info("a", TensorProto.FLOAT, [m, k])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [m, n])],
                              initializer=inits)
    model = helper.make_model(graph, ir_version=10, opset_imports=[helper.make_opsetid("", 17),
                                                                   helper.make_opsetid("com.microsoft", 1)])
    return model, {"a": rng.standard_normal((m, k)).astype(np.float32)}


def main(argv: list[str]) -> int:
    write_models(argv, "mnb", SHAPES, matmul_nbits_model)
    return write_models(argv, "mnb4", SHAPES, lambda m, k, n: matmul_nbits_model(m, k, n, 4))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
