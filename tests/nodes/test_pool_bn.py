"""GlobalAveragePool, GlobalMaxPool (node_pool.c) and BatchNormalization (node_batchnorm.c):
docs/pooling-norm.md's order, every way in, path and thread count alike.

Each case is a one-node model run through both ways in (the rewrite, and the execution provider where ORT
supports it) on every kernel path at one thread and on the default path at two threads; every run must give
the bits of tests/reference/pool_reference.py (written from docs/pooling-norm.md). Stock ORT (where it has a
kernel: f32 and f16 pools, f32, f16 and f64 BatchNormalization; f16 within 2e-3 rather than 1e-6) agrees
exactly for GlobalMaxPool, within 1e-6 of the slab's mean magnitude for GlobalAveragePool and within 1e-6 of
|x s| + |mean s| + |B| (the terms of stock's x * s + (B - mean * s)) for BatchNormalization. The same input
gives the bits of ReduceMean / ReduceMax over axes [2, ...], which the doc says the pools are.
"""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

import onemodel_ep
from onemodel_ep.node import Node
from tests.reference import pool_reference as P
from tests.reference import reference_linalg as R

PATHS = onemodel_ep.kernel_paths()
VIAS = ("rewrite", "ep") if onemodel_ep.ep_supported() else ("rewrite",)
F16, F32, F64 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)
GLOBAL_POOLS = {"GlobalAveragePool": P.global_average_pool, "GlobalMaxPool": P.global_max_pool}
SHAPES = [
    (2, 3, 7, 7),
    (1, 64, 7, 7),
    (2, 5, 37),  # 1-D spatial
    (1, 2, 3, 4, 5),  # 3-D spatial
    (3, 40, 33, 9),  # several chunks at two threads
    (1, 3, 1, 1),
    (1, 1, 1, 1),
    (0, 3, 4, 4),  # zero-size batch
    (2, 0, 4, 4),
]


def _model(op: str, dtype: np.dtype, shape: tuple[int, ...] | list[str], opset: int,
           inits: dict[str, np.ndarray] | None = None, **attrs: object) -> onnx.ModelProto:
    elem = int(helper.np_dtype_to_tensor_dtype(dtype))
    inits = inits or {}
    node = helper.make_node(op, ["x", *inits], ["y"], name="pool", **attrs)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", elem, list(shape))],
                              [helper.make_tensor_value_info("y", elem, None)],
                              initializer=[numpy_helper.from_array(v, k) for k, v in inits.items()])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=10)


def _session(model: onnx.ModelProto, via: str, path: str | None,
             threads: int) -> onemodel_ep.InferenceSession:
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.log_severity_level = 3
    return onemodel_ep.InferenceSession(model, so, mode="exact", kernel_path=path, via=via)


def _runs(model: onnx.ModelProto, x: np.ndarray, op: str) -> dict[str, np.ndarray]:
    out: dict[str, np.ndarray] = {}
    for via, path, threads in [(v, p, 1) for v in VIAS for p in PATHS] + [(v, None, 2) for v in VIAS]:
        sess = _session(model, via, path, threads)
        assert [n.op for n in sess.report.moved] == [op], (via, path, sess.report.summary())
        out[f"via {via}, path {path or 'auto'}, {threads} thread(s)"] = sess.run(None, {"x": x})[0]
    return out


def _assert_bits(what: str, got: np.ndarray, want: np.ndarray) -> None:
    assert got.dtype == want.dtype and got.shape == want.shape, (what, got.dtype, got.shape, want.shape)
    bad = ~R.bits_equal(got, want)
    if bad.any():
        idx = tuple(np.argwhere(bad)[0])
        raise AssertionError(f"{what}: {int(bad.sum())} of {bad.size} differ, first at {idx}: "
                             f"{got[idx]!r} vs {want[idx]!r}")


def _stock(model: onnx.ModelProto, x: np.ndarray) -> np.ndarray:
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return sess.run(None, {"x": x})[0]


