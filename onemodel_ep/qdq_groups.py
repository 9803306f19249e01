"""QDQ groups in the rewrite: DequantizeLinear -> Conv / MatMul / Gemm / Add / Mul / Sigmoid / LeakyRelu /
AveragePool / GlobalAveragePool / Softmax / Concat -> QuantizeLinear as one QLinear node, and
DequantizeLinear -> MatMul with no QuantizeLinear after it as one com.microsoft MatMulIntegerToFloat
(docs/qdq-groups-rewrite.md, the contract of docs/quantized.md's "QDQ groups").

`find_groups` finds, in a model's main graph, each group the execution provider fuses (the same conditions,
read from the same constants) whose QLinear node the library serves (`serving.verdict`, i.e. om_node_create);
`group` replaces each by that node: QLinearConv and QLinearMatMul (ONNX), com.microsoft QGemm, QLinearAdd,
QLinearMul, QLinearSigmoid, QLinearLeakyRelu, QLinearAveragePool, QLinearGlobalAveragePool, QLinearSoftmax
and QLinearConcat, in the QOperator form the rewriter then retargets to `ai.onemodel` like any other node,
so the group's bits are those of the QOperator model. A zero point a DequantizeLinear or the QuantizeLinear
lacks becomes an initializer of zeros of its type, shaped as its scale, as if the model had carried it.
`member_outputs` names the values of every group's nodes: constant folding leaves those nodes alone (a
DequantizeLinear of a constant weight folded into a float initializer would break its group), so the
rewrite and the execution provider see the same groups.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import onnx
from onnx import helper, numpy_helper

from onemodel_ep.inference import Inferred, domain_opset, subgraphs
from onemodel_ep.report import NodeReport, RewriteReport
from onemodel_ep.serving import input_types, verdict

__all__ = ["GROUPED", "QdqGroup", "find_groups", "group", "member_outputs"]

GROUPED = "grouped"  # the report category of a node that became part of a QLinear node
_MS = "com.microsoft"
_T = onnx.TensorProto
_INT8S = (_T.INT8, _T.UINT8)

# P's op type: the (domain, op type) of its QLinear node.
FUSED_TO: dict[str, tuple[str, str]] = {
    "Conv": ("", "QLinearConv"),
    "MatMul": ("", "QLinearMatMul"),
    "Gemm": (_MS, "QGemm"),
    "Add": (_MS, "QLinearAdd"),
    "Mul": (_MS, "QLinearMul"),
    "Sigmoid": (_MS, "QLinearSigmoid"),
    "LeakyRelu": (_MS, "QLinearLeakyRelu"),
    "AveragePool": (_MS, "QLinearAveragePool"),
    "GlobalAveragePool": (_MS, "QLinearGlobalAveragePool"),
    "Softmax": (_MS, "QLinearSoftmax"),
    "Concat": (_MS, "QLinearConcat"),
}
# P's op type: the (domain, op type) of the node a group with no QuantizeLinear after P becomes (its float
# output P's): MatMul -> com.microsoft MatMulIntegerToFloat, as ORT's MatMulReplaceWithQLinear writes it.
FUSED_TO_FLOAT: dict[str, tuple[str, str]] = {
    "MatMul": (_MS, "MatMulIntegerToFloat"),
}
_HAS_BIAS = ("Conv", "Gemm")
_WEIGHTED = ("Conv", "MatMul", "Gemm")  # input 1 a weight (per axis allowed)
_TWO_TYPES = (*_WEIGHTED, "Add", "Mul")  # two operands with their own (scale, zero point); all else: one type
_UNARY = ("Sigmoid", "LeakyRelu", "AveragePool", "GlobalAveragePool", "Softmax")
_DATA, _WEIGHT, _BIAS = 0, 1, 2  # a DequantizeLinear's role: per-tensor data, a weight, an int32 bias


def _default(node: onnx.NodeProto, op: str) -> bool:
    return node.op_type == op and node.domain in ("", "ai.onnx")


def _attr(node: onnx.NodeProto, name: str, default: object) -> object:
    a = next((a for a in node.attribute if a.name == name), None)
    return default if a is None else helper.get_attribute_value(a)


@dataclass(frozen=True)
class QdqGroup:
    """One group: the DequantizeLinear nodes of P's inputs, P, the QuantizeLinear after it (indices into the
    main graph's nodes; q = -1: none, a float-output group), and the QLinear node that replaces them."""

    dqs: tuple[int, ...]
    op: int
    q: int
    fused: onnx.NodeProto
    shown: tuple[tuple[str, ...], ...]  # the members' input types as reports show them
    zeros: tuple[onnx.TensorProto, ...] = ()  # the zero points the group's DequantizeLinear / Q lack

    @property
    def members(self) -> tuple[int, ...]:
        return (*self.dqs, self.op, self.q) if self.q >= 0 else (*self.dqs, self.op)

    @property
    def at(self) -> int:
        """Where the fused node stands: the QuantizeLinear's place, or P's in a float-output group."""
        return self.q if self.q >= 0 else self.op


