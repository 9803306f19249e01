"""The library as ORT's custom-op library: SessionOptions that run the `ai.onemodel` domain.

Both paths need it: the rewrite path (session.py) runs models rewritten to ai.onemodel, and the EP path
(ep.py) registers the custom ops too, so that a model already rewritten runs there as well.
"""

from __future__ import annotations

import onnxruntime as ort

from onemodel_ep._lib import library_path

_REGISTERED_KEY = "onemodel.registered"


_DISABLE_KEY = "optimization.disable_specified_optimizers"
_STOCK_QUANTIZER = "WeightBiasQuantization"


def session_options(base: ort.SessionOptions | None = None) -> ort.SessionOptions:
    """SessionOptions with the OneModel EP library registered.

    With `base`, the library is registered on that object (ORT's SessionOptions cannot be copied) and it is
    returned; registering it twice on the same object is harmless.
    """
    so = base if base is not None else ort.SessionOptions()
    try:
        registered = so.get_session_config_entry(_REGISTERED_KEY) == "1"
    except Exception:  # ORT raises when the key was never set
        registered = False
    if not registered:
        so.register_custom_ops_library(library_path())
        so.add_session_config_entry(_REGISTERED_KEY, "1")
        # ORT's level-1 WeightBiasQuantization quantizes a float weight (a DequantizeLinear folded into an
        # initializer: fold.py) with stock code and its own scale; it must not rewrite our graphs either
        try:
            disabled = so.get_session_config_entry(_DISABLE_KEY)
        except Exception:  # ORT raises when the key was never set
            disabled = ""
        names = [n.strip() for n in disabled.split(";") if n.strip()]
        if _STOCK_QUANTIZER not in names:
            so.add_session_config_entry(_DISABLE_KEY, ";".join([*names, _STOCK_QUANTIZER]))
    return so
