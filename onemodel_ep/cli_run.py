"""`onemodel run`: the main job. Runs a model (default: the bundled BERT-tiny) on OneModel EP, prints which
nodes ran on OneModel EP and which stayed with ORT and why, the output digest on every kernel path of this
machine (exact mode: equal), and how far stock ORT's outputs are from OneModel EP's (max abs / rel)."""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from onemodel_ep import cli_args
from onemodel_ep._lib import MODES, PATH_NAMES, kernel_paths
from onemodel_ep.digests import output_digest
from onemodel_ep.errors import StrictModeError, UsageError, one_line


def example_model_path() -> Path:
    """The bundled example model: BERT-tiny (2 layers, hidden size 64; testdata/models/bert_tiny.onnx)."""
    return Path(str(resources.files("onemodel_ep") / "examples" / "bert_tiny.onnx"))


def _session(path: str, mode: str, kernel_path: str | None, via: str | None, strict: bool = False) -> Any:
    """The OneModel EP session of the model at `path`; strict: strict mode (onemodel_ep.strict)."""
    from onemodel_ep.session import InferenceSession

    try:
        import onnxruntime as ort

        so = ort.SessionOptions()
        so.log_severity_level = cli_args.ort_session_log_level()  # the report says which nodes stayed
        return InferenceSession(path, so, mode=mode, kernel_path=kernel_path, via=via, strict=strict)
    except StrictModeError:
        raise
    except Exception as e:  # ORT's errors are plain Exception subclasses (onnxruntime_pybind11_state)
        raise UsageError(f"cannot load {path}: {one_line(e)}") from None


def _run(sess: Any, feeds: Mapping[str, np.ndarray], path: str) -> list[np.ndarray]:
    try:
        return [np.asarray(y) for y in sess.run(None, dict(feeds))]
    except Exception as e:  # wrong names, types or shapes of inputs, or a kernel's error
        raise UsageError(f"cannot run {path}: {one_line(e)}") from None


def _stock(path: str, feeds: Mapping[str, np.ndarray]) -> list[np.ndarray] | str:
    """Stock ORT's outputs, or the one-line reason it cannot load or run the model (which OneModel EP may
    serve: the spec defines some cases that stock refuses, such as Clip-6 with min > max)."""
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.log_severity_level = cli_args.ort_session_log_level()
    try:
        sess = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
        return [np.asarray(y) for y in sess.run(None, dict(feeds))]
    except Exception as e:  # ORT's errors are plain Exception subclasses
        return one_line(e)


def difference(ours: np.ndarray, stock: np.ndarray) -> str:
    """Max abs and max rel difference of two outputs (rel: over |stock|, where it is not 0)."""
    if ours.shape != stock.shape or ours.dtype != stock.dtype:
        return f"differ in shape or type ({ours.dtype}{list(ours.shape)} vs {stock.dtype}{list(stock.shape)})"
    if np.array_equal(ours, stock, equal_nan=ours.dtype.kind in "fc"):
        return "bit-identical" if ours.tobytes() == stock.tobytes() else "equal values"
    a, b = ours.astype(np.float64), stock.astype(np.float64)
    both = np.isfinite(a) & np.isfinite(b)
    absd = np.abs(a - b)[both]
    ref = np.abs(b)[both]
    rel = absd[ref > 0] / ref[ref > 0]
    odd = int(np.count_nonzero(~both & ~(np.isnan(a) & np.isnan(b)) & (a != b)))
    text = f"max abs {absd.max(initial=0.0):.3g}, max rel {rel.max(initial=0.0):.3g}"
    return text + (f", {odd} non-finite element(s) differ" if odd else "")


def cmd_run(args: argparse.Namespace) -> int:
    from onemodel_ep.verify import seeded_inputs

    path = args.model or str(example_model_path())
    graph = cli_args.load_model(path, load_external_data=False)
    feeds = cli_args.read_inputs(args.inputs) if args.inputs else seeded_inputs(graph, args.seed)
    del graph
    paths = [args.kernel_path] if args.kernel_path else kernel_paths()
    first = _session(path, args.mode, paths[0], args.via, args.strict)  # strict mode refuses before output
    print(f"model: {path}")
    for k, v in feeds.items():
        print(f"input  {k}: {v.dtype} {list(v.shape)}\n{np.array2string(v, threshold=40)}")
    digests: dict[str, str] = {}
    outs: list[np.ndarray] = []
    for i, kp in enumerate(paths):
        sess = first if i == 0 else _session(path, args.mode, kp, args.via, args.strict)
        if i == 0:
            print(sess.report.summary())
            names = [o.name for o in sess.get_outputs()]
            outs = _run(sess, feeds, path)
            digests[kp] = output_digest(outs)
        else:
            digests[kp] = output_digest(_run(sess, feeds, path))
    for kp, d in digests.items():
        print(f"digest on kernel path {kp:<6} sha256:{d}")
    if len(digests) > 1:
        same = len(set(digests.values())) == 1
        print(f"digests on {len(digests)} kernel paths: " + ("equal" if same else "NOT equal"))
    stock = _stock(path, feeds)
    for k, (name, y) in enumerate(zip(names, outs)):
        print(f"output {name}: {y.dtype} {list(y.shape)}\n{np.array2string(y, threshold=40)}")
        vs = f"stock ORT fails: {stock}" if isinstance(stock, str) else difference(y, stock[k])
        print(f"  vs stock ORT (CPU EP): {vs}")
    return 0


def add_subparser(sub: Any) -> argparse.ArgumentParser:
    """Add `run` to the `onemodel` command line (cli.py calls this)."""
    x = sub.add_parser("run", help="run a model on OneModel EP (default: the bundled BERT-tiny)")
    x.add_argument("model", nargs="?", default=None)
    x.add_argument("--inputs", help=".npz of inputs, names as keys; default: seeded (as onemodel verify's)")
    x.add_argument("--seed", type=cli_args.number(int), default=0, help="seed of the default inputs (>= 0)")
    x.add_argument("--mode", choices=MODES, default="exact")
    x.add_argument("--kernel-path", choices=PATH_NAMES, default=None, help="default: every path of this CPU")
    x.add_argument(
        "--via",
        choices=("ep", "rewrite"),
        default=None,
        help="OneModel through its execution provider or the rewrite (default: ep where ORT supports it)",
    )
    cli_args.add_strict_option(x)
    x.set_defaults(func=cmd_run)
    return x
