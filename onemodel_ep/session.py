"""Sessions: SessionOptions with the library registered, and a drop-in InferenceSession."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any, Union

import onnx
import onnxruntime as ort

from onemodel_ep._lib import library_path
from onemodel_ep.rewriter import RewriteReport, rewrite

_REGISTERED_KEY = "onemodel.registered"
ModelLike = Union[str, "os.PathLike[str]", bytes, onnx.ModelProto]


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
    return so


def load_model(model: ModelLike) -> onnx.ModelProto:
    """A ModelProto from a path, serialized bytes or a ModelProto (which is not modified)."""
    if isinstance(model, onnx.ModelProto):
        return model
    if isinstance(model, (bytes, bytearray)):
        return onnx.load_model_from_string(bytes(model))
    if isinstance(model, (str, os.PathLike)):
        return onnx.load(os.fspath(model))
    raise TypeError(f"expected a path, bytes or onnx.ModelProto, got {type(model).__name__}")


class InferenceSession(ort.InferenceSession):
    """onnxruntime.InferenceSession over the rewritten model, with the library registered.

    `rewrite_report` says which nodes run on OneModel EP kernels and why the others stayed with stock ORT.
    """

    def __init__(
        self,
        model: ModelLike,
        sess_options: ort.SessionOptions | None = None,
        providers: Sequence[Any] | None = None,
        mode: str = "exact",
        kernel_path: str | None = None,
        **kwargs: Any,
    ) -> None:
        self.rewrite_report = RewriteReport(mode, kernel_path)
        rewritten = rewrite(load_model(model), mode=mode, kernel_path=kernel_path, report=self.rewrite_report)
        self.rewritten_model = rewritten
        super().__init__(
            rewritten.SerializeToString(),
            sess_options=session_options(sess_options),
            providers=list(providers) if providers is not None else ["CPUExecutionProvider"],
            **kwargs,
        )
