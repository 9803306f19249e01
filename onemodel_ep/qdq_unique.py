"""A DequantizeLinear of its own for each node that reads one (docs/quantized.md, "QDQ groups").

A QDQ group needs each of its float op's inputs to come from a DequantizeLinear that nothing else reads. ORT
gives each reader its own copy before it partitions the graph (EnsureUniqueDQForNodeUnit, at every
optimisation level, unless the session option session.disable_quant_qdq is "1"), so the execution provider
sees unique ones; `unique_dq` does the same copying on the model onemodel_ep.InferenceSession hands either
way in (EP and rewrite), so that both see the same groups. A copy computes the same value.
"""

from __future__ import annotations

import onnx

__all__ = ["unique_dq"]

_DEFAULT = ("", "ai.onnx")


def _readers(graph: onnx.GraphProto) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for k, node in enumerate(graph.node):
        for name in dict.fromkeys(node.input):  # a node reading a value twice counts once
            if name:
                out.setdefault(name, []).append(k)
    return out


def unique_dq(model: onnx.ModelProto, in_place: bool = False) -> onnx.ModelProto:
    """`model` where each main-graph DequantizeLinear (default domain, not a graph output) that several nodes
    read is one copy per reader, each copy's output named `<output>_om_dq<k>`, placed before its reader (a
    copy of the model, made only when something changes; with in_place=True, `model` itself)."""
    graph = model.graph
    outputs = {o.name for o in graph.output}
    readers = _readers(graph)
    shared = [
        k
        for k, n in enumerate(graph.node)
        if n.op_type == "DequantizeLinear"
        and n.domain in _DEFAULT
        and len(n.output) == 1
        and n.output[0] not in outputs
        and len(readers.get(n.output[0], [])) > 1
    ]
    if not shared:
        return model
    out = model if in_place else onnx.ModelProto()
    if not in_place:
        out.CopyFrom(model)
    graph = out.graph
    taken = {v for n in graph.node for v in (*n.input, *n.output)} | {i.name for i in graph.initializer}
    copies: dict[int, list[onnx.NodeProto]] = {}  # reader index -> the copies to place before it
    for k in shared:
        dq = graph.node[k]
        for j, r in enumerate(readers[dq.output[0]]):
            name, c = f"{dq.output[0]}_om_dq{j}", j
            while name in taken:
                c += 1000
                name = f"{dq.output[0]}_om_dq{c}"
            taken.add(name)
            copy = onnx.NodeProto()
            copy.CopyFrom(dq)
            copy.output[0] = name
            if dq.name:
                copy.name = f"{dq.name}_om_dq{j}"
            reader = graph.node[r]
            for i, v in enumerate(reader.input):
                if v == dq.output[0]:
                    reader.input[i] = name
            copies.setdefault(r, []).append(copy)
    gone = set(shared)
    nodes = []
    for k, node in enumerate(graph.node):
        nodes.extend(copies.get(k, []))
        if k not in gone:
            nodes.append(node)
    del graph.node[:]
    graph.node.extend(nodes)
    return out
