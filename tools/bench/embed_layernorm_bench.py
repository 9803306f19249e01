"""Speed of com.microsoft EmbedLayerNormalization through OneModel EP (via="ep", exact mode, the widest kernel
path) against stock ONNX Runtime, one intra-op thread each, run by run interleaved in one process (gqa_bench's
measure): BERT-base's hidden size 768, 512 positions, 2 segments, a vocabulary of 8192 rows (the time does
not depend on it), the tables as constant initializers as ORT's transformer optimiser leaves them, a mask and
all three outputs.

    python tools/bench/embed_layernorm_bench.py [--shapes 1x128,8x128,1x384] [--budget 3]
"""

from __future__ import annotations

import argparse

import numpy as np
import onnx
from gqa_bench import OPSETS, measure  # tools/bench, this script's folder
from onnx import TensorProto, helper, numpy_helper

H, V, P, G = 768, 8192, 512, 2


def model(b: int, s: int) -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    rng = np.random.default_rng(0)

    def table(name: str, *shape: int) -> onnx.TensorProto:
        return numpy_helper.from_array((rng.standard_normal(shape) * 0.05).astype(np.float32), name)

    inits = [table("word", V, H), table("position", P, H), table("segment", G, H), table("gamma", H),
             table("beta", H)]
    node = helper.make_node("EmbedLayerNormalization",
                            ["ids", "segs", "word", "position", "segment", "gamma", "beta", "mask"],
                            ["out", "mask_index", "sum"], domain="com.microsoft", epsilon=1e-12)
    ins = [helper.make_tensor_value_info(n, TensorProto.INT32, [b, s]) for n in ("ids", "segs", "mask")]
    outs = [helper.make_tensor_value_info("out", TensorProto.FLOAT, None),
            helper.make_tensor_value_info("mask_index", TensorProto.INT32, None),
            helper.make_tensor_value_info("sum", TensorProto.FLOAT, None)]
    mask = np.ones((b, s), np.int32)
    mask[:, -3:] = 0
    feeds = {"ids": rng.integers(0, V, (b, s)).astype(np.int32),
             "segs": rng.integers(0, G, (b, s)).astype(np.int32), "mask": mask}
    graph = helper.make_graph([node], "embed", ins, outs, inits)
    return helper.make_model(graph, opset_imports=OPSETS, ir_version=10), feeds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shapes", default="1x128,8x128,1x384", help="batch x sequence, comma-separated")
    ap.add_argument("--budget", type=float, default=3.0, help="seconds per case")
    a = ap.parse_args()
    print(f"hidden {H}, 1 thread, exact, widest path")
    print(f"{'case':>12} {'stock ms':>10} {'ours ms':>10} {'stock/ours':>11}")
    for shape in (x for x in a.shapes.split(",") if x):
        b, s = (int(v) for v in shape.split("x"))
        m, feeds = model(b, s)
        t_stock, t_ours, ratio = measure(m, feeds, a.budget, "EmbedLayerNormalization")
        print(f"{shape:>12} {t_stock * 1e3:10.3f} {t_ours * 1e3:10.3f} {ratio:11.3f}")


if __name__ == "__main__":
    main()
