"""RNN, and the `activations` lists of RNN, LSTM and GRU (node_rnn.c over rnn/rnn_act.c; docs/recurrent.md,
"Activations" and "RNN step"). Every way in (EP and rewrite), kernel path and 1 or 2 threads give the
same bits, and those bits are tests/reference/rnn_exact_reference.py's, written from the doc; stock ORT
agrees within 1e-4 relative plus 1e-5 absolute (its MLAS logistic and tanh are approximations of a few ulps,
and its GEMM sums in another order; the recurrence carries both through the steps). Bad lists are refused,
named."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from onnx import TensorProto

from onemodel_ep.node import Node, NodeError
from tests.nodes import node_sessions as S
from tests.nodes.rnn_models import rnn_feeds, rnn_model
from tests.reference import rnn_exact_reference as ref


def _check(op: str, t: int, n: int, i: int, h: int, attrs: dict[str, Any], have: set[str],
           seq: list[int] | None = None, opset: int = 14) -> None:
    attrs = {"hidden_size": h, **attrs}
    dirs = 2 if attrs.get("direction") == "bidirectional" else 1
    feeds = rnn_feeds(op, t, n, i, h, dirs, have, seed=t * 31 + h + len(attrs), seq=seq)
    model = rnn_model(op, feeds, attrs, opset=opset)
    got = S.same_bits_every_way(model, feeds, op)
    want = ref.recurrent(op, feeds["x"], feeds["w"], feeds["r"], feeds.get("b"), feeds.get("seq"),
                         feeds.get("h0"), feeds.get("c0"), feeds.get("p"), attrs)
    stock = S.stock(model, feeds)
    for k, (g, w, s) in enumerate(zip(got, want, stock, strict=True)):
        S.assert_exact_bits(f"{op} output {k} vs the exact reference", g, w)
        np.testing.assert_allclose(g, s, rtol=1e-4, atol=1e-5, err_msg=f"{op} output {k} vs stock ORT")


ALL = ["Relu", "Tanh", "Sigmoid", "Affine", "LeakyRelu", "ThresholdedRelu", "ScaledTanh", "HardSigmoid",
       "Elu", "Softsign", "Softplus"]

# (op, T, N, I, H, attrs, optional inputs, sequence_lens)
CASES: list[tuple[str, int, int, int, int, dict[str, Any], set[str], list[int] | None]] = [
    ("RNN", 5, 3, 4, 6, {}, set(), None),
    ("RNN", 6, 4, 5, 7, {"direction": "reverse"}, {"b", "seq", "h0"}, [6, 2, 0, 5]),
    ("RNN", 6, 4, 5, 7, {"direction": "bidirectional", "clip": 0.8}, {"b", "seq", "h0"}, [3, 6, 1, 0]),
    ("RNN", 4, 2, 3, 5, {"activations": ["Relu"]}, {"b"}, None),
    ("RNN", 4, 2, 3, 5, {"activations": ["Tanh", "Tanh"]}, {"b"}, None),  # the schema default, one direction
    ("RNN", 4, 2, 3, 5, {"direction": "bidirectional", "activations": ["Softsign", "Softplus"]}, {"b", "h0"},
     None),
    ("RNN", 3, 2, 300, 20, {}, {"b"}, None),  # two K blocks of the input product
    *[("RNN", 4, 2, 3, 5, {"activations": [a], "activation_alpha": [0.7], "activation_beta": [0.3]}, {"b"},
       None) for a in ALL],
    ("RNN", 4, 2, 3, 5, {"activations": ["LeakyRelu"]}, {"b"}, None),  # the default alpha 0.01
    ("RNN", 4, 2, 3, 5, {"activations": ["Elu"]}, {"b"}, None),
    ("RNN", 4, 2, 3, 5, {"activations": ["HardSigmoid"]}, {"b"}, None),
    ("LSTM", 5, 3, 4, 6, {"activations": ["HardSigmoid", "Softsign", "Elu"], "activation_alpha": [0.3, 0.9],
                          "activation_beta": [0.45]}, {"b", "h0", "c0", "p"}, None),
    ("LSTM", 5, 3, 4, 6, {"direction": "bidirectional",
                          "activations": ["Sigmoid", "Tanh", "Tanh", "HardSigmoid", "ScaledTanh", "Affine"],
                          "activation_alpha": [0.25, 0.8, 0.5], "activation_beta": [0.5, 1.1, 0.125]},
     {"b", "seq", "h0", "c0"}, [5, 1, 0]),
    ("LSTM", 5, 3, 4, 6, {"input_forget": 1}, {"b", "h0", "c0", "p"}, None),
    ("LSTM", 5, 3, 4, 6, {"input_forget": 1, "clip": 0.9, "direction": "reverse"}, {"b", "c0"}, None),
    ("GRU", 5, 3, 4, 6, {"activations": ["HardSigmoid", "LeakyRelu"], "activation_alpha": [0.2, 0.1],
                         "activation_beta": [0.5]}, {"b", "h0"}, None),
    ("GRU", 5, 3, 4, 6, {"direction": "bidirectional", "linear_before_reset": 1,
                         "activations": ["Sigmoid", "Softsign", "Sigmoid", "Relu"]}, {"b", "seq"}, [5, 0, 2]),
]
IDS = [f"{c[0]}-{'-'.join(f'{k}{v}' for k, v in c[5].items())}-{'+'.join(sorted(c[6]))}".replace(" ", "")
       for c in CASES]


@pytest.mark.parametrize(("op", "t", "n", "i", "h", "attrs", "have", "seq"), CASES, ids=IDS)
def test_same_bits_every_way_and_as_the_reference(op: str, t: int, n: int, i: int, h: int,
                                                  attrs: dict[str, Any], have: set[str],
                                                  seq: list[int] | None) -> None:
    _check(op, t, n, i, h, attrs, have, seq)


def test_rnn_opset_7_and_layout_1() -> None:
    _check("RNN", 4, 3, 5, 6, {"direction": "bidirectional"}, {"b", "h0"}, opset=7)
    attrs = {"hidden_size": 6, "direction": "bidirectional", "activations": ["Relu", "Tanh"]}
    feeds = rnn_feeds("RNN", 5, 3, 4, 6, 2, {"b", "h0"}, seed=5)
    base = S.same_bits_every_way(rnn_model("RNN", feeds, attrs), feeds, "RNN")
    t_feeds = dict(feeds)
    t_feeds["x"] = np.ascontiguousarray(feeds["x"].transpose(1, 0, 2))
    t_feeds["h0"] = np.ascontiguousarray(feeds["h0"].transpose(1, 0, 2))
    got = S.same_bits_every_way(rnn_model("RNN", t_feeds, {**attrs, "layout": 1}), t_feeds, "RNN")
    S.assert_exact_bits("Y, layout 1", got[0], np.ascontiguousarray(base[0].transpose(2, 0, 1, 3)))
    S.assert_exact_bits("Y_h, layout 1", got[1], np.ascontiguousarray(base[1].transpose(1, 0, 2)))


def test_zero_batch_and_zero_steps() -> None:
    for t, n in ((0, 2), (3, 0)):
        attrs = {"hidden_size": 4, "activations": ["Relu"]}
        feeds = rnn_feeds("RNN", t, n, 3, 4, 1, {"b"}, seed=1)
        got = S.same_bits_every_way(rnn_model("RNN", feeds, attrs), feeds, "RNN")
        assert got[0].shape == (t, 1, n, 4) and got[1].shape == (1, n, 4)
        assert not got[0].any() and not got[1].any()


F32, I32 = int(TensorProto.FLOAT), int(TensorProto.INT32)


@pytest.mark.parametrize(("op", "attrs", "message"), [
    ("LSTM", {"activations": ["Sigmoid", "Tanh"]}, r"'n'.*LSTM.*activations has 2 entries, expected 3"),
    ("GRU", {"activations": ["Sigmoid", "Tanh", "Tanh"]}, r"'n'.*GRU.*activations has 3 entries, expected 2"),
    ("RNN", {"direction": "bidirectional", "activations": ["Tanh"]}, r"RNN.*1 entries, expected 2"),
    ("RNN", {"activations": ["Tanh", "Tanh", "Tanh"]}, r"RNN.*3 entries, expected 1"),
    ("LSTM", {"activations": ["Sigmoid", "Swish", "Tanh"]}, r"LSTM.*activations\[1\] is not one of"),
    ("RNN", {"activations": ["Affine"], "activation_alpha": [2.0]}, r"RNN.*Affine.*needs its beta"),
    ("RNN", {"activations": ["ThresholdedRelu"]}, r"RNN.*ThresholdedRelu.*needs its alpha"),
    ("LSTM", {"input_forget": 2}, r"LSTM.*input_forget must be 0 or 1"),
])
def test_bad_lists_are_named(op: str, attrs: dict[str, Any], message: str) -> None:
    with pytest.raises(NodeError, match=message):
        Node(op, [F32] * 3, onnx_opset=14, attributes={"hidden_size": 2, **attrs}, name="n")


def test_an_unknown_activation_fails_at_session_creation() -> None:
    feeds = rnn_feeds("RNN", 3, 2, 3, 4, 1, {"b"}, seed=2)
    model = rnn_model("RNN", feeds, {"hidden_size": 4, "activations": ["Swish"]})
    for via in S.VIAS:
        with pytest.raises(Exception, match=r"(?i)swish|activation"):
            S.session(model, via, None, 1)


def test_a_runtime_without_member_417_leaves_the_node_to_stock(monkeypatch: pytest.MonkeyPatch) -> None:
    """Before ORT 1.30 a kernel cannot read a list of strings (C API member 417): the rewriter then refuses
    the node, as the execution provider's GetCapability does, so it stays with stock ORT."""
    import onemodel_ep.node as node_module

    monkeypatch.setattr(node_module, "_ORT_READS_STRING_LISTS", False)
    attrs = {"hidden_size": 2, "activations": ["Relu"]}
    with pytest.raises(NodeError, match=r"'n'.*RNN.*activations cannot be read on this ONNX Runtime"):
        Node("RNN", [F32] * 3, onnx_opset=14, attributes=attrs, name="n")
    Node("RNN", [F32] * 3, onnx_opset=14, attributes={"hidden_size": 2}, name="n")  # no list: served


