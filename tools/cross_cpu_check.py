"""Exact-mode fingerprint of every served operator, to compare across CPUs.

    python tools/cross_cpu_check.py --out native.json
    qemu-x86_64 -cpu Haswell     $(which python) tools/cross_cpu_check.py --out haswell.json
    qemu-x86_64 -cpu SandyBridge $(which python) tools/cross_cpu_check.py --out sandybridge.json
    python tools/cross_cpu_check.py --compare native.json haswell.json sandybridge.json

Each run computes, on every kernel path the CPU has (real CPUID dispatch under qemu), every operator of the op
table for every element type it takes, on seeded inputs that reach the edges (NaN, infinities, signed zeros,
subnormals, integer extremes) at a length that exercises the vector bodies and the tail, and records a SHA-256
of the output bytes. Exact mode promises the same digest on every path of every machine.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import platform
import sys
from typing import Any

import numpy as np
from onnx import TensorProto, helper

from onemodel_ep._lib import kernel_paths, op_table
from onemodel_ep.node import Node, NodeError

N = 1000 + 37  # vector bodies and a tail on every width


def _values(t: int, rng: np.random.Generator) -> np.ndarray:
    if t == TensorProto.BFLOAT16:
        return rng.integers(0, 1 << 16, N).astype(np.uint16)
    dt = np.dtype(helper.tensor_dtype_to_np_dtype(t))
    if dt == np.bool_:
        return rng.integers(0, 2, N).astype(bool)
    if dt.kind == "f":
        bits = rng.integers(0, 1 << (8 * dt.itemsize), N, dtype=np.uint64).astype(f"u{dt.itemsize}")
        x = bits.view(dt).copy()
        x[: N // 2] = rng.normal(0, 20, N // 2).astype(dt)  # half ordinary values, half random bit patterns
        x[:8] = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5], dtype=dt)
        return x
    info = np.iinfo(dt)
    x = rng.integers(info.min, info.max, N, dtype=dt, endpoint=True)
    edges = [0, 1, info.max, info.min, info.max - 1, -1 if info.min < 0 else 2]
    x[:6] = np.array(edges, dtype=object).astype(dt)
    return x


def fingerprint() -> dict[str, Any]:
    rng_seed = 20261130
    out: dict[str, Any] = {"machine": platform.processor() or platform.machine(), "paths": kernel_paths(),
                           "digests": {}}
    for row in op_table().values():
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
    return out


def _one(out: dict[str, Any], op: str, types: list[int], attrs: dict[str, Any], seed: int) -> None:
    key = f"{op}({','.join(str(t) for t in types)}){json.dumps(attrs, sort_keys=True) if attrs else ''}"
    rng = np.random.default_rng(seed + len(key) * 7919 + sum(map(ord, key)))
    arrays = [_values(t, rng) for t in types]
    if op == "Clip":
        arrays[1] = arrays[1][:1].copy()
        arrays[2] = arrays[2][:1].copy()
    digests = {}
    for path in kernel_paths():
        try:
            node = Node(op, types, attributes=attrs, mode="exact", kernel_path=path)
        except NodeError:
            return  # not served for these types (e.g. a kernel not landed yet)
        y = node.run(*arrays)
        digests[path] = hashlib.sha256(np.ascontiguousarray(y).view(np.uint8).tobytes()).hexdigest()[:16]
    out["digests"][key] = digests


def compare(files: list[str]) -> int:
    runs = [json.load(open(f)) for f in files]
    bad = 0
    keys = sorted(set().union(*(r["digests"].keys() for r in runs)))
    for key in keys:
        seen = {}
        for f, r in zip(files, runs):
            for path, d in r["digests"].get(key, {}).items():
                seen[f"{f}:{path}"] = d
        if len(set(seen.values())) > 1:
            bad += 1
            print(f"DIFFER {key}: {seen}")
    n_pairs = sum(len(r["digests"].get(k, {})) for r in runs for k in keys)
    print(f"{len(keys)} op/type cases, {n_pairs} (case, machine, path) digests, {bad} cases differ")
    for f, r in zip(files, runs):
        print(f"  {f}: paths {r['paths']}")
    return 1 if bad else 0


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--out")
    p.add_argument("--compare", nargs="+")
    a = p.parse_args(argv)
    if a.compare:
        return compare(a.compare)
    fp = fingerprint()
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
