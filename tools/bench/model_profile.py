"""Per-node time of a whole model, stock ORT against OneModel EP (exact, through the EP), from ORT's profiler.

    python tools/bench/model_profile.py testdata/models/mobilenet_v3_small_half.onnx [--runs 300] [--dim 1]

Both sessions run one intra-op thread with `enable_profiling`; each is run `--runs` times after a warm-up.
A node's time is the median over runs of ORT's `*_kernel_time` event for it; rows are grouped by op type and,
for Conv, by its shape (input C x H x W, output channels, kernel, stride, group). Prints a markdown table:
group, nodes, our us per run, stock us per run (sums of the nodes' medians), and the whole run's median. A
profiler's numbers carry its own cost; use them for where the time goes, not as the model's latency.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
from collections import defaultdict
from collections.abc import Callable

import onnx
import onnxruntime as ort

from onemodel_ep import cli_args
from onemodel_ep.bench import _options, model_feeds
from onemodel_ep.ep import ep_session_options
from onemodel_ep.fold import fold as fold_constants


def _conv_key(node: onnx.NodeProto, shapes: dict[str, list[int]]) -> str:
    attrs = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
    x = shapes.get(node.input[0], [])
    w = shapes.get(node.input[1], [])
    k = "x".join(str(v) for v in w[2:]) if len(w) > 2 else "?"
    s = attrs.get("strides", [1])[0] if attrs.get("strides") else 1
    g = attrs.get("group", 1)
    cin = "x".join(str(v) for v in x[1:]) if x else "?"
    kind = "dw" if g > 1 and len(w) > 1 and w[1] == 1 else ""
    return f"Conv {kind}{k}/{s} {cin}->{w[0] if w else '?'}"


def _shapes(model: onnx.ModelProto, feeds: dict) -> dict[str, list[int]]:
    m = onnx.ModelProto()
    m.CopyFrom(model)
    for i in m.graph.input:
        if i.name in feeds:
            dims = i.type.tensor_type.shape.dim
            for d, v in zip(dims, feeds[i.name].shape):
                d.ClearField("dim_param")
                d.dim_value = int(v)
    m = onnx.shape_inference.infer_shapes(m)
    out: dict[str, list[int]] = {}
    for v in list(m.graph.value_info) + list(m.graph.input) + list(m.graph.output):
        out[v.name] = [d.dim_value for d in v.type.tensor_type.shape.dim]
    for t in m.graph.initializer:
        out[t.name] = list(t.dims)
    return out


def _profile(
    sess_factory: Callable[[], ort.InferenceSession], feeds: dict, runs: int
) -> tuple[dict[str, float], dict[str, str], float]:
    """Median us per node name, each node's op type (as ORT runs it, after its fusions) and the median us per
    whole run, over `runs` runs after 20 warm-up runs (in the profile too: the medians ignore them)."""
    sess = sess_factory()
    per_node: dict[str, list[float]] = defaultdict(list)
    for _ in range(runs + 20):
        sess.run(None, feeds)
    path = sess.end_profiling()
    with open(path) as f:
        events = json.load(f)
    os.remove(path)
    whole: list[float] = []
    op_of: dict[str, str] = {}
    for e in events:
        if e.get("cat") == "Node" and e["name"].endswith("_kernel_time"):
            name = e["name"][: -len("_kernel_time")]
            per_node[name].append(e["dur"])
            op_of[name] = e.get("args", {}).get("op_name", "?")
        elif e.get("cat") == "Session" and e["name"] == "model_run":
            whole.append(e["dur"])
    return {k: statistics.median(v) for k, v in per_node.items()}, op_of, statistics.median(whole)


def _table(title: str, rows: dict[str, list[float]]) -> None:
    print(f"| {title} | nodes | ours us | nodes | stock us |")
    print("|---|---|---|---|---|")
    for key, (oc, o, sc, s) in sorted(rows.items(), key=lambda kv: -kv[1][1]):
        print(f"| {key} | {int(oc)} | {o:.1f} | {int(sc)} | {s:.1f} |")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model")
    ap.add_argument("--runs", type=int, default=300)
    ap.add_argument("--dim", type=int, default=1)
    args = ap.parse_args()
    model = fold_constants(cli_args.load_model(args.model), mode="exact")
    tmp = tempfile.mkdtemp()

    def opts() -> ort.SessionOptions:
        so = _options(1, False)
        so.enable_profiling = True
        so.profile_file_prefix = os.path.join(tmp, "p")
        return so

    def stock() -> ort.InferenceSession:
        return ort.InferenceSession(model.SerializeToString(), opts(), providers=["CPUExecutionProvider"])

    def ours() -> ort.InferenceSession:
        so = ep_session_options(opts(), mode="exact")
        return ort.InferenceSession(model.SerializeToString(), so, enable_fallback=0)

    feeds = model_feeds(stock(), args.dim)
    shapes = _shapes(model, feeds)
    groups: dict[str, str] = {}
    for n in model.graph.node:
        groups[n.name] = _conv_key(n, shapes) if n.op_type == "Conv" else n.op_type
    o_nodes, o_ops, o_whole = _profile(ours, feeds, args.runs)
    s_nodes, s_ops, s_whole = _profile(stock, feeds, args.runs)
    by_op: dict[str, list[float]] = defaultdict(lambda: [0, 0.0, 0, 0.0])
    for col, nodes, ops in ((0, o_nodes, o_ops), (2, s_nodes, s_ops)):
        for name, us in nodes.items():
            by_op[ops[name]][col] += 1
            by_op[ops[name]][col + 1] += us
    _table("op (as run)", by_op)
    by_conv: dict[str, list[float]] = defaultdict(lambda: [0, 0.0, 0, 0.0])
    for name, us in o_nodes.items():
        if o_ops[name] == "Conv":
            by_conv[groups.get(name, name)][0] += 1
            by_conv[groups.get(name, name)][1] += us
    print()
    _table("our Conv by shape", by_conv)
    print()
    print(f"sum of nodes: ours {sum(o_nodes.values()):.1f} us, stock {sum(s_nodes.values()):.1f} us; "
          f"whole run (profiled): ours {o_whole:.1f} us, stock {s_whole:.1f} us")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
