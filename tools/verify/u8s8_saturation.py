"""Stock ORT's MatMulInteger against the exact int32 product, and ours, on the CPU it runs on.

    python tools/verify/u8s8_saturation.py --out native.json
    qemu-x86_64 -cpu Haswell     $(which python) tools/verify/u8s8_saturation.py --out haswell.json
    qemu-x86_64 -cpu SandyBridge $(which python) tools/verify/u8s8_saturation.py --out sandybridge.json

MatMulInteger with a uint8 A and an int8 B has one exact answer, the int32 sum of the products. MLAS's AVX2
u8s8 kernel multiplies byte pairs with `vpmaddubsw`, which adds two adjacent products into an int16 with
saturation, so two products of 255 * 127 (64,770 together) become 32,767. Each case here runs stock ORT's
CPU EP and OneModel EP on the same inputs and counts the elements that differ from the exact product
(computed in int64 by numpy). The cases are the extreme one (every A byte 255, every B byte 127) and seeded
random bytes at a BERT shape (A as quantize_dynamic writes it: uint8 over the whole range; B: int8 weights in
[-127, 127]), with B both an initializer and a run-time input (MLAS packs a constant B on another route).
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

import onemodel_ep


def _model(k: int, n: int, b_const: np.ndarray | None) -> bytes:
    a = helper.make_tensor_value_info("A", TensorProto.UINT8, [None, k])
    y = helper.make_tensor_value_info("Y", TensorProto.INT32, None)
    inputs = [a]
    inits: list[onnx.TensorProto] = []
    if b_const is None:
        inputs.append(helper.make_tensor_value_info("B", TensorProto.INT8, [k, n]))
    else:
        inits.append(numpy_helper.from_array(b_const, "B"))
    graph = helper.make_graph([helper.make_node("MatMulInteger", ["A", "B"], ["Y"])], "g", inputs, [y], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 9
    return model.SerializeToString()


def _cases() -> list[tuple[str, np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(20261203)
    extreme = (np.full((4, 64), 255, np.uint8), np.full((64, 16), 127, np.int8))
    bert = (
        rng.integers(0, 256, (128, 768), dtype=np.uint8),
        rng.integers(-127, 128, (768, 768), dtype=np.int8),
    )
    return [("extreme 4x64x16", *extreme), ("random 128x768x768", *bert)]


def _run(session: ort.InferenceSession, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    names = [i.name for i in session.get_inputs()]
    feeds = {"A": a, "B": b} if "B" in names else {"A": a}
    return np.asarray(session.run(None, feeds)[0])


def main(argv: list[str] | None = None) -> int:
    fmt = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=fmt)
    parser.add_argument("--out", type=Path, help="write the record as JSON here")
    args = parser.parse_args(argv)
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    rows = []
    for name, a, b in _cases():
        exact = a.astype(np.int64) @ b.astype(np.int64)
        for b_kind in ("initializer", "input"):
            model = _model(a.shape[1], b.shape[1], b if b_kind == "initializer" else None)
            stock = _run(ort.InferenceSession(model, so, providers=["CPUExecutionProvider"]), a, b)
            ours = _run(onemodel_ep.InferenceSession(model, threads=1), a, b)
            row = {
                "case": name,
                "B": b_kind,
                "elements": int(exact.size),
                "stock_differ": int((stock != exact).sum()),
                "stock_max_abs_error": int(np.abs(stock.astype(np.int64) - exact).max()),
                "ours_differ": int((ours != exact).sum()),
                "exact_y00": int(exact.flat[0]),
                "stock_y00": int(stock.flat[0]),
            }
            rows.append(row)
            print(json.dumps(row))
    record = {"machine": platform.machine(), "onnxruntime": ort.__version__, "rows": rows}
    if args.out:
        args.out.write_text(json.dumps(record, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
