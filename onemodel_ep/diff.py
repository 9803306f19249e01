"""`onemodel diff`: a model in stock ORT side by side with the same model on OneModel EP kernels.

    import onemodel_ep
    report = onemodel_ep.diff("model.onnx", seed=0, per_node=True)
    print(report.format())          # or report.to_dict() / report.to_json()
    report.passed                   # every output within the criteria (atol, rtol, max_ulp)

The CLI (`onemodel diff MODEL [options]`) is a thin layer over `diff()`; docs/diff.md documents both and the
JSON schema (`DiffReport.to_dict`).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Callable, Union

import numpy as np
import onnx
from onnx import helper, numpy_helper

from onemodel_ep import cli_args
from onemodel_ep._diff_compare import (
    Comparison,
    Criteria,
    bit_identical,
    compare,
    first_bit_difference,
    json_value,
    show_value,
    tensor_stats,
)
from onemodel_ep._diff_inputs import (
    DiffError,
    InputSpec,
    check_inputs,
    default_range,
    generate,
    load_npz,
    model_inputs,
    parse_shape_option,
    resolve_shape,
)
from onemodel_ep._lib import DOMAIN, MODES, PATH_NAMES, kernel_paths, op_table
from onemodel_ep.errors import UsageError
from onemodel_ep.rewriter import RewriteReport, rewrite

SCHEMA_VERSION = 1
ModelArg = Union[str, "os.PathLike[str]", bytes, onnx.ModelProto, None]
InputsArg = Union[Mapping[str, Any], str, "os.PathLike[str]", None]
Progress = Callable[[str], None]

# ONNX operators that compute each output element from the same-index (broadcast) element of each input.
_ELEMENTWISE_EXTRA = frozenset(
    "Identity Relu Elu Selu Celu PRelu ThresholdedRelu Softplus Softsign Shrink Mish IsNaN IsInf BitShift "
    "BitwiseAnd BitwiseOr BitwiseXor BitwiseNot Sin Cos Tan Asin Acos Atan Sinh Cosh Asinh Acosh Atanh "
    "Dropout".split()
)

__all__ = ["DiffError", "DiffReport", "NodeDiff", "OutputDiff", "PathsCheck", "diff", "example_model_path"]


def example_model_path() -> Path:
    """The bundled example for `onemodel diff` with no MODEL (tools/make_diff_example.py writes it)."""
    return Path(str(resources.files("onemodel_ep") / "examples" / "diff_demo.onnx"))


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
        return json.dumps(_jsonable(self.to_dict()), indent=indent, allow_nan=False)

    def format(self) -> str:
        return _format(self)

    def __str__(self) -> str:
        return self.format()


def _jsonable(x: Any) -> Any:
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, (float, np.floating, np.integer, np.bool_)):
        return json_value(x)
    return x


# ----------------------------------------------------------------------------------------------- running


def _one_line(e: BaseException) -> str:
    text = " ".join(str(e).split())
    return (text[:400] + "...") if len(text) > 400 else text or type(e).__name__


def _load_model(model: ModelArg) -> tuple[onnx.ModelProto, str]:
    if model is None:
        m, _ = _load_model(example_model_path())
        return m, "diff_demo.onnx (the bundled example)"
    if isinstance(model, onnx.ModelProto):
        return model, model.graph.name or "<model>"
    if isinstance(model, (bytes, bytearray)):
        try:
            return onnx.load_model_from_string(bytes(model)), "<bytes>"
        except Exception as e:
            raise DiffError(f"cannot read the model bytes as ONNX: {_one_line(e)}") from None
    if isinstance(model, (str, os.PathLike)):
        p = os.fspath(model)
        if not os.path.isfile(p):
            raise DiffError(f"no such model file: {p}")
        try:
            m = onnx.load(p)
        except Exception as e:
            raise DiffError(f"cannot read {p} as an ONNX model: {_one_line(e)}") from None
        if not m.HasField("graph") or not m.graph.output:
            raise DiffError(f"{p} is not an ONNX model with a graph and outputs")
        return m, p
    raise TypeError(f"model: expected a path, bytes or onnx.ModelProto, got {type(model).__name__}")


def _save_optimized(so: Any, path: str | None) -> None:
    """Have ORT save the graph it runs to `path` (its initializers beside it: a model of any size)."""
    if path:
        so.optimized_model_filepath = path
        so.add_session_config_entry(
            "session.optimized_model_external_initializers_file_name", os.path.basename(path) + ".data"
        )
        so.add_session_config_entry("session.optimized_model_external_initializers_min_size_in_bytes", "1024")


def _session(model: onnx.ModelProto, onemodel: bool, what: str, optimized: str | None = None) -> Any:
    """A session of `model` (with the library registered if `onemodel`); `optimized`: where ORT saves the
    graph it runs, after its optimisations."""
    import onnxruntime as ort

    from onemodel_ep.session import session_options

    so = ort.SessionOptions()
    so.log_severity_level = 3
    _save_optimized(so, optimized)
    if onemodel:
        so = session_options(so)
    try:
        return ort.InferenceSession(
            model.SerializeToString(), sess_options=so, providers=["CPUExecutionProvider"]
        )
    except Exception as e:
        raise DiffError(f"{what} cannot load the model: {_one_line(e)}") from None


def _ep_session(
    model: onnx.ModelProto, mode: str, kernel_path: str | None, what: str, optimized: str | None = None
) -> Any:
    """The unmodified `model` on OneModel's execution provider (and ORT's CPU EP for the rest)."""
    import onnxruntime as ort

    from onemodel_ep.ep import ep_session_options

    so = ort.SessionOptions()
    so.log_severity_level = 3
    _save_optimized(so, optimized)
    try:
        so = ep_session_options(so, mode=mode, kernel_path=kernel_path)
        return ort.InferenceSession(model.SerializeToString(), sess_options=so, enable_fallback=0)
    except Exception as e:
        raise DiffError(f"{what} cannot load the model: {_one_line(e)}") from None


def _ours(model: onnx.ModelProto, mode: str, kernel_path: str | None, via: str, what: str) -> Any:
    """OneModel's session of the original `model`: through the EP, or rewritten."""
    if via == "ep":
        return _ep_session(model, mode, kernel_path, what)
    return _session(rewrite(model, mode=mode, kernel_path=kernel_path), True, what)


