"""Bad inputs to the data-movement ops: a clear error naming node, op and problem, at node creation where the
problem shows there, else at the run; never a crash or a read out of bounds. Direct calls check each message;
through ORT (both ways in) the run's error is checked in a child process, so that a crash fails the test
rather than pytest.
"""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper

import onemodel_ep
from onemodel_ep.node import Node, NodeError

F32, I64, I32 = TensorProto.FLOAT, TensorProto.INT64, TensorProto.INT32
VIAS = ("rewrite", "ep") if onemodel_ep.ep_supported() else ("rewrite",)


@pytest.mark.parametrize(
    "op,types,opset,attrs,msg",
    [
        ("Transpose", [F32], 13, {"perm": [0, 0, 1]}, "perm is not a permutation"),
        ("Transpose", [F32], 13, {"perm": [0, -1]}, "perm is not a permutation"),
        ("Unsqueeze", [F32], 11, {"axes": [1, 1]}, "names an axis more than once"),
        ("Unsqueeze", [F32], 11, {}, "axes is required"),
        ("Unsqueeze", [F32], 13, {}, "axes is required \\(input 1\\)"),
        ("Unsqueeze", [F32], 13, {"axes": [0]}, "attribute axes is not defined from opset 13"),
        ("Squeeze", [F32, I64], 11, {}, "input 1 \\(axes\\) is defined from opset 13"),
        ("Reshape", [F32, I64], 13, {"allowzero": 1}, "allowzero is defined from opset 14"),
        ("Reshape", [F32, I64], 14, {"allowzero": 2}, "allowzero must be 0 or 1"),
        ("Shape", [F32], 13, {"start": 1}, "start and end are defined from opset 15"),
        ("Concat", [F32, F32], 13, {}, "attribute axis is required"),
        ("Slice", [F32], 9, {"starts": [0]}, "starts and ends are required"),
        ("Slice", [F32, I64, I64], 9, {}, "defined from opset 10"),
        ("Slice", [F32, I64, I32], 13, {}, "must be one type"),
        ("Slice", [F32], 13, {}, "inputs 1 \\(starts\\) and 2 \\(ends\\) are required"),
        (
            "Slice",
            [F32],
            9,
            {"starts": [0, 0], "ends": [1, 1], "axes": [1, 1]},
            "names an axis more than once",
        ),
        ("Gather", [F32, TensorProto.INT16], 13, {}, "unsupported element type int16 for input 1"),
        ("Reshape", [TensorProto.BFLOAT16, I64], 12, {}, "bfloat16 needs opset 13"),
        ("Flatten", [I32], 8, {}, "int32 needs opset 9"),
        ("Identity", [TensorProto.STRING], 13, {}, "unsupported element type string"),
    ],
)
def test_creation_errors(op: str, types: list[int], opset: int, attrs: dict[str, object], msg: str) -> None:
    with pytest.raises(NodeError, match=msg) as e:
        Node(op, types, onnx_opset=opset, attributes=attrs, name="bad")
    assert "'bad'" in str(e.value) and op in str(e.value)


def _x(*shape: int) -> np.ndarray:
    return np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)


