"""A chain of five element-wise nodes: stock ORT (ORT_ENABLE_ALL) against OneModel's execution provider, fused
(the default) and unfused (EP option fuse="0"), exact and fast mode, interleaved in one process.

    python tools/bench/chain_bench.py [--threads 1] [--budget 4] [--sizes 1M,16M]

Chains: `sigmoid` is Add a scalar, Mul by a second input, Sigmoid, Mul by the second input, Sub a scalar;
`cheap` is Add a scalar, Mul, Abs, Mul, Sub (no transcendental). Prints each session's median time per run
and its time over stock's (`bench._time_interleaved`: the median over rounds of adjacent runs).
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper

from onemodel_ep import bench
from onemodel_ep.ep import ep_session_options

CHAINS = {
    "sigmoid": ("Add", "Mul", "Sigmoid", "Mul", "Sub"),
    "cheap": ("Add", "Mul", "Abs", "Mul", "Sub"),
}


def chain_model(ops: tuple[str, ...]) -> onnx.ModelProto:
    """x -> ops[0] -> ... -> z; a binary op's second input is the scalar c (Add, Sub) or the input y (Mul)."""
    nodes, prev = [], "x"
    for i, op in enumerate(ops):
        out = "z" if i + 1 == len(ops) else f"t{i}"
        other = {"Add": ["c"], "Sub": ["c"], "Mul": ["y"]}.get(op, [])
        nodes.append(helper.make_node(op, [prev, *other], [out], name=f"{op.lower()}{i}"))
        prev = out
    t = TensorProto.FLOAT
    g = helper.make_graph(
        nodes,
        "chain",
        [helper.make_tensor_value_info(k, t, ["n"]) for k in ("x", "y")],
        [helper.make_tensor_value_info("z", t, ["n"])],
        [helper.make_tensor("c", t, [], [0.5])],
    )
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 9
    return m


def _sessions(model: onnx.ModelProto, threads: int) -> tuple[list[str], list[ort.InferenceSession]]:
    data = model.SerializeToString()
    names, out = ["stock"], [bench._session(model, threads, False)]
    for mode in ("exact", "fast"):
        for fuse in (True, False):
            so = ep_session_options(bench._options(threads, False), mode=mode, custom_ops=False, fuse=fuse)
            names.append(f"{mode} {'fused' if fuse else 'unfused'}")
            out.append(ort.InferenceSession(data, so, enable_fallback=0))
    return names, out


def _size(text: str) -> int:
    scale = {"K": 1 << 10, "M": 1 << 20}.get(text[-1].upper(), 1)
    return int(text[:-1] if scale > 1 else text) * scale


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--budget", type=float, default=4.0)
    p.add_argument("--sizes", default="1M,16M")
    p.add_argument("--chains", default=",".join(CHAINS))
    a = p.parse_args(argv)
    rng = np.random.default_rng(0)
    for chain in a.chains.split(","):
        names, sessions = _sessions(chain_model(CHAINS[chain]), a.threads)
        for text in a.sizes.split(","):
            n = _size(text)
            feeds = {k: rng.standard_normal(n).astype(np.float32) for k in ("x", "y")}
            eps, paired, runs = bench._time_interleaved(sessions, feeds, 1, a.budget, a.threads != 1)
            rows = zip(names, eps, paired, strict=True)
            parts = [f"{nm} {1e3 / e:.2f} ms ({1 / r:.3f})" for nm, e, r in rows]
            print(f"{chain} {text} ({a.threads} thread(s), {runs} runs): " + ", ".join(parts), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
