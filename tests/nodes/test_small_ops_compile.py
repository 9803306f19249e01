"""NonZero, OneHot, CumSum, LpNormalization and MeanVarianceNormalization through the execution provider's
compile dispatch (`dispatch="compile"`; their own test files use the kernel registry): every node claimed and
every output the contract's bits, on 2 threads. The cases and contracts are those files'."""

from __future__ import annotations

import onnxruntime as ort
import pytest

import onemodel_ep
from onemodel_ep import ep
from tests.nodes import test_cumsum, test_nonzero, test_one_hot, test_stat_norm
from tests.nodes.movement_cases import Case, model_of
from tests.nodes.test_movement_ops import _same, _split

pytestmark = pytest.mark.skipif(not onemodel_ep.ep_supported(), reason="the EP needs ORT 1.24+")


def _cases() -> dict[str, tuple[list[Case], int]]:
    return {
        "NonZero": (_split(test_nonzero.nonzero_cases())[0], 13),
        "OneHot": ([c for c in _split(test_one_hot.one_hot_cases())[0] if c.opset == 11], 11),
        "CumSum": (test_cumsum.cumsum_cases(), 14),
        "LpNormalization": (test_stat_norm.lp_cases(), 13),
        "MeanVarianceNormalization": (test_stat_norm.mvn_cases(), 13),
    }


@pytest.mark.parametrize("op", sorted(_cases()))
def test_compile_dispatch_gives_the_contract(op: str) -> None:
    cases, opset = _cases()[op]
    model, feeds = model_of(cases, opset)
    so = ort.SessionOptions()
    so.log_severity_level = 3
    so.intra_op_num_threads = 2
    options = ep.ep_session_options(so, "exact", None, "compile")
    sess = ort.InferenceSession(model.SerializeToString(), options, enable_fallback=0)
    assert len(ep.claimed_names(ep.assignments(sess))) == len(cases)
    for c, g in zip(cases, sess.run(None, feeds), strict=True):
        _same(f"compile: {c.label()}", g, c.want[0])
