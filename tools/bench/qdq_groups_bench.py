"""The QDQ ResNet through the rewrite: QDQ groups fused (onemodel_ep/qdq_groups.py), node by node (grouping
off), and the QOperator ResNet through the rewrite, against stock ORT (its default optimisation level, which
fuses the groups into its QLinear kernels), in thread CPU time at one thread.

    PYTHONPATH=$PWD python tools/bench/qdq_groups_bench.py [--rounds 5] [--seconds 0.4]
        [--model M.onnx [--qop Q.onnx]] [--without Softmax ...]

`--model`: another QDQ model (its feeds: the digests' fixed ones), with `--qop` its QOperator form (else no
such session); `--without`: one more session, grouped but for the groups of those P op types.

Per round each session runs for `--seconds` of this thread's CPU time, in turn; a session's time is the
minimum over rounds of the mean per run. Prints the times (ms) and their ratios to stock's. For docs, never
for tests (docs/qdq-groups-rewrite.md).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import onnxruntime as ort
from model_cpu_time import per_run_ms  # tools/bench/: the script's folder is on sys.path

import onemodel_ep
from onemodel_ep import fold, qdq_groups
from onemodel_ep.digests import model_feeds

ROOT = Path(__file__).resolve().parents[2]
QDQ = ROOT / "testdata" / "models" / "resnet18_small_qdq.onnx"
QOP = ROOT / "testdata" / "quant" / "resnet18_small_qop.onnx"


def _options() -> ort.SessionOptions:
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.log_severity_level = 3
    return so


def _node_by_node(model: Path) -> onemodel_ep.InferenceSession:
    """The QDQ model rewritten as before the groups: grouping and fold's regard for it switched off."""
    group, members = qdq_groups.group, fold.member_outputs
    qdq_groups.group = lambda *a, **k: []  # type: ignore[assignment]
    fold.member_outputs = lambda *a, **k: set()  # type: ignore[assignment]
    try:
        return onemodel_ep.InferenceSession(str(model), _options(), via="rewrite")
    finally:
        qdq_groups.group, fold.member_outputs = group, members


def _without(model: Path, ops: list[str]) -> onemodel_ep.InferenceSession:
    """The QDQ model rewritten with groups, but none whose P is one of `ops`."""
    saved = {op: qdq_groups.FUSED_TO.pop(op) for op in ops}
    try:
        return onemodel_ep.InferenceSession(str(model), _options(), via="rewrite")
    finally:
        qdq_groups.FUSED_TO.update(saved)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=0.4)
    ap.add_argument("--model", type=Path, default=None)
    ap.add_argument("--qop", type=Path, default=None)
    ap.add_argument("--without", nargs="+", default=[])
    args = ap.parse_args()
    qdq = args.model or QDQ
    qop = args.qop if args.model else QOP
    feeds = model_feeds(qdq)
    sessions: dict[str, Any] = {
        "stock": ort.InferenceSession(str(qdq), _options(), providers=["CPUExecutionProvider"]),
        "grouped": onemodel_ep.InferenceSession(str(qdq), _options(), via="rewrite"),
        "node_by_node": _node_by_node(qdq),
    }
    if args.without:
        sessions["grouped_without_" + "_".join(args.without)] = _without(qdq, args.without)
    if qop is not None:
        sessions["qop_rewrite"] = onemodel_ep.InferenceSession(str(qop), _options(), via="rewrite")
    best = dict.fromkeys(sessions, float("inf"))
    for _ in range(args.rounds):
        for name, sess in sessions.items():
            best[name] = min(best[name], per_run_ms(sess, feeds, args.seconds))
    print(json.dumps({"ms": {k: round(v, 3) for k, v in best.items()},
                      "over_stock": {k: round(v / best["stock"], 3) for k, v in best.items()}}))


if __name__ == "__main__":
    main()