def _run(sess: Any, feeds: Mapping[str, np.ndarray], names: list[str], what: str) -> dict[str, Any]:
    try:
        outs = sess.run(names, dict(feeds))
    except Exception as e:
        raise DiffError(f"{what} cannot run the model: {_one_line(e)}") from None
    return dict(zip(names, outs))


def _value_types(model: onnx.ModelProto) -> dict[str, int]:
    """Element type of each value of the main graph that ONNX shape inference can tell."""
    try:
        inferred = onnx.shape_inference.infer_shapes(model, check_type=False, strict_mode=False)
    except Exception:
        inferred = model
    g = inferred.graph
    types: dict[str, int] = {}
    for vi in list(g.input) + list(g.output) + list(g.value_info):
        if vi.type.HasField("tensor_type") and vi.type.tensor_type.elem_type:
            types[vi.name] = vi.type.tensor_type.elem_type
    for init in g.initializer:
        types[init.name] = init.data_type
    for node in g.node:
        if node.op_type == "Constant" and node.output:
            for a in node.attribute:
                if a.name == "value" and a.type == onnx.AttributeProto.TENSOR:
                    types[node.output[0]] = a.t.data_type
    return types


def _with_outputs(model: onnx.ModelProto, names: list[str], types: Mapping[str, int]) -> onnx.ModelProto:
    out = onnx.ModelProto()
    out.CopyFrom(model)
    have = {o.name for o in out.graph.output}
    for n in names:
        if n not in have:
            out.graph.output.append(helper.make_tensor_value_info(n, types[n], None))
            have.add(n)
    return out


def _elementwise_sources(model: onnx.ModelProto, output: str) -> list[str] | None:
    """Graph inputs an output is computed from element by element (with broadcasting); None when some node on
    the way is not element-wise."""
    g = model.graph
    producers = {o: n for n in g.node for o in n.output if o}
    inits = {i.name for i in g.initializer}
    inputs = {i.name for i in g.input} - inits
    elementwise = set(op_table()) | _ELEMENTWISE_EXTRA
    sources: list[str] = []
    seen: set[str] = set()
    stack = [output]
    while stack:
        v = stack.pop()
        if v in seen or not v:
            continue
        seen.add(v)
        if v in inputs:
            sources.append(v)
            continue
        if v in inits:
            continue
        node = producers.get(v)
        if node is None:
            return None
        if node.op_type == "Constant" and node.domain in ("", "ai.onnx"):
            continue
        if node.domain not in ("", "ai.onnx") or node.op_type not in elementwise:
            return None
        if node.op_type == "Dropout" and list(node.output).index(v) != 0:
            return None
        stack.extend(node.input)
    return sorted(sources)


def _source_elements(
    sources: list[str], feeds: Mapping[str, np.ndarray], out_shape: Sequence[int], index: Sequence[int]
) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for s in sources:
        a = feeds[s]
        if a.ndim > len(out_shape):
            continue
        off = len(out_shape) - a.ndim
        idx = []
        for k, d in enumerate(a.shape):
            od = out_shape[off + k]
            if d == 1:
                idx.append(0)
            elif d == od:
                idx.append(int(index[off + k]))
            else:
                break
        else:
            v = a[tuple(idx)]
            found[s] = {"index": idx, "value": json_value(v), "text": show_value(v)}
    return found


