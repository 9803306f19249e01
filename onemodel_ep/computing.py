"""Which nodes compute: the one definition that strict mode (onemodel_ep.strict) holds a session to.

A *computing node* is a node whose output values come from arithmetic on its inputs: a float result whose
bits depend on the kernel that computed it. Every node is one, except the pure data-movement and shape ops of
the default ONNX domain listed in DATA_MOVEMENT_OPS: their outputs are input elements copied, selected,
reordered or repeated, constants from attributes, shapes, sizes and indices (integers), so any correct
kernel gives the same bits. Nor are the control-flow ops of CONTROL_FLOW_OPS (If, Loop, Scan): their outputs
are their bodies' values, and the nodes of the bodies are judged one by one. Strict mode lets those run on
ORT's CPU EP; every computing node must run on OneModel EP. A node of another domain (ORT's fused
com.microsoft ops among them) always computes.

The lists and the rule live in the C library (provider/csrc/core/om_computing.c), which the execution
provider's own strict mode (the EP option `strict`) reads too: this module reads them from there, so both
judge alike.

Range is data movement only over integers (INTEGER_DATA_MOVEMENT_OPS: positions, exact sums); over floats
its outputs are rounded sums (start + delta + ...), and where the input types are not known it computes. Left
out on purpose, so they count as computing: ScatterND and ScatterElements (their `reduction` attribute adds or
multiplies), Resize, Cast and Dropout.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from onemodel_ep._lib import ffi, lib

__all__ = ["CONTROL_FLOW_OPS", "DATA_MOVEMENT_OPS", "INTEGER_DATA_MOVEMENT_OPS", "is_computing"]


def _listed(kind: int) -> frozenset[str]:
    """The ops of the library's list (om_noncomputing_op) of that kind."""
    out: set[str] = set()
    k = ffi.new("int*")
    i = 0
    while (name := lib.om_noncomputing_op(i, k)) != ffi.NULL:
        if k[0] == kind:
            out.add(ffi.string(name).decode())
        i += 1
    return frozenset(out)


DATA_MOVEMENT_OPS: Final[frozenset[str]] = _listed(lib.OM_NONCOMPUTING_DATA)
CONTROL_FLOW_OPS: Final[frozenset[str]] = _listed(lib.OM_NONCOMPUTING_CONTROL)
# Data movement when every input is an integer tensor (exact arithmetic: the same on every kernel).
INTEGER_DATA_MOVEMENT_OPS: Final[frozenset[str]] = _listed(lib.OM_NONCOMPUTING_INTEGER)
# Element type codes by the names the reports write ("int64"), as the library names them (om_type_name).
_TYPE_CODES: Final[dict[str, int]] = {
    name: t for t in range(1, 32) if (name := ffi.string(lib.om_type_name(t)).decode()) != "unknown"
}


def is_computing(op: str, domain: str = "", input_types: Sequence[str] = ()) -> bool:
    """Whether a node of `op` in `domain` computes its outputs (is not pure data movement); `input_types`: the
    element types of its inputs by name ("int64", as the reports write them), where known."""
    codes = [_TYPE_CODES.get(t, -1) for t in input_types]
    return bool(lib.om_op_computes(domain.encode(), op.encode(), len(codes), codes))
