"""The generated tables in docs/ match their sources: the op table (the library's op table) and the figure
tables (the measurement sets in benchmarks/)."""

import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools" / "gen"))

from gen_doc_figures import check_set, render  # noqa: E402


def _check(tool: str) -> None:
    r = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "gen" / tool), "--check"],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr


def test_op_doc_is_current():
    _check("gen_op_docs.py")


def test_doc_figures_are_current():
    _check("gen_doc_figures.py")


def test_figure_check_rejects_a_hand_edited_table():
    doc = ROOT / "docs" / "performance.md"
    text = doc.read_text()
    assert "<!-- figures: elementwise -->" in text
    edited = text.replace("| Add | 1K |", "| Add | 1K | 9.99 |", 1)
    assert edited != text and render(edited) == text


def test_figure_sets_need_provenance():
    good = json.loads((ROOT / "benchmarks" / "elementwise.json").read_text())
    assert check_set("elementwise", good) == []
    for field in ("command", "commit", "date", "machine"):
        bad = dict(good, **{field: ""})
        assert check_set("x", bad), field
        del bad[field]
        assert check_set("x", bad), field
    assert check_set("x", dict(good, rows=[good["rows"][0][:-1]]))
    assert check_set("x", dict(good, source="measured somewhere"))


def test_doc_links_resolve():
    missing = []
    for doc in sorted((ROOT / "docs").glob("*.md")):
        for m in re.finditer(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", doc.read_text()):
            target = m.group(1)
            if "://" not in target and not (doc.parent / target).exists():
                missing.append(f"{doc.name}: {target}")
    assert missing == []
