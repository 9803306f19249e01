"""The `onemodel` command line: rewrite, run, info (and diff, when present)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from importlib import import_module, resources
from pathlib import Path

import numpy as np
import onnx

from onemodel_ep._lib import MODES, PATH_NAMES, kernel_paths, library_path
from onemodel_ep.errors import UsageError

__all__ = ["UsageError", "build_parser", "example_model_path", "main"]


def example_model_path() -> Path:
    """The bundled example model."""
    return Path(str(resources.files("onemodel_ep") / "examples" / "elementwise_demo.onnx"))


def _load(path: str) -> onnx.ModelProto:
    p = Path(path)
    if not p.is_file():
        raise UsageError(f"no such model file: {path}")
    try:
        return onnx.load(str(p))
    except Exception as e:  # protobuf raises several kinds of errors on a corrupt file
        raise UsageError(f"cannot read {path} as an ONNX model: {e}") from e


def cmd_rewrite(args: argparse.Namespace) -> int:
    from onemodel_ep.rewriter import RewriteReport, rewrite

    model = _load(args.input)
    report = RewriteReport(args.mode, args.kernel_path)
    out = rewrite(model, mode=args.mode, kernel_path=args.kernel_path, report=report)
    onnx.save(out, args.output)
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


def cmd_run(args: argparse.Namespace) -> int:
    import onnxruntime as ort

    from onemodel_ep.session import InferenceSession

    path = args.model or str(example_model_path())
    model = _load(path)
    sess = InferenceSession(model, mode=args.mode, kernel_path=args.kernel_path)
    print(f"model: {path}")
    print(sess.rewrite_report.summary())
    if args.inputs:
        try:
            with np.load(args.inputs) as z:
                feeds = {k: z[k] for k in z.files}
        except Exception as e:
            raise UsageError(f"cannot read inputs from {args.inputs}: {e}") from e
    else:
        feeds = _example_inputs(sess, args.seed)
    for k, v in feeds.items():
        print(f"input  {k}: {v.dtype} {list(v.shape)}\n{np.array2string(v, threshold=40)}")
    try:
        outs = sess.run(None, feeds)
    except (ort.capi.onnxruntime_pybind11_state.InvalidArgument, ValueError) as e:
        raise UsageError(str(e)) from e
    for meta, v in zip(sess.get_outputs(), outs):
        print(
            f"output {meta.name}: {v.dtype} {list(v.shape)}\n{np.array2string(np.asarray(v), threshold=40)}"
        )
    return 0


def cmd_info(args: argparse.Namespace) -> int:
    import onnxruntime as ort

    import onemodel_ep
    from onemodel_ep._lib import op_table, type_name

    print(f"onemodel-ep {onemodel_ep.__version__}")
    print(f"onnxruntime {ort.__version__}")
    print(f"onnx {onnx.__version__}")
    print(f"library {library_path()}")
    print(f"kernel paths (widest first): {', '.join(kernel_paths())}")
    if args.ops:
        for row in op_table().values():
            types = ", ".join(type_name(t) for t in sorted(row.input0_types))
            print(f"  {row.name:<16} opset {row.since_opset}+  {types}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="onemodel", description="OneModel EP: exact element-wise kernels for ORT"
    )
    sub = p.add_subparsers(dest="command", required=True)

    r = sub.add_parser("rewrite", help="retarget supported nodes of a model to ai.onemodel")
    r.add_argument("input")
    r.add_argument("output")
    r.add_argument("--mode", choices=MODES, default="exact")
    r.add_argument("--kernel-path", choices=PATH_NAMES, default=None)
    r.set_defaults(func=cmd_rewrite)

    x = sub.add_parser("run", help="rewrite and run a model (default: the bundled example)")
    x.add_argument("model", nargs="?", default=None)
    x.add_argument("--inputs", help=".npz file of inputs (names as keys); default: seeded random")
    x.add_argument("--seed", type=int, default=0)
    x.add_argument("--mode", choices=MODES, default="exact")
    x.add_argument("--kernel-path", choices=PATH_NAMES, default=None)
    x.set_defaults(func=cmd_run)

    i = sub.add_parser("info", help="versions and the kernel paths of this machine")
    i.add_argument("--ops", action="store_true", help="also list the supported operators")
    i.set_defaults(func=cmd_info)

    from onemodel_ep import bench

    bench.add_subparser(sub)
    try:
        _diff = import_module("onemodel_ep.diff")  # the module (onemodel_ep.diff is the function diff())
    except ImportError:
        pass
    else:
        _diff.add_subparser(sub)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except UsageError as e:
        print(f"onemodel: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