def _removable(model: onnx.ModelProto, groups: list[QdqGroup]) -> set[int]:
    """The nodes the groups replace: each P and QuantizeLinear, and each DequantizeLinear that only groups'
    P nodes read (one another nodes also read, or a graph output, stays for them: ONNX Runtime's
    EnsureUniqueDQForNodeUnit gives every reader its own copy, so a shared DequantizeLinear joins every group
    that reads it)."""
    g = _Graph(model)
    heads = {grp.op for grp in groups}
    gone = {k for grp in groups for k in (grp.op, grp.q) if k >= 0}
    nodes = model.graph.node
    for grp in groups:
        for k in grp.dqs:
            out = nodes[k].output[0]
            if out not in g.outputs and all(r in heads for r in g.readers.get(out, [])):
                gone.add(k)
    return gone


@dataclass(frozen=True)
class _Dq:
    """A DequantizeLinear a group can take: its inputs (zero point "" when absent), its scale, and the axis
    its scale runs along (-1: per tensor)."""

    x: str
    scale: str
    zero_point: str
    scales: np.ndarray
    axis: int


@dataclass
class _Graph:
    """What the matcher reads of the main graph: constants, producers, consumers, types (inferred once, and
    only when a candidate needs them; `inference`: one handed on, of the same graph)."""

    model: onnx.ModelProto
    consts: dict[str, onnx.TensorProto] = field(default_factory=dict)
    producer: dict[str, int] = field(default_factory=dict)
    readers: dict[str, list[int]] = field(default_factory=dict)
    outputs: set[str] = field(default_factory=set)
    inference: Inferred | None = None
    names: set[str] = field(default_factory=set)  # every value and initializer name of the main graph

    def __post_init__(self) -> None:
        g = self.model.graph
        if self.inference is None:
            self.inference = Inferred(self.model)
        inputs = {i.name for i in g.input}
        self.consts = {t.name: t for t in g.initializer if t.name not in inputs}
        self.outputs = {o.name for o in g.output}
        self.names = {t.name for t in g.initializer} | {i.name for i in g.input} | self.outputs
        for k, node in enumerate(g.node):
            for o in node.output:
                self.producer[o] = k
            self.names.update(node.output)
            t = _constant_node_tensor(node)  # ORT makes these initializers: the EP sees them so
            if t is not None:
                self.consts[node.output[0]] = t
            read = [n for n in node.input if n]
            for a in node.attribute:  # a subgraph reading an outer value: this node reads it
                for sub in subgraphs(a):
                    read += _outer_reads(sub)
            for n in read:
                self.readers.setdefault(n, []).append(k)

    @property
    def types(self) -> dict[str, int]:
        assert self.inference is not None
        return self.inference.types

    @property
    def ranks(self) -> dict[str, int]:
        assert self.inference is not None
        return self.inference.ranks

    def type_of(self, name: str) -> int:
        t = self.consts.get(name)
        return t.data_type if t is not None else self.types.get(name, -1)

    def array(self, name: str) -> np.ndarray | None:
        """The value of the constant `name` when its data is here (not in an external file not loaded)."""
        t = self.consts.get(name)
        if t is None or t.data_location == _T.EXTERNAL:
            return None
        return numpy_helper.to_array(t)



def _constant_node_tensor(node: onnx.NodeProto) -> onnx.TensorProto | None:
    """The tensor of a default-domain Constant node given as `value`, `value_float` or `value_floats`."""
    if not _default(node, "Constant") or len(node.attribute) != 1 or len(node.output) != 1:
        return None
    a = node.attribute[0]
    if a.name == "value" and a.type == onnx.AttributeProto.TENSOR:
        return a.t
    if a.name in ("value_float", "value_floats"):
        return numpy_helper.from_array(np.array(helper.get_attribute_value(a), dtype=np.float32))
    return None


