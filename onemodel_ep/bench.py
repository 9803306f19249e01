"""Benchmark: stock ORT beside OneModel EP exact and fast mode, in one process, interleaved.

For each operator, element type, size and thread setting, the three sessions run the same one-node
model on the same inputs, round-robin (ORT, exact, fast, ORT, ...; run by run with one intra-op thread,
in blocks of about 20 ms with a thread pool) after a warm-up, and the median of the runs is reported as
elements per second together with our/ORT ratios (the median over the rounds of the ratio of adjacent runs,
`_paired_ratios`). The rows with a thread pool run in a child process whose
three sessions share ORT's global intra-op pool (one pool, as a process serving several models would have),
so that no session's idle pool thread competes with the measured one for the CPUs.
Timings are measurements for docs and decisions, never test assertions.

    onemodel bench                                   # the default table
    onemodel bench --ops Add,Exp --sizes 1M,16M --threads 1 --json out.json --plot out.png
    onemodel bench --summarize r1.json r2.json r3.json  # ranges over runs, and the targets (bench_summary.py)
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import platform
import statistics
import sys
import time
import zlib
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper

from onemodel_ep import cli_args
from onemodel_ep import strict as strict_mode
from onemodel_ep._lib import op_table
from onemodel_ep.custom_ops import custom_op_types
from onemodel_ep.ep import assignments, ep_session_options
from onemodel_ep.errors import StrictModeError, UsageError
from onemodel_ep.fold import fold as fold_constants
from onemodel_ep.rewriter import RewriteReport, rewrite
from onemodel_ep.session import VIAS, default_via, session_options

DEFAULT_OPS = (
    "Add",
    "Mul",
    "Div",
    "Max",
    "Neg",
    "Abs",
    "Floor",
    "Sqrt",
    "Clip",
    "Where",
    "Less",
    "Cast",
    "Exp",
    "Log",
    "Tanh",
    "Sigmoid",
    "Erf",
    "Gelu",
    "Pow",
)
SIZES = {"1K": 1 << 10, "64K": 1 << 16, "1M": 1 << 20, "16M": 1 << 24}
TYPES = {
    "float": TensorProto.FLOAT,
    "double": TensorProto.DOUBLE,
    "float16": TensorProto.FLOAT16,
    "int32": TensorProto.INT32,
    "int64": TensorProto.INT64,
}


@dataclass
class Row:
    op: str
    dtype: str
    size: int
    threads: int
    served: bool
    ort_eps: float
    exact_eps: float
    fast_eps: float
    runs: int
    exact_ratio: float  # our speed over ORT's: median over rounds of ORT's time / ours (_paired_ratios)
    fast_ratio: float
    shape: str = ""  # MatMul/Gemm: "BxMxKxN" (the *_eps are then floating-point operations per second)


@dataclass
class Report:
    machine: dict[str, Any]
    rows: list[Row] = field(default_factory=list)
    copy_eps: float = 0.0
    overhead: dict[str, float] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "machine": self.machine,
            "copy_elements_per_s": self.copy_eps,
            "overhead": self.overhead,
            "rows": [asdict(r) for r in self.rows],
        }


# Row-wise ops run on [n / ROW, ROW] (a 1K size is one row), along the last axis.
ROW = 1024
ROW_OPS = ("Softmax", "LogSoftmax", "LayerNormalization", "ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin",
           "ReduceProd", "ReduceSumSquare", "ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp")
# MatMul and Gemm run at BERT-base shapes (batch x M x K x N) with a constant B, whatever --sizes says.
MM_OPS = ("MatMul", "Gemm")
MM_SHAPES = ((1, 128, 384, 384), (1, 128, 384, 1536), (1, 128, 1536, 384), (12, 64, 64, 64))


def _mm_model(
    op: str, elem: int, shape: tuple[int, int, int, int]
) -> tuple[onnx.ModelProto, list[tuple[str, int]]]:
    """MatMul [b, M, K] x constant [K, N] (Gemm: [M, K] x constant [N, K] with transB, b = 1; for b > 1,
    MatMul of [b, M, K] x [b, K, N], both inputs, as attention's batched products)."""
    b, m, k, n = shape
    vi = helper.make_tensor_value_info
    rng = np.random.default_rng(1)
    dt = np.dtype(helper.tensor_dtype_to_np_dtype(elem))
    ins: list[tuple[str, int]] = [("x", elem)]
    inits = []
    attrs: dict[str, Any] = {}
    if op == "Gemm":
        inits.append(onnx.numpy_helper.from_array(rng.uniform(-1, 1, (n, k)).astype(dt), "w"))
        attrs["transB"] = 1
        x_shape, out_shape = [m, k], [m, n]
    elif b == 1:
        inits.append(onnx.numpy_helper.from_array(rng.uniform(-1, 1, (k, n)).astype(dt), "w"))
        x_shape, out_shape = [b, m, k], [b, m, n]
    else:
        ins.append(("w", elem))
        x_shape, out_shape = [b, m, k], [b, m, n]
    inputs = [vi("x", elem, x_shape)] + ([vi("w", elem, [b, k, n])] if len(ins) > 1 else [])
    node = helper.make_node(op, ["x", "w"], ["out"], **attrs)
    graph = helper.make_graph([node], op, inputs, [vi("out", elem, out_shape)], initializer=inits)
    return helper.make_model(graph, ir_version=9, opset_imports=[helper.make_opsetid("", 20)]), ins


def _mm_inputs(ins: list[tuple[str, int]], shape: tuple[int, int, int, int], op: str,
               rng: np.random.Generator) -> dict[str, np.ndarray]:
    b, m, k, n = shape
    dt = np.dtype(helper.tensor_dtype_to_np_dtype(ins[0][1]))
    feeds = {"x": rng.uniform(-1, 1, (m, k) if op == "Gemm" else (b, m, k)).astype(dt)}
    if len(ins) > 1:
        feeds["w"] = rng.uniform(-1, 1, (b, k, n)).astype(dt)
    return feeds


def _model(op: str, elem: int) -> tuple[onnx.ModelProto, list[tuple[str, int]]]:
    """A one-node model of `op` over a 1-D tensor of symbolic length, and its (input, type) list."""
    vi = helper.make_tensor_value_info
    ins: list[tuple[str, int]] = [("x", elem)]
    attrs: dict[str, Any] = {}
    out_t = elem
    node_inputs = ["x"]
    opset = 20
    if op in ("Add", "Sub", "Mul", "Div", "Max", "Min", "Pow", "Less", "Equal", "Greater"):
        ins.append(("y", elem))
        node_inputs = ["x", "y"]
        if op in ("Less", "Equal", "Greater"):
            out_t = TensorProto.BOOL
    elif op == "Where":
        ins = [("c", TensorProto.BOOL), ("x", elem), ("y", elem)]
        node_inputs = ["c", "x", "y"]
    elif op == "Clip":
        ins += [("lo", elem), ("hi", elem)]
        node_inputs = ["x", "lo", "hi"]
    elif op == "Cast":
        out_t = TensorProto.FLOAT16 if elem != TensorProto.FLOAT16 else TensorProto.FLOAT
        attrs["to"] = out_t
    if op in ROW_OPS:
        inits = []
        out_dims: list[Any] = ["R", ROW]
        if op == "LayerNormalization":
            node_inputs = ["x", "scale", "bias"]
            dt = np.dtype(helper.tensor_dtype_to_np_dtype(elem))
            rng = np.random.default_rng(2)
            inits = [onnx.numpy_helper.from_array(rng.uniform(0.5, 1.5, ROW).astype(dt), "scale"),
                     onnx.numpy_helper.from_array(rng.uniform(-1, 1, ROW).astype(dt), "bias")]
            attrs.update(axis=-1, epsilon=1e-5)
        elif op.startswith("Reduce"):
            node_inputs = ["x", "axes"]
            inits = [onnx.numpy_helper.from_array(np.array([-1], np.int64), "axes")]
            attrs["keepdims"] = 1
            out_dims = ["R", 1]
        else:
            attrs["axis"] = -1
        node = helper.make_node(op, node_inputs, ["out"], **attrs)
        graph = helper.make_graph([node], op, [vi("x", elem, ["R", ROW])], [vi("out", elem, out_dims)],
                                  initializer=inits)
        return helper.make_model(graph, ir_version=9, opset_imports=[helper.make_opsetid("", 18)]), ins
    inputs = [vi(n, t, [] if n in ("lo", "hi") else ["N"]) for n, t in ins]
    node = helper.make_node(op, node_inputs, ["out"], **attrs)
    graph = helper.make_graph([node], op, inputs, [vi("out", out_t, ["N"])])
    return helper.make_model(graph, ir_version=9, opset_imports=[helper.make_opsetid("", opset)]), ins


def _inputs(ins: list[tuple[str, int]], n: int, op: str, rng: np.random.Generator) -> dict[str, np.ndarray]:
    feeds: dict[str, np.ndarray] = {}
    for name, t in ins:
        dt = np.dtype(helper.tensor_dtype_to_np_dtype(t))
        if name in ("lo", "hi"):
            feeds[name] = np.array(-1.0 if name == "lo" else 1.0, dtype=dt)
        elif dt == np.bool_:
            feeds[name] = rng.integers(0, 2, n).astype(bool)
        elif dt.kind == "f":
            lo, hi = (0.01, 100.0) if op in ("Log", "Sqrt", "Pow") else (-10.0, 10.0)
            if op == "Pow" and name == "y":
                lo, hi = -3.0, 3.0
            feeds[name] = rng.uniform(lo, hi, n).astype(dt)
        else:
            v = rng.integers(1, 100, n) if name == "y" else rng.integers(-1000, 1000, n)
            if op == "Pow" and name == "y":
                v = rng.integers(0, 4, n)
            feeds[name] = v.astype(dt)
    if op in ROW_OPS:
        feeds = {k: v.reshape(-1, ROW) for k, v in feeds.items()}
    return feeds


def _options(threads: int, global_pool: bool) -> ort.SessionOptions:
    so = ort.SessionOptions()
    if global_pool:
        so.use_per_session_threads = False
    else:
        so.intra_op_num_threads = threads
    so.log_severity_level = 3
    so.add_session_config_entry("session.record_ep_graph_assignment_info", "1")  # graph_nodes() reads it
    return so


def graph_nodes(sess: ort.InferenceSession) -> int:
    """How many nodes the graph ORT runs has (after its optimisers), every execution provider together."""
    return len(assignments(sess))


def _session(
    model: onnx.ModelProto, threads: int, ours: bool, global_pool: bool = False
) -> ort.InferenceSession:
    """A session of `model` (stock ORT, or with the custom-op library registered) with `threads` intra-op
    threads, or on the process's global pool."""
    so = _options(threads, global_pool)
    if ours:
        so = session_options(so, ops=custom_op_types(model))
    return ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])


