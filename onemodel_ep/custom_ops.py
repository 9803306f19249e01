"""The library as ORT's custom-op library: SessionOptions that run the `ai.onemodel` domain.

Both paths need it: the rewrite path (session.py) runs models rewritten to ai.onemodel, and the EP path
(ep.py) registers the custom ops too, so that a model already rewritten runs there as well.
"""

from __future__ import annotations

from collections.abc import Sequence

import onnxruntime as ort

from onemodel_ep._lib import library_path

_REGISTERED_KEY = "onemodel.registered"


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


def session_options(base: ort.SessionOptions | None = None) -> ort.SessionOptions:
    """SessionOptions with the OneModel EP library registered.

    With `base`, the library is registered on that object (ORT's SessionOptions cannot be copied) and it is
    returned; registering it twice on the same object is harmless.
    """
    so = base if base is not None else ort.SessionOptions()
    if config_entry(so, _REGISTERED_KEY) != "1":
        so.register_custom_ops_library(library_path())
        so.add_session_config_entry(_REGISTERED_KEY, "1")
        # ORT's level-1 WeightBiasQuantization quantizes a float weight (a DequantizeLinear folded into an
        # initializer: fold.py) with stock code and its own scale; it must not rewrite our graphs either
        disable_optimizers(so, [_STOCK_QUANTIZER])
    return so
