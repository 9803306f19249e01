"""The correctly rounded binary64 Sigmoid and Tanh (provider/csrc/math/om_f64_act.h;
docs/exact-transcendentals.md, "binary64 Sigmoid and Tanh"), called through the test entry om_test_f64_act:
bit-equal to MPFR (gmpy2, rounded once to binary64 with subnormals) on inputs over every binade and threshold
that matters, through the fast first pass, the forced double-double pass and the forced multi-precision
fallback.
tools/verify/f64_act_check.py runs the same comparison on millions of inputs."""

from __future__ import annotations

import numpy as np
import pytest

from tests.reference.f64_act import (
    SPECIALS,
    cap_hits,
    fast_pass_edges,
    inputs,
    mismatches,
    native,
    reference,
)

NAMES = ["sigmoid", "tanh"]


@pytest.mark.parametrize("name", NAMES)
def test_first_pass_matches_mpfr(name: str) -> None:
    rng = np.random.default_rng(20261205 + len(name))
    x = np.concatenate([inputs(name, rng, 900), SPECIALS])
    got, want = native(name, x), reference(name, x)
    assert not mismatches(x, got, want), mismatches(x, got, want)


@pytest.mark.parametrize("name", NAMES)
def test_fast_pass_edges_match_mpfr(name: str) -> None:
    """The fast pass's internal switches (kd = 0 or not, table index, scale, eps): fast_pass_edges."""
    x = fast_pass_edges(name, np.random.default_rng(29 + len(name)), 2000)
    got, want = native(name, x), reference(name, x)
    assert not mismatches(x, got, want), mismatches(x, got, want)


@pytest.mark.parametrize("name", NAMES)
def test_double_double_pass_matches_mpfr(name: str) -> None:
    """The double-double pass (then the fallback), forced: the fast pass leaves it only its rare failures."""
    rng = np.random.default_rng(11 + len(name))
    x = np.concatenate([inputs(name, rng, 300), SPECIALS])
    got, want = native(name, x, force_mp=-1), reference(name, x)
    assert not mismatches(x, got, want), mismatches(x, got, want)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("start", [1, 2, 3, 4, 5, 6])
def test_forced_fallback_matches_mpfr(name: str, start: int) -> None:
    """The fallback from each precision of its loop (64 * 2^start bits): about 1000 inputs from 128 bits,
    fewer from the wider ones (all of the loop's code but the precision is the same)."""
    rng = np.random.default_rng(7 + len(name) + start)
    x = np.concatenate([inputs(name, rng, 100 if start == 1 else 6), SPECIALS])
    got, want = native(name, x, force_mp=start), reference(name, x)
    assert not mismatches(x, got, want), mismatches(x, got, want)
    assert cap_hits() == 0


@pytest.mark.parametrize("name", NAMES)
def test_nan_is_canonical(name: str) -> None:
    x = np.array([0x7FF8000000000000, 0xFFF8000000000000, 0x7FF0000000000001, 0x7FFC0000DEADBEEF], np.uint64)
    for force in (0, -1, 1, 6):
        y = native(name, x.view(np.float64), force_mp=force)
        assert (y.view(np.uint64) == np.uint64(0x7FF8000000000000)).all()


def test_special_values() -> None:
    x = np.array([0.0, -0.0, np.inf, -np.inf, 5e-324, -5e-324])
    sig, th = native("sigmoid", x), native("tanh", x)
    assert sig.tolist() == [0.5, 0.5, 1.0, 0.0, 0.5, 0.5]
    assert not np.signbit(sig[3])
    assert th.tolist() == [0.0, 0.0, 1.0, -1.0, 5e-324, -5e-324]
    assert np.signbit(th).tolist() == [False, True, False, True, False, True]


def test_tanh_is_odd_and_sigmoid_tail_is_subnormal() -> None:
    rng = np.random.default_rng(3)
    x = rng.uniform(0.0, 20.0, 2000)
    assert (native("tanh", -x).view(np.uint64) == (-native("tanh", x)).view(np.uint64)).all()
    tail = native("sigmoid", np.linspace(-745.1, -708.5, 500))
    assert (tail > 0).all() and (tail < 2.2250738585072014e-308).any()
