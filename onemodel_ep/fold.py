"""Constant folding by OneModel's kernels: a node whose inputs are all constant is computed once, here.

`fold` evaluates, in graph order, every node (main graph and the subgraphs of If, Loop and Scan) that
OneModel serves and whose inputs are all constant (inline initializers that are not graph inputs, Constant
nodes, outputs of nodes folded before, in the graph or an outer scope), with the library's own node
(`node.Node`, i.e. om_node_create / om_node_run_outputs) in the session's mode and kernel path, and
replaces it by initializers holding its outputs' bytes. The value is the
one the node would compute at run time (docs/constant-folding.md). Nodes OneModel does not serve, and
outputs over `max_bytes`, are never computed here.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np
import onnx
from onnx import numpy_helper

from onemodel_ep._lib import MODES, check_kernel_path, op_key, served_domains
from onemodel_ep.inference import Inferred, domain_opset, subgraphs
from onemodel_ep.node import Node, NodeError
from onemodel_ep.qdq_groups import member_outputs
from onemodel_ep.report import NodeReport, RewriteReport
from onemodel_ep.serving import input_types, node_attributes, output_count, verdict

__all__ = ["FOLD_MAX_BYTES", "FOLDED_REASON", "fold"]

# The largest output (bytes) a folded node may have: a constant Range, Expand or Tile to gigabytes stays.
FOLD_MAX_BYTES = 4 << 20
FOLDED_REASON = "computed once at session creation by OneModel's kernels"

# Element types whose raw_data is the elements' bytes in order, one or more bytes each (not the packed 4-bit
# types, not strings): the folded initializers carry the kernel's bytes unchanged.
_T = onnx.TensorProto
_RAW_TYPES = frozenset({
    _T.FLOAT, _T.UINT8, _T.INT8, _T.UINT16, _T.INT16, _T.INT32, _T.INT64, _T.BOOL, _T.FLOAT16, _T.DOUBLE,
    _T.UINT32, _T.UINT64, _T.BFLOAT16, _T.FLOAT8E4M3FN, _T.FLOAT8E4M3FNUZ, _T.FLOAT8E5M2, _T.FLOAT8E5M2FNUZ,
})
_GRAPH_KINDS = (onnx.AttributeProto.GRAPH, onnx.AttributeProto.GRAPHS)


def _constant_tensor(node: onnx.NodeProto) -> onnx.TensorProto | None:
    """The tensor a default-domain Constant node makes, when it is a dense numeric one, else None."""
    if len(node.attribute) != 1 or len(node.output) != 1:
        return None
    a = node.attribute[0]
    if a.name == "value" and a.type == onnx.AttributeProto.TENSOR:
        t = onnx.TensorProto()
        t.CopyFrom(a.t)
        return t
    if a.name == "value_float":
        return numpy_helper.from_array(np.array(a.f, dtype=np.float32))
    if a.name == "value_floats":
        return numpy_helper.from_array(np.array(list(a.floats), dtype=np.float32))
    if a.name == "value_int":
        return numpy_helper.from_array(np.array(a.i, dtype=np.int64))
    if a.name == "value_ints":
        return numpy_helper.from_array(np.array(list(a.ints), dtype=np.int64))
    return None


def _tensor(name: str, elem_type: int, array: np.ndarray) -> onnx.TensorProto:
    """An initializer `name` holding `array`'s bytes unchanged as `elem_type` (NaN payloads kept)."""
    t = onnx.TensorProto()
    t.name = name
    t.data_type = elem_type
    t.dims.extend(array.shape)
    t.raw_data = np.ascontiguousarray(array).tobytes()
    return t


@dataclass
class _Constants:
    """The constant values of the main graph seen so far: tensors, read into arrays when first needed."""

    tensors: dict[str, onnx.TensorProto]
    arrays: dict[str, np.ndarray] = field(default_factory=dict)

    def type_of(self, name: str) -> int:
        return int(self.tensors[name].data_type)

    def array(self, name: str) -> np.ndarray:
        if name not in self.arrays:
            self.arrays[name] = numpy_helper.to_array(self.tensors[name])
        return self.arrays[name]


