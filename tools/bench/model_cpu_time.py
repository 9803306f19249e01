"""Stock ORT against OneModel EP on whole models, in thread CPU time: robust on a shared, loaded machine.

    python tools/bench/model_cpu_time.py build/mnb_1x4096x4096.onnx [more.onnx ...] [--rounds 5]

Each model's inputs are the .npz beside it (same stem). One intra-op thread each; per round, stock runs for
`--seconds` of this thread's CPU time (`time.thread_time`), then ours, alternating; a model's time is the
minimum over rounds of the mean per run (`--seconds`, default 0.3). Ours is the model with its constant
nodes folded by OneModel's kernels first (as `onemodel_ep.InferenceSession` does; `--ep-fold`: the model as it
is, in a plain session over `ep_session_options`, whose EP folds the constant groups itself; `--no-fold`: the
model as it is, with the EP's folding off too, EP option fold="0").
Time the process spends descheduled by other jobs is not counted, so the ratio reflects the kernels, not the
load (cache sharing with other jobs still moves it). `--unfused` adds a third session, ours with fuse="0"
(every node on its own), to the same interleaving, and its time and fused_over_unfused to the line. Prints
one JSON line per model. Timings are for docs and notes, never for tests.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import onnxruntime as ort

import onemodel_ep
from onemodel_ep.fold import fold


def _options() -> ort.SessionOptions:
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    return so


def per_run_ms(sess: Any, feeds: dict[str, np.ndarray], seconds: float) -> float:
    """Thread CPU milliseconds per sess.run, after one warm-up run, over at least `seconds` (the other benches
    of tools/bench/ use it too)."""
    sess.run(None, feeds)
    t0, n = time.thread_time(), 0
    while time.thread_time() - t0 < seconds:
        sess.run(None, feeds)
        n += 1
    return (time.thread_time() - t0) / n * 1e3


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("models", nargs="+", type=Path)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=0.3)
    ap.add_argument("--no-fold", action="store_true", help='ours unfolded (and EP option fold="0")')
    ap.add_argument("--ep-fold", action="store_true", help="ours on the model as it is: the EP folds it")
    ap.add_argument("--unfused", action="store_true", help='also time ours with fuse="0"')
    args = ap.parse_args()
    for path in args.models:
        feeds = dict(np.load(path.with_suffix(".npz")))
        stock = ort.InferenceSession(str(path), _options(), providers=["CPUExecutionProvider"])
        model = onnx.load(str(path))
        if not (args.no_fold or args.ep_fold):  # as onemodel_ep.InferenceSession, `onemodel bench --model`
            model = fold(model, mode="exact")
        blob = model.SerializeToString()
        so = onemodel_ep.ep_session_options(base=_options(), fold=not args.no_fold)
        ours = ort.InferenceSession(blob, so)
        sessions = [stock, ours]
        if args.unfused:
            so = onemodel_ep.ep_session_options(base=_options(), fuse=False, fold=not args.no_fold)
            sessions.append(ort.InferenceSession(blob, so))
        times: list[list[float]] = [[] for _ in sessions]
        for _ in range(args.rounds):
            for i, sess in enumerate(sessions):
                times[i].append(per_run_ms(sess, feeds, args.seconds))
        s, o = min(times[0]), min(times[1])
        line = {"model": path.stem, "stock_ms": round(s, 3), "ours_ms": round(o, 3)}
        line["ours_over_stock"] = round(o / s, 3)
        if args.unfused:
            u = min(times[2])
            line.update({"unfused_ms": round(u, 3), "fused_over_unfused": round(o / u, 3)})
        print(json.dumps(line), flush=True)


if __name__ == "__main__":
    main()