def _our_session(
    model: onnx.ModelProto,
    threads: int,
    mode: str,
    via: str,
    global_pool: bool = False,
    strict: bool = False,
    fold: bool = True,
) -> ort.InferenceSession:
    """OneModel EP's session of the unmodified `model`: through the plugin EP, or rewritten to ai.onemodel
    (strict: a StrictModeError where a computing node would run outside OneModel EP), its constant nodes
    folded by OneModel's kernels first (fold, as onemodel_ep.InferenceSession does)."""
    if fold:
        model = fold_constants(model, mode=mode)
    if via == "ep":
        so = ep_session_options(_options(threads, global_pool), mode=mode, custom_ops=custom_op_types(model))
        sess = ort.InferenceSession(model.SerializeToString(), so, enable_fallback=0)
        if strict:
            strict_mode.check_session(model, sess, mode)
        return sess
    report = RewriteReport(mode, None)
    rewritten = rewrite(model, mode=mode, report=report)
    if strict:
        strict_mode.check(strict_mode.outside_rewrite(report, rewritten))
    return _session(rewritten, threads, True, global_pool)


def check_strict(ops: Sequence[str], dtypes: Sequence[str], via: str) -> None:
    """Strict mode for the one-node models of `ops` over `dtypes`: one StrictModeError naming every node
    that would run outside OneModel EP, before any timing (one that cannot load is left to run()'s skip)."""
    outside: list[str] = []
    for op in ops:
        for dname in dtypes:
            elem = TYPES[dname]
            model = _mm_model(op, elem, MM_SHAPES[0])[0] if op in MM_OPS else _model(op, elem)[0]
            try:
                _our_session(model, 1, "exact", via, strict=True)
            except StrictModeError as e:
                outside += [f"{line} ({op} over {dname})" for line in e.nodes]
            except Exception:  # a model stock ORT or we cannot load: run() skips it with a line
                continue
    if outside:
        raise strict_mode.refusal(outside, "the benchmark's models")