def _graph_constants(graph: onnx.GraphProto, outer: _Constants | None) -> _Constants:
    """The constants `graph` sees: the outer scope's (but the names its own inputs shadow) and its inline
    initializers that no caller can override (not graph inputs)."""
    inputs = {i.name for i in graph.input}
    seen = {} if outer is None else {k: t for k, t in outer.tensors.items() if k not in inputs}
    arrays = {} if outer is None else {k: a for k, a in outer.arrays.items() if k in seen}
    seen.update({
        t.name: t
        for t in graph.initializer
        if t.name not in inputs and t.data_location != onnx.TensorProto.EXTERNAL and t.data_type in _RAW_TYPES
    })
    return _Constants(seen, arrays)


def _computed(
    node: onnx.NodeProto, consts: _Constants, opset: int, mode: str, kernel_path: str | None, max_bytes: int
) -> list[tuple[int, np.ndarray]] | None:
    """Each output's element type and value computed by OneModel's node, or None when the node is not
    served, an output is over `max_bytes` or of a type folding does not carry, or the run fails."""
    in_types = [consts.type_of(n) if n else 0 for n in node.input]
    arrays = [consts.array(n) if n else None for n in node.input]
    ranks = {n: a.ndim for n, a in zip(node.input, arrays) if a is not None}
    if verdict(node, in_types, opset, mode, kernel_path, ranks) is not None:
        return None
    count = output_count(node)
    try:
        lib_node = Node(op_key(node.domain, node.op_type), in_types, onnx_opset=opset,
                        attributes=node_attributes(node), mode=mode, kernel_path=kernel_path,
                        name=node.name, n_outputs=count)
        out_types = lib_node.output_types[:count]
        if len(out_types) < count or any(t not in _RAW_TYPES for t in out_types):
            return None
        shapes = lib_node.output_shapes(*arrays, n_outputs=count)
        if any(math.prod(shape) * dtype.itemsize > max_bytes for shape, dtype in shapes):
            return None
        outs = lib_node.run_outputs(*arrays, n_outputs=count)
    except NodeError:  # fails at run time too, where the error belongs
        return None
    return list(zip(out_types, outs))


def _foldable(node: onnx.NodeProto, consts: _Constants, graph_outputs: set[str], domains: set[str]) -> bool:
    present = [n for n in node.input if n]
    return (
        bool(present)
        and all(n in consts.tensors for n in present)
        and not any(o in graph_outputs for o in node.output)
        and not any(a.type in _GRAPH_KINDS for a in node.attribute)
        and ("" if node.domain == "ai.onnx" else node.domain) in domains
    )


def _read_names(graph: onnx.GraphProto, skip: set[int]) -> Iterator[str]:
    """Every value name a node of `graph` (but the nodes at the indices `skip`) or of a subgraph reads, and
    the graph's outputs."""
    for k, node in enumerate(graph.node):
        if k in skip:
            continue
        yield from node.input
        for a in node.attribute:
            for sub in subgraphs(a):
                yield from _read_names(sub, set())
    yield from (o.name for o in graph.output)


# Where a graph is in the model: () for the main graph; a subgraph adds (node index, attribute name, k).
_Where = tuple[object, ...]


@dataclass
class _Plan:
    """What folds in one graph."""

    folded: list[int] = field(default_factory=list)  # indices of the folded nodes
    tensors: list[onnx.TensorProto] = field(default_factory=list)  # their outputs, as initializers
    read: set[str] = field(default_factory=set)  # the values the folded nodes read


def _is_constant_node(node: onnx.NodeProto) -> bool:
    return node.op_type == "Constant" and node.domain in ("", "ai.onnx")


