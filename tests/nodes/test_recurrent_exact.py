"""LSTM and GRU against tests/reference/recurrent_reference.py, a reference written from docs/recurrent.md
alone by a reviewer who did not read the kernels: bit for bit on every kernel path, both ways in, 1 and 2
threads (directions, sequence_lens with 0 and full rows, initial states, peepholes, clip reached,
linear_before_reset, layout 1, an input product of two K blocks and a recurrent one of two, outputs absent,
zero-size batch); stock ORT within 1e-5 relative plus 1e-6 absolute (the page's own figure: stock's MLAS sums
in another order and its activations are approximations, and the recurrence carries the difference); what is
not served stays with stock, bad sequence_lens a clear error."""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from tests.nodes import node_sessions as S
from tests.reference import recurrent_reference as R

GATES = {"LSTM": 4, "GRU": 3}
INPUTS = {"LSTM": ["x", "w", "r", "b", "seq", "h0", "c0", "p"], "GRU": ["x", "w", "r", "b", "seq", "h0"]}
OUTPUTS = {"LSTM": ["y", "yh", "yc"], "GRU": ["y", "yh"]}


def _feeds(op: str, T: int, N: int, In: int, Hd: int, dirs: int, have: set[str], seed: int,
           seq: list[int] | None, scale: float = 0.5) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    g = GATES[op]

    def f(*shape: int, s: float = scale) -> np.ndarray:
        return (rng.standard_normal(shape) * s).astype(np.float32)

    feeds = {"x": f(T, N, In, s=1.0), "w": f(dirs, g * Hd, In), "r": f(dirs, g * Hd, Hd)}
    if "b" in have:
        feeds["b"] = f(dirs, 2 * g * Hd)
    if seq is not None:
        feeds["seq"] = np.array(seq, np.int32)
    if "h0" in have:
        feeds["h0"] = f(dirs, N, Hd, s=1.0)
    if "c0" in have and op == "LSTM":
        feeds["c0"] = f(dirs, N, Hd, s=2.0)
    if "p" in have and op == "LSTM":
        feeds["p"] = f(dirs, 3 * Hd)
    return feeds


def _model(op: str, feeds: dict[str, np.ndarray], attrs: dict[str, Any], outs: list[str],
           opset: int = 14) -> onnx.ModelProto:
    names = INPUTS[op]
    last = max(k for k, nm in enumerate(names) if nm in feeds)
    ins = [nm if nm in feeds else "" for nm in names[:last + 1]]
    node = helper.make_node(op, ins, outs, name="rec", **attrs)
    gin = [helper.make_tensor_value_info(nm, helper.np_dtype_to_tensor_dtype(v.dtype), list(v.shape))
           for nm, v in feeds.items()]
    gout = [helper.make_tensor_value_info(nm, TensorProto.FLOAT, None) for nm in outs if nm]
    graph = helper.make_graph([node], "g", gin, gout)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=10)


