"""Sessions: SessionOptions with the library registered, and a drop-in InferenceSession."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any, Union

import onnx
import onnxruntime as ort

from onemodel_ep import external_data
from onemodel_ep._lib import library_path
from onemodel_ep.ep import ep_report, ep_session_options, ep_supported
from onemodel_ep.rewriter import RewriteReport, rewrite

_REGISTERED_KEY = "onemodel.registered"
ModelLike = Union[str, "os.PathLike[str]", bytes, onnx.ModelProto]
VIAS = ("ep", "rewrite")


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


# ORT reads a model's external data from this folder when the model comes as bytes (ORT 1.19 and newer).
_EXTERNAL_FOLDER_KEY = "session.model_external_initializers_file_folder_path"


def _read(model: ModelLike) -> tuple[onnx.ModelProto, str | None]:
    """The model and, for a path whose tensors live in external data files, the folder that holds them.

    Such a model is loaded without its external data: ORT reads the weights from their files, so they are
    held once (by ORT), not also by a Python ModelProto.
    """
    if not isinstance(model, (str, os.PathLike)):
        return load_model(model), None
    path = os.fspath(model)
    proto = onnx.load(path, load_external_data=False)
    return proto, (os.path.dirname(os.path.abspath(path)) if external_data.locations(proto) else None)


def default_via() -> str:
    """"ep" where the installed ONNX Runtime can load OneModel as an execution provider, else "rewrite"."""
    return "ep" if ep_supported() else "rewrite"


class InferenceSession(ort.InferenceSession):
    """onnxruntime.InferenceSession running every node OneModel EP serves on its kernels.

    via="ep" (the default where ONNX Runtime supports it, 1.24+): the unmodified model, with OneModel's
    plugin execution provider in front of ORT's CPU EP (`onemodel_ep.ep_session_options`). via="rewrite":
    the model rewritten to the ai.onemodel custom-op domain (`rewritten_model`; for a model file with
    external data its graph alone, whose tensors still name their data files, which ORT reads from the
    model's folder: the weights are never loaded into Python). `report` (also
    `rewrite_report`) says which nodes run on OneModel EP kernels and why the others stayed with stock ORT.
    With via="ep", `sess_options` (if given) gets the EP added and `providers` must be left out.
    """

    def __init__(
        self,
        model: ModelLike,
        sess_options: ort.SessionOptions | None = None,
        providers: Sequence[Any] | None = None,
        mode: str = "exact",
        kernel_path: str | None = None,
        via: str | None = None,
        **kwargs: Any,
    ) -> None:
        via = default_via() if via is None else via
        if via not in VIAS:
            raise ValueError(f"via must be one of {VIAS}, got {via!r}")
        self.via = via
        proto, data_folder = _read(model)
        self.rewritten_model: onnx.ModelProto | None = None
        if via == "ep":
            if providers is not None:
                raise ValueError("via='ep' takes no providers: OneModel's EP and the CPU EP run the model")
            so = ep_session_options(sess_options, mode=mode, kernel_path=kernel_path)
            source = os.fspath(model) if isinstance(model, (str, os.PathLike)) else proto.SerializeToString()
            kwargs.setdefault("enable_fallback", 0)  # an EP error is an error, not a silent run on stock ORT
            super().__init__(source, sess_options=so, **kwargs)
            self.report: RewriteReport = ep_report(proto, self, mode, kernel_path)
        else:
            self.report = RewriteReport(mode, kernel_path)
            rewritten = rewrite(proto, mode=mode, kernel_path=kernel_path, report=self.report)
            self.rewritten_model = rewritten
            so = session_options(sess_options)
            if data_folder is not None:
                so.add_session_config_entry(_EXTERNAL_FOLDER_KEY, data_folder)
            super().__init__(
                rewritten.SerializeToString(),
                sess_options=so,
                providers=list(providers) if providers is not None else ["CPUExecutionProvider"],
                **kwargs,
            )
        self.rewrite_report = self.report
