"""The shapes ONNX Runtime itself infers inside control-flow bodies, for the rewriter.

ORT infers no output shape for a custom op, and it refuses a Scan (or Loop) body whose outputs have no shape
("Subgraph must have the shape set for all outputs"). The rewriter gives a retargeted node's outputs the
shapes ONNX inference finds (rewriter._carry_shapes); where ONNX inference finds none for a body's output
(ONNX's expanded LinearAttention: the state that a Scan carries), ORT's own inference of the unmodified
model, with its stock kernels' inference functions, often still knows the rank. This runs that inference
once: a stock session at ORT_DISABLE_ALL (no optimiser changes the graph) saves the graph it resolved, whose
value_info has ORT's types, and the types of every body's values are read back from it.
"""

from __future__ import annotations

import os
import tempfile

import onnx

from onemodel_ep.inference import subgraphs

BodyTypes = dict[tuple[str, ...], dict[str, onnx.TypeProto]]


def body_key(graph: onnx.GraphProto) -> tuple[str, ...]:
    """A body is known by the names of its outputs (ORT keeps them)."""
    return tuple(o.name for o in graph.output)


def _has_rank(t: onnx.TypeProto) -> bool:
    return t.HasField("tensor_type") and t.tensor_type.HasField("shape")


def _bodies(graph: onnx.GraphProto, found: BodyTypes) -> None:
    for node in graph.node:
        for attr in node.attribute:
            for sub in subgraphs(attr):
                values = list(sub.output) + list(sub.value_info)
                typed = {vi.name: vi.type for vi in values if _has_rank(vi.type)}
                found.setdefault(body_key(sub), {}).update(typed)
                _bodies(sub, found)


def bodies_lack_shapes(inferred: onnx.GraphProto) -> bool:
    """Whether a control-flow body of `inferred` (a graph after ONNX inference) has an output of no rank."""
    for node in inferred.node:
        for attr in node.attribute:
            for sub in subgraphs(attr):
                if any(not _has_rank(o.type) for o in sub.output) or bodies_lack_shapes(sub):
                    return True
    return False


def ort_body_types(model: onnx.ModelProto) -> BodyTypes:
    """The types ORT infers for the values of every control-flow body of `model`, by body; {} when ORT
    cannot load the model (external data, an op it does not know): then nothing is added."""
    import onnxruntime as ort

    found: BodyTypes = {}
    with tempfile.TemporaryDirectory(prefix="onemodel_shapes_") as tmp:
        path = os.path.join(tmp, "resolved.onnx")
        so = ort.SessionOptions()
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
        so.optimized_model_filepath = path
        so.log_severity_level = 4
        try:
            ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
            _bodies(onnx.load(path).graph, found)
        except Exception:  # noqa: BLE001 - a model ORT cannot load keeps the shapes ONNX inference gave
            return {}
    return found


# ORT's type strings ("tensor(uint8)") by their element type's name, lower-cased: TensorProto's names
_ELEM_TYPES = {name.lower(): int(value) for name, value in onnx.TensorProto.DataType.items()}


def untyped_outputs(graph: onnx.GraphProto, types: dict[str, int]) -> list[str]:
    """The outputs of `graph`'s nodes (not its subgraphs') whose element type `types` does not know: the
    values after an operator ONNX inference has no schema for (com.microsoft's QGemm)."""
    return [o for node in graph.node for o in node.output if o and types.get(o, -1) <= 0]


def ort_value_types(model: onnx.ModelProto, names: list[str]) -> dict[str, int]:
    """The element types ORT's own inference (its kernels' schemas, com.microsoft's included) gives the
    main-graph values `names` of `model`: each made a graph output for the question (removed again), read
    back from a stock session at ORT_DISABLE_ALL. {} when ORT cannot load the model (external data, an
    unknown op)."""
    import onnxruntime as ort

    if not names:
        return {}
    graph = model.graph
    declared = {o.name for o in graph.output}
    n_declared = len(graph.output)
    graph.output.extend(onnx.ValueInfoProto(name=n) for n in dict.fromkeys(names) if n not in declared)
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    so.log_severity_level = 4
    try:  # the outputs added for the question only, no copy of the weights beside the serialised bytes
        sess = ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
    except Exception:  # noqa: BLE001 - a model ORT cannot load keeps the types ONNX inference gave
        return {}
    finally:
        del graph.output[n_declared:]
    wanted = set(names)
    found: dict[str, int] = {}
    for out in sess.get_outputs():
        kind = out.type or ""
        if out.name in wanted and kind.startswith("tensor(") and kind.endswith(")"):
            elem = _ELEM_TYPES.get(kind[len("tensor("):-1], 0)
            if elem:
                found[out.name] = elem
    return found
