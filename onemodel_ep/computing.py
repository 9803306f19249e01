"""Which nodes compute: the one definition that strict mode (onemodel_ep.strict) holds a session to.

A *computing node* is a node whose output values come from arithmetic on its inputs: a float result whose
bits depend on the kernel that computed it. Every node is one, except the pure data-movement and shape ops of
the default ONNX domain listed in DATA_MOVEMENT_OPS: their outputs are input elements copied, selected,
reordered or repeated, constants from attributes, shapes, sizes and indices (integers), so any correct
kernel gives the same bits. Nor are the control-flow ops of CONTROL_FLOW_OPS (If, Loop, Scan): their outputs
are their bodies' values, and the nodes of the bodies are judged one by one. Strict mode lets those run on
ORT's CPU EP; every computing node must run on OneModel EP. A node of another domain (ORT's fused
com.microsoft ops among them) always computes.

Range is data movement only over integers (INTEGER_DATA_MOVEMENT_OPS: positions, exact sums); over floats
its outputs are rounded sums (start + delta + ...), and where the input types are not known it computes. Left
out on purpose, so they count as computing: ScatterND and ScatterElements (their `reduction` attribute adds or
multiplies), Resize, Cast and Dropout.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

__all__ = ["CONTROL_FLOW_OPS", "DATA_MOVEMENT_OPS", "INTEGER_DATA_MOVEMENT_OPS", "is_computing"]

DATA_MOVEMENT_OPS: Final[frozenset[str]] = frozenset(
    {
        "Concat",
        "Constant",
        "ConstantOfShape",
        "DepthToSpace",
        "Expand",
        "Flatten",
        "Gather",
        "GatherElements",
        "GatherND",
        "Identity",
        "NonZero",
        "OneHot",
        "Pad",
        "Reshape",
        "SequenceAt",
        "SequenceConstruct",
        "SequenceEmpty",
        "SequenceErase",
        "SequenceInsert",
        "SequenceLength",
        "Shape",
        "Size",
        "Slice",
        "SpaceToDepth",
        "Split",
        "Squeeze",
        "Tile",
        "Transpose",
        "Trilu",
        "Unsqueeze",
    }
)
CONTROL_FLOW_OPS: Final[frozenset[str]] = frozenset({"If", "Loop", "Scan"})
# Data movement when every input is an integer tensor (exact arithmetic: the same on every kernel).
INTEGER_DATA_MOVEMENT_OPS: Final[frozenset[str]] = frozenset({"Range"})
_INTEGER_TYPES: Final[frozenset[str]] = frozenset(
    {"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"}
)
_DEFAULT_DOMAINS: Final[frozenset[str]] = frozenset({"", "ai.onnx"})


def is_computing(op: str, domain: str = "", input_types: Sequence[str] = ()) -> bool:
    """Whether a node of `op` in `domain` computes its outputs (is not pure data movement); `input_types`: the
    element types of its inputs by name ("int64", as the reports write them), where known."""
    if domain not in _DEFAULT_DOMAINS:
        return True
    if op in INTEGER_DATA_MOVEMENT_OPS:
        return not input_types or any(t not in _INTEGER_TYPES for t in input_types)
    return op not in DATA_MOVEMENT_OPS | CONTROL_FLOW_OPS
