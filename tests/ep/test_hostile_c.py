"""Hostile input, part C (issue 39, items 1, 5, 6, 7): rank-0 run-time inputs, Reduce axes stock runs,
unused outputs of compiled nodes, and batched MatMul plans that must stay O(rank).

Every scenario that reaches ORT runs in a child Python process (`_child`), so a crash is a failed test, and
`ONEMODEL_LEGACY_SHAPES` (read at registration) or an address-space limit applies to that child alone. Each
scenario runs stock ORT (`cpu`) beside the ways into OneModel's kernels: the execution provider (`ep`, and
`ep_compile` with dispatch="compile") and the rewrite (`rewrite`); a OneModel run reports whether the node
was actually served by OneModel, so a test cannot pass by leaving the node to stock.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

VIAS = ("ep", "ep_compile", "rewrite")


# ---- the child side


def _session(model: onnx.ModelProto, via: str) -> tuple[Any, int]:
    """A session for `via`, and how many nodes OneModel serves in it."""
    import onnxruntime as ort

    import onemodel_ep
    from onemodel_ep import DOMAIN, ep

    if via == "cpu":
        so = ort.SessionOptions()
        so.log_severity_level = 4
        return ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"]), 0
    if via == "rewrite":
        model = onemodel_ep.rewrite(model)
        so = onemodel_ep.session_options()
        so.log_severity_level = 4
        sess = ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
        return sess, sum(n.domain == DOMAIN for n in model.graph.node)
    so = ort.SessionOptions()
    so.log_severity_level = 4
    dispatch = "compile" if via == "ep_compile" else "registry"
    sess = ort.InferenceSession(
        model.SerializeToString(), ep.ep_session_options(so, dispatch=dispatch), enable_fallback=0
    )
    return sess, len(ep.claimed_names(ep.assignments(sess)))


def child_run(model_hex: str, feeds: dict[str, Any], via: str) -> dict[str, Any]:
    """Build and run one session; the outcome as JSON data (outputs as hex bytes, so bits compare exactly)."""
    stage = "create"
    served = 0
    try:
        model = onnx.load_model_from_string(bytes.fromhex(model_hex))
        sess, served = _session(model, via)
        arrays = {k: np.frombuffer(bytes.fromhex(v["hex"]), v["dtype"]) for k, v in feeds.items()}
        arrays = {k: a.reshape(feeds[k]["shape"]) for k, a in arrays.items()}
        stage = "run"
        outs = sess.run(None, arrays)
    except Exception as exc:  # the point: every failure is an exception with a message
        return {"stage": stage, "error": f"{type(exc).__name__}: {exc}", "served": served}
    return {
        "stage": "done",
        "error": None,
        "served": served,
        "outputs": [
            None if o is None else {"shape": list(o.shape), "dtype": str(o.dtype), "hex": o.tobytes().hex()}
            for o in outs
        ],
    }


# ---- the parent side


def _child(
    model: onnx.ModelProto, feeds: dict[str, np.ndarray], via: str, legacy: bool = False
) -> dict[str, Any]:
    """Run `child_run` in a child Python; fail (not crash) if the child dies."""
    fd = {
        k: {"hex": v.tobytes().hex(), "dtype": str(v.dtype), "shape": list(v.shape)}
        for k, v in feeds.items()
    }
    return _call("child_run", [model.SerializeToString().hex(), fd, via], legacy)


def _call(fn: str, args: list[Any], legacy: bool = False) -> dict[str, Any]:
    """Run `test_hostile_c.<fn>(*args)` in a child Python; fail (not crash) if the child dies."""
    from tests.ep.child import run_in_child  # here, not at the top: the child imports this module alone

    return run_in_child("test_hostile_c", fn, args, {"ONEMODEL_LEGACY_SHAPES": "1" if legacy else None}, 600)


def _outputs(r: dict[str, Any]) -> list[np.ndarray | None]:
    assert r["error"] is None, r["error"]
    return [None if o is None else np.frombuffer(bytes.fromhex(o["hex"]), o["dtype"]).reshape(o["shape"])
            for o in r["outputs"]]


def _same_as_stock(model: onnx.ModelProto, feeds: dict[str, np.ndarray], vias=VIAS, legacy=(False,)) -> None:
    """Every OneModel way serves the model's nodes and gives stock ORT's outputs bit for bit."""
    want = _outputs(_child(model, feeds, "cpu"))
    for via in vias:
        for lg in legacy:
            r = _child(model, feeds, via, legacy=lg)
            got = _outputs(r)
            assert r["served"] == len(model.graph.node), f"{via} (legacy={lg}): not served: {r}"
            for w, g in zip(want, got, strict=True):
                assert g is not None and w is not None
                assert g.shape == w.shape and g.dtype == w.dtype, (via, lg, g.shape, w.shape)
                assert g.tobytes() == w.tobytes(), f"{via} (legacy={lg}): {g} != stock {w}"


def _model(nodes, inputs, outputs, opset: int = 18, initializers=()) -> onnx.ModelProto:
    g = helper.make_graph(nodes, "g", inputs, outputs, initializer=list(initializers))
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)], ir_version=9)


def _vi(name: str, t: int, shape) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(name, t, shape)


# ---- item 1: a rank-0 run-time input is present, not absent


def _reduce_runtime_axes(axes_shape) -> onnx.ModelProto:
    return _model(
        [helper.make_node("ReduceSum", ["x", "axes"], ["y"], name="rs")],
        [_vi("x", TensorProto.FLOAT, [2, 3]), _vi("axes", TensorProto.INT64, axes_shape)],
        [_vi("y", TensorProto.FLOAT, None)],
    )


# The execution provider always reads shapes in place; the rewrite reads them in place or (legacy) by copy.
WAYS = [("ep", False), ("ep_compile", False), ("rewrite", False), ("rewrite", True)]


@pytest.mark.parametrize(("via", "legacy"), WAYS)
def test_rank0_axes_input_is_refused_like_stock(via: str, legacy: bool) -> None:
    model = _reduce_runtime_axes(None)
    feeds = {"x": np.arange(6, dtype=np.float32).reshape(2, 3), "axes": np.array(1, dtype=np.int64)}
    stock = _child(model, feeds, "cpu")
    assert stock["error"], stock  # stock refuses a rank-0 axes input
    r = _child(model, feeds, via, legacy=legacy)
    assert r["served"] == 1, r
    assert r["error"] and r["stage"] == "run", r
    assert "input 1 (axes) must be 1-D, it has rank 0" in r["error"] and "'rs'" in r["error"], r["error"]


# ---- item 6: an output nobody reads still gets a buffer where the node needs one


@pytest.mark.parametrize(("via", "legacy"), WAYS)
def test_layernorm_with_only_mean_read(via: str, legacy: bool) -> None:
    """LayerNormalization whose Y nobody reads (only Mean is a graph output): the compiled node has no
    output for Y, so the node writes it to scratch memory. Rows of four small integers: Mean is exact, stock's
    too."""
    model = _model(
        [helper.make_node("LayerNormalization", ["x", "s", "b"], ["y_unused", "mean"], name="ln", axis=-1)],
        [_vi("x", TensorProto.FLOAT, [3, 4]), _vi("s", TensorProto.FLOAT, [4])]
        + [_vi("b", TensorProto.FLOAT, [4])],
        [_vi("mean", TensorProto.FLOAT, None)],
        opset=17,
    )
    feeds = {
        "x": np.array([[1, 2, 3, 6], [-4, 0, 4, 8], [7, 7, 7, 7]], dtype=np.float32),
        "s": np.ones(4, np.float32),
        "b": np.zeros(4, np.float32),
    }
    _same_as_stock(model, feeds, vias=(via,), legacy=(legacy,))


# ---- item 5: Reduce axes that stock runs are served as stock serves them (an axis named twice: reduced once)


def _reduce(x_shape, axes, keepdims: int, const: bool, op: str = "ReduceSum") -> onnx.ModelProto:
    inputs = [_vi("x", TensorProto.FLOAT, list(x_shape))]
    if not const:
        inputs.append(_vi("axes", TensorProto.INT64, [len(axes)]))
    inits = [helper.make_tensor("axes", TensorProto.INT64, [len(axes)], axes)] if const else []
    return _model([helper.make_node(op, ["x", "axes"], ["y"], name="r", keepdims=keepdims)], inputs,
                  [_vi("y", TensorProto.FLOAT, None)], initializers=inits)


def _small_ints(shape) -> np.ndarray:
    """Small integers: every sum of them is exact in f32, so stock's bits are the exact ones."""
    return (np.arange(int(np.prod(shape)), dtype=np.int64) % 7 - 3).astype(np.float32).reshape(shape)


