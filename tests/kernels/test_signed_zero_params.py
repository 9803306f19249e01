"""A parameter of -0 reaches the kernels as -0 on every path (a scalar splat made by adding it to a zero
vector would make it +0, and flip the sign of a product with it)."""
from __future__ import annotations

import numpy as np
import pytest

from onemodel_ep import kernel_paths
from onemodel_ep.node import Node

PATHS = kernel_paths()
FLOATS = [(1, np.float32), (10, np.float16), (11, np.float64)]


def _bits(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a).view(f"u{a.dtype.itemsize}")


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize(("t", "dt"), FLOATS, ids=["f32", "f16", "f64"])
@pytest.mark.parametrize("alpha", [-0.0, 0.0])
def test_leakyrelu_signed_zero_alpha(path: str, t: int, dt: type, alpha: float) -> None:
    # 67 elements: the vector loop and the one-lane tail both run
    x = np.resize(np.array([-0.5, -2.0, 0.5, -0.0, 0.0, -7.25], dtype=dt), 67)
    want = np.where(x < 0, dt(alpha) * x, x).astype(dt)
    got = Node("LeakyRelu", [t], onnx_opset=16, attributes={"alpha": alpha}, kernel_path=path).run(x)
    assert np.array_equal(_bits(got), _bits(want)), (path, dt, alpha)
