"""Speed of com.microsoft GroupQueryAttention through OneModel EP (via="ep", exact mode, the widest kernel
path) against stock ONNX Runtime: one-node f32 models as ONNX Runtime GenAI builds them (packed QKV, rotary
halves), one intra-op thread each, run by run interleaved in one process.

Decode: one new token against a past cache of T - 1 rows (present T rows); prefill: S tokens, no past. Prints
per case the median time of each and the median over rounds of the per-round ratio stock / ours (> 1: ours
is faster).

    python tools/bench/gqa_bench.py [--heads 32 --kv-heads 8 --head-size 128] [--budget 3]
        [--decode 128,512,1024,4096] [--prefill 128] [--path 256] [--thread-time]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper

import onemodel_ep

OPSETS = [helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)]


def model_of(n: int, kv: int, h: int, past: int, max_pos: int) -> onnx.ModelProto:
    f32, i32 = TensorProto.FLOAT, TensorProto.INT32
    ins = [helper.make_tensor_value_info("qkv", f32, [1, None, (n + 2 * kv) * h])]
    names = ["qkv", "", ""]
    if past:
        ins += [helper.make_tensor_value_info(p, f32, [1, kv, None, h]) for p in ("past_key", "past_value")]
        names += ["past_key", "past_value"]
    else:
        names += ["", ""]
    ins += [
        helper.make_tensor_value_info("seqlens_k", i32, [1]),
        helper.make_tensor_value_info("total", i32, []),
        helper.make_tensor_value_info("cos", f32, [max_pos, h // 2]),
        helper.make_tensor_value_info("sin", f32, [max_pos, h // 2]),
    ]
    names += ["seqlens_k", "total", "cos", "sin"]
    node = helper.make_node(
        "GroupQueryAttention",
        names,
        ["out", "present_key", "present_value"],
        domain="com.microsoft",
        num_heads=n,
        kv_num_heads=kv,
        do_rotary=1,
    )
    outs = [helper.make_tensor_value_info(o, f32, None) for o in ("out", "present_key", "present_value")]
    return helper.make_model(helper.make_graph([node], "gqa", ins, outs), opset_imports=OPSETS, ir_version=10)


def feeds_of(n: int, kv: int, h: int, s: int, past: int, max_pos: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    f: dict[str, np.ndarray] = {"qkv": rng.standard_normal((1, s, (n + 2 * kv) * h)).astype(np.float32)}
    if past:
        f["past_key"] = rng.standard_normal((1, kv, past, h)).astype(np.float32)
        f["past_value"] = rng.standard_normal((1, kv, past, h)).astype(np.float32)
    ang = rng.uniform(0, 6.3, (max_pos, h // 2))
    f.update(
        seqlens_k=np.array([past + s - 1], np.int32),
        total=np.array(past + s, np.int32),
        cos=np.cos(ang).astype(np.float32),
        sin=np.sin(ang).astype(np.float32),
    )
    return f


def measure(
    model: onnx.ModelProto,
    feeds: dict[str, np.ndarray],
    budget: float,
    op: str = "GroupQueryAttention",
    kernel_path: str | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> tuple[float, float, float]:
    """Stock ORT and ours (on `kernel_path`, None: the widest) on a one-node model `op`: median ms of each and
    the median per-round ratio. `clock` time.thread_time counts only this thread's CPU time (one intra-op
    thread runs the node on the calling thread), which a loaded machine's time slicing does not inflate."""
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.log_severity_level = 3
    stock = ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
    ours = onemodel_ep.InferenceSession(model, so, mode="exact", via="ep", kernel_path=kernel_path)
    assert [m.op for m in ours.report.moved] == [op], ours.report.summary()
    sessions = [stock, ours]
    for s in sessions:
        for _ in range(2):
            s.run(None, feeds)
    times: list[list[float]] = [[], []]
    start = time.perf_counter()
    while len(times[0]) < 5 or time.perf_counter() - start < budget:
        for k, s in enumerate(sessions):
            t = clock()
            s.run(None, feeds)
            times[k].append(clock() - t)
    ratio = statistics.median(a / b for a, b in zip(times[0], times[1], strict=True))
    return statistics.median(times[0]), statistics.median(times[1]), ratio


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--heads", type=int, default=32)
    ap.add_argument("--kv-heads", type=int, default=8)
    ap.add_argument("--head-size", type=int, default=128)
    ap.add_argument("--budget", type=float, default=3.0, help="seconds per case")
    ap.add_argument("--decode", default="128,512,1024,4096", help="cache lengths T (comma-separated)")
    ap.add_argument("--prefill", default="128", help="prompt lengths S (comma-separated)")
    ap.add_argument("--path", default=None, help="our kernel path: 512, 256, 128, scalar (default: widest)")
    ap.add_argument("--thread-time", action="store_true", help="this thread's CPU time, not wall time")
    a = ap.parse_args()
    n, kv, h = a.heads, a.kv_heads, a.head_size
    cases = [("decode", int(t)) for t in a.decode.split(",") if t] + [
        ("prefill", int(s)) for s in a.prefill.split(",") if s
    ]
    path = a.path or "widest"
    print(f"GroupQueryAttention f32, heads {n}, kv heads {kv}, head size {h}, 1 thread, exact, path {path}")
    print(f"{'case':>14} {'stock ms':>10} {'ours ms':>10} {'stock/ours':>11}")
    for kind, length in cases:
        past, s = (length - 1, 1) if kind == "decode" else (0, length)
        max_pos = max(length, 16)
        t_stock, t_ours, ratio = measure(
            model_of(n, kv, h, past, max_pos),
            feeds_of(n, kv, h, s, past, max_pos),
            a.budget,
            "GroupQueryAttention",
            a.path,
            time.thread_time if a.thread_time else time.perf_counter,
        )
        print(f"{kind + ' ' + str(length):>14} {t_stock * 1e3:10.3f} {t_ours * 1e3:10.3f} {ratio:11.3f}")


if __name__ == "__main__":
    main()
