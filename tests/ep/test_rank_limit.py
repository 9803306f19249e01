"""Tensors of rank above the library's limit (OM_NODE_MAX_RANK, 64), which stock ORT runs.

A node with an input or output whose rank the graph declares above the limit is not claimed by the EP nor
retargeted by the rewrite (both report "rank N above 64") and so runs on stock ORT; a node whose rank is
unknown until run time (an Unsqueeze of an input of undeclared rank) either runs or fails with a message
naming node, op and rank. Each scenario runs in a child process (a crash fails the test, not the runner).
numpy stops at rank 64, so the graphs reshape to the high rank inside and back to rank 1 for their output.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import onemodel_ep
from onemodel_ep._lib import lib

MAX_RANK = int(lib.OM_NODE_MAX_RANK)
OPS = ["Add", "Relu", "ReduceSum", "Softmax", "MatMul", "LayerNormalization"]
VIAS = ["stock", "ep", "ep-compile", "rewrite"]


def _dims(rank: int) -> list[int]:
    """rank dimensions, all 1 but three 2s (the first, a middle one, the last): 8 elements."""
    return [2 if d in (0, rank // 2, rank - 1) else 1 for d in range(rank)]


def _op_node(op: str, x: str, inits: list[onnx.TensorProto]) -> onnx.NodeProto:
    """The node under test, named "big", on the value x (last dimension 2), output "big_out"."""
    two = np.array([0.5, -1.25], np.float32)
    if op == "Add":
        return helper.make_node("Add", [x, x], ["big_out"], name="big")
    if op == "ReduceSum":
        inits.append(numpy_helper.from_array(np.array([0, -1], np.int64), "axes"))
        return helper.make_node("ReduceSum", [x, "axes"], ["big_out"], name="big", keepdims=1)
    if op == "Softmax":
        return helper.make_node("Softmax", [x], ["big_out"], name="big", axis=-1)
    if op == "MatMul":
        inits.append(numpy_helper.from_array(np.array([[1.5, -2.0], [0.25, 3.0]], np.float32), "w"))
        return helper.make_node("MatMul", [x, "w"], ["big_out"], name="big")
    if op == "LayerNormalization":
        inits += [numpy_helper.from_array(two, "scale"), numpy_helper.from_array(two[::-1].copy(), "bias")]
        return helper.make_node("LayerNormalization", [x, "scale", "bias"], ["big_out"], name="big", axis=-1)
    return helper.make_node(op, [x], ["big_out"], name="big")


def _flat_output(nodes: list[onnx.NodeProto], inits: list[onnx.TensorProto]) -> None:
    inits.append(numpy_helper.from_array(np.array([-1], np.int64), "flat"))
    nodes.append(helper.make_node("Reshape", ["big_out", "flat"], ["y"], name="to_flat"))


def static_model(op: str, rank: int) -> bytes:
    """x [8] reshaped to rank `rank` (declared: ONNX and ORT infer it), the op, then back to [-1]."""
    inits = [numpy_helper.from_array(np.array(_dims(rank), np.int64), "shape")]
    nodes = [helper.make_node("Reshape", ["x", "shape"], ["t"], name="to_rank")]
    nodes.append(_op_node(op, "t", inits))
    _flat_output(nodes, inits)
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [8])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    g = helper.make_graph(nodes, "g", [x], [y], inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)], ir_version=9).SerializeToString()


def growing_model(op: str) -> bytes:
    """x of undeclared shape, Unsqueeze'd at axis 0: its rank is known only at run time."""
    inits = [numpy_helper.from_array(np.array([0], np.int64), "axis0")]
    nodes = [helper.make_node("Unsqueeze", ["x", "axis0"], ["t"], name="grow")]
    nodes.append(_op_node(op, "t", inits))
    _flat_output(nodes, inits)
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, None)
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    g = helper.make_graph(nodes, "g", [x], [y], inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)], ir_version=9).SerializeToString()


def _input(rank: int) -> np.ndarray:
    """x: of rank `rank` (the growing model), or flat for rank 0 (the static model's [8])."""
    return (np.arange(8, dtype=np.float32) * 0.75 - 2.5).reshape(_dims(rank) if rank else [8])


def run_case(kind: str, op: str, rank: int, x_rank: int) -> dict[str, dict[str, Any]]:
    """In the child: the model (static_model(op, rank) fed x [8], or growing_model(op) fed x of rank
    x_rank) through each of VIAS: its output (values and bits) or the error, and whether "big" ran on
    OneModel EP."""
    model = static_model(op, rank) if kind == "static" else growing_model(op)
    return {via: _run(model, via, x_rank) for via in VIAS}


def _run(model: bytes, via: str, x_rank: int) -> dict[str, Any]:
    import onnxruntime as ort

    from onemodel_ep import ep

    so = ort.SessionOptions()
    so.log_severity_level = 4
    out: dict[str, Any] = {}
    try:
        if via == "stock":
            sess: Any = ort.InferenceSession(model, so, providers=["CPUExecutionProvider"])
        elif via == "ep-compile":
            so = ep.ep_session_options(so, dispatch="compile")
            sess = ort.InferenceSession(model, so, enable_fallback=0)
            out["on_ep"] = "big" in ep.claimed_names(ep.assignments(sess))
        else:
            sess = onemodel_ep.InferenceSession(onnx.load_from_string(model), so, via=via)
            (big,) = [n for n in sess.report.nodes if n.name == "big"]
            out["on_ep"], out["why"] = big.moved, f"{big.category}: {big.reason}"
        (y,) = sess.run(None, {"x": _input(x_rank)})
    except Exception as e:  # ORT's errors: the message is the point
        out["error"] = str(e)
        return out
    y = np.asarray(y, np.float32)
    out["values"], out["bits"] = y.tolist(), y.view(np.uint32).tolist()
    return out


