"""The result of `onemodel diff`: DiffReport and its parts; `DiffReport.to_dict()` is the JSON document
(schema in docs/diff.md)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from onemodel_ep.diff.compare import Comparison, Criteria, json_value
from onemodel_ep.diff.format import format_report
from onemodel_ep.report import RewriteReport

SCHEMA_VERSION = 1


@dataclass
class OutputDiff:
    """One graph output: stock ORT vs OneModel EP."""

    name: str
    comparison: Comparison

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, **self.comparison.to_dict()}


@dataclass
class NodeDiff:
    """One retargeted node of the main graph, with its outputs compared between the two runs."""

    index: int  # position in the main graph (topological order)
    name: str
    op: str
    output: str  # the output shown (the worst one of the node)
    comparison: Comparison
    inputs: list[dict[str, Any]]  # name, stats (stock ORT side), identical (both runs agree bit for bit)
    retargeted: bool = True  # runs on OneModel EP (False: stock ORT in both runs)
    reason: str | None = None  # why it differs, where it can be told (how ORT ran it in each run)
    # the control-flow bodies it lies in, outermost first ("loop (Loop) body at its first iteration"); empty
    # in the main graph; `index` is then the node's position in the innermost body
    inside: list[str] = field(default_factory=list)

    @property
    def error_key(self) -> tuple[bool, int, float, float, int]:
        """Largest errors first: failing at all, NaN mismatches, max ulp, max abs, failing count."""
        c = self.comparison
        return (c.failing > 0, c.nan_mismatches, float(c.max_ulp or 0), float(c.max_abs or 0.0), c.failing)

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "name": self.name,
            "op": self.op,
            "output": self.output,
            "inputs": self.inputs,
            "error": self.comparison.to_dict(),
            "retargeted": self.retargeted,
            "reason": self.reason,
            "inside": self.inside,
        }


@dataclass
class PathsCheck:
    """The rewritten model on every kernel path of the machine, compared bit for bit with the first one."""

    mode: str
    paths: list[str]
    identical: bool
    outputs: list[dict[str, Any]]  # name, identical, first_difference: {index, values: {path: value}} | None

    def to_dict(self) -> dict[str, Any]:
        return {"mode": self.mode, "paths": self.paths, "identical": self.identical, "outputs": self.outputs}


@dataclass
class DiffReport:
    """Everything `onemodel diff` found. `to_dict()` is the JSON document (schema in docs/diff.md)."""

    model: str
    mode: str
    kernel_path: str | None
    criteria: Criteria
    inputs: list[dict[str, Any]]
    generation: dict[str, Any] | None
    rewrite: RewriteReport
    outputs: list[OutputDiff]
    all_paths: PathsCheck | None = None
    per_node: dict[str, Any] | None = None
    nodes: list[NodeDiff] = field(default_factory=list)
    divergence: NodeDiff | None = None  # set by the per-node pass (see first_divergence)
    versions: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0
    via: str = "rewrite"

    @property
    def passed(self) -> bool:
        """Every output meets the criteria and, with all_paths in exact mode, the kernel paths agree."""
        ok = all(o.comparison.passed for o in self.outputs)
        if self.all_paths is not None and self.all_paths.mode == "exact":
            ok = ok and self.all_paths.identical
        return ok

    @property
    def first_divergence(self) -> NodeDiff | None:
        """With per_node: where the runs part. The first node (ours or stock ORT's), in topological order,
        whose inputs are bit-identical in both runs and whose output fails the criteria; else the first whose
        output fails; else, when outputs fail though no exposed value does, the first node that ORT ran
        differently in the two plain runs (fused with its neighbours in one of them), its `reason` saying how.
        """
        return self.divergence

    def top(self, k: int) -> list[NodeDiff]:
        """The k nodes with the largest errors (nodes with bit-identical outputs are left out)."""
        differing = [
            n for n in self.nodes if n.comparison.identical < n.comparison.elements or n.comparison.error
        ]
        return sorted(differing, key=lambda n: n.error_key, reverse=True)[:k]

    def to_dict(self) -> dict[str, Any]:
        per_node: dict[str, Any] | None = None
        if self.per_node is not None:
            first = self.first_divergence
            per_node = {
                **self.per_node,
                "first_divergence": first.to_dict() if first else None,
                "top": [n.to_dict() for n in self.top(int(self.per_node.get("top_k", 5)))],
                "nodes": [n.to_dict() for n in self.nodes],
            }
        return {
            "schema_version": SCHEMA_VERSION,
            "model": self.model,
            "mode": self.mode,
            "kernel_path": self.kernel_path,
            "via": self.via,
            "versions": self.versions,
            "criteria": self.criteria.to_dict(),
            "passed": self.passed,
            "inputs": self.inputs,
            "generation": self.generation,
            "rewrite": {
                "moved": len(self.rewrite.moved),
                "stayed": len(self.rewrite.stayed),
                "nodes": [
                    {
                        "graph": n.graph,
                        "name": n.name,
                        "op": n.op,
                        "moved": n.moved,
                        "category": n.category,
                        "reason": n.reason,
                    }
                    for n in self.rewrite.nodes
                ],
            },
            "outputs": [o.to_dict() for o in self.outputs],
            "all_paths": self.all_paths.to_dict() if self.all_paths else None,
            "per_node": per_node,
            "seconds": round(self.seconds, 3),
        }

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(jsonable(self.to_dict()), indent=indent, allow_nan=False)

    def format(self) -> str:
        return format_report(self)

    def __str__(self) -> str:
        return self.format()


def jsonable(x: Any) -> Any:
    """`x` with NumPy scalars and non-finite floats as JSON values (json_value), dict keys as strings."""
    if isinstance(x, dict):
        return {str(k): jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [jsonable(v) for v in x]
    if isinstance(x, (float, np.floating, np.integer, np.bool_)):
        return json_value(x)
    return x