def _check_paths(
    model: onnx.ModelProto,
    mode: str,
    feeds: Mapping[str, np.ndarray],
    names: list[str],
    progress: Progress,
    via: str = "rewrite",
) -> PathsCheck:
    paths = kernel_paths()
    results: list[dict[str, Any]] = []
    for i, p in enumerate(paths):
        progress(f"kernel path {p} ({i + 1}/{len(paths)})")
        sess = _ours(model, mode, p, via, f"OneModel EP (kernel path {p})")
        results.append(_run(sess, feeds, names, f"OneModel EP (kernel path {p})"))
    outputs = []
    for n in names:
        entry: dict[str, Any] = {"name": n, "identical": True, "first_difference": None}
        for p, r in zip(paths[1:], results[1:]):
            if not bit_identical(results[0][n], r[n]):
                entry["identical"] = False
                a, b = np.asarray(results[0][n]), np.asarray(r[n])
                idx = first_bit_difference(a, b)
                if idx is None:
                    entry["first_difference"] = {
                        "paths": [paths[0], p],
                        "index": None,
                        "values": {paths[0]: f"{a.dtype} {list(a.shape)}", p: f"{b.dtype} {list(b.shape)}"},
                    }
                else:
                    entry["first_difference"] = {
                        "paths": [paths[0], p],
                        "index": list(idx),
                        "values": {q: json_value(np.asarray(res[n])[idx]) for q, res in zip(paths, results)},
                        "bits": {q: show_value(np.asarray(res[n])[idx]) for q, res in zip(paths, results)},
                    }
                break
        outputs.append(entry)
    return PathsCheck(mode=mode, paths=paths, identical=all(o["identical"] for o in outputs), outputs=outputs)


def _optimized(path: str | None) -> onnx.GraphProto | None:
    """The main graph ORT saved after its optimisations (None when it saved none)."""
    if not path or not os.path.isfile(path):
        return None
    try:
        return onnx.load(path, load_external_data=False).graph
    except Exception:
        return None


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


def _per_node(
    model: onnx.ModelProto,
    rewritten: onnx.ModelProto,
    feeds: Mapping[str, np.ndarray],
    crit: Criteria,
    top: int,
    progress: Progress,
    ep_session: Any = None,
    plain: tuple[onnx.GraphProto | None, onnx.GraphProto | None] = (None, None),
    outputs_fail: bool = False,
) -> tuple[dict[str, Any], list[NodeDiff], NodeDiff | None]:
    """Expose every value of the main graph in both runs, compare every node (ours and stock ORT's) and find
    where the runs part (DiffReport.first_divergence). `plain`: the graphs ORT ran in the plain runs (stock,
    ours), after its optimisations, to tell why a node differs."""
    g, rg = model.graph, rewritten.graph
    # The rewriter may insert helper nodes (e.g. Cast's type witness): match nodes by their first output.
    index_of = {n.output[0]: i for i, n in enumerate(g.node) if n.output and n.output[0]}
    moved = sorted(
        index_of[n.output[0]] for n in rg.node if n.domain == DOMAIN and n.output and n.output[0] in index_of
    )
    moved_set = set(moved)
    types = _value_types(model)
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
        sess = make(m, opt) if make is not None else _session(m, ours, f"{label} (per node)", opt)
        return _run(sess, feeds, wanted, f"{label} (per node)")

    with tmp:
        ref = exposed(model, False, "stock ORT")
        # through the EP: the original model with the same values exposed (exposing them moves no node)
        if ep_session is not None:
            got = exposed(model, True, "OneModel EP", ep_session)
        else:
            got = exposed(rewritten, True, "OneModel EP")
        per_node_opts = (_optimized(opt_paths[0]), _optimized(opt_paths[1]))

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
        for v in node.input:
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
        if first.reason is None and all(x.get("identical") for x in first.inputs):
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


