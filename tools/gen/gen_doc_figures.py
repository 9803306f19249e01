"""Writes the figure tables of docs/*.md from the measurement sets in benchmarks/*.json.

    python tools/gen/gen_doc_figures.py          # rewrite every marked region in place
    python tools/gen/gen_doc_figures.py --check  # exit 1 if a doc differs or a set is malformed

A doc marks a region

    <!-- figures: NAME -->
    ...
    <!-- /figures -->

and this writes into it the table of benchmarks/NAME.json and, under it, one line naming the command, commit,
date and machine that produced the figures (and, for a set transcribed from an earlier record, that it was).
The schema is in benchmarks/README.md; `check_set` enforces it, so a doc cannot show a figure without its
provenance.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
SETS = ROOT / "benchmarks"
# groups: 1 the start marker line, 2 its indent (a region in a list item is indented), 3 NAME, 5 end marker
REGION = re.compile(
    r"^(([ \t]*)<!-- figures: ([A-Za-z0-9_.-]+) -->\n)(.*?)^([ \t]*<!-- /figures -->)", re.S | re.M
)
REQUIRED = ("title", "command", "commit", "date", "machine", "ort_version", "columns", "rows", "notes")


def check_set(name: str, data: Any) -> list[str]:
    """What is wrong with one measurement set (empty when nothing is)."""
    if not isinstance(data, dict):
        return [f"{name}: not a JSON object"]
    errors = [f"{name}: missing field {k!r}" for k in REQUIRED if k not in data]
    for k in ("title", "command", "commit", "date", "machine", "ort_version", "notes"):
        if k in data and not isinstance(data[k], str):
            errors.append(f"{name}: {k!r} must be a string")
    for k in ("title", "command", "commit", "date", "machine"):
        if isinstance(data.get(k), str) and not data[k].strip():
            errors.append(f"{name}: {k!r} is empty")
    source = data.get("source", "transcribed from ")
    if not (isinstance(source, str) and source.startswith("transcribed from ")):
        errors.append(f"{name}: 'source' must read 'transcribed from docs/X.md at <commit>, ...'")
    cols = data.get("columns")
    if not (isinstance(cols, list) and cols and all(isinstance(c, str) for c in cols)):
        errors.append(f"{name}: 'columns' must be a non-empty list of strings")
        return errors
    rows = data.get("rows")
    if not (isinstance(rows, list) and rows):
        errors.append(f"{name}: 'rows' must be a non-empty list")
        return errors
    for i, row in enumerate(rows):
        if not isinstance(row, list) or len(row) != len(cols):
            errors.append(f"{name}: row {i} must be a list of {len(cols)} cells")
        elif not all(isinstance(c, (str, int, float)) and not isinstance(c, bool) for c in row):
            errors.append(f"{name}: row {i} has a cell that is not a string or number")
    return errors


def load_set(name: str) -> dict[str, Any]:
    path = SETS / f"{name}.json"
    if not path.is_file():
        raise ValueError(f"no measurement set {path.relative_to(ROOT)}")
    data = json.loads(path.read_text())
    errors = check_set(name, data)
    if errors:
        raise ValueError("; ".join(errors))
    return data


def _cell(v: str | int | float) -> str:
    return str(v).replace("|", "\\|")


def provenance(name: str, data: dict[str, Any]) -> str:
    """The line under a table: command, commit, date, machine; and where the figures were transcribed from."""
    line = f"`{data['command']}` at `{data['commit']}`, {data['date']}, {data['machine']}"
    line += f" ([benchmarks/{name}.json](../benchmarks/{name}.json)"
    if "source" in data:
        line += "; transcribed from an earlier record"
    return line + ")."


def table(name: str, data: dict[str, Any]) -> str:
    cols = data["columns"]
    lines = ["| " + " | ".join(_cell(c) for c in cols) + " |", "|" + "---|" * len(cols)]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in data["rows"]]
    return "\n".join(lines) + "\n\n" + provenance(name, data) + "\n"


def _region(m: re.Match[str]) -> str:
    indent = m.group(2)
    lines = table(m.group(3), load_set(m.group(3))).splitlines(True)
    body = "".join(indent + line if line.strip() else line for line in lines)
    return m.group(1) + body + m.group(5)


def render(text: str) -> str:
    return REGION.sub(_region, text)


def all_sets() -> list[str]:
    return sorted(p.stem for p in SETS.glob("*.json"))


def main(argv: list[str]) -> int:
    check = "--check" in argv
    bad: list[str] = []
    for name in all_sets():
        try:
            load_set(name)
        except (ValueError, json.JSONDecodeError) as e:
            bad.append(str(e))
    used: set[str] = set()
    for doc in sorted(DOCS.glob("*.md")):
        text = doc.read_text()
        used.update(m.group(3) for m in REGION.finditer(text))
        try:
            new = render(text)
        except (ValueError, json.JSONDecodeError) as e:
            bad.append(f"{doc.relative_to(ROOT)}: {e}")
            continue
        if new == text:
            continue
        if check:
            bad.append(f"{doc.relative_to(ROOT)} is out of date: run python tools/gen/gen_doc_figures.py")
        else:
            doc.write_text(new)
            print(f"wrote {doc.relative_to(ROOT)}")
    bad += [f"benchmarks/{n}.json is shown in no doc" for n in all_sets() if n not in used]
    for b in bad:
        print(b, file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
