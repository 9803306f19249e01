"""Turns an `onemodel bench --json` report into a measurement set of benchmarks/ (schema in its README.md).

    onemodel bench --ops Add,Exp --sizes 64K,1M --threads 1 --json /tmp/r.json
    python tools/gen/bench_to_figures.py /tmp/r.json --name NAME --title "..." \\
        --command "onemodel bench --ops Add,Exp --sizes 64K,1M --threads 1 --json /tmp/r.json" \\
        --load "load average 6.2-6.5 from other jobs" [--commit abc1234] [--notes "..."]

The commit defaults to the work tree's HEAD (refused if tracked files differ from it: the figures would not be
that commit's). The date is the report's (the bench writes local time; this converts it to UTC).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).resolve().parent))

from gen_doc_figures import SETS, check_set  # noqa: E402

SIZE_NAMES = {1 << 10: "1K", 1 << 16: "64K", 1 << 20: "1M", 1 << 24: "16M"}
COLUMNS = ["op", "type", "size", "threads", "ORT G/s", "exact G/s", "fast G/s", "exact/ORT", "fast/ORT"]


def _git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()


def head_commit() -> str:
    if _git("status", "--porcelain", "--untracked-files=no"):
        raise SystemExit("tracked files differ from HEAD: commit first, or name the commit with --commit")
    return _git("rev-parse", "--short", "HEAD")


def utc_date(local: str) -> str:
    t = time.mktime(time.strptime(local, "%Y-%m-%d %H:%M:%S"))
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(t))


def row(r: dict[str, Any]) -> list[str]:
    size = r["shape"] or SIZE_NAMES.get(r["size"], str(r["size"]))
    threads = "default" if r["threads"] == 0 else str(r["threads"])
    g = [f"{r[k] / 1e9:.2f}" for k in ("ort_eps", "exact_eps", "fast_eps")]
    return [r["op"], r["dtype"], size, threads, *g, f"{r['exact_ratio']:.2f}", f"{r['fast_ratio']:.2f}"]


def convert(
    rep: dict[str, Any], title: str, command: str, commit: str, load: str, notes: str
) -> dict[str, Any]:
    m = rep["machine"]
    cpu = m.get("cpu") or m.get("processor") or "unknown CPU"
    ov = rep.get("overhead") or {}
    extra = [f"float32 copy (16M) {rep['copy_elements_per_s'] / 1e9:.2f} G elements/s"]
    if ov:
        extra.append(
            f"per-call cost of Add on {ov['elements']} floats, one thread: "
            f"built-in {ov['builtin_s'] * 1e6:.1f} us, "
            f"ours via {m.get('via', 'rewrite')} {ov['custom_s'] * 1e6:.1f} us"
        )
    return {
        "title": title,
        "command": command,
        "commit": commit,
        "date": utc_date(m["date"]),
        "machine": f"{cpu}, {m['cpus']} cores, {load}",
        "ort_version": m["onnxruntime"],
        "columns": COLUMNS,
        "rows": [row(r) for r in rep["rows"]],
        "notes": "; ".join([*extra, notes] if notes else extra),
    }


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("report", help="the file `onemodel bench --json` wrote")
    p.add_argument("--name", required=True, help="writes benchmarks/NAME.json")
    p.add_argument("--title", required=True)
    p.add_argument("--command", required=True, help="the exact command that produced the report")
    p.add_argument("--load", required=True, help="the load during the run: 'load average 6.2-6.5'")
    p.add_argument("--commit", default=None, help="default: HEAD, which must be clean")
    p.add_argument("--notes", default="")
    a = p.parse_args(argv)
    rep = json.loads(Path(a.report).read_text())
    data = convert(rep, a.title, a.command, a.commit or head_commit(), a.load, a.notes)
    errors = check_set(a.name, data)
    if errors:
        raise SystemExit("; ".join(errors))
    out = SETS / f"{a.name}.json"
    out.write_text(json.dumps(data, indent=1) + "\n")
    print(f"wrote {out.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