def diff(
    model: ModelArg = None,
    inputs: InputsArg = None,
    *,
    mode: str = "exact",
    kernel_path: str | None = None,
    all_paths: bool = False,
    per_node: bool = False,
    top: int = 5,
    atol: float = 0.0,
    rtol: float = 0.0,
    max_ulp: int = 0,
    seed: int = 0,
    shapes: Mapping[str, Sequence[int]] | None = None,
    value_range: tuple[float, float] | None = None,
    special: float = 0.0,
    progress: Progress | None = None,
    via: str | None = None,
) -> DiffReport:
    """Run `model` in stock ORT and on OneModel EP kernels, on the same inputs, and compare.

    model: a path, serialized bytes or an onnx.ModelProto; None: the bundled example (diff_demo.onnx).
    inputs: {name: array} or the path of an .npz (names as keys); None: generated from the model's input types
      with `seed`, `shapes` ({input name: full shape} or {symbolic dim: [size]}), `value_range` (lo, hi) and
      `special` (fraction of NaN, +-inf, +-0, subnormals and extremes mixed in).
    mode, kernel_path: as for rewrite(). all_paths: also run the rewritten model on every kernel path of this
      machine and check the outputs are bit-identical. per_node: expose every value a retargeted node produces
      and find the first node whose output fails the criteria; `top` nodes with the largest errors.
    atol, rtol, max_ulp: pass criteria (see Criteria). via: "ep" (OneModel's execution provider, the default
    where ONNX Runtime supports it) or "rewrite" (the model rewritten to ai.onemodel). Raises DiffError on a
    user error (bad model, inputs, options, or a model that cannot run).
    """
    import onnxruntime as ort

    import onemodel_ep
    from onemodel_ep.ep import ep_report
    from onemodel_ep.session import VIAS, default_via

    t0 = time.monotonic()
    say: Progress = progress or (lambda _msg: None)
    if mode not in MODES:
        raise DiffError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")
    via = default_via() if via is None else via
    if via not in VIAS:
        raise DiffError(f"via must be one of {', '.join(VIAS)}, got {via!r}")
    if kernel_path is not None:
        if kernel_path not in PATH_NAMES:
            raise DiffError(f"unknown kernel path {kernel_path!r}; expected one of {', '.join(PATH_NAMES)}")
        if kernel_path not in kernel_paths():
            raise DiffError(
                f"kernel path {kernel_path} is not available on this machine "
                f"(available: {', '.join(kernel_paths())})"
            )
    if not (0 <= atol < math.inf and 0 <= rtol < math.inf and max_ulp >= 0):
        raise DiffError("atol and rtol must be finite and >= 0, max_ulp >= 0")
    if seed < 0:
        raise DiffError(f"seed must be >= 0, got {seed}")
    if not 0 <= special <= 1:
        raise DiffError(f"special must be a fraction between 0 and 1, got {special}")
    if value_range is not None and not -math.inf < value_range[0] <= value_range[1] < math.inf:
        raise DiffError(f"range: lo and hi must be finite, lo <= hi, got {value_range[0]},{value_range[1]}")
    crit = Criteria(float(atol), float(rtol), int(max_ulp))

    m, label = _load_model(model)
    specs = model_inputs(m)
    feeds, input_info, generation = _make_inputs(specs, inputs, seed, shapes or {}, value_range, special)
    names = [o.name for o in m.graph.output]

    plain_dir = tempfile.TemporaryDirectory(prefix="onemodel_diff_") if per_node else None
    plain_paths: tuple[str | None, str | None] = (None, None)
    if plain_dir is not None:  # the graphs ORT runs, to tell where it optimised the two runs differently
        plain_paths = (os.path.join(plain_dir.name, "stock.onnx"), os.path.join(plain_dir.name, "ours.onnx"))
    say("stock ORT: running the original model")
    ref = _run(_session(m, False, "stock ORT", plain_paths[0]), feeds, names, "stock ORT")
    rep = RewriteReport(mode, kernel_path)
    try:
        rewritten = rewrite(m, mode=mode, kernel_path=kernel_path, report=rep)
    except Exception as e:
        raise DiffError(f"cannot rewrite the model: {_one_line(e)}") from None
    ep_sess: Any = None
    if via == "ep":
        say("OneModel EP: running through its execution provider")
        ep_sess = _ep_session(m, mode, kernel_path, "OneModel EP", plain_paths[1])
        rep = ep_report(m, ep_sess, mode, kernel_path)
        got = _run(ep_sess, feeds, names, "OneModel EP")
    else:
        say("OneModel EP: rewriting and running")
        got = _run(_session(rewritten, True, "OneModel EP", plain_paths[1]), feeds, names, "OneModel EP")

    say("comparing outputs")
    outputs = []
    for n in names:
        c = compare(ref[n], got[n], crit)
        if c.worst is not None and c.worst_index is not None:
            src = _elementwise_sources(m, n)
            if src:
                c.worst["inputs"] = _source_elements(src, feeds, c.shape, c.worst_index)
        outputs.append(OutputDiff(n, c))

    report = DiffReport(
        model=label,
        mode=mode,
        kernel_path=kernel_path,
        criteria=crit,
        inputs=input_info,
        generation=generation,
        rewrite=rep,
        outputs=outputs,
        versions={
            "onemodel_ep": onemodel_ep.__version__,
            "onnxruntime": ort.__version__,
            "onnx": onnx.__version__,
            "numpy": np.__version__,
        },
    )
    if all_paths:
        report.all_paths = _check_paths(m, mode, feeds, names, say, via)
    if plain_dir is not None:
        with plain_dir:
            plain = (_optimized(plain_paths[0]), _optimized(plain_paths[1]))
        make = None
        if via == "ep":
            make = lambda mm, opt: _ep_session(mm, mode, kernel_path, "OneModel EP (per node)", opt)  # noqa: E731
        fails = not all(o.comparison.passed for o in outputs)
        report.per_node, report.nodes, report.divergence = _per_node(
            m, rewritten, feeds, crit, top, say, make, plain, fails
        )
    report.via = via
    report.seconds = time.monotonic() - t0
    return report