@dataclass
class _Planner:
    """Plans the folding of a model, graph by graph (subgraphs see their outer scope's constants)."""

    model: onnx.ModelProto
    mode: str
    kernel_path: str | None
    max_bytes: int
    reports: list[NodeReport] = field(default_factory=list)
    plans: dict[_Where, _Plan] = field(default_factory=dict)
    grouped: set[str] = field(default_factory=set)  # the outputs of the main graph's QDQ groups: never folded

    def graph(self, graph: onnx.GraphProto, outer: _Constants | None, where: _Where, label: str) -> None:
        consts = _graph_constants(graph, outer)
        graph_outputs = {o.name for o in graph.output}
        opsets = {d: domain_opset(self.model, d) for d in served_domains()}
        plan = _Plan()
        for k, node in enumerate(graph.node):
            if _is_constant_node(node):
                t = _constant_tensor(node)
                if t is not None and t.data_type in _RAW_TYPES and t.data_location != _T.EXTERNAL:
                    consts.tensors[node.output[0]] = t
                continue
            node_label = node.name or f"{node.op_type}_{k}"
            for a in node.attribute:
                for j, sub in enumerate(subgraphs(a)):
                    suffix = f"[{j}]" if a.type == onnx.AttributeProto.GRAPHS else ""
                    self.graph(sub, consts, (*where, k, a.name, j), f"{label}/{node_label}.{a.name}{suffix}")
            if not _foldable(node, consts, graph_outputs, set(opsets)):
                continue
            if not where and any(o in self.grouped for o in node.output):
                continue
            domain = "" if node.domain == "ai.onnx" else node.domain
            outs = _computed(node, consts, opsets[domain], self.mode, self.kernel_path, self.max_bytes)
            if outs is None:
                continue
            for name, (elem_type, array) in zip(node.output, outs):
                if name:
                    t = _tensor(name, elem_type, array)
                    consts.tensors[name] = t
                    consts.arrays[name] = array
                    plan.tensors.append(t)
            _, shown = input_types(node, {n: consts.type_of(n) for n in node.input if n})
            plan.folded.append(k)
            plan.read.update(n for n in node.input if n)
            self.reports.append(
                NodeReport(label, node.name, node.op_type, shown, True, "folded", FOLDED_REASON, node.domain)
            )
        if plan.folded:
            self.plans[where] = plan


def _apply(graph: onnx.GraphProto, plans: dict[_Where, _Plan], where: _Where) -> None:
    """Replace the folded nodes of `graph` and its subgraphs (innermost first) by the initializers of their
    outputs that something still reads; drop the Constant nodes and initializers of each graph that only
    folded nodes read."""
    for k, node in enumerate(graph.node):
        for a in node.attribute:
            for j, sub in enumerate(subgraphs(a)):
                _apply(sub, plans, (*where, k, a.name, j))
    plan = plans.get(where)
    if plan is None:
        return
    folded = set(plan.folded)
    still = set(_read_names(graph, folded))
    gone = plan.read - still
    inputs = {i.name for i in graph.input}
    keep = [node for k, node in enumerate(graph.node)
            if k not in folded and not (_is_constant_node(node) and all(o in gone for o in node.output))]
    kept_inits = [t for t in graph.initializer if t.name not in gone or t.name in inputs]
    del graph.node[:]
    graph.node.extend(keep)
    del graph.initializer[:]
    graph.initializer.extend(kept_inits)
    graph.initializer.extend(t for t in plan.tensors if t.name in still)  # not those only folded nodes read


def fold(
    model: onnx.ModelProto,
    mode: str = "exact",
    kernel_path: str | None = None,
    *,
    max_bytes: int = FOLD_MAX_BYTES,
    report: RewriteReport | None = None,
    in_place: bool = False,
    inference: Inferred | None = None,
) -> onnx.ModelProto:
    """`model` with every constant node OneModel serves computed once by OneModel's kernels (a copy, made
    only when something folds; with in_place=True, `model` itself). Pass a RewriteReport to have each
    folded node appended to it (category "folded"). The nodes of a QDQ group (qdq_groups.py) are left to
    the group, which the rewrite and the execution provider run as one QLinear node. A model of IR version
    3 or older (whose initializers are all graph inputs) is returned unchanged. `inference`: the model's ONNX
    inference (inference.Inferred), run here only if the QDQ check needs it, for the caller to hand on."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
    check_kernel_path(kernel_path)
    if not isinstance(model, onnx.ModelProto):
        raise TypeError(f"fold() takes an onnx.ModelProto, got {type(model).__name__}")
    if model.ir_version < 4:
        return model
    grouped = member_outputs(model, mode, kernel_path, inference)
    planner = _Planner(model, mode, kernel_path, max_bytes, grouped=grouped)
    planner.graph(model.graph, None, (), "main")
    if report is not None:
        report.nodes.extend(planner.reports)
    if not planner.plans:
        return model
    out = model
    if not in_place:
        out = onnx.ModelProto()
        out.CopyFrom(model)
    _apply(out.graph, planner.plans, ())
    return out
