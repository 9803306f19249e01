"""The ONNX Runtime GenAI test models (testdata/genai, tools/gen/make_genai_models.py: onnxruntime-genai's
model builder, fp32 and int4, a random-weight 2-layer Llama) through OneModel EP, as a plain ORT session
would feed them (a prefill of 5 tokens on an empty cache, then one decode step on the present KV).

Every computing node runs on OneModel EP. The logits are within float tolerance of stock ORT's, the same bits
on every kernel path, at 1, 2 and 4 threads and every optimisation level, and over a decode loop on the KV
cache the same bits for a sequence prefilled whole or in chunks, alone or in a batch (either row).
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
    """Stock ORT on the model as written: llama_int4's MatMulNBits have accuracy_level 4, at which stock and
    OneModel both quantize A to int8 per block (docs/quantized.md, "accuracy_level 4: the int8 contract")."""
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    return ort.InferenceSession(str(GENAI / name / "model.onnx"), so, providers=["CPUExecutionProvider"])


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


ALL = ort.GraphOptimizationLevel.ORT_ENABLE_ALL


def _plain(
    name: str, path: str | None = None, threads: int = 1, level: ort.GraphOptimizationLevel = ALL
) -> ort.InferenceSession:
    """A plain ORT session of the unmodified decoder through OneModel EP (no folding, no rewrite)."""
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.graph_optimization_level = level
    so.log_severity_level = 3
    options = onemodel_ep.ep_session_options(so, kernel_path=path)
    return ort.InferenceSession(str(GENAI / name / "model.onnx"), options)


LEVELS = (ort.GraphOptimizationLevel.ORT_DISABLE_ALL, ort.GraphOptimizationLevel.ORT_ENABLE_BASIC,
          ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED, ort.GraphOptimizationLevel.ORT_ENABLE_ALL)


@pytest.mark.skipif(not onemodel_ep.ep_supported(), reason="the execution provider needs ORT 1.24+")
@pytest.mark.parametrize("name", MODELS)
def test_same_bits_every_path_thread_count_and_level(name: str) -> None:
    want = b"".join(x.tobytes() for x in _two_steps(_plain(name)))
    for path in onemodel_ep.kernel_paths():
        for threads in (1, 2, 4):
            for level in LEVELS:
                got = b"".join(x.tobytes() for x in _two_steps(_plain(name, path, threads, level)))
                assert got == want, f"{name}: path {path}, {threads} thread(s), level {level}: logits differ"


def _decode(
    sess: ort.InferenceSession, prompts: np.ndarray, chunks: tuple[int, ...], steps: int
) -> list[np.ndarray]:
    """Logits per position: the prompts prefilled in `chunks` (lengths adding up to theirs), then `steps`
    greedy decode steps on the KV cache; one array [batch, tokens, vocab] per call."""
    names = [o.name for o in sess.get_outputs()]
    out: list[np.ndarray] = []
    past: dict[str, np.ndarray] | None = None
    done = 0
    for c in chunks:
        r = dict(zip(names, sess.run(None, _feeds(prompts[:, done:done + c], past, done + c))))
        out.append(r["logits"])
        past, done = r, done + c
    for _ in range(steps):
        nxt = np.argmax(out[-1][:, -1, :], axis=-1).reshape(-1, 1)
        r = dict(zip(names, sess.run(None, _feeds(nxt, past, done + 1))))
        out.append(r["logits"])
        past, done = r, done + 1
    return out


@pytest.mark.skipif(not onemodel_ep.ep_supported(), reason="the execution provider needs ORT 1.24+")
@pytest.mark.parametrize("name", MODELS)
def test_decode_loop_alone_batched_and_chunked(name: str) -> None:
    """A sequence's logits are the same bits prefilled whole or in chunks, alone or in a batch (either row),
    over a decode loop on the KV cache in plain ORT sessions."""
    sess = _plain(name)
    a = np.array([[1, 5, 9, 13, 200, 17, 3]])
    b = np.array([[42, 7, 7, 250, 1, 99, 64]])
    alone = np.concatenate([x[0] for x in _decode(sess, a, (7,), 4)], axis=0)
    chunked = np.concatenate([x[0] for x in _decode(sess, a, (3, 1, 3), 4)], axis=0)
    assert chunked.tobytes() == alone.tobytes(), f"{name}: chunked prefill changed the logits"
    for row, pair in ((0, np.concatenate([a, b])), (1, np.concatenate([b, a]))):
        batched = np.concatenate([x[row] for x in _decode(sess, pair, (7,), 4)], axis=0)
        assert batched.tobytes() == alone.tobytes(), f"{name}: batched (row {row}) changed the logits"
