"""The rewriter: retargets every node the library serves to the `ai.onemodel` domain.

It asks the compiled library itself (`node.probe`, i.e. om_node_create) whether a node is served, so the op
table in provider/csrc/om_ops.def is the only place that decides; nodes it cannot serve stay with stock ORT,
each with the reason. The input model is never edited.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field

import onnx
from onnx import helper

from onemodel_ep import external_data
from onemodel_ep._lib import DOMAIN, DOMAIN_VERSION, MODES, PATH_NAMES, op_table, type_name
from onemodel_ep.attribute_kinds import attribute_problem
from onemodel_ep.node import probe

# Attributes the rewriter adds to a retargeted node.
ATTR_MODE = "mode"
ATTR_PATH = "kernel_path"
ATTR_OPSET = "onnx_opset"


@dataclass(frozen=True)
class NodeReport:
    """One node the rewriter looked at."""

    graph: str  # "main" or the path of the subgraph, e.g. "main/If_0.then_branch"
    name: str
    op: str
    input_types: tuple[str, ...]
    moved: bool
    category: str  # "moved", "op", "opset", "type", "unknown type", "attribute"
    reason: str

    def __str__(self) -> str:
        where = self.name or "(unnamed)"
        types = ", ".join(self.input_types)
        if self.moved:
            return f"moved  {self.op:<14} {where} [{types}] ({self.graph})"
        return f"stayed {self.op:<14} {where} [{types}] ({self.graph}): {self.category}: {self.reason}"


@dataclass
class RewriteReport:
    """What the rewriter moved to `ai.onemodel` and what it left to stock ORT, and why."""

    mode: str
    kernel_path: str | None
    nodes: list[NodeReport] = field(default_factory=list)

    @property
    def moved(self) -> list[NodeReport]:
        return [n for n in self.nodes if n.moved]

    @property
    def stayed(self) -> list[NodeReport]:
        return [n for n in self.nodes if not n.moved]

    def summary(self) -> str:
        lines = [
            f"OneModel EP rewrite (mode={self.mode}, kernel_path={self.kernel_path or 'auto'}): "
            f"{len(self.moved)} node(s) moved to {DOMAIN}, {len(self.stayed)} left to stock ORT"
        ]
        lines += [f"  {n}" for n in self.nodes]
        return "\n".join(lines)


def _default_opset(model: onnx.ModelProto) -> int:
    for imp in model.opset_import:
        if imp.domain in ("", "ai.onnx"):
            return int(imp.version)
    return 0


def _infer(model: onnx.ModelProto) -> onnx.ModelProto:
    """The model with what ONNX shape inference finds (types and shapes, every graph), or the model itself
    when inference fails (an unknown custom op, a malformed graph): then only what the model declares."""
    if model.ByteSize() > external_data.SERIALISABLE_BYTES:  # its weights inline: infer without them
        model = external_data.skeleton(model)
    try:
        return onnx.shape_inference.infer_shapes(model, check_type=False, strict_mode=False)
    except Exception:
        return model


def _collect_types(model: onnx.ModelProto, inferred: onnx.ModelProto | None = None) -> dict[str, int]:
    """Element type of every tensor name ONNX shape inference finds in `model` (all graphs, one namespace);
    `inferred`: the model after inference, when the caller has it already."""
    if inferred is None:
        inferred = _infer(external_data.skeleton(model, external_data.SHAPE_BYTES))
    types: dict[str, int] = {}

    def visit(graph: onnx.GraphProto) -> None:
        for vi in list(graph.input) + list(graph.output) + list(graph.value_info):
            if vi.type.HasField("tensor_type") and vi.type.tensor_type.elem_type:
                types[vi.name] = vi.type.tensor_type.elem_type
        for init in graph.initializer:
            types[init.name] = init.data_type
        for sp in graph.sparse_initializer:
            types[sp.values.name] = sp.values.data_type
        for node in graph.node:
            for attr in node.attribute:
                for sub in _subgraphs(attr):
                    visit(sub)

    visit(inferred.graph)
    return types


def _has_shape(t: onnx.TypeProto) -> bool:
    return t.HasField("tensor_type") and t.tensor_type.HasField("shape")


def _carry_shapes(
    graph: onnx.GraphProto, inferred: onnx.GraphProto | None, names: list[str], subgraph: bool
) -> None:
    """Give the values `names` (outputs of retargeted nodes) of `graph`, and a subgraph's outputs, the shapes
    ONNX inference found.

    ORT infers no output shape for a custom op, so without this a retargeted node's output has a type and no
    shape; a control-flow body whose output depends on one fails in ORT (Scan: "Subgraph must have the shape
    set for all outputs"), and the stock nodes after it lose the shapes stock ORT would know. A value the
    graph declares without a shape (as an output or in value_info) gets the inferred shape; one it does not
    declare gets a value_info. The main graph's outputs are left as declared. `inferred` is the same graph
    after inference (per graph, not one namespace: an If's two branches may both name a value, with
    different shapes).
    """
    if inferred is None:
        return
    found = {
        vi.name: vi.type
        for vi in list(inferred.input) + list(inferred.output) + list(inferred.value_info)
        if _has_shape(vi.type)
    }
    declared = {vi.name: vi for vi in list(graph.output) + list(graph.value_info)}
    if subgraph:
        names = names + [o.name for o in graph.output]
    for name in names:
        t = found.get(name)
        if t is None:
            continue
        vi = declared.get(name)
        if vi is None:
            graph.value_info.append(helper.make_value_info(name, t))
        elif vi.type.HasField("tensor_type") and not _has_shape(vi.type):
            vi.type.tensor_type.shape.CopyFrom(t.tensor_type.shape)
            if not vi.type.tensor_type.elem_type:
                vi.type.tensor_type.elem_type = t.tensor_type.elem_type


def _same_node(a: onnx.NodeProto, b: onnx.NodeProto) -> bool:
    return a.op_type == b.op_type and list(a.output) == list(b.output)


def _inferred_subgraphs(node: onnx.NodeProto | None, attr_name: str) -> list[onnx.GraphProto]:
    """The subgraphs of `node`'s attribute `attr_name` (the node of the inferred model), if any."""
    if node is None:
        return []
    return next((list(_subgraphs(a)) for a in node.attribute if a.name == attr_name), [])


def _subgraphs(attr: onnx.AttributeProto) -> Iterator[onnx.GraphProto]:
    if attr.type == onnx.AttributeProto.GRAPH:
        yield attr.g
    elif attr.type == onnx.AttributeProto.GRAPHS:
        yield from attr.graphs


def _node_attributes(node: onnx.NodeProto) -> dict[str, object]:
    """Every attribute of `node` but subgraphs, by value. Their kinds are the schema's (attribute_problem
    checked them), so the library never reads one of the wrong kind as absent."""
    return {
        a.name: helper.get_attribute_value(a)
        for a in node.attribute
        if a.type not in (onnx.AttributeProto.GRAPH, onnx.AttributeProto.GRAPHS)
    }


def _cast_witness(node: onnx.NodeProto) -> onnx.NodeProto:
    """A Constant node making an empty tensor of Cast's target type.

    The retargeted Cast takes it as a second input: ORT infers a custom op's output type from its last
    input, which then is right without a shape-inference function (ORT's cannot express an unknown rank).
    """
    to = next(a.i for a in node.attribute if a.name == "to")
    name = f"{node.output[0]}__onemodel_cast_to"
    empty = helper.make_tensor(name, to, [0], [])
    return helper.make_node("Constant", [], [name], name=name, value=empty)


def _verdict(
    node: onnx.NodeProto, in_types: list[int], opset: int, mode: str, kernel_path: str | None
) -> tuple[str, str] | None:
    """None when the library serves the node, else (category, reason) for leaving it to stock ORT."""
    if node.op_type not in op_table():
        return "op", f"{node.op_type} is not an operator of OneModel EP"
    if any(t < 0 for t in in_types):
        return "unknown type", "the element type of an input is not known"
    problem = attribute_problem(node, opset)
    if problem is not None:
        return "attribute", problem
    reason = probe(
        node.op_type,
        in_types,
        onnx_opset=opset,
        attributes=_node_attributes(node),
        mode=mode,
        kernel_path=kernel_path,
        name=node.name,
    )
    return None if reason is None else (_classify(reason), reason)


def _classify(reason: str) -> str:
    if "opset" in reason:
        return "opset"
    if "element type" in reason or "no kernel for" in reason:
        return "type"
    if "attribute" in reason or "fmod" in reason:
        return "attribute"
    if "inputs given" in reason:
        return "arity"
    return "op"


def rewrite(
    model: onnx.ModelProto,
    mode: str = "exact",
    kernel_path: str | None = None,
    *,
    report: RewriteReport | None = None,
    in_place: bool = False,
) -> onnx.ModelProto:
    """Return a copy of `model` whose supported nodes run on OneModel EP kernels (with in_place=True,
    `model` itself, changed, with no copy of its weights).

    Every node of the default domain that the library serves (op, opset, element types, attributes) moves to
    the `ai.onemodel` domain, in the main graph and every subgraph, carrying `mode`, the ONNX opset it came
    from and, if given, the forced `kernel_path`. Nothing else changes. Pass a RewriteReport to learn what
    moved and, for each node left to stock ORT, why.
    """
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
    if kernel_path is not None and kernel_path not in PATH_NAMES:
        raise ValueError(f"kernel_path must be one of {PATH_NAMES} or None, got {kernel_path!r}")
    if not isinstance(model, onnx.ModelProto):
        raise TypeError(f"rewrite() takes an onnx.ModelProto, got {type(model).__name__}")
    if in_place:
        out = model
    else:
        out = onnx.ModelProto()
        out.CopyFrom(model)
    rep = report if report is not None else RewriteReport(mode, kernel_path)
    rep.mode, rep.kernel_path = mode, kernel_path
    opset = _default_opset(out)
    inferred = _infer(external_data.skeleton(out, external_data.SHAPE_BYTES))  # types, shapes: no weights
    types = _collect_types(out, inferred)
    moved_any = False

    def visit(graph: onnx.GraphProto, inf: onnx.GraphProto | None, where: str) -> None:
        """Retarget the nodes of `graph`; `inf` is the same graph after shape inference (None: unknown)."""
        nonlocal moved_any
        witnesses: list[tuple[int, onnx.NodeProto]] = []
        moved_outputs: list[str] = []
        if inf is not None and len(inf.node) != len(graph.node):
            inf = None
        for index, node in enumerate(graph.node):
            label = node.name or f"{node.op_type}_{index}"
            inf_node = inf.node[index] if inf is not None else None
            if inf_node is not None and not _same_node(node, inf_node):
                inf_node = None
            for attr in node.attribute:
                inf_subs = _inferred_subgraphs(inf_node, attr.name)
                for k, sub in enumerate(_subgraphs(attr)):
                    suffix = f"[{k}]" if attr.type == onnx.AttributeProto.GRAPHS else ""
                    inf_sub = inf_subs[k] if k < len(inf_subs) else None
                    visit(sub, inf_sub, f"{where}/{label}.{attr.name}{suffix}")
            if node.domain not in ("", "ai.onnx"):
                continue
            in_types = [types.get(name, -1) if name else 0 for name in node.input]
            shown = tuple("absent" if t == 0 else ("unknown" if t < 0 else type_name(t)) for t in in_types)

            verdict = _verdict(node, in_types, opset, mode, kernel_path)
            if verdict is not None:
                rep.nodes.append(NodeReport(where, node.name, node.op_type, shown, False, *verdict))
                continue
            if node.op_type == "Cast" and len(node.input) == 1:
                witness = _cast_witness(node)
                witnesses.append((index, witness))
                node.input.append(witness.output[0])
            node.domain = DOMAIN
            node.attribute.append(helper.make_attribute(ATTR_MODE, mode))
            node.attribute.append(helper.make_attribute(ATTR_OPSET, opset))
            if kernel_path is not None:
                node.attribute.append(helper.make_attribute(ATTR_PATH, kernel_path))
            moved_any = True
            moved_outputs += [o for o in node.output if o]
            rep.nodes.append(NodeReport(where, node.name, node.op_type, shown, True, "moved", ""))
        for index, witness in reversed(witnesses):  # each right before its Cast, keeping topological order
            graph.node.insert(index, witness)
        _carry_shapes(graph, inf, moved_outputs, where != "main")

    visit(out.graph, inferred.graph if inferred is not out else None, "main")
    if moved_any and not any(imp.domain == DOMAIN for imp in out.opset_import):
        out.opset_import.append(helper.make_opsetid(DOMAIN, DOMAIN_VERSION))
    return out


def rewrite_file(
    src: str | os.PathLike[str],
    dst: str | os.PathLike[str],
    mode: str = "exact",
    kernel_path: str | None = None,
    *,
    report: RewriteReport | None = None,
) -> RewriteReport:
    """Rewrite the model file `src` into `dst`, never loading its external data into memory.

    The graph is read without its external tensors (`onnx.load(..., load_external_data=False)`), rewritten,
    and written with the same external data references. In `src`'s folder (or over `src`) the output shares
    the input's data files; in another folder each data file is copied beside `dst` under the same relative
    name (a reflink where the file system has them), since ORT reads external data only from the model's
    folder. A location that escapes `src`'s folder (symbolic links followed) or names a symbolic link, a
    FIFO or a device is refused (ValueError). Any size works: the graph alone is well under protobuf's
    2 GiB limit.
    """
    model = onnx.load(os.fspath(src), load_external_data=False)
    rep = report if report is not None else RewriteReport(mode, kernel_path)
    out = rewrite(model, mode=mode, kernel_path=kernel_path, report=rep)
    external_data.save_beside(out, src, dst)
    return rep
