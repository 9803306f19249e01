"""Whether the library serves an ONNX node and, if not, why: the question the rewriter and the EP report
ask of every node. The library itself answers (`node.probe`, i.e. om_node_create)."""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping

import onnx
from onnx import helper

from onemodel_ep._lib import lib, op_key, op_table, type_name
from onemodel_ep.attribute_kinds import attribute_problem
from onemodel_ep.node import Node, NodeError, probe

MAX_RANK = int(lib.OM_NODE_MAX_RANK)  # the highest rank a node serves


def input_types(node: onnx.NodeProto, types: Mapping[str, int]) -> tuple[list[int], tuple[str, ...]]:
    """The element types of `node`'s inputs (0: an absent optional input, -1: not known) and their names
    as the reports show them."""
    in_types = [types.get(name, -1) if name else 0 for name in node.input]
    shown = tuple("absent" if t == 0 else ("unknown" if t < 0 else type_name(t)) for t in in_types)
    return in_types, shown


def node_attributes(node: onnx.NodeProto) -> dict[str, object]:
    """Every attribute of `node` but subgraphs, by value. Their kinds are the schema's (attribute_problem
    checked them), so the library never reads one of the wrong kind as absent."""
    return {
        a.name: helper.get_attribute_value(a)
        for a in node.attribute
        if a.type not in (onnx.AttributeProto.GRAPH, onnx.AttributeProto.GRAPHS)
    }


def output_count(node: onnx.NodeProto) -> int:
    """The outputs the node has, trailing absent ones (empty names) not counted: what the library checks
    against its op table (an output it does not serve, GroupQueryAttention's output_qk, is refused)."""
    n = len(node.output)
    while n > 0 and not node.output[n - 1]:
        n -= 1
    return n


def rank_problem(node: onnx.NodeProto, ranks: Mapping[str, int]) -> str | None:
    """Which input or output of `node` has a rank (as `ranks` knows them) above MAX_RANK, or None. Stock ORT
    runs any rank; the library's kernels would refuse every run."""
    for kind, names in (("input", node.input), ("output", node.output)):
        for k, name in enumerate(names):
            r = ranks.get(name, 0) if name else 0
            if r > MAX_RANK:
                return f"{kind} {k} ({name!r}) has rank {r} above {MAX_RANK}"
    return None


def verdict(
    node: onnx.NodeProto,
    in_types: list[int],
    opset: int,
    mode: str,
    kernel_path: str | None,
    ranks: Mapping[str, int] | None = None,
) -> tuple[str, str] | None:
    """None when the library serves the node, else (category, reason) for leaving it to stock ORT.
    `opset`: the model's opset of the node's domain; `ranks`: the rank of each value where known
    (inference.value_ranks)."""
    key = op_key(node.domain, node.op_type)
    if key not in op_table():
        return "op", f"{key} is not an operator of OneModel EP"
    rank_why = rank_problem(node, ranks or {})
    if rank_why is not None:
        return "rank", rank_why
    if any(t < 0 for t in in_types):
        return "unknown type", "the element type of an input is not known"
    problem = attribute_problem(node, opset)
    if problem is not None:
        return "attribute", problem
    reason = probe(
        key,
        in_types,
        onnx_opset=opset,
        attributes=node_attributes(node),
        mode=mode,
        kernel_path=kernel_path,
        name=node.name,
        n_outputs=output_count(node),
    )
    return None if reason is None else (_classify(reason), reason)


def learn_output_types(
    node: onnx.NodeProto, in_types: list[int], opset: int, types: MutableMapping[str, int]
) -> None:
    """Record in `types` the element types of the outputs of `node`, a node the library serves, that ONNX
    shape inference left unknown (it knows no com.microsoft operator, so the values after one have no type):
    the library's own, so that the nodes after it can be served too."""
    missing = [k for k, name in enumerate(node.output) if name and types.get(name, -1) < 0]
    if not missing or any(t < 0 for t in in_types):
        return
    try:
        outs = Node(op_key(node.domain, node.op_type), in_types, onnx_opset=opset,
                    attributes=node_attributes(node), n_outputs=output_count(node)).output_types
    except NodeError:  # not served after all: its outputs stay unknown
        return
    for k in missing:
        if k < len(outs):
            types[node.output[k]] = outs[k]


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
