"""Write one-node LSTM and RNN models with inputs, for `onemodel bench --model` (docs/recurrent.md's speed
table).

silero-vad's LSTM (input 128, hidden 128, forward, batch 1) at 1, 16 and 64 steps, and a CRNN text
recogniser's (PP-OCR: input 512, bidirectional, hidden 48 and 96, batch 1) at 40 and 80 steps; RNN at
silero-vad's shapes (Tanh, and Relu through `activations`), and an LSTM there with a non-default activation
list; silero-vad's LSTM in double (lstm_f64_*: stock ORT 1.31.1 fails on it, so time it against the float
model's, `tools/bench/rnn_f64_time.py`). W, R and B are initializers, as exporters write them; X, initial_h
and initial_c are inputs. Usage:

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


def lstm_model(t: int, i: int, h: int, direction: str,
               elem: int = TensorProto.FLOAT) -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    """A one-node LSTM of batch 1, element type elem (float or double: the same values, widened)."""
    rng = np.random.default_rng(t * i + h)
    d = 2 if direction == "bidirectional" else 1
    dt = helper.tensor_dtype_to_np_dtype(elem)
    inits = [numpy_helper.from_array((rng.standard_normal(s) * 0.1).astype(np.float32).astype(dt), nm)
             for nm, s in (("w", (d, 4 * h, i)), ("r", (d, 4 * h, h)), ("b", (d, 8 * h)))]
    node = helper.make_node("LSTM", ["x", "w", "r", "b", "", "h0", "c0"], ["y", "yh", "yc"], name="lstm",
                            hidden_size=h, direction=direction)
    ins = [helper.make_tensor_value_info("x", elem, [t, 1, i]),
           helper.make_tensor_value_info("h0", elem, [d, 1, h]),
           helper.make_tensor_value_info("c0", elem, [d, 1, h])]
    outs = [helper.make_tensor_value_info(nm, elem, None) for nm in ("y", "yh", "yc")]
    graph = helper.make_graph([node], "lstm", ins, outs, initializer=inits)
    model = helper.make_model(graph, ir_version=10, opset_imports=[helper.make_opsetid("", 14)])
    feeds = {"x": rng.standard_normal((t, 1, i)).astype(np.float32).astype(dt),
             "h0": (rng.standard_normal((d, 1, h)) * 0.5).astype(np.float32).astype(dt),
             "c0": (rng.standard_normal((d, 1, h)) * 0.5).astype(np.float32).astype(dt)}
    return model, feeds


# RNN and LSTM with activation lists at silero-vad's shapes: (op, seq_length, activations)
ACT_SHAPES = (
    ("RNN", 16, ["Tanh"]),
    ("RNN", 64, ["Tanh"]),
    ("RNN", 64, ["Relu"]),
    ("LSTM", 64, ["HardSigmoid", "Tanh", "Softsign"]),
)


def act_model(op: str, t: int, acts: list[str], i: int = 128, h: int = 128) -> tuple[onnx.ModelProto,
                                                                                      dict[str, np.ndarray]]:
    """A forward RNN or LSTM of batch 1 with the `activations` list acts."""
    rng = np.random.default_rng(t * i + h + len(acts))
    g = 4 if op == "LSTM" else 1
    inits = [numpy_helper.from_array((rng.standard_normal(s) * 0.1).astype(np.float32), nm)
             for nm, s in (("w", (1, g * h, i)), ("r", (1, g * h, h)), ("b", (1, 2 * g * h)))]
    states = ["h0", "c0"] if op == "LSTM" else ["h0"]
    outs = ["y", "yh", "yc"] if op == "LSTM" else ["y", "yh"]
    node = helper.make_node(op, ["x", "w", "r", "b", "", *states], outs, name=op.lower(), hidden_size=h,
                            activations=acts)
    ins = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [t, 1, i])]
    ins += [helper.make_tensor_value_info(nm, TensorProto.FLOAT, [1, 1, h]) for nm in states]
    graph = helper.make_graph([node], op.lower(), ins,
                              [helper.make_tensor_value_info(nm, TensorProto.FLOAT, None) for nm in outs],
                              initializer=inits)
    model = helper.make_model(graph, ir_version=10, opset_imports=[helper.make_opsetid("", 14)])
    feeds = {"x": rng.standard_normal((t, 1, i)).astype(np.float32)}
    feeds.update({nm: (rng.standard_normal((1, 1, h)) * 0.5).astype(np.float32) for nm in states})
    return model, feeds


def main(argv: list[str]) -> int:
    out = Path(argv[0] if argv else "build")
    out.mkdir(parents=True, exist_ok=True)
    for t, i, h, direction in SHAPES:
        _save(out / f"lstm_T{t}_I{i}_H{h}_{direction[:3]}", *lstm_model(t, i, h, direction))
        if i == 128:  # silero-vad's, in double
            _save(out / f"lstm_f64_T{t}_I{i}_H{h}_{direction[:3]}",
                  *lstm_model(t, i, h, direction, TensorProto.DOUBLE))
    for op, t, acts in ACT_SHAPES:
        name = f"{op.lower()}_T{t}_I128_H128_{'_'.join(a.lower() for a in acts)}"
        _save(out / name, *act_model(op, t, acts))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
