"""NonZero, OneHot, CumSum, LpNormalization and MeanVarianceNormalization through the execution provider's
compile dispatch (`dispatch="compile"`; their own test files use the kernel registry): every node claimed and
every output the contract's bits, on 2 threads. The cases and contracts are those files'."""

from __future__ import annotations

import pytest

import onemodel_ep
from tests.nodes import test_cumsum, test_nonzero, test_one_hot, test_stat_norm
from tests.nodes.case_runs import compiled_dispatch_matches
from tests.nodes.movement_cases import Case
from tests.nodes.test_movement_ops import _split

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
    compiled_dispatch_matches(*_cases()[op])
