"""Sessions: SessionOptions with the library registered, and a drop-in InferenceSession."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from typing import Any, Union

import onnx
import onnxruntime as ort

from onemodel_ep import external_data
from onemodel_ep import strict as strict_mode
from onemodel_ep.custom_ops import custom_op_types, session_options
from onemodel_ep.ep import assignments, ep_report, ep_session_options, ep_supported
from onemodel_ep.fold import fold as fold_constants
from onemodel_ep.inference import Inferred
from onemodel_ep.qdq_unique import unique_dq
from onemodel_ep.report import RewriteReport
from onemodel_ep.rewriter import rewrite

__all__ = ["VIAS", "InferenceSession", "ModelLike", "default_via", "load_model", "session_options"]
ModelLike = Union[str, "os.PathLike[str]", bytes, onnx.ModelProto]
VIAS = ("ep", "rewrite")
# A rewritten model larger than this (inline weights) goes to ORT as a temporary file, not as bytes.
_SPILL_BYTES = 16 << 20


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
    the model rewritten to the ai.onemodel custom-op domain (`rewritten_model`: its graph, initializers over
    64 KiB with their names, types and dims but not their data, which only ORT holds; `onemodel_ep.rewrite`
    gives the whole model. For a model file with external data, the tensors still name their data files,
    which ORT reads from the model's folder: the weights are never loaded into Python). `report` (also
    `rewrite_report`) says which nodes run on OneModel EP kernels and why the others stayed with stock ORT.
    With via="ep", `sess_options` (if given) gets the EP added and `providers` must be left out.
    strict=True (or `sess_options` with onemodel_ep.ep.STRICT_KEY set): a model with a computing node that
    would run outside OneModel EP is refused with one StrictModeError naming each (onemodel_ep.strict).
    fold=True (the default): every node of the main graph OneModel serves whose inputs are all constant is
    computed once, here, by OneModel's kernels (onemodel_ep.fold, docs/constant-folding.md) and reported
    with category "folded"; either path, the same bits as unfolded. fold=False turns the EP's own folding off
    too (EP option fold="0", docs/constant-folding.md, "In the EP"): nothing is folded.
    """

    def __init__(
        self,
        model: ModelLike,
        sess_options: ort.SessionOptions | None = None,
        providers: Sequence[Any] | None = None,
        mode: str = "exact",
        kernel_path: str | None = None,
        via: str | None = None,
        strict: bool = False,
        fold: bool = True,
        **kwargs: Any,
    ) -> None:
        strict = strict or strict_mode.strict_requested(sess_options)
        via = default_via() if via is None else via
        if via not in VIAS:
            raise ValueError(f"via must be one of {VIAS}, got {via!r}")
        self.via = via
        proto, data_folder = _read(model)
        owned = not isinstance(model, onnx.ModelProto)  # loaded here: changed in place, no copy
        folded = RewriteReport(mode, kernel_path)
        n_nodes = len(proto.graph.node)
        before = proto
        # QDQ groups see a DequantizeLinear per reader, either way in (onemodel_ep.qdq_unique)
        proto = unique_dq(proto, in_place=owned)
        copied = proto is not before or len(proto.graph.node) != n_nodes
        owned = owned or proto is not before
        # ONNX inference for the QDQ grouping, run at most once: folding's and the rewrite's read one graph
        inference = Inferred(proto)
        if fold:
            before = proto
            proto = fold_constants(proto, mode=mode, kernel_path=kernel_path, report=folded, in_place=owned,
                                   inference=inference)
            owned = owned or proto is not before
            del before
            if folded.nodes:  # the graph changed: the rewrite's grouping infers anew
                inference = Inferred(proto)
        self.rewritten_model: onnx.ModelProto | None = None
        if via == "ep":
            if providers is not None:
                raise ValueError("via='ep' takes no providers: OneModel's EP and the CPU EP run the model")
            so = ep_session_options(sess_options, mode=mode, kernel_path=kernel_path,
                                    custom_ops=custom_op_types(proto), fold=fold)
            source: str | bytes
            if folded.nodes or copied:  # ORT gets the model changed here; its external data stays put
                source = proto.SerializeToString()
                if data_folder is not None:
                    so.add_session_config_entry(_EXTERNAL_FOLDER_KEY, data_folder)
            elif isinstance(model, (str, os.PathLike)):
                source = os.fspath(model)
            elif isinstance(model, (bytes, bytearray)):
                source = bytes(model)
            else:
                source = proto.SerializeToString()
            # The report needs the graph, not the weights: keep a weight-free skeleton and drop the full
            # ModelProto before ORT loads its own copy, so the weights are held once, by ORT.
            graph_only = external_data.skeleton(proto, external_data.SHAPE_BYTES)
            del proto, inference
            kwargs.setdefault("enable_fallback", 0)  # an EP error is an error, not a silent run on stock ORT
            super().__init__(source, sess_options=so, **kwargs)
            del source
            self.report: RewriteReport = ep_report(graph_only, self, mode, kernel_path)
            self.report.nodes[:0] = folded.nodes
            if strict:
                strict_mode.check(strict_mode.outside_ep(self.report, assignments(self)))
        else:
            self.report = folded
            rewritten = rewrite(proto, mode=mode, kernel_path=kernel_path, report=self.report, in_place=owned,
                                inference=inference)
            del inference  # it holds the model
            if strict:
                strict_mode.check(strict_mode.outside_rewrite(self.report, rewritten))
            del proto
            # Kept for inspection without the weights (ORT holds those): one copy of them, not two.
            self.rewritten_model = external_data.skeleton(rewritten, external_data.SHAPE_BYTES)
            so = session_options(sess_options, ops=custom_op_types(rewritten))  # only those: 9x to 84x faster
            if data_folder is not None:
                so.add_session_config_entry(_EXTERNAL_FOLDER_KEY, data_folder)
            providers = list(providers) if providers is not None else ["CPUExecutionProvider"]
            if data_folder is None and external_data.inline_bytes(rewritten) > _SPILL_BYTES:
                # Inline weights: serialised, they would be a second copy beside the model (and ORT keeps
                # bytes it is given for the session's life). Written tensor by tensor to a data file
                # (external_data.offload), they are held once at a time: by this model, then by ORT.
                with tempfile.TemporaryDirectory(prefix="onemodel-") as tmp:
                    path = os.path.join(tmp, "rewritten.onnx")
                    if not owned:
                        copy = onnx.ModelProto()
                        copy.CopyFrom(rewritten)
                        rewritten = copy
                    external_data.offload(rewritten, tmp, "weights.bin")
                    onnx.save_model(rewritten, path)
                    del rewritten
                    super().__init__(path, sess_options=so, providers=providers, **kwargs)
            else:
                serialized = rewritten.SerializeToString()
                del rewritten
                super().__init__(serialized, sess_options=so, providers=providers, **kwargs)
        self.rewrite_report = self.report