@pytest.mark.parametrize(
    "op,opset,attrs,inputs,msg",
    [
        ("Reshape", 13, {}, [_x(2, 3), np.array([-1, -1], np.int64)], "more than one -1"),
        ("Reshape", 13, {}, [_x(2, 3), np.array([4, 2], np.int64)], "has 6 elements, the shape asks for 8"),
        ("Reshape", 13, {}, [_x(2, 3), np.array([4, -1], np.int64)], "cannot divide"),
        ("Reshape", 13, {}, [_x(3, 0), np.array([-1, 0], np.int64)], "cannot divide"),
        ("Reshape", 13, {}, [_x(2, 3), np.array([2, -3], np.int64)], "shape\\[1\\] is -3"),
        ("Reshape", 13, {}, [_x(6), np.array([6, 0], np.int64)], "shape\\[1\\] is 0 .* rank 1"),
        ("Reshape", 13, {}, [_x(2, 3), np.array([[6]], np.int64)], "input 1 \\(shape\\) must be 1-D"),
        ("Reshape", 13, {}, [_x(2, 3), np.array([2**62, 2**62, -1], np.int64)], "cannot divide"),
        ("Reshape", 13, {}, [_x(2, 3), np.array([2**62, 2**62, 4], np.int64)], "asks for more than"),
        ("Unsqueeze", 13, {}, [_x(2, 3), np.array([0, -4], np.int64)], "axes names axis 0 more than once"),
        ("Unsqueeze", 13, {}, [_x(2, 3), np.array([4], np.int64)], "axis 4 is out of range for rank 3"),
        ("Squeeze", 13, {}, [_x(2, 1), np.array([0], np.int64)], "axis 0 of input 0 has size 2"),
        ("Squeeze", 13, {}, [_x(2, 1), np.array([2], np.int64)], "axis 2 is out of range for rank 2"),
        ("Flatten", 13, {"axis": 3}, [_x(2, 3)], "axis 3 is out of range for rank 2"),
        ("Flatten", 13, {}, [np.float32(1)], "axis 1 is out of range for rank 0"),
        ("Transpose", 13, {"perm": [1, 0]}, [_x(2, 3, 4)], "perm has 2 entries, input 0 has rank 3"),
        ("Concat", 13, {"axis": 0}, [_x(2, 3), _x(2, 4)], "input 1's shape does not match"),
        ("Concat", 13, {"axis": 2}, [_x(2, 3), _x(2, 3)], "axis 2 is out of range for rank 2"),
        ("Concat", 13, {"axis": 0}, [_x(2, 3), _x(6)], "input 1's shape does not match"),
        (
            "Gather",
            13,
            {},
            [_x(5, 4), np.array([0, 5], np.int64)],
            "index 5 .* out of range for axis 0 of size 5",
        ),
        ("Gather", 13, {}, [_x(5, 4), np.array([-6], np.int64)], "index -6 .* out of range"),
        ("Gather", 13, {"axis": 1}, [_x(5, 4), np.array([[0, 2**31 - 1]], np.int32)], "index 2147483647"),
        ("Gather", 13, {}, [_x(0, 4), np.array([0], np.int64)], "index 0 .* axis 0 of size 0"),
        ("Gather", 13, {"axis": 2}, [_x(5, 4), np.array([0], np.int64)], "axis 2 is out of range"),
        ("Gather", 13, {}, [np.float32(1), np.array(0, np.int64)], "axis 0 is out of range for rank 0"),
        (
            "Slice",
            13,
            {},
            [
                _x(5, 6),
                np.array([0], np.int64),
                np.array([3], np.int64),
                np.array([1], np.int64),
                np.array([0], np.int64),
            ],
            "steps\\[0\\] is 0",
        ),
        (
            "Slice",
            13,
            {},
            [_x(5, 6), np.array([0, 0], np.int64), np.array([3, 3], np.int64), np.array([1, -1], np.int64)],
            "axes names axis 1 more than once",
        ),
        (
            "Slice",
            13,
            {},
            [_x(5, 6), np.array([0, 0], np.int64), np.array([3], np.int64)],
            "ends has 1 entries",
        ),
        (
            "Slice",
            13,
            {},
            [_x(5, 6), np.array([0], np.int64), np.array([3], np.int64), np.array([2], np.int64)],
            "axis 2 is out of range",
        ),
        (
            "Slice",
            13,
            {},
            [_x(5), np.array([0, 0], np.int64), np.array([3, 3], np.int64)],
            "starts has 2 entries, input 0 has rank 1",
        ),
        ("Slice", 13, {}, [np.float32(1), np.array([], np.int64), np.array([], np.int64)], "is a scalar"),
        ("Expand", 13, {}, [_x(2, 3), np.array([4, 3], np.int64)], "cannot be expanded"),
        ("Expand", 13, {}, [_x(2, 3), np.array([-1, 3], np.int64)], "cannot be expanded"),
        ("Expand", 13, {}, [_x(2, 3), np.zeros(65, np.int64)], "more than the maximum rank"),
    ],
)
def test_run_errors(
    op: str, opset: int, attrs: dict[str, object], inputs: list[np.ndarray], msg: str
) -> None:
    types = [int(helper.np_dtype_to_tensor_dtype(x.dtype)) for x in inputs]
    node = Node(op, types, onnx_opset=opset, attributes=attrs, name="bad")
    with pytest.raises(NodeError, match=msg) as e:
        node.run_outputs(*inputs)
    assert "'bad'" in str(e.value) and op in str(e.value)


# ---- through ORT, in a child process ----------------------------------------------------------------------

ORT_CASES = {
    "gather": ("Gather", [("x", F32, [5, 4]), ("i", I64, [None])], {}, {"i": [0, 7]}, "index 7"),
    "gather32": ("Gather", [("x", F32, [5, 4]), ("i", I32, [None])], {"axis": 1}, {"i": [-5]}, "index -5"),
    "reshape": ("Reshape", [("x", F32, [5, 4]), ("s", I64, [None])], {}, {"s": [-1, -1]}, "more than one -1"),
    "slice": (
        "Slice",
        [("x", F32, [5, 4]), ("b", I64, [1]), ("e", I64, [1]), ("a", I64, [1]), ("p", I64, [1])],
        {},
        {"b": [0], "e": [3], "a": [0], "p": [0]},
        "steps\\[0\\] is 0",
    ),
    "expand": ("Expand", [("x", F32, [5, 4]), ("s", I64, [None])], {}, {"s": [3, 4]}, "cannot be expanded"),
    "unsqueeze": ("Unsqueeze", [("x", F32, [5, 4]), ("a", I64, [None])], {}, {"a": [0, 0]}, "more than once"),
}


def ort_error(case: str, via: str) -> str:
    """Run ORT_CASES[case] through `via` (in a child process); the error's message, or "" if none."""
    import re

    op, ins, attrs, values, _ = ORT_CASES[case]
    x = np.arange(20, dtype=np.float32).reshape(5, 4)
    feeds = {
        name: (x if name == "x" else np.array(values[name], np.int64 if t == I64 else np.int32))
        for name, t, _ in ins
    }
    node = helper.make_node(op, [n for n, _, _ in ins], ["y"], name="bad", **attrs)
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info(n, t, s) for n, t, s in ins],
        [helper.make_tensor_value_info("y", F32, None)],
    )
    model = helper.make_model(graph, ir_version=8, opset_imports=[helper.make_opsetid("", 13)])
    sess = onemodel_ep.InferenceSession(model, via=via)
    assert all(n.moved for n in sess.report.nodes), [str(n) for n in sess.report.nodes]
    try:
        sess.run(None, feeds)
    except Exception as e:  # ORT's run error
        return re.sub(r"\s+", " ", str(e))
    return ""


@pytest.mark.parametrize("via", VIAS)
@pytest.mark.parametrize("case", list(ORT_CASES))
def test_ort_run_errors_name_node_and_op(case: str, via: str) -> None:
    import re
    from pathlib import Path

    from tests.ep.child import run_in_child

    here = str(Path(__file__).resolve().parent)
    msg = run_in_child("test_movement_errors", "ort_error", [case, via], env={"PYTHONPATH": here})
    op, *_, want = ORT_CASES[case]
    assert re.search(want, msg) and "'bad'" in msg and op in msg, msg
