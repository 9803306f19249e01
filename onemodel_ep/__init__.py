"""OneModel EP: exact, bit-reproducible element-wise kernels for ONNX Runtime.

    import onemodel_ep
    sess = onemodel_ep.InferenceSession("model.onnx")           # OneModel's EP (or the rewrite), exact mode
    so = onemodel_ep.ep_session_options()                       # a plain ORT session, OneModel's EP added
    model2 = onemodel_ep.rewrite(onnx.load("model.onnx"))       # or rewrite the model...
    so = onemodel_ep.session_options()                          # ...and run it in a plain ORT session
"""

from __future__ import annotations

from onemodel_ep._lib import DOMAIN, kernel_paths, library_path, op_table
from onemodel_ep.diff import diff
from onemodel_ep.digests import BITS_VERSION
from onemodel_ep.ep import EP_NAME, EpReport, ep_session_options, ep_supported
from onemodel_ep.rewriter import NodeReport, RewriteReport, rewrite
from onemodel_ep.session import InferenceSession, load_model, session_options

__version__ = "0.1.0"

__all__ = [
    "BITS_VERSION",
    "DOMAIN",
    "EP_NAME",
    "EpReport",
    "InferenceSession",
    "NodeReport",
    "RewriteReport",
    "__version__",
    "diff",
    "ep_session_options",
    "ep_supported",
    "kernel_paths",
    "library_path",
    "load_model",
    "op_table",
    "rewrite",
    "session_options",
]
