"""OneModel's double LSTM against its float one and stock ORT's float one, in thread CPU time (stock ORT
1.31.1 fails on a double LSTM: "LSTM operator does not support double yet": there is no stock double to time).

    python tools/bench/rnn_models.py /tmp/rnn
    python tools/bench/rnn_f64_time.py /tmp/rnn/lstm_f64_T64_I128_H128_fwd.onnx [more f64 models] [--rounds 5]

For each lstm_f64_<rest>.onnx the float model lstm_<rest>.onnx beside it is timed too; inputs from the .npz
beside each. One intra-op thread, via the EP, exact mode; per round stock float, ours float, ours double, each
for `--seconds` of this thread's CPU time (model_cpu_time.per_run_ms); the minimum over rounds. One JSON line
per model. Timings are for docs and notes, never for tests.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import onnxruntime as ort
from model_cpu_time import _options, per_run_ms  # tools/bench, beside this script

import onemodel_ep


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("models", nargs="+", type=Path)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=0.3)
    args = ap.parse_args()
    for path in args.models:
        f32 = path.with_name(path.name.replace("lstm_f64_", "lstm_"))
        so = onemodel_ep.ep_session_options(base=_options())
        runs = [(ort.InferenceSession(str(f32), _options(), providers=["CPUExecutionProvider"]), f32),
                (ort.InferenceSession(str(f32), so), f32), (ort.InferenceSession(str(path), so), path)]
        feeds = {p: dict(np.load(p.with_suffix(".npz"))) for p in (f32, path)}
        times: list[list[float]] = [[] for _ in runs]
        for _ in range(args.rounds):
            for k, (sess, p) in enumerate(runs):
                times[k].append(per_run_ms(sess, feeds[p], args.seconds))
        s, o32, o64 = (min(t) for t in times)
        print(json.dumps({"model": path.stem, "stock_f32_ms": round(s, 3), "ours_f32_ms": round(o32, 3),
                          "ours_f64_ms": round(o64, 3), "f64_over_stock_f32": round(o64 / s, 3),
                          "f64_over_ours_f32": round(o64 / o32, 3)}))


if __name__ == "__main__":
    main()