def _compared_sessions(
    model: onnx.ModelProto, threads: int, via: str, global_pool: bool, what: str
) -> list[ort.InferenceSession] | None:
    """Stock ORT's, OneModel's exact-mode and fast-mode sessions of `model`; None, with a `skip` line on
    stderr, where one cannot be made (stock ORT may not have this op or type)."""
    try:
        return [
            _session(model, threads, False, global_pool),
            _our_session(model, threads, "exact", via, global_pool),
            _our_session(model, threads, "fast", via, global_pool),
        ]
    except Exception as e:
        print(f"skip {what}: {str(e).splitlines()[0][:100]}", file=sys.stderr)
        return None


BLOCK_S = 0.02  # with a thread pool, each session runs for about this long before the next one takes over


def _paired_ratios(per_round: Sequence[Sequence[float]]) -> list[float]:
    """For each session k, the median over rounds r of per_round[0][r] / per_round[k][r]: its speed over the
    first session's, from runs next to each other in time.

    On a VM whose speed drifts from second to second (this project's CI machine moved by 10-30% within a
    minute), the ratio of two medians taken over the whole budget mixes slow and fast phases in different
    proportions for each session; the ratio within a round does not (a build against itself gives 1.000 this
    way, see tools/bench/ab_kernels.c), so the ratios are computed per round and their median reported.
    """
    base = per_round[0]
    return [statistics.median(a / b for a, b in zip(base, ts, strict=True)) for ts in per_round]


