"""Speed of com.microsoft GatherBlockQuantized (uint8, uint4 or int4 data) through OneModel EP (via="ep",
exact mode, the widest kernel path) against stock ONNX Runtime, one intra-op thread each, run by run
interleaved in one process (gqa_bench's measure): a 4-bit embedding table of 32064 x 3072 values (Phi-3's),
block 32, constant initializers, the tokens of a prompt gathered. --data uint4 / int4: the same bytes as ONNX
Runtime's 4-bit tensor types (shape V x Q) instead of uint8 (V x Q / 2, bits 4). --scales float16: f16 scales
and output.

    python tools/bench/gather_block_quantized_bench.py [--tokens 1,128,512] [--budget 3] [--data uint8]
        [--scales float]
"""

from __future__ import annotations

import argparse

import numpy as np
import onnx
from gqa_bench import OPSETS, measure  # tools/bench, this script's folder
from onnx import TensorProto, helper, numpy_helper

V, Q, BLOCK = 32064, 3072, 32


def model(tokens: int, data_type: str = "uint8",
          scale_type: str = "float") -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    rng = np.random.default_rng(0)
    packed = rng.integers(0, 256, (V, Q // 2)).astype(np.uint8)
    if data_type == "uint8":
        data = numpy_helper.from_array(packed, "data")
    else:
        t = TensorProto.UINT4 if data_type == "uint4" else TensorProto.INT4
        data = helper.make_tensor("data", t, [V, Q], packed.tobytes(), raw=True)
    st = np.float16 if scale_type == "float16" else np.float32
    scales = numpy_helper.from_array((rng.random((V, Q // BLOCK)) * 0.02).astype(st), "scales")
    node = helper.make_node("GatherBlockQuantized", ["data", "ids", "scales"], ["y"], domain="com.microsoft",
                            bits=4, block_size=BLOCK)
    ins = [helper.make_tensor_value_info("ids", TensorProto.INT64, [1, tokens])]
    outs = [helper.make_tensor_value_info("y", helper.np_dtype_to_tensor_dtype(np.dtype(st)), None)]
    graph = helper.make_graph([node], "gbq", ins, outs, [data, scales])
    feeds = {"ids": rng.integers(0, V, (1, tokens)).astype(np.int64)}
    return helper.make_model(graph, opset_imports=OPSETS, ir_version=10), feeds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tokens", default="1,128,512", help="tokens gathered (comma-separated)")
    ap.add_argument("--budget", type=float, default=3.0, help="seconds per case")
    ap.add_argument("--data", default="uint8", choices=("uint8", "uint4", "int4"), help="data's type")
    ap.add_argument("--scales", default="float", choices=("float", "float16"), help="scales' (and y's) type")
    a = ap.parse_args()
    print(f"table {V} x {Q} (4-bit, {a.data} data, {a.scales} scales, block {BLOCK}), 1 thread, exact, "
          "widest path")
    print(f"{'tokens':>8} {'stock ms':>10} {'ours ms':>10} {'stock/ours':>11}")
    for t in (int(x) for x in a.tokens.split(",") if x):
        m, feeds = model(t, a.data, a.scales)
        t_stock, t_ours, ratio = measure(m, feeds, a.budget, "GatherBlockQuantized")
        print(f"{t:>8} {t_stock * 1e3:10.3f} {t_ours * 1e3:10.3f} {ratio:11.3f}")


if __name__ == "__main__":
    main()
