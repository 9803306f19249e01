"""Runs of one-node cases (movement_cases.Case) that the node tests of several families share: every way in
at 1 and 2 threads, the EP's compiled dispatch, and direct calls on every kernel path, each output compared
byte for byte with the case's expected one."""

from __future__ import annotations

import onnxruntime as ort

import onemodel_ep
from onemodel_ep import ep
from onemodel_ep.node import Node
from tests.nodes.movement_cases import Case, model_of, onnx_type
from tests.nodes.test_movement_ops import _ours, _same, _split

VIAS = ("rewrite", "ep") if onemodel_ep.ep_supported() else ("rewrite",)


def every_way_matches(cases: list[Case], opset: int) -> None:
    """The cases ORT can feed, in one model: every node moved, and its outputs the expected ones, through
    each way in at 1 and 2 threads."""
    for via in VIAS:
        for threads in (1, 2):
            one_way_matches(cases, opset, via, threads)


def one_way_matches(cases: list[Case], opset: int, via: str, threads: int) -> None:
    """The cases ORT can feed, in one model through one way in at `threads` threads: every node moved, and
    its output the expected one."""
    plain, _ = _split(cases)
    model, feeds = model_of(plain, opset)
    sess = _ours(model, via, threads)
    stayed = [str(n) for n in sess.report.nodes if not n.moved]
    assert not stayed, stayed
    for c, g in zip(plain, sess.run(None, feeds), strict=True):
        _same(f"{via} threads {threads}: {c.label()}", g, c.want[0])


def compiled_dispatch_matches(cases: list[Case], opset: int) -> None:
    """The same through the EP's compiled nodes (dispatch=compile), 2 threads: every node claimed."""
    plain, _ = _split(cases)
    model, feeds = model_of(plain, opset)
    so = ort.SessionOptions()
    so.log_severity_level = 3
    so.intra_op_num_threads = 2
    options = ep.ep_session_options(so, "exact", None, "compile")
    sess = ort.InferenceSession(model.SerializeToString(), options, enable_fallback=0)
    assert len(ep.claimed_names(ep.assignments(sess))) == len(plain)
    for c, g in zip(plain, sess.run(None, feeds), strict=True):
        _same(f"dispatch=compile: {c.label()}", g, c.want[0])


def direct_every_path_matches(cases: list[Case]) -> None:
    """Every case (bfloat16 included) called directly, with its attributes, on every kernel path."""
    for c in cases:
        types = [0 if x is None else onnx_type(x.dtype) for x in c.inputs]
        for path in onemodel_ep.kernel_paths():
            node = Node(c.op, types, onnx_opset=c.opset, attributes=c.attrs, kernel_path=path, name="m")
            _same(f"{c.label()} path {path}", node.run_outputs(*c.inputs)[0], c.want[0])
