"""The BERT test model as ONNX Runtime's transformer optimiser rewrites it
(testdata/fused/bert_tiny_fused.onnx, tools/gen/make_fused_bert.py: two com.microsoft Attention with a 1-D
mask_index, SkipLayerNormalization, BiasGelu) through OneModel EP: every node runs on our kernels; the outputs
are the same bits on every kernel path, at 1 and 2 threads, both ways in; and within float tolerance of stock
ORT."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest

import onemodel_ep

MODEL = Path(__file__).resolve().parents[2] / "testdata" / "fused" / "bert_tiny_fused.onnx"
VIAS = ("rewrite", "ep") if onemodel_ep.ep_supported() else ("rewrite",)


def _feeds() -> dict[str, np.ndarray]:
    """Two sequences, the second right-padded (its last 3 of 9 tokens masked)."""
    rng = np.random.default_rng(7)
    ids = rng.integers(0, 100, (2, 9)).astype(np.int64)
    mask = np.ones((2, 9), np.int64)
    mask[1, 6:] = 0
    return {"input_ids": ids, "attention_mask": mask}


def _ours(via: str, path: str | None, threads: int) -> onemodel_ep.InferenceSession:
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.log_severity_level = 3
    return onemodel_ep.InferenceSession(str(MODEL), so, mode="exact", kernel_path=path, via=via)


def test_the_model_holds_what_the_optimiser_writes() -> None:
    ops = [n.op_type for n in onnx.load(str(MODEL)).graph.node]
    assert ops.count("Attention") == 2 and ops.count("SkipLayerNormalization") == 4, ops


@pytest.mark.parametrize("via", VIAS)
def test_every_node_runs_on_onemodel(via: str) -> None:
    sess = _ours(via, None, 1)
    moved = [n.op for n in sess.report.moved]
    assert moved.count("Attention") == 2 and moved.count("BiasGelu") == 2, sess.report.summary()
    assert not sess.report.stayed, sess.report.summary()


def test_same_bits_every_path_threads_and_way_in() -> None:
    feeds = _feeds()
    first: list[np.ndarray] | None = None
    plan = [(via, p, 1) for via in VIAS for p in onemodel_ep.kernel_paths()]
    plan += [(via, None, 2) for via in VIAS]
    for via, path, threads in plan:
        got = _ours(via, path, threads).run(None, feeds)
        if first is None:
            first = got
            continue
        for g, w in zip(got, first):
            assert g.tobytes() == w.tobytes(), (via, path, threads)


def test_close_to_stock() -> None:
    """Within 1e-5 of stock ORT 1.31.1 times the largest magnitude (ours and stock sum in other orders)."""
    feeds = _feeds()
    stock = ort.InferenceSession(str(MODEL), providers=["CPUExecutionProvider"]).run(None, feeds)
    for via in VIAS:
        for g, w in zip(_ours(via, None, 1).run(None, feeds), stock):
            np.testing.assert_allclose(g, w, rtol=0, atol=1e-5 * max(1.0, float(np.abs(w).max())))