def _make_inputs(
    specs: list[InputSpec],
    inputs: InputsArg,
    seed: int,
    shapes: Mapping[str, Sequence[int]],
    value_range: tuple[float, float] | None,
    special: float,
) -> tuple[dict[str, np.ndarray], list[dict[str, Any]], dict[str, Any] | None]:
    if inputs is not None:
        if isinstance(inputs, (str, os.PathLike)):
            given, source = load_npz(inputs), os.fspath(inputs)
        elif isinstance(inputs, Mapping):
            given, source = dict(inputs), "given"
        else:
            raise TypeError(f"inputs: expected a mapping or an .npz path, got {type(inputs).__name__}")
        feeds = check_inputs(specs, given)
        info = [{"name": k, "source": source, **tensor_stats(v)} for k, v in feeds.items()]
        return feeds, info, None
    by_shape = {k: list(v) for k, v in shapes.items()}
    known = {s.name for s in specs} | {d for s in specs for d in (s.dims or ()) if isinstance(d, str)}
    unknown = sorted(set(by_shape) - known)
    if unknown:
        raise DiffError(
            f"--shape {unknown[0]}: neither an input of the model nor one of its symbolic dimensions"
        )
    rng = np.random.default_rng(seed)
    feeds = {}
    info = []
    for s in specs:
        feeds[s.name] = generate(s, resolve_shape(s, by_shape), rng, value_range, special)
        info.append({"name": s.name, "source": "generated", **tensor_stats(feeds[s.name])})
    generation = {
        "seed": seed,
        "special": special,
        "range": list(value_range) if value_range is not None else None,
        "ranges": {s.name: list(value_range or default_range(s.dtype)) for s in specs if s.dtype.kind != "b"},
        "shapes": {s.name: list(feeds[s.name].shape) for s in specs},
    }
    return feeds, info, generation


# ---------------------------------------------------------------------------------------------- formatting


def _g(x: Any) -> str:
    if x is None:
        return "-"
    if isinstance(x, str):
        return x
    if isinstance(x, float):
        if not np.isfinite(x):
            return str(x)
        if x == int(x) and abs(x) < 1e15:
            return str(int(x))
        return f"{x:.3g}"
    return str(x)


def _pct(k: int, n: int) -> str:
    return f"{100.0 * k / n:.1f}%" if n else "-"


def _show(value: Any, bits: str | None, dtype: str) -> str:
    """A worst-element value as text: floats rebuilt from their bits, in their own precision."""
    if bits is None:
        return str(value)
    dt = np.dtype(dtype)
    raw = np.array([int(bits, 16)], dtype=f"u{dt.itemsize}").view(dt)[0]
    return show_value(raw)


def _format_comparison(c: Comparison, indent: str) -> list[str]:
    if c.error:
        return [f"{indent}{c.error}"]
    lines = [
        f"{indent}bit-identical {c.identical}/{c.elements} ({_pct(c.identical, c.elements)}), "
        f"failing {c.failing}"
    ]
    if c.kind == "float":
        lines.append(
            f"{indent}max abs {_g(c.max_abs)}  max rel {_g(c.max_rel)}  ulp max {_g(c.max_ulp)} "
            f"median {_g(c.median_ulp)} (median over differing {_g(c.median_ulp_differing)})"
        )
        lines.append(
            f"{indent}NaN mismatches {c.nan_mismatches}  inf mismatches {c.inf_mismatches}  "
            f"signed-zero mismatches {c.signed_zero_mismatches}"
            + (f"  NaN payloads differ {c.nan_payload_differs}" if c.nan_payload_differs else "")
        )
    elif c.kind == "int":
        lines.append(
            f"{indent}exact difference max {_g(c.max_ulp)} median {_g(c.median_ulp)} "
            f"(median over differing {_g(c.median_ulp_differing)})  max rel {_g(c.max_rel)}"
        )
    elif c.kind == "bool":
        lines.append(f"{indent}mismatches {c.elements - c.identical}")
    w = c.worst
    if w is not None:
        extra = ""
        if c.kind in ("float", "int"):
            extra = f"  abs {_g(w.get('abs'))}" + (
                f"  ulp {w['ulp']}" if c.kind == "float" and w.get("ulp") is not None else ""
            )
        ort_v = _show(w["ort"], w.get("ort_bits"), c.dtype)
        om_v = _show(w["onemodel"], w.get("onemodel_bits"), c.dtype)
        lines.append(f"{indent}worst {w['index']}: ort {ort_v}  onemodel {om_v}{extra}")
        src = w.get("inputs")
        if src:
            lines.append(
                f"{indent}  from " + ", ".join(f"{k}{v['index']} = {v['text']}" for k, v in src.items())
            )
    return lines


