"""Speed of Einsum through OneModel EP (exact mode) against stock ONNX Runtime: one-node f32 models of the
shapes of issue 34, timed by `onemodel bench --model` (onemodel_ep.bench.bench_model: stock and ours
interleaved run by run on one intra-op thread, the median of the paired ratios).

Prints, per case, stock's and our median time and our time over stock's (< 1: ours is faster).

    python tools/bench/einsum_bench.py [--budget 3] [--via ep]
"""

from __future__ import annotations

import argparse
import os
import tempfile

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper

from onemodel_ep.bench import bench_model

# (label, equation, input shapes)
CASES: list[tuple[str, str, list[tuple[int, ...]]]] = [
    ("attention scores", "bhid,bhjd->bhij", [(1, 12, 128, 64), (1, 12, 128, 64)]),
    ("attention context", "bhij,bhjd->bhid", [(1, 12, 128, 128), (1, 12, 128, 64)]),
    ("batched matmul", "bij,bjk->bik", [(8, 128, 256), (8, 256, 128)]),
    ("bilinear", "bn,anm,bm->ba", [(32, 128), (64, 128, 128), (32, 128)]),
    ("outer product", "i,j->ij", [(1024,), (1024,)]),
    ("transpose last two", "...ij->...ji", [(8, 256, 256)]),
]


def model_of(equation: str, shapes: list[tuple[int, ...]]) -> onnx.ModelProto:
    vi = helper.make_tensor_value_info
    names = [f"x{i}" for i in range(len(shapes))]
    node = helper.make_node("Einsum", names, ["y"], equation=equation)
    ins = [vi(n, TensorProto.FLOAT, list(s)) for n, s in zip(names, shapes, strict=True)]
    graph = helper.make_graph([node], "einsum", ins, [vi("y", TensorProto.FLOAT, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 12)], ir_version=8)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--budget", type=float, default=3.0, help="seconds of timing per case")
    ap.add_argument("--via", default="ep", choices=("ep", "rewrite"))
    args = ap.parse_args()
    print(f"onnxruntime {ort.__version__}, 1 thread, f32, via {args.via}, interleaved "
          "(onemodel bench --model)")
    print(f"{'case':20} {'equation':18} {'stock us':>10} {'ours us':>10} {'ours/stock':>10}")
    rng = np.random.default_rng(1)
    with tempfile.TemporaryDirectory() as tmp:
        for k, (label, equation, shapes) in enumerate(CASES):
            path = os.path.join(tmp, f"einsum{k}.onnx")
            onnx.save(model_of(equation, shapes), path)
            feeds = {f"x{i}": rng.standard_normal(s).astype(np.float32) for i, s in enumerate(shapes)}
            r = bench_model(path, args.via, 1, args.budget, 1, feeds=feeds)
            print(f"{label:20} {equation:18} {r['stock_s'] * 1e6:10.1f} {r['ours_s'] * 1e6:10.1f} "
                  f"{r['ours_over_stock_time']:10.3f}")


if __name__ == "__main__":
    main()
