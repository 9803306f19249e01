"""The `onemodel` command line: rewrite, info; run (cli_run.py), verify (cli_verify.py), bench (bench.py)
and diff (cli_diff.py)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

import onnx

from onemodel_ep import bench, cli_args, cli_diff, cli_run, cli_verify
from onemodel_ep._lib import (
    EP_NAME,
    F_STRUCT,
    MODES,
    PATH_NAMES,
    kernel_paths,
    library_path,
    op_table,
    type_name,
)
from onemodel_ep.cli_run import example_model_path
from onemodel_ep.errors import UsageError
from onemodel_ep.version import __version__

__all__ = ["UsageError", "build_parser", "example_model_path", "main"]


def cmd_rewrite(args: argparse.Namespace) -> int:
    from onemodel_ep.external_data import data_paths, place_beside
    from onemodel_ep.rewriter import RewriteReport, rewrite

    model = cli_args.load_model(args.input, load_external_data=False)  # external weights stay in their files
    dst = cli_args.output_file(args.output, "output")
    src_dir, dst_dir = Path(args.input).absolute().parent, dst.absolute().parent
    try:
        data_paths(model, src_dir)
    except (FileNotFoundError, ValueError) as e:  # an external data location ORT and onnx refuse
        raise UsageError(f"cannot rewrite {args.input}: {e}") from None
    _check(args.input, model, f"{args.input} is not a valid ONNX model")
    report = RewriteReport(args.mode, args.kernel_path)
    out = rewrite(model, mode=args.mode, kernel_path=args.kernel_path, report=report)
    tmp = dst_dir / f".{dst.name}.onemodel-tmp"  # checked before it takes the output's name
    try:
        place_beside(out, src_dir, dst_dir)
        onnx.save(out, tmp)
        _check(str(tmp), out, f"the rewrite of {args.input} is not a valid ONNX model")
        os.replace(tmp, dst)
    except OSError as e:  # a data file in the way, a folder that cannot be written
        raise UsageError(f"output: cannot write {args.output}: {getattr(e, 'strerror', None) or e}") from None
    finally:
        tmp.unlink(missing_ok=True)
    print(report.summary())
    print(f"wrote {args.output}")
    return 0


def _check(path: str, model: onnx.ModelProto, what: str) -> None:
    """onnx's full check of the model file `path` (structure, schemas, strict shape inference, its external
    data files), read as `model`, and a default-domain opset onnx knows: a UsageError `what: the first
    problem` otherwise, so that `onemodel rewrite` never writes a model that ORT refuses for these reasons."""
    try:
        onnx.checker.check_model(path, full_check=True)
    except Exception as e:  # ValidationError, InferenceError and the C++ checker's others
        raise UsageError(f"{what}: {cli_args.one_line(str(e).strip().splitlines()[0] or e)}") from None
    newest = onnx.defs.onnx_opset_version()
    for imp in model.opset_import:
        if imp.domain in ("", "ai.onnx") and imp.version > newest:
            raise UsageError(f"{what}: it imports ONNX opset {imp.version}, newer than the newest, {newest}")


def cmd_info(args: argparse.Namespace) -> int:
    import onnxruntime as ort

    from onemodel_ep.ep import ep_unsupported_reason

    print(f"onemodel-ep {__version__}")
    print(f"onnxruntime {ort.__version__}")
    print(f"onnx {onnx.__version__}")
    print(f"library {library_path()}")
    print(f"kernel paths (widest first): {', '.join(kernel_paths())}")
    rows = op_table().values()
    structured = [r.name for r in rows if r.flags & F_STRUCT]
    print(f"serves {', '.join(structured)} and {len(rows) - len(structured)} element-wise ops (info --ops)")
    reason = ep_unsupported_reason()
    print(
        f"execution provider path (--via ep): supported, {EP_NAME}"
        if reason is None
        else f"execution provider path (--via ep): not supported: {reason}; the rewrite path is used"
    )
    if args.ops:
        for row in op_table().values():
            types = ", ".join(type_name(t) for t in sorted(row.input0_types))
            print(f"  {row.key:<16} opset {row.since_opset}+  {types}")
    return 0


def add_kernel_options(p: argparse.ArgumentParser) -> None:
    """--mode and --kernel-path, which every subcommand that rewrites a model takes."""
    p.add_argument("--mode", choices=MODES, default="exact")
    p.add_argument("--kernel-path", choices=PATH_NAMES, default=None)


def build_parser() -> argparse.ArgumentParser:
    p = cli_args.Parser(prog="onemodel", description="OneModel EP: exact element-wise kernels for ORT")
    p.add_argument(
        "--verbose", action="store_true", help="show ONNX Runtime's own log lines (default: none)"
    )
    sub = p.add_subparsers(dest="command", required=True)

    r = sub.add_parser("rewrite", help="retarget supported nodes of a model to ai.onemodel")
    r.add_argument("input")
    r.add_argument("output", help="the rewritten model; its folder must exist")
    add_kernel_options(r)
    r.set_defaults(func=cmd_rewrite)

    cli_run.add_subparser(sub)

    i = sub.add_parser("info", help="versions and the kernel paths of this machine")
    i.add_argument("--ops", action="store_true", help="also list the supported operators")
    i.set_defaults(func=cmd_info)

    bench.add_subparser(sub)
    cli_diff.add_subparser(sub)
    cli_verify.add_subparser(sub)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    cli_args.set_ort_verbose(args.verbose)
    if not args.verbose:  # ORT logs an error before raising it: the error alone is one line
        import onnxruntime as ort

        ort.set_default_logger_severity(4)
    try:
        return int(args.func(args))
    except UsageError as e:
        print(f"onemodel: error: {e}", file=sys.stderr)
        return 2
    except MemoryError:  # e.g. generated inputs of a size given on the command line
        print(f"onemodel {args.command}: error: out of memory", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
