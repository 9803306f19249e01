"""The `onemodel` command line: rewrite, run, info; bench (bench.py) and diff (cli_diff.py)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import onnx

from onemodel_ep import bench, cli_args, cli_diff, cli_verify
from onemodel_ep._lib import EP_NAME, MODES, PATH_NAMES, kernel_paths, library_path, op_table, type_name
from onemodel_ep.errors import UsageError
from onemodel_ep.version import __version__

__all__ = ["UsageError", "build_parser", "example_model_path", "main"]


def example_model_path() -> Path:
    """The bundled example model."""
    return Path(str(resources.files("onemodel_ep") / "examples" / "elementwise_demo.onnx"))


def cmd_rewrite(args: argparse.Namespace) -> int:
    from onemodel_ep.external_data import save_beside
    from onemodel_ep.rewriter import RewriteReport, rewrite

    model = cli_args.load_model(args.input, load_external_data=False)  # external weights stay in their files
    cli_args.output_file(args.output, "output")
    report = RewriteReport(args.mode, args.kernel_path)
    out = rewrite(model, mode=args.mode, kernel_path=args.kernel_path, report=report)
    try:
        save_beside(out, args.input, args.output)
    except (OSError, ValueError) as e:  # also an external data file that is missing or in the way
        raise UsageError(f"output: cannot write {args.output}: {getattr(e, 'strerror', None) or e}") from None
    print(report.summary())
    print(f"wrote {args.output}")
    return 0


def _example_inputs(sess: object, seed: int) -> dict[str, np.ndarray]:
    import onnxruntime as ort

    assert isinstance(sess, ort.InferenceSession)
    rng = np.random.default_rng(seed)
    feeds: dict[str, np.ndarray] = {}
    for i in sess.get_inputs():
        shape = [d if isinstance(d, int) and d >= 0 else 4 for d in i.shape]
        dtype = np.dtype(
            onnx.helper.tensor_dtype_to_np_dtype(
                {
                    "tensor(float)": 1,
                    "tensor(double)": 11,
                    "tensor(float16)": 10,
                    "tensor(int32)": 6,
                    "tensor(int64)": 7,
                }.get(i.type, 1)
            )
        )
        if dtype.kind == "f":
            feeds[i.name] = rng.uniform(-20, 20, size=shape).astype(dtype)
        else:
            feeds[i.name] = rng.integers(-100, 100, size=shape).astype(dtype)
    return feeds


def _session(path: str, args: argparse.Namespace) -> Any:
    """The OneModel EP session of the model at `path`, with the kernel options of `args`."""
    from onemodel_ep.session import InferenceSession

    cli_args.load_model(path, load_external_data=False)  # a readable ONNX model; the session reads it again
    try:
        import onnxruntime as ort

        so = ort.SessionOptions()
        so.log_severity_level = 3  # not ORT's warning that nodes stay with the CPU EP: the report says which
        return InferenceSession(path, so, mode=args.mode, kernel_path=args.kernel_path, via=args.via)
    except Exception as e:  # ORT's errors are plain Exception subclasses (onnxruntime_pybind11_state)
        raise UsageError(f"cannot load {path}: {cli_args.one_line(e)}") from None


def cmd_run(args: argparse.Namespace) -> int:
    path = args.model or str(example_model_path())
    feeds = cli_args.read_inputs(args.inputs) if args.inputs else None
    sess = _session(path, args)
    print(f"model: {path}")
    print(sess.rewrite_report.summary())
    if feeds is None:
        feeds = _example_inputs(sess, args.seed)
    for k, v in feeds.items():
        print(f"input  {k}: {v.dtype} {list(v.shape)}\n{np.array2string(v, threshold=40)}")
    try:
        outs = sess.run(None, feeds)
    except Exception as e:  # wrong names, types or shapes of inputs, or a kernel's error
        raise UsageError(f"cannot run {path}: {cli_args.one_line(e)}") from None
    for meta, v in zip(sess.get_outputs(), outs):
        print(
            f"output {meta.name}: {v.dtype} {list(v.shape)}\n{np.array2string(np.asarray(v), threshold=40)}"
        )
    return 0


def cmd_info(args: argparse.Namespace) -> int:
    import onnxruntime as ort

    from onemodel_ep.ep import ep_unsupported_reason

    print(f"onemodel-ep {__version__}")
    print(f"onnxruntime {ort.__version__}")
    print(f"onnx {onnx.__version__}")
    print(f"library {library_path()}")
    print(f"kernel paths (widest first): {', '.join(kernel_paths())}")
    reason = ep_unsupported_reason()
    print(
        f"execution provider path (--via ep): supported, {EP_NAME}"
        if reason is None
        else f"execution provider path (--via ep): not supported: {reason}; the rewrite path is used"
    )
    if args.ops:
        for row in op_table().values():
            types = ", ".join(type_name(t) for t in sorted(row.input0_types))
            print(f"  {row.name:<16} opset {row.since_opset}+  {types}")
    return 0


def add_kernel_options(p: argparse.ArgumentParser) -> None:
    """--mode and --kernel-path, which every subcommand that rewrites a model takes."""
    p.add_argument("--mode", choices=MODES, default="exact")
    p.add_argument("--kernel-path", choices=PATH_NAMES, default=None)


def build_parser() -> argparse.ArgumentParser:
    p = cli_args.Parser(prog="onemodel", description="OneModel EP: exact element-wise kernels for ORT")
    sub = p.add_subparsers(dest="command", required=True)

    r = sub.add_parser("rewrite", help="retarget supported nodes of a model to ai.onemodel")
    r.add_argument("input")
    r.add_argument("output", help="the rewritten model; its folder must exist")
    add_kernel_options(r)
    r.set_defaults(func=cmd_rewrite)

    x = sub.add_parser("run", help="run a model on OneModel EP kernels (default: the bundled example)")
    x.add_argument("model", nargs="?", default=None)
    x.add_argument("--inputs", help=".npz file of inputs (names as keys); default: seeded random")
    x.add_argument("--seed", type=cli_args.number(int), default=0, help="seed of the random inputs (>= 0)")
    add_kernel_options(x)
    x.add_argument(
        "--via",
        choices=("ep", "rewrite"),
        default=None,
        help="OneModel through its execution provider or the rewrite (default: ep where ORT supports it)",
    )
    x.set_defaults(func=cmd_run)

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