def _format(r: DiffReport) -> str:
    L: list[str] = []
    L.append(f"onemodel diff: {r.model}")
    L.append(
        f"  mode {r.mode}, kernel path {r.kernel_path or 'auto'} (this machine: {', '.join(kernel_paths())});"
        f" onnxruntime {r.versions.get('onnxruntime', '?')}"
    )
    where = (
        f"execution provider: {len(r.rewrite.moved)} node(s) on OneModelExecutionProvider"
        if r.via == "ep"
        else f"rewrite: {len(r.rewrite.moved)} node(s) moved to {DOMAIN}"
    )
    L.append(
        f"  {where}, {len(r.rewrite.stayed)} left to stock ORT"
        + (
            ": " + ", ".join(sorted({f"{n.op} ({n.category})" for n in r.rewrite.stayed}))
            if r.rewrite.stayed
            else ""
        )
    )
    c = r.criteria
    L.append(f"  criteria: atol {_g(c.atol)}, rtol {_g(c.rtol)}, max ulp {c.max_ulp}")
    for i in r.inputs:
        rng = f" in [{_g(i.get('min'))}, {_g(i.get('max'))}]" if "min" in i else ""
        spec = f", {i['nan']} NaN, {i['inf']} inf" if i.get("nan") or i.get("inf") else ""
        L.append(f"  input {i['name']}: {i['dtype']} {i['shape']} {i['source']}{rng}{spec}")
    if r.generation:
        L.append(
            f"  generated with seed {r.generation['seed']}"
            + (f", special {r.generation['special']}" if r.generation["special"] else "")
        )
    for o in r.outputs:
        oc = o.comparison
        L.append("")
        L.append(f"output {o.name}: {oc.dtype} {oc.shape}  {'PASS' if oc.passed else 'FAIL'}")
        L += _format_comparison(oc, "  ")
    if r.all_paths is not None:
        ap = r.all_paths
        L.append("")
        verdict = "bit-identical on every output" if ap.identical else "NOT bit-identical"
        L.append(f"kernel paths ({ap.mode} mode): {', '.join(ap.paths)}: {verdict}")
        for e in ap.outputs:
            fd = e["first_difference"]
            if fd is not None:
                vals = ", ".join(f"{p} {v}" for p, v in fd.get("bits", fd["values"]).items())
                L.append(f"  {e['name']}: first difference at {fd['index']}: {vals}")
    if r.per_node is not None:
        L.append("")
        pn = r.per_node
        L.append(
            f"per node: {pn['retargeted']} retargeted node(s), {pn['exposed']} intermediate value(s) exposed"
            + (f", {len(pn['untyped'])} of unknown type skipped" if pn["untyped"] else "")
        )
        first = r.first_divergence
        if first is None:
            L.append("  no node's output fails the criteria")
        else:
            L.append(
                f"  first divergence: node {first.name!r} ({first.op}, #{first.index}, "
                f"{'OneModel EP' if first.retargeted else 'stock ORT'}), output {first.output!r}"
            )
            if first.reason:
                L.append(f"    why: {first.reason}")
            for inp in first.inputs:
                s = f"{inp.get('dtype', '?')} {inp.get('shape', '?')}"
                if "min" in inp:
                    s += f" in [{_g(inp['min'])}, {_g(inp['max'])}]"
                if inp.get("nan") or inp.get("inf"):
                    s += f", {inp.get('nan', 0)} NaN, {inp.get('inf', 0)} inf"
                same = "identical in both runs" if inp.get("identical") else "DIFFERS between runs"
                L.append(f"    input {inp['name']}: {s}, {same}")
            L += _format_comparison(first.comparison, "    ")
        top = r.top(int(pn.get("top_k", 5)))
        if top:
            L.append(f"  top {len(top)} node(s) by error:")
            L.append(
                f"    {'#':>4}  {'node':<20} {'op':<12} {'failing':>9} {'identical':>9} {'max ulp':>10} "
                f"{'max abs':>10}"
            )
            for n in top:
                nc = n.comparison
                L.append(
                    f"    {n.index:>4}  {n.name[:20]:<20} {n.op[:12]:<12} {nc.failing:>9} "
                    f"{_pct(nc.identical, nc.elements):>9} {_g(nc.max_ulp):>10} {_g(nc.max_abs):>10}"
                )
    L.append("")
    failing = [o.name for o in r.outputs if not o.comparison.passed]
    if r.passed:
        L.append(f"PASS: all {len(r.outputs)} output(s) within the criteria")
    else:
        why = []
        if failing:
            why.append(
                f"{len(failing)} of {len(r.outputs)} output(s) outside the criteria ({', '.join(failing)})"
            )
        if r.all_paths is not None and r.all_paths.mode == "exact" and not r.all_paths.identical:
            why.append("exact-mode outputs differ across kernel paths")
        L.append("FAIL: " + "; ".join(why))
    return "\n".join(L)


