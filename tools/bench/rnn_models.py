"""Write one-node LSTM models with inputs, for `onemodel bench --model` (docs/recurrent.md's speed table).

silero-vad's LSTM (input 128, hidden 128, forward, batch 1) at 1, 16 and 64 steps, and a CRNN text
recogniser's (PP-OCR: input 512, bidirectional, hidden 48 and 96, batch 1) at 40 and 80 steps. W, R and B are
initializers, as exporters write them; X, initial_h and initial_c are inputs. Usage:

    python tools/bench/rnn_models.py [OUT_DIR]        (default build/)
    onemodel bench --model build/lstm_T64_I128_H128_fwd.onnx --inputs build/lstm_T64_I128_H128_fwd.npz \
        --threads 1
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from quant_models import _save  # tools/bench, beside this script

# (seq_length, input_size, hidden_size, direction)
SHAPES = (
    (1, 128, 128, "forward"),
    (16, 128, 128, "forward"),
    (64, 128, 128, "forward"),
    (40, 512, 48, "bidirectional"),
    (80, 512, 48, "bidirectional"),
    (40, 512, 96, "bidirectional"),
    (80, 512, 96, "bidirectional"),
)


def lstm_model(t: int, i: int, h: int, direction: str) -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    rng = np.random.default_rng(t * i + h)
    d = 2 if direction == "bidirectional" else 1
    inits = [numpy_helper.from_array((rng.standard_normal(s) * 0.1).astype(np.float32), nm)
             for nm, s in (("w", (d, 4 * h, i)), ("r", (d, 4 * h, h)), ("b", (d, 8 * h)))]
    node = helper.make_node("LSTM", ["x", "w", "r", "b", "", "h0", "c0"], ["y", "yh", "yc"], name="lstm",
                            hidden_size=h, direction=direction)
    ins = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [t, 1, i]),
           helper.make_tensor_value_info("h0", TensorProto.FLOAT, [d, 1, h]),
           helper.make_tensor_value_info("c0", TensorProto.FLOAT, [d, 1, h])]
    outs = [helper.make_tensor_value_info(nm, TensorProto.FLOAT, None) for nm in ("y", "yh", "yc")]
    graph = helper.make_graph([node], "lstm", ins, outs, initializer=inits)
    model = helper.make_model(graph, ir_version=10, opset_imports=[helper.make_opsetid("", 14)])
    feeds = {"x": rng.standard_normal((t, 1, i)).astype(np.float32),
             "h0": (rng.standard_normal((d, 1, h)) * 0.5).astype(np.float32),
             "c0": (rng.standard_normal((d, 1, h)) * 0.5).astype(np.float32)}
    return model, feeds


def main(argv: list[str]) -> int:
    out = Path(argv[0] if argv else "build")
    out.mkdir(parents=True, exist_ok=True)
    for t, i, h, direction in SHAPES:
        _save(out / f"lstm_T{t}_I{i}_H{h}_{direction[:3]}", *lstm_model(t, i, h, direction))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
