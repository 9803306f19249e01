"""com.microsoft MatMulNBits (ONNX Runtime GenAI's 4- and 8-bit weights) through both ways in.

Every case runs as an unmodified one-node model through the rewrite and the execution provider on every kernel
path at one thread and the default path at two; every run must give the bits of the reference written from
docs/quantized.md (tests/reference/reference_nbits.py dequantizes, reference_linalg.gemm multiplies), which
are also the bits of our own MatMul (+ Add for the bias) on the dequantized weights; stock ORT agrees within a
tolerance (its dequantization rounds differently). Batch invariance: row i's output never depends on M.
"""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import onemodel_ep
from onemodel_ep.node import Node, NodeError
from tests.nodes.node_sessions import VIAS, assert_bits, runs, session, stock
from tests.reference import reference_linalg as R
from tests.reference import reference_nbits as RQ

MS = "com.microsoft"
OP = "MatMulNBits"
F32 = np.dtype(np.float32)


def _model(feeds: dict[str, np.ndarray], inits: dict[str, np.ndarray], inputs: list[str],
           dynamic: bool = False, **attrs: object) -> onnx.ModelProto:
    """A one-node MatMulNBits model; `inputs` names its inputs in order ("" absent)."""
    node = helper.make_node(OP, inputs, ["Y"], name="n0", domain=MS, **attrs)
    elem = {np.dtype(np.float32): TensorProto.FLOAT, np.dtype(np.uint8): TensorProto.UINT8,
            np.dtype(np.int32): TensorProto.INT32}
    graph = helper.make_graph(
        [node], "g",
        [helper.make_tensor_value_info(k, elem[v.dtype], [f"{k}{i}" for i in range(v.ndim)] if dynamic
                                       else list(v.shape)) for k, v in feeds.items()],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)],
        initializer=[numpy_helper.from_array(v, k) for k, v in inits.items()],
    )
    imports = [helper.make_opsetid("", 17), helper.make_opsetid(MS, 1)]
    return helper.make_model(graph, opset_imports=imports, ir_version=10)


def _weights(K: int, N: int, bits: int, block_size: int, zp: str, seed: int) -> dict[str, np.ndarray]:
    """Random quantized weights as ORT lays them out: B, scales and (zp "uint8" or "float") zero_points."""
    rng = np.random.default_rng(seed)
    kb = RQ.k_blocks(K, block_size)
    q = rng.integers(0, 1 << bits, (N, K), dtype=np.uint8)
    out = {"B": RQ.pack_b(q, bits, block_size),
           "scales": (rng.standard_normal(N * kb) * 0.02).astype(F32)}
    if zp == "uint8":
        out["zero_points"] = RQ.pack_zero_points(rng.integers(0, 1 << bits, (N, kb), dtype=np.uint8), bits)
    elif zp == "float":
        out["zero_points"] = (rng.standard_normal(N * kb) * 3 + (1 << (bits - 1))).astype(F32)
    return out


def _want(a: np.ndarray, w: dict[str, np.ndarray], K: int, N: int, bits: int, block_size: int) -> np.ndarray:
    W = RQ.dequantize(w["B"], w["scales"], w.get("zero_points"), K, N, bits, block_size)
    y = R.gemm(a.reshape(-1, K), W, w.get("bias"))
    return y.reshape(a.shape[:-1] + (N,))


def _inputs(w: dict[str, np.ndarray]) -> list[str]:
    names = ["A", "B", "scales", "zero_points", "g_idx", "bias"]
    last = max(i for i, n in enumerate(names) if n == "A" or n in w)
    return [n if n == "A" or n in w else "" for n in names[: last + 1]]


def _close(got: np.ndarray, theirs: np.ndarray, a: np.ndarray, W: np.ndarray) -> None:
    """Within 1e-5 of stock ORT, relative to sum_k |a_ik w_kj| (the scale of the products' rounding)."""
    scale = np.abs(a.reshape(-1, a.shape[-1])).astype(np.float64) @ np.abs(W).astype(np.float64)
    err = np.abs(got.reshape(scale.shape).astype(np.float64) - theirs.reshape(scale.shape))
    assert (err <= 1e-5 * (scale + 1e-30)).all(), float((err / (scale + 1e-30)).max())


