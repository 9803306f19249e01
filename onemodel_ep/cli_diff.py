"""`onemodel diff`: its command line (options, checks of their values) over onemodel_ep.diff.diff_models."""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Callable

import numpy as np

from onemodel_ep import cli_args
from onemodel_ep._lib import MODES, PATH_NAMES
from onemodel_ep.diff.inputs import InputsArg, make_inputs, model_inputs, parse_shape_option
from onemodel_ep.diff.plot import plot
from onemodel_ep.diff.report import DiffReport
from onemodel_ep.diff.run import diff_models
from onemodel_ep.diff.sessions import load_model
from onemodel_ep.errors import DiffError, UsageError

# `onemodel diff --help`: the summary in the list of commands, the description and the exit statuses.
_SUMMARY = "compare a model in stock ORT with the same model on OneModel EP kernels"
_DESCRIPTION = (
    "Run MODEL (default: the bundled example) in stock ONNX Runtime and, rewritten, on OneModel EP kernels, "
    "on the same inputs; print per output the bit-identical count, abs/rel error, ulp distances and the "
    "worst element."
)
_EXITS = "0 every output passes, 1 one fails, 2 bad usage or a model that cannot run"


def _range_arg(text: str) -> tuple[float, float]:
    try:
        lo, hi = (float(v) for v in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected LO,HI (e.g. --range=-20,20), got {text!r}") from None
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise argparse.ArgumentTypeError(f"LO and HI must be finite, got {text!r}")
    if not lo <= hi:
        raise argparse.ArgumentTypeError(f"LO must be <= HI, got {text!r}")
    return lo, hi


def _fraction_arg(text: str) -> float:
    try:
        f = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a fraction between 0 and 1, got {text!r}") from None
    if not 0 <= f <= 1:
        raise argparse.ArgumentTypeError(f"expected a fraction between 0 and 1, got {text!r}")
    return f


def _nonneg(kind: type) -> Callable[[str], Any]:
    def parse(text: str) -> Any:
        try:
            v = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a {kind.__name__}, got {text!r}") from None
        if isinstance(v, float) and not math.isfinite(v):
            raise argparse.ArgumentTypeError(f"must be a finite number, got {text!r}")
        if v < 0:
            raise argparse.ArgumentTypeError(f"must be >= 0, got {text!r}")
        return v

    return parse


def add_subparser(sub: Any) -> argparse.ArgumentParser:
    """Add `diff` to the `onemodel` command line (cli.py calls this)."""
    d = cli_args.add_command(sub, "diff", _SUMMARY, _DESCRIPTION, exits=_EXITS)
    d.add_argument("model", nargs="?", default=None, help="ONNX model (default: the bundled diff_demo.onnx)")
    g = d.add_argument_group("inputs")
    g.add_argument(
        "--inputs", metavar="FILE.npz", help=".npz file of inputs, names as keys (default: generated)"
    )
    g.add_argument("--seed", type=_nonneg(int), default=0, help="seed of the generated inputs (default 0)")
    g.add_argument(
        "--shape",
        action="append",
        default=[],
        metavar="NAME=d0,d1,...",
        help="shape of an input, or size of a symbolic dimension (NAME=N); repeatable",
    )
    g.add_argument(
        "--range",
        type=_range_arg,
        default=None,
        metavar="LO,HI",
        dest="value_range",
        help="range of generated values (write --range=-20,20 for a negative LO; "
        "default floats -20,20, ints -100,100)",
    )
    g.add_argument(
        "--special",
        type=_fraction_arg,
        nargs="?",
        const=0.1,
        default=0.0,
        metavar="FRACTION",
        help="mix in NaN, +-inf, +-0, subnormals and extremes (fraction of elements, default 0.1)",
    )
    g.add_argument(
        "--save-inputs", metavar="FILE.npz", help="write the inputs used to an .npz (to rerun them)"
    )
    k = d.add_argument_group("kernels")
    k.add_argument("--mode", choices=MODES, default="exact")
    k.add_argument(
        "--via",
        choices=("ep", "rewrite"),
        default=None,
        help="OneModel through its execution provider or the rewrite (default: ep where ORT supports it)",
    )
    k.add_argument(
        "--kernel-path", choices=PATH_NAMES, default=None, help="force a kernel path (default: widest)"
    )
    k.add_argument(
        "--all-paths",
        action="store_true",
        help="also run on every kernel path of this machine and check the outputs are bit-identical",
    )
    cli_args.add_strict_option(k)
    n = d.add_argument_group("per node")
    n.add_argument(
        "--per-node",
        action="store_true",
        help="compare every value a retargeted node produces; report the first node that fails",
    )
    n.add_argument(
        "--top", type=_nonneg(int), default=5, metavar="K", help="nodes in the largest-error table (5)"
    )
    c = d.add_argument_group("pass criteria (an element passes if any criterion holds)")
    c.add_argument("--atol", type=_nonneg(float), default=0.0, help="absolute tolerance (default 0)")
    c.add_argument("--rtol", type=_nonneg(float), default=0.0, help="relative tolerance (default 0)")
    c.add_argument(
        "--max-ulp",
        type=_nonneg(int),
        default=0,
        help="largest ulp distance (integers: exact difference) that passes (default 0)",
    )
    o = d.add_argument_group("output")
    o.add_argument("--json", metavar="FILE", help="write the whole report as JSON ('-' for stdout)")
    o.add_argument(
        "--plot", metavar="FILE.png", help="draw an ulp-error histogram per output (needs matplotlib)"
    )
    o.add_argument("-q", "--quiet", action="store_true", help="no progress messages on stderr")
    d.set_defaults(func=cmd_diff)
    return d


def cmd_diff(args: argparse.Namespace) -> int:
    t0 = time.monotonic()
    show = not args.quiet and sys.stderr.isatty()

    def progress(msg: str) -> None:
        if show:
            print(f"[{time.monotonic() - t0:6.1f}s] {msg}", file=sys.stderr, flush=True)

    for path, what in ((args.json, "--json"), (args.plot, "--plot"), (args.save_inputs, "--save-inputs")):
        if path and path != "-":  # checked before the runs, which may take minutes
            cli_args.output_file(path, what)
    try:
        shapes = dict(parse_shape_option(s) for s in args.shape)
        if args.plot:
            try:
                import matplotlib  # noqa: F401
            except ImportError:
                raise DiffError("--plot needs matplotlib: pip install 'onemodel-ep[plot]'") from None
        report = diff_models(
            args.model,
            args.inputs,
            mode=args.mode,
            kernel_path=args.kernel_path,
            via=args.via,
            all_paths=args.all_paths,
            per_node=args.per_node,
            top=args.top,
            atol=args.atol,
            rtol=args.rtol,
            max_ulp=args.max_ulp,
            seed=args.seed,
            shapes=shapes,
            value_range=args.value_range,
            special=args.special,
            progress=progress,
            strict=args.strict,
        )
        if args.save_inputs:
            _save_inputs(report, args, shapes)
        if args.json == "-":
            print(report.to_json())
        else:
            print(report.format())
            if args.json:
                try:
                    Path(args.json).write_text(report.to_json() + "\n")
                except OSError as e:
                    raise DiffError(f"cannot write {args.json}: {e.strerror or e}") from None
                print(f"wrote {args.json}")
        if args.plot:
            plot(report, args.plot)
            print(f"wrote {args.plot}")
    except DiffError as e:
        raise UsageError(str(e)) from None
    return 0 if report.passed else 1


def _save_inputs(report: DiffReport, args: argparse.Namespace, shapes: Mapping[str, Sequence[int]]) -> None:
    # The inputs are regenerated deterministically from the same options (the report keeps only their stats).
    m, _ = load_model(args.model)
    specs = model_inputs(m)
    inputs: InputsArg = args.inputs
    feeds, _, _ = make_inputs(specs, inputs, args.seed, shapes, args.value_range, args.special)
    try:
        np.savez(args.save_inputs, **feeds)
    except OSError as e:
        raise DiffError(f"cannot write {args.save_inputs}: {e.strerror or e}") from None
