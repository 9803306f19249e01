"""Does taking turns between sessions with thread pools distort their timings? (docs/performance.md)

Three one-node sessions (stock ORT, exact, fast), ORT's default intra-op thread count, timed alone, run by
run in turn, and in turn by blocks of 5 and 20 runs (the first run of a block not counted), with ORT's pool
spinning on (its default) or off:

    python tools/verify/spin_check.py 1 Tanh        # spinning on
    python tools/verify/spin_check.py 0 Tanh        # spinning off

Prints G elements/s for ORT, exact and fast, each the median of about 60 runs.
"""

from __future__ import annotations

import statistics
import sys
import time

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto

from onemodel_ep import bench, session_options
from onemodel_ep.rewriter import rewrite


def main() -> int:
    spin, op = sys.argv[1], sys.argv[2]
    n = bench.SIZES.get(sys.argv[3], 1 << 20) if len(sys.argv) > 3 else 1 << 20
    model, ins = bench._model(op, TensorProto.FLOAT)
    feeds = bench._inputs(ins, n, op, np.random.default_rng(0))

    def make(m: onnx.ModelProto, ours: bool) -> ort.InferenceSession:
        so = ort.SessionOptions()
        so.intra_op_num_threads = 0
        so.log_severity_level = 3
        so.add_session_config_entry("session.intra_op.allow_spinning", spin)
        if ours:
            so = session_options(so)
        return ort.InferenceSession(m.SerializeToString(), so, providers=["CPUExecutionProvider"])

    sessions = [
        make(model, False),
        make(rewrite(model, mode="exact"), True),
        make(rewrite(model, mode="fast"), True),
    ]
    for s in sessions:
        for _ in range(3):
            s.run(None, feeds)
    for label, block in (("alone", 0), ("run by run", 1), ("blocks of 5", 5), ("blocks of 20", 20)):
        times: list[list[float]] = [[] for _ in sessions]
        if block == 0:
            for k, s in enumerate(sessions):
                for _ in range(60):
                    t = time.perf_counter()
                    s.run(None, feeds)
                    times[k].append(time.perf_counter() - t)
        else:
            for _ in range(max(3, 60 // block)):
                for k, s in enumerate(sessions):
                    for j in range(block):
                        t = time.perf_counter()
                        s.run(None, feeds)
                        dt = time.perf_counter() - t
                        if j > 0 or block == 1:
                            times[k].append(dt)
        rates = " / ".join(f"{n / statistics.median(ts) / 1e9:.2f}" for ts in times)
        print(f"{op} {n} spinning={spin} {label}: ORT / exact / fast {rates} G/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