def _data(shape: tuple[int, ...], dtype: np.dtype, seed: int) -> np.ndarray:
    return (np.random.default_rng(seed).standard_normal(shape) * 4.0).astype(dtype)


def _check(op: str, x: np.ndarray, opset: int, stock: bool) -> None:
    model = _model(op, x.dtype, x.shape, opset)
    want = GLOBAL_POOLS[op](x)
    for where, got in _runs(model, x, op).items():
        _assert_bits(f"{op} {where} vs the reference", got, want)
    if not (stock and x.size):
        return
    s = _stock(model, x)
    if op == "GlobalMaxPool":
        _assert_bits(f"{op} vs stock ORT", want, s)
        return
    m = int(np.prod(x.shape[2:]))
    scale = np.abs(x.astype(F64)).reshape(x.shape[0], x.shape[1], m).mean(axis=-1).reshape(want.shape)
    tol = 2e-3 if x.dtype == F16 else 1e-6  # f16: within the output's own rounding
    assert np.all(np.abs(want.astype(F64) - s.astype(F64)) <= tol * scale), np.max(np.abs(want - s) / scale)


@pytest.mark.parametrize("op", list(GLOBAL_POOLS))
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_global_pool_f32_every_way_in_path_and_thread_count(op: str, shape: tuple[int, ...]) -> None:
    _check(op, _data(shape, F32, int(np.prod(shape)) + len(op)), 13, stock=True)


@pytest.mark.parametrize("op", list(GLOBAL_POOLS))
@pytest.mark.parametrize("dtype", [F16, F64], ids=str)
@pytest.mark.parametrize("shape", [SHAPES[i] for i in (0, 2, 4, 7)], ids=str)
def test_global_pool_f16_f64(op: str, dtype: np.dtype, shape: tuple[int, ...]) -> None:
    # stock ORT 1.31 has no f64 kernel for these ops: f64 is checked against the reference only
    _check(op, _data(shape, dtype, int(np.prod(shape)) + 11), 13, stock=dtype == F16)


@pytest.mark.parametrize("op", list(GLOBAL_POOLS))
@pytest.mark.parametrize("opset", [1, 7, 22])
def test_global_pool_every_opset(op: str, opset: int) -> None:
    _check(op, _data((2, 3, 5, 6), F32, opset), opset, stock=True)


SPECIALS = np.array([
    [np.nan, 1.0, 2.0, 3.0],
    [np.inf, 1.0, -2.0, 3.0],
    [-np.inf, -np.inf, -1.0, -3.0],
    [-0.0, -0.0, -0.0, -0.0],
    [-0.0, 0.0, -0.0, 0.0],
    [3e38, 3e38, -1.0, 0.0],
    [1.0, 2.0, 3.0, np.nan],
], dtype=np.float32).reshape(1, 7, 2, 2)


@pytest.mark.parametrize("op", list(GLOBAL_POOLS))
def test_global_pool_nan_inf_signed_zero(op: str) -> None:
    _check(op, SPECIALS, 13, stock=False)


def test_global_max_pool_nan_vs_stock() -> None:
    """ONNX's reference (np.max) and we give NaN for a slab holding a NaN wherever it stands; stock ORT's
    result there depends on the NaN's position (printed; docs/pooling-norm.md); elsewhere it gives our
    bits."""
    model = _model("GlobalMaxPool", F32, SPECIALS.shape, 13)
    ours = _runs(model, SPECIALS, "GlobalMaxPool")
    s = _stock(model, SPECIALS)
    first = next(iter(ours.values()))
    assert np.isnan(first[0, [0, 6]]).all()
    finite = [1, 2, 3, 4, 5]
    _assert_bits("GlobalMaxPool vs stock ORT off the NaN slabs", first[:, finite], s[:, finite])
    print("stock ORT GlobalMaxPool of [nan, 1, 2, 3] and [1, 2, 3, nan]:", s[0, 0].ravel(), s[0, 6].ravel())


