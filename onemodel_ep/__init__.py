"""OneModel EP: exact, bit-reproducible element-wise kernels for ONNX Runtime.

    import onemodel_ep
    sess = onemodel_ep.InferenceSession("model.onnx")           # OneModel's EP (or the rewrite), exact mode
    sess = onemodel_ep.InferenceSession("model.onnx", strict=True)  # StrictModeError: not all on OneModel
    so = onemodel_ep.ep_session_options()                       # a plain ORT session, OneModel's EP added
    model2 = onemodel_ep.rewrite(onnx.load("model.onnx"))       # or rewrite the model...
    so = onemodel_ep.session_options()                          # ...and run it in a plain ORT session
    report = onemodel_ep.diff_models("model.onnx")              # stock ORT vs OneModel EP (onemodel_ep.diff)

ORT's plugin-EP packaging convention: `get_library_path()`, `get_ep_names()`, `get_ep_name()`.
"""

from __future__ import annotations

from onemodel_ep._lib import (
    DOMAIN,
    EP_NAME,
    get_ep_name,
    get_ep_names,
    get_library_path,
    kernel_paths,
    library_path,
    op_table,
)
from onemodel_ep.custom_ops import session_options
from onemodel_ep.diff import diff_models
from onemodel_ep.digests import BITS_VERSION
from onemodel_ep.ep import ep_session_options, ep_supported
from onemodel_ep.errors import StrictModeError
from onemodel_ep.report import EpReport, NodeReport, RewriteReport
from onemodel_ep.rewriter import rewrite
from onemodel_ep.session import InferenceSession, load_model
from onemodel_ep.version import __version__

__all__ = [
    "BITS_VERSION",
    "DOMAIN",
    "EP_NAME",
    "EpReport",
    "InferenceSession",
    "NodeReport",
    "RewriteReport",
    "StrictModeError",
    "__version__",
    "diff_models",
    "ep_session_options",
    "ep_supported",
    "get_ep_name",
    "get_ep_names",
    "get_library_path",
    "kernel_paths",
    "library_path",
    "load_model",
    "op_table",
    "rewrite",
    "session_options",
]
