"""MatMul speed: stock ORT (MLAS) against OneModel EP's exact kernel, one-node sessions in one process.

Each shape is a one-node MatMul model, A [batch..., M, K] an input and B [K, N] an initializer (so both
runtimes pack it once, at session creation), or for the batched case B an input too. The sessions take turns
(onemodel_ep.bench's interleaving: run by run with one thread, in blocks on a pool); a ratio is the median
over rounds of stock time / our time, so > 1 means we are faster.

    python tools/bench/gemm_bench.py [--threads 1 2] [--budget 3] [--mode exact] [--shapes 128x384x384 ...]

Shapes are MxKxN or BxMxKxN (batched, both operands inputs).
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from onemodel_ep.bench import _session, _time_interleaved
from onemodel_ep.rewriter import RewriteReport, rewrite

DEFAULT_SHAPES = ["128x384x384", "128x384x1536", "128x1536x384", "12x64x64x64"]


def parse_shape(s: str) -> tuple[int, int, int, int]:
    parts = [int(x) for x in s.split("x")]
    if len(parts) == 3:
        return (0, *parts)  # type: ignore[return-value]
    if len(parts) == 4:
        return tuple(parts)  # type: ignore[return-value]
    raise argparse.ArgumentTypeError(f"shape {s!r}: MxKxN or BxMxKxN")


def model_for(batch: int, m: int, k: int, n: int, rng: np.random.Generator) -> tuple[onnx.ModelProto, dict]:
    vi = helper.make_tensor_value_info
    f = TensorProto.FLOAT
    if batch:
        inputs = [vi("a", f, [batch, m, k]), vi("b", f, [batch, k, n])]
        inits = []
        feeds = {
            "a": rng.standard_normal((batch, m, k)).astype(np.float32),
            "b": rng.standard_normal((batch, k, n)).astype(np.float32),
        }
        out = vi("y", f, [batch, m, n])
    else:
        inputs = [vi("a", f, [m, k])]
        inits = [numpy_helper.from_array(rng.standard_normal((k, n)).astype(np.float32), "b")]
        feeds = {"a": rng.standard_normal((m, k)).astype(np.float32)}
        out = vi("y", f, [m, n])
    node = helper.make_node("MatMul", ["a", "b"], ["y"])
    graph = helper.make_graph([node], "mm", inputs, [out], initializer=inits)
    model = helper.make_model(graph, ir_version=9, opset_imports=[helper.make_opsetid("", 17)])
    return model, feeds


def timed_row(
    name: str, sessions: list, feeds: dict, flops: float, th: int, budget: float, width: int = 16
) -> bool:
    """Stock's session and ours, checked to agree within rounding, timed interleaved: one printed row
    (GFLOP/s, microseconds, stock time / our time). False, with a message, when the results differ."""
    want = sessions[0].run(None, feeds)[0]
    got = sessions[1].run(None, feeds)[0]
    if not np.allclose(got, want, rtol=1e-3, atol=1e-3 * float(np.abs(want).max())):
        print(f"{name}: results differ beyond rounding", file=sys.stderr)
        return False
    speeds, ratios, _ = _time_interleaved(sessions, feeds, 1, budget, pooled=th > 1)
    gf = [s * flops / 1e9 for s in speeds]
    us = [1e6 / sp for sp in speeds]
    vals = [f"{gf[0]:.1f}", f"{gf[1]:.1f}", f"{us[0]:.1f}", f"{us[1]:.1f}", f"{ratios[1]:.3f}"]
    print(f"{name:>{width}} {th:>3} " + " ".join(f"{v:>10}" for v in vals))
    sys.stdout.flush()
    return True


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shapes", nargs="+", type=parse_shape, default=[parse_shape(s) for s in DEFAULT_SHAPES])
    ap.add_argument("--threads", nargs="+", type=int, default=[1, 2])
    ap.add_argument("--budget", type=float, default=3.0, help="seconds per shape and thread count")
    ap.add_argument("--mode", default="exact", choices=["exact", "fast"])
    ap.add_argument("--path", default=None, help="force a kernel path (512, 256, 128, scalar)")
    args = ap.parse_args(argv)
    rng = np.random.default_rng(0)
    cols = ["stock GF/s", "ours GF/s", "stock us", "ours us", "ours/stock"]
    print(f"{'shape':>16} {'thr':>3} " + " ".join(f"{c:>10}" for c in cols))
    for batch, m, k, n in args.shapes:
        model, feeds = model_for(batch, m, k, n, rng)
        rep = RewriteReport(args.mode, args.path)
        ours = rewrite(model, args.mode, args.path, report=rep)
        if not any(nd.domain == "ai.onemodel" for nd in ours.graph.node):
            print(f"MatMul was not moved to ai.onemodel: {rep}", file=sys.stderr)
            return 1
        flops = 2.0 * max(batch, 1) * m * k * n
        name = f"{batch}x{m}x{k}x{n}" if batch else f"{m}x{k}x{n}"
        for th in args.threads:
            sessions = [_session(model, th, False), _session(ours, th, True)]
            if not timed_row(name, sessions, feeds, flops, th, args.budget):
                return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
