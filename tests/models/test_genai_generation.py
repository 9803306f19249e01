"""Generation through ONNX Runtime GenAI with OneModel EP registered, as a user runs it: the builder's fp32
and int4 decoders of testdata/genai, greedy, `og.register_execution_provider_library` with the library and
`Config.append_provider`. The generated tokens and the logits of every step are the same bits on every kernel
path, and a prompt gives the same tokens and logits alone as in a batch with another (either position).

Needs onnxruntime-genai, which is not a test requirement: the module is skipped where it is not installed
(CI) and run in the tool venv:

    /work/toolvenv/bin/pip install onnxruntime-genai==0.18.0 onnx pytest cffi
    PYTHONPATH=. /work/toolvenv/bin/python -m pytest -q tests/models/test_genai_generation.py
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import onemodel_ep

og = pytest.importorskip("onnxruntime_genai")
pytestmark = pytest.mark.genai

GENAI = Path(__file__).resolve().parents[2] / "testdata" / "genai"
PROMPTS = ([1, 5, 9, 13, 200], [7, 42, 3, 99, 18])
STEPS = 6


@pytest.fixture(scope="module", autouse=True)
def _registered() -> None:
    og.register_execution_provider_library(onemodel_ep.EP_NAME, onemodel_ep.get_library_path())


def _model(folder: str, kernel_path: str) -> og.Model:
    cfg = og.Config(str(GENAI / folder))
    cfg.clear_providers()
    cfg.append_provider(onemodel_ep.EP_NAME)
    cfg.set_provider_option(onemodel_ep.EP_NAME, "kernel_path", kernel_path)
    return og.Model(cfg)


def _generate(model: og.Model, prompts: list[list[int]]) -> tuple[list[list[int]], list[np.ndarray]]:
    """Each prompt's generated sequence, and per step the logits as an array [len(prompts), ...]."""
    params = og.GeneratorParams(model)
    n = len(prompts[0]) + STEPS
    params.set_search_options(max_length=n, min_length=n, do_sample=False, batch_size=len(prompts))
    gen = og.Generator(model, params)
    gen.append_tokens(prompts)
    logits = [np.array(gen.get_logits())]
    for _ in range(STEPS):
        gen.generate_next_token()
        logits.append(np.array(gen.get_logits()))
    return [[int(t) for t in gen.get_sequence(i)] for i in range(len(prompts))], logits


@pytest.mark.parametrize("folder", ["llama_fp32", "llama_int4"])
def test_generation_same_bits_every_path_and_batch(folder: str) -> None:
    first = None
    for path in onemodel_ep.kernel_paths():
        model = _model(folder, path)
        seqs, logits = _generate(model, list(PROMPTS))
        assert all(len(s) == len(PROMPTS[0]) + STEPS for s in seqs)
        if first is None:
            first = (seqs, logits)
        else:
            assert seqs == first[0], f"{folder}: path {path} generated other tokens"
            for step, (a, b) in enumerate(zip(logits, first[1])):
                assert a.tobytes() == b.tobytes(), f"{folder}: path {path}, step {step}: logits differ"
        for i, prompt in enumerate(PROMPTS):  # alone against its row of the batch
            alone, alone_logits = _generate(model, [prompt])
            assert alone[0] == seqs[i], f"{folder}, path {path}: prompt {i} alone gives other tokens"
            for step, (a, b) in enumerate(zip(alone_logits, logits)):
                assert a[0].tobytes() == b[i].tobytes(), f"{folder}, path {path}, prompt {i}, step {step}"
        swapped, swapped_logits = _generate(model, [PROMPTS[1], PROMPTS[0]])
        assert swapped == [seqs[1], seqs[0]]
        for a, b in zip(swapped_logits, logits):
            assert a[1].tobytes() == b[0].tobytes() and a[0].tobytes() == b[1].tobytes()
