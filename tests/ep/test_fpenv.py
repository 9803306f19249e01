"""Exact mode does not depend on the host's floating-point environment.

ORT's `session.set_denormal_as_zero` turns on flush-to-zero and denormals-are-zero on its threads; a stock
kernel then flushes subnormals, ours must not (every range runs under the IEEE default environment).
"""

import ctypes
import ctypes.util

import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

import onemodel_ep


@pytest.fixture(autouse=True)
def _restore_fp_environment():
    """ORT's denormal-as-zero session sets FTZ/DAZ on the thread that runs it (this one, at one thread) and
    leaves it set: put the environment back, so later tests in this process run under the IEEE default."""
    name = ctypes.util.find_library("m")
    libm = ctypes.CDLL(name) if name else None
    saved = ctypes.create_string_buffer(64)
    if libm is not None:
        libm.fegetenv(saved)
    yield
    if libm is not None:
        libm.fesetenv(saved)


def _model(op):
    vi = helper.make_tensor_value_info
    g = helper.make_graph([helper.make_node(op, ["x", "y"], ["z"])], "g",
                          [vi("x", TensorProto.FLOAT, ["N"]), vi("y", TensorProto.FLOAT, ["N"])],
                          [vi("z", TensorProto.FLOAT, ["N"])])
    return helper.make_model(g, ir_version=9, opset_imports=[helper.make_opsetid("", 17)])


def _session(model, daz, threads):
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    if daz:
        so.add_session_config_entry("session.set_denormal_as_zero", "1")
    return ort.InferenceSession(model.SerializeToString(), onemodel_ep.session_options(so),
                                providers=["CPUExecutionProvider"])


def test_denormal_as_zero_session_keeps_subnormals():
    n = 300_000  # several parallel chunks
    rng = np.random.default_rng(1)
    x = (rng.uniform(1, 2, n) * 2.0**-130).astype(np.float32)  # subnormal floats
    y = rng.uniform(0.25, 4, n).astype(np.float32)
    expect = x * y  # numpy, IEEE default environment
    assert np.count_nonzero(expect) > n // 2
    for path in onemodel_ep.kernel_paths():
        model = onemodel_ep.rewrite(_model("Mul"), kernel_path=path)
        for threads in (1, 2):
            got = _session(model, True, threads).run(None, {"x": x, "y": y})[0]
            assert np.array_equal(got.view(np.uint32), expect.view(np.uint32)), (path, threads)
