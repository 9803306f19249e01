"""The benchmark runs end to end: one-thread rows in this process, pooled rows in a child process on ORT's
global pool. Only the shape of the report is checked, never a timing."""

from __future__ import annotations

import json
import math
import statistics
from pathlib import Path
from typing import Any

import pytest

from onemodel_ep import bench
from onemodel_ep.cli import main


def _check_rows(rows: list[dict[str, Any]], ops: list[str], threads: list[int]) -> None:
    assert [(r["op"], r["threads"]) for r in rows] == [(op, th) for op in ops for th in threads]
    for r in rows:
        assert r["dtype"] == "float" and r["size"] == 1024
        assert r["served"] is True
        assert r["runs"] >= 1
        for key in ("ort_eps", "exact_eps", "fast_eps", "exact_ratio", "fast_ratio"):
            assert math.isfinite(r[key]) and r[key] > 0, (r["op"], r["threads"], key)


def test_run_one_thread_and_pooled_rows() -> None:
    rep = bench.run(["Neg", "Exp"], ["float"], ["1K"], [1, 0], budget_s=0.01, progress=False)
    _check_rows(
        [vars(r) for r in rep.rows],
        ["Neg", "Exp"],
        [1, 0],
    )
    assert rep.copy_eps > 0 and rep.overhead["ratio"] > 0


def test_cli_writes_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "bench.json"
    rc = main(
        ["bench", "--ops", "Add", "--sizes", "1K", "--threads", "0,1", "--budget", "0.01", "--json", str(out)]
    )
    assert rc == 0
    table = capsys.readouterr().out
    assert "| Add | float | 1K | default |" in table and "| Add | float | 1K | 1 |" in table
    data = json.loads(out.read_text())
    assert set(data) == {"machine", "copy_elements_per_s", "overhead", "rows"}
    _check_rows(data["rows"], ["Add"], [0, 1])  # rows keep the order of --threads


def test_feeds_are_seeded_per_configuration() -> None:
    """Parent and child draw the same inputs for a configuration, whatever ran before."""
    a = bench._feeds_seed("Exp", "float", 1024)
    assert a == bench._feeds_seed("Exp", "float", 1024)
    assert a != bench._feeds_seed("Exp", "float", 65536) and a != bench._feeds_seed("Log", "float", 1024)


def test_paired_ratios_follow_a_drifting_machine() -> None:
    """ORT's session twice as fast as ours, on a machine that slows down 3x between ORT's run and ours in the
    third of five rounds: the ratio of the overall medians says 1/6, the median of per-round ratios 1/2."""
    slow = [1.0, 1.0, 1.0, 3.0, 3.0]  # ORT's runs
    slow_ours = [1.0, 1.0, 3.0, 3.0, 3.0]  # ours, just after ORT's in each round
    ort_t = [1.0 * d for d in slow]
    ours_t = [2.0 * d for d in slow_ours]
    assert statistics.median(ort_t) / statistics.median(ours_t) == pytest.approx(1 / 6)
    assert bench._paired_ratios([ort_t, ours_t, ort_t]) == [1.0, 0.5, 1.0]


@pytest.mark.parametrize("op", bench.MM_OPS + bench.ROW_OPS)
def test_structured_op_models_run_in_stock_ort_and_match_inputs(op: str) -> None:
    """The bench's MatMul/Gemm and row-wise models are valid ONNX that stock ORT runs on their feeds
    (whether OneModel serves them is the table's business, reported per row as `served`)."""
    import numpy as np
    import onnxruntime as ort

    if op in bench.MM_OPS:
        shape = (1, 8, 16, 12) if op == "Gemm" else (3, 8, 16, 12)
        model, ins = bench._mm_model(op, bench.TYPES["float"], shape)
        feeds = bench._mm_inputs(ins, shape, op, np.random.default_rng(0))
        want = (shape[1], shape[3]) if op == "Gemm" else (shape[0], shape[1], shape[3])
    else:
        model, ins = bench._model(op, bench.TYPES["float"])
        feeds = bench._inputs(ins, 2 * bench.ROW, op, np.random.default_rng(0))
        want = (2, 1) if op.startswith("Reduce") else (2, bench.ROW)
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    assert sess.run(None, feeds)[0].shape == want


def test_matmul_rows_report_flops() -> None:
    rows = bench._measure_mm("MatMul", "float", 1, 0.01, False, False, "rewrite")
    assert [r.shape for r in rows] == ["x".join(map(str, s)) for s in bench.MM_SHAPES]
    for r, s in zip(rows, bench.MM_SHAPES):
        assert r.size == 2 * s[0] * s[1] * s[2] * s[3] and r.served and r.exact_eps > 0
