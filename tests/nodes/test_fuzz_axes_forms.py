"""Seeded, bounded fuzz of the Reduce ops' axes forms against stock ORT, through OneModel EP and the rewrite.

Each case is one Reduce node on a random input (rank 0 to 4, sometimes 17, or 65: above what numpy and the
library hold, fed flat, reshaped in the graph and given back flat with its shape) with axes in one of the
forms ONNX allows or forbids: the attribute (before the opset that made it an input), a constant
initializer, a run-time input (1-D, empty, rank 0, int32, with repeats, negatives, out of range, 65
entries), or none; keepdims and noop_with_empty_axes at random. Stock ORT's outcome is the oracle: where it
refuses (at session creation or at run time), ours must refuse too (or leave the node to stock ORT); where it
runs, ours must run and give the same shape and values (bit for bit for Max/Min and integer inputs, else
within 1e-5 relative).
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

import onemodel_ep

REDUCE = [
    "ReduceSum",
    "ReduceMean",
    "ReduceMax",
    "ReduceMin",
    "ReduceProd",
    "ReduceSumSquare",
    "ReduceL1",
    "ReduceL2",
    "ReduceLogSum",
    "ReduceLogSumExp",
]
AXES_INPUT_SINCE = {"ReduceSum": 13}  # the others: 18
SEED = 39
CASES = 160


def _input_since(op: str) -> int:
    return AXES_INPUT_SINCE.get(op, 18)


def _case(rng: random.Random) -> dict[str, Any]:
    op = rng.choice(REDUCE)
    high = rng.random()
    rank = 65 if high < 0.05 else 17 if high < 0.11 else rng.randint(0, 4)
    two = 0.5 if rank == 17 else 0.1  # rank 65: a few 2s, so that the input stays small
    dims = [(2 if rng.random() < two else 1) if rank > 4 else rng.randint(1, 4) for _ in range(rank)]
    since = _input_since(op)
    as_input = rng.random() < 0.7
    opset = since if as_input else since - 1
    form = rng.choice(
        ["none", "list", "empty", "repeat", "negative-repeat", "out-of-range", "many"]
        + (["scalar", "int32", "runtime", "runtime", "runtime-scalar"] if as_input else [])
    )
    axes: list[int] | int | None
    if form == "none":
        axes = None
    elif form == "empty":
        axes = []
    elif form in ("scalar", "runtime-scalar"):
        axes = rng.randint(-max(rank, 1), max(rank, 1) - 1)
    elif form == "out-of-range":
        axes = [rank + rng.randint(0, 2)]
    elif form == "many":
        axes = [rng.randint(-rank, rank - 1) for _ in range(65)] if rank else [0] * 65
    elif form == "repeat" and rank:
        a = rng.randint(0, rank - 1)
        axes = [a, a]
    elif form == "negative-repeat" and rank:
        a = rng.randint(0, rank - 1)
        axes = [a, a - rank]
    elif rank:
        k = rng.randint(1, rank)
        axes = sorted(rng.sample(range(rank), k))
        axes = [a - rank if rng.random() < 0.3 else a for a in axes]
    else:
        axes = [0]
    if rank > 4 and form in ("list", "runtime"):  # alternate axes: reduced, kept, reduced, ...
        axes = list(range(0, rank, 2))
    return {
        "op": op,
        "dims": dims,
        "opset": opset,
        "as_input": as_input,
        "form": form,
        "axes": axes,
        "keepdims": rng.choice([0, 1, None]),
        "noop": rng.choice([0, 1, None]) if as_input else None,
        "dtype": rng.choice([TensorProto.FLOAT, TensorProto.FLOAT, TensorProto.INT32]),
        "seed": rng.randint(0, 1 << 30),
    }


def _model(c: dict[str, Any]) -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    attrs: dict[str, Any] = {}
    if c["keepdims"] is not None:
        attrs["keepdims"] = c["keepdims"]
    if c["noop"] is not None:
        attrs["noop_with_empty_axes"] = c["noop"]
    # Above rank 64 (which numpy cannot hold) x comes flat and is reshaped in the graph, and the output
    # leaves flat with its shape beside it.
    high = len(c["dims"]) > 64
    x_dims = [int(np.prod(c["dims"]))] if high else c["dims"]
    inputs = [helper.make_tensor_value_info("x", c["dtype"], x_dims)]
    inits: list[onnx.TensorProto] = []
    names = ["xr" if high else "x"]
    axes = c["axes"]
    if axes is not None and not c["as_input"]:
        attrs["axes"] = axes if isinstance(axes, list) else [axes]
    elif axes is not None:
        atype = TensorProto.INT32 if c["form"] == "int32" else TensorProto.INT64
        arr = np.array(axes, dtype=np.int32 if atype == TensorProto.INT32 else np.int64)
        names.append("axes")
        if c["form"].startswith("runtime"):
            inputs.append(helper.make_tensor_value_info("axes", atype, list(arr.shape)))
        else:
            inits.append(onnx.numpy_helper.from_array(arr, "axes"))
    node = helper.make_node(c["op"], names, ["y"], name="reduce")
    for k, v in attrs.items():
        node.attribute.append(
            helper.make_attribute(k, v, attr_type=onnx.AttributeProto.INTS if k == "axes" else None)
        )
    nodes, outputs = [node], ["y"]
    if high:
        for d, name in ((c["dims"], "dims"), ([-1], "flat")):
            inits.append(numpy_helper.from_array(np.array(d, np.int64), name))
        nodes = [
            helper.make_node("Reshape", ["x", "dims"], ["xr"]),
            node,
            helper.make_node("Shape", ["y"], ["y_shape"]),
            helper.make_node("Reshape", ["y", "flat"], ["y_flat"]),
        ]
        outputs = ["y_flat", "y_shape"]
    out_types = [c["dtype"], TensorProto.INT64]
    outs = [helper.make_tensor_value_info(o, t, None) for o, t in zip(outputs, out_types)]
    graph = helper.make_graph(nodes, "g", inputs, outs, inits)
    model = helper.make_model(graph, ir_version=9, opset_imports=[helper.make_opsetid("", c["opset"])])
    rng = np.random.default_rng(c["seed"])
    x = (
        rng.integers(-3, 4, size=x_dims)
        if c["dtype"] == TensorProto.INT32
        else rng.normal(0, 1, x_dims)
    )
    x = np.asarray(x, dtype=np.int32 if c["dtype"] == TensorProto.INT32 else np.float32)
    feeds = {"x": x}
    if axes is not None and c["as_input"] and c["form"].startswith("runtime"):
        feeds["axes"] = np.array(axes, dtype=np.int64)
    return model, feeds


def _quiet() -> ort.SessionOptions:
    so = ort.SessionOptions()
    so.log_severity_level = 4
    return so


def _run(model: onnx.ModelProto, feeds: dict[str, np.ndarray], via: str | None) -> tuple[str, Any]:
    """("ok", output) or ("error", message)."""
    try:
        if via is None:
            sess: Any = ort.InferenceSession(
                model.SerializeToString(), _quiet(), providers=["CPUExecutionProvider"]
            )
        elif via == "ep":
            so = onemodel_ep.ep_session_options(_quiet())
            sess = ort.InferenceSession(model.SerializeToString(), so)
            sess.disable_fallback()
        else:
            sess = onemodel_ep.InferenceSession(model, _quiet(), via="rewrite")
        return "ok", sess.run(None, feeds)
    except Exception as e:  # ORT's Fail/InvalidArgument/..., ValueError from the rewrite
        return "error", str(e).splitlines()[0][:300]


def _disagreement(c: dict[str, Any], stock: tuple[str, Any], ours: tuple[str, Any]) -> str | None:
    if stock[0] == "error":
        return None if ours[0] == "error" else f"stock refuses ({stock[1]}) but ours runs"
    if ours[0] == "error":
        return f"stock runs but ours fails: {ours[1]}"
    for want, got in zip(map(np.asarray, stock[1]), map(np.asarray, ours[1]), strict=True):
        if want.shape != got.shape or want.dtype != got.dtype:
            return f"shape/type {got.shape} {got.dtype}, stock {want.shape} {want.dtype}"
        if c["op"] in ("ReduceMax", "ReduceMin") or want.dtype.kind == "i":
            same = np.array_equal(want, got, equal_nan=True)
        else:
            same = np.allclose(got, want, rtol=1e-5, atol=1e-6, equal_nan=True)
        if not same:
            return f"values differ: max |d| {np.nanmax(np.abs(got - want))}"
    return None


def test_axes_forms_fuzz_agrees_with_stock_ort():
    rng = random.Random(SEED)
    problems = []
    refused = 0
    for i in range(CASES):
        c = _case(rng)
        model, feeds = _model(c)
        stock = _run(model, feeds, None)
        refused += stock[0] == "error"
        for via in ("ep", "rewrite"):
            why = _disagreement(c, stock, _run(model, feeds, via))
            if why:
                problems.append(
                    f"case {i} via {via}: {c['op']} dims {c['dims']} opset {c['opset']} "
                    f"form {c['form']} axes {c['axes']} keepdims {c['keepdims']} "
                    f"noop {c['noop']}: {why}"
                )
    # Both outcomes must be exercised, or the fuzz proves nothing.
    assert 10 < refused < CASES - 10, f"stock refused {refused} of {CASES} cases"
    assert not problems, f"{len(problems)} of {2 * CASES} runs disagree with stock ORT:\n" + "\n".join(
        problems[:40]
    )


@pytest.mark.parametrize("seed", [1, 2])
def test_axes_case_generator_is_seeded(seed):
    a = [_case(random.Random(seed)) for _ in range(3)]
    b = [_case(random.Random(seed)) for _ in range(3)]
    assert a == b


@pytest.mark.parametrize("op", REDUCE)
@pytest.mark.parametrize("dims", [[], [3], [2, 2]])
def test_noop_with_empty_axes_applies_the_element_wise_part(op, dims):
    """noop_with_empty_axes=1 and no axes reduce nothing: each element alone, so L1 gives |x|, L2
    sqrt(x^2), SumSquare x^2, LogSum log x, LogSumExp log(exp x) (ONNX's reference and stock ORT); it was a
    plain copy."""
    c = {
        "op": op,
        "dims": dims,
        "opset": _input_since(op),
        "as_input": True,
        "form": "empty",
        "axes": [],
        "keepdims": None,
        "noop": 1,
        "dtype": TensorProto.FLOAT,
        "seed": 5,
    }
    model, feeds = _model(c)
    x = feeds["x"]
    feeds["x"] = np.asarray(np.abs(x) + 0.5 if op == "ReduceLogSum" else -np.abs(x) - 0.25, dtype=np.float32)
    stock = _run(model, feeds, None)
    assert stock[0] == "ok"
    for via in ("ep", "rewrite"):
        assert _disagreement(c, stock, _run(model, feeds, via)) is None, via
