"""A node's attributes against its operator's ONNX schema: the check stock ONNX Runtime makes at session
creation, made by the rewriter before it moves a node.

ORT refuses a node with an attribute its operator does not define, an attribute of another kind than the
schema's (`alpha=[2.0]` where Gemm defines a float), or without a required attribute. The library reads
attributes by name, so without this check a list where a float is expected would read as "absent" and run
with the default. A node that fails the check is not moved: it stays with stock ORT, which gives its own
error.
"""

from __future__ import annotations

import onnx

# AttributeProto.type -> its name in messages: "float", "ints", "tensor", ...
_KIND_NAMES = {int(v): k.lower() for k, v in onnx.AttributeProto.AttributeType.items()}


def kind_name(kind: int) -> str:
    return _KIND_NAMES.get(int(kind), f"unknown kind {int(kind)}")


def attribute_problem(node: onnx.NodeProto, opset: int) -> str | None:
    """None when every attribute of `node` (model opset `opset` of its domain) is one its operator defines,
    of the kind the schema gives, and every required attribute is there; else the first problem, naming the
    attribute and the expected and given kinds. None also when ONNX has no schema for the op at that opset
    (the library's own check then names the opset)."""
    try:
        schema = onnx.defs.get_schema(node.op_type, opset, "" if node.domain == "ai.onnx" else node.domain)
    except onnx.defs.SchemaError:
        return None
    where = f"{node.op_type} (opset {schema.since_version})"
    for a in node.attribute:
        spec = schema.attributes.get(a.name)
        if spec is None:
            return f"attribute '{a.name}' is not an attribute of {where}"
        if a.ref_attr_name:
            return f"attribute '{a.name}' refers to a function's attribute outside a function"
        if a.type != int(spec.type):
            expected, given = kind_name(spec.type), kind_name(a.type)
            return f"attribute '{a.name}' of {where} must be of kind {expected}, got {given}"
    given = {a.name for a in node.attribute}
    for name, spec in schema.attributes.items():
        if spec.required and name not in given:
            return f"required attribute '{name}' of {where} is missing"
    return None
