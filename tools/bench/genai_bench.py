"""Generation through ONNX Runtime GenAI: stock ORT against OneModel EP, tokens per second, interleaved.

    /work/toolvenv/bin/pip install onnxruntime-genai==0.18.0 cffi
    PYTHONPATH=. /work/toolvenv/bin/python tools/bench/genai_bench.py testdata/genai/llama_fp32 \\
        testdata/genai/llama_int4 --tokens 64 --rounds 5

For each model folder, each round generates `--tokens` tokens greedily from the same 5-token prompt, once
with the generator's default provider (stock ORT's CPU EP) and once with OneModelExecutionProvider appended
(`og.register_execution_provider_library` with `onemodel_ep.get_library_path()`), alternating, one thread
each (`session_options.intra_op_num_threads` in genai_config.json is left as written; the generator's
default). Prints, per model, the median tokens per second of each and the ratio ours/stock, in wall-clock
time and in the process's CPU time (`time.process_time`: robust on a loaded machine), and whether the two
generated the same tokens. Timings are for docs and notes, never for tests.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import onnxruntime_genai as og

import onemodel_ep

PROMPT = [1, 5, 9, 13, 200]


def generate(model: og.Model, tokens: int) -> tuple[list[int], float, float]:
    params = og.GeneratorParams(model)
    length = len(PROMPT) + tokens
    params.set_search_options(max_length=length, min_length=length, do_sample=False)
    gen = og.Generator(model, params)
    t0, c0 = time.perf_counter(), time.process_time()
    gen.append_tokens([PROMPT])
    while not gen.is_done():
        gen.generate_next_token()
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    return [int(t) for t in gen.get_sequence(0)], seconds, cpu


def load(folder: Path, ours: bool) -> og.Model:
    cfg = og.Config(str(folder))
    if ours:
        cfg.clear_providers()
        cfg.append_provider(onemodel_ep.EP_NAME)
    return og.Model(cfg)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folders", nargs="+", type=Path)
    ap.add_argument("--tokens", type=int, default=64)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--json", type=Path, help="write the figures here")
    a = ap.parse_args(argv)
    og.register_execution_provider_library(onemodel_ep.EP_NAME, onemodel_ep.get_library_path())
    rows = []
    for folder in a.folders:
        models = {"stock": load(folder, False), "ours": load(folder, True)}
        rates: dict[str, list[float]] = {"stock": [], "ours": []}
        cpu_rates: dict[str, list[float]] = {"stock": [], "ours": []}
        seqs: dict[str, list[int]] = {}
        for _ in range(a.rounds):
            for name, model in models.items():
                seq, seconds, cpu = generate(model, a.tokens)
                seqs[name] = seq
                rates[name].append((len(seq) - len(PROMPT)) / seconds)
                cpu_rates[name].append((len(seq) - len(PROMPT)) / max(cpu, 1e-9))
        row = {
            "model": str(folder),
            "tokens": a.tokens,
            "rounds": a.rounds,
            "stock_tokens_per_s": statistics.median(rates["stock"]),
            "ours_tokens_per_s": statistics.median(rates["ours"]),
            "stock_tokens_per_cpu_s": statistics.median(cpu_rates["stock"]),
            "ours_tokens_per_cpu_s": statistics.median(cpu_rates["ours"]),
            "same_tokens": seqs["stock"] == seqs["ours"],
        }
        row["ours_over_stock"] = row["ours_tokens_per_s"] / row["stock_tokens_per_s"]
        row["ours_over_stock_cpu"] = row["ours_tokens_per_cpu_s"] / row["stock_tokens_per_cpu_s"]
        rows.append(row)
        print(json.dumps(row))
    if a.json:
        a.json.write_text(json.dumps(rows, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
