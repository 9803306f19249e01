"""com.microsoft MultiHeadAttention and Attention with unidirectional = 1 and a mask_filter_value other than
the default (docs/attention.md step 3): the causal mask puts -FLT_MAX on a future key whatever the filter
value, on query rows s < S - 1 only, as stock ORT 1.31.1's CPU kernel does; the key masks use the filter
value. Each filter value (-3, 0, -1e30) x unidirectional x each mask form of both ops: the reference's bits
(tests/reference/reference_mha.py) and within 1e-5 of stock ORT."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tests.nodes import node_sessions as S
from tests.nodes.test_mha import (
    ATT_NAMES,
    MHA_NAMES,
    _att_inputs,
    _att_ref,
    _mha_inputs,
    _mha_ref,
    _model,
    _node,
    _tolerance,
)
from tests.reference import reference_mha as M

FILTERS = [-3.0, 0.0, -1e30]
# MultiHeadAttention shapes (S, L, P): more keys than query rows (the last row is not causal-masked in stock
# ORT: with L > S it attends keys beyond P + s), over a past, and a single query row (nothing causal-masked)
MHA_SHAPES = [(3, 5, 0), (3, 3, 2), (1, 4, 0)]


def _stock_close(model: Any, feeds: dict[str, np.ndarray], want: np.ndarray, what: str) -> None:
    """Stock ORT sums in another order (MLAS GEMMs with FMA, its own exp): 1e-5 of the largest magnitude."""
    got = S.stock(model, feeds)[0]
    np.testing.assert_allclose(got, want, rtol=0, atol=_tolerance(want), err_msg=what)


@pytest.mark.parametrize("shape", MHA_SHAPES, ids=[f"S{s}-L{L}-P{p}" for s, L, p in MHA_SHAPES])
@pytest.mark.parametrize("mask", ["none", "1d", "2d"])
@pytest.mark.parametrize("uni", [0, 1])
@pytest.mark.parametrize("f", FILTERS)
def test_mha_filter_value_and_causal(f: float, uni: int, mask: str, shape: tuple[int, int, int]) -> None:
    """A batch row whose keys are all masked (2-D form) included: there every score is shifted by f."""
    Sq, L, P = shape
    at = M.Attrs(2, unidirectional=uni, mask_filter_value=f)
    case = ("", at, 2, Sq, L, 8, 8, "3d", True, mask, "", P)
    ins = _mha_inputs(case, seed=11)
    want = _mha_ref(at, ins)[0]
    S.assert_exact_bits("output", _node("MultiHeadAttention", at, ins).run_outputs(*ins)[0], want)
    # stock ORT reads the past only when the presents are asked for
    model = _model("MultiHeadAttention", MHA_NAMES, at, ins, ["output", "present_key", "present_value"])
    _stock_close(model, {n: x for n, x in zip(MHA_NAMES, ins) if x is not None}, want, f"{f} {uni} {mask}")


@pytest.mark.parametrize("past", [0, 3])
@pytest.mark.parametrize("mask", ["none", "1d", "2b", "2d", "3d"])
@pytest.mark.parametrize("uni", [0, 1])
@pytest.mark.parametrize("f", FILTERS)
def test_attention_filter_value_and_causal(f: float, uni: int, mask: str, past: int) -> None:
    at = M.Attrs(2, unidirectional=uni, mask_filter_value=f)
    case = ("", at, 2, 4, 16, mask, "", past, True)
    ins = _att_inputs(case, seed=12)
    want = _att_ref(at, ins)[0]
    S.assert_exact_bits("output", _node("Attention", at, ins).run_outputs(*ins, n_outputs=1)[0], want)
    model = _model("Attention", ATT_NAMES, at, ins, ["output", "present"])
    _stock_close(model, {n: x for n, x in zip(ATT_NAMES, ins) if x is not None}, want, f"{f} {uni} {mask}")


def test_causal_filter_every_way_in() -> None:
    """More keys than query rows over a past, a 2-D key mask, filter -3: every way in, kernel path and thread
    count give the reference's bits."""
    at = M.Attrs(2, unidirectional=1, mask_filter_value=-3.0)
    case = ("", at, 2, 3, 6, 16, 16, "3d", True, "2d", "", 2)
    ins = _mha_inputs(case, seed=13, dead_row=False)
    outs = ["output", "present_key", "present_value"]
    model = _model("MultiHeadAttention", MHA_NAMES, at, ins, outs)
    feeds = {n: x for n, x in zip(MHA_NAMES, ins) if x is not None}
    want = _mha_ref(at, ins)
    for where, got in S.runs(model, feeds, "MultiHeadAttention").items():
        for what, g, w in zip(outs, got, want):
            S.assert_exact_bits(f"{where} {what}", g, w)
