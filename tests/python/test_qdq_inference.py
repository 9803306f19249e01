"""The QDQ grouping's ONNX inference runs once per InferenceSession and is handed on (inference.Inferred):
constant folding's check and the rewrite's grouping read the same graph unless folding changed it."""

from __future__ import annotations

from pathlib import Path

import onnx
import pytest

import onemodel_ep
from onemodel_ep import inference, rewriter
from onemodel_ep.inference import Inferred

MODELS = Path(__file__).resolve().parents[2] / "testdata" / "models"


def _count_inference(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    real = inference.infer

    def counted(model: onnx.ModelProto) -> onnx.ModelProto:
        calls.append(1)
        return real(model)

    monkeypatch.setattr(inference, "infer", counted)
    monkeypatch.setattr(rewriter, "infer", counted)
    return calls


@pytest.mark.parametrize(
    ("name", "fold", "want"),
    [
        # nothing folds: one inference for folding's check and the grouping, one for the rewrite after it
        ("resnet18_small_qdq", True, 2),
        ("resnet18_small_qdq", False, 2),
        # 13 nodes fold: the grouping infers the changed graph again
        ("bert_tiny_qdq", True, 3),
    ],
)
def test_rewrite_session_infers_the_qdq_graph_once(
    monkeypatch: pytest.MonkeyPatch, name: str, fold: bool, want: int
) -> None:
    calls = _count_inference(monkeypatch)
    sess = onemodel_ep.InferenceSession(str(MODELS / f"{name}.onnx"), via="rewrite", fold=fold)
    assert any(n.category == "grouped" for n in sess.report.nodes)
    assert len(calls) == want


def test_inferred_runs_when_first_asked_and_once() -> None:
    m = onnx.load(str(MODELS / "resnet18_small_qdq.onnx"))
    inf = Inferred(m)
    assert not inf.ran
    types, ranks = inf.types, inf.ranks
    assert inf.ran and inf.types is types and inf.ranks is ranks
    assert types == inference.value_types(m) and ranks == inference.value_ranks(inf.inferred)
