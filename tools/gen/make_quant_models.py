"""Writes the quantized test models of issue 37 with ONNX Runtime's own quantizer, from the float test
models:

- testdata/models/bert_tiny_dynq.onnx: `quantize_dynamic(bert_tiny, weight_type=QInt8)`
  (DynamicQuantizeLinear, MatMulInteger, Cast, Mul: what quantize_dynamic writes; ORT fuses it into
  MatMulIntegerToFloat at level 2 for the nodes it keeps).
- testdata/models/resnet18_small_qdq.onnx: `quantize_static(resnet18_small)` in QDQ format (QuantizeLinear /
  DequantizeLinear around every Conv, Add and Gemm; ORT fuses them into QLinearConv at level 2 for the nodes
  it keeps), uint8 activations, int8 weights per channel.
- testdata/quant/resnet18_small_qop.onnx: the same in QOperator format (QLinearConv, com.microsoft QLinearAdd
  and QGemm).
- testdata/models/bert_tiny_qdq.onnx, testdata/quant/bert_tiny_qop.onnx: `quantize_static(bert_tiny)` in both
  formats, same settings (the QOperator one with QLinearMatMul, com.microsoft QLinearAdd, QLinearMul,
  QLinearSoftmax and QGemm; LayerNormalization, Erf, Tanh stay float between DequantizeLinear and
  QuantizeLinear).

    /work/toolvenv/bin/pip install onnxruntime sympy
    /work/toolvenv/bin/python tools/gen/make_quant_models.py

Run by hand, never in CI. Calibration, MinMax, numpy seed 20261203: 8 images of standard normal values; 8
BERT inputs, input_ids int64 [1, 16] in 0..99 and attention_mask ones (token_type_ids, if any, zeros).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import onnx
from onnxruntime.quantization import (
    CalibrationDataReader,
    QuantFormat,
    QuantType,
    quantize_dynamic,
    quantize_static,
)
from onnxruntime.quantization.shape_inference import quant_pre_process

ROOT = Path(__file__).resolve().parents[2]
MODELS = ROOT / "testdata" / "models"
QUANT = ROOT / "testdata" / "quant"
SEED = 20261203


class Images(CalibrationDataReader):
    """Eight fixed images of standard normal values, as the CNN test models take them."""

    def __init__(self) -> None:
        rng = np.random.default_rng(SEED)
        self.feeds = iter([{"pixel_values": rng.standard_normal((1, 3, 64, 64)).astype(np.float32)}
                           for _ in range(8)])

    def get_next(self) -> dict[str, np.ndarray] | None:
        return next(self.feeds, None)


class Tokens(CalibrationDataReader):
    """Eight fixed BERT inputs: input_ids [1, 16] in 0..99, the attention mask ones."""

    def __init__(self, model: onnx.ModelProto) -> None:
        rng = np.random.default_rng(SEED)
        names = [i.name for i in model.graph.input]
        self.feeds = iter([{n: (np.ones((1, 16), np.int64) if "mask" in n else
                                np.zeros((1, 16), np.int64) if "type" in n else
                                rng.integers(0, 100, (1, 16)).astype(np.int64)) for n in names}
                           for _ in range(8)])

    def get_next(self) -> dict[str, np.ndarray] | None:
        return next(self.feeds, None)


def bert_static(tool: str) -> list[Path]:
    """bert_tiny quantized statically, QDQ and QOperator."""
    outs = [MODELS / "bert_tiny_qdq.onnx", QUANT / "bert_tiny_qop.onnx"]
    with tempfile.TemporaryDirectory(prefix="quant_") as tmp:
        pre = Path(tmp) / "bert_pre.onnx"
        quant_pre_process(str(MODELS / "bert_tiny.onnx"), str(pre))
        for fmt, out in zip((QuantFormat.QDQ, QuantFormat.QOperator), outs, strict=True):
            quantize_static(str(pre), str(out), Tokens(onnx.load(str(pre))), quant_format=fmt,
                            activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8, per_channel=True)
            strip(out, tool)
    return outs


def strip(path: Path, tool: str) -> None:
    m = onnx.load(str(path))
    m.producer_name = tool
    del m.metadata_props[:]
    onnx.checker.check_model(m, full_check=True)
    onnx.save(m, str(path))


def main() -> None:
    tool = "tools/gen/make_quant_models.py"
    QUANT.mkdir(parents=True, exist_ok=True)
    dyn = MODELS / "bert_tiny_dynq.onnx"
    quantize_dynamic(str(MODELS / "bert_tiny.onnx"), str(dyn), weight_type=QuantType.QInt8)
    strip(dyn, tool)
    with tempfile.TemporaryDirectory(prefix="quant_") as tmp:
        pre = Path(tmp) / "resnet_pre.onnx"
        quant_pre_process(str(MODELS / "resnet18_small.onnx"), str(pre))
        for fmt, out in ((QuantFormat.QDQ, MODELS / "resnet18_small_qdq.onnx"),
                         (QuantFormat.QOperator, QUANT / "resnet18_small_qop.onnx")):
            quantize_static(str(pre), str(out), Images(), quant_format=fmt, activation_type=QuantType.QUInt8,
                            weight_type=QuantType.QInt8, per_channel=True)
            strip(out, tool)
    bert = bert_static(tool)
    for p in (dyn, MODELS / "resnet18_small_qdq.onnx", QUANT / "resnet18_small_qop.onnx", *bert):
        print(f"wrote {p} ({p.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
