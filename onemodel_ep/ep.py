"""OneModel as an ONNX Runtime plugin execution provider: the unmodified model, our kernels.

The library (the same shared object as the custom ops) exports CreateEpFactories; registered with
`onnxruntime.register_execution_provider_library`, it offers the execution provider
`OneModelExecutionProvider` on the CPU device. Its GetCapability claims exactly the nodes that
`om_node_create` accepts (the function the rewriter asks), one node at a time, so ORT keeps its shape
inference and memory planning; every other node stays with the CPU execution provider.

ORT runs its level-1 graph optimisations before it partitions the graph, with stock CPU kernels: constant
folding would compute a node we would claim (an Exp of an initializer) with stock ORT's kernel, and a few
fusions rewrite element-wise arithmetic (1/x*y into y/x, x+0 into x). `ep_session_options` disables those
transformers (`optimization.disable_specified_optimizers`, NUMERIC_OPTIMIZERS), so the EP path gives the
rewrite path's bits. onemodel_ep.InferenceSession folds constant nodes itself, with OneModel's kernels
(fold.py), before ORT sees the model; a plain ORT session over ep_session_options runs them every call.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass

import onnx
import onnxruntime as ort

from onemodel_ep import external_data
from onemodel_ep._lib import DOMAIN, EP_NAME, MODES, check_kernel_path, library_path, served_domains
from onemodel_ep.custom_ops import config_entry, disable_optimizers, session_options
from onemodel_ep.fused import fused_into
from onemodel_ep.inference import domain_opset, infer, value_ranks, value_types, walk
from onemodel_ep.ort_transformers import disabled_names
from onemodel_ep.report import EpReport, NodeReport
from onemodel_ep.serving import input_types, learn_output_types, verdict

__all__ = [
    "DISPATCHES",
    "EP_NAME",
    "MIN_ORT",
    "NUMERIC_OPTIMIZERS",
    "STRICT_KEY",
    "Assignment",
    "EpReport",
    "assignments",
    "claimed_names",
    "config_entry",
    "ep_devices",
    "ep_report",
    "ep_session_options",
    "ep_supported",
    "ep_unsupported_reason",
    "register_library",
    "unregister_library",
    "uses_custom_ops",
]
REGISTRATION_NAME = "onemodel_ep"
# The oldest ONNX Runtime whose plugin EPs can register per-operator kernels (OrtEpApi::CreateKernelRegistry).
MIN_ORT = (1, 24)
# Level-1 transformers that compute a value with stock kernels or replace served ops by others of other
# arithmetic before partitioning (ort_transformers.py says why for each of ORT's level-1 transformers).
NUMERIC_OPTIMIZERS = disabled_names()
_ASSIGNMENT_KEY = "session.record_ep_graph_assignment_info"
# Our own session config entry (ORT keeps entries it does not know): "1" asks for strict mode (strict.py).
STRICT_KEY = "onemodel.strict"

_lock = threading.Lock()
_registered = False


def _ort_version() -> tuple[int, int]:
    parts = ort.__version__.split(".")
    try:
        return int(parts[0]), int(parts[1])
    except (IndexError, ValueError):
        return (0, 0)


def ep_supported() -> bool:
    """Whether the installed ONNX Runtime can run OneModel as a plugin execution provider."""
    return _ort_version() >= MIN_ORT and hasattr(ort, "register_execution_provider_library")


def ep_unsupported_reason() -> str | None:
    """None where the EP path works, else why not (the rewrite path works on ONNX Runtime 1.21+)."""
    if ep_supported():
        return None
    return (
        f"onnxruntime {ort.__version__} cannot load plugin execution providers with kernel registries "
        f"(needs {MIN_ORT[0]}.{MIN_ORT[1]} or newer)"
    )


def register_library() -> None:
    """Register the library with ONNX Runtime as a plugin EP library, once per process (thread-safe)."""
    global _registered
    reason = ep_unsupported_reason()
    if reason is not None:
        raise RuntimeError(f"OneModel EP: {reason}; use via='rewrite'")
    with _lock:
        if not _registered:
            ort.register_execution_provider_library(REGISTRATION_NAME, library_path())
            _registered = True


def unregister_library() -> None:
    """Unregister the library (after the sessions that use it are gone); register_library may follow again."""
    global _registered
    with _lock:
        if _registered:
            ort.unregister_execution_provider_library(REGISTRATION_NAME)
            _registered = False


def ep_devices() -> list[ort.OrtEpDevice]:
    """The OrtEpDevice of OneModel's EP (registering the library first)."""
    register_library()
    devices = [d for d in ort.get_ep_devices() if d.ep_name == EP_NAME]
    if not devices:
        raise RuntimeError(f"OneModel EP: ONNX Runtime lists no device for {EP_NAME}")
    return devices[:1]


