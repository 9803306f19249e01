"""The model `onemodel diff` compares and its ORT sessions: stock ORT, OneModel EP through its execution
provider or rewritten; each failure a DiffError of one line."""

from __future__ import annotations

import os
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import Any, Union

import numpy as np
import onnx
import onnxruntime as ort

from onemodel_ep.custom_ops import custom_op_types, session_options
from onemodel_ep.ep import ep_session_options
from onemodel_ep.errors import DiffError, one_line
from onemodel_ep.rewriter import rewrite

ModelArg = Union[str, "os.PathLike[str]", bytes, onnx.ModelProto, None]


def example_model_path() -> Path:
    """The bundled example for `onemodel diff` with no MODEL (tools/gen/make_diff_example.py writes it)."""
    return Path(str(resources.files("onemodel_ep") / "examples" / "diff_demo.onnx"))


def load_model(model: ModelArg) -> tuple[onnx.ModelProto, str]:
    if model is None:
        m, _ = load_model(example_model_path())
        return m, "diff_demo.onnx (the bundled example)"
    if isinstance(model, onnx.ModelProto):
        return model, model.graph.name or "<model>"
    if isinstance(model, (bytes, bytearray)):
        try:
            return onnx.load_model_from_string(bytes(model)), "<bytes>"
        except Exception as e:
            raise DiffError(f"cannot read the model bytes as ONNX: {one_line(e, 400)}") from None
    if isinstance(model, (str, os.PathLike)):
        p = os.fspath(model)
        if not os.path.isfile(p):
            raise DiffError(f"no such model file: {p}")
        try:
            m = onnx.load(p)
        except Exception as e:
            raise DiffError(f"cannot read {p} as an ONNX model: {one_line(e, 400)}") from None
        if not m.HasField("graph") or not m.graph.output:
            raise DiffError(f"{p} is not an ONNX model with a graph and outputs")
        return m, p
    raise TypeError(f"model: expected a path, bytes or onnx.ModelProto, got {type(model).__name__}")


def _save_optimized(so: Any, path: str | None) -> None:
    """Have ORT save the graph it runs to `path` (its initializers beside it: a model of any size)."""
    if path:
        so.optimized_model_filepath = path
        so.add_session_config_entry(
            "session.optimized_model_external_initializers_file_name", os.path.basename(path) + ".data"
        )
        so.add_session_config_entry("session.optimized_model_external_initializers_min_size_in_bytes", "1024")


def session(model: onnx.ModelProto, onemodel: bool, what: str, optimized: str | None = None) -> Any:
    """A session of `model` (with the library registered if `onemodel`); `optimized`: where ORT saves the
    graph it runs, after its optimisations."""
    so = ort.SessionOptions()
    so.log_severity_level = 3
    _save_optimized(so, optimized)
    if onemodel:
        so = session_options(so, ops=custom_op_types(model))
    try:
        return ort.InferenceSession(
            model.SerializeToString(), sess_options=so, providers=["CPUExecutionProvider"]
        )
    except Exception as e:
        raise DiffError(f"{what} cannot load the model: {one_line(e, 400)}") from None


def ep_session(
    model: onnx.ModelProto, mode: str, kernel_path: str | None, what: str, optimized: str | None = None
) -> Any:
    """The unmodified `model` on OneModel's execution provider (and ORT's CPU EP for the rest). Where ORT is
    to save the graph it runs (`optimized`), a second session, with no fused chains, no QDQ groups and no
    constant groups of the EP, saves it (ORT cannot write compiled nodes out); the session returned is the
    plain one, whose bits the user gets (QDQ groups change them; fused chains do not:
    docs/architecture.md)."""

    def make(save: str | None) -> Any:
        so = ort.SessionOptions()
        so.log_severity_level = 3
        _save_optimized(so, save)
        so = ep_session_options(
            so, mode=mode, kernel_path=kernel_path, custom_ops=custom_op_types(model), fuse=save is None,
            qdq_groups=save is None, fold=save is None,
        )
        return ort.InferenceSession(model.SerializeToString(), sess_options=so, enable_fallback=0)

    try:
        if optimized is not None:
            make(optimized)
        return make(None)
    except Exception as e:
        raise DiffError(f"{what} cannot load the model: {one_line(e, 400)}") from None


def ours(model: onnx.ModelProto, mode: str, kernel_path: str | None, via: str, what: str) -> Any:
    """OneModel's session of the original `model`: through the EP, or rewritten."""
    if via == "ep":
        return ep_session(model, mode, kernel_path, what)
    return session(rewrite(model, mode=mode, kernel_path=kernel_path), True, what)


def run(sess: Any, feeds: Mapping[str, np.ndarray], names: list[str], what: str) -> dict[str, Any]:
    try:
        outs = sess.run(names, dict(feeds))
    except Exception as e:
        raise DiffError(f"{what} cannot run the model: {one_line(e, 400)}") from None
    return dict(zip(names, outs))


def optimized_graph(path: str | None) -> onnx.GraphProto | None:
    """The main graph ORT saved after its optimisations (None when it saved none)."""
    if not path or not os.path.isfile(path):
        return None
    try:
        return onnx.load(path, load_external_data=False).graph
    except Exception:
        return None
