"""The data-movement ops (Reshape, Unsqueeze, Squeeze, Flatten, Identity, Shape, Transpose, Concat, Gather,
Slice, Expand) through the execution provider and the rewrite path against stock ONNX Runtime and NumPy:
byte for byte (a copy moves every bit, NaN payloads included), at every opset where the op's ONNX definition
changed, over every stored type, integer inputs as initializers and fed at run time, zero-size dimensions
and rank 0, 1 and 2 threads (copies of more than one parallel chunk). Direct calls (no ORT) cover every
kernel path and the compiled-node dispatch.
"""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest

import onemodel_ep
from onemodel_ep.node import Node
from tests.nodes.movement_cases import BF16, CASES, OPSETS, Case, model_of, onnx_type

VIAS = ("rewrite", "ep") if onemodel_ep.ep_supported() else ("rewrite",)
PARAMS = [(op, opset) for op in CASES for opset in OPSETS[op]]


def _stock(model: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
    so = ort.SessionOptions()
    so.log_severity_level = 3
    sess = ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
    return sess.run(None, feeds)


def _ours(model: onnx.ModelProto, via: str, threads: int) -> onemodel_ep.InferenceSession:
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.log_severity_level = 3
    return onemodel_ep.InferenceSession(model, sess_options=so, mode="exact", via=via)


def _same(what: str, got: np.ndarray, want: np.ndarray) -> None:
    assert (got.dtype, got.shape) == (want.dtype, want.shape), what
    assert got.tobytes() == want.tobytes(), what


def _split(cases: list[Case]) -> tuple[list[Case], list[Case]]:
    """The cases ORT's Python binding can feed and read (no bfloat16), and the others."""

    def plain(c: Case) -> bool:
        return all(x is None or x.dtype != BF16 for x in c.inputs) and all(w.dtype != BF16 for w in c.want)

    return [c for c in cases if plain(c)], [c for c in cases if not plain(c)]


@pytest.mark.parametrize("op,opset", PARAMS)
def test_ep_and_rewrite_match_stock_bit_for_bit(op: str, opset: int) -> None:
    cases, _ = _split(CASES[op](opset))
    model, feeds = model_of(cases, opset)
    stock = _stock(model, feeds)
    outs = [w for c in cases for w in c.want]
    for k, (s, w) in enumerate(zip(stock, outs)):
        _same(f"stock ORT vs NumPy, output {k} of {op}-{opset}", s, w)
    for via in VIAS:
        for threads in (1, 2):
            sess = _ours(model, via, threads)
            stayed = [str(n) for n in sess.report.nodes if not n.moved]
            assert not stayed, stayed
            got = sess.run(None, feeds)
            for k, (g, s) in enumerate(zip(got, stock)):
                _same(f"{via} threads {threads}: {cases[k].label()}", g, s)


@pytest.mark.parametrize("op,opset", PARAMS)
def test_direct_every_type_and_path(op: str, opset: int) -> None:
    """Every case, bfloat16 included, called directly on every kernel path; constant integer inputs handed to
    the node first (om_node_set_constant_input)."""
    for c in CASES[op](opset):
        types = [0 if x is None else onnx_type(x.dtype) for x in c.inputs]
        for path in onemodel_ep.kernel_paths():
            node = Node(op, types, onnx_opset=opset, attributes=c.attrs, kernel_path=path, name="m")
            got = node.run_outputs(*c.inputs)
            for g, w in zip(got, c.want):
                _same(f"{c.label()} path {path}", g, w)


@pytest.mark.skipif("ep" not in VIAS, reason="ORT without plugin execution providers")
@pytest.mark.parametrize("op", list(CASES))
def test_compiled_dispatch_matches(op: str) -> None:
    from tests.nodes.case_runs import compiled_dispatch_matches  # built on this module's helpers

    opset = OPSETS[op][-1]
    compiled_dispatch_matches(CASES[op](opset), opset)