# ---------------------------------------------------------------------------------------------- plotting


def _short_bucket(label: str) -> str:
    """'1024-2047' -> '2^10' (the bucket [2^10, 2^11)) for the plot's axis."""
    lo, sep, _ = label.partition("-")
    if sep and lo.isdigit() and int(lo) >= 16:
        return f"2^{int(lo).bit_length() - 1}"
    return label


def plot(report: DiffReport, path: str | os.PathLike[str]) -> None:
    """One ulp-error histogram per output, into a PNG (needs matplotlib: pip install 'onemodel-ep[plot]')."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise DiffError("--plot needs matplotlib: pip install 'onemodel-ep[plot]'") from None
    outs = report.outputs
    fig, axes = plt.subplots(len(outs), 1, figsize=(8, 2.6 * max(len(outs), 1)), squeeze=False)
    for ax, o in zip(axes[:, 0], outs):
        c = o.comparison
        labels = [_short_bucket(str(h[0])) for h in c.histogram] or ["-"]
        counts = [int(h[1]) for h in c.histogram] or [0]
        colors = [
            "tab:green" if lab == "0" else "tab:red" if "mismatch" in lab else "tab:orange" for lab in labels
        ]
        ax.bar(range(len(labels)), counts, color=colors)
        ax.set_xticks(range(len(labels)))
        ax.set_xticklabels(labels, rotation=45, ha="right", fontsize=8)
        ax.set_yscale("symlog")
        unit = {"float": "ulp distance", "int": "exact difference", "bool": ""}.get(c.kind, "")
        ax.set_title(f"{o.name}: {c.dtype} {c.shape} - {'PASS' if c.passed else 'FAIL'}", fontsize=10)
        ax.set_xlabel(unit, fontsize=8)
        ax.set_ylabel("elements", fontsize=8)
    fig.suptitle(f"onemodel diff: {Path(report.model).name} (mode {report.mode})", fontsize=11)
    fig.tight_layout()
    try:
        fig.savefig(os.fspath(path), dpi=100)
    except OSError as e:
        raise DiffError(f"cannot write {os.fspath(path)}: {e.strerror or e}") from None
    finally:
        plt.close(fig)


# ---------------------------------------------------------------------------------------------- command line


def _range_arg(text: str) -> tuple[float, float]:
    try:
        lo, hi = (float(v) for v in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected LO,HI (e.g. --range=-20,20), got {text!r}") from None
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise argparse.ArgumentTypeError(f"LO and HI must be finite, got {text!r}")
    if not lo <= hi:
        raise argparse.ArgumentTypeError(f"LO must be <= HI, got {text!r}")
    return lo, hi


def _fraction_arg(text: str) -> float:
    try:
        f = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a fraction between 0 and 1, got {text!r}") from None
    if not 0 <= f <= 1:
        raise argparse.ArgumentTypeError(f"expected a fraction between 0 and 1, got {text!r}")
    return f


def _nonneg(kind: type) -> Callable[[str], Any]:
    def parse(text: str) -> Any:
        try:
            v = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a {kind.__name__}, got {text!r}") from None
        if isinstance(v, float) and not math.isfinite(v):
            raise argparse.ArgumentTypeError(f"must be a finite number, got {text!r}")
        if v < 0:
            raise argparse.ArgumentTypeError(f"must be >= 0, got {text!r}")
        return v

    return parse


def add_subparser(sub: Any) -> argparse.ArgumentParser:
    """Add `diff` to the `onemodel` command line (cli.py calls this)."""
    d = sub.add_parser(
        "diff",
        help="compare a model in stock ORT with the same model on OneModel EP kernels",
        description="Run MODEL (default: the bundled example) in stock ONNX Runtime and, rewritten, on "
        "OneModel EP kernels, on the same inputs; print per output the bit-identical count, abs/rel error, "
        "ulp distances and the worst element. Exit status: 0 every output passes, 1 one fails, 2 bad usage "
        "or a model that cannot run.",
    )
    d.add_argument("model", nargs="?", default=None, help="ONNX model (default: the bundled diff_demo.onnx)")
    g = d.add_argument_group("inputs")
    g.add_argument(
        "--inputs", metavar="FILE.npz", help=".npz file of inputs, names as keys (default: generated)"
    )
    g.add_argument("--seed", type=_nonneg(int), default=0, help="seed of the generated inputs (default 0)")
    g.add_argument(
        "--shape",
        action="append",
        default=[],
        metavar="NAME=d0,d1,...",
        help="shape of an input, or size of a symbolic dimension (NAME=N); repeatable",
    )
    g.add_argument(
        "--range",
        type=_range_arg,
        default=None,
        metavar="LO,HI",
        dest="value_range",
        help="range of generated values (write --range=-20,20 for a negative LO; "
        "default floats -20,20, ints -100,100)",
    )
    g.add_argument(
        "--special",
        type=_fraction_arg,
        nargs="?",
        const=0.1,
        default=0.0,
        metavar="FRACTION",
        help="mix in NaN, +-inf, +-0, subnormals and extremes (fraction of elements, default 0.1)",
    )
    g.add_argument(
        "--save-inputs", metavar="FILE.npz", help="write the inputs used to an .npz (to rerun them)"
    )
    k = d.add_argument_group("kernels")
    k.add_argument("--mode", choices=MODES, default="exact")
    k.add_argument(
        "--via",
        choices=("ep", "rewrite"),
        default=None,
        help="OneModel through its execution provider or the rewrite (default: ep where ORT supports it)",
    )
    k.add_argument(
        "--kernel-path", choices=PATH_NAMES, default=None, help="force a kernel path (default: widest)"
    )
    k.add_argument(
        "--all-paths",
        action="store_true",
        help="also run on every kernel path of this machine and check the outputs are bit-identical",
    )
    n = d.add_argument_group("per node")
    n.add_argument(
        "--per-node",
        action="store_true",
        help="compare every value a retargeted node produces; report the first node that fails",
    )
    n.add_argument(
        "--top", type=_nonneg(int), default=5, metavar="K", help="nodes in the largest-error table (5)"
    )
    c = d.add_argument_group("pass criteria (an element passes if any criterion holds)")
    c.add_argument("--atol", type=_nonneg(float), default=0.0, help="absolute tolerance (default 0)")
    c.add_argument("--rtol", type=_nonneg(float), default=0.0, help="relative tolerance (default 0)")
    c.add_argument(
        "--max-ulp",
        type=_nonneg(int),
        default=0,
        help="largest ulp distance (integers: exact difference) that passes (default 0)",
    )
    o = d.add_argument_group("output")
    o.add_argument("--json", metavar="FILE", help="write the whole report as JSON ('-' for stdout)")
    o.add_argument(
        "--plot", metavar="FILE.png", help="draw an ulp-error histogram per output (needs matplotlib)"
    )
    o.add_argument("-q", "--quiet", action="store_true", help="no progress messages on stderr")
    d.set_defaults(func=cmd_diff)
    return d


def cmd_diff(args: argparse.Namespace) -> int:
    t0 = time.monotonic()
    show = not args.quiet and sys.stderr.isatty()

    def progress(msg: str) -> None:
        if show:
            print(f"[{time.monotonic() - t0:6.1f}s] {msg}", file=sys.stderr, flush=True)

    for path, what in ((args.json, "--json"), (args.plot, "--plot"), (args.save_inputs, "--save-inputs")):
        if path and path != "-":  # checked before the runs, which may take minutes
            cli_args.output_file(path, what)
    try:
        shapes = dict(parse_shape_option(s) for s in args.shape)
        if args.plot:
            try:
                import matplotlib  # noqa: F401
            except ImportError:
                raise DiffError("--plot needs matplotlib: pip install 'onemodel-ep[plot]'") from None
        report = diff(
            args.model,
            args.inputs,
            mode=args.mode,
            kernel_path=args.kernel_path,
            via=args.via,
            all_paths=args.all_paths,
            per_node=args.per_node,
            top=args.top,
            atol=args.atol,
            rtol=args.rtol,
            max_ulp=args.max_ulp,
            seed=args.seed,
            shapes=shapes,
            value_range=args.value_range,
            special=args.special,
            progress=progress,
        )
        if args.save_inputs:
            _save_inputs(report, args, shapes)
        if args.json == "-":
            print(report.to_json())
        else:
            print(report.format())
            if args.json:
                try:
                    Path(args.json).write_text(report.to_json() + "\n")
                except OSError as e:
                    raise DiffError(f"cannot write {args.json}: {e.strerror or e}") from None
                print(f"wrote {args.json}")
        if args.plot:
            plot(report, args.plot)
            print(f"wrote {args.plot}")
    except DiffError as e:
        raise UsageError(str(e)) from None
    return 0 if report.passed else 1


def _save_inputs(report: DiffReport, args: argparse.Namespace, shapes: Mapping[str, Sequence[int]]) -> None:
    # The inputs are regenerated deterministically from the same options (the report keeps only their stats).
    m, _ = _load_model(args.model)
    specs = model_inputs(m)
    inputs: InputsArg = args.inputs
    feeds, _, _ = _make_inputs(specs, inputs, args.seed, shapes, args.value_range, args.special)
    try:
        np.savez(args.save_inputs, **feeds)
    except OSError as e:
        raise DiffError(f"cannot write {args.save_inputs}: {e.strerror or e}") from None
