"""The error of a long dot product: [M, K] x [K, N] f32 MatMul with standard normal entries, stock ORT
(MLAS) against OneModel EP's kernel (om_test_gemm, path 512 or the best available), max |result - exact|
over the elements, exact from the f64 products (exact for f32 operands) summed by math.fsum.

    python tools/bench/gemm_k_error.py [--k 1000000] [--shapes 1x1 4x4]
"""

from __future__ import annotations

import argparse
import math
import sys

import numpy as np
import onnxruntime as ort
from onnx import TensorProto, helper

from onemodel_ep._lib import ffi, lib, native_test_entry


def ours(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    m, k = a.shape
    n = b.shape[1]
    c = np.empty((m, n), np.float32)
    off = np.zeros(1, np.int64)
    path = next(p for p in range(lib.om_path_count()) if lib.om_path_available(p))
    ptr = lambda x: ffi.cast("void *", x.ctypes.data)  # noqa: E731
    offp = ffi.cast("int64_t *", off.ctypes.data)
    rc = native_test_entry("om_test_gemm")(path, 1, 0, 1, m, n, k, ptr(a), k, 1, offp, ptr(b), n, 1, offp, 0,
                                           1.0, 1.0, ffi.NULL, 0, 0, ptr(c), n, m * n, 1)
    if rc != 0:
        raise RuntimeError("om_test_gemm failed")
    return c


def stock(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    g = helper.make_graph(
        [helper.make_node("MatMul", ["A", "B"], ["C"])], "mm",
        [helper.make_tensor_value_info("A", TensorProto.FLOAT, list(a.shape)),
         helper.make_tensor_value_info("B", TensorProto.FLOAT, list(b.shape))],
        [helper.make_tensor_value_info("C", TensorProto.FLOAT, [a.shape[0], b.shape[1]])])
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    s = ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
    return s.run(None, {"A": a, "B": b})[0]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--k", type=int, default=1_000_000)
    ap.add_argument("--shapes", nargs="+", default=["1x1", "4x4"])
    args = ap.parse_args(argv)
    rng = np.random.default_rng(39)
    for s in args.shapes:
        m, n = (int(x) for x in s.split("x"))
        a = rng.standard_normal((m, args.k)).astype(np.float32)
        b = rng.standard_normal((args.k, n)).astype(np.float32)
        a64, b64 = a.astype(np.float64), b.astype(np.float64)
        exact = np.array([[math.fsum(a64[i] * b64[:, j]) for j in range(n)] for i in range(m)])
        errs = {name: float(np.abs(f(a, b).astype(np.float64) - exact).max()) for name, f in
                (("stock", stock), ("ours", ours))}
        print(f"[{m},{args.k}]x[{args.k},{n}]: max |err| stock {errs['stock']:.2e}  ours {errs['ours']:.2e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
