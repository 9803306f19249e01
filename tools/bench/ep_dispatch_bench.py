"""Stock ORT against OneModel's execution provider in both dispatch modes, interleaved in one process.

    python tools/bench/ep_dispatch_bench.py [--threads 1] [--budget 4] [MODEL[:INPUTS.npz] ...]

`registry` is the EP's kernel registry (the default); `compile` claims each node as a compiled node of its own
(GetCapability + Compile, provider/csrc/ep/ep_compile.c). With no model, an Add of 1,024 floats (the per-call
overhead); else each model with its inputs (an .npz, or `onemodel bench`'s generated ones, dynamic dims 16).
Prints each session's median time and its time over stock's (`_paired_ratios`: the median over rounds of
adjacent runs).
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto

from onemodel_ep import bench
from onemodel_ep.ep import ep_session_options


def _sessions(model: onnx.ModelProto, threads: int) -> list[ort.InferenceSession]:
    data = model.SerializeToString()
    out = [bench._session(model, threads, False)]
    for dispatch in ("registry", "compile"):
        so = ep_session_options(bench._options(threads, False), dispatch=dispatch)
        out.append(ort.InferenceSession(data, so, enable_fallback=0))
    return out


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("models", nargs="*")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--budget", type=float, default=4.0)
    a = p.parse_args(argv)
    cases: list[tuple[str, onnx.ModelProto, dict[str, np.ndarray] | None]] = []
    if not a.models:
        model, ins = bench._model("Add", TensorProto.FLOAT)
        cases.append(("Add 1K", model, bench._inputs(ins, 1024, "Add", np.random.default_rng(0))))
    for spec in a.models:
        path, _, npz = spec.partition(":")
        cases.append((path, onnx.load(path), dict(np.load(npz)) if npz else None))
    for name, model, feeds in cases:
        sessions = _sessions(model, a.threads)
        if feeds is None:
            feeds = bench.model_feeds(sessions[0], 16)
        eps, paired, runs = bench._time_interleaved(sessions, feeds, 1, a.budget, a.threads != 1)
        print(
            f"{name} ({a.threads} thread(s), {runs} runs): stock {1e6 / eps[0]:.1f} us, "
            f"registry {1e6 / eps[1]:.1f} us ({1 / paired[1]:.3f}x), compile {1e6 / eps[2]:.1f} us "
            f"({1 / paired[2]:.3f}x)",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