def _want(op: str, feeds: dict[str, np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    """The reference's outputs for layout-0 feeds (layout 1: the same, transposed)."""
    ins = R.Inputs(feeds["x"], feeds["w"], feeds["r"], feeds.get("b"), feeds.get("seq"), feeds.get("h0"),
                   feeds.get("c0"), feeds.get("p"))
    y, yh, yc = R.run(op, ins, attrs.get("direction", "forward"), attrs.get("clip"),
                      attrs.get("linear_before_reset", 0))
    if attrs.get("layout", 0) == 1:
        y, yh, yc = R.to_layout1(y, yh, yc)
    return [y, yh] if yc is None else [y, yh, yc]


def _to_layout1(feeds: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    out = dict(feeds)
    for k in ("x", "h0", "c0"):
        if k in out:
            out[k] = np.ascontiguousarray(out[k].transpose(1, 0, 2))
    return out


# (op, T, N, I, Hd, attrs, optional inputs, sequence_lens, weight scale)
CASES: list[tuple[str, int, int, int, int, dict[str, Any], set[str], list[int] | None, float]] = [
    ("LSTM", 4, 2, 3, 5, {}, set(), None, 0.5),
    ("LSTM", 5, 4, 4, 6, {}, {"b", "h0", "c0", "p"}, [5, 2, 0, 4], 0.5),
    ("LSTM", 5, 4, 4, 6, {"direction": "reverse"}, {"b", "h0", "c0", "p"}, [5, 2, 0, 4], 0.5),
    ("LSTM", 5, 3, 4, 6, {"direction": "bidirectional"}, {"b", "h0", "c0", "p"}, [1, 5, 0], 0.5),
    ("LSTM", 4, 2, 3, 5, {"direction": "bidirectional", "clip": 0.6}, {"b", "p", "c0"}, None, 1.5),
    ("LSTM", 4, 3, 5, 4, {"layout": 1, "direction": "bidirectional"}, {"b", "h0", "c0"}, [4, 1, 3], 0.5),
    ("LSTM", 2, 1, 300, 5, {}, {"b"}, None, 0.1),  # the input product in two K blocks
    ("LSTM", 2, 1, 3, 260, {}, {"b", "h0"}, None, 0.05),  # the recurrent product in two K blocks
    ("GRU", 5, 3, 4, 6, {}, {"b", "h0"}, [5, 0, 3], 0.5),
    ("GRU", 5, 3, 4, 6, {"linear_before_reset": 1}, {"b", "h0"}, [5, 0, 3], 0.5),
    ("GRU", 4, 2, 3, 5, {"direction": "bidirectional", "linear_before_reset": 1, "clip": 0.7}, {"b"}, None,
     1.5),
    ("GRU", 4, 2, 3, 5, {"direction": "reverse", "clip": 0.7}, {"h0"}, [2, 4], 1.5),
    ("GRU", 3, 2, 4, 5, {"layout": 1, "direction": "bidirectional"}, {"b", "h0"}, None, 0.5),
]
IDS = [f"{c[0]}-T{c[1]}N{c[2]}I{c[3]}H{c[4]}-{'-'.join(f'{k}{v}' for k, v in c[5].items())}-"
       f"{'+'.join(sorted(c[6]))}-seq{c[7]}" for c in CASES]


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_bits_every_way_and_stock(case: tuple[Any, ...]) -> None:
    op, T, N, In, Hd, attrs, have, seq, scale = case
    attrs = {"hidden_size": Hd, **attrs}
    dirs = 2 if attrs.get("direction") == "bidirectional" else 1
    feeds = _feeds(op, T, N, In, Hd, dirs, have, seed=T * 37 + Hd, seq=seq, scale=scale)
    want = _want(op, feeds, attrs)
    if attrs.get("layout") == 1:
        feeds = _to_layout1(feeds)
    model = _model(op, feeds, attrs, OUTPUTS[op])
    for where, got in S.runs(model, feeds, op).items():
        for name, g, w in zip(OUTPUTS[op], got, want):
            S.assert_exact_bits(f"{op} {name} {where}", g, w)
    if attrs.get("layout") == 1:
        return  # stock ORT 1.31.1 refuses layout 1 ("Batchwise recurrent operations ... are not supported")
    for name, g, w in zip(OUTPUTS[op], S.stock(model, feeds), want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6, err_msg=f"stock {name}")


def test_clip_is_reached() -> None:
    """The clip cases' pre-activations do exceed the clip (else they would not test it)."""
    feeds = _feeds("LSTM", 4, 2, 3, 5, 2, {"b", "p", "c0"}, seed=4 * 37 + 5, seq=None, scale=1.5)
    pre = np.einsum("tni,dgi->tndg", feeds["x"], feeds["w"])
    assert np.abs(pre).max() > 0.6 * 3


@pytest.mark.parametrize("op, outs", [("LSTM", ["", "yh", ""]), ("LSTM", ["y", "", "yc"]),
                                      ("GRU", ["", "yh"]), ("GRU", ["y"])])
def test_outputs_absent(op: str, outs: list[str]) -> None:
    attrs = {"hidden_size": 4, "direction": "bidirectional"}
    feeds = _feeds(op, 3, 2, 3, 4, 2, {"b", "h0", "c0", "p"}, seed=7, seq=[3, 2])
    full = dict(zip(OUTPUTS[op], _want(op, feeds, attrs)))
    model = _model(op, feeds, attrs, outs)
    for where, got in S.runs(model, feeds, op).items():
        for name, g in zip([o for o in outs if o], got):
            S.assert_exact_bits(f"{op} {name} {where}", g, full[name])


@pytest.mark.parametrize("op", ["LSTM", "GRU"])
def test_zero_size_batch(op: str) -> None:
    attrs = {"hidden_size": 3}
    feeds = _feeds(op, 2, 0, 3, 3, 1, {"b"}, seed=1, seq=None)
    want = _want(op, feeds, attrs)
    model = _model(op, feeds, attrs, OUTPUTS[op])
    for where, got in S.runs(model, feeds, op).items():
        for name, g, w in zip(OUTPUTS[op], got, want):
            S.assert_exact_bits(f"{op} {name} {where}", g, w)


@pytest.mark.parametrize("op", ["LSTM", "GRU"])
@pytest.mark.parametrize("bad", [-1, 4])
def test_bad_sequence_lens_clear_error(op: str, bad: int) -> None:
    attrs = {"hidden_size": 3}
    feeds = _feeds(op, 3, 2, 2, 3, 1, {"b"}, seed=2, seq=[2, bad])
    model = _model(op, feeds, attrs, OUTPUTS[op])
    for via in S.VIAS:
        sess = S.session(model, via, None, 1)
        assert [n.op for n in sess.report.moved] == [op], sess.report.summary()
        with pytest.raises(Exception, match=rf"(?s)rec.*{op}.*sequence_lens.*{bad}"):
            sess.run(None, feeds)


# Activations whose parameters ONNX and ORT default differently when absent: the library refuses them.
@pytest.mark.parametrize("op, attrs", [
    ("LSTM", {"activations": ["Affine", "Tanh", "Tanh"]}),
    ("LSTM", {"activations": ["Sigmoid", "ThresholdedRelu", "Tanh"]}),
    ("GRU", {"activations": ["ScaledTanh", "Tanh"]}),
])
def test_unserved_left_to_stock(op: str, attrs: dict[str, Any]) -> None:
    attrs = {"hidden_size": 3, **attrs}
    feeds = _feeds(op, 3, 2, 2, 3, 1, {"b"}, seed=3, seq=None)
    model = _model(op, feeds, attrs, OUTPUTS[op])
    for via in S.VIAS:
        sess = S.session(model, via, None, 1)
        assert not sess.report.moved, sess.report.summary()
        for g, w in zip(sess.run(None, feeds), S.stock(model, feeds)):  # stock's bits vary with its threads
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6, err_msg=f"{op} {attrs} {via}")


@pytest.mark.parametrize("op", ["LSTM", "GRU"])
def test_bad_weight_shape_clear_error(op: str) -> None:
    feeds = _feeds(op, 3, 2, 2, 3, 1, {"b"}, seed=5, seq=None)
    feeds["r"] = feeds["r"][:, :, :2].copy()  # R's last dimension is not hidden_size
    model = _model(op, feeds, {"hidden_size": 3}, OUTPUTS[op])
    for via in S.VIAS:
        with pytest.raises(Exception, match=rf"(?s)(rec.*{op}|{op}.*rec)"):
            sess = S.session(model, via, None, 1)
            sess.run(None, feeds)


@pytest.mark.parametrize("op", ["LSTM", "GRU"])
def test_nan_and_infinity_inputs(op: str) -> None:
    """A NaN with a payload in row 0's input, +inf in row 1's and -inf in row 2's: the page's canonical NaN
    wherever a NaN results, and the saturated activations of infinite pre-activations elsewhere."""
    attrs = {"hidden_size": 4, "direction": "bidirectional"}
    feeds = _feeds(op, 3, 4, 3, 4, 2, {"b", "h0", "c0"}, seed=11, seq=None)
    xb = feeds["x"].view(np.uint32)
    xb[1, 0, 0] = 0xFFC00123
    xb[0, 1, 2] = 0x7F800000
    xb[2, 2, 1] = 0xFF800000
    want = _want(op, feeds, attrs)
    assert np.isnan(want[0]).any() and not np.isnan(want[0][:, :, 3]).any()
    model = _model(op, feeds, attrs, OUTPUTS[op])
    for where, got in S.runs(model, feeds, op).items():
        for name, g, w in zip(OUTPUTS[op], got, want):
            S.assert_exact_bits(f"{op} {name} {where}", g, w)


@pytest.mark.parametrize("with_p", [True, False], ids=["P=0", "P absent"])
def test_peephole_zero_is_not_absent(with_p: bool) -> None:
    """The page: P absent skips the peephole steps, which is not P = 0 when the cell holds an infinity
    (0 * inf is NaN): the row with c0 = inf is NaN with P = 0 and keeps its infinite cell without P."""
    attrs = {"hidden_size": 3}
    feeds = _feeds("LSTM", 2, 2, 2, 3, 1, {"b", "h0", "c0", "p"} if with_p else {"b", "h0", "c0"}, seed=4,
                   seq=None)
    if with_p:
        feeds["p"][:] = 0
    feeds["c0"][0, 0, 1] = np.inf
    want = _want("LSTM", feeds, attrs)
    assert np.isnan(want[2][0, 0]).all() == with_p and np.isfinite(want[2][0, 1]).all()
    model = _model("LSTM", feeds, attrs, OUTPUTS["LSTM"])
    for where, got in S.runs(model, feeds, "LSTM").items():
        for name, g, w in zip(OUTPUTS["LSTM"], got, want):
            S.assert_exact_bits(f"{name} {where}", g, w)
