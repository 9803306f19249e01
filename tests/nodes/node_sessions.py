"""One-node models run every way: both ways in (the rewrite to ai.onemodel, and OneModel as an execution
provider where ORT supports it) on every kernel path at one thread and the default path at two, and through
stock ORT; with the bit-for-bit comparison the node tests make of their outputs."""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx
import onnxruntime as ort
from onnx import helper

import onemodel_ep
from onemodel_ep.node import Node
from tests.reference import reference_linalg as R

PATHS = onemodel_ep.kernel_paths()
VIAS = ("rewrite", "ep") if onemodel_ep.ep_supported() else ("rewrite",)


def session(model: onnx.ModelProto, via: str, path: str | None, threads: int) -> onemodel_ep.InferenceSession:
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.log_severity_level = 3
    return onemodel_ep.InferenceSession(model, so, mode="exact", kernel_path=path, via=via)


def runs(model: onnx.ModelProto, feeds: dict[str, np.ndarray], op: str) -> dict[str, list[np.ndarray]]:
    """The outputs of every way in, kernel path and thread count, after checking that the node `op` ran on
    OneModel's kernels."""
    out: dict[str, list[np.ndarray]] = {}
    plan = [(via, p, 1) for via in VIAS for p in PATHS] + [(via, None, 2) for via in VIAS]
    for via, path, threads in plan:
        sess = session(model, via, path, threads)
        assert [n.op for n in sess.report.moved] == [op], (via, path, sess.report.summary())
        out[f"via {via}, path {path or 'auto'}, {threads} thread(s)"] = sess.run(None, feeds)
    return out


def same_bits_every_way(model: onnx.ModelProto, feeds: dict[str, np.ndarray], op: str) -> list[np.ndarray]:
    """The outputs, after checking that every way in, kernel path and thread count (`runs`) gives the same
    bits as the first."""
    every = runs(model, feeds, op)
    first_key = next(iter(every))
    first = every[first_key]
    for where, got in every.items():
        for k, (g, w) in enumerate(zip(got, first, strict=True)):
            assert_exact_bits(f"{op} output {k} {where} vs {first_key}", g, w)
    return first


def assert_bits(what: str, got: np.ndarray, want: np.ndarray) -> None:
    assert got.dtype == want.dtype and got.shape == want.shape, (
        what,
        got.dtype,
        got.shape,
        want.dtype,
        want.shape,
    )
    bad = ~R.bits_equal(got, want)
    if bad.any():
        idx = tuple(np.argwhere(bad)[0])
        raise AssertionError(
            f"{what}: {int(bad.sum())} of {bad.size} differ, first at {idx}: {got[idx]!r} vs {want[idx]!r}"
        )


def assert_exact_bits(what: str, got: np.ndarray, want: np.ndarray) -> None:
    """The same dtype, shape and raw bits, NaNs included (their sign and payload too)."""
    assert got.dtype == want.dtype and got.shape == want.shape, (what, got.dtype, got.shape, want.dtype,
                                                                 want.shape)
    u = np.dtype(f"u{want.dtype.itemsize}")
    bad = got.view(u) != want.view(u)
    if bad.any():
        idx = tuple(int(v) for v in np.argwhere(bad)[0])
        raise AssertionError(f"{what}: {int(bad.sum())} of {bad.size} differ, first at {idx}: "
                             f"got 0x{int(got.view(u)[idx]):x}, want 0x{int(want.view(u)[idx]):x}")


def stock(model: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return sess.run(None, feeds)


def one_node_model(node: onnx.NodeProto, inputs: dict[str, np.ndarray], out_type: int, opset: int,
                   ir_version: int = 10, ms_opset: bool = False) -> onnx.ModelProto:
    """A model of `node` alone: graph inputs named and shaped as `inputs`, every output of element type
    `out_type` and unknown shape; the ONNX domain at `opset` (and com.microsoft at 1 with ms_opset)."""
    graph = helper.make_graph(
        [node], "g",
        [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(x.dtype), list(x.shape))
         for n, x in inputs.items()],
        [helper.make_tensor_value_info(n, out_type, None) for n in node.output])
    opsets = [helper.make_opsetid("", opset)]
    if ms_opset:
        opsets.append(helper.make_opsetid("com.microsoft", 1))
    return helper.make_model(graph, opset_imports=opsets, ir_version=ir_version)


def assert_runs_bits(what: str, model: onnx.ModelProto, feeds: dict[str, np.ndarray], op: str,
                     want: list[np.ndarray] | tuple[np.ndarray, ...]) -> None:
    """Every way in, kernel path and thread count (`runs`) gives the bits of `want`, output by output."""
    for where, got in runs(model, feeds, op).items():
        assert len(got) == len(want), (what, where, len(got), len(want))
        for k, (g, w) in enumerate(zip(got, want, strict=True)):
            assert_exact_bits(f"{what} output {k} {where}", g, w)


def assert_node_bits_every_path(what: str, op: str, types: list[int], ins: list[np.ndarray | None],
                                want: list[np.ndarray] | tuple[np.ndarray, ...], **node_args: Any) -> None:
    """The node API (`Node(op, types, kernel_path=path, **node_args)`) gives the bits of `want` (its first
    len(want) outputs) on every kernel path."""
    for path in PATHS:
        got = Node(op, types, kernel_path=path, **node_args).run_outputs(*ins, n_outputs=len(want))
        for k, (g, w) in enumerate(zip(got, want, strict=True)):
            assert_exact_bits(f"{what} output {k} path {path}", g, w)