@pytest.mark.parametrize(("op", "red"), [("GlobalAveragePool", "ReduceMean"), ("GlobalMaxPool", "ReduceMax")])
@pytest.mark.parametrize("dtype", [F16, F32, F64], ids=str)
def test_same_bits_as_the_reduce_over_spatial_axes(op: str, red: str, dtype: np.dtype) -> None:
    x = _data((3, 40, 33, 9), dtype, 5)
    t = int(helper.np_dtype_to_tensor_dtype(dtype))
    for path in PATHS:
        pool = Node(op, [t], kernel_path=path, onnx_opset=13).run_outputs(x)[0]
        reduce = Node(red, [t], attributes={"axes": [2, 3], "keepdims": 1}, kernel_path=path,
                      onnx_opset=13).run_outputs(x)[0]
        _assert_bits(f"{op} vs {red} on path {path}", pool, reduce)


@pytest.mark.parametrize("op", list(GLOBAL_POOLS))
def test_empty_spatial_dimension(op: str) -> None:
    x = np.zeros((2, 3, 0, 4), F32)
    for path in PATHS:
        got = Node(op, [TensorProto.FLOAT], kernel_path=path, onnx_opset=13).run_outputs(x)[0]
        _assert_bits(f"{op} path {path}", got, GLOBAL_POOLS[op](x))


@pytest.mark.parametrize("op", list(GLOBAL_POOLS))
@pytest.mark.parametrize("via", VIAS)
def test_rank_below_3_is_an_error_at_session_creation(op: str, via: str) -> None:
    model = _model(op, F32, [2, 3], 13)
    with pytest.raises(Exception, match=f"node 'pool' \\(op {op}\\): input 0 must be \\[N, C, D1, ...\\] "
                       "\\(rank 3 or more\\), it has rank 2"):
        _session(model, via, None, 1)


@pytest.mark.parametrize("op", list(GLOBAL_POOLS))
def test_rank_below_3_at_run_time_is_an_error(op: str) -> None:
    model = _model(op, F32, ["a", "b"], 13)
    for via in VIAS:
        with pytest.raises(Exception, match=f"node 'pool' \\(op {op}\\): input 0 must be"):
            _session(model, via, None, 1).run(None, {"x": np.zeros((2, 3), F32)})


# ---- BatchNormalization ----------------------------------------------------------------------------------

BN_SHAPES = [(2, 3, 7, 7), (1, 64, 56, 56), (2, 5, 37), (3, 4), (1, 2, 3, 4, 5), (0, 3, 4, 4), (2, 3, 0, 5)]


