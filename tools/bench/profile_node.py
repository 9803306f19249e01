"""Time one one-node session in a loop, for profilers: the same model and inputs as `onemodel bench`.

    python tools/bench/profile_node.py Exp 64K fast                 # median session.run time
    perf record -D 3000 -g python tools/bench/profile_node.py Exp 64K exact --runs 100000
    perf report --no-children --sort dso,sym -g none           # share of the kernel in a call

`ort` instead of a mode times stock ORT's node; `--path 256` forces our kernel path. Prints the median time
per call and elements per second.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
from onnx import TensorProto

from onemodel_ep import bench
from onemodel_ep.rewriter import rewrite


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("op")
    ap.add_argument("size", help="elements: 1K, 64K, 1M, 16M or a number")
    ap.add_argument("mode", choices=["exact", "fast", "ort"])
    ap.add_argument("--threads", type=int, default=1, help="intra-op threads (0: ORT's default)")
    ap.add_argument("--runs", type=int, default=2000)
    ap.add_argument("--path", default=None, help="force our kernel path: 512, 256, 128 or scalar")
    args = ap.parse_args()
    n = bench.SIZES.get(args.size) or int(args.size)
    model, ins = bench._model(args.op, TensorProto.FLOAT)
    feeds = bench._inputs(ins, n, args.op, np.random.default_rng(0))
    if args.mode == "ort":
        sess = bench._session(model, args.threads, False)
    else:
        sess = bench._session(rewrite(model, mode=args.mode, kernel_path=args.path), args.threads, True)
    for _ in range(10):
        sess.run(None, feeds)
    times = []
    for _ in range(args.runs):
        t = time.perf_counter()
        sess.run(None, feeds)
        times.append(time.perf_counter() - t)
    med = statistics.median(times)
    rate = n / med / 1e9
    print(f"{args.op} {n} {args.mode} threads={args.threads}: median {med * 1e6:.1f} us, {rate:.3f} G/s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
