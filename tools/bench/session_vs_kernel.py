"""Where a one-node session's time goes: stock ORT's node, our exact node and our kernel called directly.

    python tools/bench/session_vs_kernel.py Tanh 16M            # 30 rounds, one intra-op thread
    python tools/bench/session_vs_kernel.py Gelu 1M --rounds 100

The same model and inputs as `onemodel bench` (one node, uniform inputs). Each round runs the three once, in
turn: `session.run` of the stock model, `session.run` of the rewritten (exact) model, and the library's node
on the same input array into one preallocated output array, with no thread pool (`Node.run(x, out=...)`: the
kernel and its chunk loop, none of ORT's per-call work, no output allocation). Prints each one's median
and best elements per second. The difference between the last two is what the session path costs (ORT's
custom-op call, the output allocation, the copy back to NumPy); between the first two, the ratio the bench
reports.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import numpy as np
from onnx import TensorProto

from onemodel_ep import bench
from onemodel_ep.node import Node
from onemodel_ep.rewriter import rewrite


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("op", help="a unary f32 operator of the bench: Exp, Tanh, Sigmoid, Erf, Gelu, ...")
    ap.add_argument("size", help="elements: 1K, 64K, 1M, 16M or a number")
    ap.add_argument("--rounds", type=int, default=30)
    args = ap.parse_args()
    n = bench.SIZES.get(args.size) or int(args.size)
    model, ins = bench._model(args.op, TensorProto.FLOAT)
    if len(ins) != 1:
        ap.error(f"{args.op} has {len(ins)} inputs; this tool times unary operators")
    x = bench._inputs(ins, n, args.op, np.random.default_rng(0))["x"]
    feeds = {"x": x}
    ours = bench._session(rewrite(model, mode="exact"), 1, True)
    stock = bench._session(model, 1, False)
    node = Node(args.op, [TensorProto.FLOAT], onnx_opset=20, mode="exact")
    out = np.zeros_like(x)

    def kernel() -> None:
        node.run(x, out=out)  # no thread pool: the chunks run here, in order

    runs: dict[str, Callable[[], object]] = {
        "stock ORT session": lambda: stock.run(None, feeds),
        "exact session": lambda: ours.run(None, feeds),
        "exact kernel, direct": kernel,
    }
    times: dict[str, list[float]] = {k: [] for k in runs}
    for f in runs.values():
        for _ in range(3):
            f()
    for _ in range(args.rounds):
        for k, f in runs.items():
            t = time.perf_counter()
            f()
            times[k].append(time.perf_counter() - t)
    if not np.array_equal(out.view(np.uint32), ours.run(None, feeds)[0].view(np.uint32)):
        raise SystemExit("the direct kernel and the session disagree")
    for k, ts in times.items():
        med, best = n / statistics.median(ts) / 1e9, n / min(ts) / 1e9
        print(f"{args.op} {n} {k:22s} median {med:.3f} G/s, best {best:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