def _outer_reads(graph: onnx.GraphProto) -> list[str]:
    """The names a subgraph's nodes read (its own values included: they cannot collide with P's)."""
    names: list[str] = []
    for node in graph.node:
        names += [n for n in node.input if n]
        for a in node.attribute:
            for sub in subgraphs(a):
                names += _outer_reads(sub)
    return names


def _dq(g: _Graph, k: int, role: int) -> _Dq | None:
    """Node k as a DequantizeLinear of the role `role`, when a group may take it (else None)."""
    node = g.model.graph.node[k]
    if not _default(node, "DequantizeLinear") or not 2 <= len(node.input) <= 3:
        return None
    x, scale = node.input[0], node.input[1]
    zp = node.input[2] if len(node.input) == 3 else ""
    if not x or not scale or len(node.output) != 1:
        return None
    if _attr(node, "block_size", 0) != 0 or _attr(node, "output_dtype", 0) not in (0, _T.FLOAT):
        return None
    xt = g.type_of(x)
    if (role == _BIAS and xt != _T.INT32) or (role != _BIAS and xt not in _INT8S):
        return None
    s = g.array(scale)
    if s is None or s.dtype != np.float32 or s.size < 1:
        return None
    if zp:
        z = g.array(zp)
        if z is None or g.consts[zp].data_type != xt or z.size != s.size:
            return None
        if role == _BIAS and np.any(z != 0):
            return None
    axis = -1
    if s.ndim > 0 and s.size > 1:  # per axis: along an axis of x of that length; x a constant (its rank)
        xc = g.consts.get(x)
        if xc is None:
            return None
        rank = len(xc.dims)
        a = int(_attr(node, "axis", 1))  # type: ignore[call-overload]
        a = a + rank if a < 0 else a
        if not 0 <= a < rank or xc.dims[a] != s.size or role == _DATA:
            return None
        axis = a
    return _Dq(x, scale, zp, s.reshape(-1), axis)


def _bias_scale_ok(x: np.ndarray, w: np.ndarray, bias: np.ndarray) -> bool:
    """Whether every bias scale is, bit for bit, fl32(x_scale * w_scale[c]) (a one-element list broadcast)."""
    n = max(w.size, bias.size)
    if x.size != 1 or w.size not in (1, n) or bias.size not in (1, n):
        return False
    want = (np.float32(x[0]) * np.broadcast_to(w, (n,)).astype(np.float32)).astype(np.float32)
    return bool(np.array_equal(want.view(np.uint32), np.broadcast_to(bias, (n,)).view(np.uint32)))


@dataclass(frozen=True)
class _Qz:
    """The QuantizeLinear ending a group: its scale, its zero point ("" when absent) and that zero point's
    element type (the output's: an absent one is uint8, or output_dtype's type)."""

    scale: str
    zero_point: str
    type: int


def _q(g: _Graph, k: int) -> _Qz | None:
    """Node k as the QuantizeLinear ending a group, else None."""
    node = g.model.graph.node[k]
    if not _default(node, "QuantizeLinear") or not 2 <= len(node.input) <= 3 or len(node.output) != 1:
        return None
    scale, zp = node.input[1], node.input[2] if len(node.input) == 3 else ""
    s = g.array(scale)
    if not scale or s is None or s.dtype != np.float32 or s.size != 1:
        return None
    out_type = _attr(node, "output_dtype", 0)
    if zp:
        z = g.array(zp)
        if z is None or z.size != 1:
            return None
        zt = g.consts[zp].data_type
        if out_type not in (0, zt):
            return None
    else:
        zt = int(out_type) if out_type else _T.UINT8  # type: ignore[call-overload]
    if zt not in _INT8S or _attr(node, "block_size", 0) != 0 or _attr(node, "saturate", 1) != 1:
        return None
    return _Qz(scale, zp, zt)


def _zero_point(g: _Graph, scale: str, t: int, made: dict[str, onnx.TensorProto]) -> str:
    """The name of a constant of zeros of type t shaped as the constant `scale` (an absent zero point, as if
    the model had carried it), made once per (scale, type) into `made`, named after the scale."""
    base = f"{scale}_om_zero_{'s8' if t == _T.INT8 else 'u8'}"
    if base in made:
        return made[base].name
    name, n = base, 0
    while name in g.names:
        n += 1
        name = f"{base}{n}"
    dims = tuple(g.consts[scale].dims)
    made[base] = numpy_helper.from_array(np.zeros(dims, dtype=np.int8 if t == _T.INT8 else np.uint8), name)
    return name


