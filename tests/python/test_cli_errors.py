"""Every `onemodel` subcommand given a bad path or an out-of-range number: exit status 2 and one line on
stderr naming the problem, never a traceback, and before any long work starts."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from onnx import TensorProto, helper

import onemodel_ep
from onemodel_ep import cli

EXAMPLE = str(Path(onemodel_ep.__file__).parent / "examples" / "elementwise_demo.onnx")


def _files(tmp: Path) -> dict[str, str]:
    """Named paths of every kind a command line meets."""
    (tmp / "folder").mkdir()
    (tmp / "text.onnx").write_text("not a model\n")
    (tmp / "empty.onnx").write_bytes(b"")
    np.save(tmp / "array.npy", np.zeros(3, np.float32))
    np.savez(tmp / "wrong_names.npz", nope=np.zeros(3, np.float32))
    bad_op = helper.make_model(
        helper.make_graph(
            [helper.make_node("NoSuchOp", ["x"], ["y"])],
            "g",
            [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])],
        )
    )
    (tmp / "bad_op.onnx").write_bytes(bad_op.SerializeToString())
    names = ("folder", "text.onnx", "empty.onnx", "array.npy", "wrong_names.npz", "bad_op.onnx")
    paths = {k.split(".")[0]: str(tmp / k) for k in names}
    paths.update(missing=str(tmp / "missing.onnx"), missing_dir=str(tmp / "missing_dir" / "out.onnx"))
    paths["example"] = EXAMPLE
    return paths


# (argv with {name} placeholders, text the one line must contain)
CASES = [
    # rewrite
    ("rewrite {example} {missing_dir}", "no such folder"),
    ("rewrite {example} {folder}", "is a folder"),
    ("rewrite {missing} {tmp}/o.onnx", "no such file"),
    ("rewrite {folder} {tmp}/o.onnx", "is a folder"),
    ("rewrite {text} {tmp}/o.onnx", "as an ONNX model"),
    ("rewrite {empty} {tmp}/o.onnx", "it has no graph"),
    ("rewrite {example} {tmp}/o.onnx --mode slow", "invalid choice"),
    ("rewrite {example}", "required: output"),
    # run
    ("run {missing}", "no such file"),
    ("run {folder}", "is a folder"),
    ("run {text}", "as an ONNX model"),
    ("run {empty}", "it has no graph"),
    ("run {bad_op}", "cannot load"),
    ("run --inputs {missing}", "no such file"),
    ("run --inputs {folder}", "is a folder"),
    ("run --inputs {text}", "is not an .npz"),
    ("run --inputs {array}", "is not an .npz"),
    ("run --inputs {wrong_names}", "cannot run"),
    ("run --seed -1", "argument --seed: must be >= 0"),
    ("run --seed x", "argument --seed: expected an integer"),
    # bench: all refused before any timing
    ("bench --ops NoSuchOp", "--ops: unknown 'NoSuchOp'"),
    ("bench --ops ,", "--ops: empty list"),
    ("bench --types quad", "--types: unknown 'quad'"),
    ("bench --sizes 2K", "--sizes: unknown '2K'"),
    ("bench --threads -1", "--threads: -1 is negative"),
    ("bench --threads one", "--threads: 'one' is not an integer"),
    ("bench --budget -1", "argument --budget: must be >= 0"),
    ("bench --budget nan", "argument --budget: must be a finite number"),
    ("bench --json {missing_dir}", "--json: cannot write"),
    ("bench --json {folder}", "--json: {folder} is a folder"),
    ("bench --plot {missing_dir}", "--plot: cannot write"),
    ("bench --summarize {missing}", "cannot read a bench report"),
    ("bench --summarize {folder}", "cannot read a bench report"),
    ("bench --summarize {example}", "cannot read a bench report"),
    # diff
    ("diff {missing}", "no such model file"),
    ("diff {folder}", "no such model file"),
    ("diff {empty}", "not an ONNX model"),
    ("diff --seed -1", "argument --seed: must be >= 0"),
    ("diff --atol nan", "argument --atol: must be a finite number"),
    ("diff --rtol inf", "argument --rtol: must be a finite number"),
    ("diff --range=-inf,0", "argument --range: LO and HI must be finite"),
    ("diff --json {missing_dir}", "--json: cannot write"),
    ("diff --plot {missing_dir}", "--plot: cannot write"),
    ("diff --save-inputs {missing_dir}", "--save-inputs: cannot write"),
    # no subcommand, unknown subcommand
    ("", "required: command"),
    ("frob", "invalid choice: 'frob'"),
]


def _run_cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    try:
        rc = cli.main(argv)
    except SystemExit as e:  # argparse's errors
        rc = int(e.code or 0)
    return rc, capsys.readouterr().err


def _expect_one_line(rc: int, err: str, expect: str) -> None:
    assert rc == 2, err
    assert "Traceback" not in err
    lines = [line for line in err.strip().splitlines() if not line.startswith("skip ")]
    assert len(lines) == 1, err
    assert lines[0].startswith("onemodel") and ": error: " in lines[0], err
    assert expect in lines[0], err


@pytest.mark.parametrize("argv, expect", CASES, ids=[c[0] or "(none)" for c in CASES])
def test_bad_argument_exits_2_with_one_line(argv, expect, tmp_path, capsys):
    paths = _files(tmp_path)
    fmt = {**paths, "tmp": str(tmp_path)}
    args = [a.format(**fmt) for a in argv.split()]
    rc, err = _run_cli(args, capsys)
    _expect_one_line(rc, err, expect.format(**fmt))
    assert not (tmp_path / "o.onnx").exists()


def _deny(monkeypatch: pytest.MonkeyPatch, path: Path) -> None:
    """Make `path` unreadable and unwritable: by its mode, or for root (not stopped by modes) in os.access."""
    if os.geteuid() != 0:
        path.chmod(0)
        return
    real = os.access

    def access(p: object, mode: int, *a: object, **k: object) -> bool:
        return False if Path(os.fspath(p)).resolve() == path.resolve() else real(p, mode, *a, **k)

    monkeypatch.setattr(os, "access", access)


def test_unreadable_model_and_inputs(tmp_path, capsys, monkeypatch):
    model = tmp_path / "model.onnx"
    model.write_bytes(Path(EXAMPLE).read_bytes())
    _deny(monkeypatch, model)
    for argv in (["rewrite", str(model), str(tmp_path / "o.onnx")], ["run", str(model)]):
        rc, err = _run_cli(argv, capsys)
        _expect_one_line(rc, err, "permission denied")
    rc, err = _run_cli(["run", "--inputs", str(model)], capsys)
    _expect_one_line(rc, err, "--inputs: cannot read")


def test_unwritable_output_folder(tmp_path, capsys, monkeypatch):
    out = tmp_path / "ro"
    out.mkdir()
    _deny(monkeypatch, out)
    rc, err = _run_cli(["rewrite", EXAMPLE, str(out / "o.onnx")], capsys)
    _expect_one_line(rc, err, "permission denied")


def test_bench_with_nothing_to_measure(capsys):
    """A served op that stock ORT cannot build over the type (And over float): no table, exit 2."""
    rc, err = _run_cli(["bench", "--ops", "And", "--sizes", "1K", "--threads", "1", "--budget", "0"], capsys)
    _expect_one_line(rc, err, "nothing measured")


def test_console_script_rewrite_to_a_missing_folder(tmp_path):
    """The case of the issue, through the installed `onemodel` entry point."""
    r = subprocess.run(
        [sys.executable, "-m", "onemodel_ep.cli", "rewrite", EXAMPLE, str(tmp_path / "nope" / "out.onnx")],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr
    assert "no such folder" in r.stderr
