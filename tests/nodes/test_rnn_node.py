"""LSTM and GRU (node_rnn.c over rnn/rnn_step.c and the GEMM): docs/recurrent.md. Every way in, kernel
path and thread count gives the same bits; a row gives the same bits alone as in a batch; constant (packed)
and run-time weights agree; the results match tests/reference/rnn_reference.py (ONNX's definition in float64)
and stock ORT within 1e-5 relative plus 1e-6 absolute; what is not served stays with stock ORT, named."""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto

from onemodel_ep.node import Node, NodeError
from tests.nodes import node_sessions as S
from tests.nodes.rnn_models import INPUTS, rnn_feeds, rnn_model
from tests.reference import rnn_reference as ref


def _run_feeds(feeds: dict[str, np.ndarray], constants: tuple[str, ...] = ()) -> dict[str, np.ndarray]:
    return {k: v for k, v in feeds.items() if k not in constants}


def _want(op: str, feeds: dict[str, np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    return ref.recurrent(op, feeds["x"], feeds["w"], feeds["r"], feeds.get("b"), feeds.get("seq"),
                         feeds.get("h0"), feeds.get("c0"), feeds.get("p"), attrs)


def _close(what: str, got: np.ndarray, want: np.ndarray) -> None:
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg=what)


# (op, T, N, I, H, attrs, optional inputs, sequence_lens)
CASES: list[tuple[str, int, int, int, int, dict[str, Any], set[str], list[int] | None]] = [
    ("LSTM", 5, 3, 4, 6, {}, set(), None),
    ("LSTM", 5, 3, 4, 6, {}, {"b", "h0", "c0"}, None),
    ("LSTM", 6, 4, 5, 7, {}, {"b", "seq", "h0", "c0", "p"}, [6, 2, 0, 5]),
    ("LSTM", 6, 4, 5, 7, {"direction": "reverse"}, {"b", "seq", "h0", "c0", "p"}, [6, 2, 0, 5]),
    ("LSTM", 6, 4, 5, 7, {"direction": "bidirectional"}, {"b", "seq", "h0", "c0", "p"}, [3, 6, 1, 0]),
    ("LSTM", 4, 2, 3, 5, {"direction": "bidirectional", "clip": 0.75}, {"b", "p"}, None),
    ("LSTM", 3, 2, 300, 20, {"direction": "bidirectional"}, {"b"}, None),  # two K blocks of the input product
    ("LSTM", 9, 1, 128, 128, {}, {"b", "h0", "c0"}, None),  # silero-vad's shape
    ("GRU", 5, 3, 4, 6, {}, {"b", "seq", "h0"}, [5, 0, 3]),
    ("GRU", 5, 3, 4, 6, {"linear_before_reset": 1}, {"b", "seq", "h0"}, [5, 0, 3]),
    ("GRU", 5, 3, 4, 6, {"direction": "bidirectional", "linear_before_reset": 1, "clip": 1.5}, {"b"}, None),
    ("GRU", 5, 3, 4, 6, {"direction": "reverse"}, set(), None),
]
IDS = [f"{c[0]}-T{c[1]}N{c[2]}I{c[3]}H{c[4]}-{'-'.join(f'{k}{v}' for k, v in c[5].items())}-"
       f"{'+'.join(sorted(c[6]))}" for c in CASES]


@pytest.mark.parametrize(("op", "t", "n", "i", "h", "attrs", "have", "seq"), CASES, ids=IDS)
def test_every_way_same_bits_and_close_to_onnx(op: str, t: int, n: int, i: int, h: int, attrs: dict[str, Any],
                                                have: set[str], seq: list[int] | None) -> None:
    attrs = {"hidden_size": h, **attrs}
    dirs = 2 if attrs.get("direction") == "bidirectional" else 1
    feeds = rnn_feeds(op, t, n, i, h, dirs, have, seed=t * 31 + h, seq=seq)
    got = S.same_bits_every_way(rnn_model(op, feeds, attrs), feeds, op)
    want = _want(op, feeds, attrs)
    stock = S.stock(rnn_model(op, feeds, attrs), feeds)
    for k, (g, w, s) in enumerate(zip(got, want, stock, strict=True)):
        _close(f"{op} output {k} vs the float64 reference", g, w)
        _close(f"{op} output {k} vs stock ORT", g, s)


@pytest.mark.parametrize("op", ["LSTM", "GRU"])
def test_constant_weights_packed_give_the_same_bits(op: str) -> None:
    attrs = {"hidden_size": 9, "direction": "bidirectional"}
    feeds = rnn_feeds(op, 4, 2, 5, 9, 2, {"b", "h0"}, seed=7)
    plain = S.same_bits_every_way(rnn_model(op, feeds, attrs), feeds, op)
    consts = ("w", "r", "b")
    packed_model = rnn_model(op, feeds, attrs, constants=consts)
    packed = S.same_bits_every_way(packed_model, _run_feeds(feeds, consts), op)
    for k, (a, b) in enumerate(zip(plain, packed, strict=True)):
        S.assert_exact_bits(f"{op} output {k}: constant W, R vs inputs", b, a)


@pytest.mark.parametrize("op", ["LSTM", "GRU"])
@pytest.mark.parametrize("direction", ["forward", "bidirectional"])
def test_a_row_alone_gives_the_bits_it_has_in_a_batch(op: str, direction: str) -> None:
    attrs = {"hidden_size": 8, "direction": direction}
    dirs = 2 if direction == "bidirectional" else 1
    feeds = rnn_feeds(op, 6, 4, 5, 8, dirs, {"b", "seq", "h0", "c0"}, seed=11, seq=[6, 3, 0, 4])
    node = Node(op, [int(TensorProto.FLOAT)] * 4 + [int(TensorProto.INT32)] + [int(TensorProto.FLOAT)] *
                (2 if op == "LSTM" else 1), onnx_opset=14, attributes=attrs)
    names = INPUTS[op][: 7 if op == "LSTM" else 6]
    batched = node.run_outputs(*[feeds[nm] for nm in names])
    for row in range(4):
        alone = dict(feeds)
        alone["x"] = feeds["x"][:, row: row + 1].copy()
        alone["seq"] = feeds["seq"][row: row + 1].copy()
        for nm in ("h0", "c0"):
            if nm in alone:
                alone[nm] = feeds[nm][:, row: row + 1].copy()
        got = node.run_outputs(*[alone[nm] for nm in names])
        S.assert_exact_bits(f"{op} Y row {row}", got[0], batched[0][:, :, row: row + 1])
        for k in range(1, len(got)):
            S.assert_exact_bits(f"{op} output {k} row {row}", got[k], batched[k][:, row: row + 1])


def test_layout_1_is_layout_0_transposed() -> None:
    attrs = {"hidden_size": 6, "direction": "bidirectional"}
    feeds = rnn_feeds("LSTM", 5, 3, 4, 6, 2, {"b", "h0", "c0", "p"}, seed=5)
    base = S.same_bits_every_way(rnn_model("LSTM", feeds, attrs), feeds, "LSTM")
    t_feeds = dict(feeds)
    t_feeds["x"] = np.ascontiguousarray(feeds["x"].transpose(1, 0, 2))
    for nm in ("h0", "c0"):
        t_feeds[nm] = np.ascontiguousarray(feeds[nm].transpose(1, 0, 2))
    got = S.same_bits_every_way(rnn_model("LSTM", t_feeds, {**attrs, "layout": 1}), t_feeds, "LSTM")
    S.assert_exact_bits("Y, layout 1", got[0], np.ascontiguousarray(base[0].transpose(2, 0, 1, 3)))
    for k in (1, 2):
        S.assert_exact_bits(f"output {k}, layout 1", got[k], np.ascontiguousarray(base[k].transpose(1, 0, 2)))


@pytest.mark.parametrize("outputs", [["y"], ["", "yh"], ["", "", "yc"], ["y", "", "yc"]])
def test_any_output_may_be_absent(outputs: list[str]) -> None:
    attrs = {"hidden_size": 5}
    feeds = rnn_feeds("LSTM", 4, 2, 3, 5, 1, {"b"}, seed=3)
    full = S.same_bits_every_way(rnn_model("LSTM", feeds, attrs), feeds, "LSTM")
    got = S.same_bits_every_way(rnn_model("LSTM", feeds, attrs, outputs=outputs), feeds, "LSTM")
    want = [full[k] for k, nm in enumerate(outputs) if nm]
    for k, (g, w) in enumerate(zip(got, want, strict=True)):
        S.assert_exact_bits(f"output {k} of {outputs}", g, w)


def test_nan_and_infinity_give_canonical_nan() -> None:
    attrs = {"hidden_size": 4}
    feeds = rnn_feeds("LSTM", 3, 2, 3, 4, 1, {"b", "c0"}, seed=9)
    feeds["x"][1, 0, 0] = np.nan
    feeds["c0"][0, 1, 2] = np.inf  # f * inf, then inf - inf is possible: every NaN stored is 0x7FC00000
    feeds["c0"][0, 1, 3] = -np.inf
    got = S.same_bits_every_way(rnn_model("LSTM", feeds, attrs), feeds, "LSTM")
    for k, g in enumerate(got):
        nan = np.isnan(g)
        assert nan.any() or k == 0
        assert (g.view(np.uint32)[nan] == 0x7FC00000).all(), k


def _report_reason(model: onnx.ModelProto, via: str) -> str:
    sess = S.session(model, via, None, 1)
    assert not sess.report.moved, sess.report.summary()
    return sess.report.summary()


@pytest.mark.parametrize(("attrs", "reason"), [
    ({"activations": ["Sigmoid", "Tanh", "Tanh"], "activation_alpha": [1.0]}, None),  # served: defaults' bits
    ({"activations": ["Sigmoid", "Tanh", "ThresholdedRelu"]}, "needs its alpha"),  # ORT's 0, ONNX's 1.0
])
def test_what_is_not_served_stays_with_stock_ort(attrs: dict[str, Any], reason: str | None) -> None:
    feeds = rnn_feeds("LSTM", 3, 2, 3, 4, 1, {"b"}, seed=2)
    model = rnn_model("LSTM", feeds, {"hidden_size": 4, **attrs})
    if reason is None:  # the default list, spelled out: the same bits as without it
        plain = S.same_bits_every_way(rnn_model("LSTM", feeds, {"hidden_size": 4}), feeds, "LSTM")
        for k, (g, w) in enumerate(zip(S.same_bits_every_way(model, feeds, "LSTM"), plain, strict=True)):
            S.assert_exact_bits(f"output {k}", g, w)
        return
    for via in S.VIAS:
        sess = S.session(model, via, None, 1)
        assert not sess.report.moved, (via, sess.report.summary())
        assert reason in sess.report.summary(), (via, sess.report.summary())
        stock = S.stock(model, feeds)  # stock ORT at another thread count: its GEMM may round differently
        for g, w in zip(sess.run(None, feeds), stock, strict=True):
            _close(f"{via}: stock ORT's result", g, w)


def test_bad_sequence_lens_is_an_error_naming_node_and_op() -> None:
    feeds = rnn_feeds("LSTM", 3, 2, 3, 4, 1, {"seq"}, seed=2, seq=[1, 4])
    model = rnn_model("LSTM", feeds, {"hidden_size": 4})
    for via in S.VIAS:
        sess = S.session(model, via, None, 1)
        with pytest.raises(Exception, match=r"rec.*LSTM.*sequence_lens\[1\] = 4"):
            sess.run(None, feeds)


def test_bad_shapes_and_attributes_are_named() -> None:
    f32, i32 = int(TensorProto.FLOAT), int(TensorProto.INT32)
    with pytest.raises(NodeError, match="hidden_size"):
        Node("LSTM", [f32] * 3, onnx_opset=14, attributes={})
    with pytest.raises(NodeError, match="input 4 must be int32"):
        Node("GRU", [f32] * 5, onnx_opset=14, attributes={"hidden_size": 2})
    with pytest.raises(NodeError, match="direction"):
        Node("GRU", [f32] * 3, onnx_opset=14, attributes={"hidden_size": 2, "direction": "sideways"})
    node = Node("LSTM", [f32, f32, f32, f32, i32], onnx_opset=14, attributes={"hidden_size": 2})
    x = np.zeros((3, 1, 2), np.float32)
    with pytest.raises(NodeError, match=r"R \(input 2\) is \[1, 8, 3\], expected \[1, 8, 2\]"):
        node.run_outputs(x, np.zeros((1, 8, 2), np.float32), np.zeros((1, 8, 3), np.float32), None, None)
