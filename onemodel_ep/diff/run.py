"""`onemodel diff` run: a model in stock ORT side by side with the same model on OneModel EP kernels, on the
same inputs (diff_models); the outputs compared, on every kernel path or node by node if asked."""

from __future__ import annotations

import math
import os
import tempfile
import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import onnx
import onnxruntime as ort

from onemodel_ep import strict as strict_mode
from onemodel_ep._lib import MODES, check_kernel_path, kernel_paths, op_table
from onemodel_ep.diff.compare import (
    Criteria,
    bit_identical,
    compare,
    first_bit_difference,
    json_value,
    show_value,
)
from onemodel_ep.diff.inputs import InputsArg, make_inputs, model_inputs
from onemodel_ep.diff.per_node import Progress, compare_nodes
from onemodel_ep.diff.report import DiffReport, OutputDiff, PathsCheck
from onemodel_ep.diff.sessions import ModelArg, ep_session, load_model, optimized_graph, ours, run, session
from onemodel_ep.ep import assignments, ep_report
from onemodel_ep.errors import DiffError, one_line
from onemodel_ep.report import RewriteReport
from onemodel_ep.rewriter import rewrite
from onemodel_ep.session import VIAS, default_via
from onemodel_ep.version import __version__

# ONNX operators that compute each output element from the same-index (broadcast) element of each input.
_ELEMENTWISE_EXTRA = frozenset(
    "Identity Relu Elu Selu Celu PRelu ThresholdedRelu Softplus Softsign Shrink Mish IsNaN IsInf BitShift "
    "BitwiseAnd BitwiseOr BitwiseXor BitwiseNot Sin Cos Tan Asin Acos Atan Sinh Cosh Asinh Acosh Atanh "
    "Dropout".split()
)


def _elementwise_sources(model: onnx.ModelProto, output: str) -> list[str] | None:
    """Graph inputs an output is computed from element by element (with broadcasting); None when some node on
    the way is not element-wise."""
    g = model.graph
    producers = {o: n for n in g.node for o in n.output if o}
    inits = {i.name for i in g.initializer}
    inputs = {i.name for i in g.input} - inits
    elementwise = set(op_table()) | _ELEMENTWISE_EXTRA
    sources: list[str] = []
    seen: set[str] = set()
    stack = [output]
    while stack:
        v = stack.pop()
        if v in seen or not v:
            continue
        seen.add(v)
        if v in inputs:
            sources.append(v)
            continue
        if v in inits:
            continue
        node = producers.get(v)
        if node is None:
            return None
        if node.op_type == "Constant" and node.domain in ("", "ai.onnx"):
            continue
        if node.domain not in ("", "ai.onnx") or node.op_type not in elementwise:
            return None
        if node.op_type == "Dropout" and list(node.output).index(v) != 0:
            return None
        stack.extend(node.input)
    return sorted(sources)


def _source_elements(
    sources: list[str], feeds: Mapping[str, np.ndarray], out_shape: Sequence[int], index: Sequence[int]
) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for s in sources:
        a = feeds[s]
        if a.ndim > len(out_shape):
            continue
        off = len(out_shape) - a.ndim
        idx = []
        for k, d in enumerate(a.shape):
            od = out_shape[off + k]
            if d == 1:
                idx.append(0)
            elif d == od:
                idx.append(int(index[off + k]))
            else:
                break
        else:
            v = a[tuple(idx)]
            found[s] = {"index": idx, "value": json_value(v), "text": show_value(v)}
    return found


def _check_paths(
    model: onnx.ModelProto,
    mode: str,
    feeds: Mapping[str, np.ndarray],
    names: list[str],
    progress: Progress,
    via: str = "rewrite",
) -> PathsCheck:
    paths = kernel_paths()
    results: list[dict[str, Any]] = []
    for i, p in enumerate(paths):
        progress(f"kernel path {p} ({i + 1}/{len(paths)})")
        sess = ours(model, mode, p, via, f"OneModel EP (kernel path {p})")
        results.append(run(sess, feeds, names, f"OneModel EP (kernel path {p})"))
    outputs = []
    for n in names:
        entry: dict[str, Any] = {"name": n, "identical": True, "first_difference": None}
        for p, r in zip(paths[1:], results[1:]):
            if not bit_identical(results[0][n], r[n]):
                entry["identical"] = False
                a, b = np.asarray(results[0][n]), np.asarray(r[n])
                idx = first_bit_difference(a, b)
                if idx is None:
                    entry["first_difference"] = {
                        "paths": [paths[0], p],
                        "index": None,
                        "values": {paths[0]: f"{a.dtype} {list(a.shape)}", p: f"{b.dtype} {list(b.shape)}"},
                    }
                else:
                    entry["first_difference"] = {
                        "paths": [paths[0], p],
                        "index": list(idx),
                        "values": {q: json_value(np.asarray(res[n])[idx]) for q, res in zip(paths, results)},
                        "bits": {q: show_value(np.asarray(res[n])[idx]) for q, res in zip(paths, results)},
                    }
                break
        outputs.append(entry)
    return PathsCheck(mode=mode, paths=paths, identical=all(o["identical"] for o in outputs), outputs=outputs)


