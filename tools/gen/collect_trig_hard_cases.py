"""Collect hard cases of f32 Sin and Cos for testdata/hard_cases/trig_hard_cases.json with
tools/verify/cr_verify.sh.

Runs the exact-mode check (paths 512 and scalar, MPFR for every input within 2^-40 of a boundary) over
the first 2^16 inputs of every binade from 2^-24 up to the largest finite f32 (152 ranges; 10.0M inputs a
function) and keeps the 64 inputs closest to a rounding boundary (MPFR at 512 bits) per function, with their
correctly rounded results. A run that finds a misrounded result or a path disagreement fails.

    python tools/gen/collect_trig_hard_cases.py [-j N] [--per-binade 65536]
    python tools/gen/collect_trig_hard_cases.py --from-state DIR   # from finished exhaustive runs instead:
        # tools/verify/cr_verify.sh -p 512,scalar -s DIR sin,cos (every f32; the 64 closest of all 2^32
        # per function)
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "tests" / "data" / "trig_hard_cases.json"


def run(func: str, lo: int, hi: int, state: str | None = None) -> list[tuple[str, str, float]]:
    where = ["-s", state] if state else ["-r", hex(lo), hex(hi)]
    cmd = [str(ROOT / "tools" / "verify" / "cr_verify.sh"), "-p", "512,scalar", "-k", "64", *where, func]
    res = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if res.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{res.stdout[-3000:]}{res.stderr[-2000:]}")
    cases = []
    for line in res.stdout.splitlines():
        parts = line.split()
        if parts[:1] == ["HARD"]:
            cases.append((parts[2], parts[3], float(parts[4])))
    return cases


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--per-binade", type=lambda s: int(s, 0), default=65536)
    ap.add_argument("--from-state", help="state directory of finished exhaustive runs (all 256 shards)")
    args = ap.parse_args()
    build = [str(ROOT / "tools" / "verify" / "cr_verify.sh"), "-r", "0", "1", "sin"]
    subprocess.run(build, capture_output=True, check=True)  # builds the binary once, before the workers
    out = {}
    for func in ("sin", "cos"):
        ranges = [(e << 23, (e << 23) + args.per_binade) for e in range(127 - 24, 255)]
        if args.from_state:
            found = run(func, 0, 0, args.from_state)
        else:
            with ThreadPoolExecutor(args.jobs) as ex:
                found = [c for cs in ex.map(run, [func] * len(ranges), *zip(*ranges)) for c in cs]
        found.sort(key=lambda c: c[2])
        out[func] = [[x, y, f"{d:.3e}"] for x, y, d in found[:64]]
        print(f"{func}: {len(found)} candidates, closest {found[0][2]:.3e} ulp at {found[0][0]}")
    doc = {
        "about": "f32 Sin/Cos closest to a rounding boundary: [x bits, RN(f(x)) bits, distance in ulps]; "
        + ("python tools/gen/collect_trig_hard_cases.py --from-state (all 2^32 inputs)"
           if args.from_state
           else "python tools/gen/collect_trig_hard_cases.py (first 2^16 inputs of every binade >= 2^-24)"),
        "cases": out,
    }
    rows = {f: ",\n    ".join(json.dumps(c) for c in cs) for f, cs in out.items()}
    body = ",\n".join(f'  {json.dumps(f)}: [\n    {r}\n  ]' for f, r in rows.items())
    OUT.write_text(f'{{\n "about": {json.dumps(doc["about"])},\n "cases": {{\n{body}\n }}\n}}\n')
    print(f"wrote {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