REPEATED = [
    ("negative_repeat", (2, 3), [0, -2]),
    ("same_twice", (2, 3), [0, 0]),
    ("65_entries", (2, 3), [0, -1] * 32 + [1]),
    ("alternate_rank17", (2,) * 17, list(range(0, 17, 2))),
    ("alternate_rank17_negative_repeat", (2,) * 17, [-1, 15, 13, 11, 9, 7, 5, 3, 1, 1]),
]


@pytest.mark.parametrize("keepdims", [0, 1])
@pytest.mark.parametrize("const", [False, True], ids=["runtime_axes", "constant_axes"])
@pytest.mark.parametrize(("case", "shape", "axes"), REPEATED, ids=[c[0] for c in REPEATED])
def test_reduce_axes_stock_runs(case: str, shape, axes, const: bool, keepdims: int) -> None:
    feeds = {"x": _small_ints(shape)}
    if not const:
        feeds["axes"] = np.array(axes, np.int64)
    _same_as_stock(_reduce(shape, axes, keepdims, const), feeds, vias=("ep", "rewrite"))


def test_reduce_axes_attribute_of_70000_entries() -> None:
    """An axes attribute is read whole, however long (ORT gives its length first): 70,000 entries naming two
    axes (the reader's fixed buffer held 2^16, and refused more)."""
    model = _model([helper.make_node("ReduceSum", ["x"], ["y"], name="r", axes=[0, -1] * 35000, keepdims=0)],
                   [_vi("x", TensorProto.FLOAT, [2, 3])], [_vi("y", TensorProto.FLOAT, None)], opset=11)
    _same_as_stock(model, {"x": _small_ints((2, 3))})


