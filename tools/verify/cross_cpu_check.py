"""Exact-mode fingerprint of every served operator, to compare across CPUs.

    python tools/verify/cross_cpu_check.py --out native.json
    qemu-x86_64 -cpu Haswell     $(which python) tools/verify/cross_cpu_check.py --out haswell.json
    qemu-x86_64 -cpu SandyBridge $(which python) tools/verify/cross_cpu_check.py --out sandybridge.json
    # on AArch64 (tools/verify/arm64_check.sh runs it)
    python tools/verify/cross_cpu_check.py --out arm64.json
    python tools/verify/cross_cpu_check.py --compare native.json haswell.json sandybridge.json arm64.json

Each run computes, on every kernel path the CPU has (real CPUID or HWCAP dispatch, under qemu too), every
operator of the op table for every element type it takes, on seeded inputs that reach the edges (NaN,
infinities, signed zeros, subnormals, integer extremes) at a length that exercises the vector bodies and the
tail, and records a SHA-256 of the output bytes. The structured ops (MatMul, Gemm, Softmax,
LayerNormalization, Reduce*) run on shapes that give their blocked loops full blocks and edges, and the test
models of testdata/models run whole, rewritten, at one and two threads; and every unary operator on every one
of the 65,536 float16 and bfloat16 bit patterns (keys ending in "/all16"). Exact mode promises the same digest
on every path of every machine.

--mode fast records fast mode instead, which promises a bound, not the same bits across paths; compare then
selects paths to hold to the same bits with FILE:PATH,... and cases with --keys REGEX (for example
--keys '^(Exp|Log|Tanh|Sigmoid|Erf|Gelu)\\(1\\)' x86.json:256 arm64.json:128: AArch64's 128 path runs the
256 path's FMA bodies for the f32 transcendentals).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import platform
import re
import sys
from pathlib import Path
from typing import Any

import numpy as np
from onnx import TensorProto

import onemodel_ep
from onemodel_ep._lib import F_STRUCT, kernel_paths, op_table
from onemodel_ep.digests import _struct_cases, _values  # the op cases golden.json digests too
from onemodel_ep.node import Node, NodeError

MODELS = Path(__file__).resolve().parents[2] / "testdata" / "models"



def fingerprint(mode: str = "exact") -> dict[str, Any]:
    rng_seed = 20261130
    out: dict[str, Any] = {"machine": platform.processor() or platform.machine(), "arch": platform.machine(),
                           "mode": mode, "paths": kernel_paths(), "digests": {}}
    for row in op_table().values():
        if row.flags & F_STRUCT:
            for t in sorted(row.input0_types):
                for types, attrs, shapes, opset in _struct_cases(row.name, t):
                    _one(out, row.name, types, attrs, rng_seed, shapes, opset)
            continue
        if row.name == "Where":  # condition bool, values of every stored type
            for vt in sorted(row.other_types):
                _one(out, row.name, [TensorProto.BOOL, vt, vt], {}, rng_seed)
            continue
        for t in sorted(row.input0_types):
            if row.name == "Mod":
                for fmod in (0, 1):
                    _one(out, row.name, [t, t], {"fmod": fmod}, rng_seed)
            elif row.name == "Cast":
                for to in sorted(row.input0_types):
                    _one(out, row.name, [t], {"to": to}, rng_seed)
            elif row.name == "Gelu":
                for approx in ("none", "tanh"):
                    _one(out, row.name, [t], {"approximate": approx}, rng_seed)
            elif row.name == "Clip":
                _one(out, row.name, [t, t, t], {}, rng_seed)
            elif row.max_inputs == 1:
                _one(out, row.name, [t], {}, rng_seed)
            else:
                for o in sorted(row.other_types) if row.other_types else [t]:
                    _one(out, row.name, [t, o], {}, rng_seed)
    all16 = np.arange(1 << 16, dtype=np.uint16)
    for row in op_table().values():
        if row.flags & F_STRUCT or row.max_inputs != 1 or row.name in ("Cast", "CastLike"):
            continue
        for t in sorted(row.input0_types & {TensorProto.FLOAT16, TensorProto.BFLOAT16}):
            for attrs in ({"approximate": "none"}, {"approximate": "tanh"}) if row.name == "Gelu" else ({},):
                x = all16.view(np.float16) if t == TensorProto.FLOAT16 else all16
                _one(out, row.name, [t], attrs, rng_seed, given=[x], tag="/all16")
    _models(out)
    return out


def _models(out: dict[str, Any]) -> None:
    """The test models, rewritten for each kernel path, at one and two threads."""
    import onnxruntime as ort

    for model_file in sorted(MODELS.glob("*.onnx")):
        rng = np.random.default_rng(7)
        feeds = {"input_ids": rng.integers(0, 256, size=(2, 9), dtype=np.int64)}
        if "bert" in model_file.name:
            feeds["attention_mask"] = np.ones((2, 9), dtype=np.int64)
            feeds["attention_mask"][1, 6:] = 0
        for threads in (1, 2):
            digests = {}
            for path in kernel_paths():
                so = ort.SessionOptions()
                so.intra_op_num_threads = threads
                so.log_severity_level = 3  # no "nodes not assigned" warning per session
                sess = onemodel_ep.InferenceSession(str(model_file), so, kernel_path=path)
                h = hashlib.sha256()
                for y in sess.run(None, feeds):
                    h.update(np.ascontiguousarray(y).view(np.uint8).tobytes())
                digests[path] = h.hexdigest()[:16]
            out["digests"][f"model:{model_file.stem}:threads={threads}"] = digests


def _one(out: dict[str, Any], op: str, types: list[int], attrs: dict[str, Any], seed: int,
         shapes: list[Any] | None = None, opset: int = 0, given: list[np.ndarray] | None = None,
         tag: str = "") -> None:
    key = f"{op}({','.join(str(t) for t in types)}){json.dumps(attrs, sort_keys=True) if attrs else ''}"
    if shapes is not None:
        key += f"{shapes}@{opset}"
    rng = np.random.default_rng(seed + len(key) * 7919 + sum(map(ord, key)))
    arrays = given if given is not None else [_values(t, rng) for t in types]
    if shapes is not None:  # a structured op: inputs of these shapes; a list of ints is an int64 axes input
        arrays = [np.array(s, dtype=np.int64) if isinstance(s, list)
                  else np.resize(_values(t, rng), s) for t, s in zip(types, shapes)]
    if op == "Clip":
        arrays[1] = arrays[1][:1].copy()
        arrays[2] = arrays[2][:1].copy()
    key += tag
    digests = {}
    for path in kernel_paths():
        try:
            node = Node(op, types, attributes=attrs, mode=out["mode"], kernel_path=path, onnx_opset=opset)
        except NodeError:
            return  # not served for these types (e.g. a kernel not landed yet)
        h = hashlib.sha256()
        for y in node.run_outputs(*arrays):
            h.update(np.ascontiguousarray(y).view(np.uint8).tobytes())
        digests[path] = h.hexdigest()[:16]
    out["digests"][key] = digests


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
    a = p.parse_args(argv)
    if a.compare:
        return compare(a.compare, a.keys)
    fp = fingerprint(a.mode)
    text = json.dumps(fp, indent=1, sort_keys=True)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    else:
        print(text)
    print(f"{len(fp['digests'])} cases on paths {fp['paths']}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
