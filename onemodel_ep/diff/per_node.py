"""`onemodel diff --per-node`: every value of the main graph exposed in both runs, every node compared, and
the node where the runs part (DiffReport.first_divergence), with how ORT ran it in each run."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping
from typing import Any, Callable, Union

import numpy as np
import onnx
from onnx import helper, numpy_helper

from onemodel_ep._lib import DOMAIN
from onemodel_ep.diff.compare import Comparison, Criteria, bit_identical, compare, tensor_stats
from onemodel_ep.diff.report import NodeDiff
from onemodel_ep.diff.sessions import optimized_graph, run, session
from onemodel_ep.diff.subgraph import CONTROL_FLOW, body_model, constant_tensors, outer_reads
from onemodel_ep.inference import value_types

Progress = Callable[[str], None]


def _with_outputs(model: onnx.ModelProto, names: list[str], types: Mapping[str, int]) -> onnx.ModelProto:
    out = onnx.ModelProto()
    out.CopyFrom(model)
    have = {o.name for o in out.graph.output}
    for n in names:
        if n not in have:
            out.graph.output.append(helper.make_tensor_value_info(n, types[n], None))
            have.add(n)
    return out


_INSERTED_CAST = "InsertedPrecisionFreeCast_"  # ORT's prefix for the casts around an f16 op it runs in f32


RanGraphs = tuple[Union[onnx.GraphProto, None], Union[onnx.GraphProto, None]]  # (stock ORT, OneModel EP)


class _Runs:
    """The graph as given and the graphs the two runs ran (after ORT's optimisations), indexed once."""

    def __init__(self, graph: onnx.GraphProto, opts: RanGraphs) -> None:
        self.opts = opts
        self.producer = {o: n for n in graph.node for o in n.output if o}
        self.consumers: dict[str, list[onnx.NodeProto]] = {}
        for n in graph.node:
            for i in n.input:
                self.consumers.setdefault(i, []).append(n)
        self.ran = [self._index(g) if g is not None else None for g in opts]

    @staticmethod
    def _index(g: onnx.GraphProto) -> tuple[dict[str, onnx.NodeProto], set[str], dict[str, onnx.NodeProto]]:
        producers = {o: n for n in g.node for o in n.output if o}
        kept = set(producers) | {i.name for i in g.input} | {i.name for i in g.initializer}
        by_name: dict[str, onnx.NodeProto] = {}
        for n in g.node:  # ORT names a fused node after the node it kept: "matmul/MatMulScaleFusion/"
            by_name.setdefault(n.name.split("/")[0], n)
        return producers, kept, by_name

    def ran_as(self, node: onnx.NodeProto, side: int) -> tuple[str, tuple[Any, ...]]:
        """How run `side` (0 stock ORT, 1 OneModel EP) computed `node`: a phrase, and a signature two runs
        share when they computed it the same way (op, its output kept as a value, the neighbours fused into
        it, an f32 detour)."""
        index = self.ran[side]
        assert index is not None
        producers, kept, by_name = index
        out = node.output[0]
        ran = producers.get(out) or (by_name.get(node.name) if node.name else None)
        if ran is None:
            return "did not run it as a node of its own (ORT fused it into a neighbour)", (None,)
        near = [self.producer[i] for i in node.input if i in self.producer]
        near += [c for o in node.output if o for c in self.consumers.get(o, [])]
        neighbours = list({id(n): n for n in near if not any(o in kept for o in n.output if o)}.values())
        detour = any(i.startswith(_INSERTED_CAST) for i in list(ran.input) + list(ran.output))
        text = f"ran it as {ran.op_type} ({ran.domain or 'ai.onnx'})"
        if detour:
            text += " in float between casts ORT inserted"
        if neighbours:
            text += ", fused with " + ", ".join(f"{n.name or n.op_type!r} ({n.op_type})" for n in neighbours)
        if out not in kept:
            text += f"; {out!r} never exists as a value"
        return text, (ran.op_type, out in kept, tuple(sorted(n.name for n in neighbours)), detour)

    def why(self, node: onnx.NodeProto) -> str | None:
        """How the two runs computed `node` differently; None if alike or unknown."""
        if self.ran[0] is None or self.ran[1] is None:
            return None
        (s_text, s_sig), (o_text, o_sig) = self.ran_as(node, 0), self.ran_as(node, 1)
        return None if s_sig == o_sig else f"stock ORT {s_text}; OneModel EP {o_text}"


def compare_nodes(
    model: onnx.ModelProto,
    rewritten: onnx.ModelProto,
    feeds: Mapping[str, np.ndarray],
    crit: Criteria,
    top: int,
    progress: Progress,
    ep_session: Any = None,
    plain: tuple[onnx.GraphProto | None, onnx.GraphProto | None] = (None, None),
    outputs_fail: bool = False,
    rewrite_body: Callable[[onnx.ModelProto], onnx.ModelProto] | None = None,
    depth: int = 0,
) -> tuple[dict[str, Any], list[NodeDiff], NodeDiff | None]:
    """Expose every value of the main graph in both runs, compare every node (ours and stock ORT's) and find
    where the runs part (DiffReport.first_divergence). `plain`: the graphs ORT ran in the plain runs (stock,
    ours), after its optimisations, to tell why a node differs. `rewrite_body`: rewrites a control-flow body
    cut out as a model of its own (subgraph.py), to look inside an If, Loop or Scan where the runs part."""
    g, rg = model.graph, rewritten.graph
    # The rewriter may insert helper nodes (e.g. Cast's type witness): match nodes by their first output.
    index_of = {n.output[0]: i for i, n in enumerate(g.node) if n.output and n.output[0]}
    moved = sorted(
        index_of[n.output[0]] for n in rg.node if n.domain == DOMAIN and n.output and n.output[0] in index_of
    )
    moved_set = set(moved)
    types = value_types(model)
    inits = {i.name: i for i in g.initializer}
    graph_inputs = {i.name for i in g.input} - set(inits)
    const_of: dict[str, onnx.TensorProto] = {}
    for node in g.node:
        if node.op_type == "Constant" and node.output:
            for a in node.attribute:
                if a.name == "value" and a.type == onnx.AttributeProto.TENSOR:
                    const_of[node.output[0]] = a.t
    wanted: list[str] = []
    untyped: list[str] = []
    for node in g.node:
        for v in node.output:
            if not v or v in graph_inputs or v in inits or v in const_of or v in wanted or v in untyped:
                continue
            (wanted if v in types else untyped).append(v)

    tmp = tempfile.TemporaryDirectory(prefix="onemodel_diff_")
    opt_paths = (os.path.join(tmp.name, "stock.onnx"), os.path.join(tmp.name, "ours.onnx"))

    def exposed(m: onnx.ModelProto, ours: bool, label: str, make: Any = None) -> dict[str, np.ndarray]:
        """Run `m` with every wanted intermediate value added as a graph output."""
        progress(f"per node: {label} with {len(wanted)} intermediate value(s) exposed")
        if not wanted:
            return {}
        m = _with_outputs(m, wanted, types)
        opt = opt_paths[1 if ours else 0]
        sess = make(m, opt) if make is not None else session(m, ours, f"{label} (per node)", opt)
        return run(sess, feeds, wanted, f"{label} (per node)")

    with tmp:
        ref = exposed(model, False, "stock ORT")
        # through the EP: the original model with the same values exposed (exposing them moves no node)
        if ep_session is not None:
            got = exposed(model, True, "OneModel EP", ep_session)
        else:
            got = exposed(rewritten, True, "OneModel EP")
        per_node_opts = (optimized_graph(opt_paths[0]), optimized_graph(opt_paths[1]))

    def value(name: str, side: dict[str, Any]) -> np.ndarray | None:
        if name in feeds:
            return np.asarray(feeds[name])
        if name in inits:
            return numpy_helper.to_array(inits[name])
        if name in const_of:
            return numpy_helper.to_array(const_of[name])
        return np.asarray(side[name]) if name in side else None

    nodes: list[NodeDiff] = []
    for i, node in enumerate(g.node):
        shown: tuple[str, Comparison] | None = None
        for o in node.output:
            if not o or o not in ref:
                continue
            c = compare(ref[o], got[o], crit)
            if shown is None or (c.failing, c.max_ulp or 0) > (shown[1].failing, shown[1].max_ulp or 0):
                shown = (o, c)
        if shown is None:
            continue
        ins = []
        implicit = outer_reads(node) if node.op_type in CONTROL_FLOW else []
        for v in list(node.input) + implicit:
            if not v:
                continue
            a, b = value(v, ref), value(v, got)
            entry: dict[str, Any] = {"name": v}
            if a is not None:
                entry.update(tensor_stats(a))
                entry["identical"] = b is not None and bit_identical(a, b)
            ins.append(entry)
        nodes.append(
            NodeDiff(
                index=i,
                name=node.name or f"{node.op_type}_{i}",
                op=node.op_type,
                output=shown[0],
                comparison=shown[1],
                inputs=ins,
                retargeted=i in moved_set,
            )
        )

    failing = [n for n in nodes if not n.comparison.passed]
    first = next((n for n in failing if all(x.get("identical") for x in n.inputs)), None)
    first = first or (failing[0] if failing else None)
    if first is not None:
        node = g.node[first.index]
        first.reason = _Runs(g, per_node_opts).why(node)
        if node.op_type in CONTROL_FLOW and all(x.get("identical") for x in first.inputs):
            first = _inside(model, node, first, lambda v: value(v, ref), types, crit, top, progress,
                            ep_session, rewrite_body, depth)
        elif first.reason is None and all(x.get("identical") for x in first.inputs):
            first.reason = (
                "OneModel EP's kernel and stock ORT's give different results on the same inputs"
                if first.retargeted
                else "stock ORT ran the same node on the same inputs in both runs, with different results"
            )
    elif outputs_fail:  # no exposed value differs: the plain runs part where ORT optimised them differently
        runs = _Runs(g, plain)
        chosen: tuple[NodeDiff, str] | None = None
        for n in nodes:
            why = runs.why(g.node[n.index])
            if why is None:
                continue
            chosen = chosen or (n, why)
            # a node fused into a neighbour is told of by that neighbour ("fused with ..."): prefer the latter
            if "did not run it as a node of its own" not in why:
                chosen = (n, why)
                break
        if chosen is not None:
            n, why = chosen
            note = f"with every value exposed (per node) its inputs and output agree; in the plain runs {why}"
            first = NodeDiff(**{**n.__dict__, "reason": note})
    info = {"retargeted": len(moved), "exposed": len(wanted), "untyped": untyped, "top_k": top}
    return info, nodes, first


_MAX_DEPTH = 4  # bodies inside bodies looked into


def _inside(
    model: onnx.ModelProto,
    node: onnx.NodeProto,
    first: NodeDiff,
    value: Callable[[str], np.ndarray | None],
    types: Mapping[str, int],
    crit: Criteria,
    top: int,
    progress: Progress,
    ep_session: Any,
    rewrite_body: Callable[[onnx.ModelProto], onnx.ModelProto] | None,
    depth: int,
) -> NodeDiff:
    """The first divergence inside the body of control-flow node `node` (`first`), whose inputs and outer
    values agree in both runs: the node in its body where the runs part, or `first` with the reason."""
    where = "its inputs and the outer values its body reads agree in both runs: the runs part in its body"
    if rewrite_body is None or depth >= _MAX_DEPTH:
        first.reason = where
        return first
    cut = body_model(model, node, value, constant_tensors(model.graph), types)
    if isinstance(cut, str):
        first.reason = f"{where}, which cannot be run on its own: {cut}"
        return first
    sub, feeds, which = cut
    progress(f"per node: inside {first.name!r} ({node.op_type}), its {which}")
    try:
        _, _, inner = compare_nodes(sub, rewrite_body(sub), feeds, crit, top, progress, ep_session,
                                    outputs_fail=False, rewrite_body=rewrite_body, depth=depth + 1)
    except Exception as e:  # noqa: BLE001 - the outer divergence stands; say why we could not look inside
        first.reason = f"{where}; run on its own, its {which} fails: {str(e).splitlines()[0][:300]}"
        return first
    iteration = "" if node.op_type == "If" else " at its first iteration"
    if inner is None:
        first.reason = (f"{where}; run on its own{iteration}, its {which} gives the same results in both "
                        "runs (they part at a later iteration, or where ORT optimised the whole model "
                        "differently)")
        return first
    inner.inside = [f"{first.name} ({node.op_type}) {which}{iteration}", *inner.inside]
    return inner