def _time_interleaved(
    sessions: Sequence[ort.InferenceSession],
    feeds: dict[str, np.ndarray],
    n: int,
    budget_s: float,
    pooled: bool = False,
) -> tuple[list[float], list[float], int]:
    """Median elements/s of each session, each session's speed over the first's (`_paired_ratios` of the
    rounds' median times), and the runs per session; the sessions take turns (ORT, exact, fast, ORT, ...).

    With one intra-op thread (no pool) they take turns run by run (a round is one run of each). With a pool
    (`pooled`) they take turns in blocks of about BLOCK_S of work (3 to 2000 runs) whose first quarter is not
    counted (the pool's threads settle on the new session's work; with a pool per session, run by run, no
    two-thread session scaled on a two-CPU machine, because the other sessions' idle threads kept spinning on
    the CPUs); a round is one block of each, timed by its counted runs' median.
    """
    warm: list[float] = []
    for s in sessions:  # warm-up
        for _ in range(3):
            t = time.perf_counter()
            s.run(None, feeds)
            warm.append(time.perf_counter() - t)
    block = max(3, min(2000, int(BLOCK_S / max(min(warm), 1e-7)))) if pooled else 1
    skip = max(1, block // 4) if pooled else 0
    times: list[list[float]] = [[] for _ in sessions]
    per_round: list[list[float]] = [[] for _ in sessions]
    start = time.perf_counter()
    runs = rounds = 0
    min_rounds, max_runs = (2, 4000) if pooled else (5, 2000)
    while rounds < min_rounds or (time.perf_counter() - start < budget_s and runs < max_runs):
        for k, s in enumerate(sessions):
            counted: list[float] = []
            for j in range(block):
                t = time.perf_counter()
                s.run(None, feeds)
                if j >= skip:
                    counted.append(time.perf_counter() - t)
            times[k] += counted
            per_round[k].append(statistics.median(counted))
        runs += block
        rounds += 1
    return [n / statistics.median(ts) for ts in times], _paired_ratios(per_round), runs


def copy_bandwidth(n: int = 1 << 24) -> float:
    """Elements (float32) per second of a plain memory copy: the memory-bound ceiling."""
    a = np.random.default_rng(0).random(n, dtype=np.float32)
    b = np.empty_like(a)
    ts = []
    for _ in range(15):
        t = time.perf_counter()
        np.copyto(b, a)
        ts.append(time.perf_counter() - t)
    return n / statistics.median(ts)


def call_overhead(
    n: int = 1024, threads: int = 1, budget_s: float = 1.0, via: str = "rewrite"
) -> dict[str, float]:
    """Seconds per session.run of one built-in Add node against one OneModel Add node (`via` the EP or the
    rewrite), on n floats."""
    model, ins = _model("Add", TensorProto.FLOAT)
    a, b = _session(model, threads, False), _our_session(model, threads, "exact", via)
    feeds = _inputs(ins, n, "Add", np.random.default_rng(0))
    eps, paired, _ = _time_interleaved([a, b], feeds, n, budget_s, threads != 1)
    return {"elements": n, "builtin_s": n / eps[0], "custom_s": n / eps[1], "ratio": 1.0 / paired[1]}


def _feeds_seed(op: str, dname: str, n: int) -> int:
    """The seed of one configuration's inputs: the same in the parent and in a child process."""
    return zlib.crc32(f"{op}/{dname}/{n}".encode())


@dataclass(frozen=True)
class _Plan:
    """What run() measures at each thread count (passed whole to the child process of a global pool)."""

    ops: Sequence[str]
    dtypes: Sequence[str]
    sizes: Sequence[str]
    budget_s: float
    progress: bool
    via: str


def _measure(plan: _Plan, th: int, global_pool: bool) -> list[Row]:
    """The rows of one thread setting, measured in this process."""
    rows: list[Row] = []
    served_ops = op_table()
    sizes, budget_s, progress, via = plan.sizes, plan.budget_s, plan.progress, plan.via
    for op in plan.ops:
        for dname in plan.dtypes:
            elem = TYPES[dname]
            if op in MM_OPS:
                rows += _measure_mm(op, dname, th, budget_s, progress, global_pool, via)
                continue
            model, ins = _model(op, elem)
            rr = RewriteReport("exact", None)
            rewrite(model, mode="exact", report=rr)
            served = op in served_ops and bool(rr.moved)
            sess = _compared_sessions(model, th, via, global_pool, f"{op} {dname}")
            if sess is None:
                continue
            for sname in sizes:
                n = SIZES[sname]
                feeds = _inputs(ins, n, op, np.random.default_rng(_feeds_seed(op, dname, n)))
                eps, paired, runs = _time_interleaved(sess, feeds, n, budget_s, th != 1)
                row = Row(op, dname, n, th, served, eps[0], eps[1], eps[2], runs, paired[1], paired[2])
                rows.append(row)
                if progress:
                    print(format_row(row), file=sys.stderr, flush=True)
    return rows


def _measure_mm(op: str, dname: str, th: int, budget_s: float, progress: bool, global_pool: bool,
                via: str) -> list[Row]:
    """MatMul or Gemm at MM_SHAPES: rows whose *_eps are floating-point operations (2 b M K N) per second."""
    rows: list[Row] = []
    elem = TYPES[dname]
    for shape in MM_SHAPES:
        if op == "Gemm" and shape[0] != 1:
            continue
        model, ins = _mm_model(op, elem, shape)
        rr = RewriteReport("exact", None)
        rewrite(model, mode="exact", report=rr)
        sess = _compared_sessions(model, th, via, global_pool, f"{op} {dname}")
        if sess is None:
            continue
        flops = 2 * shape[0] * shape[1] * shape[2] * shape[3]
        feeds = _mm_inputs(ins, shape, op, np.random.default_rng(_feeds_seed(op, dname, flops)))
        eps, paired, runs = _time_interleaved(sess, feeds, flops, budget_s, th != 1)
        row = Row(op, dname, flops, th, bool(rr.moved), eps[0], eps[1], eps[2], runs, paired[1], paired[2],
                  "x".join(map(str, shape)))
        rows.append(row)
        if progress:
            print(format_row(row), file=sys.stderr, flush=True)
    return rows


def _measure_on_global_pool(plan: _Plan, th: int) -> list[Row]:
    """In a fresh child process: ORT's global intra-op pool of `th` threads (0: ORT's default), the rows."""
    ort.set_global_thread_pool_sizes(th, 1)
    return _measure(plan, th, True)


def run(
    ops: Sequence[str],
    dtypes: Sequence[str],
    sizes: Sequence[str],
    threads: Sequence[int],
    budget_s: float = 0.5,
    progress: bool = True,
    via: str = "rewrite",
) -> Report:
    machine = {
        "via": via,
        "platform": platform.platform(),
        "processor": platform.processor(),
        "cpus": os.cpu_count(),
        "onnxruntime": ort.__version__,
        "date": time.strftime("%Y-%m-%d %H:%M:%S"),
    }
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                machine["cpu"] = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    rep = Report(machine)
    rep.copy_eps = copy_bandwidth()
    rep.overhead = call_overhead(via=via)
    th_list = list(dict.fromkeys(threads))
    plan = _Plan(ops, dtypes, sizes, budget_s, progress, via)
    for th in th_list:
        if th == 1:
            rep.rows += _measure(plan, th, False)
            continue
        # a global pool must be set before the process's ORT environment exists: a fresh child process
        with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as ex:
            job = ex.submit(_measure_on_global_pool, plan, th)
            rep.rows += job.result()
    rep.rows.sort(key=lambda r: (ops.index(r.op), dtypes.index(r.dtype), th_list.index(r.threads), r.size))
    return rep


def model_feeds(sess: ort.InferenceSession, dim: int, seed: int = 0) -> dict[str, np.ndarray]:
    """Inputs for a whole model: dynamic dimensions set to `dim`; floats in [-1, 1), integers in [0, 64)
    (token ids, positions), inputs named like a mask all ones."""
    rng = np.random.default_rng(seed)
    feeds: dict[str, np.ndarray] = {}
    for i in sess.get_inputs():
        shape = [d if isinstance(d, int) and d >= 0 else dim for d in i.shape]
        dt = np.dtype(helper.tensor_dtype_to_np_dtype(_ORT_TYPES.get(i.type, TensorProto.FLOAT)))
        if "mask" in i.name:
            feeds[i.name] = np.ones(shape, dt)
        elif dt.kind == "f":
            feeds[i.name] = rng.uniform(-1, 1, shape).astype(dt)
        elif dt.kind == "b":
            feeds[i.name] = rng.integers(0, 2, shape).astype(dt)
        else:
            feeds[i.name] = rng.integers(0, 64, shape).astype(dt)
    return feeds


_ORT_TYPES = {
    "tensor(float)": TensorProto.FLOAT,
    "tensor(double)": TensorProto.DOUBLE,
    "tensor(float16)": TensorProto.FLOAT16,
    "tensor(int32)": TensorProto.INT32,
    "tensor(int64)": TensorProto.INT64,
    "tensor(bool)": TensorProto.BOOL,
}


def bench_model(
    path: str,
    via: str,
    threads: int,
    budget_s: float,
    dim: int,
    feeds: dict[str, np.ndarray] | None = None,
    strict: bool = False,
    fold: bool = True,
) -> dict[str, Any]:
    """Stock ORT against OneModel EP exact mode on a whole model, interleaved run by run (one intra-op thread)
    or block by block: median latencies and the paired ratio of our time over stock's (strict: refused with
    a StrictModeError where a computing node would run outside OneModel EP; fold=False: without OneModel's
    constant folding), and the nodes of the graph each runs."""
    model = cli_args.load_model(path)
    ours = _our_session(model, threads, "exact", via, strict=strict, fold=fold)
    stock = _session(model, threads, False)
    if feeds is None:
        feeds = model_feeds(stock, dim)
    eps, paired, runs = _time_interleaved([stock, ours], feeds, 1, budget_s, threads != 1)
    return {
        "model": path,
        "via": via,
        "threads": threads,
        "inputs": {k: list(v.shape) for k, v in feeds.items()},
        "stock_s": 1.0 / eps[0],
        "ours_s": 1.0 / eps[1],
        "ours_over_stock_time": 1.0 / paired[1],
        "stock_nodes": graph_nodes(stock),
        "ours_nodes": graph_nodes(ours),
        "fold": fold,
        "runs": runs,
        "onnxruntime": ort.__version__,
        "date": time.strftime("%Y-%m-%d %H:%M:%S"),
    }


def format_model(r: dict[str, Any]) -> str:
    th = "default" if r["threads"] == 0 else str(r["threads"])
    shapes = ", ".join(f"{k} {v}" for k, v in r["inputs"].items())
    return (
        f"{r['model']} ({shapes}), {th} thread(s), onnxruntime {r['onnxruntime']}, {r['date']}\n"
        f"  stock ORT {r['stock_s'] * 1e3:.3f} ms, OneModel via {r['via']} (exact) "
        f"{r['ours_s'] * 1e3:.3f} ms a run"
        f" (medians of {r['runs']} runs each); ours / stock time {r['ours_over_stock_time']:.3f}"
        " (median over rounds of adjacent runs)"
        + (f"\n  graph nodes: stock {r['stock_nodes']}, ours {r['ours_nodes']}"
           f" ({'constants folded' if r.get('fold', True) else 'no folding'})" if "ours_nodes" in r else "")
    )


def format_row(r: Row) -> str:
    th = "default" if r.threads == 0 else str(r.threads)
    size = next((k for k, v in SIZES.items() if v == r.size), str(r.size))
    if r.shape:
        size = r.shape + " (GFLOP/s)"
    note = "" if r.served else "  (not served: stock ORT on both sides)"
    return (
        f"| {r.op} | {r.dtype} | {size} | {th} | {r.ort_eps / 1e9:.2f} | {r.exact_eps / 1e9:.2f} | "
        f"{r.fast_eps / 1e9:.2f} | {r.exact_ratio:.2f} | {r.fast_ratio:.2f} |{note}"
    )


def format_table(rep: Report) -> str:
    lines = [
        f"machine: {rep.machine.get('cpu', rep.machine['processor'])}, {rep.machine['cpus']} cpus, "
        f"onnxruntime {rep.machine['onnxruntime']}, {rep.machine['date']}",
        f"memory-bound ceiling (float32 copy, 16M): {rep.copy_eps / 1e9:.2f} G elements/s",
        f"per-call overhead, Add on {rep.overhead['elements']} floats, 1 thread: built-in "
        f"{rep.overhead['builtin_s'] * 1e6:.1f} us, OneModel via {rep.machine.get('via', 'rewrite')} "
        f"{rep.overhead['custom_s'] * 1e6:.1f} us (ours / built-in time = {rep.overhead['ratio']:.2f})",
        "G/s: medians over the runs; ratios: medians over the rounds of the ratio of adjacent runs (one round"
        " runs each session once, or one block of each with a thread pool), which the machine's drift between"
        " rounds does not move",
        "",
        "| op | type | size | threads | ORT G/s | exact G/s | fast G/s | exact/ORT | fast/ORT |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    lines += [format_row(r) for r in rep.rows]
    return "\n".join(lines)


def plot(rep: Report, path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [r for r in rep.rows if r.size == max(x.size for x in rep.rows if x.op == r.op)]
    labels = [f"{r.op}\n{r.dtype}\nT={r.threads or 'def'}" for r in rows]
    x = np.arange(len(rows))
    fig, ax = plt.subplots(figsize=(max(8, len(rows) * 0.6), 4))
    ax.bar(x - 0.2, [r.exact_ratio for r in rows], 0.4, label="exact / ORT")
    ax.bar(x + 0.2, [r.fast_ratio for r in rows], 0.4, label="fast / ORT")
    ax.axhline(1.0, color="k", lw=0.8)
    ax.set_xticks(x, labels, fontsize=7)
    ax.set_ylabel("throughput ratio (higher is better)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def add_subparser(sub: Any) -> None:
    b = sub.add_parser("bench", help="time stock ORT against OneModel EP exact and fast mode")
    b.add_argument("--ops", default=",".join(DEFAULT_OPS), help="comma list of operators (info --ops)")
    b.add_argument("--types", default="float", help=f"comma list of {', '.join(TYPES)}")
    b.add_argument("--sizes", default="1K,64K,1M,16M", help=f"comma list of {', '.join(SIZES)}")
    b.add_argument("--threads", default="1,0", help="comma list of counts >= 0; 0 is ORT's default count")
    b.add_argument(
        "--budget", type=cli_args.number(float), default=0.5, help="seconds of timing per configuration"
    )
    b.add_argument(
        "--via",
        choices=VIAS,
        default=None,
        help="OneModel through its execution provider or the rewrite (default: ep where ORT supports it)",
    )
    b.add_argument("--model", default=None, help="time this whole model (stock ORT against exact mode)")
    b.add_argument("--dim", type=cli_args.number(int), default=16, help="--model: size of dynamic dimensions")
    b.add_argument("--inputs", default=None, help="--model: .npz of inputs (names as keys) instead")
    b.add_argument("--no-fold", action="store_true",
                   help="--model: OneModel without its constant folding (docs/constant-folding.md)")
    b.add_argument("--json", default=None)
    b.add_argument("--plot", default=None, help="a PNG of the ratios (needs matplotlib)")
    b.add_argument(
        "--summarize",
        nargs="+",
        metavar="JSON",
        default=None,
        help="time nothing: print the ranges over these --json reports and the issue-6 targets they meet",
    )
    cli_args.add_strict_option(b)
    b.set_defaults(func=main_args)


def _thread_counts(text: str) -> list[int]:
    counts = []
    for t in cli_args.comma_list(text, "--threads"):
        try:
            n = int(t)
        except ValueError:
            raise UsageError(f"--threads: {t!r} is not an integer") from None
        if n < 0:
            raise UsageError(f"--threads: {n} is negative (0 is ORT's default count)")
        counts.append(n)
    return counts


def main_args(args: argparse.Namespace) -> int:
    if args.summarize:
        from onemodel_ep import bench_summary

        try:
            print(bench_summary.summarize(bench_summary.load(args.summarize)))
        except ValueError as e:
            raise UsageError(str(e)) from e
        return 0
    via = args.via or default_via()
    if args.model:
        return _main_model(args, via)
    ops = cli_args.comma_list(args.ops, "--ops", sorted(op_table()))
    dtypes = cli_args.comma_list(args.types, "--types", TYPES)
    sizes = cli_args.comma_list(args.sizes, "--sizes", SIZES)
    threads = _thread_counts(args.threads)
    if args.json:
        cli_args.output_file(args.json, "--json")
    if args.strict:
        check_strict(ops, dtypes, via)
    if args.plot:
        cli_args.output_file(args.plot, "--plot")
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            raise UsageError("--plot needs matplotlib: pip install 'onemodel-ep[plot]'") from None
    rep = run(ops, dtypes, sizes, threads, budget_s=args.budget, via=via)
    if not rep.rows:
        raise UsageError(
            f"nothing measured: stock ORT runs none of the one-node models of {', '.join(ops)} "
            f"over {', '.join(dtypes)} (see the skip lines above)"
        )
    print(format_table(rep))
    if args.json:
        try:
            with open(args.json, "w") as f:
                json.dump(rep.to_json(), f, indent=1)
        except OSError as e:
            raise UsageError(f"--json: cannot write {args.json}: {e.strerror or e}") from None
    if args.plot:
        plot(rep, args.plot)
    return 0


def _main_model(args: argparse.Namespace, via: str) -> int:
    threads = _thread_counts(args.threads)
    feeds = None
    if args.inputs:
        feeds = cli_args.read_inputs(args.inputs)
    if args.json:
        cli_args.output_file(args.json, "--json")
    results = []
    for th in threads:
        try:
            r = bench_model(args.model, via, th, args.budget, args.dim, feeds, args.strict, not args.no_fold)
        except UsageError:
            raise
        except Exception as e:  # ORT's errors: a model or inputs it cannot run
            raise UsageError(f"cannot run {args.model}: {cli_args.one_line(e)}") from None
        print(format_model(r))
        results.append(r)
    if args.json:
        try:
            with open(args.json, "w") as f:
                json.dump(results, f, indent=1)
        except OSError as e:
            raise UsageError(f"--json: cannot write {args.json}: {e.strerror or e}") from None
    return 0
