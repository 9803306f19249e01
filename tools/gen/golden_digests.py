"""The golden digests of exact-mode outputs (testdata/golden/digests.json): check or regenerate them.

    python tools/gen/golden_digests.py            # compare this machine, every kernel path, with the file
    python tools/gen/golden_digests.py --write    # regenerate the file (after bumping BITS_VERSION)

A change of bits is deliberate: bump onemodel_ep.digests.BITS_VERSION, run --write, and add a CHANGELOG.md
line naming the ops that changed and why. --write refuses to run while BITS_VERSION equals the file's and the
digests differ, so the file cannot be regenerated over a change by accident. The model digests are
taken through OneModel EP at one thread on the widest path; the test (tests/models/test_golden.py) checks
every path, both ways in (EP and rewrite) and two threads against them.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from onemodel_ep import kernel_paths
from onemodel_ep.digests import (
    BITS_VERSION,
    golden_document,
    model_digest,
    model_files,
    model_key,
    op_digests,
)

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "testdata" / "golden" / "digests.json"


def compute() -> dict[str, object]:
    ops = op_digests(kernel_paths()[0])
    models = {model_key(f): model_digest(f) for f in model_files(ROOT / "testdata")}
    return golden_document(ops, models)


def differences(old: dict[str, object], new: dict[str, object]) -> list[str]:
    lines = []
    for part in ("ops", "models"):
        a, b = old.get(part, {}), new.get(part, {})
        assert isinstance(a, dict) and isinstance(b, dict)
        for key in sorted(set(a) | set(b)):
            if a.get(key) != b.get(key):
                lines.append(f"{part}: {key}: {a.get(key, 'absent')} -> {b.get(key, 'absent')}")
    return lines


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--write", action="store_true", help="regenerate testdata/golden/digests.json")
    a = p.parse_args(argv)
    new = compute()
    old = json.loads(GOLDEN.read_text()) if GOLDEN.exists() else {}
    diff = differences(old, new)
    if a.write:
        changed = [line for line in diff if "absent" not in line]  # new or dropped cases change no bits
        if changed and old.get("bits_version") == BITS_VERSION:
            print(f"{len(changed)} digests differ but BITS_VERSION is still {BITS_VERSION}: bump it first",
                  file=sys.stderr)
            for line in changed[:20]:
                print("  " + line, file=sys.stderr)
            return 1
        GOLDEN.parent.mkdir(parents=True, exist_ok=True)
        GOLDEN.write_text(json.dumps(new, indent=1, sort_keys=True) + "\n")
        print(f"wrote {GOLDEN.relative_to(ROOT)}: {len(new['ops'])} op cases, {len(new['models'])} models, "  # type: ignore[arg-type]
              f"bits version {BITS_VERSION}")
        return 0
    for line in diff:
        print(line)
    print(f"{len(diff)} digests differ from {GOLDEN.relative_to(ROOT)}")
    return 1 if diff else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
