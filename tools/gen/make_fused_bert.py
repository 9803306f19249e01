"""Writes testdata/fused/bert_tiny_fused.onnx: ONNX Runtime's transformer optimiser over the repo's BERT test
model, so that the model holds what that optimiser writes for BERT (com.microsoft Attention with a 1-D
mask_index, SkipLayerNormalization, BiasGelu).

    PYTHONPATH=<a folder with sympy> python tools/gen/make_fused_bert.py

Run by hand, never in CI: the optimiser's symbolic shape inference needs sympy, which the test environment
lacks. One graph edit comes first, of no numerical effect: bert_tiny's exporter unsqueezes attention_mask with
axes [1, 2] in one Unsqueeze, where the optimiser's mask pattern looks for two (axes 1, then 2); the edit
splits it in two. Then `optimize_model(model_type="bert", num_heads=4, hidden_size=64, opt_level=0)` (no ORT
session optimisations: only the Python fusions), checked to contain two Attention nodes.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import numpy as np
import onnx
from onnx import helper, numpy_helper

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "testdata" / "models" / "bert_tiny.onnx"
OUT = ROOT / "testdata" / "fused" / "bert_tiny_fused.onnx"


def split_mask_unsqueeze(model: onnx.ModelProto) -> None:
    """Unsqueeze(attention_mask, axes [1, 2]) as Unsqueeze(axes [1]) then Unsqueeze(axes [2])."""
    inits = {i.name: i for i in model.graph.initializer}
    nodes = []
    done = 0
    for n in model.graph.node:
        if n.op_type == "Unsqueeze" and n.input[0] == "attention_mask" and n.input[1] in inits:
            if numpy_helper.to_array(inits[n.input[1]]).tolist() != [1, 2]:
                raise SystemExit(f"unexpected axes in {n.name}")
            model.graph.initializer.extend([
                numpy_helper.from_array(np.array([1], np.int64), "mask_axis_1"),
                numpy_helper.from_array(np.array([2], np.int64), "mask_axis_2"),
            ])
            nodes.append(helper.make_node("Unsqueeze", [n.input[0], "mask_axis_1"], ["mask_unsqueeze_1"],
                                          name="mask_unsqueeze_1"))
            nodes.append(helper.make_node("Unsqueeze", ["mask_unsqueeze_1", "mask_axis_2"], list(n.output),
                                          name="mask_unsqueeze_2"))
            done += 1
        else:
            nodes.append(n)
    if done != 1:
        raise SystemExit(f"expected one Unsqueeze of attention_mask, found {done}")
    del model.graph.node[:]
    model.graph.node.extend(nodes)


def main() -> int:
    from onnxruntime.transformers.optimizer import optimize_model

    model = onnx.load(str(SRC))
    split_mask_unsqueeze(model)
    fused = optimize_model(model, model_type="bert", num_heads=4, hidden_size=64, opt_level=0).model
    ops = Counter(n.op_type for n in fused.graph.node)
    if ops["Attention"] != 2:
        raise SystemExit(f"the optimiser wrote no Attention pair: {dict(ops)}")
    fused.producer_name = "tools/gen/make_fused_bert.py"
    OUT.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(fused, str(OUT))
    print(f"{OUT.relative_to(ROOT)}: {OUT.stat().st_size} bytes, {dict(sorted(ops.items()))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
