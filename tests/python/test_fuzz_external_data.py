"""Seeded, bounded fuzz of external-data layouts: `onemodel rewrite` against what onnx and stock ORT accept.

Each case builds a model folder whose one weight lives at a location composed at random from the parts a
hostile or careless model can use: nested folders, "./" and "x/../" segments, symbolic links to folders and
files (inside the folder, outside it, chained), "..", absolute paths, hard links, a folder, a missing file, a
FIFO, /dev/zero. The oracle is the original model in stock ORT and in onnx (load with external data, and the
checker). Where ORT refuses it, the rewrite must refuse it (exit 2, one line, nothing written). Where both
accept it, the rewrite must accept it, and the rewritten model must load in onnx and ORT and give stock's
output. Where ORT accepts what onnx refuses (onnx refuses every symbolic link and hard link: a "hardlink
attack"), the rewrite may do either. A FIFO or a device is never opened by the oracle (stock ORT would block
on a FIFO): the rewrite must refuse those.
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper

from onemodel_ep import cli, session_options

SEED = 3939
CASES = 40
W = (np.arange(4, dtype=np.float32) + 1).tobytes()
OUT = np.full(4, 7.0, dtype=np.float32).tobytes()


def _model(folder: Path, location: str) -> Path:
    t = onnx.TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[4], data_location=TensorProto.EXTERNAL)
    for k, v in (("location", location), ("offset", "0"), ("length", "16")):
        t.external_data.add(key=k, value=v)
    g = helper.make_graph(
        [helper.make_node("Add", ["x", "w"], ["y"], name="add")],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])],
        [t],
    )
    onnx.save(
        helper.make_model(g, ir_version=9, opset_imports=[helper.make_opsetid("", 17)]), folder / "m.onnx"
    )
    return folder / "m.onnx"


def _layout(root: Path, rng: random.Random) -> tuple[Path, str, bool]:
    """A model folder root/in, a location, and whether the location is a FIFO or device (never opened)."""
    inside, outside = root / "in", root / "secret"
    inside.mkdir()
    outside.mkdir()
    (outside / "s.bin").write_bytes(OUT)
    depth = rng.randint(0, 2)
    sub = "/".join(f"d{k}" for k in range(depth))
    (inside / sub).mkdir(parents=True, exist_ok=True)
    target = f"{sub}/w.bin" if sub else "w.bin"
    (inside / target).write_bytes(W)
    kind = rng.choice(
        [
            "plain",
            "dot",
            "dotdot-inside",
            "link-dir-in",
            "link-dir-out",
            "link-file-in",
            "link-file-out",
            "link-chain",
            "dotdot-out",
            "absolute-in",
            "absolute-out",
            "hardlink-out",
            "hardlink-in",
            "folder",
            "missing",
            "fifo",
            "dev",
        ]
    )
    special = False
    loc = target
    if kind == "dot":
        loc = "./" + target
    elif kind == "dotdot-inside":
        (inside / "x").mkdir(exist_ok=True)
        loc = "x/../" + target
    elif kind == "link-dir-in":
        os.symlink(sub or ".", inside / "ld")
        loc = "ld/w.bin"
    elif kind == "link-dir-out":
        os.symlink(os.path.relpath(outside, inside), inside / "ld")
        loc = "ld/s.bin"
    elif kind == "link-file-in":
        os.symlink(target, inside / "lf.bin")
        loc = "lf.bin"
    elif kind == "link-file-out":
        os.symlink(str(outside / "s.bin"), inside / "lf.bin")
        loc = "lf.bin"
    elif kind == "link-chain":
        os.symlink(str(outside / "s.bin"), inside / "l1.bin")
        os.symlink("l1.bin", inside / "l2.bin")
        loc = "l2.bin"
    elif kind == "dotdot-out":
        loc = "../secret/s.bin"
    elif kind == "absolute-in":
        loc = str(inside / target)
    elif kind == "absolute-out":
        loc = str(outside / "s.bin")
    elif kind == "hardlink-out":
        os.link(outside / "s.bin", inside / "h.bin")
        loc = "h.bin"
    elif kind == "hardlink-in":
        os.link(inside / target, inside / "h.bin")
        loc = "h.bin"
    elif kind == "folder":
        (inside / "dir.bin").mkdir()
        loc = "dir.bin"
    elif kind == "missing":
        loc = "gone.bin"
    elif kind == "fifo":
        os.mkfifo(inside / "f.bin")
        loc, special = "f.bin", True
    elif kind == "dev":
        os.symlink("/dev/zero", inside / "z.bin")
        loc, special = "z.bin", True
    return _model(inside, loc), f"{kind}:{loc}", special


def _stock(path: Path) -> np.ndarray | None:
    """Stock ORT's output for the original model, or None when ORT refuses it."""
    try:
        so = ort.SessionOptions()
        so.log_severity_level = 4
        sess = ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])
        return sess.run(None, {"x": np.zeros(4, np.float32)})[0]
    except Exception:
        return None


def _onnx_accepts(path: Path) -> bool:
    try:
        onnx.load(str(path), load_external_data=True)
        onnx.checker.check_model(str(path), full_check=True)
        return True
    except Exception:
        return False


def _tree(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


def test_external_data_layout_fuzz_agrees_with_onnx_and_stock_ort(tmp_path, capsys):
    rng = random.Random(SEED)
    problems = []
    accepted = 0
    for i in range(CASES):
        root = tmp_path / f"c{i}"
        root.mkdir()
        src, what, special = _layout(root, rng)
        want = None if special else _stock(src)
        onnx_ok = not special and _onnx_accepts(src)
        out = root / ("in" if rng.random() < 0.3 else "out")
        out.mkdir(exist_ok=True)
        before = _tree(root)
        code = cli.main(["rewrite", str(src), str(out / "r.onnx")])
        err = capsys.readouterr().err
        if want is None:
            if code != 2 or err.count("\n") != 1 or _tree(root) != before:
                problems.append(
                    f"case {i} {what}: refused by onnx/ORT, rewrite exit {code}: {err.strip()[:200]}"
                )
            continue
        accepted += 1
        if code != 0 and not onnx_ok:
            continue  # ORT accepts, onnx refuses: refusing is the rewrite's choice
        if code != 0:
            problems.append(
                f"case {i} {what}: onnx and ORT load it, rewrite exit {code}: {err.strip()[:200]}"
            )
            continue
        try:
            onnx.load(str(out / "r.onnx"), load_external_data=True)
            so = session_options()
            so.log_severity_level = 4
            y = ort.InferenceSession(str(out / "r.onnx"), so).run(None, {"x": np.zeros(4, np.float32)})[0]
        except Exception as e:  # any refusal is the finding
            problems.append(f"case {i} {what}: the rewritten model does not load: {str(e)[:200]}")
            continue
        if not np.array_equal(y, want):
            problems.append(f"case {i} {what}: rewritten output {y} differs from stock's {want}")
        if not src.exists() or _stock(src) is None:
            problems.append(f"case {i} {what}: the input model no longer loads after the rewrite")
    assert 5 < accepted < CASES - 5, (
        f"{accepted} of {CASES} layouts accepted: the fuzz must see both outcomes"
    )
    assert not problems, "\n".join(problems)
