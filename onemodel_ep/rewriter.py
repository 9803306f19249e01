"""The rewriter: retargets every node the library serves to the `ai.onemodel` domain.

It asks the compiled library itself (`node.probe`, i.e. om_node_create) whether a node is served, so the op
table in provider/csrc/core/om_ops.def is the only place that decides; nodes it cannot serve stay with stock
ORT, each with the reason. The input model is never edited.
"""

from __future__ import annotations

import os

import onnx
from onnx import helper

from onemodel_ep import external_data, qdq_groups
from onemodel_ep._lib import (
    DOMAIN,
    DOMAIN_VERSION,
    MODES,
    OUT_VALUE,
    PATH_NAMES,
    op_key,
    op_table,
    served_domains,
)
from onemodel_ep.inference import Inferred, domain_opset, infer, subgraphs, value_ranks, value_types
from onemodel_ep.ort_shapes import (
    bodies_lack_shapes,
    body_key,
    ort_body_types,
    ort_value_types,
    untyped_outputs,
)
from onemodel_ep.report import NodeReport, RewriteReport
from onemodel_ep.serving import input_types, learn_output_types, verdict

__all__ = ["ATTR_MODE", "ATTR_OPSET", "ATTR_PATH", "NodeReport", "RewriteReport", "rewrite", "rewrite_file"]

# Attributes the rewriter adds to a retargeted node.
ATTR_MODE = "mode"
ATTR_PATH = "kernel_path"
ATTR_OPSET = "onnx_opset"
# A node's own attribute of one of our names is kept under this prefix (Pad's `mode`: `onnx_mode`).
ATTR_RENAMED_PREFIX = "onnx_"


def _has_shape(t: onnx.TypeProto) -> bool:
    return t.HasField("tensor_type") and t.tensor_type.HasField("shape")


def _carry_shapes(
    graph: onnx.GraphProto,
    inferred: onnx.GraphProto | None,
    names: list[str],
    subgraph: bool,
    ort_types: dict[str, onnx.TypeProto] | None = None,
) -> None:
    """Give the values `names` (outputs of retargeted nodes) of `graph`, and a subgraph's outputs, the shapes
    ONNX inference found.

    ORT infers no output shape for a custom op, so without this a retargeted node's output has a type and no
    shape; a control-flow body whose output depends on one fails in ORT (Scan: "Subgraph must have the shape
    set for all outputs"), and the stock nodes after it lose the shapes stock ORT would know. A value the
    graph declares without a shape (as an output or in value_info) gets the inferred shape; one it does not
    declare gets a value_info. The main graph's outputs are left as declared. `inferred` is the same graph
    after inference (per graph, not one namespace: an If's two branches may both name a value, with
    different shapes). `ort_types`: for a body, the types ORT's own inference gives its values
    (ort_shapes.py), used where ONNX inference found no shape.
    """
    found = dict(ort_types or {})
    if inferred is not None:
        found.update({
            vi.name: vi.type
            for vi in list(inferred.input) + list(inferred.output) + list(inferred.value_info)
            if _has_shape(vi.type)
        })
    if not found:
        return
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
        elif not vi.type.HasField("tensor_type") and not vi.type.WhichOneof("value"):  # declared with no type
            vi.type.CopyFrom(t)
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
    return next((list(subgraphs(a)) for a in node.attribute if a.name == attr_name), [])


def _type_witness(name: str, elem_type: int) -> onnx.NodeProto:
    """A Constant node `name` making an empty tensor of element type `elem_type`.

    A retargeted Cast (its target type), ConstantOfShape (`value`'s type), QuantizeLinear, DequantizeLinear,
    QLinearConv, com.microsoft QGemm (y's type) or GatherBlockQuantized (the scales' type) takes it as its
    last input: ORT infers a custom op's output type from its last input, which then is right without a
    shape-inference function (ORT's cannot express an unknown rank). It carries no data.
    """
    empty = helper.make_tensor(name, elem_type, [0], [])
    return helper.make_node("Constant", [], [name], name=name, value=empty)


# The ops whose output type the rewriter passes as an empty last input, with how many inputs come before it.
_WITNESSED = {
    "QuantizeLinear": 3,
    "DequantizeLinear": 3,
    "com.microsoft.QuantizeLinear": 3,
    "com.microsoft.DequantizeLinear": 3,
    "QLinearConv": 9,
    "com.microsoft.QGemm": 9,
    "com.microsoft.GatherBlockQuantized": 4,
}


