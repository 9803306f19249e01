"""The float64 evaluation of the spec's transcendental unary operators, one table for the NumPy references
(tests/reference/reference.py, tests/reference/fuzz_reference.py): each entry maps a float64 array to the
float64 function value, NaN and the infinities included (callers round once to the node's type)."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np


def erf64(x: np.ndarray) -> np.ndarray:
    return np.array([math.erf(v) for v in x.ravel().tolist()], dtype=np.float64).reshape(x.shape)


def erfc64(x: np.ndarray) -> np.ndarray:
    return np.array(
        [math.erfc(v) if not math.isnan(v) else math.nan for v in x.ravel().tolist()], dtype=np.float64
    ).reshape(x.shape)


def sigmoid64(x: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        return 1.0 / (1.0 + np.exp(-x))


def softplus64(x: np.ndarray) -> np.ndarray:
    """max(x, 0) + log1p(e^-|x|)."""
    with np.errstate(all="ignore"):
        return np.maximum(x, 0.0) + np.log1p(np.exp(-np.abs(x)))


def mish64(x: np.ndarray) -> np.ndarray:
    """x tanh(log1p(e^x)); the limit -0 at -inf."""
    with np.errstate(all="ignore"):
        return np.where(np.isneginf(x), -0.0, x * np.tanh(np.log1p(np.exp(x))))


def gelu64(x: np.ndarray, approximate: str) -> np.ndarray:
    with np.errstate(all="ignore"):
        if approximate == "tanh":
            z = math.sqrt(2.0 / math.pi) * (x + 0.044715 * x * x * x)
            r = x * sigmoid64(2.0 * z)  # 0.5 * x * (1 + tanh z), without the cancellation
        else:
            r = 0.5 * x * erfc64(-x / math.sqrt(2.0))  # 0.5 * x * (1 + erf(x / sqrt 2))
        r = np.where(np.isneginf(x), -0.0, r)  # the limit (the spec's choice; ORT gives NaN)
        r = np.where(np.isposinf(x), np.inf, r)
    return r


def act64(op: str, x: np.ndarray, alpha: float, gamma: float) -> np.ndarray:
    """Elu: x for x >= 0 (-0 stays), alpha expm1(x) below; Selu: gamma x for x > 0, +0 at +-0, gamma alpha
    expm1(x) below; Celu: x for x > 0, +0 at +-0, alpha expm1(x/alpha) below (any sign of alpha). alpha and
    gamma are the f32 values the node holds (gamma: Selu only)."""
    p = gamma if op == "Selu" else 1.0
    a = gamma * alpha if op == "Selu" else alpha
    with np.errstate(all="ignore"):
        neg = a * np.expm1(x / (alpha if op == "Celu" else 1.0))
    zero = x if op == "Elu" else np.zeros_like(x)
    return np.where(x > 0, p * x, np.where(x == 0, zero, np.where(np.isnan(x), np.nan, neg)))


# The operators without attributes; Gelu (gelu64) and Elu, Selu, Celu (act64) take theirs.
PLAIN64: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "Exp": np.exp,
    "Log": np.log,
    "Tanh": np.tanh,
    "Sigmoid": sigmoid64,
    "Erf": erf64,
    "Sin": np.sin,
    "Cos": np.cos,
    "Softplus": softplus64,
    "Mish": mish64,
}