CASES = [  # (A shape, K, N, bits, block_size, zero points, bias)
    ((1, 64), 64, 48, 4, 32, "uint8", False),
    ((5, 100), 100, 37, 4, 32, "uint8", True),        # K not a multiple of block_size; k_blocks odd
    ((2, 3, 96), 96, 40, 4, 16, "none", False),        # rank 3, default zero point 8
    ((7, 300), 300, 33, 8, 64, "uint8", True),         # 8 bits, two GEMM K blocks
    ((4, 130), 130, 20, 8, 128, "none", False),        # default zero point 128
    ((3, 70), 70, 17, 4, 32, "float", True),           # f32 zero points: two roundings
    ((70,), 70, 9, 4, 256, "uint8", False),            # 1-D A; one block of 256
    ((0, 64), 64, 8, 4, 32, "uint8", False),           # M = 0
]


@pytest.mark.parametrize(("shape", "K", "N", "bits", "bs", "zp", "bias"), CASES, ids=str)
def test_every_way_path_and_thread_count(shape, K, N, bits, bs, zp, bias) -> None:
    seed = sum(shape) + K + N + bits
    w = _weights(K, N, bits, bs, zp, seed)
    if bias:
        w["bias"] = (np.random.default_rng(seed + 1).standard_normal(N)).astype(F32)
    a = np.random.default_rng(seed + 2).standard_normal(shape).astype(F32)
    want = _want(a, w, K, N, bits, bs)
    # accuracy_level 0 (f32 compute); level 4 is tests/nodes/test_matmul_nbits_level4.py's int8 contract
    model = _model({"A": a}, w, _inputs(w), K=K, N=N, bits=bits, block_size=bs, accuracy_level=0)
    every = runs(model, {"A": a}, OP)
    for where, got in every.items():
        assert_bits(f"{OP}, {where}", got[0], want)
    theirs = stock(model, {"A": a})[0]
    assert theirs.shape == want.shape
    if a.size:
        W = RQ.dequantize(w["B"], w["scales"], w.get("zero_points"), K, N, bits, bs)
        _close(want, theirs, a, W)


@pytest.mark.parametrize("bias", [False, True])
def test_same_bits_as_our_matmul_on_the_dequantized_weights(bias: bool) -> None:
    """The contract's promise: MatMulNBits == our MatMul (then Add of the bias) on W, on every path."""
    K, N, bits, bs = 600, 45, 4, 32
    w = _weights(K, N, bits, bs, "uint8", 5)
    if bias:
        w["bias"] = np.random.default_rng(6).standard_normal(N).astype(F32)
    a = np.random.default_rng(7).standard_normal((9, K)).astype(F32)
    W = RQ.dequantize(w["B"], w["scales"], w["zero_points"], K, N, bits, bs)
    nodes = [helper.make_node("MatMul", ["A", "W"], ["P" if bias else "Y"], name="mm")]
    inits = [numpy_helper.from_array(W, "W")]
    if bias:
        nodes.append(helper.make_node("Add", ["P", "bias"], ["Y"], name="add"))
        inits.append(numpy_helper.from_array(w["bias"], "bias"))
    graph = helper.make_graph(nodes, "g",
                              [helper.make_tensor_value_info("A", TensorProto.FLOAT, list(a.shape))],
                              [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)],
                              initializer=inits)
    plain = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=10)
    nbits = _model({"A": a}, w, _inputs(w), K=K, N=N, bits=bits, block_size=bs)
    for via in VIAS:
        for path in onemodel_ep.kernel_paths():
            s_plain = session(plain, via, path, 1)
            assert len(s_plain.report.moved) == len(nodes), s_plain.report.summary()
            ref = s_plain.run(None, {"A": a})[0]
            assert_bits(f"{via}, {path}", session(nbits, via, path, 1).run(None, {"A": a})[0], ref)


def test_batch_invariance_row_never_depends_on_m() -> None:
    """Row i of a run with M rows equals the run of that row alone (M = 1), for M from 1 to 40, every path."""
    K, N, bits, bs = 512, 70, 4, 32
    w = _weights(K, N, bits, bs, "uint8", 11)
    a = np.random.default_rng(12).standard_normal((40, K)).astype(F32)
    model = _model({"A": a}, w, _inputs(w), dynamic=True, K=K, N=N, bits=bits, block_size=bs)
    for via in VIAS:
        for path in onemodel_ep.kernel_paths():
            sess = session(model, via, path, 1)
            single = np.concatenate([sess.run(None, {"A": a[i:i + 1]})[0] for i in range(a.shape[0])])
            for m in (2, 3, 5, 6, 7, 13, 16, 40):
                assert_bits(f"M = {m}, {via}, {path}", sess.run(None, {"A": a[:m]})[0], single[:m])


