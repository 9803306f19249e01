"""Write one-node quantized models at BERT-base shapes, with inputs, for `onemodel bench --model`.

MatMulInteger as `onnxruntime.quantization.quantize_dynamic` writes it: A uint8 (from DynamicQuantizeLinear)
with a scalar uint8 zero point, B a constant int8 weight with a scalar int8 zero point. QuantizeLinear,
DequantizeLinear (per tensor, constant scale and zero point, as `quantize_static` writes them) and
DynamicQuantizeLinear on a 1x128x768 activation. Usage:

    python tools/bench/quant_models.py [OUT_DIR]        (default build/)
    onemodel bench --model build/mmi_128x768x768.onnx --inputs build/mmi_128x768x768.npz --threads 1 --via ep
    onemodel bench --model build/q_u8_1x128x768.onnx --inputs build/q_u8_1x128x768.npz --threads 1 --via ep
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


ACTIVATION = (1, 128, 768)


def qdq_model(op: str, qtype: int) -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    """One QuantizeLinear, DequantizeLinear (per tensor, qtype's zero point) or DynamicQuantizeLinear node
    over a BERT activation."""
    rng = np.random.default_rng(len(op) + qtype)
    x = (rng.standard_normal(ACTIVATION) * 2).astype(np.float32)
    qnp = helper.tensor_dtype_to_np_dtype(qtype)
    inits = [numpy_helper.from_array(np.array(0.0173, np.float32), "s"),
             numpy_helper.from_array(np.array(3, qnp), "z")]
    if op == "DynamicQuantizeLinear":
        inits, ins, outs = [], ["x"], [("y", TensorProto.UINT8), ("y_scale", TensorProto.FLOAT),
                                       ("y_zp", TensorProto.UINT8)]
        x_type = TensorProto.FLOAT
    elif op == "QuantizeLinear":
        ins, outs, x_type = ["x", "s", "z"], [("y", qtype)], TensorProto.FLOAT
    else:
        x = rng.integers(np.iinfo(qnp).min, np.iinfo(qnp).max, ACTIVATION, endpoint=True).astype(qnp)
        ins, outs, x_type = ["x", "s", "z"], [("y", TensorProto.FLOAT)], qtype
    node = helper.make_node(op, ins, [n for n, _ in outs], name="q")
    graph = helper.make_graph([node], "q", [helper.make_tensor_value_info("x", x_type, list(ACTIVATION))],
                              [helper.make_tensor_value_info(n, t, None) for n, t in outs], initializer=inits)
    return helper.make_model(graph, ir_version=9, opset_imports=[helper.make_opsetid("", 13)]), {"x": x}


QDQ_MODELS = {
    "q_u8": ("QuantizeLinear", TensorProto.UINT8),
    "q_i8": ("QuantizeLinear", TensorProto.INT8),
    "dq_u8": ("DequantizeLinear", TensorProto.UINT8),
    "dq_i8": ("DequantizeLinear", TensorProto.INT8),
    "dql": ("DynamicQuantizeLinear", TensorProto.UINT8),
}


def _save(stem: Path, model: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> None:
    onnx.save(model, f"{stem}.onnx")
    np.savez(f"{stem}.npz", **feeds)
    print(f"{stem}.onnx {stem}.npz")


def write_models(argv: list[str], prefix: str, shapes: tuple[tuple[int, int, int], ...],
                 build: Callable[[int, int, int], tuple[onnx.ModelProto, dict[str, np.ndarray]]]) -> int:
    """build(M, K, N) for each shape, saved as OUT/<prefix>_MxKxN.onnx and .npz (OUT: argv[0], or build/)."""
    out = Path(argv[0] if argv else "build")
    out.mkdir(parents=True, exist_ok=True)
    for m, k, n in shapes:
        _save(out / f"{prefix}_{m}x{k}x{n}", *build(m, k, n))
    return 0


def main(argv: list[str]) -> int:
    write_models(argv, "mmi", SHAPES, matmul_integer_model)
    out = Path(argv[0] if argv else "build")
    for name, (op, qtype) in QDQ_MODELS.items():
        _save(out / f"{name}_{'x'.join(map(str, ACTIVATION))}", *qdq_model(op, qtype))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
