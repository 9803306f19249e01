"""The command line's checks of its arguments: paths to read and to write, and numbers in range.

Each check fails with one line naming the argument and the problem: path checks raise UsageError (the
subcommand turns it into `onemodel: error: ...`, exit status 2), the argparse types raise
ArgumentTypeError (`onemodel SUB: error: argument ...`, exit status 2). Paths are checked before any work,
so that a run of minutes does not end in a traceback over an output folder that does not exist.
"""

from __future__ import annotations

import argparse
import math
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, NoReturn

import numpy as np
import onnx

from onemodel_ep.diff.inputs import load_npz
from onemodel_ep.errors import DiffError, UsageError, one_line


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line (the usage is one `--help` away), exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def add_command(sub: Any, name: str, summary: str, description: str, exits: str) -> argparse.ArgumentParser:
    """Subcommand `name` of the `onemodel` command line (`sub` from add_subparsers): `summary` in the list of
    commands; `description` and then "Exit status: `exits`." in its --help."""
    return sub.add_parser(name, help=summary, description=f"{description} Exit status: {exits}.")


def add_strict_option(p: Any) -> None:
    """--strict, which `run`, `diff` and `bench` take (onemodel_ep.strict)."""
    p.add_argument(
        "--strict",
        action="store_true",
        help="refuse the model (exit status 2) if a computing node would run outside OneModel EP",
    )


def input_file(path: str, what: str) -> Path:
    """`path` as a file that exists and can be read; `what` names it in the error ("model", "--inputs")."""
    p = Path(path)
    if not p.exists():
        raise UsageError(f"{what}: no such file: {path}")
    if p.is_dir():
        raise UsageError(f"{what}: {path} is a folder, not a file")
    if not os.access(p, os.R_OK):
        raise UsageError(f"{what}: cannot read {path}: permission denied")
    return p


def output_file(path: str, what: str) -> Path:
    """`path` as a file that can be written: not a folder, in a folder that exists and can be written."""
    p = Path(path)
    if p.is_dir():
        raise UsageError(f"{what}: {path} is a folder, not a file")
    parent = p.parent
    if not parent.exists():
        raise UsageError(f"{what}: cannot write {path}: no such folder {parent}")
    if not parent.is_dir():
        raise UsageError(f"{what}: cannot write {path}: {parent} is not a folder")
    if not os.access(parent, os.W_OK | os.X_OK) or (p.exists() and not os.access(p, os.W_OK)):
        raise UsageError(f"{what}: cannot write {path}: permission denied")
    return p


def load_model(path: str, *, load_external_data: bool = True) -> onnx.ModelProto:
    """The ONNX model at `path`; a UsageError for a path that is not a readable ONNX model with a graph."""
    p = input_file(path, "model")
    try:
        model = onnx.load(str(p), load_external_data=load_external_data)
    except OSError as e:  # an external data file that is missing or unreadable
        raise UsageError(f"cannot read {path}: {e.strerror or e}") from None
    except Exception as e:  # protobuf raises several kinds of errors on a file that is not a model
        raise UsageError(f"cannot read {path} as an ONNX model: {one_line(e)}") from None
    if not model.HasField("graph"):  # an empty file, or bytes that happen to parse as protobuf
        raise UsageError(f"{path} is not an ONNX model: it has no graph")
    return model


def read_inputs(path: str) -> dict[str, np.ndarray]:
    """The arrays of the .npz file `path` (option --inputs), by name."""
    input_file(path, "--inputs")
    try:
        return load_npz(path)
    except DiffError as e:
        raise UsageError(f"--inputs: {e}") from None


def number(kind: type, least: float | None = 0, *, finite: bool = True) -> Callable[[str], object]:
    """An argparse type: `kind` (int or float) at least `least` (None: no bound), and finite for floats."""

    def parse(text: str) -> object:
        try:
            v = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {_article(kind)}, got {text!r}") from None
        if finite and isinstance(v, float) and not math.isfinite(v):
            raise argparse.ArgumentTypeError(f"must be a finite number, got {text!r}")
        if least is not None and v < least:
            raise argparse.ArgumentTypeError(f"must be >= {least}, got {text!r}")
        return v

    return parse


def _article(kind: type) -> str:
    return {"int": "an integer", "float": "a number"}.get(kind.__name__, kind.__name__)


def comma_list(text: str, what: str, choices: Iterable[str] | None = None) -> list[str]:
    """The non-empty items of a comma list; a UsageError when there are none or one is not in `choices`."""
    items = [t.strip() for t in text.split(",") if t.strip()]
    if not items:
        raise UsageError(f"{what}: empty list")
    if choices is not None:
        allowed = list(choices)
        for t in items:
            if t not in allowed:
                raise UsageError(f"{what}: unknown {t!r}; expected one of {', '.join(allowed)}")
    return items


# The log severity the command line gives ORT sessions: 4 (none) unless --verbose (2, warnings), so that an
# error is the one line the command prints, not ORT's coloured log line before it. Library callers keep 3.
_ORT_SESSION_LOG_LEVEL = [3]


def set_ort_verbose(verbose: bool) -> None:
    _ORT_SESSION_LOG_LEVEL[0] = 2 if verbose else 4


def ort_session_log_level() -> int:
    return _ORT_SESSION_LOG_LEVEL[0]
