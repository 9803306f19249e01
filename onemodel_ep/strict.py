"""Strict mode: a session runs every computing node (onemodel_ep.computing) on OneModel EP, or is refused.

Users who need the promise of bit-identical outputs need it for the whole model, not for most of it. In strict
mode, session creation (onemodel_ep.InferenceSession, `onemodel run|diff|bench --strict`) fails with one
StrictModeError that names each computing node that would run outside OneModel EP, with the reason the EP
report gives (the library's own answer for that node). Data-movement nodes may stay with ORT's CPU EP.

Through the EP the placement is ORT's own record (ep.assignments, subgraphs included): a node ORT's optimiser
made, such as a fused node on the CPU EP, is judged as it is. Through the rewrite, every node of the
rewritten model outside the ai.onemodel domain runs on stock ORT.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import onnx
import onnxruntime as ort

from onemodel_ep._lib import DOMAIN, EP_NAME
from onemodel_ep.computing import is_computing
from onemodel_ep.ep import STRICT_KEY, Assignment, assignments, config_entry, ep_report
from onemodel_ep.errors import StrictModeError
from onemodel_ep.inference import walk
from onemodel_ep.report import EpReport, NodeReport, RewriteReport

__all__ = [
    "Outside",
    "check",
    "check_session",
    "outside_ep",
    "outside_rewrite",
    "refusal",
    "strict_requested",
]


@dataclass(frozen=True)
class Outside:
    """A computing node that would run outside OneModel EP, and why."""

    name: str
    op: str
    domain: str
    graph: str  # "main" or the path of the subgraph, as the reports write it; "" where ORT made the node
    reason: str

    def __str__(self) -> str:
        where = f", graph {self.graph}" if self.graph else ""
        domain = self.domain or "ai.onnx"
        return f"  {self.name or '(unnamed)'}: op {self.op}, domain {domain}{where}: {self.reason}"


def strict_requested(so: ort.SessionOptions | None) -> bool:
    """Whether `so` came from ep_session_options(strict=True)."""
    return so is not None and config_entry(so, STRICT_KEY) == "1"


def _by_key(nodes: Iterable[NodeReport]) -> dict[tuple[str, str], list[NodeReport]]:
    out: dict[tuple[str, str], list[NodeReport]] = {}
    for n in nodes:
        out.setdefault((n.name, n.op), []).append(n)
    return out


def _why(n: NodeReport) -> str:
    return n.reason or n.category


def outside_ep(report: RewriteReport, placed: Sequence[Assignment]) -> list[Outside]:
    """The computing nodes ORT placed on an execution provider other than OneModel's (`placed`: ORT's record,
    ep.assignments), each with the EP report's reason."""
    stayed = _by_key(report.stayed)
    order = {id(n): i for i, n in enumerate(report.nodes)}
    keyed: list[tuple[int, Outside]] = []  # in the report's order; the nodes ORT made last
    for a in placed:
        if a.ep == EP_NAME or a.domain == DOMAIN:
            continue
        found = stayed.get((a.name, a.op))
        n = found.pop(0) if found else None
        if not is_computing(a.op, a.domain, n.input_types if n is not None else ()):
            continue
        if n is not None:
            why = f"{_why(n)} (runs on {a.ep})"
            keyed.append((order[id(n)], Outside(a.name, a.op, a.domain, n.graph, why)))
        else:
            sources = report.fused.get(a.name) if isinstance(report, EpReport) else None
            of = f" from {', '.join(repr(s) for s in sources)}" if sources else ""
            why = f"made by ORT's graph optimiser{of}, not served by OneModel EP (runs on {a.ep})"
            keyed.append((len(order), Outside(a.name, a.op, a.domain, "", why)))
    return [o for _, o in sorted(keyed, key=lambda k: k[0])]


def outside_rewrite(report: RewriteReport, rewritten: onnx.ModelProto) -> list[Outside]:
    """The computing nodes of a rewritten model that stay with stock ORT (every graph), each with the rewrite
    report's reason."""
    stayed = _by_key(report.stayed)
    out: list[Outside] = []

    for where, node in walk(rewritten.graph):
        if node.domain == DOMAIN:
            continue
        found = stayed.get((node.name, node.op_type))
        n = found.pop(0) if found else None
        if not is_computing(node.op_type, node.domain, n.input_types if n is not None else ()):
            continue
        why = _why(n) if n is not None else f"domain {node.domain!r} is not served by OneModel EP"
        out.append(Outside(node.name, node.op_type, node.domain, where, f"{why} (runs on stock ORT)"))
    return out


def refusal(lines: Sequence[str], model: str = "the model") -> StrictModeError:
    """The StrictModeError of the nodes `lines` (one line each) of `model`."""
    return StrictModeError(
        f"strict mode: {len(lines)} computing node(s) of {model} would run outside {EP_NAME}:", lines
    )


def check(outside: Sequence[Outside], model: str = "the model") -> None:
    """Raise StrictModeError naming every node of `outside`, one per line; nothing when it is empty."""
    if outside:
        raise refusal([str(o) for o in outside], model)


def check_session(
    model: onnx.ModelProto, sess: ort.InferenceSession, mode: str = "exact", kernel_path: str | None = None
) -> None:
    """Strict mode for a plain onnxruntime.InferenceSession made with ep_session_options over `model` without
    strict=True (with it, the EP refuses the session itself): raise StrictModeError when a computing node runs
    outside OneModel EP, ORT's record of placement included (onemodel_ep.InferenceSession and the command line
    do this themselves)."""
    check(outside_ep(ep_report(model, sess, mode, kernel_path), assignments(sess)))
