"""Do per-session thread pools distort the pooled cells of the bench? (docs/performance.md)

K pairs of one-node sessions (stock ORT, exact), ORT's default intra-op thread count, take turns in blocks of
about 20 ms (the bench's BLOCK_S; the first quarter of each block not counted), either each with its own pool
(ORT's default) or all on the process's global intra-op pool (what `onemodel bench` uses for its pooled rows):

    python tools/verify/pool_check.py session Sqrt 64K 3    # a pool per session
    python tools/verify/pool_check.py global Sqrt 64K 3     # one global pool

Prints, per session, the median microseconds per run over all blocks and the range of the per-block medians.
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
    mode, op, size = sys.argv[1], sys.argv[2], sys.argv[3]
    pairs = int(sys.argv[4]) if len(sys.argv) > 4 else 3
    if mode not in ("session", "global"):
        print("mode must be 'session' or 'global'", file=sys.stderr)
        return 2
    if mode == "global":
        ort.set_global_thread_pool_sizes(0, 1)  # before the first session creates ORT's environment
    n = bench.SIZES[size]
    model, ins = bench._model(op, TensorProto.FLOAT)
    feeds = bench._inputs(ins, n, op, np.random.default_rng(0))
    exact = rewrite(model, mode="exact")

    def make(m: onnx.ModelProto, ours: bool) -> ort.InferenceSession:
        so = ort.SessionOptions()
        if mode == "global":
            so.use_per_session_threads = False
        else:
            so.intra_op_num_threads = 0
        so.log_severity_level = 3
        if ours:
            so = session_options(so)
        return ort.InferenceSession(m.SerializeToString(), so, providers=["CPUExecutionProvider"])

    sessions: dict[str, ort.InferenceSession] = {}
    for k in range(pairs):
        sessions[f"ORT{k}"] = make(model, False)
        sessions[f"exact{k}"] = make(exact, True)
    blocks: dict[str, list[list[float]]] = {name: [] for name in sessions}
    for _ in range(25):
        for name, s in sessions.items():
            end = time.perf_counter() + bench.BLOCK_S
            ts: list[float] = []
            while time.perf_counter() < end:
                t = time.perf_counter()
                s.run(None, feeds)
                ts.append(time.perf_counter() - t)
            blocks[name].append(ts[len(ts) // 4 :])
    print(f"{op} {size}, {mode} pools, microseconds a run: median over all blocks [range of block medians]")
    for name, bl in blocks.items():
        med = statistics.median(t for b in bl for t in b) * 1e6
        per = [statistics.median(b) * 1e6 for b in bl]
        print(f"  {name:7s} {med:6.1f}  [{min(per):.1f}, {max(per):.1f}]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