def _bn_params(c: int, dtype: np.dtype, seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {"scale": rng.uniform(0.5, 2.0, c).astype(dtype), "bias": rng.uniform(-1, 1, c).astype(dtype),
            "mean": rng.uniform(-1, 1, c).astype(dtype), "var": rng.uniform(0.1, 3.0, c).astype(dtype)}


def _check_bn(x: np.ndarray, params: dict[str, np.ndarray], opset: int, stock: bool, **attrs: object) -> None:
    model = _model("BatchNormalization", x.dtype, x.shape, opset, params, **attrs)
    eps = float(attrs.get("epsilon", 1e-5))  # type: ignore[arg-type]
    want = P.batch_normalization(x, params["scale"], params["bias"], params["mean"], params["var"], eps)
    for where, got in _runs(model, x, "BatchNormalization").items():
        _assert_bits(f"BatchNormalization {where} vs the reference", got, want)
    if not (stock and x.size):
        return
    s = _stock(model, x).astype(F64)
    bc = (1, -1) + (1,) * (x.ndim - 2)
    p = {k: v.astype(F64).reshape(bc) for k, v in params.items()}
    sc = p["scale"] / np.sqrt(p["var"] + eps)
    # stock computes x * s + (B - mean * s): its rounding is relative to |x s| + |mean s| + |B|
    scale = (np.abs(x.astype(F64)) + np.abs(p["mean"])) * np.abs(sc) + np.abs(p["bias"])
    tol = 2e-3 if x.dtype == F16 else 1e-6  # f16: within the output's own rounding
    assert np.all(np.abs(want.astype(F64) - s) <= tol * scale), np.max(np.abs(want - s) / scale)


@pytest.mark.parametrize("shape", BN_SHAPES, ids=str)
@pytest.mark.parametrize("opset", [9, 14, 15])
def test_batchnorm_f32_every_way_in_path_and_thread_count(shape: tuple[int, ...], opset: int) -> None:
    x = _data(shape, F32, int(np.prod(shape)) + opset)
    _check_bn(x, _bn_params(shape[1], F32, opset), opset, stock=True)


@pytest.mark.parametrize("dtype", [F16, F64], ids=str)
@pytest.mark.parametrize("shape", [BN_SHAPES[i] for i in (0, 2, 3, 5)], ids=str)
def test_batchnorm_f16_f64(dtype: np.dtype, shape: tuple[int, ...]) -> None:
    x = _data(shape, dtype, int(np.prod(shape)) + 5)
    _check_bn(x, _bn_params(shape[1], dtype, 3), 15, stock=True, epsilon=1e-3, momentum=0.7)


def test_batchnorm_nan_inf_and_negative_variance() -> None:
    x = np.array([[np.nan, 1.0, np.inf, -np.inf], [0.0, -0.0, 3e38, -3e38], [1.0, 2.0, 3.0, 4.0]],
                 F32).reshape(1, 3, 2, 2)
    params = {"scale": np.array([1.0, 2.0, 1.0], F32), "bias": np.array([0.0, -0.0, 1.0], F32),
              "mean": np.array([0.5, 0.0, 1.0], F32), "var": np.array([1.0, 4.0, -2.0], F32)}
    _check_bn(x, params, 15, stock=False)


def test_batchnorm_training_mode_stays_with_stock_with_a_reason() -> None:
    with pytest.raises(Exception, match="training_mode 1 is not served"):
        Node("BatchNormalization", [TensorProto.FLOAT] * 5, attributes={"training_mode": 1}, onnx_opset=15)
    model = _model("BatchNormalization", F32, (2, 3, 4, 4), 15, _bn_params(3, F32, 1), training_mode=1)
    report = onemodel_ep.RewriteReport("exact", None)
    onemodel_ep.rewrite(model, report=report)
    (node,) = report.nodes
    assert not node.moved and "training_mode 1 is not served" in node.reason


@pytest.mark.parametrize("via", VIAS)
def test_batchnorm_wrong_parameter_rank_is_an_error_at_session_creation(via: str) -> None:
    """The rewrite's node says it; on the EP path ONNX's shape inference refuses the model first."""
    params = _bn_params(3, F32, 1)
    params["mean"] = params["mean"].reshape(1, 3)
    model = _model("BatchNormalization", F32, (2, 3, 4, 4), 15, params)
    ours = ("node 'pool' \\(op BatchNormalization\\): input 3 \\(input_mean\\) must be 1-D \\[C\\], "
            "it has rank 2")
    onnx_s = "BatchNormalization.*Input 3 expected to have rank 1 but has rank 2"
    with pytest.raises(Exception, match=ours if via == "rewrite" else f"{ours}|{onnx_s}"):
        _session(model, via, None, 1)
    with pytest.raises(Exception, match="input 3 \\(input_mean\\) must be 1-D of C = 3 elements"):
        Node("BatchNormalization", [TensorProto.FLOAT] * 5, onnx_opset=15).run_outputs(
            np.zeros((2, 3, 4, 4), F32), params["scale"], params["bias"], params["mean"], params["var"])


def test_batchnorm_wrong_parameter_length_is_an_error_at_run() -> None:
    t = TensorProto.FLOAT
    node = Node("BatchNormalization", [t] * 5, onnx_opset=15)
    p = _bn_params(4, F32, 1)
    with pytest.raises(Exception, match="input 1 \\(scale\\) must be 1-D of C = 3 elements"):
        node.run_outputs(np.zeros((2, 3, 4), F32), p["scale"], p["bias"][:3], p["mean"][:3], p["var"][:3])
