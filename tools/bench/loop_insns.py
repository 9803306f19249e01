"""Instructions in the hot loop of 128-path kernels, from the compiled object (static count, objdump).

    python tools/bench/loop_insns.py [--json F] [KERNEL ...]      # default: the set in DEFAULT below
    # AArch64
    python tools/bench/loop_insns.py --cc aarch64-linux-gnu-gcc --objdump aarch64-linux-gnu-objdump

Compiles provider/csrc/kernels/kernels_128.c with the library's flags (provider/build_ffi.py's CFLAGS, gcc -c)
for this machine or for the cross compiler given (x86-64: SSE4.2; AArch64: Advanced SIMD), disassembles it
with objdump and, for each kernel function om_KERNEL_128, finds its innermost loops (a backward branch whose
range holds no other backward branch) and reports the largest: the instructions in its address range per
iteration and per element (the elements an iteration handles: 4 f32 lanes, 8 f16 lanes, ...; given in
DEFAULT). Blocks the compiler places inside that range but off the hot path (rare-lane fix-ups) are counted
too, so this is an upper bound on the hot path's count; the same method on both ISAs (see docs/performance.md,
"ARM64").
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# kernel (function om_<name>_128) -> elements per loop iteration on the 128 path
DEFAULT = {
    "add_f32": 4, "mul_f32": 4, "div_f32": 4, "sqrt_f32": 4, "add_f16": 4, "div_f16": 4, "sqrt_f16": 4,
    "add_i32": 4, "div_i32": 4, "max_f32": 4, "floor_f32": 4, "hardswish_f32": 4,
    "cast_f32_i32": 4, "cast_f32_f16": 4, "cast_f16_f32": 4, "cast_u8_f32": 4,
    # exact mode: the f32 transcendental kernel's main loop (a whole vector, two halves of double lanes)
    "exp_f32": 4, "log_f32": 4, "tanh_f32": 4, "sigmoid_f32": 4, "erf_f32": 4, "gelu_erf_f32": 4,
    "gelu_tanh_f32": 4,
    # fast mode: the f32 loop inlined in the dispatcher (Exp takes two vectors an iteration)
    "exp_f32_fx": 8, "log_f32_fx": 4, "tanh_f32_fx": 4, "sigmoid_f32_fx": 4, "erf_f32_fx": 4,
    "gelu_erf_f32_fx": 4, "gelu_tanh_f32_fx": 4,
}
BRANCH_X86 = re.compile(r"^j[a-z]+$")
BRANCH_ARM = re.compile(r"^(b(\.[a-z]+)?|cbn?z|tbn?z)$")


def _cflags() -> list[str]:
    sys.path.insert(0, str(ROOT / "provider"))
    src = (ROOT / "provider" / "build_ffi.py").read_text()
    m = re.search(r"CFLAGS = \[(.*?)\]\n", src, re.S)
    assert m, "CFLAGS not found in provider/build_ffi.py"
    return re.findall(r'"(-[^"]+)"', m.group(1))


def _disassemble(cc: str, objdump: str) -> str:
    with tempfile.TemporaryDirectory() as d:
        obj = Path(d) / "k128.o"
        subprocess.run([cc, *_cflags(), "-I", str(ROOT / "provider" / "csrc"), "-c", "-o", str(obj),
                        str(ROOT / "provider" / "csrc" / "kernels" / "kernels_128.c")], check=True)
        return subprocess.run([objdump, "-d", "--no-show-raw-insn", str(obj)], check=True,
                              capture_output=True, text=True).stdout


def _functions(text: str) -> dict[str, list[tuple[int, str, str]]]:
    funcs: dict[str, list[tuple[int, str, str]]] = {}
    cur: list[tuple[int, str, str]] | None = None
    for line in text.splitlines():
        m = re.match(r"^([0-9a-f]+) <([^>]+)>:$", line)
        if m:
            cur = funcs.setdefault(m.group(2), [])
            continue
        m = re.match(r"^\s+([0-9a-f]+):\s+(\S+)\s*(.*)$", line)
        if m and cur is not None:
            cur.append((int(m.group(1), 16), m.group(2), m.group(3)))
    return funcs


def _loops(insns: list[tuple[int, str, str]], arm: bool) -> list[tuple[int, int]]:
    """(start, end) address ranges of the backward branches."""
    br = BRANCH_ARM if arm else BRANCH_X86
    lo, hi = insns[0][0], insns[-1][0]
    out = []
    for addr, mn, ops in insns:
        if br.match(mn):
            m = re.search(r"\b([0-9a-f]+) <", ops)
            if m:
                t = int(m.group(1), 16)
                if lo <= t < addr <= hi:
                    out.append((t, addr))
    return out


def measure(names: dict[str, int], cc: str = "gcc", objdump: str = "objdump") -> dict[str, dict[str, float]]:
    text = _disassemble(cc, objdump)
    arm = "aarch64" in text[:2000]
    funcs = _functions(text)
    res = {}
    for name, elems in names.items():
        fn = next((f for f in funcs if re.fullmatch(rf"om_{name}_128(\.constprop\.\d+)?", f)), None)
        insns = funcs.get(fn) if fn else None
        if not insns:
            print(f"{name}: no function om_{name}_128 in the object", file=sys.stderr)
            continue
        loops = _loops(insns, arm)
        inner = [(s, e) for s, e in loops
                 if not any(s <= s2 and e2 <= e and (s2, e2) != (s, e) for s2, e2 in loops)]
        if not inner:
            print(f"{name}: no loop found", file=sys.stderr)
            continue
        s, e = max(inner, key=lambda r: sum(1 for a, _, _ in insns if r[0] <= a <= r[1]))
        n = sum(1 for a, _, _ in insns if s <= a <= e)
        res[name] = {"insns_per_iter": n, "elems_per_iter": elems, "insns_per_elem": round(n / elems, 2)}
    return res


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser()
    p.add_argument("kernels", nargs="*")
    p.add_argument("--json")
    p.add_argument("--cc", default="gcc")
    p.add_argument("--objdump", default="objdump")
    a = p.parse_args(argv)
    names = {k: DEFAULT.get(k, 4) for k in a.kernels} if a.kernels else DEFAULT
    res = measure(names, a.cc, a.objdump)
    for k, v in res.items():
        print(f"{k:16s} {v['insns_per_iter']:4d} insns / {v['elems_per_iter']} elements "
              f"= {v['insns_per_elem']:6.2f}")
    if a.json:
        Path(a.json).write_text(json.dumps({"cc": a.cc, "kernels": res}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
