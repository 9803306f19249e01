"""Where the nodes that ORT's graph optimiser fused went: the EP report's reading of ORT's placement.

ORT records the execution provider of every node of the graph it runs (ep.assignments), not of the model's
nodes: a fusion replaces nodes with one of its own (MatMul + Add become a Gemm), which ORT names after the
first of them and the transformer, "<node>/<Transformer>" (onnxruntime 1.31: "mm/MatMulAddFusion"), and
which runs where ORT placed it. `fused_into` maps each model node that is missing from the placement
("gone") to the node that took it over: a gone node whose name starts a made node's name (or is it) takes
that node, and each other gone node takes the node of the nearest such one it is joined to by values through
gone nodes only (the Add that consumed the MatMul's output). A gone node joined to none was removed (an
Identity ORT eliminated) and maps to nothing.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from typing import TYPE_CHECKING

import onnx

if TYPE_CHECKING:  # ep.py imports this module
    from onemodel_ep.ep import Assignment

__all__ = ["fused_into"]


def _seed(name: str, made: Sequence[Assignment]) -> Assignment | None:
    """The made node named after the model node `name` ("<name>/<Transformer>...", or `name` itself with
    another op), if any."""
    if not name:
        return None
    for a in made:
        if a.name == name or a.name.startswith(name + "/"):
            return a
    return None


def fused_into(gone: Sequence[onnx.NodeProto], made: Sequence[Assignment]) -> list[Assignment | None]:
    """For each node of `gone` (model nodes missing from ORT's placement), the node of `made` (placed nodes
    that are not the model's) that took it over, or None where ORT removed it."""
    into: list[Assignment | None] = [_seed(n.name, made) for n in gone]
    producers: dict[str, list[int]] = {}
    consumers: dict[str, list[int]] = {}
    for i, n in enumerate(gone):
        for v in n.output:
            if v:
                producers.setdefault(v, []).append(i)
        for v in n.input:
            if v:
                consumers.setdefault(v, []).append(i)
    queue = deque(i for i, a in enumerate(into) if a is not None)
    while queue:  # breadth first from every seed at once: each gone node takes its nearest seed's node
        i = queue.popleft()
        n = gone[i]
        joined = [j for v in n.output if v for j in consumers.get(v, ())]
        joined += [j for v in n.input if v for j in producers.get(v, ())]
        for j in joined:
            if into[j] is None:
                into[j] = into[i]
                queue.append(j)
    return into
