"""Write testdata/hard_cases/transcendental_hard_cases.json from tools/verify/cr_verify.c.

For each function: when the exhaustive sweep's state is complete (tools/cr_state/<f>_exact_scalar_512 or
<f>_exact_512_scalar, 256 shards), its aggregated hardest cases; otherwise a scan of every 257th bit pattern
(tools/verify/cr_verify.sh -r 0 0x100000000 -t 257). Kept: the 24 inputs whose f(x) is closest to an f32
rounding boundary, and the 40 closest among |x| >= 2^-60 (so the list is not only the tiny inputs of Gelu,
where f(x) ~ x/2 sits next to a midpoint). Also up to 32 inputs per function whose lane took the kernel's
double-double fallback.

    python tools/gen/collect_hard_cases.py            # all functions
    python tools/gen/collect_hard_cases.py softplus   # only these; the file's other functions are kept
"""

from __future__ import annotations

import json
import re
import struct
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FUNCS = ["exp", "log", "tanh", "sigmoid", "erf", "gelu_erf", "gelu_tanh", "softplus", "mish"]
FUNCS += ["elu", "selu", "celu"]
LINE = re.compile(r"^\s*HARD (\w+) (0x[0-9a-f]{8}) (0x[0-9a-f]{8}) (\S+)", re.M)
FB = re.compile(r"^\s*FALLBACK (\w+) (0x[0-9a-f]{8})", re.M)


def _f32(bits: str) -> float:
    return struct.unpack("<f", struct.pack("<I", int(bits, 16)))[0]


def collect(func: str) -> tuple[str, list[list[str]], list[str]]:
    full, cmd = False, ["tools/verify/cr_verify.sh", "-k", "2048"]
    for paths in ("scalar,512", "512,scalar"):  # a finished exhaustive run's state, either path order
        state = ROOT / "tools" / "cr_state" / f"{func}_exact_{paths.replace(',', '_')}"
        if state.is_dir() and len(list(state.glob("shard_[0-9][0-9][0-9]"))) == 256:
            full, cmd = True, cmd + ["-p", paths]
            break
    cmd += [func] if full else ["-r", "0", "0x100000000", "-t", "257", func]
    out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=True).stdout
    if "misrounded: 0" not in out:
        sys.exit(f"{func}: the verifier reports misrounded inputs:\n{out}")
    rows = [(m.group(2), m.group(3), float(m.group(4))) for m in LINE.finditer(out)]
    rows.sort(key=lambda r: r[2])
    keep = rows[:24]
    seen = {r[0] for r in keep}
    for r in rows:
        if len(keep) >= 64:
            break
        if r[0] not in seen and abs(_f32(r[0])) >= 2.0**-60:
            keep.append(r)
            seen.add(r[0])
    source = " ".join(cmd)
    fallback = [m.group(2) for m in FB.finditer(out)]
    fallback.sort(key=lambda b: abs(_f32(b)) < 2.0**-126)  # normal inputs first (Gelu: subnormals abound)
    fallback = fallback[:32]
    return source, [[r[0], r[1], f"{r[2]:.3e}"] for r in keep], fallback


def main(argv: list[str]) -> None:
    funcs = argv or FUNCS
    if any(f not in FUNCS for f in funcs):
        sys.exit(f"unknown function; choose from {' '.join(FUNCS)}")
    path = ROOT / "tests" / "data" / "transcendental_hard_cases.json"
    data = json.loads(path.read_text()) if argv and path.exists() else {
        "about": "f32 inputs (bits) whose exact f(x) lies closest to an f32 rounding boundary, with the "
        "correctly rounded result (bits) and the distance to the boundary in units of the f32 spacing; "
        "written by tools/gen/collect_hard_cases.py from tools/verify/cr_verify.c (MPFR at 512 bits)",
        "fallback_about": "inputs whose lane took the kernel's double-double fallback (the rounding test "
        "could not settle the fast double result), as reported by the verifier built with -DOM_TR_STATS",
        "sources": {},
        "cases": {},
        "fallback_inputs": {},
    }
    for f in funcs:
        src, cases, fallback = collect(f)
        data["sources"][f] = src
        data["cases"][f] = cases
        data["fallback_inputs"][f] = fallback
        print(f, len(cases), "cases,", len(fallback), "fallback inputs, from", src, file=sys.stderr)
    path.write_text(json.dumps(data, indent=1) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
