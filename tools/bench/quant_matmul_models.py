"""Write one-node quantized matrix products with a float step at BERT-base shapes, with inputs, for
`onemodel bench --model` (docs/quantized-matmul.md).

com.microsoft MatMulIntegerToFloat and DynamicQuantizeMatMul as ONNX Runtime's fusions leave
`quantize_dynamic`'s graph (A uint8 with a scalar zero point, or float A quantized in the node; B a constant
int8 weight, a scalar scale, a float bias of N), ONNX QLinearMatMul (uint8 a, int8 b, uint8 y, per-tensor
parameters) and com.microsoft QGemm as quantize_static writes it (uint8 A, int8 B [N, K] with transB, an int32
C of N, uint8 Y). Usage:

    python tools/bench/quant_matmul_models.py [OUT_DIR]        (default build/)
    onemodel bench --model build/mitf_128x768x768.onnx --inputs build/mitf_128x768x768.npz --threads 1 \
        --via ep
"""

from __future__ import annotations

import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from quant_models import write_models  # tools/bench, beside this script

SHAPES = ((128, 768, 768), (128, 768, 3072))  # M, K, N
MS = "com.microsoft"


def _model(op: str, m: int, k: int, n: int) -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    rng = np.random.default_rng(m * k + n + len(op))
    w = rng.integers(-128, 128, (k, n), dtype=np.int8)
    f32 = lambda v: np.asarray(v, np.float32)  # noqa: E731
    u8, fl = TensorProto.UINT8, TensorProto.FLOAT
    consts: dict[str, np.ndarray] = {"w": w, "w_s": f32(0.0021), "w_zp": np.array(0, np.int8)}
    if op == "MatMulIntegerToFloat":
        consts.update(a_s=f32(0.0173), a_zp=np.array(128, np.uint8), bias=f32(rng.standard_normal(n)))
        ins, a_type, y_type = ["a", "w", "a_s", "w_s", "a_zp", "w_zp", "bias"], u8, fl
        a = rng.integers(0, 256, (m, k), dtype=np.uint8)
    elif op == "DynamicQuantizeMatMul":
        consts.update(bias=f32(rng.standard_normal(n)))
        ins, a_type, y_type = ["a", "w", "w_s", "w_zp", "bias"], fl, fl
        a = f32(rng.standard_normal((m, k)) * 2)
    elif op == "QGemm":
        consts.update(w=np.ascontiguousarray(w.T), a_s=f32(0.0173), a_zp=np.array(128, np.uint8),
                      c=rng.integers(-20000, 20000, n).astype(np.int32), y_s=f32(0.9),
                      y_zp=np.array(120, np.uint8))
        ins, a_type, y_type = ["a", "a_s", "a_zp", "w", "w_s", "w_zp", "c", "y_s", "y_zp"], u8, u8
        a = rng.integers(0, 256, (m, k), dtype=np.uint8)
    else:  # QLinearMatMul
        consts.update(a_s=f32(0.0173), a_zp=np.array(128, np.uint8), y_s=f32(0.9),
                      y_zp=np.array(120, np.uint8))
        ins, a_type, y_type = ["a", "a_s", "a_zp", "w", "w_s", "w_zp", "y_s", "y_zp"], u8, u8
        a = rng.integers(0, 256, (m, k), dtype=np.uint8)
    attrs = {"transB": 1} if op == "QGemm" else {}
    node = helper.make_node(op, ins, ["y"], name="qmm", domain="" if op == "QLinearMatMul" else MS, **attrs)
    graph = helper.make_graph([node], "qmm", [helper.make_tensor_value_info("a", a_type, [m, k])],
                              [helper.make_tensor_value_info("y", y_type, [m, n])],
                              initializer=[numpy_helper.from_array(v, key) for key, v in consts.items()])
    imports = [helper.make_opsetid("", 13), helper.make_opsetid(MS, 1)]
    return helper.make_model(graph, ir_version=9, opset_imports=imports), {"a": a}


MODELS = {"mitf": "MatMulIntegerToFloat", "dqmm": "DynamicQuantizeMatMul", "qlmm": "QLinearMatMul",
          "qgemm": "QGemm"}


def main(argv: list[str]) -> int:
    for prefix, op in MODELS.items():
        write_models(argv, prefix, SHAPES, lambda m, k, n, op=op: _model(op, m, k, n))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
