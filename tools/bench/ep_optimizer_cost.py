"""What disabling onemodel_ep.ep.NUMERIC_OPTIMIZERS costs stock ORT on a whole model.

    python tools/bench/ep_optimizer_cost.py testdata/models/bert_tiny.onnx [--dim 16] [--budget 4]

Two stock-ORT sessions of the model (one intra-op thread), one with the level-1 transformers that
ep_session_options disables turned off, timed in one process, interleaved run by run (bench's
_time_interleaved); prints both medians and the time ratio (the median over rounds of adjacent runs).
"""

from __future__ import annotations

import argparse

import onnxruntime as ort

from onemodel_ep import ep
from onemodel_ep.bench import _time_interleaved, model_feeds


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("model")
    p.add_argument("--dim", type=int, default=16)
    p.add_argument("--budget", type=float, default=4.0)
    a = p.parse_args()

    def options(disable: bool) -> ort.SessionOptions:
        so = ort.SessionOptions()
        so.intra_op_num_threads = 1
        so.log_severity_level = 3
        if disable:
            names = ";".join(ep.NUMERIC_OPTIMIZERS)
            so.add_session_config_entry("optimization.disable_specified_optimizers", names)
        return so

    full = ort.InferenceSession(a.model, options(False), providers=["CPUExecutionProvider"])
    less = ort.InferenceSession(a.model, options(True), providers=["CPUExecutionProvider"])
    eps, paired, runs = _time_interleaved([full, less], model_feeds(full, a.dim), 1, a.budget)
    print(
        f"{a.model}: stock {1e3 / eps[0]:.3f} ms, without {len(ep.NUMERIC_OPTIMIZERS)} transformers "
        f"{1e3 / eps[1]:.3f} ms a run; time ratio {1 / paired[1]:.3f} ({runs} runs each)"
    )


if __name__ == "__main__":
    main()
