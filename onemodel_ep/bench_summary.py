"""Summary of several `onemodel bench --json` runs: each cell's range over the runs, and the targets of
issue 6.

One run on a shared VM moves a cell by several percent, so the docs quote ranges over runs. This reads
the JSON files that `onemodel bench --json` wrote (no timing of its own) and prints

- the machine line of each run (its date, the float32 copy rate and the per-call overhead);
- every target of issue 6 with its cells: **met** where every run meets it, **missed** where no run does, and
  **edge** otherwise, each edge or missed cell with its range;
- a table of every cell's exact/ORT and fast/ORT range and its G elements/s ranges.

    onemodel bench --json r1.json && onemodel bench --json r2.json && onemodel bench --json r3.json
    onemodel bench --summarize r1.json r2.json r3.json
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

# The correctly rounded transcendentals of exact mode (their own targets); every other operator is "cheap".
TRANSCENDENTAL = frozenset({"Exp", "Log", "Tanh", "Sigmoid", "Erf", "Gelu", "Pow"})
_K, _M = 1 << 10, 1 << 20
SIZE_NAMES = {_K: "1K", 64 * _K: "64K", _M: "1M", 16 * _M: "16M"}

Cell = tuple[str, str, int, int]  # op, element type, size, threads (0: ORT's default)


@dataclass(frozen=True)
class Target:
    """One target: which rows it covers, which ratio ("exact" or "fast") and the least ratio that meets it."""

    name: str
    mode: str
    least: float
    covers: Callable[[Cell], bool]


TARGETS = (
    Target(
        "fast >= 1.0x for every operator at 64K elements and above", "fast", 1.0, lambda c: c[2] >= 64 * _K
    ),
    Target(
        "exact >= 1.0x for every non-transcendental operator",
        "exact",
        1.0,
        lambda c: c[0] not in TRANSCENDENTAL,
    ),
    Target(
        "exact >= 0.5x for the transcendentals at 1M",
        "exact",
        0.5,
        lambda c: c[0] in TRANSCENDENTAL and c[2] == _M,
    ),
    Target(
        "exact >= 0.9x for the transcendentals at 16M",
        "exact",
        0.9,
        lambda c: c[0] in TRANSCENDENTAL and c[2] == 16 * _M,
    ),
    Target("exact Log >= 2x at 1M and 16M", "exact", 2.0, lambda c: c[0] == "Log" and c[2] in (_M, 16 * _M)),
)
OVERHEAD_MOST = 1.2  # per-call time of one custom-op node on 1K elements over the built-in node's


def cell_name(c: Cell) -> str:
    size = SIZE_NAMES.get(c[2], str(c[2]))
    threads = "default threads" if c[3] == 0 else f"{c[3]} thread" + ("s" if c[3] > 1 else "")
    return f"{c[0]} {c[1]} {size} {threads}"


def _span(values: Sequence[float]) -> str:
    lo, hi = min(values), max(values)
    return f"{lo:.2f}" if f"{lo:.2f}" == f"{hi:.2f}" else f"{lo:.2f}-{hi:.2f}"


def _verdict(values: Sequence[float], meets: Callable[[float], bool]) -> str:
    """met when every run's value meets the target, missed when none does, edge otherwise."""
    hits = [meets(v) for v in values]
    return "met" if all(hits) else "edge" if any(hits) else "missed"


def collect(runs: Sequence[dict[str, Any]]) -> dict[Cell, list[dict[str, Any]]]:
    """Each served cell's rows, one per run that has it (cells where stock ORT ran on both sides are left
    out)."""
    cells: dict[Cell, list[dict[str, Any]]] = {}
    for run in runs:
        for row in run["rows"]:
            if row.get("served", True):
                cells.setdefault((row["op"], row["dtype"], row["size"], row["threads"]), []).append(row)
    return cells


def summarize(runs: Sequence[dict[str, Any]]) -> str:
    """The text `onemodel bench --summarize` prints for these runs (each a `Report.to_json()` dict)."""
    if not runs:
        raise ValueError("no runs to summarize")
    cells = collect(runs)
    overhead = [r["overhead"]["ratio"] for r in runs]  # custom / built-in time, median of adjacent runs
    lines = [f"{len(runs)} run(s):"]
    for run, ov in zip(runs, overhead):
        m = run["machine"]
        lines.append(
            f"- {m.get('date', '?')}: {m.get('cpu', m.get('processor', '?'))}, {m.get('cpus', '?')} cpus, "
            f"onnxruntime {m.get('onnxruntime', '?')}; "
            f"float32 copy {run['copy_elements_per_s'] / 1e9:.2f} G elements/s; "
            f"per-call overhead {ov:.2f}x"
        )
    lines += ["", "Targets (met: in every run; missed: in none; edge: in some):", ""]
    ov_verdict = _verdict(overhead, lambda v: v <= OVERHEAD_MOST)
    lines.append(f"- per-call overhead <= {OVERHEAD_MOST}x: {ov_verdict} ({_span(overhead)}x)")
    for t in TARGETS:
        verdicts: dict[str, list[str]] = {"met": [], "edge": [], "missed": []}
        for c, rows in cells.items():
            if t.covers(c):
                values = [r[f"{t.mode}_ratio"] for r in rows]
                verdict = _verdict(values, lambda v, least=t.least: v >= least)
                verdicts[verdict].append(f"{cell_name(c)} {_span(values)}")
        n = sum(len(v) for v in verdicts.values())
        if n == 0:
            lines.append(f"- {t.name}: no cell measured")
            continue
        lines.append(
            f"- {t.name}: {len(verdicts['met'])} of {n} cells met, {len(verdicts['edge'])} at the edge, "
            f"{len(verdicts['missed'])} missed"
        )
        for kind in ("missed", "edge"):
            lines += [f"  - {kind}: {cell}" for cell in verdicts[kind]]
    lines += [
        "",
        "| op | type | size | threads | ORT G/s | exact G/s | fast G/s | exact/ORT | fast/ORT |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for c, rows in cells.items():
        g = {k: _span([r[f"{k}_eps"] / 1e9 for r in rows]) for k in ("ort", "exact", "fast")}
        threads = "default" if c[3] == 0 else c[3]
        lines.append(
            f"| {c[0]} | {c[1]} | {SIZE_NAMES.get(c[2], c[2])} | {threads} | {g['ort']} | "
            f"{g['exact']} | {g['fast']} | {_span([r['exact_ratio'] for r in rows])} | "
            f"{_span([r['fast_ratio'] for r in rows])} |"
        )
    return "\n".join(lines)


def load(paths: Sequence[str]) -> list[dict[str, Any]]:
    """The runs in these JSON files; a ValueError naming the file for one that is not a bench report."""
    runs = []
    for p in paths:
        try:
            with open(p) as f:
                run = json.load(f)
        except (OSError, ValueError) as e:  # ValueError: not JSON, or not text (UnicodeDecodeError)
            raise ValueError(f"{p}: cannot read a bench report: {e}") from e
        if (
            not isinstance(run, dict)
            or not {"machine", "rows", "overhead", "copy_elements_per_s"} <= run.keys()
        ):
            raise ValueError(f"{p}: not a report written by `onemodel bench --json`")
        runs.append(run)
    return runs