def _p_inputs(g: _Graph, p: onnx.NodeProto, k: int) -> tuple[list[int], list[_Dq]] | None:
    """The DequantizeLinear nodes of P's inputs (their indices and what they give), when each input of P
    comes from one that a group may take, else None."""
    n_opt = 1 if p.op_type in _HAS_BIAS else 0
    if p.op_type == "Concat":
        if len(p.input) < 1:
            return None
    elif p.op_type in _UNARY:
        if len(p.input) != 1:
            return None
    elif not 2 <= len(p.input) <= 2 + n_opt:
        return None
    dq_at: list[int] = []
    dqs: list[_Dq] = []
    for j, name in enumerate(p.input):
        if not name and j >= 2 and p.op_type in _HAS_BIAS:
            break  # an absent optional bias
        at = g.producer.get(name, -1)
        if at < 0 or at in dq_at or g.readers.get(name, []).count(k) != 1:
            return None  # no DequantizeLinear, or one P reads twice (Add(x, x))
        role = _BIAS if j >= 2 and p.op_type in _HAS_BIAS else \
            _WEIGHT if j == 1 and p.op_type in _WEIGHTED else _DATA
        d = _dq(g, at, role)
        if d is None:
            return None
        dq_at.append(at)
        dqs.append(d)
    return dq_at, dqs


def _linear_attrs(g: _Graph, p: onnx.NodeProto, dqs: list[_Dq]) -> list[onnx.AttributeProto] | None:
    """Conv / MatMul / Gemm / Add / Mul: the QLinear node's attributes, None when the group cannot form (a
    Gemm QGemm cannot serve, a per-axis weight along another axis, a bias scale not x_scale * w_scale)."""
    attrs = list(p.attribute)
    if p.op_type == "Gemm":
        if _attr(p, "transA", 0) != 0:
            return None
        if len(dqs) == 3 and (_attr(p, "alpha", 1.0) != 1.0 or _attr(p, "beta", 1.0) != 1.0):
            return None  # QGemm scales C with the product: C's float scale must be the product's
        attrs = [a for a in attrs if a.name != "beta"]  # QGemm has none: C is added as it is
    if dqs[1].axis >= 0:
        want = 0 if p.op_type == "Conv" else (0 if _attr(p, "transB", 0) else 1) if p.op_type == "Gemm" else 1
        if dqs[1].axis != want or (p.op_type != "Conv" and len(g.consts[dqs[1].x].dims) != 2):
            return None
    if len(dqs) == 3:
        if dqs[0].axis >= 0 or not _bias_scale_ok(dqs[0].scales, dqs[1].scales, dqs[2].scales):
            return None
        if dqs[2].scales.size > 1 and len(g.consts[dqs[2].x].dims) != 1:
            return None
    return attrs


def _one_type_attrs(g: _Graph, p: onnx.NodeProto) -> list[onnx.AttributeProto] | None:
    """Sigmoid / LeakyRelu / AveragePool / GlobalAveragePool / Softmax / Concat: the com.microsoft QLinear
    node's attributes (docs/quantized.md, "QDQ groups"), None when P's cannot be carried (dilations)."""
    op = p.op_type
    if op == "AveragePool":
        if any(d != 1 for d in _attr(p, "dilations", [])):  # type: ignore[attr-defined]
            return None
        kept = [a for a in p.attribute if a.name != "dilations"]
        return [*kept, helper.make_attribute("channels_last", 0)]
    if op == "GlobalAveragePool":
        return [helper.make_attribute("channels_last", 0)]
    if op == "Softmax":
        opset = domain_opset(g.model, "")
        axis = int(_attr(p, "axis", 1 if opset < 13 else -1))  # type: ignore[call-overload]
        return [helper.make_attribute("axis", axis), helper.make_attribute("opset", opset)]
    if op == "LeakyRelu":
        return [helper.make_attribute("alpha", float(_attr(p, "alpha", 0.01)))]  # type: ignore[arg-type]
    if op == "Concat":
        return [helper.make_attribute("axis", int(_attr(p, "axis", 0)))]  # type: ignore[call-overload]
    return []  # Sigmoid


