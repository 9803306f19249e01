"""Sessions for the EP's fusion tests (element-wise chains, producer-headed chains, the attention pattern):
a model from nodes, an EP session with fusion on or off, the nodes it ran, and the check that a fused model
gives the bits of the same nodes unfused and of the rewrite path."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import onnx
import onnxruntime as ort
from onnx import helper

import onemodel_ep
from onemodel_ep.ep import EP_NAME, ep_session_options
from tests.ep.ep_profile import op_names_run, profile_prefix
from tests.nodes.node_sessions import PATHS, assert_exact_bits


def make_model(
    nodes: Sequence[onnx.NodeProto],
    inputs: dict[str, tuple[int, Sequence[int | str]]],
    outputs: dict[str, tuple[int, Sequence[int | str] | None]],
    consts: Sequence[onnx.TensorProto] = (),
) -> onnx.ModelProto:
    g = helper.make_graph(
        list(nodes),
        "chain",
        [helper.make_tensor_value_info(k, t, s) for k, (t, s) in inputs.items()],
        [helper.make_tensor_value_info(k, t, s) for k, (t, s) in outputs.items()],
        list(consts),
    )
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 9
    return m


def ep_session(
    model: onnx.ModelProto,
    fuse: bool = True,
    path: str | None = None,
    threads: int = 1,
    mode: str = "exact",
    dispatch: str = "registry",
    profile: bool = False,
) -> ort.InferenceSession:
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.log_severity_level = 3
    so.enable_profiling = profile
    so.profile_file_prefix = profile_prefix()  # ORT names the file by the millisecond
    so = ep_session_options(so, mode=mode, kernel_path=path, dispatch=dispatch, custom_ops=False, fuse=fuse)
    return ort.InferenceSession(model.SerializeToString(), so, enable_fallback=0)


def run(model: onnx.ModelProto, f: dict[str, np.ndarray], **kw: object) -> list[np.ndarray]:
    return ep_session(model, **kw).run(None, f)  # type: ignore[arg-type]


def nodes_run(model: onnx.ModelProto, f: dict[str, np.ndarray], fuse: bool = True) -> list[str]:
    """The names of the nodes ORT ran (from its profile): a fused chain is one node named after the EP."""
    sess = ep_session(model, fuse=fuse, profile=True)
    sess.run(None, f)
    return op_names_run(sess)


def fused_names(names: list[str]) -> list[str]:
    return [n for n in names if n.startswith(EP_NAME)]


def rewrite_run(model: onnx.ModelProto, f: dict[str, np.ndarray]) -> list[np.ndarray]:
    so = ort.SessionOptions()
    so.log_severity_level = 3
    return onemodel_ep.InferenceSession(model, so, mode="exact", via="rewrite").run(None, f)


def check_fused(
    model: onnx.ModelProto, f: dict[str, np.ndarray], fused: int = 1, every_way: bool = False
) -> np.ndarray:
    """`fused` fused nodes ran; the output's bits equal the unfused EP's and the rewrite path's (and, when
    every_way, each kernel path's, fused and unfused, and 2 threads')."""
    assert len(fused_names(nodes_run(model, f))) == fused
    want = run(model, f, fuse=False)[0]
    assert_exact_bits("fused vs unfused", run(model, f)[0], want)
    assert_exact_bits("rewrite vs unfused", rewrite_run(model, f)[0], want)
    if every_way:
        for path in PATHS:
            assert_exact_bits(f"path {path}", run(model, f, path=path)[0], want)
            assert_exact_bits(f"unfused path {path}", run(model, f, path=path, fuse=False)[0], want)
        assert_exact_bits("2 threads", run(model, f, threads=2)[0], want)
    return want
