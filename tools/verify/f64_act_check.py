"""The correctly rounded binary64 Sigmoid and Tanh (provider/csrc/math/om_f64_act.h) against MPFR.

    ONEMODEL_TEST_ENTRIES=1 build, then
    PYTHONPATH=$PWD nice python tools/verify/f64_act_check.py --count 10000000            # the functions
    PYTHONPATH=$PWD nice python tools/verify/f64_act_check.py --count 1000000 --force-mp 1  # their fallback

Inputs: tests/reference/f64_act.py's `inputs` (every binade and threshold that matters for each function,
both signs), or with --edges its `fast_pass_edges` (the fast pass's internal switches), drawn in chunks from
--seed; --count per function. Prints the counts, the mismatches (at most 10 per function) and the fallback's
cap hits; exits 1 on any mismatch or cap hit. The result, command, commit and
date go into docs/exact-transcendentals.md ("binary64 Sigmoid and Tanh").
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from tests.reference.f64_act import FUNCS, cap_hits, fast_pass_edges, inputs, mismatches, native, reference

CHUNK = 100_000


def check(name: str, count: int, seed: int, force_mp: int, edges: bool) -> int:
    rng = np.random.default_rng(seed)
    done, bad, t0 = 0, 0, time.perf_counter()
    while done < count:
        x = fast_pass_edges(name, rng, CHUNK // 5) if edges else inputs(name, rng, CHUNK // 10)
        x = x[: count - done]
        got, want = native(name, x, force_mp), reference(name, x)
        found = mismatches(x, got, want)
        bad += int(np.count_nonzero(got.view(np.uint64) != want.view(np.uint64)))
        for m in found:
            print(f"{name}: MISMATCH x={m[0]!r} got={m[1]!r} want={m[2]!r}", flush=True)
        done += x.size
    print(
        f"{name}: {done} inputs{' (edges)' if edges else ''}, {bad} mismatches, force_mp={force_mp}, "
        f"{time.perf_counter() - t0:.0f} s",
        flush=True,
    )
    return bad


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", type=int, default=1_000_000, help="inputs per function")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument(
        "--force-mp",
        type=int,
        default=0,
        help="0: the functions; j: the fallback from 64*2^j bits; -1: the double-double pass on",
    )
    ap.add_argument("--only", choices=sorted(FUNCS), help="one function only")
    ap.add_argument("--edges", action="store_true", help="fast_pass_edges' inputs instead of inputs'")
    args = ap.parse_args()
    names = [args.only] if args.only else sorted(FUNCS)
    bad = sum(check(n, args.count, args.seed + i, args.force_mp, args.edges) for i, n in enumerate(names))
    caps = cap_hits()
    print(f"total mismatches {bad}, cap hits {caps}")
    return 1 if bad or caps else 0


if __name__ == "__main__":
    sys.exit(main())