def test_reduce_max_alternate_rank17() -> None:
    """The gathered order serves every Reduce op: ReduceMax (order-free: stock's bits) over alternate axes."""
    shape = (3, 2) * 8 + (3,)
    x = np.random.default_rng(5).standard_normal(shape).astype(np.float32)
    _same_as_stock(_reduce(shape, list(range(1, 17, 2)), 0, True, op="ReduceMax"), {"x": x}, vias=("ep",))


# ---- item 7: a batched MatMul's broadcast plan is O(rank), not O(batch)


def _batched_matmul() -> onnx.ModelProto:
    return _model(
        [helper.make_node("MatMul", ["a", "b"], ["y"], name="mm")],
        [_vi("a", TensorProto.FLOAT, [None, 1, 1]), _vi("b", TensorProto.FLOAT, [1, 1])],
        [_vi("y", TensorProto.FLOAT, None)],
    )


def child_matmul_under_limit(via: str, batch: int, headroom: int) -> dict[str, Any]:
    """A [batch, 1, 1] x B [1, 1] with the address space limited to what the process has after a warm-up run
    and the inputs, plus `headroom` bytes; the outcome, and the output's digest."""
    import hashlib
    import resource

    sess, served = _session(_batched_matmul(), via)
    b = np.full((1, 1), 3.0, np.float32)
    sess.run(None, {"a": np.ones((4, 1, 1), np.float32), "b": b})  # threads and arenas exist from here on
    a = np.ones((batch, 1, 1), np.float32)
    with open("/proc/self/statm") as f:
        vsz = int(f.read().split()[0]) * resource.getpagesize()
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (vsz + headroom, hard))
    try:
        (y,) = sess.run(None, {"a": a, "b": b})
    except Exception as exc:
        return {"error": f"{type(exc).__name__}: {exc}", "served": served}
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
    sha = hashlib.sha256(y.tobytes()).hexdigest()
    return {"error": None, "served": served, "shape": list(y.shape), "sha": sha}


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc/self/statm and RLIMIT_AS")
@pytest.mark.parametrize("via", ["ep", "rewrite"])
def test_batched_matmul_of_tiny_matrices_fits_where_stock_fits(via: str) -> None:
    """2^24 matrices [1, 1] x [1, 1]: the output is 64 MiB; main's table of batch offsets was 256 MiB more."""
    batch, headroom = 1 << 24, 160 << 20
    stock = _call("child_matmul_under_limit", ["cpu", batch, headroom])
    assert stock["error"] is None, stock
    r = _call("child_matmul_under_limit", [via, batch, headroom])
    assert r["served"] == 1, r
    assert r["error"] is None, r
    assert (r["shape"], r["sha"]) == (stock["shape"], stock["sha"])
