"""Split (node_split.c, docs/data-movement.md) through the execution provider and the rewrite path against
stock ONNX Runtime and NumPy (np.split at the running sums of the sizes), byte for byte, at opsets 11
(`split` attribute), 13 (`split` input, fed or an initializer, or absent: the even split) and 18 (and
`num_outputs`, the last chunk smaller), over every stored type: zero-size pieces and dimensions, negative
axes, 24 outputs, copies of more than one parallel block on 1 and 2 threads. Direct calls (no ORT) cover
every kernel path; the compiled-node dispatch too. Bad nodes are refused at creation and bad inputs fail at
run time with node and op named; a Split with more outputs than served stays with stock ORT.
"""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

import onemodel_ep
from onemodel_ep import ep
from onemodel_ep.node import Node, NodeError
from tests.nodes.movement_cases import Case, bits, model_of, onnx_type, types_at
from tests.nodes.test_movement_ops import _ours, _same, _split, _stock

VIAS = ("rewrite", "ep") if onemodel_ep.ep_supported() else ("rewrite",)
OPSETS = (11, 13, 18)
MAX_OUTPUTS = 256


def chunk_sizes(d: int, m: int) -> list[int]:
    """num_outputs = m as the contract states it: ceil(d / m) each, the last d - ceil(d / m) * (m - 1)."""
    c = -(-d // m)
    return [c] * (m - 1) + [d - c * (m - 1)]


def pieces(x: np.ndarray, axis: int, sizes: list[int]) -> list[np.ndarray]:
    """Output k: the input's elements P[k] .. P[k] + sizes[k] on axis (P the running sum)."""
    return np.split(x, np.cumsum(sizes)[:-1].tolist(), axis=axis)


# (input shape, axis, sizes, how the node gives them: "list" (attribute or input), "even" (nothing), "chunks"
# (num_outputs, opset 18))
BASE = [
    ((2, 6, 4), 1, [1, 2, 3], "list"),
    ((6,), 0, [2, 2, 2], "even"),
    ((3, 4), -1, [0, 4], "list"),
    ((2, 0, 3), 2, [1, 2], "list"),
    ((2, 0, 3), 1, [0, 0], "even"),
    ((1, 5, 48), -1, [2] * 24, "even"),
    ((4, 300, 257), 1, [100, 150, 50], "list"),
    ((1200, 9), 1, [4, 5], "list"),
    ((5,), 0, [5], "even"),
]
CHUNKS = [((7, 5), 0, 3), ((5, 3), 0, 5), ((2, 11, 3), -2, 4), ((1, 128, 300), -1, 3), ((9,), 0, 1)]


def split_cases(opset: int) -> list[Case]:
    types = types_at("Split", opset)
    base = list(BASE)
    if opset >= 18:
        base += [(shape, axis, chunk_sizes(shape[axis], m), "chunks") for shape, axis, m in CHUNKS]
    out = []
    for i, (shape, axis, sizes, how) in enumerate(base):
        if how == "even" and opset >= 18 and 0 in sizes:  # num_outputs: a chunk of 0 is an error
            continue
        chosen = types if i < 2 else (types[(i * 5) % len(types)], types[(i * 5 + 3) % len(types)])
        for k, t in enumerate(chosen):
            x = bits(shape, t, 7 * i + k)
            attrs: dict[str, object] = {"axis": axis}
            inputs: list[np.ndarray | None] = [x]
            const = [False]
            if how == "chunks" or (how == "even" and opset >= 18):  # from 18 one of them is required
                attrs["num_outputs"] = len(sizes)
            elif how == "list" and opset < 13:
                attrs["split"] = sizes
            elif how == "list":
                inputs.append(np.array(sizes, np.int64))
                const.append(k % 2 == 0)
            out.append(Case("Split", opset, inputs, const, attrs, pieces(x, axis, sizes)))
    return out


def _direct(c: Case, path: str | None = None) -> list[np.ndarray]:
    types = [onnx_type(x.dtype) for x in c.inputs if x is not None]
    node = Node("Split", types, onnx_opset=c.opset, attributes=c.attrs, kernel_path=path, name="m",
                n_outputs=len(c.want))
    return node.run_outputs(*c.inputs)


@pytest.mark.parametrize("opset", OPSETS)
def test_split_contract_is_stock_orts(opset: int) -> None:
    cases, _ = _split(split_cases(opset))
    model, feeds = model_of(cases, opset)
    outs = [(c, w) for c in cases for w in c.want]
    for (c, w), s in zip(outs, _stock(model, feeds), strict=True):
        _same(f"stock ORT vs the contract: {c.label()}", s, w)


@pytest.mark.parametrize("opset", OPSETS)
@pytest.mark.parametrize("via", VIAS)
@pytest.mark.parametrize("threads", (1, 2))
def test_split_ep_and_rewrite_match_contract(opset: int, via: str, threads: int) -> None:
    cases, _ = _split(split_cases(opset))
    model, feeds = model_of(cases, opset)
    sess = _ours(model, via, threads)
    stayed = [str(n) for n in sess.report.nodes if not n.moved]
    assert not stayed, stayed
    outs = [(c, w) for c in cases for w in c.want]
    for (c, w), g in zip(outs, sess.run(None, feeds), strict=True):
        _same(f"{via} threads {threads}: {c.label()}", g, w)


@pytest.mark.parametrize("opset", OPSETS)
def test_split_direct_every_type_and_path(opset: int) -> None:
    """bfloat16 included; constant split inputs handed to the node first."""
    for c in split_cases(opset):
        for path in onemodel_ep.kernel_paths():
            got = _direct(c, path)
            assert len(got) == len(c.want), c.label()
            for g, w in zip(got, c.want):
                _same(f"{c.label()} path {path}", g, w)


@pytest.mark.skipif("ep" not in VIAS, reason="ORT without plugin execution providers")
def test_split_compiled_dispatch_matches() -> None:
    cases, _ = _split(split_cases(18))
    model, feeds = model_of(cases, 18)
    so = ort.SessionOptions()
    so.log_severity_level = 3
    so.intra_op_num_threads = 2
    options = ep.ep_session_options(so, "exact", None, "compile")
    got = ort.InferenceSession(model.SerializeToString(), options, enable_fallback=0).run(None, feeds)
    outs = [(c, w) for c in cases for w in c.want]
    for (c, w), g in zip(outs, got, strict=True):
        _same(f"dispatch=compile: {c.label()}", g, w)


F32, I64 = TensorProto.FLOAT, TensorProto.INT64


@pytest.mark.parametrize(
    "types,opset,attrs,n_outputs,msg",
    [
        ([F32], 18, {"num_outputs": 3}, 2, "num_outputs is 3, the node has 2 outputs"),
        ([F32], 18, {"num_outputs": 0}, 2, "num_outputs is 0"),
        ([F32], 13, {"num_outputs": 2}, 2, "num_outputs needs opset 18"),
        ([F32, I64], 18, {"num_outputs": 2}, 2, "split and num_outputs are both given"),
        ([F32], 13, {"split": [1, 1]}, 2, "attribute split is an input from opset 13"),
        ([F32, I64], 11, {}, 2, "input 1 \\(split\\) needs opset 13"),
        ([F32], 11, {"split": [1, -1]}, 2, "split\\[1\\] is -1, negative"),
        ([F32], 11, {"split": [1, 2, 3]}, 2, "split has 3 entries, the node has 2 outputs"),
        ([F32], 13, {}, 0, "the number of outputs is not known"),
        ([F32], 18, {}, 2, "neither split nor num_outputs is given"),
        ([F32], 13, {}, MAX_OUTPUTS + 1, f"{MAX_OUTPUTS + 1} outputs, more than the {MAX_OUTPUTS} served"),
        ([F32, F32], 13, {}, 2, "type"),
        ([TensorProto.STRING], 13, {}, 2, "type"),
    ],
)
def test_split_creation_errors(types: list[int], opset: int, attrs: dict[str, object], n_outputs: int,
                               msg: str) -> None:
    with pytest.raises(NodeError, match=msg) as e:
        Node("Split", types, onnx_opset=opset, attributes=attrs, name="bad", n_outputs=n_outputs)
    assert "'bad'" in str(e.value) and "Split" in str(e.value)


@pytest.mark.parametrize(
    "shape,opset,attrs,split,n_outputs,msg",
    [
        ((7,), 13, {}, None, 2, "dimension 7 on the axis does not split evenly into 2 outputs"),
        ((7,), 13, {}, [3, 3], 2, "do not add up to dimension 7"),
        ((7,), 13, {}, [8, 0], 2, "do not add up to dimension 7"),
        ((7,), 13, {}, [3, 3, 1], 2, "input 1 \\(split\\) has 3 entries, the node has 2 outputs"),
        ((7,), 13, {}, [8, -1], 2, "input 1 \\(split\\)\\[1\\] is -1, negative"),
        ((5,), 18, {"num_outputs": 4}, None, 4, "cannot be cut into num_outputs = 4"),
        ((6,), 18, {"num_outputs": 4}, None, 4, "cannot be cut into num_outputs = 4"),
        ((3,), 18, {"num_outputs": 4}, None, 4, "cannot be cut into num_outputs = 4"),
        ((2, 3), 13, {"axis": 2}, None, 2, "axis 2 is out of range for rank 2"),
        ((), 13, {}, None, 1, "out of range for rank 0"),
    ],
)
def test_split_run_errors(shape: tuple[int, ...], opset: int, attrs: dict[str, object],
                          split: list[int] | None, n_outputs: int, msg: str) -> None:
    x = np.zeros(shape, np.float32)
    inputs: list[np.ndarray | None] = [x] if split is None else [x, np.array(split, np.int64)]
    node = Node("Split", [F32] + ([I64] if split is not None else []), onnx_opset=opset, attributes=attrs,
                name="bad", n_outputs=n_outputs)
    with pytest.raises(NodeError, match=msg) as e:
        node.run_outputs(*inputs)
    assert "'bad'" in str(e.value) and "Split" in str(e.value)


def test_split_input_of_rank_two_fails() -> None:
    node = Node("Split", [F32, I64], onnx_opset=13, name="bad", n_outputs=2)
    with pytest.raises(NodeError, match="input 1 \\(split\\) must be 1-D, it has rank 2"):
        node.run_outputs(np.zeros(4, np.float32), np.array([[2, 2]], np.int64))


def test_split_empty_split_input_is_the_even_split() -> None:
    """An empty split input: the even split, as stock ORT takes it."""
    x = bits((6, 2), np.dtype(np.float32), 3)
    c = Case("Split", 13, [x, np.zeros(0, np.int64)], [False, False], {}, pieces(x, 0, [2, 2, 2]))
    for g, w in zip(_direct(c), c.want, strict=True):
        _same(c.label(), g, w)
    model, feeds = model_of([c], 13)
    for via in VIAS:
        for g, w in zip(_ours(model, via, 1).run(None, feeds), c.want, strict=True):
            _same(f"{via}: {c.label()}", g, w)


def _wide_split(n: int) -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    x = bits((2, n), np.dtype(np.float32), 5)
    c = Case("Split", 13, [x], [False], {"axis": 1}, pieces(x, 1, [1] * n))
    return model_of([c], 13)


@pytest.mark.parametrize("via", VIAS)
def test_split_of_the_most_outputs_served(via: str) -> None:
    model, feeds = _wide_split(MAX_OUTPUTS)
    sess = _ours(model, via, 2)
    assert all(n.moved for n in sess.report.nodes), [str(n) for n in sess.report.nodes]
    for g, s in zip(sess.run(None, feeds), _stock(model, feeds), strict=True):
        _same(f"{via}: Split into {MAX_OUTPUTS}", g, s)


@pytest.mark.parametrize("via", VIAS)
def test_split_of_more_outputs_stays_with_stock_ort(via: str) -> None:
    model, feeds = _wide_split(MAX_OUTPUTS + 1)
    sess = _ours(model, via, 1)
    (node,) = sess.report.nodes
    assert not node.moved
    assert f"{MAX_OUTPUTS + 1} outputs, more than the {MAX_OUTPUTS} served" in str(node)
    for g, s in zip(sess.run(None, feeds), _stock(model, feeds), strict=True):
        _same(f"{via}: Split into {MAX_OUTPUTS + 1}", g, s)


@pytest.mark.parametrize("via", VIAS)
def test_split_run_error_names_node_and_op(via: str) -> None:
    x = helper.make_tensor_value_info("x", F32, ["N"])
    ys = [helper.make_tensor_value_info(f"y{k}", F32, None) for k in range(2)]
    node = helper.make_node("Split", ["x"], ["y0", "y1"], name="halves", axis=0)
    model = helper.make_model(helper.make_graph([node], "g", [x], ys), ir_version=8,
                              opset_imports=[helper.make_opsetid("", 13)])
    sess = _ours(model, via, 1)
    assert all(n.moved for n in sess.report.nodes)
    with pytest.raises(Exception, match="halves.*Split.*does not split evenly") as e:
        sess.run(None, {"x": np.zeros(5, np.float32)})
    assert "halves" in str(e.value)