def _match(g: _Graph, k: int, mode: str, kernel_path: str | None) -> QdqGroup | None:
    """The group node k heads as its P, when it is one and the library serves its QLinear node."""
    p = g.model.graph.node[k]
    if p.domain not in ("", "ai.onnx") or p.op_type not in FUSED_TO or len(p.output) != 1:
        return None
    nodes = g.model.graph.node
    quantized = any(_default(nodes[r], "QuantizeLinear") and nodes[r].input[0] == p.output[0]
                    for r in g.readers.get(p.output[0], []))
    if not quantized:  # no QuantizeLinear reads P's output: the float form, where P has one
        return _match_float(g, k, mode, kernel_path) if p.op_type in FUSED_TO_FLOAT else None
    q_at = _only(g, p.output[0])  # P's output: read by one node (its QuantizeLinear), no graph output
    if q_at < 0 or p.output[0] in g.outputs:
        return None
    found = _p_inputs(g, p, k)
    q = _q(g, q_at)
    if found is None or q is None:
        return None
    dq_at, dqs = found
    one_type = p.op_type not in _TWO_TYPES
    attrs = _one_type_attrs(g, p) if one_type else _linear_attrs(g, p, dqs)
    if attrs is None:
        return None
    if (one_type or p.op_type in ("Add", "Mul")) and any(g.type_of(d.x) != q.type for d in dqs):
        return None  # the com.microsoft op's T: one type for every input and the output
    made: dict[str, onnx.TensorProto] = {}

    def zp(d: _Dq) -> str:
        return d.zero_point or _zero_point(g, d.scale, g.type_of(d.x), made)

    y = [q.scale, q.zero_point or _zero_point(g, q.scale, q.type, made)]
    if p.op_type == "Concat":
        ins = [*y]
        for d in dqs:
            ins += [d.x, d.scale, zp(d)]
    elif one_type:
        ins = [dqs[0].x, dqs[0].scale, zp(dqs[0]), *y]
    else:
        ins = [dqs[0].x, dqs[0].scale, zp(dqs[0]), dqs[1].x, dqs[1].scale, zp(dqs[1])]
        if p.op_type == "Gemm":
            ins.append(dqs[2].x if len(dqs) == 3 else "")
        ins += y
        if p.op_type == "Conv" and len(dqs) == 3:
            ins.append(dqs[2].x)
    domain, op_type = FUSED_TO[p.op_type]
    q_node = g.model.graph.node[q_at]
    fused = helper.make_node(op_type, ins, [q_node.output[0]], name=_fused_name(p, k, op_type), domain=domain)
    fused.attribute.extend(attrs)
    return _served(g, fused, dq_at, k, q_at, mode, kernel_path, made)


def _match_float(g: _Graph, k: int, mode: str, kernel_path: str | None) -> QdqGroup | None:
    """The float-output group node k heads (no QuantizeLinear reads P's output; any other readers but a lone
    Add, or a graph output): MatMul -> com.microsoft MatMulIntegerToFloat(a, b, a_scale, b_scale, a_zp, b_zp),
    an absent zero point left absent (0), when the library serves it."""
    p = g.model.graph.node[k]
    nodes = g.model.graph.node
    r = g.readers.get(p.output[0], [])
    if len(r) == 1 and p.output[0] not in g.outputs and _default(nodes[r[0]], "Add"):
        return None  # ORT's level-1 MatMulAddFusion makes MatMul -> Add a Gemm above DISABLE_ALL: no group
    found = _p_inputs(g, p, k)
    if found is None:
        return None
    dq_at, dqs = found
    if _linear_attrs(g, p, dqs) is None:  # B per column along axis 1, 2-D
        return None
    if g.type_of(dqs[0].x) == _T.INT8 and g.type_of(dqs[1].x) != _T.INT8:
        return None  # ONNX Runtime's MatMul selector: int8 A with int8 B only
    a, b = dqs
    ins = [a.x, b.x, a.scale, b.scale, a.zero_point, b.zero_point]
    while ins[-1] == "":
        ins.pop()
    domain, op_type = FUSED_TO_FLOAT[p.op_type]
    fused = helper.make_node(op_type, ins, [p.output[0]], name=_fused_name(p, k, op_type), domain=domain)
    return _served(g, fused, dq_at, k, -1, mode, kernel_path, {})


