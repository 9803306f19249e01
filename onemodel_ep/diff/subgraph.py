"""`onemodel diff --per-node` inside If, Loop and Scan: a node's body as a model of its own.

When the first divergence is a control-flow node whose inputs (its own and the outer values its body reads)
agree in both runs, the runs part inside its body. The body that ran first is cut out as a standalone model:
the outer values it reads become initializers (constants of the outer graph) or graph inputs fed with the
stock run's values, and the body's formal inputs (Loop, Scan) are fed with the values of its first iteration.
per_node.compare_nodes then runs on that model, rewritten or through the EP as the outer model was, and its
first divergence is reported with the path to it (`DiffReport.first_divergence.inside`).

- If: the branch that `cond` chose in the stock run.
- Loop: iteration 0: iteration_num 0, the node's `cond` (true when absent), the initial loop-carried values.
- Scan (opset 9+): the initial states and the first slice of each scan input (along its scan_input_axes,
  the last slice where scan_input_directions is 1).
A divergence that shows only from the second iteration on is not found: the report then says that the
body's first iteration agrees.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Callable, Optional

import numpy as np
import onnx
from onnx import helper

CONTROL_FLOW = frozenset({"If", "Loop", "Scan"})
Value = Callable[[str], Optional[np.ndarray]]
Feeds = dict[str, np.ndarray]


def _produced_and_read(graph: onnx.GraphProto) -> tuple[set[str], list[str]]:
    """Names a graph defines (its inputs, initializers and node outputs, nested bodies included) and the
    names its nodes read, in first-read order (nested bodies included)."""
    defined = {i.name for i in graph.input} | {t.name for t in graph.initializer}
    defined |= {o for n in graph.node for o in n.output if o}
    read: list[str] = []
    for n in graph.node:
        for name in n.input:
            if name and name not in read:
                read.append(name)
        for a in n.attribute:
            for g in ([a.g] if a.type == onnx.AttributeProto.GRAPH else list(a.graphs)):
                inner_defined, inner_read = _produced_and_read(g)
                read += [r for r in inner_read if r not in inner_defined and r not in read]
    return defined, read


def outer_reads(node: onnx.NodeProto) -> list[str]:
    """The outer-scope values the bodies of a control-flow node read (its implicit inputs)."""
    names: list[str] = []
    for a in node.attribute:
        if a.type == onnx.AttributeProto.GRAPH:
            defined, read = _produced_and_read(a.g)
            names += [r for r in read if r not in defined and r not in names and r not in node.input]
    return names


def _attr(node: onnx.NodeProto, name: str) -> onnx.AttributeProto | None:
    return next((a for a in node.attribute if a.name == name), None)


def _first_iteration(node: onnx.NodeProto, body: onnx.GraphProto, value: Value) -> Feeds | str:
    """The values of a Loop or Scan body's formal inputs at its first iteration, or why they cannot be had."""
    ins = [value(i) if i else None for i in node.input]
    formal = [i.name for i in body.input]
    if node.op_type == "Loop":
        trip, cond, carried = ins[0], ins[1] if len(ins) > 1 else None, ins[2:]
        if trip is not None and int(np.asarray(trip).reshape(-1)[0]) <= 0:
            return "the Loop runs no iteration"
        first = [np.array(0, np.int64), np.array(True) if cond is None else np.asarray(cond).reshape(())]
        vals = first + list(carried)
    else:  # Scan (opset 9+): states, then scan inputs
        a = _attr(node, "num_scan_inputs")
        m = int(a.i) if a is not None else 0
        n_state = len(ins) - m
        axes_attr, dirs_attr = _attr(node, "scan_input_axes"), _attr(node, "scan_input_directions")
        axes = list(axes_attr.ints) if axes_attr is not None else [0] * m
        dirs = list(dirs_attr.ints) if dirs_attr is not None else [0] * m
        vals = list(ins[:n_state])
        for j, x in enumerate(ins[n_state:]):
            if x is None:
                vals.append(None)
                continue
            x = np.asarray(x)
            axis = axes[j] % x.ndim
            if x.shape[axis] == 0:
                return "the Scan runs no iteration"
            vals.append(np.take(x, -1 if dirs[j] == 1 else 0, axis=axis))
    if len(vals) != len(formal) or any(v is None for v in vals):
        return "the values of its body's first iteration are not known"
    return {name: np.asarray(v) for name, v in zip(formal, vals)}


def body_model(
    model: onnx.ModelProto,
    node: onnx.NodeProto,
    value: Value,
    constants: Mapping[str, onnx.TensorProto],
    types: Mapping[str, int],
) -> tuple[onnx.ModelProto, dict[str, np.ndarray], str] | str:
    """The body of `node` that ran first as a model of its own, its feeds and its label ("then_branch",
    "body"); or why it cannot be cut out."""
    if node.op_type == "If":
        cond = value(node.input[0])
        if cond is None:
            return "its condition's value is not known"
        which = "then_branch" if bool(np.asarray(cond).reshape(-1)[0]) else "else_branch"
    else:
        which = "body"
    a = _attr(node, which)
    if a is None or a.type != onnx.AttributeProto.GRAPH:
        return f"it has no {which}"
    body = a.g
    feeds: dict[str, np.ndarray] = {}
    if node.op_type != "If":
        first = _first_iteration(node, body, value)
        if isinstance(first, str):
            return first
        feeds.update(first)
    graph = onnx.GraphProto()
    graph.CopyFrom(body)
    graph.name = f"{node.name or node.op_type}.{which}"
    for name in outer_reads(node):
        if name in constants:
            t = onnx.TensorProto()
            t.CopyFrom(constants[name])
            t.name = name
            graph.initializer.append(t)
            continue
        v = value(name)
        if v is None or name not in types:
            return f"the value of {name!r}, which its body reads, is not known"
        graph.input.append(helper.make_tensor_value_info(name, types[name], None))
        feeds[name] = np.asarray(v)
    out = helper.make_model(graph, opset_imports=list(model.opset_import), ir_version=model.ir_version)
    return out, feeds, which


def constant_tensors(graph: onnx.GraphProto) -> dict[str, onnx.TensorProto]:
    """The initializers and Constant-node tensors of a graph, by name."""
    found = {t.name: t for t in graph.initializer}
    for n in graph.node:
        if n.op_type == "Constant" and n.output:
            for a in n.attribute:
                if a.name == "value" and a.type == onnx.AttributeProto.TENSOR:
                    found[n.output[0]] = a.t
    return found
