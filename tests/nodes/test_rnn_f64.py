"""LSTM, GRU and RNN in double (node_rnn.c's binary64 instantiation over rnn/rnn_step_body.inc and
rnn/rnn_act_f64.c; docs/recurrent.md, "double"). Every way in (EP and rewrite), kernel path and 1 or 2
threads give the same bits, and those bits are tests/reference/rnn_exact_reference.py's float64 steps (the
dot products through MPFR's fma, Sigmoid and Tanh correctly rounded through MPFR). Stock ORT 1.31.1 runs
none of them in double (LSTM and GRU: "does not support double yet" at run time; RNN: no kernel); for the
default activations the results agree with tests/reference/rnn_reference.py, ONNX's definition in float64
NumPy, within 1e-12 relative plus 1e-14 absolute (its products sum in another order and NumPy's exp and tanh
are not correctly rounded, each a few binary64 ulps, 2^-52 = 2.2e-16 relative; the recurrence carries both
through the few steps run here). Elu and Softplus, mixed float types: refused, named, the node left to stock
ORT."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from onnx import TensorProto

from onemodel_ep.node import Node, NodeError
from tests.nodes import node_sessions as S
from tests.nodes.rnn_models import rnn_feeds, rnn_model
from tests.reference import rnn_exact_reference as ref
from tests.reference import rnn_reference

F64, F32 = int(TensorProto.DOUBLE), int(TensorProto.FLOAT)


def _double(feeds: dict[str, np.ndarray], seed: int) -> dict[str, np.ndarray]:
    """The float32 feeds as float64 with full 53-bit significands (a small seeded perturbation)."""
    rng = np.random.default_rng(seed)
    return {k: v.astype(np.float64) * (1.0 + rng.standard_normal(v.shape) * 1e-7) if v.dtype == np.float32
            else v for k, v in feeds.items()}


def _feeds(op: str, t: int, n: int, i: int, h: int, attrs: dict[str, Any], have: set[str],
           seq: list[int] | None, seed: int) -> dict[str, np.ndarray]:
    dirs = 2 if attrs.get("direction") == "bidirectional" else 1
    return _double(rnn_feeds(op, t, n, i, h, dirs, have, seed=seed, seq=seq), seed)


def _reference(op: str, feeds: dict[str, np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    return ref.recurrent(op, feeds["x"], feeds["w"], feeds["r"], feeds.get("b"), feeds.get("seq"),
                         feeds.get("h0"), feeds.get("c0"), feeds.get("p"), attrs)


def _one_session(model: Any, feeds: dict[str, np.ndarray], op: str) -> list[np.ndarray]:
    sess = S.session(model, "rewrite", None, 1)
    assert [nd.op for nd in sess.report.moved] == [op], sess.report.summary()
    return sess.run(None, feeds)


# (op, attrs, optional inputs, sequence_lens, every way in); T 4, N 3, I 5, H 6 unless the case is an RNN
CASES: list[tuple[str, dict[str, Any], set[str], list[int] | None, bool]] = [
    ("LSTM", {"direction": "bidirectional", "clip": 0.9}, {"b", "seq", "h0", "c0", "p"}, [4, 1, 0], True),
    ("LSTM", {"direction": "reverse", "input_forget": 1}, {"b", "h0", "c0", "p"}, None, False),
    ("LSTM", {"activations": ["HardSigmoid", "Softsign", "Affine"], "activation_alpha": [0.3, 0.9],
              "activation_beta": [0.45, 0.125]}, {"b", "h0", "c0"}, None, False),
    ("GRU", {"linear_before_reset": 0}, {"b", "h0"}, None, True),
    ("GRU", {"direction": "bidirectional", "linear_before_reset": 1, "clip": 1.5}, {"b", "seq"}, [4, 0, 2],
     False),
    ("GRU", {"activations": ["Sigmoid", "ScaledTanh"], "activation_alpha": [0.8], "activation_beta": [1.1]},
     {"b"}, None, False),
    ("RNN", {}, {"b", "h0"}, None, True),
    ("RNN", {"activations": ["Relu"]}, {"b"}, None, True),
    ("RNN", {"direction": "bidirectional", "activations": ["LeakyRelu", "ThresholdedRelu"],
             "activation_alpha": [0.2, 0.1]}, {"b", "seq"}, [3, 4, 0], False),
]
IDS = [f"{c[0]}-{'-'.join(f'{k}{v}' for k, v in c[1].items())}".replace(" ", "") for c in CASES]


@pytest.mark.parametrize(("op", "attrs", "have", "seq", "every_way"), CASES, ids=IDS)
def test_double_same_bits_every_way_as_the_reference(op: str, attrs: dict[str, Any], have: set[str],
                                                     seq: list[int] | None, every_way: bool) -> None:
    attrs = {"hidden_size": 6, **attrs}
    feeds = _feeds(op, 4, 3, 5, 6, attrs, have, seq, seed=len(attrs) * 7 + len(have))
    model = rnn_model(op, feeds, attrs)
    got = S.same_bits_every_way(model, feeds, op) if every_way else _one_session(model, feeds, op)
    want = _reference(op, feeds, attrs)
    for k, (g, w) in enumerate(zip(got, want, strict=True)):
        assert g.dtype == np.float64
        S.assert_exact_bits(f"{op} double output {k} vs the exact reference", g, w)
    with pytest.raises(Exception, match=r"does not support double|NOT_IMPLEMENTED"):  # stock: none in double
        S.stock(model, feeds)
    if "activations" in attrs or "input_forget" in attrs:
        return
    f32_clip = {**attrs, "clip": float(np.float32(attrs["clip"]))} if "clip" in attrs else attrs
    ieee = rnn_reference.recurrent(op, feeds["x"], feeds["w"], feeds["r"], feeds.get("b"), feeds.get("seq"),
                                   feeds.get("h0"), feeds.get("c0"), feeds.get("p"), f32_clip)
    for k, (g, w) in enumerate(zip(got, ieee, strict=True)):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-14,
                                   err_msg=f"{op} double output {k} vs ONNX's definition in float64")


def test_double_layout_1_and_packed_constants() -> None:
    """Layout 1 is layout 0 on the transposed tensors; W, R, B as initializers (W, R packed at creation as
    double) give the bits of W, R, B as inputs."""
    attrs = {"hidden_size": 5, "direction": "bidirectional"}
    feeds = _feeds("LSTM", 4, 3, 4, 5, attrs, {"b", "h0", "c0", "p"}, None, seed=11)
    base = _one_session(rnn_model("LSTM", feeds, attrs), feeds, "LSTM")
    t_feeds = dict(feeds)
    for k in ("x", "h0", "c0"):
        t_feeds[k] = np.ascontiguousarray(feeds[k].transpose(1, 0, 2))
    got = _one_session(rnn_model("LSTM", t_feeds, {**attrs, "layout": 1}), t_feeds, "LSTM")
    S.assert_exact_bits("Y, layout 1", got[0], np.ascontiguousarray(base[0].transpose(2, 0, 1, 3)))
    S.assert_exact_bits("Y_h, layout 1", got[1], np.ascontiguousarray(base[1].transpose(1, 0, 2)))
    S.assert_exact_bits("Y_c, layout 1", got[2], np.ascontiguousarray(base[2].transpose(1, 0, 2)))
    consts = ("w", "r", "b")
    for op, a in (("LSTM", attrs), ("GRU", {"hidden_size": 5})):
        f = feeds if op == "LSTM" else _feeds("GRU", 4, 3, 4, 5, a, {"b", "h0"}, None, seed=12)
        plain = base if op == "LSTM" else _one_session(rnn_model(op, f, a), f, op)
        packed = _one_session(rnn_model(op, f, a, constants=consts), {k: v for k, v in f.items()
                                                                      if k not in consts}, op)
        for k, (p, q) in enumerate(zip(packed, plain, strict=True)):
            S.assert_exact_bits(f"{op} double output {k}: constant W, R, B vs inputs", p, q)


def test_double_zero_batch() -> None:
    for op in ("LSTM", "GRU", "RNN"):
        attrs = {"hidden_size": 4}
        feeds = _feeds(op, 3, 0, 3, 4, attrs, {"b"}, None, seed=1)
        got = _one_session(rnn_model(op, feeds, attrs), feeds, op)
        assert got[0].shape == (3, 1, 0, 4) and got[0].dtype == np.float64


@pytest.mark.parametrize(("op", "types", "attrs", "message"), [
    ("LSTM", [F64, F32, F64], {}, r"'n'.*LSTM.*input 1 must be double, got float"),
    ("GRU", [F64, F64, F64, F32], {}, r"'n'.*GRU.*input 3 must be double, got float"),
    ("RNN", [F64] * 3, {"activations": ["Elu"]}, r"'n'.*RNN.*activation Elu is not served for double"),
    ("LSTM", [F64] * 3, {"activations": ["Sigmoid", "Softplus", "Tanh"]},
     r"'n'.*LSTM.*activation Softplus is not served for double"),
])
def test_double_refusals_are_named(op: str, types: list[int], attrs: dict[str, Any], message: str) -> None:
    with pytest.raises(NodeError, match=message):
        Node(op, types, onnx_opset=14, attributes={"hidden_size": 2, **attrs}, name="n")


def test_double_elu_list_stays_with_stock() -> None:
    """The node is left to stock ORT, named; stock's double LSTM then fails at run time (its message)."""
    attrs = {"hidden_size": 4, "activations": ["Relu", "Elu", "Relu"]}
    feeds = _feeds("LSTM", 3, 2, 3, 4, attrs, {"b"}, None, seed=3)
    model = rnn_model("LSTM", feeds, attrs)
    for via in S.VIAS:
        sess = S.session(model, via, None, 1)
        assert not sess.report.moved and "Elu is not served for double" in sess.report.stayed[0].reason, via
        with pytest.raises(Exception, match="does not support double"):
            sess.run(None, feeds)
