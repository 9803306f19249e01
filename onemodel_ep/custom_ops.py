"""The library as ORT's custom-op library: SessionOptions that run the `ai.onemodel` domain.

Both paths need it: the rewrite path (session.py) runs models rewritten to ai.onemodel, and the EP path
(ep.py) registers the custom ops too, so that a model already rewritten runs there as well.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import onnx
import onnxruntime as ort

from onemodel_ep._lib import DOMAIN, library_path
from onemodel_ep.inference import walk

_REGISTERED_KEY = "onemodel.registered"
# The ops to register, comma-separated (provider/csrc/ort/custom_ops_subset.c): ORT builds a schema and a
# kernel registration for each registered op in every session, so registering the few a model uses instead of
# all of them makes a small session 9x to 84x faster to create (docs/architecture.md). Absent: every op.
OPS_KEY = "onemodel.custom_ops"


_DISABLE_KEY = "optimization.disable_specified_optimizers"
_STOCK_QUANTIZER = "WeightBiasQuantization"


def config_entry(so: ort.SessionOptions, key: str) -> str:
    """The session config entry `key` of `so` ("" when it was never set)."""
    try:
        return so.get_session_config_entry(key)
    except Exception:  # ORT raises when the key was never set
        return ""


def disable_optimizers(so: ort.SessionOptions, names: Sequence[str]) -> None:
    """Add `names` to the ORT transformers `so` disables (optimization.disable_specified_optimizers), keeping
    any already listed; the entry is written only when a name is new (ORT warns when it is overwritten)."""
    disabled = [n.strip() for n in config_entry(so, _DISABLE_KEY).split(";") if n.strip()]  # ORT's separator
    new = [n for n in names if n not in disabled]
    if new:
        so.add_session_config_entry(_DISABLE_KEY, ";".join(disabled + new))


def custom_op_types(model: onnx.ModelProto) -> list[str]:
    """The op types of `model`'s ai.onemodel nodes, its subgraphs' included, sorted, each once."""
    return sorted({node.op_type for _, node in walk(model.graph) if node.domain == DOMAIN})


def _listed(so: ort.SessionOptions) -> set[str] | None:
    """The ops `so` registers (its OPS_KEY entry), or None for every op (no entry)."""
    try:
        return {n for n in so.get_session_config_entry(OPS_KEY).split(",") if n}
    except Exception:  # ORT raises when the key was never set
        return None


def _check_registered(so: ort.SessionOptions, ops: list[str] | None) -> None:
    """Raise if the library is already registered on `so` without some of `ops` (the domain is fixed when the
    library is registered: use fresh SessionOptions)."""
    listed = _listed(so)
    if listed is not None and (ops is None or not set(ops) <= listed):
        missing = "every op" if ops is None else sorted(set(ops) - listed)
        raise ValueError(f"the custom ops are already registered on these SessionOptions for "
                         f"{sorted(listed)} only, not for {missing}: use fresh SessionOptions")


def session_options(
    base: ort.SessionOptions | None = None, ops: Iterable[str] | None = None
) -> ort.SessionOptions:
    """SessionOptions with the OneModel EP library registered.

    With `base`, the library is registered on that object (ORT's SessionOptions cannot be copied) and it is
    returned; registering it twice on the same object is harmless (ValueError if the first registration lacks
    some of `ops`). `ops`: the op types (ai.onemodel node op types, `custom_op_types`) to register, the others
    left out; a small session creates 9x to 84x faster (docs/architecture.md), and a node of an op not
    listed is an error ORT raises at session creation, naming the op. None: every op.
    """
    so = base if base is not None else ort.SessionOptions()
    names = None if ops is None else sorted({str(op) for op in ops})
    if names is not None and any("," in name for name in names):
        raise ValueError(f"custom op names cannot contain ',': {names}")
    if config_entry(so, _REGISTERED_KEY) == "1":
        _check_registered(so, names)
    else:
        if names is not None:
            so.add_session_config_entry(OPS_KEY, ",".join(names))  # read by RegisterCustomOps, below
        so.register_custom_ops_library(library_path())
        so.add_session_config_entry(_REGISTERED_KEY, "1")
        # ORT's level-1 WeightBiasQuantization quantizes a float weight (a DequantizeLinear folded into an
        # initializer: fold.py) with stock code and its own scale; it must not rewrite our graphs either
        disable_optimizers(so, [_STOCK_QUANTIZER])
    return so
