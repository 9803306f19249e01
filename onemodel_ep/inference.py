"""What ONNX shape inference tells of a model (its inferred copy, the element type of every value), and the
walk into the subgraphs of control-flow nodes. The rewriter, the EP report and `onemodel diff` share it."""

from __future__ import annotations

from collections.abc import Iterator

import onnx

from onemodel_ep import external_data


def default_opset(model: onnx.ModelProto) -> int:
    """The model's opset of the default ONNX domain (0 when it imports none)."""
    return domain_opset(model, "")


def domain_opset(model: onnx.ModelProto, domain: str) -> int:
    """The model's opset of `domain` ("" and "ai.onnx": the default domain; 0 when it imports none)."""
    want = "" if domain == "ai.onnx" else domain
    for imp in model.opset_import:
        if (imp.domain if imp.domain != "ai.onnx" else "") == want:
            return int(imp.version)
    return 0


def subgraphs(attr: onnx.AttributeProto) -> Iterator[onnx.GraphProto]:
    """The subgraphs an attribute holds (an If's branch, a Loop's body): none, one or several."""
    if attr.type == onnx.AttributeProto.GRAPH:
        yield attr.g
    elif attr.type == onnx.AttributeProto.GRAPHS:
        yield from attr.graphs


def walk(graph: onnx.GraphProto, where: str = "main") -> Iterator[tuple[str, onnx.NodeProto]]:
    """Every node of `graph` and of its subgraphs, with the path of its graph as the reports write it
    ("main", "main/If_0.then_branch"): a node's subgraphs' nodes come before the node."""
    for index, node in enumerate(graph.node):
        label = node.name or f"{node.op_type}_{index}"
        for attr in node.attribute:
            for k, sub in enumerate(subgraphs(attr)):
                suffix = f"[{k}]" if attr.type == onnx.AttributeProto.GRAPHS else ""
                yield from walk(sub, f"{where}/{label}.{attr.name}{suffix}")
        yield where, node


def infer(model: onnx.ModelProto) -> onnx.ModelProto:
    """The model with what ONNX shape inference finds (types and shapes, every graph), or the model itself
    when inference fails (an unknown custom op, a malformed graph): then only what the model declares."""
    if model.ByteSize() > external_data.SERIALISABLE_BYTES:  # its weights inline: infer without them
        model = external_data.skeleton(model)
    try:
        return onnx.shape_inference.infer_shapes(model, check_type=False, strict_mode=False)
    except Exception:
        return model


class Inferred:
    """ONNX inference of one model (`infer` of its weight-free skeleton), run when first asked and then kept,
    with the element types and ranks it finds: hand it on to each step that reads the same graph, unchanged,
    rather than infer again."""

    def __init__(self, model: onnx.ModelProto) -> None:
        self.model = model
        self._inferred: onnx.ModelProto | None = None
        self._types: dict[str, int] | None = None
        self._ranks: dict[str, int] | None = None

    @property
    def ran(self) -> bool:
        """Whether the inference has run."""
        return self._inferred is not None

    @property
    def inferred(self) -> onnx.ModelProto:
        if self._inferred is None:
            self._inferred = infer(external_data.skeleton(self.model, external_data.SHAPE_BYTES))
        return self._inferred

    @property
    def types(self) -> dict[str, int]:
        """value_types: not to be changed (others share it)."""
        if self._types is None:
            self._types = value_types(self.model, self.inferred)
        return self._types

    @property
    def ranks(self) -> dict[str, int]:
        """value_ranks: not to be changed (others share it)."""
        if self._ranks is None:
            self._ranks = value_ranks(self.inferred)
        return self._ranks


def _all_graphs(graph: onnx.GraphProto) -> Iterator[onnx.GraphProto]:
    """`graph` and every subgraph in it, at any depth."""
    yield graph
    for node in graph.node:
        for attr in node.attribute:
            for sub in subgraphs(attr):
                yield from _all_graphs(sub)


def value_types(model: onnx.ModelProto, inferred: onnx.ModelProto | None = None) -> dict[str, int]:
    """Element type of every tensor name ONNX shape inference finds in `model` (all graphs, one namespace);
    `inferred`: the model after inference, when the caller has it already."""
    if inferred is None:
        inferred = infer(external_data.skeleton(model, external_data.SHAPE_BYTES))
    types: dict[str, int] = {}
    for graph in _all_graphs(inferred.graph):
        for vi in list(graph.input) + list(graph.output) + list(graph.value_info):
            if vi.type.HasField("tensor_type") and vi.type.tensor_type.elem_type:
                types[vi.name] = vi.type.tensor_type.elem_type
        for init in graph.initializer:
            types[init.name] = init.data_type
        for sp in graph.sparse_initializer:
            types[sp.values.name] = sp.values.data_type
    return types


def value_ranks(inferred: onnx.ModelProto) -> dict[str, int]:
    """The rank of every tensor whose shape `inferred` (a model after `infer`) declares, all graphs (one
    namespace); a value of unknown rank is left out."""
    ranks: dict[str, int] = {}
    for graph in _all_graphs(inferred.graph):
        for vi in list(graph.input) + list(graph.output) + list(graph.value_info):
            if vi.type.HasField("tensor_type") and vi.type.tensor_type.HasField("shape"):
                ranks[vi.name] = len(vi.type.tensor_type.shape.dim)
        for init in graph.initializer:
            ranks[init.name] = len(init.dims)
    return ranks
