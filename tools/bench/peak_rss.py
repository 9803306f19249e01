"""Peak resident memory of a process that loads a model, runs it a few times and exits: stock ORT against
OneModel EP (through the execution provider or the rewrite), each in a fresh child process.

    python tools/bench/peak_rss.py build/minilm.onnx --inputs build/minilm_2x64.npz

(build/minilm.onnx: tools/gen/make_bench_models.py; the inputs, batch 2 and sequence 64:
    python -c "import numpy as np; r = np.random.default_rng(0); np.savez('build/minilm_2x64.npz',
      input_ids=r.integers(100, 30000, (2, 64)), attention_mask=np.ones((2, 64), np.int64),
      token_type_ids=np.zeros((2, 64), np.int64))")

Prints one line per variant (stock ORT; onemodel_ep.InferenceSession via the EP and via the rewrite, which
read the model into Python for their report; plain onnxruntime.InferenceSession with ep_session_options, the
EP's kernel registry and its `dispatch=compile`): ru_maxrss of the child (KiB, Linux) and the difference from
stock ORT. The packed constant B of every MatMul/Gemm is OneModel's only extra memory by design.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

CHILD = r"""
import json, resource, sys
import numpy as np, onnxruntime as ort
import onemodel_ep
model, inputs, variant, runs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
feeds = dict(np.load(inputs))
so = ort.SessionOptions()
so.intra_op_num_threads = 1
if variant == "stock":
    sess = ort.InferenceSession(model, so, providers=["CPUExecutionProvider"])
elif variant in ("ort+ep", "ort+ep-compile"):  # a plain ORT session with the EP (no model in Python)
    from onemodel_ep.ep import ep_session_options
    dispatch = "compile" if variant.endswith("compile") else "registry"
    sess = ort.InferenceSession(model, ep_session_options(so, dispatch=dispatch), enable_fallback=0)
else:
    sess = onemodel_ep.InferenceSession(model, so, via=variant)
for _ in range(runs):
    sess.run(None, feeds)
print(json.dumps({"maxrss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))
"""


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("model")
    p.add_argument("--inputs", required=True, help=".npz of the model's inputs")
    p.add_argument("--runs", type=int, default=3)
    a = p.parse_args(argv)
    base = None
    for variant in ("stock", "ep", "rewrite", "ort+ep", "ort+ep-compile"):
        out = subprocess.run([sys.executable, "-c", CHILD, a.model, a.inputs, variant, str(a.runs)],
                             capture_output=True, text=True)
        if out.returncode != 0:
            print(f"{variant}: failed: {out.stderr.strip().splitlines()[-1:]}")
            continue
        kib = json.loads(out.stdout.strip().splitlines()[-1])["maxrss_kib"]
        base = kib if variant == "stock" else base
        extra = ""
        if base is not None and variant != "stock":
            extra = f" ({(kib - base) / 1024:+.1f} MiB against stock)"
        print(f"{variant:14s} peak RSS {kib / 1024:.1f} MiB{extra}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
