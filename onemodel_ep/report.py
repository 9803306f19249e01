"""What OneModel EP does with each node of a model: RewriteReport (the rewrite path), EpReport (the EP
path)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from onemodel_ep._lib import DOMAIN, EP_NAME


@dataclass(frozen=True)
class NodeReport:
    """One node the rewriter looked at."""

    graph: str  # "main" or the path of the subgraph, e.g. "main/If_0.then_branch"
    name: str
    op: str
    input_types: tuple[str, ...]
    moved: bool
    # "moved", "fused" (into a node of ORT's), "op", "opset", "type", "unknown type", "attribute", "rank",
    # "placed" (served, yet ORT placed it elsewhere), "optimised" (removed by ORT's optimiser), "grouped"
    # (part of a QDQ group the rewrite made one QLinear node: qdq_groups.py)
    category: str
    reason: str
    domain: str = ""  # the node's domain ("": the default ONNX domain)

    def __str__(self) -> str:
        where = self.name or "(unnamed)"
        types = ", ".join(self.input_types)
        if self.moved:
            how = f": {self.reason}" if self.reason else ""
            return f"moved  {self.op:<14} {where} [{types}] ({self.graph}){how}"
        return f"stayed {self.op:<14} {where} [{types}] ({self.graph}): {self.category}: {self.reason}"


@dataclass
class RewriteReport:
    """What the rewriter moved to `ai.onemodel` and what it left to stock ORT, and why."""

    mode: str
    kernel_path: str | None
    nodes: list[NodeReport] = field(default_factory=list)

    # The words of summary()'s first line: what ran the nodes, where the moved ones went, the others.
    KIND: ClassVar[str] = "rewrite"
    MOVED_TO: ClassVar[str] = f"moved to {DOMAIN}"
    STAYED_WITH: ClassVar[str] = "left to stock ORT"

    @property
    def moved(self) -> list[NodeReport]:
        return [n for n in self.nodes if n.moved]

    @property
    def stayed(self) -> list[NodeReport]:
        return [n for n in self.nodes if not n.moved]

    def summary(self) -> str:
        lines = [
            f"OneModel EP {self.KIND} (mode={self.mode}, kernel_path={self.kernel_path or 'auto'}): "
            f"{len(self.moved)} node(s) {self.MOVED_TO}, {len(self.stayed)} {self.STAYED_WITH}"
        ]
        lines += [f"  {n}" for n in self.nodes]
        return "\n".join(lines)


@dataclass
class EpReport(RewriteReport):
    """Which nodes ran on OneModel's execution provider and why the others stayed with ORT's CPU EP.

    `moved` nodes are those ORT assigned to OneModelExecutionProvider (ORT's own record of the partition),
    and the ai.onemodel custom-op nodes of a model already rewritten; each other node carries the library's
    reason (om_node_create's, as the rewriter reports it), or, for a node the library serves that ORT did
    not place on the EP, that ORT's optimiser removed or merged it. A node ORT's optimiser fused into a node
    of its own ("fused") counts where ORT placed that node; `fused`: the model's nodes each one took over.
    """

    fused: dict[str, list[str]] = field(default_factory=dict)

    KIND: ClassVar[str] = "execution provider"
    MOVED_TO: ClassVar[str] = f"on {EP_NAME}"
    STAYED_WITH: ClassVar[str] = "left to ORT's CPU execution provider"
