"""A/B of two builds of the GEMM kernel (e.g. main against a branch), one thread, interleaved by process.

Each round runs a worker per build (alternating which goes first) that times om_test_gemm (f32, row-major A,
B read in place or packed per task, as om_gemm does for a B that is an input) at every shape: the best of
`--reps` calls after a warm-up. The report is, per shape, the median over rounds of each build's time and
of the ratio new/old. Both builds need ONEMODEL_TEST_ENTRIES=1.

    python tools/bench/gemm_order_ab.py --old /tmp/main-build --new . [--rounds 15] [--path 0]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

SHAPES = [
    "128x768x768", "128x768x3072", "128x3072x768", "512x768x768", "128x384x384", "128x384x1536",
    "128x1536x384", "128x128x512", "128x512x128", "128x64x128",
]


def worker(shapes: list[str], path: int, reps: int) -> dict[str, float]:
    import numpy as np

    from onemodel_ep._lib import ffi, native_test_entry

    gemm = native_test_entry("om_test_gemm")
    rng = np.random.default_rng(0)
    out: dict[str, float] = {}
    for s in shapes:
        m, k, n = (int(x) for x in s.split("x"))
        a = rng.standard_normal((m, k)).astype(np.float32)
        b = rng.standard_normal((k, n)).astype(np.float32)
        c = np.empty((m, n), np.float32)
        off = np.zeros(1, np.int64)
        ptr = lambda x: ffi.cast("void *", x.ctypes.data)  # noqa: E731
        offp = ffi.cast("int64_t *", off.ctypes.data)
        args = (path, 1, 0, 1, m, n, k, ptr(a), k, 1, offp, ptr(b), n, 1, offp, 0, 1.0, 1.0, ffi.NULL, 0, 0,
                ptr(c), n, m * n, 1)
        best = float("inf")
        for r in range(reps + 2):
            t = time.perf_counter()
            if gemm(*args) != 0:
                raise RuntimeError(f"om_test_gemm failed at {s}")
            if r >= 2:
                best = min(best, time.perf_counter() - t)
        out[s] = best
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", required=True, help="root of the old build (onemodel_ep/_native*.so inside)")
    ap.add_argument("--new", required=True)
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--path", type=int, default=0, help="kernel path index (0: 512)")
    ap.add_argument("--shapes", nargs="+", default=SHAPES)
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(args.shapes, args.path, args.reps)))
        return 0
    times: dict[str, dict[str, list[float]]] = {"old": {}, "new": {}}
    for r in range(args.rounds):
        order = ["old", "new"] if r % 2 == 0 else ["new", "old"]
        for which in order:
            root = os.path.abspath(getattr(args, which))
            env = dict(os.environ, PYTHONPATH=root, OMP_NUM_THREADS="1")
            cmd = [sys.executable, os.path.abspath(__file__), "--worker", "--old", "-", "--new", "-",
                   "--reps", str(args.reps), "--path", str(args.path), "--shapes", *args.shapes]
            res = json.loads(subprocess.run(cmd, env=env, cwd=root, check=True, capture_output=True,
                                            text=True).stdout)
            for s, t in res.items():
                times[which].setdefault(s, []).append(t)
    print(f"{'shape (MxKxN)':>14} {'old us':>9} {'new us':>9} {'new/old':>8} {'ratio q1..q3':>14}")
    for s in args.shapes:
        old, new = times["old"][s], times["new"][s]
        ratios = sorted(n / o for o, n in zip(old, new))
        q = statistics.quantiles(ratios, n=4) if len(ratios) > 1 else [ratios[0]] * 3
        print(f"{s:>14} {statistics.median(old) * 1e6:>9.1f} {statistics.median(new) * 1e6:>9.1f} "
              f"{statistics.median(ratios):>8.3f} {q[0]:>6.3f}..{q[2]:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