# ---- float16: every float input widened exactly to f32, the f32 steps, each output rounded once ----

def _half(feeds: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    return {k: v.astype(np.float16) if v.dtype == np.float32 else v for k, v in feeds.items()}


F16_CASES: list[tuple[str, dict[str, Any], set[str], list[int] | None]] = [
    ("LSTM", {"direction": "bidirectional"}, {"b", "seq", "h0", "c0", "p"}, [5, 1, 0]),
    ("GRU", {"linear_before_reset": 1, "clip": 1.5}, {"b", "h0"}, None),
    ("GRU", {"direction": "reverse"}, {"b", "seq"}, [5, 0, 2]),
    ("RNN", {"activations": ["Softsign"]}, {"b", "h0"}, None),
]


@pytest.mark.parametrize(("op", "attrs", "have", "seq"), F16_CASES,
                         ids=[f"{c[0]}-{len(c[1])}" for c in F16_CASES])
def test_float16_is_the_f32_reference_on_widened_inputs_rounded_once(
        op: str, attrs: dict[str, Any], have: set[str], seq: list[int] | None) -> None:
    """Bits: the exact reference on the inputs widened to f32, each output rounded once to float16. Stock ORT
    runs float16 as Cast, its f32 kernel, Cast (its float16 fallback): its f32 is ours within 1e-4 relative
    plus 1e-5 absolute (above), and each side's rounding to float16 adds at most one f16 ulp (2^-10
    relative), so 1.1e-3 relative plus 1e-4 absolute. Every way in, path and thread count for the first case,
    one session for the others."""
    attrs = {"hidden_size": 6, **attrs}
    dirs = 2 if attrs.get("direction") == "bidirectional" else 1
    feeds = _half(rnn_feeds(op, 5, 3, 4, 6, dirs, have, seed=17, seq=seq))
    model = rnn_model(op, feeds, attrs)
    if op == "LSTM":
        got = S.same_bits_every_way(model, feeds, op)
    else:
        sess = S.session(model, "rewrite", None, 1)
        assert [nd.op for nd in sess.report.moved] == [op], sess.report.summary()
        got = sess.run(None, feeds)
    wide = {k: v.astype(np.float32) if v.dtype == np.float16 else v for k, v in feeds.items()}
    want = ref.recurrent(op, wide["x"], wide["w"], wide["r"], wide.get("b"), wide.get("seq"), wide.get("h0"),
                         wide.get("c0"), wide.get("p"), attrs)
    stock = S.stock(model, feeds)
    for k, (g, w, s) in enumerate(zip(got, want, stock, strict=True)):
        assert g.dtype == np.float16 and s.dtype == np.float16
        S.assert_exact_bits(f"{op} float16 output {k} vs the reference", g, w.astype(np.float16))
        np.testing.assert_allclose(g.astype(np.float64), s.astype(np.float64), rtol=1.1e-3, atol=1e-4,
                                   err_msg=f"{op} float16 output {k} vs stock ORT")


def test_float16_packed_constants_and_zero_batch() -> None:
    attrs = {"hidden_size": 5, "direction": "bidirectional"}
    feeds = _half(rnn_feeds("GRU", 4, 2, 3, 5, 2, {"b", "h0"}, seed=4))
    sess = S.session(rnn_model("GRU", feeds, attrs), "ep" if "ep" in S.VIAS else "rewrite", None, 1)
    plain = sess.run(None, feeds)
    consts = ("w", "r", "b")
    packed = S.session(rnn_model("GRU", feeds, attrs, constants=consts), "rewrite", None, 1)
    assert [nd.op for nd in packed.report.moved] == ["GRU"], packed.report.summary()
    run_feeds = {k: v for k, v in feeds.items() if k not in consts}
    for k, (a, b) in enumerate(zip(plain, packed.run(None, run_feeds), strict=True)):
        S.assert_exact_bits(f"float16 output {k}: constant W, R, B vs inputs", b, a)
    feeds = _half(rnn_feeds("LSTM", 3, 0, 3, 4, 1, {"b"}, seed=1))
    got = S.session(rnn_model("LSTM", feeds, {"hidden_size": 4}), "rewrite", None, 1).run(None, feeds)
    assert got[0].shape == (3, 1, 0, 4) and got[0].dtype == np.float16


F16 = int(TensorProto.FLOAT16)


def test_mixed_float_types_are_refused_named() -> None:  # double: tests/nodes/test_rnn_f64.py
    with pytest.raises(NodeError, match=r"'n'.*LSTM.*input 1 must be float16, got float"):
        Node("LSTM", [F16, F32, F16], onnx_opset=14, attributes={"hidden_size": 2}, name="n")