def test_weights_given_at_run_time_give_the_same_bits() -> None:
    """B, scales and zero_points as graph inputs (dequantized per run) against initializers (packed once)."""
    K, N, bits, bs = 200, 30, 4, 16
    w = _weights(K, N, bits, bs, "uint8", 21)
    w["bias"] = np.random.default_rng(22).standard_normal(N).astype(F32)
    a = np.random.default_rng(23).standard_normal((6, K)).astype(F32)
    want = _want(a, w, K, N, bits, bs)
    feeds = {"A": a, "B": w["B"], "scales": w["scales"], "zero_points": w["zero_points"]}
    model = _model(feeds, {"bias": w["bias"]}, _inputs(w), K=K, N=N, bits=bits, block_size=bs)
    for where, got in runs(model, feeds, OP).items():
        assert_bits(where, got[0], want)


def _orts_quantizer(W0: np.ndarray, bits: int, block_size: int) -> dict[str, np.ndarray]:
    """W0 [K, N] quantized by ONNX Runtime's own packer (quantize_matmul_4bits / _8bits, what
    onnxruntime.quantization's MatMulNBitsQuantizer calls), asymmetric, padded to whole blocks as it pads."""
    from onnxruntime.capi import _pybind_state as C

    K, N = W0.shape
    kb = RQ.k_blocks(K, block_size)
    padded = np.zeros((kb * block_size, N), F32)
    padded[:K] = W0
    b = np.zeros((N, kb, block_size * bits // 8), np.uint8)
    zp = np.zeros((N, (kb * bits + 7) // 8), np.uint8)
    scales = np.zeros((N, kb), F32)
    pack = C.quantize_matmul_4bits if bits == 4 else C.quantize_matmul_8bits
    pack(b, padded, scales, zp, block_size, N, kb * block_size, False)
    return {"B": b, "scales": scales, "zero_points": zp}


@pytest.mark.parametrize(("K", "bits", "bs"), [(96, 4, 32), (100, 4, 16), (72, 8, 32)])
def test_layout_of_orts_quantizer(K: int, bits: int, bs: int) -> None:
    """Weights packed by ONNX Runtime's quantizer: our reading of them is W0 to within half a quantization
    step, our output is the reference's bit for bit and stock ORT's closely."""
    N = 40
    rng = np.random.default_rng(K + bits)
    W0 = rng.standard_normal((K, N)).astype(F32)
    w = _orts_quantizer(W0, bits, bs)
    W = RQ.dequantize(w["B"], w["scales"], w["zero_points"], K, N, bits, bs)
    step = np.repeat(np.abs(w["scales"]), bs, axis=1)[:, :K].T
    assert (np.abs(W - W0) <= step * 0.5 + 1e-6).all()
    a = rng.standard_normal((3, K)).astype(F32)
    model = _model({"A": a}, w, _inputs(w), K=K, N=N, bits=bits, block_size=bs)
    want = R.gemm(a, W)
    for where, got in runs(model, {"A": a}, OP).items():
        assert_bits(where, got[0], want)
    _close(want, stock(model, {"A": a})[0], a, W)


# ---- what is not served, and errors -----------------------------------------------------------------------

U8, F, I32 = TensorProto.UINT8, TensorProto.FLOAT, TensorProto.INT32
ATTRS = {"K": 64, "N": 8, "bits": 4, "block_size": 32}


@pytest.mark.parametrize(("types", "attrs", "msg"), [
    ([F, U8, F, U8, I32], ATTRS, "input g_idx \\(act-order\\) is not served"),
    ([F, U8, F], {**ATTRS, "bits": 2}, "attribute bits = 2 is not served"),
    ([F, U8, F], {**ATTRS, "bits": 5}, "attribute bits = 5 is not served \\(4 or 8\\)"),
    ([F, U8, F], {**ATTRS, "block_size": 512}, "attribute block_size = 512 is not served"),
    ([F, U8, F], {**ATTRS, "block_size": 48}, "attribute block_size = 48 must be a power of two"),
    ([F, U8, F], {"N": 8, "bits": 4, "block_size": 32}, "attribute K is required"),
    ([F, U8, F], {**ATTRS, "K": 0}, "attribute K = 0 is not served"),
    ([F, I32, F], ATTRS, "B of element type int32 is not served"),
    ([F, U8, F, TensorProto.INT32], ATTRS, "zero_points of element type int32 is not served"),
    ([F, U8, U8], ATTRS, "scales of element type uint8 is not served"),
])
def test_refused_nodes_are_named(types, attrs, msg) -> None:
    with pytest.raises(NodeError, match=rf"node 'node' \(op MatMulNBits\): {msg}"):
        Node(f"{MS}.{OP}", types, onnx_opset=1, attributes=attrs)


def test_f16_a_is_not_served() -> None:
    with pytest.raises(NodeError, match="unsupported element type float16 for input 0"):
        Node(f"{MS}.{OP}", [TensorProto.FLOAT16, U8, TensorProto.FLOAT16], onnx_opset=1, attributes=ATTRS)


@pytest.mark.parametrize("via", VIAS)
def test_unserved_node_stays_with_stock_ort(via: str) -> None:
    """bits = 2: not claimed (the report says why) and stock ORT runs it."""
    K, N, bs = 64, 8, 32
    rng = np.random.default_rng(41)
    kb = RQ.k_blocks(K, bs)
    w = {"B": rng.integers(0, 256, (N, kb, bs * 2 // 8), dtype=np.uint8), "scales": np.ones(N * kb, F32)}
    a = rng.standard_normal((2, K)).astype(F32)
    model = _model({"A": a}, w, _inputs(w), K=K, N=N, bits=2, block_size=bs)
    sess = session(model, via, None, 1)
    assert not sess.report.moved and "bits = 2 is not served" in sess.report.stayed[0].reason
    np.testing.assert_array_equal(sess.run(None, {"A": a})[0], stock(model, {"A": a})[0])


@pytest.mark.parametrize("via", VIAS)
@pytest.mark.parametrize(("name", "bad", "msg"), [
    ("B", np.zeros((8, 2, 8), np.uint8), r"B has shape \[8, 2, 8\], expected \[N, k_blocks, blob_size\] = "
                                         r"\[8, 2, 16\]"),
    ("scales", np.ones(15, F32), r"scales has shape \[15\], expected \[16\] or \[8, 2\]"),
    ("zero_points", np.zeros(9, np.uint8), r"zero_points has shape \[9\], expected \[8\] or \[8, 1\]"),
    ("bias", np.ones(7, F32), r"bias has shape \[7\], expected \[N\] = \[8\]"),
])
def test_shapes_that_do_not_fit_are_named_at_session_creation(via: str, name: str, bad: np.ndarray,
                                                              msg: str) -> None:
    K, N, bs = 64, 8, 32
    w = _weights(K, N, 4, bs, "uint8", 51)
    w["bias"] = np.ones(N, F32)
    w[name] = bad
    a = np.ones((2, K), F32)
    model = _model({"A": a}, w, _inputs(w), K=K, N=N, bits=4, block_size=bs)
    # ORT's own shape inference of the unmodified node checks bias first (a message naming node and op too)
    theirs = rf"|Node \(n0\) Op \(MatMulNBits\) \[ShapeInferenceError\] {name}" if via == "ep" else ""
    with pytest.raises(Exception, match=rf"node 'n0' \(op MatMulNBits\): {msg}{theirs}"):
        session(model, via, None, 1)


@pytest.mark.parametrize("via", VIAS)
def test_a_of_the_wrong_k_is_named_at_run_time(via: str) -> None:
    K, N, bs = 64, 8, 32
    w = _weights(K, N, 4, bs, "none", 61)
    model = _model({"A": np.ones((2, K), F32)}, w, _inputs(w), dynamic=True, K=K, N=N, bits=4, block_size=bs)
    sess = session(model, via, None, 1)
    msg = r"node 'n0' \(op MatMulNBits\): A has shape \[2, 60\], expected \[\.\.\., K\] with K = 64"
    with pytest.raises(Exception, match=msg):
        sess.run(None, {"A": np.ones((2, 60), F32)})