def diff_models(
    model: ModelArg = None,
    inputs: InputsArg = None,
    *,
    mode: str = "exact",
    kernel_path: str | None = None,
    all_paths: bool = False,
    per_node: bool = False,
    top: int = 5,
    atol: float = 0.0,
    rtol: float = 0.0,
    max_ulp: int = 0,
    seed: int = 0,
    shapes: Mapping[str, Sequence[int]] | None = None,
    value_range: tuple[float, float] | None = None,
    special: float = 0.0,
    progress: Progress | None = None,
    via: str | None = None,
    strict: bool = False,
) -> DiffReport:
    """Run `model` in stock ORT and on OneModel EP kernels, on the same inputs, and compare.

    model: a path, serialized bytes or an onnx.ModelProto; None: the bundled example (diff_demo.onnx).
    inputs: {name: array} or the path of an .npz (names as keys); None: generated from the model's input types
      with `seed`, `shapes` ({input name: full shape} or {symbolic dim: [size]}), `value_range` (lo, hi) and
      `special` (fraction of NaN, +-inf, +-0, subnormals and extremes mixed in).
    mode, kernel_path: as for rewrite(). all_paths: also run the rewritten model on every kernel path of this
      machine and check the outputs are bit-identical. per_node: expose every value a retargeted node produces
      and find the first node whose output fails the criteria; `top` nodes with the largest errors.
    atol, rtol, max_ulp: pass criteria (see Criteria). via: "ep" (OneModel's execution provider, the default
    where ONNX Runtime supports it) or "rewrite" (the model rewritten to ai.onemodel). Raises DiffError on a
    user error (bad model, inputs, options, or a model that cannot run); strict: StrictModeError when a
    computing node would run outside OneModel EP (onemodel_ep.strict).
    """
    t0 = time.monotonic()
    say: Progress = progress or (lambda _msg: None)
    if mode not in MODES:
        raise DiffError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")
    via = default_via() if via is None else via
    if via not in VIAS:
        raise DiffError(f"via must be one of {', '.join(VIAS)}, got {via!r}")
    try:
        check_kernel_path(kernel_path)
    except ValueError as e:
        raise DiffError(str(e)) from None
    if not (0 <= atol < math.inf and 0 <= rtol < math.inf and max_ulp >= 0):
        raise DiffError("atol and rtol must be finite and >= 0, max_ulp >= 0")
    if seed < 0:
        raise DiffError(f"seed must be >= 0, got {seed}")
    if not 0 <= special <= 1:
        raise DiffError(f"special must be a fraction between 0 and 1, got {special}")
    if value_range is not None and not -math.inf < value_range[0] <= value_range[1] < math.inf:
        raise DiffError(f"range: lo and hi must be finite, lo <= hi, got {value_range[0]},{value_range[1]}")
    crit = Criteria(float(atol), float(rtol), int(max_ulp))

    m, label = load_model(model)
    specs = model_inputs(m)
    feeds, input_info, generation = make_inputs(specs, inputs, seed, shapes or {}, value_range, special)
    names = [o.name for o in m.graph.output]

    plain_dir = tempfile.TemporaryDirectory(prefix="onemodel_diff_") if per_node else None
    plain_paths: tuple[str | None, str | None] = (None, None)
    if plain_dir is not None:  # the graphs ORT runs, to tell where it optimised the two runs differently
        plain_paths = (os.path.join(plain_dir.name, "stock.onnx"), os.path.join(plain_dir.name, "ours.onnx"))
    say("stock ORT: running the original model")
    ref = run(session(m, False, "stock ORT", plain_paths[0]), feeds, names, "stock ORT")
    rep = RewriteReport(mode, kernel_path)
    try:
        rewritten = rewrite(m, mode=mode, kernel_path=kernel_path, report=rep)
    except Exception as e:
        raise DiffError(f"cannot rewrite the model: {one_line(e, 400)}") from None
    ep_sess: Any = None
    if via == "ep":
        say("OneModel EP: running through its execution provider")
        ep_sess = ep_session(m, mode, kernel_path, "OneModel EP", plain_paths[1])
        rep = ep_report(m, ep_sess, mode, kernel_path)
        if strict:
            strict_mode.check(strict_mode.outside_ep(rep, assignments(ep_sess)), label)
        got = run(ep_sess, feeds, names, "OneModel EP")
    else:
        if strict:
            strict_mode.check(strict_mode.outside_rewrite(rep, rewritten), label)
        say("OneModel EP: rewriting and running")
        got = run(session(rewritten, True, "OneModel EP", plain_paths[1]), feeds, names, "OneModel EP")

    say("comparing outputs")
    outputs = []
    for n in names:
        c = compare(ref[n], got[n], crit)
        if c.worst is not None and c.worst_index is not None:
            src = _elementwise_sources(m, n)
            if src:
                c.worst["inputs"] = _source_elements(src, feeds, c.shape, c.worst_index)
        outputs.append(OutputDiff(n, c))

    report = DiffReport(
        model=label,
        mode=mode,
        kernel_path=kernel_path,
        criteria=crit,
        inputs=input_info,
        generation=generation,
        rewrite=rep,
        outputs=outputs,
        versions={
            "onemodel_ep": __version__,
            "onnxruntime": ort.__version__,
            "onnx": onnx.__version__,
            "numpy": np.__version__,
        },
    )
    if all_paths:
        report.all_paths = _check_paths(m, mode, feeds, names, say, via)
    if plain_dir is not None:
        with plain_dir:
            plain = (optimized_graph(plain_paths[0]), optimized_graph(plain_paths[1]))
        make = None
        if via == "ep":
            make = lambda mm, opt: ep_session(mm, mode, kernel_path, "OneModel EP (per node)", opt)  # noqa: E731
        fails = not all(o.comparison.passed for o in outputs)
        def rewrite_body(body: onnx.ModelProto) -> onnx.ModelProto:
            return rewrite(body, mode=mode, kernel_path=kernel_path)

        report.per_node, report.nodes, report.divergence = compare_nodes(
            m, rewritten, feeds, crit, top, say, make, plain, fails, rewrite_body
        )
    report.via = via
    report.seconds = time.monotonic() - t0
    return report
