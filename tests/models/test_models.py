"""The test models (testdata/models: tools/gen/make_test_models.py writes the transformers,
tools/gen/make_cnn_models.py the CNNs, tools/gen/make_quant_models.py their quantized forms,
tools/gen/make_seq_models.py the U-Net, CRNN and GRU audio models) run end to end
on OneModel EP.

Both ways in (the model rewritten to ai.onemodel, and OneModel as an execution provider where ORT supports
it) x every kernel path x intra_op_num_threads 1, 2, 4 x every ORT optimisation level give the same bits;
the outputs are within 1e-4 (scaled by max(1, max|stock|)) of stock ORT; and every node that computes
runs on OneModel EP kernels, and so does every data-movement node of an op the library serves (Reshape,
Transpose, Gather, Concat, Slice, Range ...): only those of ops it does not serve stay with stock ORT.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest

import onemodel_ep
from onemodel_ep.digests import float_input

MODELS = Path(__file__).resolve().parents[2] / "testdata" / "models"
NAMES = ("audio_gru_small", "bert_tiny", "bert_tiny_dynq", "crnn_small", "llama_tiny",
         "mobilenet_v3_small_half", "resnet18_small", "resnet18_small_qdq", "unet_small")
THREADS = (1, 2, 4)
LEVELS = {
    "disable_all": ort.GraphOptimizationLevel.ORT_DISABLE_ALL,
    "basic": ort.GraphOptimizationLevel.ORT_ENABLE_BASIC,
    "extended": ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED,
    "all": ort.GraphOptimizationLevel.ORT_ENABLE_ALL,
}
TOLERANCE = 1e-4

# Operators that only move, select or describe data (or make index tensors); they may stay with stock ORT.
DATA_MOVEMENT = frozenset({
    "Shape", "Size", "Reshape", "Transpose", "Gather", "GatherElements", "GatherND", "Concat", "Slice",
    "Split", "Unsqueeze", "Squeeze", "Expand", "Flatten", "Identity", "Constant", "ConstantOfShape", "Range",
    "Tile", "Pad",
})

def _feeds(name: str, batch: int, seq: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seq * 100 + batch)
    single = float_input(MODELS / f"{name}.onnx")
    if single is not None:  # seq only varies the seed
        in_name, shape = single
        return {in_name: rng.standard_normal((batch, *shape[1:])).astype(np.float32)}
    feeds = {"input_ids": rng.integers(0, 256, size=(batch, seq), dtype=np.int64)}
    if name.startswith("bert_tiny"):
        mask = np.ones((batch, seq), dtype=np.int64)
        mask[-1, max(1, seq - 3):] = 0  # padding at the end of the last row
        feeds["attention_mask"] = mask
    return feeds


VIAS = ("rewrite", "ep") if onemodel_ep.ep_supported() else ("rewrite",)


def _ours(name: str, via: str, path: str | None, threads: int = 1,
          level: ort.GraphOptimizationLevel = LEVELS["all"]) -> onemodel_ep.InferenceSession:
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.graph_optimization_level = level
    so.log_severity_level = 3  # ORT's notice that shape ops stay on the CPU EP
    return onemodel_ep.InferenceSession(str(MODELS / f"{name}.onnx"), sess_options=so, mode="exact",
                                        kernel_path=path, via=via)


def _stock(name: str, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.graph_optimization_level = LEVELS["disable_all"]
    sess = ort.InferenceSession(str(MODELS / f"{name}.onnx"), so, providers=["CPUExecutionProvider"])
    return sess.run(None, feeds)


def _pairwise_settings() -> list[tuple[str, str, int, str]]:
    """(via, kernel path, threads, level) rows in which every pair of values of two of the four factors occurs
    at least once: row (p, j) for path p and level j takes threads THREADS[(p + j) % 3] and via
    VIAS[(p + j) % 2]. With 4 paths and 4 levels that is 16 sessions instead of the 96 of the full
    product; the full product of via x path x 1 and 2 threads is tests/models/test_golden.py's (every model
    against its golden digest), so what this adds is 4 threads and the optimisation levels, each met with
    every path."""
    rows = []
    for p, path in enumerate(onemodel_ep.kernel_paths()):
        for j, level_name in enumerate(LEVELS):
            rows.append((VIAS[(p + j) % len(VIAS)], path, THREADS[(p + j) % len(THREADS)], level_name))
    return rows


@pytest.mark.parametrize("name", NAMES)
def test_same_bits_on_every_path_thread_count_and_level(name: str) -> None:
    """One set of bits for every (via, kernel path, intra-op threads, optimisation level), met pairwise."""
    feeds = _feeds(name, 2, 7)
    want: list[np.ndarray] | None = None
    first = ""
    for via, path, threads, level_name in _pairwise_settings():
        got = _ours(name, via, path, threads, LEVELS[level_name]).run(None, feeds)
        where = f"via {via}, path {path}, {threads} thread(s), level {level_name}"
        if want is None:
            want, first = got, where
            continue
        for i, (g, w) in enumerate(zip(got, want)):
            assert g.dtype == w.dtype and g.shape == w.shape, (name, where, i)
            diff = np.flatnonzero(g.view(np.uint32).ravel() != w.view(np.uint32).ravel())
            assert diff.size == 0, (
                f"{name} output {i}: {diff.size} element(s) differ between {first} and {where}, "
                f"max |diff| {float(np.max(np.abs(g - w)))}"
            )


def test_pairwise_settings_meet_every_pair() -> None:
    rows = _pairwise_settings()
    paths = onemodel_ep.kernel_paths()
    assert {(r[1], r[3]) for r in rows} == {(p, lv) for p in paths for lv in LEVELS}
    assert {(r[2], r[3]) for r in rows} == {(t, lv) for t in THREADS for lv in LEVELS}
    if len(paths) >= 3:
        assert {(r[1], r[2]) for r in rows} == {(p, t) for p in paths for t in THREADS}
    assert {(r[0], r[3]) for r in rows} == {(v, lv) for v in VIAS for lv in LEVELS}
    if len(paths) >= 2:
        assert {(r[0], r[1]) for r in rows} == {(v, p) for v in VIAS for p in paths}
    if len(paths) + len(LEVELS) >= 7:
        assert {(r[0], r[2]) for r in rows} == {(v, t) for v in VIAS for t in THREADS}


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize(("batch", "seq"), [(1, 1), (2, 7), (3, 17)])
def test_close_to_stock_ort(name: str, batch: int, seq: int) -> None:
    feeds = _feeds(name, batch, seq)
    stock = _stock(name, feeds)
    scale = max(1.0, max(float(np.max(np.abs(s))) for s in stock))
    for via in VIAS:
        ours = _ours(name, via, None).run(None, feeds)
        for i, (o, s) in enumerate(zip(ours, stock)):
            assert o.shape == s.shape and o.dtype == s.dtype
            assert np.all(np.isfinite(o)), (name, via, i)
            err = float(np.max(np.abs(o.astype(np.float64) - s.astype(np.float64))))
            assert err <= TOLERANCE * scale, f"{name} output {i}, via {via}: max |ours-stock| {err:.3g}"


def _computing_stayed(name: str) -> set[str]:
    """Computing ops left to stock ORT, over both ways in and the default and no optimisation."""
    stayed: set[str] = set()
    for via in VIAS:
        for level in (LEVELS["disable_all"], LEVELS["all"]):
            report = _ours(name, via, None, level=level).report
            assert report.nodes, "the report is empty"
            stayed |= {n.op for n in report.stayed if n.op not in DATA_MOVEMENT}
    return stayed


@pytest.mark.parametrize("name", NAMES)
def test_every_computing_node_is_retargeted(name: str) -> None:
    stayed = _computing_stayed(name)
    assert not stayed, f"{name}: computing nodes left to stock ORT: {sorted(stayed)}"


@pytest.mark.parametrize("name", NAMES)
def test_served_data_movement_runs_on_onemodel(name: str) -> None:
    served = DATA_MOVEMENT & set(onemodel_ep.op_table())
    assert {"Reshape", "Transpose", "Gather", "Concat", "Slice", "Expand", "Range"} <= served
    stayed: set[str] = set()
    for via in VIAS:
        stayed |= {f"{n.op} {n.name} ({via}): {n.reason}" for n in _ours(name, via, None).report.stayed
                   if n.op in served}
    assert not stayed, f"{name}: data-movement nodes the library serves left to stock ORT: {sorted(stayed)}"