DISPATCHES = ("registry", "compile")


def uses_custom_ops(model: onnx.ModelProto) -> bool:
    """Whether `model` (its subgraphs included) has a node of the custom-op domain, ai.onemodel."""
    return any(node.domain == DOMAIN for _, node in walk(model.graph))


def ep_session_options(
    base: ort.SessionOptions | None = None,
    mode: str = "exact",
    kernel_path: str | None = None,
    dispatch: str = "registry",
    strict: bool = False,
    custom_ops: bool | Sequence[str] = True,
    fuse: bool = True,
    qdq_groups: bool = True,
    fold: bool = True,
) -> ort.SessionOptions:
    """SessionOptions that run every node OneModel serves on OneModel's EP, the rest on ORT's CPU EP.

    Registers the library (once per process), adds the EP for the CPU device with the options `mode`,
    `kernel_path` and `dispatch` ("registry": ORT runs the EP's registered kernels, the default; "compile":
    each claimed node becomes a compiled node of its own, the measured alternative, docs/architecture.md),
    registers the library's custom ops as well (so that a model already rewritten to ai.onemodel, e.g. by
    `onemodel rewrite`, runs too), disables NUMERIC_OPTIMIZERS (adding to any list
    already in `base`) and asks ORT to record which EP each node runs on.
    `onnxruntime.InferenceSession(path, so)` then runs the unmodified
    model (pass `enable_fallback=0` too: on an EP error, such as a bad attribute on a node OneModel claims,
    ORT's Python session otherwise retries on the CPU EP alone). With `base`, that object is changed and
    returned (ORT's SessionOptions cannot be copied); one that already has an EP added is refused.
    strict=True: the EP option `strict` ("1"): session creation fails, in the EP's GetCapability, with one
    error naming each computing node (onemodel_ep.computing) it leaves to another provider, as
    `node 'NAME' (op DOMAIN:OP): why`, subgraphs included; a plain onnxruntime.InferenceSession enforces it.
    onemodel_ep.strict.check_session after it also catches the nodes ORT's optimiser makes after placement.
    custom_ops=False leaves the custom ops out: ORT builds their schemas and kernels anew for every session
    that has them (most of a small session's creation: docs/architecture.md), and a model without ai.onemodel
    nodes (`uses_custom_ops`) does not need them; onemodel_ep.InferenceSession passes that. A list of op types
    registers those only (`custom_op_types(model)`: a small session over a rewritten model then creates
    9x to 84x faster); an empty list is custom_ops=False.
    fuse=False (EP option `fuse` "0") claims every node alone; by default a chain of element-wise nodes whose
    intermediate values nothing else reads runs as one fused node, tile by tile, with the same bits
    (docs/architecture.md, "Fused element-wise chains").
    qdq_groups=False (EP option `qdq_groups` "0") leaves each DequantizeLinear -> op -> QuantizeLinear group's
    nodes apart instead of running it as one QLinear node (docs/quantized.md, "QDQ groups"): other bits, the
    float ops' own; `onemodel diff --per-node` uses it only for the session whose graph ORT saves.
    fold=False (EP option `fold` "0") computes every node at each run; by default each group of nodes OneModel
    serves whose inputs are all constant is computed once, at session creation, by OneModel's kernels, and its
    outputs kept (docs/constant-folding.md, "In the EP").
    """
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
    if dispatch not in DISPATCHES:
        raise ValueError(f"dispatch must be one of {DISPATCHES}, got {dispatch!r}")
    check_kernel_path(kernel_path)
    so = base if base is not None else ort.SessionOptions()
    if so.has_providers():
        raise ValueError("these SessionOptions already have an execution provider added; pass fresh ones")
    options = {"mode": mode}
    if dispatch != "registry":
        options["dispatch"] = dispatch
    if kernel_path is not None:
        options["kernel_path"] = kernel_path
    if not fuse:
        options["fuse"] = "0"
    if not qdq_groups:
        options["qdq_groups"] = "0"
    if not fold:
        options["fold"] = "0"
    if strict:
        options["strict"] = "1"  # the EP refuses the session itself (ep/ep_capability.c)
    so.add_provider_for_devices(ep_devices(), options)
    disable_optimizers(so, NUMERIC_OPTIMIZERS)
    if custom_ops is True:
        session_options(so)  # the custom ops too: a model already rewritten to ai.onemodel runs as well
    elif custom_ops:
        session_options(so, ops=custom_ops)
    so.add_session_config_entry(_ASSIGNMENT_KEY, "1")
    if strict:
        so.add_session_config_entry(STRICT_KEY, "1")
    return so


