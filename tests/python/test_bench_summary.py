"""`onemodel bench --summarize`: ranges over runs and the issue-6 target verdicts, on synthetic reports (the
verdict logic, not any timing)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from onemodel_ep import bench_summary
from onemodel_ep.cli import main

M = 1 << 20


def _row(op: str, size: int, threads: int, exact: float, fast: float, served: bool = True) -> dict:
    ort = 1e9
    return {
        "op": op,
        "dtype": "float",
        "size": size,
        "threads": threads,
        "served": served,
        "runs": 10,
        "ort_eps": ort,
        "exact_eps": exact * ort,
        "fast_eps": fast * ort,
        "exact_ratio": exact,
        "fast_ratio": fast,
    }


def _run(rows: list[dict], overhead: float = 1.01, date: str = "2026-12-01 10:00:00") -> dict:
    return {
        "machine": {"cpu": "test cpu", "cpus": 2, "onnxruntime": "1.31.1", "date": date},
        "copy_elements_per_s": 2e9,
        "overhead": {"elements": 1024, "builtin_s": 1e-5, "custom_s": overhead * 1e-5, "ratio": overhead},
        "rows": rows,
    }


def _runs() -> list[dict]:
    a = [
        _row("Tanh", M, 1, 0.55, 1.10),  # met in both runs
        _row("Tanh", 16 * M, 1, 0.95, 1.20),  # edge: 0.95 then 0.85
        _row("Gelu", 16 * M, 0, 0.80, 1.60),  # missed in both
        _row(
            "Add", 1 << 10, 1, 0.99, 1.01
        ),  # exact missed (cheap operator at every size), fast not covered at 1K
        _row("Log", M, 1, 2.5, 4.0),
        _row("Where", M, 1, 1.0, 1.0, served=False),  # stock ORT on both sides: left out
    ]
    b = [dict(r) for r in a]
    b[1] = _row("Tanh", 16 * M, 1, 0.85, 1.25)
    b[2] = _row("Gelu", 16 * M, 0, 0.70, 1.55)
    return [_run(a), _run(b, overhead=1.25, date="2026-12-01 10:05:00")]


def test_verdicts() -> None:
    text = bench_summary.summarize(_runs())
    assert "- per-call overhead <= 1.2x: edge (1.01-1.25x)" in text
    assert "exact >= 0.5x for the transcendentals at 1M: 2 of 2 cells met, 0 at the edge, 0 missed" in text
    assert "exact >= 0.9x for the transcendentals at 16M: 0 of 2 cells met, 1 at the edge, 1 missed" in text
    assert "  - edge: Tanh float 16M 1 thread 0.85-0.95" in text
    assert "  - missed: Gelu float 16M default threads 0.70-0.80" in text
    assert (
        "exact >= 1.0x for every non-transcendental operator: 0 of 1 cells met, 0 at the edge, 1 missed"
        in text
    )
    assert "  - missed: Add float 1K 1 thread 0.99" in text
    assert "fast >= 1.0x for every operator at 64K elements and above: 4 of 4 cells met" in text
    assert "exact Log >= 2x at 1M and 16M: 1 of 1 cells met" in text
    assert "Where" not in text
    assert "| Tanh | float | 16M | 1 | 1.00 | 0.85-0.95 | 1.20-1.25 | 0.85-0.95 | 1.20-1.25 |" in text


def test_boundary_is_met() -> None:
    text = bench_summary.summarize([_run([_row("Exp", 16 * M, 1, 0.9, 1.0)])])
    assert "exact >= 0.9x for the transcendentals at 16M: 1 of 1 cells met" in text
    assert "fast >= 1.0x for every operator at 64K elements and above: 1 of 1 cells met" in text


def test_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    paths = []
    for i, run in enumerate(_runs()):
        p = tmp_path / f"r{i}.json"
        p.write_text(json.dumps(run))
        paths.append(str(p))
    assert main(["bench", "--summarize", *paths]) == 0
    out = capsys.readouterr().out
    assert out.startswith("2 run(s):") and "missed: Gelu float 16M default threads 0.70-0.80" in out


def test_cli_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    assert main(["bench", "--summarize", str(bad)]) == 2
    assert "not a report written by `onemodel bench --json`" in capsys.readouterr().err
    assert main(["bench", "--summarize", str(tmp_path / "missing.json")]) == 2
    assert "cannot read a bench report" in capsys.readouterr().err
