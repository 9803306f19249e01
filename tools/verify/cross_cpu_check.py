"""Exact-mode fingerprint of every served operator, to compare across CPUs.

    python tools/verify/cross_cpu_check.py --out native.json
    qemu-x86_64 -cpu Haswell     $(which python) tools/verify/cross_cpu_check.py --out haswell.json
    qemu-x86_64 -cpu SandyBridge $(which python) tools/verify/cross_cpu_check.py --out sandybridge.json
    # on AArch64 (tools/verify/arm64_check.sh runs it)
    python tools/verify/cross_cpu_check.py --out arm64.json
    python tools/verify/cross_cpu_check.py --compare native.json haswell.json sandybridge.json arm64.json
    python tools/verify/cross_cpu_check.py --golden      # this CPU, every path, against testdata/golden

Each run computes, on every kernel path the CPU has (real CPUID or HWCAP dispatch, under qemu too), every
case of onemodel_ep.digests.op_cases() (every operator of the op table for every element type it takes, on
seeded inputs that reach the edges, the structured ops on blocked shapes, every unary operator on all 65,536
float16 and bfloat16 patterns) and the test models of testdata/models, rewritten, at one and two threads, and
records the SHA-256 digest of the outputs: the cases and the digest of testdata/golden/digests.json, which
`--golden [FILE]` checks a run against. Exact mode promises the same digest on every path of every machine.

--mode fast records fast mode instead, which promises a bound, not the same bits across paths; compare then
selects paths to hold to the same bits with FILE:PATH,... and cases with --keys REGEX (for example
--keys '^(Exp|Log|Tanh|Sigmoid|Erf|Gelu)\\(1\\)' x86.json:256 arm64.json:128: AArch64's 128 path runs the
256 path's FMA bodies for the f32 transcendentals).
"""

from __future__ import annotations

import argparse
import json
import platform
import re
import sys
from pathlib import Path
from typing import Any

from onemodel_ep import kernel_paths
from onemodel_ep.digests import model_digest, model_files, model_key, op_cases, output_digest

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "testdata" / "golden" / "digests.json"


def fingerprint(mode: str = "exact") -> dict[str, Any]:
    out: dict[str, Any] = {"machine": platform.processor() or platform.machine(), "arch": platform.machine(),
                           "mode": mode, "paths": kernel_paths(), "digests": {}}
    for case in op_cases():
        digests = {}
        for path in kernel_paths():
            ys = case.outputs(mode, path)
            if ys is None:  # not served for these types
                break
            digests[path] = output_digest(ys)
        if digests:
            out["digests"][case.key] = digests
    for model_file in model_files(ROOT / "testdata"):  # the test models, rewritten, at one and two threads
        for threads in (1, 2):
            out["digests"][f"model:{model_key(model_file)}:threads={threads}"] = {
                path: model_digest(model_file, path, via="rewrite", threads=threads, mode=mode)
                for path in kernel_paths()
            }
    return out


def check_golden(fp: dict[str, Any], golden_file: Path) -> int:
    """0 when every case and model of this run has the golden digest on every path (exact mode only)."""
    golden = json.loads(golden_file.read_text())
    bad = 0
    for key, per_path in sorted(fp["digests"].items()):
        want = golden["models"].get(key.split(":")[1]) if key.startswith("model:") else golden["ops"].get(key)
        for path, d in per_path.items():
            if d != want:
                bad += 1
                print(f"DIFFER from golden {key} on path {path}: {d} (golden {want})")
    missing = sorted(set(golden["ops"]) - set(fp["digests"]))
    for key in missing:
        print(f"MISSING golden case {key}")
    print(f"{len(fp['digests'])} cases on paths {fp['paths']} against {golden_file} (bits version "
          f"{golden['bits_version']}): {bad} digests differ, {len(missing)} golden cases not run")
    return 1 if bad or missing else 0


def compare(specs: list[str], keys_re: str | None = None) -> int:
    """0 when every selected (file, path) gives the same digest for every case (those whose key matches
    keys_re, when given); a spec is FILE or FILE:PATH,PATH (only those paths of that file)."""
    files: list[str] = []
    runs: list[dict[str, Any]] = []
    chosen: list[set[str] | None] = []
    for spec in specs:
        name, _, sel = spec.partition(":") if not spec.endswith(".json") else (spec, "", "")
        files.append(name)
        runs.append(json.load(open(name)))
        chosen.append(set(sel.split(",")) if sel else None)
    modes = {r.get("mode", "exact") for r in runs}
    if len(modes) > 1:
        print(f"the files hold different modes: {sorted(modes)}")
        return 2
    bad = 0
    keys = sorted(set().union(*(r["digests"].keys() for r in runs)))
    if keys_re:
        keys = [k for k in keys if re.search(keys_re, k)]
    n_pairs = 0
    for key in keys:
        seen = {}
        for f, r, sel in zip(files, runs, chosen):
            for path, d in r["digests"].get(key, {}).items():
                if sel is None or path in sel:
                    seen[f"{f}:{path}"] = d
        n_pairs += len(seen)
        if len(set(seen.values())) > 1:
            bad += 1
            print(f"DIFFER {key}: {seen}")
    print(f"{len(keys)} op/type cases, {n_pairs} (case, machine, path) digests, {bad} cases differ "
          f"({modes.pop()} mode)")
    for f, r, sel in zip(files, runs, chosen):
        print(f"  {f}: {r.get('arch', r['machine'])}, paths {r['paths']}"
              + (f", compared {sorted(sel)}" if sel else ""))
    return 1 if bad else 0


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--out")
    p.add_argument("--mode", choices=("exact", "fast"), default="exact")
    p.add_argument("--compare", nargs="+", metavar="FILE[:PATH,...]")
    p.add_argument("--keys", metavar="REGEX", help="compare only the cases whose key matches")
    p.add_argument("--golden", nargs="?", const=str(GOLDEN), metavar="FILE",
                   help="check this run against the golden digests (default testdata/golden/digests.json)")
    a = p.parse_args(argv)
    if a.compare:
        return compare(a.compare, a.keys)
    fp = fingerprint(a.mode)
    rc = 0
    if a.golden:
        if a.mode != "exact":
            print("--golden: the golden digests are of exact mode", file=sys.stderr)
            return 2
        rc = check_golden(fp, Path(a.golden))
        if not a.out:
            return rc
    text = json.dumps(fp, indent=1, sort_keys=True)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    else:
        print(text)
    print(f"{len(fp['digests'])} cases on paths {fp['paths']}", file=sys.stderr)
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