def node_api_case(op: str, n_inputs: int, rank: int) -> dict[str, str]:
    """In the child: op's node given inputs of rank `rank` through each entry of onemodel.h that takes input
    shapes, called directly (numpy cannot make such arrays); each entry's message ("" when it returned 0)."""
    from onemodel_ep._lib import ffi
    from onemodel_ep.node import Node

    node = Node(op, [TensorProto.FLOAT] * n_inputs, onnx_opset=17, name="deep")
    dims = ffi.new("int64_t[]", [1] * rank)
    data = ffi.new("float[]", [0.5] * 4)
    shapes = ffi.new("int64_t*[]", [dims] * n_inputs)
    ptrs = ffi.new("void*[]", [data] * n_inputs)
    ranks = ffi.new("size_t[]", [rank] * n_inputs)
    out_shapes = ffi.new("int64_t[]", 3 * MAX_RANK)  # room for what a node may write: 3 outputs of rank 64
    out_ranks = ffi.new("size_t[]", [rank] * 3)
    outs = ffi.new("void*[]", [ffi.new("float[]", 4) for _ in range(3)])
    no_pool = (ffi.NULL, ffi.NULL)
    calls = {
        "om_node_output_shape": lambda e: lib.om_node_output_shape(
            node._ptr, n_inputs, shapes, ranks, out_shapes, out_ranks, e, 512),
        "om_node_output_shapes": lambda e: lib.om_node_output_shapes(
            node._ptr, n_inputs, ptrs, shapes, ranks, 1, out_shapes, out_ranks, e, 512),
        "om_node_run_outputs": lambda e: lib.om_node_run_outputs(
            node._ptr, n_inputs, ptrs, shapes, ranks, 1, outs, dims, ranks, *no_pool, e, 512),
        "om_node_set_constant_input": lambda e: lib.om_node_set_constant_input(
            node._ptr, n_inputs - 1, data, dims, rank, e, 512),
    }  # fmt: skip
    got: dict[str, str] = {}
    for entry, call in calls.items():
        err = ffi.new("char[]", 512)
        got[entry] = ffi.string(err).decode() if call(err) != 0 else ""
    return got


def _in_child(*args: Any, fn: str = "run_case", legacy: bool = False) -> Any:
    from tests.ep.child import run_in_child  # here, not at the top: the child imports this module alone

    env: dict[str, str | None] = {"ONEMODEL_LEGACY_SHAPES": "1" if legacy else None}
    return run_in_child("test_rank_limit", fn, list(args), env=env)


@pytest.mark.parametrize("rank", [65, 70])
@pytest.mark.parametrize("op", OPS)
def test_declared_rank_above_the_limit_stays_with_stock_ort(op, rank):
    r = _in_child("static", op, rank, 0)
    assert "error" not in r["stock"], r["stock"]
    for via in VIAS[1:]:
        got = r[via]
        assert "error" not in got, (via, got["error"])
        assert got["on_ep"] is False, via
        assert got["bits"] == r["stock"]["bits"], via  # stock ORT ran it: the same bits
        if "why" in got:
            assert got["why"].startswith("rank: ") and f"has rank {rank} above {MAX_RANK}" in got["why"], got


@pytest.mark.parametrize("legacy", [False, True])  # ORT's dims read in place, or copied
@pytest.mark.parametrize("op", OPS)
def test_rank_grown_at_run_time_runs_or_names_node_op_and_rank(op, legacy):
    r = _in_child("growing", op, 0, MAX_RANK, legacy=legacy)
    assert "error" not in r["stock"], r["stock"]
    for via in VIAS[1:]:
        got = r[via]
        assert got["on_ep"] is True, via  # its rank unknown when the session is made: claimed
        if "error" in got:
            msg = got["error"]
            # The first of our nodes to meet rank 65 names itself: the node under test, or the Unsqueeze that
            # grows the rank (data movement runs on OneModel EP too).
            named = ("node 'big'" in msg and f"(op {op})" in msg) or (
                "node 'grow'" in msg and "(op Unsqueeze)" in msg
            )
            assert named, (via, msg)
            assert f"rank {MAX_RANK + 1}" in msg and str(MAX_RANK) in msg, (via, msg)
        else:
            np.testing.assert_allclose(got["values"], r["stock"]["values"], rtol=1e-6, atol=1e-6, err_msg=via)
    # An input one rank lower makes the Unsqueeze'd rank 64, which is served.
    r = _in_child("growing", op, 0, MAX_RANK - 1, legacy=legacy)
    for via in VIAS[1:]:
        assert "error" not in r[via] and r[via]["on_ep"] is True, (via, r[via])
        np.testing.assert_allclose(r[via]["values"], r["stock"]["values"], rtol=1e-6, atol=1e-6, err_msg=via)


@pytest.mark.parametrize("op, n_inputs", [("Add", 2), ("Relu", 1), ("ReduceSum", 1), ("Softmax", 1),
                                          ("MatMul", 2), ("LayerNormalization", 2)])  # fmt: skip
def test_node_api_refuses_a_rank_above_the_limit_by_node_op_and_rank(op, n_inputs):
    for entry, msg in _in_child(op, n_inputs, MAX_RANK + 1, fn="node_api_case").items():
        assert msg == (f"node 'deep' (op {op}): input {n_inputs - 1 if 'constant' in entry else 0} has rank "
                       f"{MAX_RANK + 1} above {MAX_RANK}, the highest OneModel EP serves"), (entry, msg)
