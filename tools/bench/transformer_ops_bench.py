"""Stock ORT against OneModel EP (exact, via the execution provider) on the transformer ops of
docs/transformer-ops.md: one-node models, one thread, both sessions in this process, timed interleaved.

    python tools/bench/transformer_ops_bench.py [--rounds 7] [--runs 50] [--only BiasSoftmax]

com.microsoft BiasSoftmax has no CPU kernel in stock ORT: its stock side is Add then Softmax (opset 11, the
same axis), the graph the optimiser fuses.

Prints per case the median time per call of each over the rounds and their ratio (ours / stock), and the ratio
of the best rounds (the steadier figure on a loaded machine).
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

import onemodel_ep

MS = "com.microsoft"
F32 = np.float32


def _model(op: str, domain: str, feeds: dict[str, np.ndarray], inits: dict[str, np.ndarray], names: list[str],
           opset: int, **attrs: Any) -> onnx.ModelProto:
    node = helper.make_node(op, names, ["y"], domain=domain, name="n0", **attrs)
    graph = helper.make_graph(
        [node], "g",
        [helper.make_tensor_value_info(k, helper.np_dtype_to_tensor_dtype(v.dtype), list(v.shape))
         for k, v in feeds.items()],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        initializer=[numpy_helper.from_array(v, k) for k, v in inits.items()])
    imports = [helper.make_opsetid("", opset), helper.make_opsetid(MS, 1)]
    return helper.make_model(graph, opset_imports=imports, ir_version=10)


def cases() -> list[tuple[str, onnx.ModelProto, dict[str, np.ndarray]]]:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((512, 3072)).astype(F32)  # a BERT-base FFN activation, 512 tokens
    b = rng.standard_normal(3072).astype(F32)
    out = [
        ("Gelu 512x3072", _model("Gelu", MS, {"x": x}, {}, ["x"], 17), {"x": x}),
        ("BiasGelu 512x3072", _model("BiasGelu", MS, {"x": x}, {"b": b}, ["x", "b"], 17), {"x": x}),
        ("FastGelu+bias 512x3072", _model("FastGelu", MS, {"x": x}, {"b": b}, ["x", "b"], 17), {"x": x}),
        ("QuickGelu 512x3072", _model("QuickGelu", MS, {"x": x}, {}, ["x"], 17), {"x": x}),
        # the library's ONNX Gelu on the same data: the cost of the correctly rounded kernels alone
        ("onnx.Gelu none 512x3072", _model("Gelu", "", {"x": x}, {}, ["x"], 20), {"x": x}),
        ("onnx.Gelu tanh 512x3072", _model("Gelu", "", {"x": x}, {}, ["x"], 20, approximate="tanh"),
         {"x": x}),
    ]
    ang = rng.uniform(0, 100, (4096, 64))
    cos, sin = np.cos(ang).astype(F32), np.sin(ang).astype(F32)
    q = rng.standard_normal((1, 512, 32 * 128)).astype(F32)  # a 32-head, 128-dim prompt of 512 tokens
    pos = np.arange(512, dtype=np.int64)[None, :]
    out.append(("ms.RotaryEmbedding 1x512x(32x128)",
                _model("RotaryEmbedding", MS, {"x": q, "pos": pos}, {"cos": cos, "sin": sin},
                       ["x", "pos", "cos", "sin"], 17, num_heads=32), {"x": q, "pos": pos}))
    q1 = rng.standard_normal((8, 1, 32 * 128)).astype(F32)  # decode: 8 sequences, one token each
    pos1 = rng.integers(0, 4096, (8, 1)).astype(np.int64)
    out.append(("ms.RotaryEmbedding 8x1x(32x128)",
                _model("RotaryEmbedding", MS, {"x": q1, "pos": pos1}, {"cos": cos, "sin": sin},
                       ["x", "pos", "cos", "sin"], 17, num_heads=32), {"x": q1, "pos": pos1}))
    q4 = rng.standard_normal((1, 32, 512, 128)).astype(F32)
    out.append(("onnx.RotaryEmbedding 1x32x512x128",
                _model("RotaryEmbedding", "", {"x": q4, "pos": pos}, {"cos": cos, "sin": sin},
                       ["x", "cos", "sin", "pos"], 23), {"x": q4, "pos": pos}))
    qa = rng.standard_normal((1, 12, 128, 64)).astype(F32)  # BERT-base attention scores: Q . K^T / 8
    kb = rng.standard_normal((1, 12, 128, 64)).astype(F32)
    out.append(("FusedMatMul 12x128x64 transB",
                _model("FusedMatMul", MS, {"a": qa, "b": kb}, {}, ["a", "b"], 17, transB=1, alpha=0.125),
                {"a": qa, "b": kb}))
    s = rng.standard_normal((8, 12, 128, 128)).astype(F32)  # BERT-base scores, 8 sequences of 128 tokens
    mask = np.where(rng.random((8, 1, 1, 128)) < 0.2, -10000.0, 0.0).astype(F32)
    out.append(("BiasSoftmax 8x12x128x128 mask",
                _model("BiasSoftmax", MS, {"s": s}, {"m": mask}, ["s", "m"], 17, axis=3,
                       is_inner_broadcast=1),
                {"s": s}))
    return out


def _stock_equivalent(model: onnx.ModelProto) -> onnx.ModelProto:
    """The model stock ORT runs for ours: BiasSoftmax as Add then Softmax (opset 11, its axis); others as they
    are."""
    node = model.graph.node[0]
    if node.op_type != "BiasSoftmax":
        return model
    axis = next(a.i for a in node.attribute if a.name == "axis")
    g = model.graph
    nodes = [helper.make_node("Add", list(node.input), ["sum"]), helper.make_node("Softmax", ["sum"], ["y"],
                                                                                  axis=axis)]
    graph = helper.make_graph(nodes, "g", list(g.input), list(g.output), initializer=list(g.initializer))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11)], ir_version=10)


def _time(sess: Any, feeds: dict[str, np.ndarray], runs: int) -> float:
    t = time.perf_counter()
    for _ in range(runs):
        sess.run(None, feeds)
    return (time.perf_counter() - t) / runs


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--runs", type=int, default=50)
    ap.add_argument("--only", default="", help="run only the cases whose name contains this")
    args = ap.parse_args()
    for name, model, feeds in cases():
        if args.only not in name:
            continue
        so = ort.SessionOptions()
        so.intra_op_num_threads = 1
        so.log_severity_level = 3
        stock = ort.InferenceSession(_stock_equivalent(model).SerializeToString(), so,
                                     providers=["CPUExecutionProvider"])
        ours = onemodel_ep.InferenceSession(model, so, mode="exact", via="ep")
        assert [n.op for n in ours.report.moved], ours.report.summary()
        for s in (stock, ours):
            _time(s, feeds, 5)
        ts, to = [], []
        for _ in range(args.rounds):
            ts.append(_time(stock, feeds, args.runs))
            to.append(_time(ours, feeds, args.runs))
        ms, mo = statistics.median(ts), statistics.median(to)
        print(f"{name:34s} median: stock {ms * 1e6:8.1f} us ours {mo * 1e6:8.1f} us ratio {mo / ms:5.2f}; "
              f"best: ratio {min(to) / min(ts):5.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