def _served(
    g: _Graph,
    fused: onnx.NodeProto,
    dq_at: list[int],
    k: int,
    q_at: int,
    mode: str,
    kernel_path: str | None,
    made: dict[str, onnx.TensorProto],
) -> QdqGroup | None:
    """The group of `fused` (over the DequantizeLinear nodes dq_at, P = node k and the QuantizeLinear q_at,
    -1: none), when the library serves `fused`, else None."""
    types = {n: g.type_of(n) for n in fused.input if n and n not in made}
    types.update({t.name: t.data_type for t in made.values()})
    in_types, _ = input_types(fused, types)
    opset = domain_opset(g.model, fused.domain) or 1
    if verdict(fused, in_types, opset, mode, kernel_path, g.ranks) is not None:
        return None
    nodes = g.model.graph.node
    members = (*dq_at, k, q_at) if q_at >= 0 else (*dq_at, k)
    shown = tuple(input_types(nodes[m], {n: g.type_of(n) for n in nodes[m].input if n})[1] for m in members)
    return QdqGroup(tuple(dq_at), k, q_at, fused, shown, tuple(made.values()))


def _only(g: _Graph, name: str) -> int:
    """The one node reading `name`, else -1."""
    r = g.readers.get(name, [])
    return r[0] if len(r) == 1 else -1


def _fused_name(p: onnx.NodeProto, k: int, op_type: str) -> str:
    return f"{p.name or f'{p.op_type}_{k}'}_{op_type}"


def find_groups(
    model: onnx.ModelProto,
    mode: str = "exact",
    kernel_path: str | None = None,
    inference: Inferred | None = None,
) -> list[QdqGroup]:
    """The QDQ groups of `model`'s main graph (docs/qdq-groups-rewrite.md), in graph order. `inference`: the
    model's, when the caller has one to hand on."""
    g = _Graph(model, inference=inference)
    found: list[QdqGroup] = []
    for k, node in enumerate(model.graph.node):
        if node.op_type in FUSED_TO and (grp := _match(g, k, mode, kernel_path)) is not None:
            found.append(grp)
    return found


def member_outputs(
    model: onnx.ModelProto,
    mode: str = "exact",
    kernel_path: str | None = None,
    inference: Inferred | None = None,
) -> set[str]:
    """The outputs of every node of every QDQ group of `model`: what constant folding leaves."""
    if not _has_qdq(model):
        return set()
    nodes = model.graph.node
    groups = find_groups(model, mode, kernel_path, inference)
    return {o for grp in groups for k in grp.members for o in nodes[k].output}


def _has_qdq(model: onnx.ModelProto) -> bool:
    """Whether the main graph may hold a group: every group has a DequantizeLinear."""
    return any(_default(n, "DequantizeLinear") for n in model.graph.node)


def group(
    model: onnx.ModelProto,
    mode: str = "exact",
    kernel_path: str | None = None,
    report: RewriteReport | None = None,
    inference: Inferred | None = None,
) -> list[QdqGroup]:
    """Replace, in place, each QDQ group of `model`'s main graph by its QLinear node (at the QuantizeLinear's
    place: every input of the group comes before it, every reader of its output after), and report each
    member node (category "grouped"). The groups."""
    if not _has_qdq(model):
        return []
    groups = find_groups(model, mode, kernel_path, inference)
    if not groups:
        return groups
    nodes = list(model.graph.node)
    at_q = {grp.at: grp for grp in groups}
    gone = _removable(model, groups)
    if report is not None:
        reported: set[int] = set()
        for grp in groups:
            _report(report, nodes, grp, gone - reported)
            reported.update(grp.members)
    kept: list[onnx.NodeProto] = []
    for k, node in enumerate(nodes):
        if k in at_q:
            kept.append(at_q[k].fused)
        elif k not in gone:
            kept.append(node)
    del model.graph.node[:]
    model.graph.node.extend(kept)
    zeros = {t.name: t for grp in groups for t in grp.zeros}  # one per (scale, type): the same tensor
    model.graph.initializer.extend(zeros.values())
    if any(grp.fused.domain == _MS for grp in groups) and domain_opset(model, _MS) == 0:
        model.opset_import.append(helper.make_opsetid(_MS, 1))
    return groups


def _report(report: RewriteReport, nodes: list[onnx.NodeProto], grp: QdqGroup, gone: set[int]) -> None:
    """Report the group's members among `gone` (a shared DequantizeLinear once; one that stays, never)."""
    fused = grp.fused
    why = f"QDQ group: one {fused.op_type} {fused.name!r} with " + ", ".join(
        nodes[k].name or nodes[k].op_type for k in grp.members if k != grp.op
    )
    for k, shown in zip(grp.members, grp.shown, strict=True):
        if k not in gone:
            continue
        n = nodes[k]
        report.nodes.append(NodeReport("main", n.name, n.op_type, shown, True, GROUPED, why, n.domain))
