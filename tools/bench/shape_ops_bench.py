"""Speed of Pad, ArgMax, ArgMin and TopK through OneModel EP (exact mode) against stock ONNX Runtime:
one-node f32 models of the shapes of issue 34, timed by `onemodel bench --model`
(onemodel_ep.bench.bench_model: stock and ours interleaved run by run on one intra-op thread, the median of
the paired ratios).

Prints, per case, stock's and our median time and our time over stock's (< 1: ours is faster).

    python tools/bench/shape_ops_bench.py [--budget 3] [--via ep] [--only Pad,ArgMax,TopK]
"""

from __future__ import annotations

import argparse
import os
import tempfile

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

from onemodel_ep.bench import bench_model

# (label, op, X shape, attributes, the int64 constant input 1 (Pad's pads, TopK's K) or None)
CASES: list[tuple[str, str, tuple[int, ...], dict[str, object], list[int] | None]] = [
    ("Pad constant 1 each side", "Pad", (1, 64, 56, 56), {"mode": "constant"}, [0, 0, 1, 1, 0, 0, 1, 1]),
    ("Pad reflect 1 each side", "Pad", (1, 64, 56, 56), {"mode": "reflect"}, [0, 0, 1, 1, 0, 0, 1, 1]),
    ("Pad edge 1 each side", "Pad", (1, 64, 56, 56), {"mode": "edge"}, [0, 0, 1, 1, 0, 0, 1, 1]),
    ("ArgMax last axis", "ArgMax", (1, 1000), {"axis": -1, "keepdims": 0}, None),
    ("ArgMax last axis", "ArgMax", (8, 128, 30522), {"axis": -1, "keepdims": 0}, None),
    ("ArgMin last axis", "ArgMin", (8, 128, 30522), {"axis": -1, "keepdims": 0}, None),
    ("ArgMax axis 1", "ArgMax", (8, 128, 3000), {"axis": 1, "keepdims": 0}, None),
    ("TopK k 1 last axis", "TopK", (64, 1000), {"axis": -1}, [1]),
    ("TopK k 5 last axis", "TopK", (64, 1000), {"axis": -1}, [5]),
    ("TopK k 50 last axis", "TopK", (8, 128, 30522 // 8), {"axis": -1}, [50]),
    ("TopK k 500 last axis", "TopK", (64, 4096), {"axis": -1}, [500]),
    ("TopK k n/2 unsorted", "TopK", (64, 4096), {"axis": -1, "sorted": 0}, [2048]),
    ("TopK k 10 axis 1", "TopK", (8, 1000, 64), {"axis": 1}, [10]),
]


def model_of(op: str, shape: tuple[int, ...], attrs: dict[str, object],
             input1: list[int] | None) -> onnx.ModelProto:
    inits = [] if input1 is None else [numpy_helper.from_array(np.array(input1, np.int64), "in1")]
    vi = helper.make_tensor_value_info
    if op == "TopK":
        outs = [vi("values", TensorProto.FLOAT, None), vi("indices", TensorProto.INT64, None)]
    else:
        outs = [vi("y", TensorProto.FLOAT if op == "Pad" else TensorProto.INT64, None)]
    node = helper.make_node(op, ["x", *[i.name for i in inits]], [o.name for o in outs], **attrs)
    graph = helper.make_graph([node], op, [vi("x", TensorProto.FLOAT, list(shape))], outs, initializer=inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)], ir_version=9)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--budget", type=float, default=3.0, help="seconds of timing per case")
    ap.add_argument("--via", default="ep", choices=("ep", "rewrite"))
    ap.add_argument("--only", default="")
    args = ap.parse_args()
    only = set(filter(None, args.only.split(",")))
    print(f"onnxruntime {ort.__version__}, 1 thread, f32, via {args.via}, interleaved "
          "(onemodel bench --model)")
    print(f"{'case':26} {'shape':16} {'stock us':>10} {'ours us':>10} {'ours/stock':>10}")
    with tempfile.TemporaryDirectory() as tmp:
        for label, op, shape, attrs, input1 in CASES:
            if only and op not in only:
                continue
            path = os.path.join(tmp, f"{op}.onnx")
            onnx.save(model_of(op, shape, attrs, input1), path)
            x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
            r = bench_model(path, args.via, 1, args.budget, 1, feeds={"x": x})
            shown = "x".join(map(str, shape))
            print(f"{label:26} {shown:16} {r['stock_s'] * 1e6:10.1f} {r['ours_s'] * 1e6:10.1f} "
                  f"{r['ours_over_stock_time']:10.3f}")


if __name__ == "__main__":
    main()
