"""Speed of ONNX Attention (opset 23) through OneModel EP (via="ep", exact mode, the widest kernel path)
against stock ONNX Runtime's CPU kernel, one intra-op thread each, run by run interleaved in one process
(gqa_bench's measure): a decoder's GQA shapes (32 query heads and 8 kv heads of 128, batch 1, 3-D Q, K, V
with past and present): one decode token over caches of the given lengths, and a causal prefill.

    python tools/bench/onnx_attention_bench.py [--decode 512,2048] [--prefill 128] [--budget 3]
        [--dtype float16]
"""

from __future__ import annotations

import argparse

import numpy as np
import onnx
from gqa_bench import measure  # tools/bench, this script's folder
from onnx import helper

QH, KVH, HEAD = 32, 8, 128


def model(s: int, past: int, dtype: str = "float") -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    """Causal attention of s new tokens over a past of `past` rows (0: none), f32 or f16."""
    rng = np.random.default_rng(0)
    dt = np.float16 if dtype == "float16" else np.float32
    elem = helper.np_dtype_to_tensor_dtype(np.dtype(dt))
    feeds = {"q": rng.standard_normal((1, s, QH * HEAD)).astype(dt),
             "k": rng.standard_normal((1, s, KVH * HEAD)).astype(dt),
             "v": rng.standard_normal((1, s, KVH * HEAD)).astype(dt)}
    names = ["q", "k", "v"]
    if past:
        feeds["past_key"] = rng.standard_normal((1, KVH, past, HEAD)).astype(dt)
        feeds["past_value"] = rng.standard_normal((1, KVH, past, HEAD)).astype(dt)
        names += ["", "past_key", "past_value"]
    node = helper.make_node("Attention", names, ["y", "present_key", "present_value"], q_num_heads=QH,
                            kv_num_heads=KVH, is_causal=1)
    ins = [helper.make_tensor_value_info(n, elem, list(x.shape)) for n, x in feeds.items()]
    outs = [helper.make_tensor_value_info(n, elem, None) for n in ("y", "present_key", "present_value")]
    graph = helper.make_graph([node], "attention", ins, outs)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 23)], ir_version=10), feeds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--decode", default="512,2048",
                    help="cache lengths of a one-token decode (comma-separated)")
    ap.add_argument("--prefill", default="128", help="prompt lengths of a causal prefill (comma-separated)")
    ap.add_argument("--budget", type=float, default=3.0, help="seconds per case")
    ap.add_argument("--dtype", default="float", choices=("float", "float16"), help="Q, K, V, past, outputs")
    a = ap.parse_args()
    print(f"q heads {QH}, kv heads {KVH}, head size {HEAD}, batch 1, {a.dtype}, 1 thread, exact, widest path")
    print(f"{'case':>20} {'stock ms':>10} {'ours ms':>10} {'stock/ours':>11}")
    cases = [(f"decode, cache {p}", 1, p) for p in (int(x) for x in a.decode.split(",") if x)]
    cases += [(f"prefill {s}", s, 0) for s in (int(x) for x in a.prefill.split(",") if x)]
    for name, s, past in cases:
        m, feeds = model(s, past, a.dtype)
        t_stock, t_ours, ratio = measure(m, feeds, a.budget, "Attention")
        print(f"{name:>20} {t_stock * 1e3:10.3f} {t_ours * 1e3:10.3f} {ratio:11.3f}")


if __name__ == "__main__":
    main()
