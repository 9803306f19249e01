"""bert_tiny quantized statically by ONNX Runtime's quantizer (tools/gen/make_quant_models.py), in QDQ format
(testdata/models/bert_tiny_qdq.onnx) and QOperator format (testdata/quant/bert_tiny_qop.onnx, with its two
com.microsoft QLinearSoftmax nodes), through OneModel EP: every computing node ours (strict), the same bits on
every kernel path, at 1 and 2 threads and through both ways in, and close to stock ORT.

Tolerances (measured at the commit that added them, model_feeds' 2 x 9 tokens, last_hidden_state max |y| 3.5):
- QOperator: 1e-4 x max |stock| (test_models' tolerance): the quantized ops give stock's bits or within one
  quantum of QLinearSoftmax (docs/quantized-elementwise.md); the float LayerNormalization, Erf, Tanh between
  them round differently; measured 4.8e-7.
- QDQ against stock with its graph optimisations off (it then runs DequantizeLinear, the float op,
  QuantizeLinear, where we run the QDQ groups, docs/quantized.md): 1e-4 x max |stock|; measured 1.2e-7 (on
  these feeds our groups, the two Softmax ones included, give the unfused graph's bits).
- QDQ against stock at its default level: 0.035 x max |stock|; measured 0.106 (3.05%) at 452045a, where we
  group DequantizeLinear -> Softmax -> QuantizeLinear too (the same figure as before). Stock fuses, as we do,
  46 groups (22 Add, 16 MatMul, 5 Mul, 2 Softmax, 1 Gemm); with only its Add, MatMul, Mul or Gemm groups
  fused (the others broken) it is within 1.2e-7 of ours, with only its two QLinearSoftmax 0.106: its binary64
  table and floor(1 / y_scale) factor move attention probabilities by a quantum (1/256) where our
  QLinearSoftmax (a correctly rounded binary32 table) rounds the other way; the int8 layers after carry it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest

import onemodel_ep
from onemodel_ep.digests import model_feeds

ROOT = Path(__file__).resolve().parents[2]
QDQ = ROOT / "testdata" / "models" / "bert_tiny_qdq.onnx"
QOP = ROOT / "testdata" / "quant" / "bert_tiny_qop.onnx"
VIAS = ("rewrite", "ep") if onemodel_ep.ep_supported() else ("rewrite",)
MODELS = {"qdq": QDQ, "qop": QOP}


def _options(threads: int = 1, level: ort.GraphOptimizationLevel | None = None) -> ort.SessionOptions:
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.log_severity_level = 3
    if level is not None:
        so.graph_optimization_level = level
    return so


def _stock(model: Path, level: ort.GraphOptimizationLevel | None = None) -> list[np.ndarray]:
    sess = ort.InferenceSession(str(model), _options(1, level), providers=["CPUExecutionProvider"])
    return sess.run(None, model_feeds(model))


def _max_err(got: list[np.ndarray], want: list[np.ndarray]) -> tuple[float, float]:
    assert [g.shape for g in got] == [w.shape for w in want]
    err = max(float(np.max(np.abs(g.astype(np.float64) - w))) for g, w in zip(got, want, strict=True))
    return err, max(float(np.max(np.abs(w))) for w in want)


@pytest.mark.parametrize("name", sorted(MODELS))
@pytest.mark.parametrize("via", VIAS)
def test_strict_every_computing_node_ours(name: str, via: str) -> None:
    """strict=True refuses a model with a computing node left to stock ORT; the QOperator model's two
    QLinearSoftmax nodes are ours."""
    for level in (ort.GraphOptimizationLevel.ORT_DISABLE_ALL, None):
        sess = onemodel_ep.InferenceSession(str(MODELS[name]), _options(1, level), via=via, strict=True)
        if name == "qop":
            assert sum(n.op == "QLinearSoftmax" for n in sess.report.moved) == 2, sess.report.summary()


@pytest.mark.parametrize("name", sorted(MODELS))
def test_same_bits_every_path_threads_and_way_in(name: str) -> None:
    model = MODELS[name]
    feeds = model_feeds(model)
    first = None
    plan = [(via, p, 1) for via in VIAS for p in onemodel_ep.kernel_paths()]
    plan += [(via, None, 2) for via in VIAS]
    for via, path, threads in plan:
        sess = onemodel_ep.InferenceSession(str(model), _options(threads), via=via, kernel_path=path)
        got = sess.run(None, feeds)
        if first is None:
            first = got
            continue
        for k, (g, w) in enumerate(zip(got, first, strict=True)):
            assert g.tobytes() == w.tobytes(), f"{name} output {k}: via {via}, path {path}, {threads} threads"


@pytest.mark.parametrize("name", sorted(MODELS))
@pytest.mark.parametrize("via", VIAS)
def test_close_to_stock(name: str, via: str) -> None:
    model = MODELS[name]
    got = onemodel_ep.InferenceSession(str(model), _options(), via=via).run(None, model_feeds(model))
    err, scale = _max_err(got, _stock(model))
    tol = 0.035 if name == "qdq" else 1e-4
    assert err <= tol * scale, f"{name} via {via}: max |ours - stock| {err:.3g}"
    if name == "qdq":  # stock unfused: DequantizeLinear, the float op, QuantizeLinear (our groups' bits here)
        err, scale = _max_err(got, _stock(model, ort.GraphOptimizationLevel.ORT_DISABLE_ALL))
        assert err <= 1e-4 * scale, f"{name} via {via}, stock unoptimised: max |ours - stock| {err:.3g}"
