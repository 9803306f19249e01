"""Shrink, LRN, LpPool and GlobalLpPool through the execution provider's compile dispatch
(`dispatch="compile"`; their own test files use the kernel registry): every node claimed and every output
the contract's bits, on 2 threads. The cases and contracts are those files'."""

from __future__ import annotations

import pytest

import onemodel_ep
from tests.nodes import test_lp_pool, test_lrn, test_shrink
from tests.nodes.case_runs import compiled_dispatch_matches
from tests.nodes.movement_cases import Case

pytestmark = pytest.mark.skipif(not onemodel_ep.ep_supported(), reason="the EP needs ORT 1.24+")


def _cases() -> dict[str, tuple[list[Case], int]]:
    return {
        "Shrink": (test_shrink.shrink_cases(), 13),
        "LRN": (test_lrn.lrn_cases(), 13),
        "LpPool-11": (test_lp_pool.lp_cases(11), 11),
        "LpPool-18, GlobalLpPool": (test_lp_pool.lp_cases(18), 18),
        "LRN float16, double": (test_lrn.lrn_typed_cases(), 13),
        "LpPool-2, p >= 3": (test_lp_pool.more_cases(2), 2),
        "LpPool-18 float16, double, p >= 3": (test_lp_pool.more_cases(18), 18),
    }


@pytest.mark.parametrize("name", sorted(_cases()))
def test_compile_dispatch_gives_the_contract(name: str) -> None:
    compiled_dispatch_matches(*_cases()[name])
