"""The ONNX Runtime GenAI test models (testdata/genai, tools/gen/make_genai_models.py: onnxruntime-genai's
model builder, fp32 and int4, a random-weight 2-layer Llama) through OneModel EP, as a plain ORT session
would feed them (a prefill of 5 tokens on an empty cache, then one decode step on the present KV).

Every computing node but com.microsoft GroupQueryAttention runs on OneModel EP; GroupQueryAttention too
once the op table serves it. The logits are within float tolerance of stock ORT's.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest

import onemodel_ep
from onemodel_ep.computing import is_computing

GENAI = Path(__file__).resolve().parents[2] / "testdata" / "genai"
MODELS = ("llama_fp32", "llama_int4")
LAYERS, KV_HEADS, HEAD = 2, 2, 16
SERVED = {k.rsplit(".", 1)[-1] for k in onemodel_ep.op_table()}
NOT_YET = {"GroupQueryAttention"} - SERVED
VIAS = ("rewrite", "ep") if onemodel_ep.ep_supported() else ("rewrite",)


def _feeds(ids: np.ndarray, past: dict[str, np.ndarray] | None, total: int) -> dict[str, np.ndarray]:
    feeds = {"input_ids": ids.astype(np.int64), "attention_mask": np.ones((ids.shape[0], total), np.int64)}
    for i in range(LAYERS):
        for kv in ("key", "value"):
            name = f"past_key_values.{i}.{kv}"
            feeds[name] = past[f"present.{i}.{kv}"] if past else np.zeros((ids.shape[0], KV_HEADS, 0, HEAD),
                                                                           np.float32)
    return feeds


def _two_steps(sess: ort.InferenceSession) -> list[np.ndarray]:
    names = [o.name for o in sess.get_outputs()]
    prompt = np.array([[1, 5, 9, 13, 200]])
    first = dict(zip(names, sess.run(None, _feeds(prompt, None, 5))))
    nxt = np.argmax(first["logits"][:, -1, :], axis=-1).reshape(1, 1)
    second = dict(zip(names, sess.run(None, _feeds(nxt, first, 6))))
    return [first["logits"], second["logits"]]


def _stock(name: str) -> ort.InferenceSession:
    """Stock ORT on the model, its MatMulNBits at accuracy_level 0: the builder writes 4, with which stock
    quantizes A to int8 (about 5e-3 off here); OneModel computes in f32 at any level (docs/quantized.md)."""
    model = onnx.load(str(GENAI / name / "model.onnx"))
    for n in model.graph.node:
        for a in n.attribute:
            if n.op_type == "MatMulNBits" and a.name == "accuracy_level":
                a.i = 0
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    return ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])


def _ours(name: str, via: str) -> onemodel_ep.InferenceSession:
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.log_severity_level = 3
    return onemodel_ep.InferenceSession(str(GENAI / name / "model.onnx"), sess_options=so, via=via)


@pytest.mark.parametrize("via", VIAS)
@pytest.mark.parametrize("name", MODELS)
def test_every_computing_node_but_those_not_yet_served_is_ours(name: str, via: str) -> None:
    model = onnx.load(str(GENAI / name / "model.onnx"), load_external_data=False)
    ops = {n.op_type for n in model.graph.node}
    assert ops >= {"GroupQueryAttention", "SkipSimplifiedLayerNormalization"}
    stayed = {n.op for n in _ours(name, via).report.stayed if is_computing(n.op, n.domain)}
    assert stayed <= NOT_YET, f"{name} via {via}: computing nodes left to stock ORT: {sorted(stayed)}"


@pytest.mark.parametrize("via", VIAS)
@pytest.mark.parametrize("name", MODELS)
def test_logits_close_to_stock_over_prefill_and_decode(name: str, via: str) -> None:
    want = _two_steps(_stock(name))
    got = _two_steps(_ours(name, via))
    for g, w in zip(got, want):
        assert g.shape == w.shape
        scale = max(1.0, float(np.max(np.abs(w))))
        assert float(np.max(np.abs(g - w))) <= 1e-4 * scale
