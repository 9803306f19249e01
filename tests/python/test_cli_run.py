"""`onemodel run` with no argument: the bundled BERT-tiny on OneModel EP, what ran where, the output digest on
every kernel path of this machine (equal) and the distance from stock ORT's outputs."""

from __future__ import annotations

import re
from pathlib import Path

import onemodel_ep
from onemodel_ep import cli
from onemodel_ep.cli_run import difference, example_model_path
from onemodel_ep.verify import verify

ROOT = Path(__file__).resolve().parents[2]


def test_bundled_model_is_the_test_bert():
    assert example_model_path().read_bytes() == (ROOT / "testdata" / "models" / "bert_tiny.onnx").read_bytes()


def test_run_without_argument_shows_the_product(capsys):
    assert cli.main(["run"]) == 0
    out = capsys.readouterr().out
    paths = onemodel_ep.kernel_paths()
    header = "node(s) on OneModelExecutionProvider" if onemodel_ep.ep_supported() else "moved to ai.onemodel"
    assert header in out and "moved  MatMul" in out and "moved  LayerNormalization" in out
    digests = dict(re.findall(r"^digest on kernel path (\w+) +sha256:([0-9a-f]{64})$", out, re.M))
    assert list(digests) == paths
    assert len(set(digests.values())) == 1
    if len(paths) > 1:
        assert f"digests on {len(paths)} kernel paths: equal" in out
    # The same inputs and digest as `onemodel verify` of the bundled model.
    assert set(digests.values()) == {verify(example_model_path()).digest}
    stock = re.findall(r"^  vs stock ORT \(CPU EP\): max abs (\S+), max rel (\S+)$", out, re.M)
    assert len(stock) == 2  # last_hidden_state, pooler_output
    assert all(0 < float(a.rstrip(",")) < 1e-3 for a, _ in stock)


def test_difference_words():
    import numpy as np

    a = np.array([1.0, 2.0, np.nan], np.float32)
    assert difference(a, a.copy()) == "bit-identical"
    assert difference(a, np.array([1.0, 2.5, np.nan], np.float32)) == "max abs 0.5, max rel 0.2"
    assert "non-finite" in difference(a, np.array([1.0, 2.0, np.inf], np.float32))
    assert "shape or type" in difference(a, a[:2])