def _witness_for(node: onnx.NodeProto, key: str, types: dict[str, int]) -> onnx.NodeProto | None:
    """The type witness `node` (op-table key `key`) needs after the rewrite, or None. Its inputs are padded
    with absent ones so that the witness comes after all of its own."""
    if node.op_type == "Cast" and len(node.input) == 1:
        to = next(a.i for a in node.attribute if a.name == "to")
        return _type_witness(f"{node.output[0]}__onemodel_cast_to", to)
    if op_table()[key].output_rule == OUT_VALUE:  # ConstantOfShape: the type of `value`, float when absent
        value = next((a.t for a in node.attribute if a.name == "value"), None)
        elem_type = value.data_type if value is not None else onnx.TensorProto.FLOAT
        return _type_witness(f"{node.output[0]}__onemodel_value_type", elem_type)
    if key not in _WITNESSED or types.get(node.output[0], -1) <= 0:
        return None
    while len(node.input) < _WITNESSED[key]:
        node.input.append("")
    return _type_witness(f"{node.output[0]}__onemodel_y_type", types[node.output[0]])


def rewrite(
    model: onnx.ModelProto,
    mode: str = "exact",
    kernel_path: str | None = None,
    *,
    report: RewriteReport | None = None,
    in_place: bool = False,
    inference: Inferred | None = None,
) -> onnx.ModelProto:
    """Return a copy of `model` whose supported nodes run on OneModel EP kernels (with in_place=True,
    `model` itself, changed, with no copy of its weights).

    Every node of a domain of the op table (ONNX's default one, com.microsoft) that the library serves (op,
    opset, element types, attributes) moves to the `ai.onemodel` domain, in the main graph and every
    subgraph, as the op type of its op-table key (`op_key`: "Add", "com.microsoft.SkipLayerNormalization"),
    carrying `mode`, the opset of its domain it came from and, if given, the forced `kernel_path`. First,
    each QDQ group of the main graph (DequantizeLinear -> Conv, MatMul, Gemm, Add, Mul, Sigmoid, LeakyRelu,
    AveragePool, GlobalAveragePool, Softmax or Concat -> QuantizeLinear; DequantizeLinear -> MatMul with no
    QuantizeLinear after it) becomes the QLinear node of its QOperator form (MatMulIntegerToFloat for the
    latter: `qdq_groups`, docs/qdq-groups-rewrite.md). Nothing
    else changes. Pass a RewriteReport to learn what moved and, for each node left to stock ORT, why.
    `inference`: `model`'s ONNX inference (inference.Inferred) when the caller has one (the QDQ grouping
    reads it instead of inferring again).
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
    # DequantizeLinear -> P -> QuantizeLinear: one QLinear node (qdq_groups.py)
    qdq_groups.group(out, mode, kernel_path, rep, inference)
    opsets = {d: domain_opset(out, d) for d in served_domains()}
    inferred = infer(external_data.skeleton(out, external_data.SHAPE_BYTES))  # types, shapes: no weights
    types = value_types(out, inferred)
    # values after an op ONNX inference does not know (com.microsoft's): ORT's own inference types them
    types.update(ort_value_types(out, untyped_outputs(out.graph, types)))
    ranks = value_ranks(inferred)
    # where ONNX inference leaves a body's output without a shape, ask ORT's inference (before the rewrite)
    body_types = ort_body_types(out) if bodies_lack_shapes(inferred.graph) else {}
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
                for k, sub in enumerate(subgraphs(attr)):
                    suffix = f"[{k}]" if attr.type == onnx.AttributeProto.GRAPHS else ""
                    inf_sub = inf_subs[k] if k < len(inf_subs) else None
                    visit(sub, inf_sub, f"{where}/{label}.{attr.name}{suffix}")
            domain = "" if node.domain == "ai.onnx" else node.domain
            if domain not in opsets:
                continue
            opset = opsets[domain]
            in_types, shown = input_types(node, types)
            why = verdict(node, in_types, opset, mode, kernel_path, ranks)
            if why is not None:
                rep.nodes.append(NodeReport(where, node.name, node.op_type, shown, False, *why))
                continue
            learn_output_types(node, in_types, opset, types)
            key = op_key(node.domain, node.op_type)
            witness = _witness_for(node, key, types)
            if witness is not None:
                witnesses.append((index, witness))
                node.input.append(witness.output[0])
            op_type = node.op_type
            node.op_type = key
            node.domain = DOMAIN
            while node.output and not node.output[-1]:  # trailing absent outputs: the custom op has no slot
                node.output.pop()
            for attr in node.attribute:
                if attr.name in (ATTR_MODE, ATTR_OPSET, ATTR_PATH):
                    attr.name = ATTR_RENAMED_PREFIX + attr.name
            node.attribute.append(helper.make_attribute(ATTR_MODE, mode))
            node.attribute.append(helper.make_attribute(ATTR_OPSET, opset))
            if kernel_path is not None:
                node.attribute.append(helper.make_attribute(ATTR_PATH, kernel_path))
            moved_any = True
            moved_outputs += [o for o in node.output if o]
            rep.nodes.append(NodeReport(where, node.name, op_type, shown, True, "moved", ""))
        for index, witness in reversed(witnesses):  # each right before its node, keeping topological order
            graph.node.insert(index, witness)
        _carry_shapes(graph, inf, moved_outputs, where != "main", body_types.get(body_key(graph)))

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
