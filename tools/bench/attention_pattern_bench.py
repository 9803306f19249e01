"""The fused attention pattern (ep_attention_fuse.c) against the same graph unfused and against stock ORT.

    python tools/bench/attention_pattern_bench.py [--heads 4 12] [--seq 128 512] [--rounds 5]

The graph: q, k^T, v [1, H, S, 64] inputs, MatMul -> Div by sqrt(64) -> Add a [1, 1, 1, S] mask ->
Softmax -> MatMul. Sessions, one intra-op thread each, timed in thread CPU time (robust under load),
interleaved per round, the minimum over rounds of the mean per run: stock ORT; ours fused (the default);
ours with the Softmax's output also a graph output, which keeps the attention fusion off but the chain
fusion (MatMul -> Div -> Add) on, as before the attention fusion ("chains"); ours with fuse="0" (every node
alone). Prints one JSON line per shape with the times and stock/fused, chains/fused, unfused/fused.
Timings are for docs, never for tests.
"""

from __future__ import annotations

import argparse
import json

import numpy as np
import onnx
import onnxruntime as ort
from model_cpu_time import per_run_ms  # tools/bench/: the script's folder is on sys.path
from onnx import TensorProto, helper, numpy_helper

import onemodel_ep


def model(h: int, s: int, d: int, p_output: bool) -> onnx.ModelProto:
    f = TensorProto.FLOAT
    nodes = [
        helper.make_node("MatMul", ["q", "kt"], ["s"]),
        helper.make_node("Div", ["s", "c"], ["sc"]),
        helper.make_node("Add", ["sc", "mask"], ["sm"]),
        helper.make_node("Softmax", ["sm"], ["p"], axis=-1),
        helper.make_node("MatMul", ["p", "v"], ["o"]),
    ]
    ins = [
        helper.make_tensor_value_info("q", f, [1, h, s, d]),
        helper.make_tensor_value_info("kt", f, [1, h, d, s]),
        helper.make_tensor_value_info("v", f, [1, h, s, d]),
        helper.make_tensor_value_info("mask", f, [1, 1, 1, s]),
    ]
    outs = [helper.make_tensor_value_info("o", f, None)]
    if p_output:
        outs.append(helper.make_tensor_value_info("p", f, None))
    c = numpy_helper.from_array(np.array(np.sqrt(np.float32(d)), np.float32), "c")
    g = helper.make_graph(nodes, "attention", ins, outs, [c])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 9
    return m


def _options() -> ort.SessionOptions:
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.log_severity_level = 3
    return so


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--heads", type=int, nargs="+", default=[4, 12])
    ap.add_argument("--seq", type=int, nargs="+", default=[128, 512])
    ap.add_argument("--dim", type=int, default=64)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=0.3)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    for h in args.heads:
        for s in args.seq:
            d = args.dim
            feeds = {
                "q": rng.standard_normal((1, h, s, d)).astype(np.float32),
                "kt": rng.standard_normal((1, h, d, s)).astype(np.float32),
                "v": rng.standard_normal((1, h, s, d)).astype(np.float32),
                "mask": np.where(rng.random((1, 1, 1, s)) < 0.1, -10000.0, 0.0).astype(np.float32),
            }
            one, two = model(h, s, d, False).SerializeToString(), model(h, s, d, True).SerializeToString()
            ep = onemodel_ep.ep_session_options
            sessions = {
                "stock": ort.InferenceSession(one, _options(), providers=["CPUExecutionProvider"]),
                "fused": ort.InferenceSession(one, ep(base=_options())),
                "chains": ort.InferenceSession(two, ep(base=_options())),
                "unfused": ort.InferenceSession(one, ep(base=_options(), fuse=False)),
            }
            best = {k: float("inf") for k in sessions}
            for _ in range(args.rounds):
                for k, sess in sessions.items():
                    best[k] = min(best[k], per_run_ms(sess, feeds, args.seconds))
            line = {"H": h, "S": s, "D": d, **{f"{k}_ms": round(v, 3) for k, v in best.items()}}
            for k in ("stock", "chains", "unfused"):
                line[f"{k}_over_fused"] = round(best[k] / best["fused"], 3)
            print(json.dumps(line), flush=True)


if __name__ == "__main__":
    main()
