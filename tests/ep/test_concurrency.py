"""Concurrency and leaks: several sessions sharing the library, run from several Python threads at once, give
exactly the single-threaded results; ORT's intra-op thread pool (KernelContext_ParallelFor over the library's
fixed chunks) gives the same bits as one thread; creating and destroying sessions leaks no memory. Each holds
for the rewrite path and for the execution provider (its kernel registry and its compiled nodes); the EP's
leak check also registers and unregisters the library every cycle.

The leak figures are measured in a child process (RSS from /proc/self/statm) and printed; run
`python -m pytest tests/ep/test_concurrency.py -s -k leak` to see them. Under the sanitizer build
(ONEMODEL_SANITIZE=1) the loops are shorter and the RSS bounds are not asserted (ASan's quarantine keeps freed
memory on purpose).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

import onemodel_ep
from onemodel_ep.ep import EP_NAME, assignments, ep_session_options, ep_supported

SANITIZE = bool(os.environ.get("ONEMODEL_SANITIZE"))
TESTS = Path(__file__).resolve().parent
CHUNK = 1 << 15  # the library's largest parallel chunk (node.c OM_CHUNK; transcendentals use 8K)
N = 3 * CHUNK + 1234  # several chunks and a ragged tail


def chain_model() -> onnx.ModelProto:
    """Served ops over f32/f64/i32/bool, with broadcasting; the result is sensitive to every bit."""
    f = TensorProto.FLOAT
    nodes = [
        helper.make_node("Mul", ["x", "y"], ["m"], name="mul"),
        helper.make_node("Add", ["m", "b"], ["a"], name="add"),  # b broadcasts
        helper.make_node("Div", ["a", "y"], ["d"], name="div"),
        helper.make_node("Abs", ["d"], ["ab"], name="abs"),
        helper.make_node("Sqrt", ["ab"], ["s"], name="sqrt"),
        helper.make_node("Max", ["s", "x", "m"], ["mx"], name="max3"),
        helper.make_node("Greater", ["mx", "b"], ["g"], name="gt"),
        helper.make_node("Where", ["g", "mx", "d"], ["w"], name="where"),
        helper.make_node("Cast", ["w"], ["w64"], name="cast64", to=TensorProto.DOUBLE),
        helper.make_node("Sum", ["w64", "w64", "w64"], ["sum"], name="sum"),
        helper.make_node("Cast", ["x"], ["xi"], name="casti", to=TensorProto.INT32),
        helper.make_node("Mul", ["xi", "xi"], ["xi2"], name="muli"),  # wraps
        helper.make_node("Clip", ["d", "lo", "hi"], ["c"], name="clip"),
        # Transcendentals and Pow run in smaller chunks (node.c OM_CHUNK_COSTLY): 8K elements.
        helper.make_node("Tanh", ["c"], ["t"], name="tanh"),
        helper.make_node("Exp", ["t"], ["e"], name="exp"),
        helper.make_node("Pow", ["e", "t"], ["pw"], name="pow"),
        helper.make_node("Erf", ["pw"], ["ef"], name="erf"),
    ]
    g = helper.make_graph(
        nodes,
        "chain",
        [
            helper.make_tensor_value_info("x", f, ["N"]),
            helper.make_tensor_value_info("y", f, ["N"]),
            helper.make_tensor_value_info("b", f, [1]),
        ],
        [
            helper.make_tensor_value_info("sum", TensorProto.DOUBLE, None),
            helper.make_tensor_value_info("xi2", TensorProto.INT32, None),
            helper.make_tensor_value_info("c", f, None),
            helper.make_tensor_value_info("ef", f, None),
        ],
        initializer=[helper.make_tensor("lo", f, [], [-3.0]), helper.make_tensor("hi", f, [], [1e4])],
    )
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)], ir_version=9)


def inputs(n: int = N, seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(n) * 1e3).astype(np.float32)
    y = (rng.standard_normal(n) * 10).astype(np.float32)
    y[::97] = 0.0  # inf / nan on the way
    x[::101] = -0.0
    return {"x": x, "y": y, "b": np.array([0.25], np.float32)}


# The rewrite path, and the execution provider with its kernel registry and with compiled nodes.
VIAS = ["rewrite"] + (["ep", "ep-compile"] if ep_supported() else [])


def session(
    model: onnx.ModelProto, threads: int, mode: str = "exact", path: str | None = None, via: str = "rewrite"
) -> ort.InferenceSession:
    so = ort.SessionOptions() if via != "rewrite" else onemodel_ep.session_options()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.log_severity_level = 3
    if via != "rewrite":
        dispatch = "compile" if via == "ep-compile" else "registry"
        ep_session_options(so, mode=mode, kernel_path=path, dispatch=dispatch)
        s = ort.InferenceSession(model.SerializeToString(), so, enable_fallback=0)
        placed = {a.name for a in assignments(s) if a.ep == EP_NAME}
        assert placed == {n.name for n in model.graph.node}, placed  # every node on the library
        return s
    rep = onemodel_ep.RewriteReport(mode, path)
    m = onemodel_ep.rewrite(model, mode=mode, kernel_path=path, report=rep)
    assert not rep.stayed, rep.summary()  # every node must run on the library
    return ort.InferenceSession(m.SerializeToString(), so, providers=["CPUExecutionProvider"])


def _bits(outs: list[np.ndarray]) -> list[bytes]:
    return [np.ascontiguousarray(o).tobytes() for o in outs]


@pytest.mark.parametrize("via", VIAS)
def test_thread_pool_gives_the_same_bits_as_one_thread(via):
    feeds = inputs()
    model = chain_model()
    for mode in ("exact", "fast"):
        want = _bits(session(model, 1, mode).run(None, feeds))  # the rewrite path, one thread
        for threads in (1, 2, 4, 7) if via != "rewrite" else (2, 4, 7):
            got = _bits(session(model, threads, mode, via=via).run(None, feeds))
            assert got == want, f"{via} {mode}: intra_op_num_threads={threads} differs from 1 thread"


@pytest.mark.parametrize("via", VIAS)
def test_sessions_shared_across_python_threads(via):
    model = chain_model()
    feed_sets = [inputs(N - 17 * k, seed=k) for k in range(3)]
    configs = [(1, "exact", None), (4, "exact", None), (2, "exact", "scalar"), (3, "fast", None)]
    sessions = [session(model, t, m, p, via) for t, m, p in configs]
    # Single-threaded references: one per (mode, feed set); every path and thread count must match exact ones.
    ref_exact = [_bits(session(model, 1, "exact").run(None, f)) for f in feed_sets]
    ref_fast = [_bits(session(model, 1, "fast").run(None, f)) for f in feed_sets]
    iterations = 4 if SANITIZE else 25
    errors: list[str] = []
    barrier = threading.Barrier(6)

    def worker(tid: int) -> None:
        barrier.wait()
        for it in range(iterations):
            k = (tid + it) % len(sessions)
            j = (tid * 7 + it) % len(feed_sets)
            got = _bits(sessions[k].run(None, feed_sets[j]))
            want = ref_fast[j] if configs[k][1] == "fast" else ref_exact[j]
            if got != want:
                errors.append(f"thread {tid} iteration {it}: session {configs[k]} on feed set {j} differs")
                return

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[:5]


def test_direct_nodes_from_threads():
    """The same Node objects run from several threads at once (no ORT): nodes are read-only when run."""
    from onemodel_ep.node import Node

    x = inputs(5000)["x"]
    nodes = [Node("Add", [1, 1]), Node("Sqrt", [1]), Node("Cast", [1], attributes={"to": 6})]
    want = [nodes[0].run(x, x).tobytes(), nodes[1].run(x).tobytes(), nodes[2].run(x).tobytes()]
    errors: list[int] = []

    def worker() -> None:
        for _ in range(20 if SANITIZE else 200):
            got = [nodes[0].run(x, x).tobytes(), nodes[1].run(x).tobytes(), nodes[2].run(x).tobytes()]
            if got != want:
                errors.append(1)
                return

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


# ---- leaks


def _rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def _rss_growth(cycle: Callable[[], None], warmup: int, cycles: int, kb_digits: int) -> dict[str, float]:
    """Run `cycle` `warmup` times, then `cycles` times between two RSS readings; report the growth."""
    import gc

    for _ in range(warmup):
        cycle()
    gc.collect()
    before = _rss_mb()
    for _ in range(cycles):
        cycle()
    gc.collect()
    after = _rss_mb()
    return {
        "warmup": warmup,
        "cycles": cycles,
        "rss_before_mb": round(before, 1),
        "rss_after_mb": round(after, 1),
        "growth_mb": round(after - before, 2),
        "growth_kb_per_cycle": round((after - before) * 1024 / cycles, kb_digits),
    }


def child_session_cycles(warmup: int, cycles: int, via: str = "rewrite") -> dict[str, float]:
    """In a child: create / run / destroy sessions (`via` as VIAS; "ep-register" also registers and
    unregisters the EP library each cycle); RSS after warm-up and after the cycles."""
    import gc

    from onemodel_ep import ep

    model = chain_model().SerializeToString()
    feeds = inputs(4096)

    def cycle() -> None:
        so = ort.SessionOptions()
        so.log_severity_level = 3
        so.intra_op_num_threads = 2
        if via == "rewrite":
            s = onemodel_ep.InferenceSession(model, so, via="rewrite")
        else:
            dispatch = "compile" if via == "ep-compile" else "registry"
            s = ort.InferenceSession(model, ep.ep_session_options(so, dispatch=dispatch), enable_fallback=0)
        s.run(None, feeds)
        del s, so
        if via == "ep-register":
            gc.collect()
            ep.unregister_library()

    return _rss_growth(cycle, warmup, cycles, kb_digits=2)


def child_node_cycles(warmup: int, cycles: int) -> dict[str, float]:
    """In a child: om_node_create / run / destroy through the Python Node (no ORT)."""
    from onemodel_ep.node import Node

    x = np.arange(1000, dtype=np.float32)

    def cycle() -> None:
        for op, types in (("Add", [1, 1]), ("Max", [1, 1, 1]), ("Clip", [1, 1, 1]), ("Where", [9, 1, 1])):
            n = Node(op, types)
            if op == "Where":
                n.run(x > 5, x, x)
            elif op == "Clip":
                n.run(x, np.float32(1), np.float32(9))
            else:
                n.run(*([x] * len(types)))
        try:
            Node("Add", [16, 16])
        except ValueError:
            pass

    return _rss_growth(cycle, warmup, cycles, kb_digits=3)


def _child(fn: str, *args: int | str) -> dict[str, float]:
    code = f"import json, test_concurrency as t; print('RESULT=' + json.dumps(t.{fn}(*{list(args)!r})))"
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(TESTS)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    with tempfile.TemporaryDirectory() as cwd:
        p = subprocess.run(
            [sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True, timeout=600
        )
    assert p.returncode == 0, f"child died (exit {p.returncode}):\n{p.stderr[-4000:]}"
    line = [ln for ln in p.stdout.splitlines() if ln.startswith("RESULT=")][-1]
    return json.loads(line[len("RESULT=") :])


@pytest.mark.skipif(not Path("/proc/self/statm").exists(), reason="RSS from /proc (Linux)")
@pytest.mark.parametrize("via", VIAS + (["ep-register"] if ep_supported() else []))
def test_session_create_destroy_does_not_leak(via):
    # 300 cycles after 30 of warm-up. A leak of one copy of the model's kernels per session would be a few KB
    # per cycle; of the 4096-element inputs/outputs, ~100 KB per cycle (30 MB); of an EP, its factory or its
    # kernel registry (one kernel definition per op row) per cycle, some KB. Bound: 8 MB over 300 cycles.
    r = _child("child_session_cycles", 5 if SANITIZE else 30, 20 if SANITIZE else 300, via)
    print(f"\nsession create/run/destroy via {via}: {json.dumps(r)}")
    if not SANITIZE:
        assert r["growth_mb"] < 8.0, r


@pytest.mark.skipif(not Path("/proc/self/statm").exists(), reason="RSS from /proc (Linux)")
def test_node_create_destroy_does_not_leak():
    # 20000 cycles x 5 node creations (one refused); a leaked om_node (~200 bytes) would be ~20 MB.
    r = _child("child_node_cycles", 200 if SANITIZE else 2000, 500 if SANITIZE else 20000)
    print(f"\nnode create/run/destroy: {json.dumps(r)}")
    if not SANITIZE:
        assert r["growth_mb"] < 4.0, r