@dataclass(frozen=True)
class Assignment:
    """One node of the optimised graph and the execution provider ORT assigned it to."""

    name: str
    op: str
    domain: str
    ep: str


def assignments(sess: ort.InferenceSession) -> list[Assignment]:
    """The nodes ORT placed on each execution provider (needs session.record_ep_graph_assignment_info=1)."""
    out: list[Assignment] = []
    for sub in sess.get_provider_graph_assignment_info():
        for n in sub.get_nodes():
            out.append(Assignment(n.name, n.op_type, n.domain, sub.ep_name))
    return out


def claimed_names(nodes: Sequence[Assignment]) -> set[str]:
    return {a.name for a in nodes if a.ep == EP_NAME}


def ep_report(
    model: onnx.ModelProto, sess: ort.InferenceSession, mode: str, kernel_path: str | None
) -> EpReport:
    """The EpReport of a session made with ep_session_options over `model`.

    A node counts as on OneModel's EP where ORT placed it there, or placed there the node its optimiser fused
    it into (fused.py: MatMul + Add as one Gemm); `report.fused` names, for each node ORT made, the model's
    nodes it took over.
    """
    report = EpReport(mode, kernel_path)
    placed = assignments(sess)
    left: dict[tuple[str, str], list[Assignment]] = {}
    for a in placed:
        left.setdefault((a.name, a.op), []).append(a)
    opsets = {d: domain_opset(model, d) for d in served_domains()}
    inferred = infer(external_data.skeleton(model, external_data.SHAPE_BYTES))
    types = value_types(model, inferred)
    ranks = value_ranks(inferred)
    found: list[tuple[str, onnx.NodeProto, Assignment | None]] = []
    for where, node in walk(model.graph):
        same = left.get((node.name, node.op_type))
        found.append((where, node, same.pop(0) if same else None))
    made = [a for rest in left.values() for a in rest]  # placed, but not a node of the model: ORT's own
    gone = [node for _, node, a in found if a is None and node.domain != DOMAIN]
    into = iter(fused_into(gone, made))
    for where, node, a in found:
        fused = next(into) if a is None and node.domain != DOMAIN else None
        if fused is not None:
            report.fused.setdefault(fused.name, []).append(node.name)
        on = a or fused
        in_types, shown = input_types(node, types)
        common = (where, node.name, node.op_type, shown)
        domain = "" if node.domain == "ai.onnx" else node.domain
        how = f"ORT fused it into {fused.op} {fused.name!r}, " if fused is not None else ""
        if (on is not None and on.ep == EP_NAME) or node.domain == DOMAIN:  # on the EP, or our custom op
            if node.domain != DOMAIN and domain in opsets:
                learn_output_types(node, in_types, opsets[domain], types)
            category = "fused" if fused is not None else "moved"
            why = f"{how}on {EP_NAME}" if fused is not None else ""
            report.nodes.append(NodeReport(*common, True, category, why, node.domain))
            continue
        if domain not in opsets:
            verdict_: tuple[str, str] | None = ("op", f"domain {node.domain!r} is not served by OneModel EP")
        else:
            verdict_ = verdict(node, in_types, opsets[domain], mode, kernel_path, ranks)
        if fused is not None:
            also = f" ({verdict_[1]})" if verdict_ else ""
            verdict_ = ("fused", f"{how}which runs on {fused.ep}{also}")
        elif verdict_ is None and a is not None:
            verdict_ = ("placed", f"served, but ORT placed it on {a.ep}")
        elif verdict_ is None:
            verdict_ = ("optimised", "served, but ORT's graph optimiser removed or merged the node first")
        report.nodes.append(NodeReport(*common, False, *verdict_, node.domain))
    return report
